"""The book's "Compile a config" page in headless Chromium: compile-config running in Pyodide gives the same
files as the command.

One page load (Pyodide starts once, from the book build's memory snapshot), then many compiles: every tier x
workload, three hardware files loaded into the form (one with two data device groups and two NIC groups, saved
back unchanged), a hardware file made from the form's fields (groups added and removed with the page's buttons)
and saved, an invalid option, an invalid hardware field and an invalid field of a group's row (the command's
message beside the field), and the zip download. Each result is compared byte for byte
with `compile-config` run as a child process on the same inputs. Every request that would leave 127.0.0.1 is
aborted and fails the test: the page must work offline.
"""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from flashtune.cli.web import tier_tree
from flashtune.compile.pipeline import WORKLOADS
from flashtune.hardware import tier_names
from support.bookserve import CHROMIUM, CHROMIUM_ARGS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BIN = Path(sys.executable).parent
READY_TIMEOUT_MS = 180_000  # Pyodide's first start on a loaded 2-core machine
COMPILE_TIMEOUT_MS = 60_000

# Two hardware files a user might write: fields the form shows, and fields it has no control for (kept).
HARDWARE_FILES = {
    "rack-a.yaml": """\
# eight NVMe per node, one socket
node:
  sockets: 1
  cores: 32
  cpu_ghz: 2.8
  ram_gib: 256
  nics:
    - {count: 2, speed_gbps: 25, role: public}
    - {count: 2, speed_gbps: 25, role: cluster}
  data_devices:
    - {count: 8, type: nvme, size_gb: 3840}
cluster:
  nodes: 4
  clients: 2
  client_ram_gib: 64
""",
    "sata-nodes.yml": """\
name: sata-nodes
node:
  sockets: 2
  cores: 12
  ram_gib: 96
  nics:
    - {count: 2, speed_gbps: 10}
  data_devices:
    - {count: 10, type: sata-ssd, size_gb: 1920}
  db_devices:
    - {count: 2, type: nvme, size_gb: 800}
cluster:
  nodes: 6
  clients: 4
""",
    "mixed.yaml": """\
# two kinds of data device, a DB device and two networks; fields the form has no control for are kept
node:
  cpu: AMD EPYC 7543P
  sockets: 1
  cores: 32
  cpu_ghz: 2.8
  ram_gib: 384
  nics:
    - {count: 2, speed_gbps: 25, role: public}
    - {count: 2, speed_gbps: 100, role: cluster}
  data_devices:
    - {count: 6, type: nvme, size_gb: 7680, model: Samsung PM1733}
    - {count: 4, type: sata-ssd, size_gb: 1920, read_iops: 90000}
  db_devices:
    - {count: 1, type: nvme, size_gb: 1600}
cluster:
  nodes: 8
  clients: 4
""",
}


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = BIN / "compile-config"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "flashtune.cli.compile"]
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def cli_files(args: list[str], cwd: Path) -> dict[str, str]:
    """What `compile-config ARGS --out folder` writes: {relative path: text}."""
    out = cwd / "cli-out"
    proc = cli([*args, "--out", str(out), "--force"], cwd)
    assert proc.returncode == 0, proc.stderr
    files = {p.relative_to(out).as_posix(): p.read_bytes().decode() for p in out.rglob("*") if p.is_file()}
    assert "ceph.conf" in files and "explain.md" in files
    return files


class ComparePage:
    """The compile page, opened once in Chromium, and helpers to drive its form."""

    def __init__(self, page: Any, offsite: list[str], problems: list[str], browser: Any, url: str) -> None:
        self.page, self.offsite, self.problems = page, offsite, problems
        self.browser, self.url = browser, url  # for a second, separate page

    def compiles(self) -> int:
        return int(self.page.get_attribute("#ft-form", "data-compiles") or 0)

    def compile(self) -> dict[str, Any]:
        n = self.compiles()
        self.page.click("#ft-compile")
        self.page.wait_for_selector(f"#ft-form[data-compiles='{n + 1}']", timeout=COMPILE_TIMEOUT_MS)
        result: dict[str, Any] = self.page.evaluate(
            "() => { const r = window.flashtuneCompile.result; return {code: r.code, stderr: r.stderr, "
            "field: r.field, row: r.row, argv: r.argv, folder: r.folder, ms: r.ms}; }"
        )
        return result

    def files(self) -> dict[str, str]:
        """Every [data-file] element of the result: its path and text."""
        pairs = self.page.eval_on_selector_all(
            "#ft-files [data-file]", "els => els.map(e => [e.dataset.file, e.textContent])"
        )
        return dict(pairs)

    def use_tier(self, tier: str, workload: str) -> None:
        self.page.check("input[name=use][value=tier]")
        self.page.select_option("select[name=tier]", tier)
        self.page.select_option("select[name=workload]", workload)


@pytest.fixture(scope="module")
def compile_page(served: str) -> Iterator[ComparePage]:
    from playwright.sync_api import sync_playwright

    host = urlsplit(served).netloc
    offsite: list[str] = []
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)

            def route(r: Any) -> None:
                if urlsplit(r.request.url).netloc == host or r.request.url.startswith(("data:", "blob:")):
                    r.continue_()
                else:
                    offsite.append(r.request.url)
                    r.abort()

            ctx.route("**/*", route)
            page = ctx.new_page()
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
            page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status} {r.url}"))
            page.goto(f"{served}/book/compile.html")
            page.wait_for_selector("#ft-form[data-ready='1']", timeout=READY_TIMEOUT_MS)
            # the guard works: a request to another host is stopped and recorded
            blocked = page.evaluate(
                "() => fetch('https://cdn.jsdelivr.net/').then(() => 'sent', () => 'blocked')"
            )
            assert blocked == "blocked" and offsite == ["https://cdn.jsdelivr.net/"]
            offsite.clear()
            problems[:] = [p for p in problems if "net::ERR_FAILED" not in p]  # the console's note of it
            # Python came from the build's memory snapshot, not the slow start the page falls back to
            assert page.evaluate("() => window.flashtuneCompile.boot") == "snapshot"
            yield ComparePage(page, offsite, problems, browser, served)
        finally:
            browser.close()
    assert not offsite, f"requests left 127.0.0.1: {offsite[:20]}"
    assert not problems, "\n".join(problems[:20])


def test_every_tier_and_workload_gives_the_commands_files(compile_page: ComparePage, tmp_path: Path) -> None:
    page = compile_page
    names = page.page.eval_on_selector_all("#ft-form [name]", "els => els.map(e => e.name)")
    for option in (
        "tier",
        "workload",
        "ceph-release",
        "nodes",
        "clients",
        "mysql",
        "db-ram-gib",
        "db-vcpus",
        "replication",
        "ec",
        "osds-per-device",
        "allow-unsafe",
        "hardware",
    ):
        assert option in names, f"no control named {option}"
    assert page.page.inner_text("#ft-compile") == "Compile"
    for tier in tier_names():
        for workload in WORKLOADS:
            page.use_tier(tier, workload)
            result = page.compile()
            assert result["code"] == 0, (tier, workload, result["stderr"])
            assert result["argv"] == ["--tier", tier, "--workload", workload]
            expected = cli_files(result["argv"], tmp_path)
            assert page.files() == expected, (tier, workload)
            assert result["folder"] == f"flashtune-{tier}-{workload}-" + page.page.input_value(
                "select[name=ceph-release]"
            )
    # explain.md is rendered (its tables as tables), and the budget and envelope are tables
    assert page.page.locator("#ft-explain h3, #ft-explain h4").count() > 3
    assert page.page.locator("#ft-explain table").count() > 2
    assert page.page.locator("#ft-memory td", has_text="OS reserve").count() == 1
    assert page.page.locator("#ft-envelope tbody tr").count() >= 2
    assert page.page.locator("#ft-envelope p.ft-note", has_text="are hard bounds").count() == 1


@pytest.mark.parametrize("name", sorted(HARDWARE_FILES))
def test_a_loaded_hardware_file_gives_the_commands_files(
    compile_page: ComparePage, tmp_path: Path, name: str
) -> None:
    page = compile_page
    (tmp_path / name).write_text(HARDWARE_FILES[name])
    page.page.set_input_files("#ft-load", str(tmp_path / name))
    page.page.wait_for_function(f"document.querySelector('[name=hardware]').value === '{name}'")
    assert page.page.is_checked("input[name=use][value=hardware]")
    for workload in ("block", "mysql"):
        page.page.select_option("select[name=workload]", workload)
        result = page.compile()
        assert result["code"] == 0, result["stderr"]
        assert result["argv"] == ["--hardware", name, "--workload", workload]
        assert page.files() == cli_files(result["argv"], tmp_path), (name, workload)
    # every group is in the form, one row each, and saving gives the file back (less its comments)
    original = yaml.safe_load(HARDWARE_FILES[name])
    for group, key in (("data-devices", "data_devices"), ("db-devices", "db_devices"), ("nics", "nics")):
        rows = page.page.locator(f".ft-group[data-group={group}] .ft-group-row")
        assert rows.count() == len(original["node"].get(key, [])), group
    with page.page.expect_download() as dl:
        page.page.click("#ft-save")
    dl.value.save_as(tmp_path / "saved.yaml")
    assert yaml.safe_load((tmp_path / "saved.yaml").read_text()) == original


def test_hardware_from_the_form_saved_and_compiled_like_the_command(
    compile_page: ComparePage, tmp_path: Path
) -> None:
    page = compile_page.page
    page.evaluate("() => { window.flashtuneCompile.base = null; }")  # forget the loaded file
    page.evaluate("() => { document.querySelector('[name=hardware]').value = 'hardware.yaml'; }")
    page.check("input[name=use][value=tier]")
    page.select_option("select[name=tier]", "standard")
    page.check("input[name=use][value=hardware]")
    page.fill("input[name=cores]", "16")
    page.fill("input[name=ram-gib]", "192")
    page.fill("input[name=nodes]", "7")
    page.select_option("select[name=workload]", "rgw")
    page.check("input[name=protection][value=ec]")
    page.fill("input[name=ec]", "4+2")
    result = compile_page.compile()
    assert result["code"] == 0, result["stderr"]
    assert result["argv"] == ["--hardware", "hardware.yaml", "--workload", "rgw", "--ec", "4+2"]
    with page.expect_download() as dl:
        page.click("#ft-save")
    saved = tmp_path / "hardware.yaml"
    dl.value.save_as(saved)
    text = saved.read_text()
    assert "cores: 16" in text and "ram_gib: 192" in text and "nodes: 7" in text
    assert compile_page.files() == cli_files(result["argv"], tmp_path)
    # the same form with an impossible field: the command's message, beside that field
    page.fill("input[name=cores]", "0")
    result = compile_page.compile()
    assert result["code"] == 2 and result["field"] == "cores"
    with page.expect_download() as dl:
        page.click("#ft-save")
    dl.value.save_as(saved)
    proc = cli(result["argv"], tmp_path)
    assert proc.returncode == 2
    assert page.inner_text(".ft-err[data-error-for=cores]") == proc.stderr.rstrip("\n")
    page.fill("input[name=cores]", "16")
    page.check("input[name=protection][value=replication]")
    page.fill("input[name=ec]", "")


def _row(page: Any, group: str, index: int) -> Any:
    return page.locator(f".ft-group[data-group={group}] .ft-group-row").nth(index)


def test_groups_added_in_the_form_give_the_commands_files(compile_page: ComparePage, tmp_path: Path) -> None:
    """Two data device groups, a DB group and two NIC groups made with the page's buttons: the page's files are
    those compile-config writes for the same hardware file, written here independently of the page."""
    page = compile_page.page
    page.evaluate("() => { window.flashtuneCompile.base = null; }")  # forget a loaded file
    page.evaluate("() => { document.querySelector('[name=hardware]').value = 'hardware.yaml'; }")
    page.check("input[name=use][value=tier]")
    page.select_option("select[name=tier]", "tco")
    page.check("input[name=use][value=hardware]")  # the form now shows tco's hardware
    for group in ("data-devices", "db-devices", "nics"):
        while page.locator(f".ft-group[data-group={group}] .ft-remove").count():
            page.locator(f".ft-group[data-group={group}] .ft-remove").first.click()
    rows = {
        "data-devices": [
            {"data-device-type": "nvme", "data-device-count": "6", "data-device-size-gb": "3840"},
            {"data-device-type": "sata-ssd", "data-device-count": "4", "data-device-size-gb": "1920"},
        ],
        "db-devices": [{"db-device-type": "nvme", "db-device-count": "2", "db-device-size-gb": "800"}],
        "nics": [
            {"nic-count": "2", "nic-speed-gbps": "25", "nic-role": "public"},
            {"nic-count": "2", "nic-speed-gbps": "100", "nic-role": "cluster"},
        ],
    }
    for group, values in rows.items():
        for i, row in enumerate(values):
            page.click(f".ft-add[data-add={group}]")
            for name, value in row.items():
                control = _row(page, group, i).locator(f"[name={name}]")
                if name.endswith(("-type", "-role")):
                    control.select_option(value)
                else:
                    control.fill(value)
    page.select_option("select[name=workload]", "block")
    page.check("input[name=protection][value=replication]")
    page.fill("input[name=replication]", "")
    result = compile_page.compile()
    assert result["code"] == 0, result["stderr"]
    assert result["argv"] == ["--hardware", "hardware.yaml", "--workload", "block"]
    expected = tier_tree("tco")
    expected["node"]["data_devices"] = [
        {"count": 6, "type": "nvme", "size_gb": 3840},
        {"count": 4, "type": "sata-ssd", "size_gb": 1920},
    ]
    expected["node"]["db_devices"] = [{"count": 2, "type": "nvme", "size_gb": 800}]
    expected["node"]["nics"] = [
        {"count": 2, "speed_gbps": 25, "role": "public"},
        {"count": 2, "speed_gbps": 100, "role": "cluster"},
    ]
    (tmp_path / "hardware.yaml").write_text(yaml.safe_dump(expected, sort_keys=False))
    assert compile_page.files() == cli_files(result["argv"], tmp_path)
    with page.expect_download() as dl:
        page.click("#ft-save")
    dl.value.save_as(tmp_path / "saved.yaml")
    assert yaml.safe_load((tmp_path / "saved.yaml").read_text()) == expected
    # an impossible value in the second NIC group: the command's message beside that row's field
    _row(page, "nics", 1).locator("[name=nic-speed-gbps]").fill("0")
    result = compile_page.compile()
    assert result["code"] == 2 and (result["field"], result["row"]) == ("nic-speed-gbps", 1)
    with page.expect_download() as dl:
        page.click("#ft-save")
    dl.value.save_as(tmp_path / "hardware.yaml")
    proc = cli(result["argv"], tmp_path)
    assert proc.returncode == 2 and "hardware.yaml:" in proc.stderr
    message = proc.stderr.rstrip("\n")
    assert _row(page, "nics", 1).locator(".ft-err[data-error-for=nic-speed-gbps]").inner_text() == message
    assert _row(page, "nics", 0).locator(".ft-err[data-error-for=nic-speed-gbps]").inner_text() == ""
    _row(page, "nics", 1).locator("[name=nic-speed-gbps]").fill("100")


def test_an_invalid_option_shows_the_commands_error_beside_the_field(
    compile_page: ComparePage, tmp_path: Path
) -> None:
    page = compile_page
    page.use_tier("iops", "block")
    page.page.fill("input[name=nodes]", "0")
    result = page.compile()
    proc = cli(result["argv"], tmp_path)
    assert result["argv"] == ["--tier", "iops", "--workload", "block", "--nodes", "0"]
    assert proc.returncode == result["code"] == 2
    assert "--nodes" in proc.stderr
    assert page.page.inner_text(".ft-err[data-error-for=nodes]") == proc.stderr.rstrip("\n")
    assert page.page.inner_text("#ft-error-text") == proc.stderr.rstrip("\n")
    assert page.page.is_hidden("#ft-result")
    page.page.fill("input[name=nodes]", "")
    # an opt-in this profile has no unsafe value for: the compiler's own refusal
    page.page.check("input[name=allow-unsafe][value=nobarrier]")
    result = page.compile()
    proc = cli(result["argv"], tmp_path)
    assert proc.returncode == result["code"] != 0
    assert page.page.inner_text(".ft-err[data-error-for=allow-unsafe]") == proc.stderr.rstrip("\n")
    page.page.uncheck("input[name=allow-unsafe][value=nobarrier]")


def test_the_zip_holds_the_whole_folder(compile_page: ComparePage, tmp_path: Path) -> None:
    page = compile_page
    page.use_tier("tco", "mysql")
    result = page.compile()
    assert result["code"] == 0
    with page.page.expect_download() as dl:
        page.page.click("#ft-zip")
    assert dl.value.suggested_filename == f"{result['folder']}.zip"
    data = Path(dl.value.path()).read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = z.namelist()
        assert all(n.startswith(f"{result['folder']}/") for n in names)
        got = {n.split("/", 1)[1]: z.read(n).decode() for n in names}
    assert got == cli_files(result["argv"], tmp_path)


def test_without_the_snapshot_the_page_starts_python_itself(
    compile_page: ComparePage, tmp_path: Path
) -> None:
    """A book whose memory snapshot cannot be loaded (here: its download refused) still compiles, the slow way."""
    ctx = compile_page.browser.new_context()
    try:
        host = urlsplit(compile_page.url).netloc

        def route(r: Any) -> None:
            url = urlsplit(r.request.url)
            if url.netloc == host and not url.path.endswith("pyodide-snapshot.bin.gz"):
                r.continue_()
            else:
                r.abort()

        ctx.route("**/*", route)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{compile_page.url}/book/compile.html")
        page.wait_for_selector("#ft-form[data-ready='1']", timeout=READY_TIMEOUT_MS)
        assert page.evaluate("() => window.flashtuneCompile.boot") == "plain"
        page.select_option("select[name=workload]", "block")
        page.click("#ft-compile")
        page.wait_for_selector("#ft-form[data-compiles='1']", timeout=COMPILE_TIMEOUT_MS)
        files = dict(
            page.eval_on_selector_all(
                "#ft-files [data-file]", "els => els.map(e => [e.dataset.file, e.textContent])"
            )
        )
        assert files == cli_files(["--tier", "iops", "--workload", "block"], tmp_path)
        assert not errors
    finally:
        ctx.close()

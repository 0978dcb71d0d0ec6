"""flashtune.cli.web, the compile page's Python, run in CPython: the form's fields become compile-config's
command line and hardware file, errors land beside the field they concern, and a hardware file survives the
trip through the form. (tests/book/test_compile_page.py runs the same code in Pyodide in Chromium.)"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from flashtune.cli import web
from flashtune.compile import CompileRequest, compile_bundle
from flashtune.hardware import tier_doc, tier_names
from flashtune.yamlio import parse_yaml

REPO = Path(__file__).resolve().parents[2]


def run(form: dict[str, object], base: object = None) -> dict[str, object]:
    result: dict[str, object] = json.loads(web.compile_form(json.dumps(form), json.dumps(base)))
    return result


def test_a_tier_compiles_to_the_bundle_the_compiler_makes() -> None:
    result = run({"use": "tier", "tier": "tco", "workload": "mysql", "ceph-release": "reef", "mysql": ""})
    assert result["code"] == 0, result["stderr"]
    assert result["argv"] == ["--tier", "tco", "--workload", "mysql", "--ceph-release", "reef"]
    assert result["folder"] == "flashtune-tco-mysql-reef"
    bundle = compile_bundle(CompileRequest(workload="mysql", tier="tco", ceph_release="reef"))
    files = dict(result["files"])  # type: ignore[call-overload]
    files.pop(".flashtune-output")  # write_folder's mark of a folder it made
    assert files == bundle.files


def test_empty_fields_keep_the_defaults_and_others_become_options() -> None:
    form = {
        "use": "tier",
        "tier": "iops",
        "workload": "block",
        "nodes": "7",
        "clients": "",
        "mysql": "mysql-8.0",  # ignored: not the mysql workload
        "protection": "ec",
        "ec": "4+2",
        "replication": "3",
        "osds-per-device": "2",
        "encrypted": "1",
        "allow-unsafe": ["ms_crc_data"],
    }
    assert web.argv_of(form) == [
        "--tier",
        "iops",
        "--workload",
        "block",
        "--osds-per-device",
        "2",
        "--nodes",
        "7",
        "--ec",
        "4+2",
        "--encrypted",
        "--allow-unsafe",
        "ms_crc_data",
    ]


def test_an_option_error_is_the_commands_message_beside_its_field() -> None:
    result = run({"use": "tier", "tier": "iops", "workload": "block", "nodes": "0"})
    assert result["code"] == 2 and result["field"] == "nodes"
    assert result["stderr"] == (
        "compile-config: error: argument --nodes: must be at least 1, got 0\n"
        "  hint: run 'compile-config --help'\n"
    )
    result = run({"use": "tier", "tier": "iops", "workload": "block", "protection": "ec", "ec": "8"})
    assert result["field"] == "ec" and "is not K+M" in str(result["stderr"])


@pytest.mark.parametrize(
    ("control", "value"), [("cores", "0"), ("data-device-size-gb", "-5"), ("nodes", "0")]
)
def test_a_hardware_field_error_names_its_control(control: str, value: str) -> None:
    form: dict[str, object] = {
        "use": "hardware",
        "tier": "iops",
        "workload": "block",
        **web.tier_fields("iops"),
    }
    form[control] = value
    result = run(form)
    assert result["code"] == 2, result
    assert str(result["stderr"]).startswith("hardware.yaml:")
    assert result["field"] == control


@pytest.mark.parametrize("tier", tier_names())
def test_a_tier_file_goes_through_the_form_unchanged(tier: str) -> None:
    doc, path = tier_doc(tier)
    loaded = web.load_hardware(Path(path).read_text(encoding="utf-8"), f"{tier}.yaml")
    assert loaded["name"] == f"{tier}.yaml"
    tree = web.hardware_tree({**loaded["fields"], "use": "hardware"}, loaded["tree"])
    assert tree == web.yaml_tree(web.hardware_yaml(loaded["fields"], loaded["tree"]), "x.yaml")
    assert tree == json.loads(json.dumps(dict(doc)))


def test_a_bad_yaml_file_is_refused_with_its_line() -> None:
    loaded = web.load_hardware("node:\n  cores: [1,\n", "bad.yaml")
    assert loaded["error"].startswith("bad.yaml:")


def test_file_names_stay_inside_the_run_folder() -> None:
    assert web.safe_name("../../etc/passwd") == "passwd.yaml"
    assert web.safe_name("my nodes.yml") == "my-nodes.yml"
    assert web.safe_name("") == "hardware.yaml"


def test_the_zip_holds_the_folder_and_is_the_same_every_time() -> None:
    files = {"ceph.conf": "[global]\n", "cbt/a.yaml": "x: 1\n", "pools.sh": "#!/bin/sh\n"}
    data = web.zip_folder("flashtune-x", json.dumps(files))
    assert data == web.zip_folder("flashtune-x", json.dumps(files))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert {n: z.read(n).decode() for n in z.namelist()} == {
            f"flashtune-x/{k}": v for k, v in files.items()
        }
        assert z.getinfo("flashtune-x/pools.sh").external_attr >> 16 == 0o755


def test_the_choices_are_the_commands() -> None:
    from flashtune.cli.compile import build_parser

    options = web.choices()["options"]
    parser = {a.dest: a for a in build_parser()._actions}
    assert options["workload"]["choices"] == list(parser["workload"].choices or [])
    assert options["tier"]["choices"] == tier_names()
    assert any(u["knob"] == "innodb_flush_log_at_trx_commit" for u in web.choices()["unsafe"])


def test_parse_yaml_is_the_readers() -> None:
    assert parse_yaml("a: on\n") == {"a": "on"}  # the core schema: the form keeps 'on' a string


def test_the_database_hosts_vcpus_reach_the_command_and_my_cnf() -> None:
    """The form's db-vcpus control (book/compile.md) is compile-config's --db-vcpus: MySQL 8.4 sizes redo from it."""
    form = {"use": "tier", "tier": "iops", "workload": "mysql", "mysql": "mysql-8.4", "db-vcpus": "48"}
    argv = web.argv_of(form)
    assert argv[argv.index("--db-vcpus") + 1] == "48"
    assert 'name="db-vcpus"' in (REPO / "book" / "compile.md").read_text()
    result = web.run_cli(argv)
    assert "innodb_redo_log_capacity = 17179869184" in result["files"]["my.cnf"], result["stderr"]
    block = web.argv_of({**form, "workload": "block"})
    assert "--db-vcpus" not in block  # a database option only for the mysql workload

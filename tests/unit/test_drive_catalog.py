"""The drive catalog (data/envelope/devices.yaml, models:) and where a data drive's figures come from: the
hardware file's own figures, else the catalogued model's, else the type defaults with a note that says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from flashtune import datapackage
from flashtune.cli import compile as compile_cli
from flashtune.cli.main import main
from flashtune.envelope.ceilings import Case, Cluster, Constants, CpuCosts, ceilings
from flashtune.envelope.cluster import load_cluster, load_setup, setups_dir, tier_cluster
from flashtune.envelope.drives import CATALOG, device_defaults, drive_catalog, figure, figures_of, model_key
from flashtune.errors import DataError
from flashtune.hardware import DEVICE_TYPES, DRIVE_FIGURES, read_hardware
from flashtune.paths import data_dir, data_path
from flashtune.yamlio import load_yaml

K = Constants(
    net_efficiency=1.0,
    message_overhead_bytes=0.0,
    cpu=CpuCosts(read_op_bluestore=1e5, write_op_bluestore=2e5, read_byte=1.0, write_byte=2.0),
)
READ = Case("4k randread", 4096, 1.0)
WRITE = Case("4k randwrite", 4096, 0.0)
NODE = "node:\n  cores: 16\n  cpu_ghz: 2.5\n  ram_gib: 256\n  nics: [{count: 2, speed_gbps: 100}]\n  data_devices:\n"


def hardware(tmp_path: Path, entry: str) -> Path:
    f = tmp_path / "hw.yaml"
    f.write_text(f"name: t\n{NODE}    - {entry}\ncluster: {{nodes: 4, clients: 4}}\n")
    return f


def catalog_entries() -> dict[str, dict[str, object]]:
    doc = load_yaml(data_path("envelope/devices.yaml"))
    return {str(k): dict(v) for k, v in doc["models"].items()}


def nvme_model() -> tuple[str, dict[str, object]]:
    """A catalogued NVMe drive whose figures differ from the nvme type defaults."""
    default = device_defaults()["nvme"]
    for name, e in catalog_entries().items():
        if e["type"] == "nvme" and all(e[f] != default[f] for f in ("read_iops", "write_iops")):
            return name, e
    raise AssertionError("no catalogued NVMe drive differs from the type defaults")


def drive_notes(c: Cluster) -> list[str]:
    return [n for n in c.notes if "type defaults stood in" in n]


def test_a_catalogued_model_gives_its_figures_and_the_media_ceiling(tmp_path: Path) -> None:
    name, e = nvme_model()
    # matched with case and spaces ignored
    spelled = "  ".join(name.upper().split())
    c = load_cluster(hardware(tmp_path, f"{{count: 10, type: nvme, size_gb: 3840, model: '{spelled}'}}"))
    d = c.drives[0]
    assert {f: getattr(d, f) for f in DRIVE_FIGURES} == {f: float(e[f]) for f in DRIVE_FIGURES}  # type: ignore[arg-type]
    assert ceilings(c, READ, K)["media"] == pytest.approx(4 * 10 * float(e["read_iops"]))  # type: ignore[arg-type]
    assert ceilings(c, WRITE, K)["media"] == pytest.approx(4 * 10 * float(e["write_iops"]) / 3)  # type: ignore[arg-type]
    # the same entry without the model takes the type defaults: another media ceiling
    bare = load_cluster(hardware(tmp_path, "{count: 10, type: nvme, size_gb: 3840}"))
    default = device_defaults()["nvme"]
    assert ceilings(bare, READ, K)["media"] == pytest.approx(4 * 10 * default["read_iops"])
    assert ceilings(bare, READ, K)["media"] != ceilings(c, READ, K)["media"]
    assert not drive_notes(c) and drive_notes(bare)


def test_figures_in_the_hardware_file_win_over_the_catalog(tmp_path: Path) -> None:
    name, e = nvme_model()
    c = load_cluster(
        hardware(tmp_path, f"{{count: 2, type: nvme, size_gb: 1, model: {name}, read_iops: 1234}}")
    )
    d = c.drives[0]
    assert d.read_iops == 1234  # the file's own
    assert (d.write_iops, d.read_mb_s, d.write_mb_s) == (e["write_iops"], e["read_mb_s"], e["write_mb_s"])
    assert not drive_notes(c)
    # a drive of another type is not matched: the file's type is kept and the note says why
    sata = load_cluster(hardware(tmp_path, f"{{count: 2, type: sata-ssd, size_gb: 1, model: {name}}}"))
    assert sata.drives[0].read_iops == device_defaults()["sata-ssd"]["read_iops"]
    (note,) = drive_notes(sata)
    assert "lists this model as nvme, not sata-ssd" in note


def test_an_unknown_model_says_which_drive_stood_in_and_how_to_fix_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = sorted(catalog_entries())
    vendor = names[0].split()[0]
    f = hardware(tmp_path, f"{{count: 10, type: nvme, size_gb: 7680, model: {vendor} NoSuchDrive 7.68TB}}")
    assert main(["envelope", "--hardware", str(f)]) == 0  # not an error
    text = capsys.readouterr().out
    assert main(["envelope", "--hardware", str(f), "--format", "json"]) == 0
    notes = [n for n in json.loads(capsys.readouterr().out)["notes"] if "stood in" in n]
    assert len(notes) == 1
    note = notes[0]
    assert f"note: {note}" in text  # the text output carries the same note
    default = device_defaults()["nvme"]
    assert f"10 x {vendor} NoSuchDrive 7.68TB" in note and "not in the drive catalog" in note
    assert str(default["example"]) in note and f"{default['read_iops']:,}" in note
    assert "read_iops, write_iops, read_mb_s and write_mb_s" in note
    # the note and --hardware's help send the user to the same place for the catalogued names
    assert CATALOG in note
    with pytest.raises(SystemExit):
        main(["envelope", "--help"])
    assert CATALOG in " ".join(capsys.readouterr().out.split())
    # near misses: every catalogued drive of the same vendor, and only those
    listed = note.split(f"catalogued {vendor} drives: ")[1].split(", ")
    assert listed == [n for n in names if n.split()[0] == vendor]
    # no model at all: the same note without a vendor list
    (bare,) = drive_notes(load_cluster(hardware(tmp_path, "{count: 3, type: nvme, size_gb: 7680}")))
    assert "3 x nvme (no model)" in bare and "catalogued" not in bare
    # explicit figures: no note
    own = ", ".join(f"{fig}: 1000" for fig in DRIVE_FIGURES)
    assert not drive_notes(load_cluster(hardware(tmp_path, f"{{count: 3, type: nvme, size_gb: 1, {own}}}")))
    # a shipped tier's drives are the ones the type defaults describe: no note (the manifests stay as they are)
    for tier in ("iops", "tco", "standard"):
        assert not drive_notes(tier_cluster(tier))


def test_every_catalog_entry_is_sourced_positive_and_follows_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(Path(data_path("envelope/envelope.schema.json")).read_text())
    entries = catalog_entries()
    assert len(entries) >= 3
    # the schema's drive types are the hardware file's (the reader's check, DEVICE_TYPES)
    model_schema = schema["$defs"]["devices"]["properties"]["models"]["additionalProperties"]
    assert model_schema["properties"]["type"]["enum"] == list(DEVICE_TYPES)
    catalog = drive_catalog()
    for name, e in entries.items():
        assert all(float(e[f]) > 0 for f in DRIVE_FIGURES), name  # type: ignore[arg-type]
        assert e["source"], name
        for ref in e["source"]:  # type: ignore[attr-defined]
            row = datapackage.resolve(ref)
            assert row is not None, f"{name}: {ref} resolves nowhere"
            assert row["url"].startswith("http") and row["locator"], (
                f"{name}: {ref} has no address or locator"
            )
        for alias in [name, *e.get("aliases", [])]:  # type: ignore[list-item]
            assert catalog[model_key(alias)]["model"] == name
        sub = {"$ref": "#/$defs/devices", "$defs": schema["$defs"]}
        bad = {"types": {}, "models": {name: {**e, "read_iops": -1, "source": ["a page"]}}}
        messages = [err.message for err in jsonschema.Draft202012Validator(sub).iter_errors(bad)]
        assert any("-1" in m for m in messages) and any("does not match" in m for m in messages)


def test_set_ups_name_catalogued_drives_rather_than_repeat_their_figures() -> None:
    catalog = drive_catalog()
    used = 0
    for path in setups_dir().glob("*.yaml"):
        doc = load_yaml(path)
        c = load_setup(path.stem)
        for g, d in zip(doc["node"]["data_devices"], c.drives, strict=True):
            known = catalog.get(model_key(str(g.get("model", ""))))
            if known is None:
                continue
            used += 1
            repeated = [f for f in DRIVE_FIGURES if g.get(f) is not None and g[f] == known[f]]
            assert not repeated, f"{path.name}: {repeated} repeat the catalog's {known['model']}"
            assert all(getattr(d, f) == (g.get(f) or known[f]) for f in DRIVE_FIGURES), path.name
    assert used >= 10  # the Mako, Micron 5210 and RHCS 3.2 set-ups


def test_a_bad_entry_still_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    name, _ = nvme_model()
    f = hardware(tmp_path, f"{{count: 2, type: nvme, size_gb: 1, model: {name}, write_iops: fast}}")
    assert main(["envelope", "--hardware", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:8: error: 'write_iops' must be a number, got 'fast'" in err
    assert "hint: set write_iops: <number>" in err and "Traceback" not in err
    f.write_text(f.read_text().replace("write_iops: fast", "write_iops: -5"))
    assert main(["envelope", "--hardware", str(f)]) == 2
    assert f"{f}:8: error: 'write_iops' must be a positive number" in capsys.readouterr().err
    f.write_text(f.read_text().replace("type: nvme", "type: optane"))
    assert main(["envelope", "--hardware", str(f)]) == 2
    assert "hint: use hdd, sata-ssd or nvme" in capsys.readouterr().err
    # a bad catalog entry names devices.yaml and its line
    shutil.copytree(data_dir(), tmp_path / "data")
    devices = tmp_path / "data" / "envelope" / "devices.yaml"
    text = devices.read_text()
    at = text.index("\nmodels:")
    devices.write_text(text[:at] + text[at:].replace("read_iops: ", "read_iops: -", 1))
    line = devices.read_text()[: devices.read_text().index("read_iops: -")].count("\n") + 1
    monkeypatch.setenv("FLASHTUNE_DATA", str(tmp_path / "data"))
    drive_catalog.cache_clear()
    try:
        with pytest.raises(DataError) as e:
            drive_catalog()
        assert f"{devices}:{line}:" in str(e.value) and "read_iops" in str(e.value)
    finally:
        drive_catalog.cache_clear()


# devices.yaml edits (old text, new text, marker on the line the error names, the error): a modified data copy
# (FLASHTUNE_DATA) is read with the same checks, so each is one line with file:line, exit 2, no traceback
BAD_DEVICES = {
    "alias-not-a-list": (
        "    type: nvme\n",
        "    aliases: PM983\n    type: nvme\n",
        "aliases: PM983",
        "aliases must be a list of names, got 'PM983'",
    ),
    "entry-not-a-mapping": ("models:\n", "models:\n  Foo: 5\n", "Foo: 5", "drive 'Foo' must be a mapping"),
    "type-without-example": (
        "    example: Intel SSD DC P3700",
        "    exampel: Intel SSD DC P3700",
        "  nvme:",
        "device type 'nvme' needs example",
    ),
    "type-misspelt": (
        "types:\n  nvme:",
        "types:\n  nvm:",
        "  nvm:",
        "not the device types hdd, sata-ssd, nvme",
    ),
    # a section missing: the file's first line (yamlio.top_mapping, which constants.yaml's entries use too)
    "no-models": ("\nmodels:\n", "\nmodelz:\n", "# Per-drive data-sheet", "devices.yaml needs models: {"),
}


@pytest.mark.parametrize("case", sorted(BAD_DEVICES))
def test_a_bad_devices_yaml_is_one_error_line_not_a_traceback(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new, marker, message = BAD_DEVICES[case]
    shutil.copytree(data_dir(), tmp_path / "data")
    devices = tmp_path / "data" / "envelope" / "devices.yaml"
    text = devices.read_text()
    assert old in text
    devices.write_text(text.replace(old, new, 1))
    line = next(i for i, t in enumerate(devices.read_text().splitlines(), 1) if marker in t)
    # an unknown model, so that the type defaults (and their example) are read too
    f = hardware(tmp_path, "{count: 2, type: nvme, size_gb: 1, model: NoSuch Drive}")
    monkeypatch.setenv("FLASHTUNE_DATA", str(tmp_path / "data"))
    for cached in (device_defaults, drive_catalog):
        cached.cache_clear()
    try:
        assert main(["envelope", "--hardware", str(f)]) == 2
    finally:
        for cached in (device_defaults, drive_catalog):
            cached.cache_clear()
    err = capsys.readouterr().err
    assert err.startswith(f"{devices}:{line}: error: ") and message in err, err
    assert "Traceback" not in err


def test_the_envelope_and_the_recovery_estimate_read_a_drive_the_same_way(tmp_path: Path) -> None:
    """compile/recovery.py's write rate comes from the same resolution as the envelope's drives: a catalogued
    model's figure, the file's own where it gives one, and the type default only where the envelope has none
    (an entry with other figures of its own: the envelope leaves the figure unknown, recovery needs a rate)."""
    name, e = nvme_model()
    for entry, expected in [
        (f"{{count: 10, type: nvme, size_gb: 3840, model: '{name}'}}", float(str(e["write_mb_s"]))),
        (f"{{count: 10, type: nvme, size_gb: 3840, model: '{name}', write_mb_s: 1234}}", 1234.0),
        ("{count: 10, type: nvme, size_gb: 3840, read_iops: 500000}", None),
    ]:
        path = hardware(tmp_path, entry)
        (g,) = read_hardware(load_yaml(path), path).data_devices
        (drives,) = load_cluster(path).drives
        assert figures_of(g)[0]["write_mb_s"] == drives.write_mb_s == expected, entry
        default = float(device_defaults()["nvme"]["write_mb_s"])
        assert figure(g, "write_mb_s") == (expected if expected is not None else default), entry


@pytest.mark.parametrize(("model", "shown"), [("null", None), ("''", None), ("9300", "9300")])
def test_a_missing_or_bare_number_model_is_read_as_such(
    tmp_path: Path, model: str, shown: str | None
) -> None:
    path = hardware(tmp_path, f"{{count: 2, type: nvme, size_gb: 1, model: {model}}}")
    (g,) = read_hardware(load_yaml(path), path).data_devices
    assert g.model == (shown or "")
    (note,) = drive_notes(load_cluster(path))
    assert ("2 x nvme (no model)" in note) is (shown is None) and "None" not in note


@pytest.mark.parametrize("model", ["[Samsung, PM983]", "{name: PM983}", "true"])
def test_a_model_that_is_not_a_name_is_refused_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str
) -> None:
    f = hardware(tmp_path, f"{{count: 2, type: nvme, size_gb: 1, model: {model}}}")
    out = tmp_path / "out"
    for run in (
        lambda: main(["envelope", "--hardware", str(f)]),
        lambda: compile_cli.main(["--hardware", str(f), "--workload", "block", "--out", str(out)]),
    ):
        assert run() == 2 and not out.exists()
        err = capsys.readouterr().err
        assert err.startswith(f"{f}:8: error: 'model' must be the drive's model name"), err
        assert "hint: set model: " in err and "Traceback" not in err


def test_a_copy_of_a_shipped_tier_gets_its_drives_own_figures_without_a_note(tmp_path: Path) -> None:
    """The type defaults are the shipped tiers' own drives (devices.yaml types: model): a user's copy of a tier
    (the documented way to start a hardware file) names that drive, so nothing stood in for it; the standard
    tier's HDD names no model, so its copy still gets the note."""
    noted = {}
    for tier in ("iops", "tco", "standard"):
        copy = tmp_path / f"my-{tier}.yaml"
        copy.write_text((data_dir() / "tiers" / f"{tier}.yaml").read_text())
        c, shipped = load_cluster(copy), tier_cluster(tier)
        assert c.drives == shipped.drives  # the same figures either way
        noted[tier] = bool(drive_notes(c))
    assert noted == {"iops": False, "tco": False, "standard": True}
    # the defaults' drive in other spelling is the same drive; another drive of the type is not
    default = device_defaults()["nvme"]
    spelled = str(default["model"]).lower().replace(" ", "  ")
    assert not drive_notes(
        load_cluster(hardware(tmp_path, f"{{count: 2, type: nvme, size_gb: 1, model: {spelled}}}"))
    )
    assert drive_notes(load_cluster(hardware(tmp_path, "{count: 2, type: nvme, size_gb: 1, model: Acme X1}")))


def test_drives_lists_every_catalogued_name_and_each_listed_name_is_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["envelope", "--drives", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    entries = catalog_entries()
    listed = {r["model"]: r for r in rows}
    assert len(listed) == len(rows)  # each drive once, whatever its aliases
    # every catalogued model with its own figures, interface and source rows
    for name, e in entries.items():
        r = listed[name]
        assert r["type"] == e["type"] and r["interface"] == e["interface"] and r["source"] == e["source"]
        assert all(r[f] == float(e[f]) for f in DRIVE_FIGURES)  # type: ignore[arg-type]
        assert r["aliases"] == list(e.get("aliases", []))  # type: ignore[call-overload]
    # and the shipped tiers' drives, as their type's defaults
    named = {t["model"]: k for k, t in device_defaults().items() if t.get("model")}
    assert named and {n: listed[n]["default_for"] for n in named} == named
    assert set(listed) == set(entries) | set(named)
    # what is listed is what a hardware file can name: its figures, and no stand-in note
    for r in rows:
        for name in (r["model"], *r["aliases"]):
            f = hardware(tmp_path, f"{{count: 2, type: {r['type']}, size_gb: 1000, model: {name}}}")
            c = load_cluster(f)
            assert not drive_notes(c), name
            assert c.drives[0].count == 2 and c.drives[0].read_iops == r["read_iops"], name
    assert main(["envelope", "--drives"]) == 0
    text = capsys.readouterr().out
    assert all(n in text for n in listed)
    assert "--drives" in CATALOG  # the stand-in note and --help send users to the listing


def test_drives_lists_a_model_named_by_a_bare_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A catalog entry whose name YAML reads as a number (9300:) is found by a hardware file's model: 9300, as
    hardware.py reads a bare model number; --drives raised KeyError on it."""
    shutil.copytree(data_dir(), tmp_path / "data")
    devices = tmp_path / "data" / "envelope" / "devices.yaml"
    entry = (
        "models:\n  9300:\n    type: nvme\n    read_iops: 850000\n    write_iops: 310000\n"
        "    read_mb_s: 3500\n    write_mb_s: 3500\n    source: [web_sources/samsung-pm983-datasheet]\n"
    )
    devices.write_text(devices.read_text().replace("models:\n", entry, 1))
    monkeypatch.setenv("FLASHTUNE_DATA", str(tmp_path / "data"))
    for cached in (device_defaults, drive_catalog):
        cached.cache_clear()
    try:
        assert main(["envelope", "--drives", "--format", "json"]) == 0
    finally:
        for cached in (device_defaults, drive_catalog):
            cached.cache_clear()
    listed = {r["model"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed["9300"]["read_iops"] == 850000 and listed["9300"]["source"] == [
        "web_sources/samsung-pm983-datasheet"
    ]

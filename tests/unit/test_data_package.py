"""The published-measurements data package: schema validity, keys, loader behaviour, bad-file errors."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from flashtune import datapackage, tables
from flashtune.errors import DataError

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    tables.clear_cache()
    yield
    tables.clear_cache()


def test_frictionless_validates_the_whole_package() -> None:
    from frictionless import validate

    report = validate(str(DATA / "datapackage.json"))
    problems = [f"{t.name}: {e.message}" for t in report.tasks for e in t.errors]
    problems += [e.message for e in report.errors]
    assert report.valid, "\n".join(problems[:20])
    # every table was actually checked (a package with a resource skipped would not be 'valid' evidence)
    assert {t.name for t in report.tasks} == set(datapackage.resource_names())


def test_every_table_has_a_string_id_key_and_a_source() -> None:
    desc = json.loads((DATA / "datapackage.json").read_text())
    for res in desc["resources"]:
        sch = res["schema"]
        assert sch["primaryKey"] == ["id"], res["name"]
        id_field = next(f for f in sch["fields"] if f["name"] == "id")
        assert id_field["type"] == "string" and id_field["constraints"]["required"]
        if res["name"] in ("sources", "web_sources"):
            continue
        names = [f["name"] for f in sch["fields"]]
        assert "source_id" in names, res["name"]
        # a seed passage (sources) or, for the BlueStore-era tables, a passage of a public web document
        assert any(
            {"fields": "source_id", "reference": {"resource": src, "fields": "id"}} in sch["foreignKeys"]
            for src in ("sources", "web_sources")
        ), res["name"]
        # units live in the schema: every number column names its unit, or (claims, set-up
        # parameters) names the column that holds each row's unit
        for f in sch["fields"]:
            if f["type"] == "number":
                assert f.get("unit") or f.get("unitField") in names, f"{res['name']}.{f['name']} has no unit"


def test_every_source_row_is_used_and_points_into_its_seed(shared: Path) -> None:
    sources = tables.load("sources")
    used: set[str] = set()
    for name in datapackage.resource_names():
        if name not in ("sources", "web_sources"):
            used |= {r["source_id"] for r in datapackage.rows(name)}
    web_used = {r["source_id"] for r in datapackage.rows("published_results")}
    web_used |= {r["source_id"] for r in datapackage.rows("published_claims")}
    web_used |= {r["bottleneck_source_id"] for r in datapackage.rows("published_results")}
    # the published set-ups' hardware files and the drive catalog cite their passages as web_sources/<id>
    for cites in [*(DATA / "envelope" / "setups").glob("*.yaml"), DATA / "envelope" / "devices.yaml"]:
        web_used |= set(re.findall(r"web_sources/([a-z0-9._-]+)", cites.read_text()))
    assert {r["id"] for r in datapackage.rows("web_sources")} <= web_used, "a web source nothing uses"
    unused = sources[~sources["id"].isin(used)]
    # a source no row refers to must say why: a config listing whose values the knob catalog holds
    assert unused["note"].str.contains("knob catalog").all(), list(unused["id"])
    for row in sources.itertuples():
        seed = shared / "seeds" / row.seed_file
        n_lines = len(seed.read_text().splitlines())
        if pd.notna(row.line_start):
            assert 1 <= row.line_start <= row.line_end <= n_lines, row.id


def test_errata_point_at_real_resources_and_rows() -> None:
    names = set(datapackage.resource_names())
    for row in datapackage.rows("errata"):
        assert row["resource"] in names, row["id"]
        for rid in filter(None, row["row_ids"].split(";")):
            assert rid in datapackage.row_ids(row["resource"]) or any(
                datapackage.resolve(f"{n}/{rid}") for n in names
            ), f"{row['id']}: {rid} resolves nowhere"
        assert row["row_ids"] or row["scope"], f"{row['id']}: say which rows (row_ids or scope)"


def test_resolve_and_row_ids_use_resource_slash_id() -> None:
    row = datapackage.resolve("lustre_ior_records_bandwidth/ior-t4-mpiio-read-lfs09-t64-r1m")
    assert row is not None
    assert (row["api"], row["operation"], row["filesystem"], row["threads"], row["record_size"]) == (
        "MPIIO",
        "read",
        "lfs09",
        "64",
        "1m",
    )
    assert datapackage.resolve("lustre_ior_records_bandwidth/no-such-row") is None
    assert datapackage.resolve("no_such_table/x") is None
    assert datapackage.resolve("missing-slash") is None
    assert "lustre-t1" in datapackage.row_ids("sources")
    with pytest.raises(DataError, match="no resource named"):
        datapackage.row_ids("lustre_iozon")


def test_loader_gives_schema_dtypes_and_units() -> None:
    df = tables.load("lustre_iozone")
    assert isinstance(df["subtest"].dtype, pd.CategoricalDtype)
    assert list(df["subtest"].cat.categories[:3]) == ["initial_writers", "rewriters", "readers"]
    assert df["nodes"].dtype == "int64" and df["throughput_MB_per_s"].dtype == "int64"
    assert df["id"].dtype == "string"
    assert df.attrs["units"]["throughput_MB_per_s"] == "MB/s"
    scaling = tables.load("lustre_ior_scaling")
    # a column with blank (not measured) cells is a nullable integer, blanks are <NA>, not 0
    assert scaling["bandwidth_MB_per_s"].dtype == "Int64"
    assert scaling.loc[scaling["status"] == "not_measured", "bandwidth_MB_per_s"].isna().all()
    assert tables.describe("lustre_iozone")["schema"]["primaryKey"] == ["id"]
    assert set(tables.resources()) >= {"sources", "errata", "lustre_iozone", "claims", "hardware"}


def test_loader_is_cached_and_hands_out_copies() -> None:
    a = tables.load("lustre_ior_records_ops")
    a.loc[0, "ops_per_s"] = -1
    a.attrs["units"]["ops_per_s"] = "changed"
    b = tables.load("lustre_ior_records_ops")
    assert b.loc[0, "ops_per_s"] != -1 and b.attrs["units"]["ops_per_s"] == "ops/s"
    info = tables._frame.cache_info()
    assert info.hits >= 1 and info.misses == 1


def test_datapackage_module_does_not_import_pandas() -> None:
    code = (
        "import sys; from flashtune import datapackage as d; d.validate(); "
        "print(len(d.row_ids('lustre_iozone')), 'pandas' in sys.modules, 'frictionless' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["234", "False", "False"]


# --- bad data files: a copy of data/ with one defect, selected through FLASHTUNE_DATA -------------


def _broken_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: str, edit: str, line: int) -> Path:
    root = tmp_path / "data"
    shutil.copytree(DATA, root, ignore=shutil.ignore_patterns("knobs", "tiers", "profiles"))
    path = root / "tables" / f"{table}.csv"
    lines = path.read_text().splitlines(keepends=True)
    lines[line - 1] = edit
    path.write_text("".join(lines))
    monkeypatch.setenv("FLASHTUNE_DATA", str(root))
    tables.clear_cache()
    return path


@pytest.mark.parametrize(
    ("line", "edit", "message"),
    [
        (3, 'iozone-t1-x,lustre-t1,ssd,SDD,lfs09,readers,1,"12\n', "malformed CSV|cells"),
        (
            3,
            "iozone-t1-x,lustre-t1,ssd,SDD,lfs09,readers,1,fast\n",
            "'throughput_MB_per_s': 'fast' is not an integer",
        ),
        (3, "iozone-t1-x,lustre-t1,ssd,SDD,lfs09,readers,3,10\n", "'nodes': '3' is not one of"),
        (
            3,
            "iozone-t1-x,lustre-t1,ssd,SSD,lfs09,readers,1,10\n",
            "'system_label_in_source': 'SSD' is not one of",
        ),
        (3, "iozone-t1-initial-writers-lfs09-n1,lustre-t1,ssd,SDD,lfs09,readers,1,10\n", "duplicate id"),
        (
            3,
            "iozone-t1-x,lustre-t9,ssd,SDD,lfs09,readers,1,10\n",
            "'lustre-t9' is not an id of resource 'sources'",
        ),
        (3, "iozone-t1-x,lustre-t1,ssd,SDD,lfs09,readers,1\n", "row has 7 cells"),
        (3, ",lustre-t1,ssd,SDD,lfs09,readers,1,10\n", "'id': a value is required"),
        (
            3,
            "Iozone-t1-x,lustre-t1,ssd,SDD,lfs09,readers,1,10\n",
            "'id': 'Iozone-t1-x' does not match the pattern",
        ),
        (
            3,
            "iozone-t1-x,lustre-t1,ssd,SDD,lfs09,readers,1,-5\n",
            "'throughput_MB_per_s': -5 is below the minimum 0",
        ),
        (
            3,
            "iozone-t1-x,lustre-t1,nvme,SDD,lfs09,readers,1,10\n",
            "'system': 'nvme' is not one of the allowed values: ssd, hdd",
        ),
    ],
)
def test_bad_table_gives_data_error_with_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: int, edit: str, message: str
) -> None:
    path = _broken_copy(tmp_path, monkeypatch, "lustre_iozone", edit, line)
    with pytest.raises(DataError, match=message) as err:
        datapackage.row_ids("lustre_iozone")
    assert err.value.file == str(path)
    assert err.value.line == line
    assert err.value.suggestion
    assert f"{path}:{line}: error:" in str(err.value)
    # the pandas loader goes through the same checks
    with pytest.raises(DataError):
        tables.load("lustre_iozone")


def test_bad_header_and_bad_descriptor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _broken_copy(tmp_path, monkeypatch, "lustre_iozone", "id,source,system\n", 1)
    with pytest.raises(DataError, match="header") as err:
        datapackage.rows("lustre_iozone")
    assert (err.value.file, err.value.line) == (str(path), 1)
    desc = path.parents[1] / "datapackage.json"
    desc.write_text('{"resources": [\n  {"name": "x",}\n]}\n')
    datapackage.clear_cache()
    with pytest.raises(DataError, match="invalid JSON") as err2:
        datapackage.resource_names()
    assert (err2.value.file, err2.value.line) == (str(desc), 2)


def test_bad_file_through_a_cli_has_no_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _broken_copy(tmp_path, monkeypatch, "sources", "lustre-t1,nope.txt,x,table,a,b,1,2,\n", 23)
    code = (
        "import sys\nfrom flashtune import datapackage\nfrom flashtune.errors import FlashtuneError\n"
        "try:\n    datapackage.validate()\nexcept FlashtuneError as e:\n    print(e, file=sys.stderr); sys.exit(2)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2
    assert f"{path}:23: error: field 'seed_file'" in r.stderr and "hint:" in r.stderr
    assert "Traceback" not in r.stderr


def test_claims_name_real_tables_and_numbers_have_units() -> None:
    claims = tables.load("claims")
    names = set(datapackage.resource_names())
    assert set(claims["rederived_from"].dropna()) <= names
    with_value = claims[claims["value"].notna()]
    assert with_value["unit"].notna().all() and (with_value["qualifier"] != "none").all()
    assert claims.loc[claims["qualifier"] == "none", "value"].isna().all()
    assert (claims.loc[claims["value_max"].notna(), "qualifier"] == "range").all()
    assert tables.units("claims")["value"] == "column:unit"

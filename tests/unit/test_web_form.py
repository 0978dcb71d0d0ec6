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


@pytest.mark.parametrize(("control", "value"), [("cores", "0"), ("nodes", "0")])
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
    assert (result["field"], result["row"]) == (control, None)


@pytest.mark.parametrize(
    ("group", "row", "control", "value"),
    [
        ("data-devices", 0, "data-device-size-gb", "-5"),
        ("nics", 1, "nic-speed-gbps", "0"),
        ("data-devices", 1, "data-device-count", "0"),
    ],
)
def test_an_error_in_a_group_names_its_row_and_control(
    group: str, row: int, control: str, value: str
) -> None:
    fields = web.tier_fields("iops")  # two NIC groups
    form: dict[str, object] = {"use": "hardware", "tier": "iops", "workload": "block", **fields}
    form["data-devices"] = [
        *fields["data-devices"],
        {
            "data-device-count": "2",
            "data-device-type": "sata-ssd",
            "data-device-size-gb": "960",
            "from": None,
        },
    ]
    form[group][row][control] = value  # type: ignore[index]
    result = run(form)
    assert result["code"] == 2, result
    assert str(result["stderr"]).startswith("hardware.yaml:")
    assert (result["field"], result["row"]) == (control, row)


def test_groups_are_added_removed_and_keep_what_the_form_does_not_show() -> None:
    base = {
        "node": {
            "sockets": 1,
            "cores": 16,
            "ram_gib": 128,
            "nics": [{"count": 2, "speed_gbps": 25, "role": "public"}, {"count": 2, "speed_gbps": 100}],
            "data_devices": [
                {"count": 8, "type": "nvme", "size_gb": 3840, "model": "A"},
                {"count": 2, "type": "sata-ssd", "size_gb": 960, "model": "B"},
            ],
        },
        "cluster": {"nodes": 4},
    }
    fields = web.fields_from_tree(base)
    assert [r["from"] for r in fields["data-devices"]] == [0, 1] and fields["db-devices"] == []
    assert fields["nics"][1] == {"nic-count": 2, "nic-speed-gbps": 100, "nic-role": "", "from": 1}
    assert web.hardware_tree(fields, base) == base  # loaded and saved unchanged
    # remove the first data group, add a DB group and a third NIC group; change the second NIC's role
    form = {**fields, "data-devices": fields["data-devices"][1:]}
    form["db-devices"] = [
        {"db-device-count": "2", "db-device-type": "nvme", "db-device-size-gb": "800", "from": None}
    ]
    form["nics"] = [*fields["nics"], {"nic-count": "1", "nic-speed-gbps": "10", "nic-role": "", "from": None}]
    form["nics"][1] = {**form["nics"][1], "nic-role": "cluster"}
    node = web.hardware_tree(form, base)["node"]
    assert node["data_devices"] == [{"count": 2, "type": "sata-ssd", "size_gb": 960, "model": "B"}]
    assert node["db_devices"] == [{"count": 2, "type": "nvme", "size_gb": 800}]
    assert node["nics"] == [
        {"count": 2, "speed_gbps": 25, "role": "public"},
        {"count": 2, "speed_gbps": 100, "role": "cluster"},
        {"count": 1, "speed_gbps": 10},
    ]
    # a DB row without a count is no group
    form["db-devices"] = [
        {"db-device-count": "", "db-device-type": "nvme", "db-device-size-gb": "", "from": None}
    ]
    assert "db_devices" not in web.hardware_tree(form, base)["node"]


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

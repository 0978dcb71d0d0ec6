"""The book's "Compile a config" page: its form, turned into compile-config's command line and run in Pyodide.

The page (book/compile.md, book/_static/compile/compile.mjs) sends the form's fields here as JSON. Each control
is named after compile-config's long option (`tier`, `workload`, `ceph-release`, `nodes`, ...); the hardware
fields that have no option (`sockets`, `cores`, `ram-gib`, the devices and NICs) become a hardware file, written
beside the run and passed as `--hardware NAME.yaml`. Then compile-config itself runs (`flashtune.cli.compile.main`,
its argument parsing, CompileRequest, compile and write_folder) in an empty folder of Pyodide's in-memory file
system, and the page shows the folder it wrote, or its error message as the command prints it. So the page
and the command give the same files for the same inputs: tests/book/test_compile_page.py runs both.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import tempfile
import zipfile
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from flashtune.catalog import load_catalog
from flashtune.cli.compile import build_parser, main
from flashtune.compile.pipeline import WORKLOADS
from flashtune.errors import FlashtuneError
from flashtune.hardware import DEVICE_TYPES, NIC_ROLES, tier_doc
from flashtune.yamlio import compose, parse_yaml

DEFAULT_HARDWARE_NAME = "hardware.yaml"
# form control -> its place in the hardware file
HARDWARE_FIELDS: dict[str, tuple[str, ...]] = {
    "sockets": ("node", "sockets"),
    "cores": ("node", "cores"),
    "ram-gib": ("node", "ram_gib"),
    "nodes": ("cluster", "nodes"),
    "clients": ("cluster", "clients"),
}
# The hardware file's lists of groups (node.data_devices, node.db_devices, node.nics): the form sends each as a
# list of rows, {control: text, ..., "from": the index of the loaded file's group the row shows, or None for a
# row added in the form}. A row keeps the fields of its group the form has no control for (a model name, a
# device's measured IOPS).
GROUPS: dict[str, tuple[str, dict[str, str]]] = {
    "data-devices": (
        "data_devices",
        {"count": "data-device-count", "type": "data-device-type", "size_gb": "data-device-size-gb"},
    ),
    "db-devices": (
        "db_devices",
        {"count": "db-device-count", "type": "db-device-type", "size_gb": "db-device-size-gb"},
    ),
    "nics": ("nics", {"count": "nic-count", "speed_gbps": "nic-speed-gbps", "role": "nic-role"}),
}
_TEXT_FIELDS = {"data-device-type", "db-device-type", "nic-role"}
# options whose value is the control's text, in the command's order; the rest are flags or special
_VALUE_OPTIONS = (
    "workload",
    "ceph-release",
    "mysql",
    "db-ram-gib",
    "db-vcpus",
    "db-bind-address",
    "osds-per-device",
)
_MYSQL_ONLY = {"mysql", "db-ram-gib", "db-vcpus", "db-bind-address"}
_OPTION = re.compile(r"(?<![\w-])--([a-z][a-z-]*)")
_AT_LINE = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+)(?::\d+)?: error:")
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def choices() -> dict[str, Any]:
    """What the form offers, read from compile-config's own parser and the catalog (nothing copied)."""
    options: dict[str, Any] = {}
    for action in build_parser()._actions:
        for flag in action.option_strings:
            if flag.startswith("--"):
                options[flag[2:]] = {
                    "choices": list(action.choices) if action.choices else None,
                    "default": action.default if isinstance(action.default, (str, int, float)) else None,
                    "help": action.help,
                }
    unsafe = [
        {"knob": k.name, "safety": k.safety if k.safety != "safe" else k.unsafe_values[0].safety}
        for k in load_catalog()
        if k.safety != "safe" or k.unsafe_values
    ]
    return {
        "options": options,
        "unsafe": unsafe,
        "device_types": list(DEVICE_TYPES),
        "nic_roles": list(NIC_ROLES),
    }


def tier_fields(tier: str) -> dict[str, Any]:
    """The hardware fields of a shipped tier, to start the hardware form from."""
    return fields_from_tree(tier_tree(tier))


def tier_tree(tier: str) -> dict[str, Any]:
    """A shipped tier's file as plain data (the tier's own name, description and source left out)."""
    doc, _ = tier_doc(tier)
    tree: dict[str, Any] = _plain(doc)
    for key in ("name", "description", "source"):
        tree.pop(key, None)
    return tree


def yaml_tree(text: str, name: str) -> Any:
    """A hardware file's YAML read as the compiler reads it (core schema, bounds), as plain data."""
    return _plain(parse_yaml(text, name))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _at(tree: Any, path: tuple[str, ...]) -> Any:
    for step in path:
        tree = tree.get(step) if isinstance(tree, dict) else None
    return tree


def fields_from_tree(tree: Any) -> dict[str, Any]:
    """The form's hardware controls filled from a hardware file's tree (absent fields left empty), and one row
    per group of each list."""
    out: dict[str, Any] = {}
    for control, path in HARDWARE_FIELDS.items():
        value = _at(tree, path)
        out[control] = "" if value is None else value
    for group, (key, controls) in GROUPS.items():
        items = _at(tree, ("node", key))
        rows = []
        for i, item in enumerate(items if isinstance(items, list) else []):
            item = item if isinstance(item, dict) else {}
            row: dict[str, Any] = {
                control: "" if item.get(field) is None else item[field] for field, control in controls.items()
            }
            rows.append({**row, "from": i})
        out[group] = rows
    return out


def load_hardware(text: str, name: str) -> dict[str, Any]:
    """A hardware YAML the reader loads into the form: its fields, and the whole tree kept for saving."""
    try:
        tree = yaml_tree(text, name)
    except FlashtuneError as e:
        return {"error": str(e)}
    if not isinstance(tree, dict):
        return {"error": f"{name}: error: a hardware file is a mapping (node:, cluster:, ...)"}
    return {"fields": fields_from_tree(tree), "tree": tree, "name": safe_name(name)}


def safe_name(name: str) -> str:
    """A file name for the hardware file in the run's folder (a bare name: no folders)."""
    base = _SAFE_NAME.sub("-", Path(name or DEFAULT_HARDWARE_NAME).name).strip(".-") or "hardware"
    return base if base.endswith((".yaml", ".yml")) else f"{base}.yaml"


def _number(text: str) -> int | float | str:
    try:
        return int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            return text  # the hardware reader says what is wrong with it, at its line
        return int(value) if value.is_integer() and "." not in text else value


def _value(control: str, raw: str) -> Any:
    return raw if control in _TEXT_FIELDS else _number(raw)


def hardware_tree(form: dict[str, Any], base: dict[str, Any] | None) -> dict[str, Any]:
    """The hardware file of the form: the loaded (or tier) tree with the form's fields written over it."""
    tree: dict[str, Any] = json.loads(json.dumps(base or {}))
    for control, (*parents, leaf) in HARDWARE_FIELDS.items():
        raw = str(form.get(control, "")).strip()
        at: Any = tree
        for step in parents:
            at = at.setdefault(step, {}) if isinstance(at, dict) else None
        if isinstance(at, dict):
            if raw == "":
                at.pop(leaf, None)
            else:
                at[leaf] = _value(control, raw)
    for group, (key, controls) in GROUPS.items():
        rows = form.get(group)
        if not isinstance(rows, list):
            continue  # the form did not send this list: the file's groups stay as they are
        node = tree.setdefault("node", {})
        if not isinstance(node, dict):
            continue
        listed = node.get(key)
        before: list[Any] = listed if isinstance(listed, list) else []
        items = []
        for row in rows:
            kept = row.get("from")
            item: dict[str, Any] = {}
            if isinstance(kept, int) and 0 <= kept < len(before) and isinstance(before[kept], dict):
                item = before[kept]
            for field, control in controls.items():
                raw = str(row.get(control, "")).strip()
                if raw == "":
                    item.pop(field, None)
                else:
                    item[field] = _value(control, raw)
            if not item or (key == "db_devices" and item.get("count") in (None, 0)):
                continue  # an empty row, or DB devices without a count, is no group
            items.append(item)
        if items or key in node:
            node[key] = items
    return tree


def hardware_yaml(form: dict[str, Any], base: dict[str, Any] | None) -> str:
    """The hardware file as YAML, one key per line (so an error's line names the field)."""
    text: str = yaml.safe_dump(
        hardware_tree(form, base), sort_keys=False, default_flow_style=False, allow_unicode=True
    )
    return text


@cache
def _defaults() -> dict[str, str]:
    """compile-config's default of each option, as text."""
    return {
        flag[2:]: str(action.default)
        for action in build_parser()._actions
        for flag in action.option_strings
        if flag.startswith("--") and isinstance(action.default, (str, int, float))
    }


def argv_of(form: dict[str, Any]) -> list[str]:
    """compile-config's arguments for the form (an empty control leaves its option out: the default)."""
    argv: list[str] = []
    if form.get("use") == "hardware":
        argv += ["--hardware", safe_name(str(form.get("hardware") or DEFAULT_HARDWARE_NAME))]
    elif form.get("tier"):
        argv += ["--tier", str(form["tier"])]
    defaults = _defaults()
    for option in _VALUE_OPTIONS:
        value = str(form.get(option, "")).strip()
        if option in _MYSQL_ONLY and form.get("workload") != "mysql":
            continue
        if value and value != defaults.get(option):  # the command's default is left implicit
            argv += [f"--{option}", value]
    if form.get("use") != "hardware":
        for option in ("nodes", "clients"):
            value = str(form.get(option, "")).strip()
            if value:
                argv += [f"--{option}", value]
    protection = form.get("protection")
    if protection == "replication" and str(form.get("replication", "")).strip():
        argv += ["--replication", str(form["replication"]).strip()]
    elif protection == "ec" and str(form.get("ec", "")).strip():
        argv += ["--ec", str(form["ec"]).strip()]
    if form.get("encrypted"):
        argv.append("--encrypted")
    if form.get("bench-scale") and form["bench-scale"] != defaults.get("bench-scale"):
        argv += ["--bench-scale", str(form["bench-scale"])]
    unsafe = form.get("allow-unsafe") or []
    for knob in [unsafe] if isinstance(unsafe, str) else unsafe:
        argv += ["--allow-unsafe", str(knob)]
    return argv


def run_cli(argv: list[str], inputs: dict[str, str] | None = None) -> dict[str, Any]:
    """compile-config with argv in a new empty folder holding `inputs` (name -> text); what it printed and the
    folder it wrote ({relative path: text}), the folder then removed."""
    work = Path(tempfile.mkdtemp(prefix="compile-"))
    before = Path.cwd()
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        for file_name, text in (inputs or {}).items():
            (work / file_name).write_text(text, encoding="utf-8")
        os.chdir(work)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = main(argv)
            except SystemExit as e:  # argparse's exit (a bad option), as the command exits
                code = e.code if isinstance(e.code, int) else 2
        folders = [p for p in work.iterdir() if p.is_dir()]
        files: dict[str, str] = {}
        folder = folders[0].name if code == 0 and len(folders) == 1 else None
        if folder is not None:
            for p in sorted(folders[0].rglob("*")):
                if p.is_file():
                    files[p.relative_to(folders[0]).as_posix()] = p.read_text(encoding="utf-8")
    finally:
        os.chdir(before)
        shutil.rmtree(work, ignore_errors=True)
    return {
        "code": code,
        "stdout": stdout.getvalue(),
        "stderr": stderr.getvalue(),
        "folder": folder,
        "files": files,
    }


def field_of(message: str, form: dict[str, Any], hardware_text: str | None) -> tuple[str | None, int | None]:
    """The form control an error message concerns, and the row when the control is in a list of groups: the
    option the message names, or the hardware file's field at the line it names."""
    at = _AT_LINE.match(message)
    if at and hardware_text is not None and at.group("file") == safe_name(str(form.get("hardware") or "")):
        path = _path_at_line(hardware_text, int(at.group("line")))
        for group, (key, controls) in GROUPS.items():
            if path[:2] == ("node", key):
                row = path[2] if len(path) > 2 and isinstance(path[2], int) else None
                field = path[3] if len(path) > 3 else None
                return (controls.get(str(field), group), row)
        related = [
            control
            for control, place in HARDWARE_FIELDS.items()
            if path[: len(place)] == place or place[: len(path)] == path
        ]
        best = min(related, key=lambda c: abs(len(HARDWARE_FIELDS[c]) - len(path)), default=None)
        return (best or "hardware", None)
    m = _OPTION.search(message.split("\n", 1)[0].replace("argument ", ""))
    if not m:
        return (None, None)
    option = m.group(1)
    return ({"hardware": "tier", "mysql": "mysql"}.get(option, option), None)


def _path_at_line(text: str, line: int) -> tuple[str | int, ...]:
    """The key path of the YAML key on `line` (1-based), or the closest one above it."""
    root = compose(text, "form")
    best: tuple[str | int, ...] = ()

    def walk(node: Any, path: tuple[str | int, ...]) -> None:
        nonlocal best
        if node is None:
            return
        if node.tag.endswith(":map"):
            for k, v in node.value:
                here = (*path, k.value)
                if k.start_mark.line + 1 <= line:
                    best = here
                walk(v, here)
        elif node.tag.endswith(":seq"):
            for i, item in enumerate(node.value):
                if item.start_mark.line + 1 <= line:
                    best = (*path, i)
                walk(item, (*path, i))

    walk(root, ())
    return best


def compile_form(form_json: str, base_json: str = "null") -> str:
    """The page's Compile button: the form (JSON) -> the command line, its output, the files or the error."""
    form: dict[str, Any] = json.loads(form_json)
    base = json.loads(base_json)
    inputs: dict[str, str] = {}
    hardware_text = None
    if form.get("use") == "hardware":
        if base is None and form.get("tier"):
            base = tier_tree(str(form["tier"]))
        hardware_text = hardware_yaml(form, base)
        inputs[safe_name(str(form.get("hardware") or DEFAULT_HARDWARE_NAME))] = hardware_text
    argv = argv_of(form)
    result = run_cli(argv, inputs)
    result["argv"] = argv
    result["hardware_yaml"] = hardware_text
    result["field"], result["row"] = (
        field_of(result["stderr"], form, hardware_text) if result["code"] else (None, None)
    )
    return json.dumps(result)


def save_form(form_json: str, base_json: str = "null") -> str:
    """The page's Save button: the form (JSON) as a hardware file, over the loaded file or the chosen tier."""
    form: dict[str, Any] = json.loads(form_json)
    base = json.loads(base_json)
    if base is None and form.get("tier"):
        base = tier_tree(str(form["tier"]))
    return hardware_yaml(form, base)


def zip_folder(folder: str, files_json: str) -> bytes:
    """The compiled folder as a zip (entries under FOLDER/, in path order, fixed times: the same bytes for the
    same files)."""
    files: dict[str, str] = json.loads(files_json)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for rel in sorted(files):
            info = zipfile.ZipInfo(f"{folder}/{rel}", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if rel.endswith(".sh") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, files[rel].encode("utf-8"))
    return out.getvalue()


def warm_up() -> None:
    """What the book build runs once in Pyodide before it takes the page's memory snapshot
    (scripts/pyodide_snapshot.mjs): the form's choices, a compile of each workload and of a hardware file from the
    form, and a zip. The modules they import and the data they load are then already in the snapshot the page
    starts from, so a reader's first compile costs about what a later one does."""
    choices()
    tier_fields("iops")
    for workload in WORKLOADS:
        compile_form(json.dumps({"use": "tier", "tier": "iops", "workload": workload}))
    form = {"use": "hardware", "tier": "standard", "workload": "mysql", "hardware": DEFAULT_HARDWARE_NAME}
    result = json.loads(compile_form(json.dumps(form)))
    zip_folder(result["folder"], json.dumps(result["files"]))
    load_hardware(result["hardware_yaml"], DEFAULT_HARDWARE_NAME)

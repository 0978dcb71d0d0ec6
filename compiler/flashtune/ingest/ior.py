"""IOR text output (IOR 2.10.x, the version the 2014 Lustre study ran, and IOR 3.x / 4.x).

There is no IOR binary in Debian, so the formats were taken from IOR's own printf calls (IOR 2.10.3
`ShowSetup`/`SummarizeResults` in src/C/IOR.c; hpc/ior 3.x `ior-output.c`) and from published runs:
* 2.10: a `Summary:` block of `\tkey = value` lines (`api = MPIIO (version=2, subversion=2)`,
  `access = file-per-process`, `clients = 16 (1 per node)`, `xfersize = 1 MiB`, `blocksize = 128 GiB`),
  then `Operation  Max (MiB)  Min (MiB)  Mean (MiB)   Std Dev  Max (OPs)  Min (OPs)  Mean (OPs)   Std Dev
  Mean (s)` and one `write`/`read` line per operation ending in `EXCEL`.
* 3.x/4.x: an `Options:` block of `key : value` lines (api, access, nodes, tasks, clients per node,
  xfersize `262144 bytes`, blocksize `1 MiB`), per-iteration `Results:` lines, and a final
  `Summary of all tests:` table: `Operation Max(MiB) Min(MiB) Mean(MiB) StdDev Max(OPs) Min(OPs) Mean(OPs)
  StdDev Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt
  blksiz xsize aggs(MiB) API RefNum`.
IOR's MiB are 2^20 bytes, which is the schema's bandwidth unit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashtune.ingest.common import (
    as_float,
    as_int,
    bad_input,
    last_line,
    line_of_offset,
    parse_size,
    read_tool_output,
    results_frame,
)

if TYPE_CHECKING:
    import pandas as pd

_OPS = ("write", "read")


def looks_like(text: str) -> bool:
    head = text[:50000]
    return (
        bool(re.search(r"IOR-\d", head)) or "Summary of all tests:" in text or "Max (MiB)  Min (MiB)" in text
    )


def parse(path: Path) -> pd.DataFrame:
    text = read_tool_output(path, looks_like, "IOR", "save the stdout of an IOR run to a file")
    version_m = re.search(r"IOR-(\d+)\.(\d+)(?:\.(\d+))?", text)
    major = int(version_m.group(1)) if version_m else (3 if "Summary of all tests:" in text else 2)
    rows = _parse_v3(path, text) if major >= 3 else _parse_v2(path, text)
    return results_frame(path, rows, f"ior-{major}", line=last_line(text),
                         problem="IOR output without a results summary table",
                         hint="the run did not finish (no 'Summary of all tests:' / 'Max (MiB)' table)")  # fmt: skip


def _stat_rows(base: dict[str, Any], cells: list[str], path: Path, line: int) -> list[dict[str, Any]]:
    """Max/Min/Mean/StdDev MiB, Max/Min/Mean/StdDev OPs, Mean(s) -> rows."""
    nums = [as_float(c) for c in cells[:9]]
    if len(cells) < 9 or any(n is None for n in nums):
        raise bad_input(path, "IOR summary line has fewer than 9 numbers", line=line,
                        hint="the line is cut off; keep IOR's whole stdout")  # fmt: skip
    names = [("bandwidth", "max"), ("bandwidth", "min"), ("bandwidth", "mean"), ("bandwidth", "stddev"),
             ("iops", "max"), ("iops", "min"), ("iops", "mean"), ("iops", "stddev"), ("runtime", "mean")]  # fmt: skip
    return [dict(base, metric=m, stat=s, value=v) for (m, s), v in zip(names, nums, strict=True)]


def _parse_v2(path: Path, text: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    setup: dict[str, str] = {}
    test_no = 0
    offset = 0
    in_table = False
    for line in text.splitlines(keepends=True):
        s = line.strip()
        lineno = line_of_offset(text, offset)
        offset += len(line)
        if s == "Summary:":
            setup = {}
            in_table = False
            continue
        m = re.match(r"^(\w[\w ]*?)\s*=\s*(.*)$", s)
        if m and not in_table and line.startswith(("\t", " ")):
            setup[m.group(1).strip().lower()] = m.group(2).strip()
            continue
        if s.startswith("Operation") and "Max (MiB)" in s:
            in_table = True
            test_no += 1
            continue
        if in_table and s.split(" ", 1)[0] in _OPS:
            cells = s.split()
            op = cells[0]
            api = setup.get("api", "").split(" ")[0] or None
            clients_m = re.match(r"(\d+)\s*\((\d+) per node\)", setup.get("clients", ""))
            tasks = int(clients_m.group(1)) if clients_m else None
            per_node = int(clients_m.group(2)) if clients_m else None
            base = {"tool": "ior", "test": f"test {test_no}", "workload": op, "op": op, "interface": api,
                    "block_size_bytes": parse_size(setup.get("xfersize", "")), "threads": tasks,
                    "clients": (tasks // per_node) if tasks and per_node else None, "iodepth": 1,
                    "source": str(path)}  # fmt: skip
            rows += _stat_rows(base, cells[1:], path, lineno)
        elif in_table and s and not s.startswith("---") and s.split(" ", 1)[0] not in _OPS:
            in_table = False
    return rows


def _parse_v3(path: Path, text: str) -> list[dict[str, Any]]:
    start = text.find("Summary of all tests:")
    if start < 0:
        return []
    options: dict[str, str] = {}
    opt = text.rfind("Options:", 0, start)
    if opt >= 0:
        for line in text[opt:start].splitlines()[1:]:
            key, sep, val = line.partition(":")
            if sep and key.strip():
                options.setdefault(key.strip().lower(), val.strip())
    lines = text[start:].splitlines()
    if len(lines) < 2 or not lines[1].strip().startswith("Operation"):
        raise bad_input(path, "IOR 'Summary of all tests:' is not followed by its header line",
                        line=line_of_offset(text, start) + 1, hint="the output is cut off")  # fmt: skip
    header = lines[1].split()
    col = {name: i for i, name in enumerate(header)}
    rows: list[dict[str, Any]] = []
    for k, line in enumerate(lines[2:], start=2):
        cells = line.split()
        if not cells or cells[0] not in _OPS:
            if cells and cells[0] in ("remove", "stat", "create"):
                continue
            break
        lineno = line_of_offset(text, start) + k

        def cell(name: str, cells: list[str] = cells) -> str | None:
            i = col.get(name)
            return cells[i] if i is not None and i < len(cells) else None

        tasks = as_int(cell("#Tasks"))
        tpn = as_int(cell("tPN"))
        xsize = as_int(cell("xsize")) or parse_size(options.get("xfersize", ""))
        base = {"tool": "ior", "test": f"test {cell('Test#') or 0}", "workload": cells[0], "op": cells[0],
                "interface": cell("API") or options.get("api"), "block_size_bytes": xsize, "threads": tasks,
                "clients": (tasks // tpn) if tasks and tpn else as_int(options.get("nodes")), "iodepth": 1,
                "source": str(path)}  # fmt: skip
        rows += _stat_rows(base, cells[1:], path, lineno)
        agg = as_float(cell("aggs(MiB)"))
        if agg is not None:
            rows.append(dict(base, metric="io", stat="sum", value=agg))
    return rows

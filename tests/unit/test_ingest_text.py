"""IOR and IOzone ingest, on outputs built here in the tools' own printed layout.

Neither IOR nor IOzone is packaged in Debian, so these outputs are constructed following the printf
formats in the tools' sources (IOR 2.10.3 src/C/IOR.c ShowSetup/SummarizeResults, hpc/ior 3.x
ior-output.c, iozone.c's throughput and auto-mode printers) and filled with the Lustre study's published
numbers (seed 002, Tables 1 and 2), so a correct ingest must hand back exactly the published MB/s.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flashtune.errors import FlashtuneError
from flashtune.ingest import COLUMN_NAMES, detect, load
from support.tool_outputs import IOR3, TABLE1_SSD_16, iozone_throughput_text


def test_iozone_throughput_mode_returns_the_published_table(tmp_path: Path) -> None:
    f = tmp_path / "iozone-16.txt"
    f.write_text(iozone_throughput_text(16, TABLE1_SSD_16))
    assert detect(f) == "iozone"
    df = load(f)
    assert tuple(df.columns) == COLUMN_NAMES
    agg = df[df["stat"] == "sum"].set_index("workload")["value"]
    expected = {k.replace(" ", "_"): float(v) for k, v in TABLE1_SSD_16.items()}
    assert agg.to_dict() == pytest.approx(expected)
    assert set(df["unit"]) == {"MiB/s"} and set(df["threads"]) == {16}
    assert set(df["block_size_bytes"]) == {1024 * 1024}
    ops = df[df["stat"] == "sum"].set_index("workload")["op"]
    assert (ops["initial_writers"], ops["re-readers"], ops["mixed_workload"]) == ("write", "read", "mixed")
    per_proc = df[(df["workload"] == "readers") & (df["stat"] == "mean")]["value"].iloc[0]
    assert per_proc == pytest.approx(8518 / 16, rel=1e-4)


def test_iozone_old_kb_spelling_and_ops_mode(tmp_path: Path) -> None:
    f = tmp_path / "old.txt"
    f.write_text(iozone_throughput_text(1, {"initial writers": 105}, unit="KB"))
    assert load(f)[lambda d: d["stat"] == "sum"]["value"].iloc[0] == pytest.approx(105)
    ops = tmp_path / "ops.txt"
    ops.write_text(
        iozone_throughput_text(2, {"random readers": 10})
        .replace("kBytes/sec", "operations per second")
        .replace("kB/sec", "ops/sec")
    )
    df = load(ops)
    assert set(df["metric"]) == {"iops"}
    assert df[df["stat"] == "sum"]["value"].iloc[0] == pytest.approx(10 * 1024)


AUTO_UPPER = "                                                              random    random     bkwd    record    stride                                    "
AUTO_HEADER = "              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread"


def _auto_row(values: dict[int, int]) -> str:
    """Right-align each value at the end of its header column (iozone's %Nld fields)."""
    ends = [m_end for m_end in _ends(AUTO_HEADER)]
    line = [" "] * (len(AUTO_HEADER) + 1)
    for col, v in values.items():
        s = str(v)
        e = ends[col]
        line[e - len(s) : e] = list(s)
    return "".join(line).rstrip() + "   "


def _ends(text: str) -> list[int]:
    import re

    return [m.end() for m in re.finditer(r"\S+", text)]


def test_iozone_auto_mode_table_with_tests_left_out(tmp_path: Path) -> None:
    # -i 0 -i 2: write/rewrite and random read/write only; read/reread columns are blank
    rows = [
        _auto_row({0: 102400, 1: 4, 2: 2604, 3: 2666, 6: 9959, 7: 2652}),
        _auto_row({0: 102400, 1: 1024, 2: 314600, 3: 325053, 6: 374715, 7: 325762}),
    ]
    text = "\tIozone: Performance Test of File I/O\n\tAuto Mode\n\tOutput is in kBytes/sec\n"
    text += AUTO_UPPER + "\n" + AUTO_HEADER + "\n" + "\n".join(rows) + "\n\niozone test complete.\n"
    f = tmp_path / "auto.txt"
    f.write_text(text)
    df = load(f)
    assert set(df["format"]) == {"iozone-auto"}
    big = df[df["block_size_bytes"] == 1024 * 1024].set_index("workload")["value"]
    assert big.to_dict() == pytest.approx(
        {
            "write": 314600 / 1024,
            "rewrite": 325053 / 1024,
            "random_read": 374715 / 1024,
            "random_write": 325762 / 1024,
        }
    )
    assert set(df[df["workload"] == "random_write"]["op"]) == {"write"}


def ior2_text(tasks: int, per_node: int, write_mib: float, read_mib: float, api: str = "MPIIO") -> str:
    """IOR 2.10.3 default verbosity, -a MPIIO -r -w -F -i 3 -C -t 1m -b 128g, as in the study."""

    def line(op: str, mib: float) -> str:
        pad = "     " if op == "write" else "      "
        return (
            f"{op}{pad}{mib:10.2f} {mib * 0.95:10.2f}  {mib * 0.97:10.2f}{mib * 0.02:10.2f} "
            f"{mib:10.2f} {mib * 0.95:10.2f}  {mib * 0.97:10.2f}{mib * 0.02:10.2f}{131072 / mib:10.5f}   EXCEL"
        )

    return "\n".join(
        [
            "IOR-2.10.3: MPI Coordinated Test of Parallel I/O",
            "",
            "Run began: Tue Jan 14 10:00:00 2014",
            "Command line used: /home/user/IOR/src/C/IOR -a MPIIO -r -w -F -i 3 -C -t 1m -b 128g -o ./IOR",
            "Machine: Linux node001",
            "",
            "Summary:",
            f"\tapi                = {api} (version=2, subversion=2)",
            "\ttest filename      = ./IOR",
            "\taccess             = file-per-process",
            "\tordering in a file = sequential offsets",
            "\tordering inter file=constant task offsets = 1",
            f"\tclients            = {tasks} ({per_node} per node)",
            "\trepetitions        = 3",
            "\txfersize           = 1 MiB",
            "\tblocksize          = 128 GiB",
            f"\taggregate filesize = {tasks * 128} GiB",
            "",
            "Operation  Max (MiB)  Min (MiB)  Mean (MiB)   Std Dev  Max (OPs)  Min (OPs)  Mean (OPs)   Std Dev  Mean (s)  ",
            "---------  ---------  ---------  ----------   -------  ---------  ---------  ----------   -------  --------",
            line("write", write_mib),
            line("read", read_mib),
            "",
            f"Max Write: {write_mib:.2f} MiB/sec ({write_mib * 1.048576:.2f} MB/sec)",
            f"Max Read:  {read_mib:.2f} MiB/sec ({read_mib * 1.048576:.2f} MB/sec)",
            "",
            "Run finished: Tue Jan 14 11:00:00 2014",
            "",
        ]
    )


def test_ior2_returns_table2_numbers(tmp_path: Path) -> None:
    # Table 2: 16 threads on 16 nodes, lfs09 SSD: read 5500, write 5459 MB/s
    f = tmp_path / "ior-16x1.txt"
    f.write_text(ior2_text(16, 1, 5459, 5500))
    df = load(f)
    assert set(df["format"]) == {"ior-2"}
    mx = df[(df["metric"] == "bandwidth") & (df["stat"] == "max")].set_index("op")["value"]
    assert mx.to_dict() == pytest.approx({"write": 5459.0, "read": 5500.0})
    ops = df[(df["metric"] == "iops") & (df["stat"] == "max")].set_index("op")["value"]
    # with 1 MiB transfers, operations per second equal MiB/s (the study's Tables 4/5 check)
    assert ops.to_dict() == pytest.approx(mx.to_dict())
    row = df.iloc[0]
    assert (row["interface"], row["threads"], row["clients"], row["block_size_bytes"]) == (
        "MPIIO",
        16,
        16,
        1 << 20,
    )


def test_ior2_multi_thread_per_node_sets_clients(tmp_path: Path) -> None:
    f = tmp_path / "ior-128.txt"
    f.write_text(ior2_text(128, 8, 24673, 24140, api="POSIX"))
    row = load(f).iloc[0]
    assert (row["threads"], row["clients"], row["interface"]) == (128, 16, "POSIX")


def test_ior3_summary_table(tmp_path: Path) -> None:
    f = tmp_path / "ior3.txt"
    f.write_text(IOR3)
    df = load(f)
    assert set(df["format"]) == {"ior-3"}
    mean = df[(df["metric"] == "bandwidth") & (df["stat"] == "mean")].set_index("op")["value"]
    assert mean.to_dict() == {"write": 1400.0, "read": 2900.0}
    iops = df[(df["metric"] == "iops") & (df["stat"] == "mean")].set_index("op")["value"]
    # MiB/s = OPs x 64 KiB: the two columns agree, so the block size is right
    for op in ("write", "read"):
        assert iops[op] * 65536 / 2**20 == pytest.approx(mean[op])
    row = df.iloc[0]
    assert (row["threads"], row["clients"], row["block_size_bytes"], row["interface"]) == (
        8,
        2,
        65536,
        "POSIX",
    )
    assert df[df["metric"] == "io"]["value"].iloc[0] == 2048.0


def test_cut_off_outputs_fail_with_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "ior-cut.txt"
    text = ior2_text(16, 1, 5459, 5500)
    f.write_text(text[: text.index("Operation")])
    with pytest.raises(FlashtuneError) as e:
        load(f)
    assert e.value.file == str(f) and e.value.line is not None and e.value.suggestion
    g = tmp_path / "ior3-cut.txt"
    g.write_text(IOR3[: IOR3.index("write        1500.00") + 40])
    with pytest.raises(FlashtuneError) as e:
        load(g)
    assert e.value.line == IOR3[: IOR3.index("write        1500.00")].count("\n") + 1
    h = tmp_path / "iozone-cut.txt"
    h.write_text(
        "\tIozone: Performance Test of File I/O\n\tMin throughput per process \t\t\t=  1.00 kB/sec\n"
    )
    with pytest.raises(FlashtuneError) as e:
        load(h)
    assert e.value.line == 2


def test_unknown_and_empty_inputs(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("hello\nworld\n")
    with pytest.raises(FlashtuneError) as e:
        load(f)
    assert "cannot tell" in e.value.message and "fio" in (e.value.suggestion or "")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(FlashtuneError):
        load(empty)
    with pytest.raises(FlashtuneError) as e:
        load(tmp_path / "missing.json")
    assert e.value.file and e.value.file.endswith("missing.json")
    d = tmp_path / "plain-dir"
    d.mkdir()
    (d / "README").write_text("my notes\n")
    with pytest.raises(FlashtuneError) as e:
        load(d)
    assert "no benchmark output" in e.value.message and e.value.file == str(d)


def test_a_results_directory_loads_every_result_file(tmp_path: Path) -> None:
    d = tmp_path / "my-results"
    (d / "lustre").mkdir(parents=True)
    (d / "ior-16x1.txt").write_text(ior2_text(16, 1, 5459, 5500))
    (d / "lustre" / "iozone-16.txt").write_text(iozone_throughput_text(16, TABLE1_SSD_16))
    (d / "job.fio").write_text("[global]\nrw=randread\n")  # not a result: skipped
    df = load(d)
    assert set(df["tool"]) == {"ior", "iozone"}
    assert df["source"].str.endswith(("ior-16x1.txt", "iozone-16.txt")).all()
    (d / "cut.txt").write_text(ior2_text(16, 1, 1, 1)[:300])  # a known format, broken: not skipped
    with pytest.raises(FlashtuneError) as e:
        load(d)
    assert e.value.file == str(d / "cut.txt")


def test_flashtune_cli_start_does_not_import_pandas() -> None:
    code = (
        "import sys; from flashtune.cli.main import build_parser; build_parser(); "
        "print(sorted(m for m in ('pandas', 'numpy', 'altair') if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert r.stdout.strip() == "[]"


def test_reader_rows_line_up_with_the_published_table(tmp_path: Path) -> None:
    """The reader's IOzone rows and data/'s lustre_iozone rows share workload names, units and stat."""
    from flashtune import tables
    from flashtune.ingest.published import from_published

    pub = from_published(tables.load("lustre_iozone"))
    assert tuple(pub.columns[: len(COLUMN_NAMES)]) == COLUMN_NAMES
    ssd16 = pub[(pub["system"] == "ssd") & (pub["clients"] == 16)]
    f = tmp_path / "iozone-16.txt"
    f.write_text(iozone_throughput_text(16, TABLE1_SSD_16))
    mine = load(f)
    mine = mine[mine["stat"] == "sum"]
    joined = mine.merge(ssd16, on=["workload", "metric", "stat", "unit"], suffixes=("", "_pub"))
    assert len(joined) == len(TABLE1_SSD_16)
    assert (joined["value"] == joined["value_pub"]).all()


def test_cli_summary_and_forced_format(tmp_path: Path) -> None:
    f = tmp_path / "iozone-16.txt"
    f.write_text(iozone_throughput_text(16, TABLE1_SSD_16))
    g = tmp_path / "ior.txt"
    g.write_text(ior2_text(16, 1, 5459, 5500))
    exe = [sys.executable, "-m", "flashtune.cli.main", "ingest"]
    r = subprocess.run([*exe, str(f), str(g)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    rows = len(load(f)) + len(load(g))
    assert "iozone-throughput" in r.stdout and "ior-2" in r.stdout and f"{rows} rows" in r.stdout
    wrong = subprocess.run([*exe, str(f), "--kind", "ior"], capture_output=True, text=True, timeout=120)
    assert (
        wrong.returncode == 2 and "this is not IOR output" in wrong.stderr and "Traceback" not in wrong.stderr
    )
    bogus = subprocess.run([*exe, str(f), "--kind", "xml"], capture_output=True, text=True, timeout=120)
    assert bogus.returncode == 2 and "invalid choice: 'xml'" in bogus.stderr


def test_rados_bench_glued_columns_split_only_when_unambiguous() -> None:
    """ObjBencher's fixed-width per-second columns run together when a number is wide; a token is split
    back only where exactly one split gives doubles as iostream prints them (<= 6 significant digits)."""
    from flashtune.ingest.radosbench import _second_columns

    line = "    5       1       402       401  0.313248   0.468750.00526002  0.012455"
    assert _second_columns(line) == ["5", "1", "402", "401", "0.313248", "0.46875", "0.00526002", "0.012455"]
    three = "   16       1      1601      1600  0.390585   0.406250.008369210.00999658"
    assert _second_columns(three)[5:] == ["0.40625", "0.00836921", "0.00999658"]  # type: ignore[index]
    # "12.512.5" could be 12.5|12.5 or 12.51|2.5 ...: refused rather than guessed
    assert _second_columns("    3      16        42        26   12.512.5   0.44  0.73") is None


def ior_json_text(results: list[dict[str, float]], summary: dict[str, float]) -> str:
    """IOR 3.x's `-O summaryFormat=JSON` output as ior-output.c prints it (PrintKeyVal* in JSON mode:
    `"key": "string"`, `"key": %.4f`, `"key": %lld`, sections with `{`/`}` on their own lines, the
    per-iteration Results as a list of lists), filled with the IO500 DAOS ior_easy write run of the corpus
    (tests/corpus/ior/ior-3.3.0-ior-easy-write-6.txt: 544 tasks on 16 nodes, 256 KiB transfers)."""

    def kv(key: str, value: object) -> str:
        if isinstance(value, str):
            return f'"{key}": "{value}"'
        if isinstance(value, int):
            return f'"{key}": {value}'
        return f'"{key}": {value:.4f}'

    def section(pairs: list[tuple[str, object]], indent: str) -> str:
        return "{\n" + ", \n".join(indent + kv(k, v) for k, v in pairs) + "\n" + indent[:-2] + "}"

    params = [("testID", 0), ("api", "DFS"), ("nodes", 16), ("tasksPerNode", 34), ("repetitions", 1)]
    params += [("transferSize", 262144), ("blockSize", 274877906944)]
    res = ", \n".join("      " + section([(k, v) for k, v in r.items()], "        ") for r in results)
    summ = [("operation", "write"), ("API", "DFS"), ("TestID", 0), ("ReferenceNumber", 0)]
    summ += [("segmentCount", 1), ("blockSize", 274877906944), ("transferSize", 262144), ("numTasks", 544)]
    summ += [("tasksPerNode", 34), ("repetitions", 1), *summary.items()]
    return (
        "{\n"
        '"Version": "3.3.0+dev", \n"Began": "Thu Jul  9 19:56:11 2020", \n"tests": [\n'
        "  {\n"
        '    "TestID": 0, \n    "StartTime": "Thu Jul  9 19:56:11 2020", \n'
        f'    "Parameters": {section(params, "      ")}, \n'
        f'    "Results": [ \n    [\n{res}\n    ]\n    ]\n'
        "  }\n"
        f'], \n"summary": [\n  {section(summ, "    ")}\n], \n"Finished": "Thu Jul  9 20:03:59 2020"\n}}\n'
    )


def test_ior_json_summary_and_results(tmp_path: Path) -> None:
    # Results line: write 117333 475599 0.000296 268435456 256.00 6.16 461.11 0.000897 467.27 0
    results = [
        {
            "access": "write",
            "bwMiB": 117333.2818,
            "blockKiB": 268435456.0,
            "xferKiB": 256.0,
            "iops": 475599.0,
            "latency": 0.000296,
            "openTime": 6.16,
            "wrRdTime": 461.11,
            "closeTime": 0.000897,
            "totalTime": 467.27,
        }
    ]
    # Summary of all tests: write 117333.28 117333.28 117333.28 0.00 469333.11 ... 467.27034 ... 54826360.0
    summary = {
        "bwMaxMIB": 117333.28,
        "bwMinMIB": 117333.28,
        "bwMeanMIB": 117333.28,
        "bwStdMIB": 0.0,
        "OPsMax": 469333.11,
        "OPsMin": 469333.11,
        "OPsMean": 469333.11,
        "OPsSD": 0.0,
        "MeanTime": 467.27034,
        "xsizeMiB": 54826360.0,
    }
    f = tmp_path / "ior.json"
    f.write_text(ior_json_text(results, summary))
    assert detect(f) == "ior"
    df = load(f)
    assert set(df["format"]) == {"ior-json"}

    def one(**where: object) -> float:
        rows = df
        for k, v in where.items():
            rows = rows[rows[k] == v]
        assert len(rows) == 1, where
        return float(rows["value"].iloc[0])

    assert one(metric="bandwidth", stat="mean", op="write") == 117333.28  # MiB/s as printed
    assert one(metric="iops", stat="max", op="write") == 469333.11
    assert one(metric="io", stat="sum", op="write") == 54826360.0
    # IOR prints every JSON double with %.4f: the 0.000296 s latency of the text output is 0.0003 s here
    assert one(metric="latency", stat="sample", op="write") == pytest.approx(0.3)  # s -> ms
    summ = df[df["stat"] == "mean"]
    assert set(summ["threads"]) == {544} and set(summ["clients"]) == {16}
    assert set(summ["block_size_bytes"]) == {262144} and set(summ["interface"]) == {"DFS"}
    # cut inside the summary: the line where the file ends
    cut = tmp_path / "cut.json"
    text = f.read_text()
    cut.write_text(text[: text.index('"OPsMean"')])
    with pytest.raises(FlashtuneError) as e:
        load(cut)
    assert e.value.line == len(cut.read_text().rstrip().splitlines()) and "truncated" in str(e.value)

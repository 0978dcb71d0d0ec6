"""A CBT (ceph/cbt) results archive: the `-a DIR` tree, or a tarball of it.

Layout (CBT's benchmark.py, radosbench.py, librbdfio.py): `DIR/results/<iteration:08d>/id-<sha1[:8]>/`
per benchmark permutation, holding `benchmark_config.yaml` (`cluster: {benchmark: librbdfio, iteration: 0,
mode: randwrite, op_size: 4096, iodepth: 16, ...}`) and the copied client outputs, each with the client's
host name appended by rpdcp:
* librbdfio / fio / rbdfio: `output.<vol>.<host>` = fio `--output-format=json,normal` stdout, and fio logs
  `output.<vol>_{bw,iops,lat,clat,slat}.<job>.log.<host>`.
* radosbench: `write/`, `seq/` or `rand/` (and `prefill/`) with `output.<proc>.<host>` = rados bench stdout.
* Current CBT (2024-): the config has a `workloads:` block (name -> mode, op_size, numjobs, total_iodepth
  lists) and one id-<hash> holds every permutation in subfolders
  `<workload>.<host>/numjobs-NNN/total_iodepth-N/iodepth-NNNNNN/` with `json_output.<vol>` (fio's JSON,
  preferred over the `output.<vol>` it was cut from) and logs `output.<vol>_clat.1.log`.
Monitoring data (collectl, perf, historic ops) is ignored. Every row gets `run` = `<iteration>/id-<hash>`
plus the permutation's subfolder path when there is one, and the permutation's parameters (the workload's
own over the cluster's) fill what the outputs do not say.
"""

from __future__ import annotations

import re
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from flashtune.errors import FlashtuneError
from flashtune.fileio import read_text
from flashtune.ingest import fio, fiohist, fionormal, radosbench
from flashtune.ingest.aggregate import Stats
from flashtune.ingest.common import as_int, bad_input, parse_size
from flashtune.ingest.schema import conform, to_frame
from flashtune.ingest.textio import head_text
from flashtune.progress import tick
from flashtune.yamlio import load_yaml

_OUTPUT = re.compile(r"^output\.(?P<vol>\d+)(?:\.[^_/]+)?$")
_JSON_OUTPUT = re.compile(r"^json_output\.(?P<vol>\d+)(?:\.[^_/]+)?$")
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2")


def looks_like(path: Path) -> bool:
    if path.is_dir():
        return is_archive_root(path)
    return path.name.endswith(TAR_SUFFIXES)


def is_archive_root(path: Path) -> bool:
    """A CBT `-a` folder: results/<iteration>/id-*/benchmark_config.yaml, or that folder's results/ itself."""
    if not path.is_dir():
        return False
    return (
        any(path.glob("results/*/id-*/benchmark_config.yaml"))
        or any(path.glob("*/id-*/benchmark_config.yaml"))  # the results/ folder itself
        or any(path.glob("id-*/benchmark_config.yaml"))  # one iteration
        or (path.name.startswith("id-") and (path / "benchmark_config.yaml").is_file())  # one run
    )


def _read_config(f: Path) -> Any:
    """A benchmark_config.yaml as CBT reads it: CBT writes and reads it with PyYAML, so its C parser
    (yaml.CSafeLoader) reads it here too, ~5x faster than flashtune's position-keeping reader (an archive
    holds one per run: thousands). Anything the C parser refuses, or nesting it cannot follow, goes to that
    reader for its file:line error. (Aliases stay shared references: nothing below walks the tree.)"""

    loader = getattr(yaml, "CSafeLoader", None)
    if loader is not None:
        try:
            return yaml.load(read_text(f, max_bytes=1 << 20), Loader=loader)
        except (yaml.YAMLError, RecursionError, ValueError):
            pass
    return load_yaml(f)


def _config(run_dir: Path) -> dict[str, Any]:
    f = run_dir / "benchmark_config.yaml"
    if not f.exists():
        return {}
    doc = _read_config(f)
    cluster = doc.get("cluster") if isinstance(doc, dict) else None
    if not isinstance(cluster, dict):
        raise bad_input(
            f,
            "benchmark_config.yaml has no 'cluster' mapping",
            line=1,
            hint="CBT writes `cluster: {benchmark: ..., iteration: ...}` here; is this a CBT archive?",
        )
    return {str(k): v for k, v in cluster.items()}


def parse(path: Path, *, bin_ms: int | None = None, stats: Stats | None = None) -> pd.DataFrame:
    if path.is_file() and path.name.endswith(TAR_SUFFIXES):
        with tempfile.TemporaryDirectory(prefix="flashtune-cbt-") as tmp:
            try:
                with tarfile.open(path) as tar:
                    tar.extractall(tmp, filter="data")
            except (tarfile.TarError, EOFError, OSError) as e:
                raise bad_input(
                    path,
                    f"cannot unpack the CBT archive: {e}",
                    hint="pass the archive directory itself, or a complete .tar.gz of it",
                ) from None
            df = _parse_dir(Path(tmp), bin_ms=bin_ms, stats=stats)
            df["source"] = df["source"].str.replace(tmp, str(path), regex=False)
            return df
    return _parse_dir(path, bin_ms=bin_ms, stats=stats)


def _parse_dir(root: Path, *, bin_ms: int | None, stats: Stats | None) -> pd.DataFrame:
    run_dirs = sorted({p.parent for p in root.glob("**/benchmark_config.yaml")})
    if not run_dirs:
        run_dirs = sorted(p for p in root.glob("results/*/id-*") if p.is_dir())
    if not run_dirs:
        raise bad_input(
            root,
            "no CBT runs here (no results/<iteration>/id-*/benchmark_config.yaml)",
            hint="pass the directory given to `cbt.py -a`",
        )
    frames: list[pd.DataFrame] = []
    rows: list[dict[str, Any]] = []  # fio JSON reports' rows, made one frame (in order, between the others)
    for run_dir in run_dirs:
        cfg = _config(run_dir)
        run = f"{run_dir.parent.name}/{run_dir.name}"
        bench = str(cfg.get("benchmark", ""))
        files = sorted(f for f in run_dir.rglob("*") if f.is_file())
        # json_output.N is fio's JSON in librbdfio runs (read it, not the output.N it was cut from); in
        # radosbench runs it is a re-dump of the text output.N (ignored, output.N is read)
        fio_json = {f for f in files if _JSON_OUTPUT.match(f.name) and '"fio version"' in head_text(f, 4096)}
        have_json = {(f.parent, m.group("vol")) for f in fio_json if (m := _JSON_OUTPUT.match(f.name))}
        for f in files:
            tick()
            df: pd.DataFrame | None = None
            got: list[dict[str, Any]] | None = None
            if fio.log_info(f) is not None:
                df = fio.parse_log(f, bin_ms=bin_ms, stats=stats)
            elif fiohist.is_hist_log(f):
                df = fiohist.parse(f)
            elif f in fio_json:
                got = fio.json_rows(f)
            elif (m := _OUTPUT.match(f.name)) and (f.parent, m.group("vol")) not in have_json:
                head = head_text(f, 200_000)
                if '"fio version"' in head:
                    got = fio.json_rows(f)
                elif fionormal.looks_like(head):  # CBT before fio's JSON: `fio --output` normal text
                    df = fionormal.parse(f)
                elif radosbench.looks_like(head):
                    df = radosbench.parse(f)
            if not got and (df is None or df.empty):
                continue
            sub = f.parent.relative_to(run_dir)
            # a permutation folder (current layout) is its own run; radosbench's write/seq/rand folders are
            # phases of one run (seq and rand read what write left)
            phase = str(sub) == "." or sub.parts[0] in ("write", "seq", "rand", "prefill")
            run_id = run if phase else f"{run}/{sub}"
            fill = _config_fill(_permutation(cfg, sub), bench)
            if got:
                for r in got:
                    r["run"] = run_id
                    for k, v in fill.items():
                        if r.get(k) is None:
                            r[k] = v
                rows += got
                continue
            assert df is not None
            if rows:
                frames.append(to_frame(rows))
                rows = []
            df["run"] = run_id
            for k, v in fill.items():
                df[k] = df[k].fillna(v)
            frames.append(df)
    if rows:
        frames.append(to_frame(rows))
    if not frames:
        raise FlashtuneError(
            f"found {len(run_dirs)} CBT run(s) but no fio or rados bench outputs in them",
            file=str(root),
            suggestion="CBT copies client outputs as output.N.<host> / json_output.N; check that the run finished and was synced",
        )
    return conform(pd.concat(frames, ignore_index=True))


def _permutation(cfg: dict[str, Any], sub: Path) -> dict[str, Any]:
    """The cluster settings with the named workload's own settings over them (current CBT layout:
    the permutation's folder starts with `<workload>.<host>`)."""
    workloads = cfg.get("workloads")
    if not isinstance(workloads, dict) or not sub.parts:
        return cfg
    first = sub.parts[0]
    name = next(
        (w for w in sorted(workloads, key=len, reverse=True) if first == w or first.startswith(f"{w}.")), None
    )
    spec = workloads.get(name) if name else None
    if not isinstance(spec, dict):
        return cfg
    merged = {k: v for k, v in cfg.items() if k != "workloads"}
    merged.update({str(k): v for k, v in spec.items() if not isinstance(v, list)})
    return merged


def _config_fill(cfg: dict[str, Any], bench: str) -> dict[str, Any]:
    """Parameters the outputs do not state (rados bench -t, op size, mode) from the permutation's config:
    column -> value, for the rows where the column is empty."""
    fill: dict[str, Any] = {}
    if bench == "radosbench":
        depth = as_int(cfg.get("concurrent_ops"))
        if depth is not None:
            fill["iodepth"] = depth
    size = cfg.get("op_size")
    n = as_int(size) if size is not None else None
    if n is None and isinstance(size, str):
        n = parse_size(size)
    if n is not None:
        fill["block_size_bytes"] = n
    mode = cfg.get("mode")
    if isinstance(mode, str) and bench != "radosbench":
        fill["workload"] = mode
    return fill

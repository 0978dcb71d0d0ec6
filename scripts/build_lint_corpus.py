"""Build tests/fixtures/lint-corpus/ from public configs: keep only the settings (sections, keys, values, line
layout), drop every comment, and record where each file came from.

    python scripts/build_lint_corpus.py SELECTION.yaml --mirrors DIR [--raw DIR] [--append]
SELECTION lists {kind, repo, path, commit} and optionally the release the file states or implies
(`ceph_release`, `mysql`: the test lints the file for it, with `release_why` saying where it comes from).
--mirrors holds bare or normal git clones as DIR/<owner>+<name>/repo; a file whose repository is too large to
clone (or whose commit the clone lacks) is read from --raw DIR/<owner>+<name>/<path> instead (saved from the
repository at that commit).
Comment lines become empty lines (so line numbers stay those of the original) and trailing comments are cut
where the format has them. The manifest (manifest.yaml) keeps repo, path, commit and the stored file name;
--append keeps its rows and numbers the new files after them.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "lint-corpus"
DIRS = {
    "ceph.conf": "ceph",
    "my.cnf": "mycnf",
    "sysctl.conf": "sysctl",
    "cbt.yaml": "cbt",
    "ceph-config.json": "cephjson",
}


def _cut(line: str, chars: str) -> str:
    """The line up to the first comment character outside quotes."""
    quote = ""
    for i, c in enumerate(line):
        if c in "\"'" and (not quote or quote == c):
            quote = "" if quote else c
        elif not quote and c in chars:
            return line[:i].rstrip()
    return line


def strip_comments(text: str, kind: str) -> str:
    out = []
    for line in text.replace("\r\n", "\n").split("\n"):
        body = line.strip()
        if not body or body[0] in ("#", ";"):
            out.append("")
            continue
        if kind == "ceph.conf":
            line = _cut(line, "#;")
        elif kind == "my.cnf":
            line = _cut(line, "#")
        elif kind == "cbt.yaml":
            m = re.search(r"\s#", line)
            if m:
                kept = _cut(line, "#")
                line = kept if kept.strip() else ""
        if kind == "sysctl.conf" and "#" in line.partition("=")[2]:
            # procps passes a trailing "# ..." to the kernel as part of the value: keep that it was there,
            # not what it said
            head, _, _ = line.partition("#")
            line = head + "#"
        out.append(line.rstrip() if kind != "sysctl.conf" else line)
    text = "\n".join(out).rstrip("\n") + "\n"
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("selection", type=Path)
    ap.add_argument("--mirrors", type=Path, required=True)
    ap.add_argument("--raw", type=Path)
    ap.add_argument("--append", action="store_true")
    args = ap.parse_args(argv)
    import yaml

    rows = yaml.safe_load(args.selection.read_text()) or []
    manifest: list[dict[str, str]] = []
    if args.append:
        manifest = list(yaml.safe_load((OUT / "manifest.yaml").read_text(encoding="utf-8"))["files"])
    counters: dict[str, int] = {}
    for m in manifest:
        counters[m["kind"]] = max(counters.get(m["kind"], 0), int(m["id"].rsplit("-", 1)[1]))
    for row in rows:
        kind = row["kind"]
        counters[kind] = counters.get(kind, 0) + 1
        ident = f"{DIRS[kind]}-{counters[kind]:02d}"
        owner_name = row["repo"].replace("/", "+", 1)
        repo_dir = args.mirrors / owner_name / "repo"
        shown = None
        if repo_dir.is_dir():
            shown = subprocess.run(
                ["git", "-C", str(repo_dir), "show", f"{row['commit']}:{row['path']}"], capture_output=True
            )
        if shown is not None and shown.returncode == 0:
            raw = shown.stdout.decode("utf-8", "replace")
        else:  # no clone, or the commit is on a branch the clone lacks: the copy saved from that commit
            raw = (args.raw / owner_name / row["path"]).read_text(encoding="utf-8")
        name = f"{ident}-{Path(row['path']).name}"
        dest = OUT / DIRS[kind] / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(strip_comments(raw, kind), encoding="utf-8")
        entry = {
            "id": ident,
            "file": f"{DIRS[kind]}/{name}",
            "kind": kind,
            "repo": row["repo"],
            "path": row["path"],
            "commit": row["commit"],
        }
        entry.update({k: row[k] for k in ("ceph_release", "mysql", "release_why") if k in row})
        manifest.append(entry)
    header = (
        "# Public configs kept as settings only (comments removed, line numbers kept), with provenance.\n"
        "# Built by scripts/build_lint_corpus.py; judged findings are in judged.yaml. ceph_release / mysql: the\n"
        "# release the file states or implies (release_why says how); the corpus test lints it for that release.\n"
    )
    (OUT / "manifest.yaml").write_text(
        header + yaml.safe_dump({"files": manifest}, sort_keys=False), encoding="utf-8"
    )
    print(f"{len(manifest)} files: {counters}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

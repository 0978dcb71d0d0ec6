"""Derive the sysctl name lists in data/sysctl-names/ (names only; run by hand when a kernel is added).

    python scripts/derive_sysctl_names.py proc  [--root /proc/sys]      -> linux-<major.minor>.txt
    python scripts/derive_sysctl_names.py docs  DOC_DIR --version 6.1   -> documented-<version>.txt

`proc` walks the running kernel's /proc/sys READ-ONLY: it lists file names and never opens a file (so it cannot
write one, and does not even read values). `docs` reads the kernel's own documentation
(Documentation/admin-guide/sysctl/*.rst and Documentation/networking/ip-sysctl.rst, as shipped in Debian's
linux-doc-<version> package, .rst or .rst.gz) and keeps the documented names.
Per-interface names (net.ipv4.conf.eth0.rp_filter) are written with `*` for the interface, so one line covers
every device: net.ipv4.conf.*.rp_filter (conf.all and conf.default keep their names as well).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import os
import platform
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "data" / "sysctl-names"
_PER_DEVICE = re.compile(
    r"^(net\.ipv[46]\.(?:conf|neigh)|net\.mpls\.conf|net\.ax25|net\.ipv6\.route)\.([^.]+)\.(.+)$"
)
_SKIP = ("fs.binfmt_misc.",)  # a separate filesystem mounted there, not sysctls


def generalise(name: str) -> list[str]:
    """The name plus its per-device pattern (a device name becomes '*'; all/default stay as well)."""
    m = _PER_DEVICE.match(name)
    if not m or m[1] == "net.ipv6.route":
        return [name]
    pattern = f"{m[1]}.*.{m[3]}"
    return [name, pattern] if m[2] in ("all", "default") else [pattern]


def from_proc(root: Path) -> set[str]:
    names: set[str] = set()
    for dirpath, _dirs, files in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        for f in files:
            name = ".".join((*rel.parts, f))
            if not name.startswith(_SKIP):
                names.update(generalise(name))
    return names


def _read(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8", "replace")


def _titles(text: str) -> list[str]:
    """RST section titles (a line followed by an underline of = - ~ at least as long)."""
    lines = text.split("\n")
    out = []
    for a, b in itertools.pairwise(lines):
        if a.strip() and re.fullmatch(r"([=~-])\1{2,}", b.strip()) and len(b.strip()) >= len(a.strip()):
            out.append(a.strip())
    return out


def from_admin_guide(path: Path, prefix: str) -> set[str]:
    """Titles that are names ("swappiness", "file-max & file-nr", "msgmax, msgmnb"); prose titles are skipped."""
    names = set()
    for title in _titles(_read(path)):
        words = [w for w in re.split(r"\s*(?:,|&|\band\b)\s*", title.replace("``", "").strip()) if w]
        if words and all(re.fullmatch(r"[a-z][a-z0-9_-]{2,}", w) for w in words):
            names.update(f"{prefix}.{w}" for w in words)
    return names


def from_ip_sysctl(path: Path) -> set[str]:
    names: set[str] = set()
    base = "net.ipv4"
    sub = ""
    for line in _read(path).split("\n"):
        s = line.strip().strip("`").rstrip(":").strip("`")
        m = re.match(r"^/?proc/sys/net/([a-z0-9_]+)/\*", s)
        if m:
            base, sub = f"net.{m[1]}", ""
            continue
        m = re.fullmatch(r"(conf|neigh)/(interface|all|default)/\*", s)
        if m:
            sub = f"{m[1]}.*." if m[2] == "interface" else f"{m[1]}.{m[2]}."
            continue
        if s == "icmp/*":
            sub = "icmp."
            continue
        m = re.match(r"^([a-z][a-z0-9_/]*) - [A-Za-z]", line)
        if m:
            name = m[1].replace("/", ".")
            full = f"{base}.{name}" if "." in name else f"{base}.{sub}{name}"
            if full == "net.ipv4.somaxconn":
                full = "net.core.somaxconn"  # documented among the TCP variables, lives in net.core
            names.update(generalise(full) if ".*." not in full else [full])
    return names


def from_docs(doc_dir: Path) -> set[str]:
    def find(rel: str) -> Path:
        for cand in (doc_dir / rel, doc_dir / f"{rel}.gz"):
            if cand.is_file():
                return cand
        raise SystemExit(f"{rel} not found under {doc_dir}")

    names = set()
    for part, prefix in (
        ("kernel", "kernel"),
        ("vm", "vm"),
        ("fs", "fs"),
        ("net", "net.core"),
        ("abi", "abi"),
        ("user", "user"),
    ):
        names |= from_admin_guide(find(f"admin-guide/sysctl/{part}.rst"), prefix)
    names.discard("net.core.max_dgram_qlen")
    names.add("net.unix.max_dgram_qlen")
    names |= from_ip_sysctl(find("networking/ip-sysctl.rst"))
    return names


def write(path: Path, header: list[str], names: set[str]) -> None:
    text = "".join(f"# {h}\n" for h in header) + "".join(f"{n}\n" for n in sorted(names))
    path.write_text(text, encoding="utf-8")
    print(f"{path}: {len(names)} names")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("proc")
    p.add_argument("--root", type=Path, default=Path("/proc/sys"))
    d = sub.add_parser("docs")
    d.add_argument("doc_dir", type=Path)
    d.add_argument("--version", required=True)
    args = ap.parse_args(argv)
    if args.cmd == "proc":
        release = platform.release()
        mm = ".".join(release.split(".")[:2])
        write(
            OUT / f"linux-{mm}.txt",
            [
                f"sysctl names of Linux {release} (/proc/sys, listed read-only)",
                "by scripts/derive_sysctl_names.py proc",
            ],
            from_proc(args.root),
        )
    else:
        write(
            OUT / f"documented-{args.version}.txt",
            [
                f"sysctl names documented in Linux {args.version} (Documentation/admin-guide/sysctl/*.rst,",
                "networking/ip-sysctl.rst; Debian package linux-doc-" + args.version + ")",
                "by scripts/derive_sysctl_names.py docs",
            ],
            from_docs(args.doc_dir),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

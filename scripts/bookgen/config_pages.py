"""Compiler-guide pages: the shipped hardware tiers and the compiled configs/ folders with their explanations."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bookgen import myst
from flashtune.hardware import read_hardware
from flashtune.model import DeviceGroup
from flashtune.yamlio import load_yaml

# Highlighting languages Pygments lexes without complaint for these files; anything else is plain text.
LANGUAGE = {".conf": "ini", ".cnf": "ini", ".yaml": "yaml", ".yml": "yaml", ".json": "json"}
EXPLANATION = "explain.md"
SKIP = {"manifest.json"}  # machine-readable twin of explain.md; too long to be worth a page
_HEADING = re.compile(r"^#{1,5} ")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def _devices(groups: tuple[DeviceGroup, ...]) -> str:
    parts = []
    for d in groups:
        model = f" ({d.model})" if d.model else ""
        parts.append(f"{d.count}× {d.type} {d.size_gb:g} GB{model}")
    return ", ".join(parts) or "—"


def tier_row(doc: Any, path: Path) -> tuple[str, ...]:
    """One tier's row, its numbers as the hardware file's one reader takes them (cores are per socket)."""
    hw = read_hardware(doc, path, tier=True)
    node = doc["node"]
    cpu = f"{node.get('cpu', '?')}, {hw.sockets} × {hw.cores} cores ({hw.node_cores} per node)"
    return (
        myst.code(hw.name),
        myst.plain(str(doc.get("description", ""))),
        f"{cpu}, {hw.ram_gib:g} GiB",
        ", ".join(f"{n.count}× {n.speed_gbps:g} Gb/s" for n in hw.nics),
        _devices(hw.data_devices),
        _devices(hw.db_devices),
    )


def tiers_table(tiers_dir: Path) -> str:
    rows = [tier_row(load_yaml(path), path) for path in sorted(tiers_dir.glob("*.yaml"))]
    return myst.table(
        ["tier", "for", "CPU and RAM per node", "network", "data devices", "DB/WAL devices"], rows
    )


def _fence(text: str, lang: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}\n"


def _demote(markdown: str) -> str:
    """Push an included document's headings one level down, under the page's own title.

    Lines inside fenced code blocks are left alone: a '# comment' in a config excerpt is not a heading.
    """
    out = []
    fence: str | None = None
    for line in markdown.splitlines():
        m = _FENCE.match(line)
        if m and (fence is None or m.group(1).startswith(fence)):
            fence = m.group(1) if fence is None else None
        elif fence is None and _HEADING.match(line):
            line = "#" + line
        out.append(line)
    return "\n".join(out)


def config_title(name: str) -> str:
    """'iops-mysql' -> 'iops × mysql' (tier × workload); other folder names stay as they are."""
    tier, sep, workload = name.partition("-")
    return f"{tier} × {workload}" if sep else name


def config_page(folder: Path) -> str:
    name = folder.name
    lines = [f"({myst.label('config', name)})=", f"# Compiled: {config_title(name)}", ""]
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    listing = [myst.code(p.relative_to(folder)) for p in files]
    lines += [f"The files in `configs/{name}/`, as the compiler wrote them: {', '.join(listing)}.", ""]
    explain = folder / EXPLANATION
    if explain.is_file():
        lines += [_demote(explain.read_text(encoding="utf-8")), ""]
    lines += ["## The files", ""]
    for path in files:
        rel = path.relative_to(folder)
        if path.name in SKIP or path.name == EXPLANATION:
            continue
        lines += [f"### {myst.code(rel)}", ""]
        text = path.read_text(encoding="utf-8", errors="replace")
        lines.append(_fence(text, LANGUAGE.get(path.suffix, "text")))
    return "\n".join(lines) + "\n"


def write(configs_dir: Path, out: Path) -> list[Path]:
    """An index plus one page per compiled folder under configs/ (whatever exists at build time)."""
    out.mkdir(parents=True, exist_ok=True)
    folders = sorted(p for p in configs_dir.iterdir() if p.is_dir()) if configs_dir.is_dir() else []
    index = [
        "(compiled-configs)=",
        "# Compiled configs",
        "",
        "`configs/` holds `compile-config` output for every tier × workload at the default Ceph release; "
        "a test keeps it in sync with the compiler. Each page below shows one folder: the explanation of "
        "every value first, then the files themselves.",
        "",
    ]
    if folders:
        index.append(
            myst.table(
                ["folder", "files"],
                [
                    (
                        myst.ref(f.name, myst.label("config", f.name)),
                        len([p for p in f.rglob("*") if p.is_file()]),
                    )
                    for f in folders
                ],
            )
        )
    else:
        index.append("No compiled configs were present when this book was built.\n")
    pages = [out / "index.md"]
    pages[0].write_text("\n".join(index), encoding="utf-8")
    for f in folders:
        page = out / f"{myst.label(f.name)}.md"
        page.write_text(config_page(f), encoding="utf-8")
        pages.append(page)
    return pages

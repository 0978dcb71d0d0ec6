"""Config parsers: ceph.conf, my.cnf, sysctl.conf, CBT YAML and Ceph's config-database JSON into one ConfDoc
model with positions. The registry below is the parse layer's table of formats: one row per kind.

parse_text(text, kind, filename="<string>", recover=False) -> ConfDoc   (raises ConfSyntaxError)
render_text(doc) -> str            (text in the same format that parses back to the same model; a round-trip
                                    writer for tests and tools, not the compiler's emitters in flashtune.emit)
"""

from __future__ import annotations

import importlib
from types import ModuleType

from flashtune.parse.confdoc import KINDS, ConfDoc, ConfSyntaxError, Entry, Section

# kind -> module in this package with parse(text, filename, *, recover) and render(doc)
PARSERS: dict[str, str] = {
    "ceph.conf": "cephconf",
    "my.cnf": "mycnf",
    "sysctl.conf": "sysctl",
    "cbt.yaml": "cbtyaml",
    "ceph-config.json": "cephjson",
}


def _module(kind: str) -> ModuleType:
    name = PARSERS.get(kind)
    if name is None:
        raise ValueError(f"unknown config kind {kind!r}; known: {', '.join(KINDS)}")
    return importlib.import_module(f"flashtune.parse.{name}")


# Lines in one config file: Ceph has ~2,000 options and MySQL ~1,000, so no real config comes near; the cap
# bounds what a file under the read cap (64 MiB) can cost in entries and findings (64 MiB of one short line
# repeated took 3.4 GiB and three minutes to lint before).
MAX_LINES = 100_000


def parse_text(text: str, kind: str, filename: str = "<string>", *, recover: bool = False) -> ConfDoc:
    """Parse text as kind. recover=True keeps going after syntax errors where the format allows it
    (each one lands in doc.problems); otherwise the first error raises ConfSyntaxError."""
    lines = text.count("\n") + (not text.endswith("\n"))
    if lines > MAX_LINES:
        raise ConfSyntaxError(
            f"has {lines:,} lines; flashtune reads config files of at most {MAX_LINES:,}",
            file=filename,
            line=MAX_LINES + 1,
            column=1,
            suggestion="a config this long is generated or concatenated; check that it is the file you meant",
        )
    doc: ConfDoc = _module(kind).parse(text, filename, recover=recover)
    return doc


def render_text(doc: ConfDoc) -> str:
    text: str = _module(doc.kind).render(doc)
    return text


__all__ = ["KINDS", "PARSERS", "ConfDoc", "ConfSyntaxError", "Entry", "Section", "parse_text", "render_text"]

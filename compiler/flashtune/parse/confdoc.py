"""The parsed-document model every config parser produces: entries with positions, sections, includes.

One model for four formats so the linter's generic rules (duplicates, unknown keys, values) run the same
way on each. Positions are 1-based line and column of the key and of the value as they appear in the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from flashtune.errors import FlashtuneError

KINDS = ("ceph.conf", "my.cnf", "sysctl.conf", "cbt.yaml", "ceph-config.json")


class ConfSyntaxError(FlashtuneError):
    """The file does not follow its format's grammar (the real tool would refuse it too)."""


@dataclass(slots=True)
class Entry:
    """One `key = value` (or bare flag) as written. (Not frozen: frozen dataclasses build 3x slower, and
    a 100k-line file makes 100k of these; treat entries as read-only.)"""

    section: str  # ceph.conf section / my.cnf group / CBT parent path ("" where the format has none)
    key: str  # normalised the way the consuming program normalises it
    raw_key: str  # as written
    value: str | None  # None: my.cnf bare flag; unescaped, unquoted, trimmed text otherwise
    line: int
    column: int
    value_line: int
    value_column: int
    quoted: bool = False
    flags: tuple[str, ...] = ()  # format extras: "ignore-errors" (sysctl '-'), "loose" (my.cnf)
    node: Any = None  # CBT: the YAML value (list, mapping, scalar) as loaded


@dataclass(frozen=True)
class Section:
    """A section header of a parsed config file and where it is."""

    name: str
    line: int
    column: int


@dataclass
class ConfDoc:
    """A parsed config file: its entries, sections and includes, with lines."""

    kind: str
    filename: str
    entries: list[Entry] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    includes: list[Entry] = field(default_factory=list)  # my.cnf !include / !includedir
    data: Any = None  # CBT: the whole loaded YAML tree
    problems: list[ConfSyntaxError] = field(default_factory=list)  # lines the tool skips but goes on (sysctl)
    line_count: int = 0
    documents: int = 1  # YAML documents in the file (CBT reads only one)
    _effective: tuple[int, dict[str, dict[str, Entry]]] | None = field(
        default=None, repr=False, compare=False
    )

    def section_names(self) -> list[str]:
        """Distinct sections in first-seen order (repeated sections merge, as in Ceph and MySQL)."""
        seen: dict[str, None] = {}
        for s in self.sections:
            seen.setdefault(s.name, None)
        for e in self.entries:
            seen.setdefault(e.section, None)
        return list(seen)

    def effective(self) -> dict[str, dict[str, Entry]]:
        """section -> key -> the entry that wins (the last one, in all four formats). Several rules ask for it;
        it is built once per number of entries (treat the result as read-only)."""
        cached = self._effective
        if cached is not None and cached[0] == len(self.entries):
            return cached[1]
        out: dict[str, dict[str, Entry]] = {}
        for e in self.entries:
            out.setdefault(e.section, {})[e.key] = e
        self._effective = (len(self.entries), out)
        return out

    def get(self, section: str, key: str) -> Entry | None:
        return self.effective().get(section, {}).get(key)

    def model(self) -> list[tuple[str, str, str | None]]:
        """Position-free content: what a round trip must preserve."""
        return [(e.section, e.key, e.value) for e in self.entries]


BLANKS = " \t\r\f\v"


def content_lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(line number, blanks before the content, content) for each line that is not blank or a
    `#`/`;` comment: the line discipline my.cnf and sysctl.conf share."""
    for no, line in enumerate(text.split("\n"), 1):
        body = line.lstrip(BLANKS)
        lead = len(line) - len(body)
        body = body.rstrip(BLANKS)
        if body and body[0] not in "#;":
            yield no, lead, body

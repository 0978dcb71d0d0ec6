"""The published queue-depth-1 latency floor (constants.yaml's qd1_latency): the mean latency of one RBD I/O at a
time on the set-up it was measured on. A closed-loop case with N I/Os in flight does at most N / that latency
I/Os a second there (Little's law), whatever its resource ceiling."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from flashtune import datapackage
from flashtune.envelope.cluster import envelope_dir
from flashtune.errors import DataError
from flashtune.hardware import number
from flashtune.yamlio import line_of, top_mapping

SIDES = ("read", "write")


@dataclass(frozen=True)
class QD1Floor:
    read_ms: float
    write_ms: float
    setup: str  # the set-up the figures hold for, in words
    label: str  # the same in a few words
    sources: dict[str, str]  # side -> the published_results row printing it

    def mean_ms(self, read_fraction: float) -> float:
        """The floor of a mix: its reads and writes each at their own floor."""
        return read_fraction * self.read_ms + (1 - read_fraction) * self.write_ms


@cache
def qd1_floor() -> QD1Floor:
    """constants.yaml's qd1_latency; a side without a positive latency in ms or whose source is not a row of
    the data package, or a missing setup or label, is one error naming its line."""
    path = str(envelope_dir() / "constants.yaml")
    entry = top_mapping(path, "qd1_latency", "{why, setup, label, read: {ms, source}, write: {ms, source}}")
    ms: dict[str, float] = {}
    sources: dict[str, str] = {}
    for side in SIDES:
        part = entry.get(side)
        if not isinstance(part, dict):
            raise DataError(
                f"qd1_latency needs {side}: {{ms, source}}",
                file=path,
                line=line_of(entry, side) or line_of(entry) or 1,
            )
        line = line_of(part, "ms") or line_of(part)
        ms[side] = number(part.get("ms"), f"qd1_latency.{side}.ms", path, line, limit=1000)
        source = str(part.get("source", ""))
        if datapackage.resolve(source) is None:
            raise DataError(
                f"qd1_latency.{side}.source {source!r} is not a data-package row",
                file=path,
                line=line_of(part, "source") or line,
                suggestion="cite the published_results/<id> row that prints the figure",
            )
        sources[side] = source
    words: dict[str, str] = {}
    for key in ("setup", "label"):  # printed beside every floor: a missing one left '(0.4 ms write, )'
        text = entry.get(key)
        if not isinstance(text, str) or not text.strip():
            raise DataError(
                f"qd1_latency needs {key}: the set-up the floor was measured on, in words",
                file=path,
                line=line_of(entry, key) or line_of(entry) or 1,
            )
        words[key] = " ".join(text.split())
    return QD1Floor(ms["read"], ms["write"], words["setup"], words["label"], sources)

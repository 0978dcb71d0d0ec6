"""A knob's status in a release: the one place that decides whether a line setting it does anything.

The linter (FT101/102/103/401), the knob card, the book and the notebooks all ask `status()`; none of
them re-derives it from added/removed/renamed_to/misspelling_of/applies_to.
"""

from __future__ import annotations

from dataclasses import dataclass

from flashtune.catalog.knob import Knob
from flashtune.releases import CEPH_RELEASES, MYSQL_FLAVOURS

# state -> what it means for a line that sets the knob (shown in cards, notebooks and the book)
STATES: dict[str, str] = {
    "in effect": "the release reads the knob",
    "not yet": "the knob is added in a later release; this one ignores it",
    "renamed": "the knob was renamed; this release ignores the old name",
    "removed": "the knob was removed; this release ignores it (or refuses it)",
    "misspelt": "a misspelling no release ever knew",
    "dead": "the release reads the knob, but only a component this setup does not run uses it",
}
OBJECTSTORE_KNOB = "osd_objectstore"  # its default per release and its removed values say which store runs


@dataclass(frozen=True)
class Status:
    """What a line setting the knob does in a release."""

    state: str  # a key of STATES
    since: str | None = None  # release/kernel of the change (added, removed, renamed, component gone)
    target: str | None = None  # renamed_to, misspelling_of, or the component the knob needs (dead)
    component: str | None = None  # dead: the component this setup runs instead (e.g. bluestore)

    @property
    def in_effect(self) -> bool:
        return self.state == "in effect"

    def describe(self) -> str:
        """A short phrase for tables and cards, e.g. 'renamed to mon_max_pg_per_osd in luminous'."""
        when = f" in {self.since}" if self.since else ""
        if self.state == "misspelt":
            return f"misspelling of {self.target}"
        if self.state == "renamed":
            return f"renamed to {self.target}{when}"
        if self.state == "removed":
            return f"removed{when}"
        if self.state == "not yet":
            return f"added{when}"
        if self.state == "dead":
            if self.component is None:
                return f"only for {self.target}, which is gone{when}"
            return f"only for {self.target}; this setup runs {self.component}"
        return "in effect"


def _order(knob: Knob) -> tuple[str, ...]:
    return MYSQL_FLAVOURS if knob.domain == "mysql" else CEPH_RELEASES


def _before(order: tuple[str, ...], release: str, boundary: str | None) -> bool:
    return boundary in order and release in order and order.index(release) < order.index(boundary)  # type: ignore[arg-type]


def knob_status(
    knob: Knob,
    release: str | None,
    objectstore: str | None = None,
    objectstores: dict[str, str | None] | None = None,
) -> Status:
    """The knob's status in release (Ceph release, MySQL flavour, or None for kernel-side domains).

    objectstore: the object store the OSDs run; objectstores: every store name -> the release it was
    removed in (None if alive). Both come from the catalog's osd_objectstore knob (Catalog.status fills
    them in); without them a knob for one object store is never called dead.
    """
    if knob.misspelling_of is not None:
        return Status("misspelt", target=knob.misspelling_of)
    if not knob.exists_in(release):
        order = _order(knob)
        if release is not None and knob.added and _before(order, release, knob.added):
            return Status("not yet", since=knob.added)
        if knob.renamed_to:
            return Status("renamed", since=knob.removed, target=knob.renamed_to)
        return Status("removed", since=knob.removed)
    needs = tuple(c for c in knob.applies_to if c in (objectstores or {}))
    if needs and release in CEPH_RELEASES:
        return component_status(needs, release, objectstore, objectstores or {})
    return Status("in effect")


def component_status(
    needs: tuple[str, ...], release: str | None, objectstore: str | None, objectstores: dict[str, str | None]
) -> Status:
    """Status of a setting only `needs` (object stores) read: dead where none of them runs."""

    def gone(c: str) -> bool:
        removed = objectstores.get(c)
        return (
            bool(removed) and release in CEPH_RELEASES and not _before(CEPH_RELEASES, release or "", removed)
        )

    alive = [c for c in needs if not gone(c)]
    if not alive:
        return Status("dead", since=objectstores.get(needs[0]), target=needs[0])
    if objectstore is not None and objectstore not in alive:
        return Status("dead", target=needs[0], component=objectstore)
    return Status("in effect")

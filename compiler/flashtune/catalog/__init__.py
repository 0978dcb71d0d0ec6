"""The knob catalog: every tuning knob flashtune knows, read from data/knobs/*.yaml.

Public API (used by lint, compile, notebooks and the book):
    load_catalog() -> Catalog            (cached)
    Catalog.get(name, domain=None) -> Knob | None
    Catalog.suggest(name, domain=None) -> list[str]   (did-you-mean)
    Knob.exists_in(release) / Knob.default_for(release)
"""

from flashtune.catalog.knob import Knob, Location
from flashtune.catalog.store import Catalog, load_catalog

__all__ = ["Catalog", "Knob", "Location", "load_catalog"]

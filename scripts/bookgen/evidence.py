"""Evidence links: a catalog reference "<resource>/<id>" shown with the dataset row it points at."""

from __future__ import annotations

import os

from bookgen import myst
from flashtune import datapackage
from flashtune.errors import DataError

MAX_FIELDS = 7  # enough of a row to read the number it contributes, short enough for one line


def dataset_label(resource: str) -> str:
    return myst.label("dataset", resource)


def has_package() -> bool:
    return os.path.isfile(datapackage.package_path())


def _summary(row: dict[str, str]) -> str:
    parts = [f"{k}={v}" for k, v in row.items() if k != "id" and v != ""][:MAX_FIELDS]
    return "; ".join(parts)


def evidence_line(ref: str) -> str:
    """One Markdown list item body for an evidence reference (a dangling one is shown as such)."""
    resource, sep, _ = ref.replace(":", "/", 1).partition("/")
    row = None
    if sep and has_package():
        try:
            row = datapackage.resolve(ref.replace(":", "/", 1))
        except DataError:
            row = None
    if row is None:
        return f"{myst.code(ref)} (not found in the data package)"
    return f"{myst.ref(ref, dataset_label(resource))}: {myst.cell(myst.plain(_summary(row)))}"

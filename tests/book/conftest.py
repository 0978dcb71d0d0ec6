"""The real book, built once per test session (as `make book` builds it) and served on 127.0.0.1."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.bookserve import REPO, run_build, serve


@pytest.fixture(scope="session")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real book (this repository's notebooks, catalog, data and configs), built once for the session.
    FLASHTUNE_BOOK_HTML=book/_build/html uses a book built before instead (while working on a page)."""
    if os.environ.get("FLASHTUNE_BOOK_HTML"):
        return Path(os.environ["FLASHTUNE_BOOK_HTML"]).resolve()
    out = tmp_path_factory.mktemp("book")
    proc = run_build(REPO, out)
    if proc.returncode != 0:
        pytest.fail(
            f"book build failed (exit {proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    assert "pages" in proc.stdout
    return out / "_build" / "html"


@pytest.fixture(scope="session")
def served(book: Path) -> Iterator[str]:
    with serve(book) as url:
        yield url

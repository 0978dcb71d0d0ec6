"""Did-you-mean without a cliff: an index of single-character deletions (the SymSpell idea), so a look-up costs
a few dict hits instead of a comparison with every known name.

A name is offered only when it is within two edits of the key (one deletion on each side: a typo, a missing
or extra letter, a swap) or has the same words in another order, and then only if difflib's ratio is at least
CUTOFF. Each index holds one file kind's names, so a my.cnf key is never "corrected" to a Ceph option.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from functools import lru_cache

CUTOFF = 0.8
_WORDS = re.compile(r"[_./ -]+")


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _word_key(name: str) -> str:
    return " ".join(sorted(w for w in _WORDS.split(name.lower()) if w))


class SuggestIndex:
    def __init__(self, names: Iterable[str]) -> None:
        self.names = frozenset(names)
        self.by_delete: dict[str, list[str]] = {}
        self.by_words: dict[str, list[str]] = {}
        for n in sorted(self.names):
            low = n.lower()
            for d in (low, *_deletes(low)):
                self.by_delete.setdefault(d, []).append(n)
            self.by_words.setdefault(_word_key(n), []).append(n)
        self.suggest = lru_cache(maxsize=65536)(self._suggest)

    def _suggest(self, key: str) -> str | None:
        low = key.lower()
        cands: set[str] = set(self.by_words.get(_word_key(key), ()))
        for d in (low, *_deletes(low)):
            cands.update(self.by_delete.get(d, ()))
        cands.discard(key)
        best: tuple[float, str] | None = None
        for c in sorted(cands):
            r = difflib.SequenceMatcher(None, low, c.lower()).ratio()
            if _word_key(c) == _word_key(key):
                r = max(r, 0.99)
            if r >= CUTOFF and (best is None or r > best[0]):
                best = (r, c)
        return best[1] if best else None


_INDEXES: dict[frozenset[str], SuggestIndex] = {}


def index_for(names: frozenset[str]) -> SuggestIndex:
    """One index per name set (the sets come from cached loaders, so this is built once per process)."""
    idx = _INDEXES.get(names)
    if idx is None:
        idx = _INDEXES[names] = SuggestIndex(names)
    return idx


def did_you_mean(key: str, names: Iterable[str]) -> str | None:
    pool = names if isinstance(names, frozenset) else frozenset(names)
    return index_for(pool).suggest(key)

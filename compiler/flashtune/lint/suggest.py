"""Did-you-mean without a cliff: an index of single-character deletions of each name's first PREFIX characters
(SymSpell's idea with its prefix limit), so a look-up costs a handful of set and dict operations instead of a
comparison with every known name; a key with no near name (the common case in a file of the wrong kind) is
rejected by one C-level set intersection.

A name is offered only when it is one edit away on each side (a typo, a missing or extra letter, a swap: the
first PREFIX characters find candidates, their deletion sets decide), and difflib's ratio is at least CUTOFF;
or when it has the same words in another order. Each index holds one file kind's names, so a my.cnf key is never "corrected" to a Ceph
option.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import lru_cache

CUTOFF = 0.8
PREFIX = 8
MAX_LEN_DIFF = 2
_SEPARATORS = str.maketrans("./ -", "____")


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _word_key(name: str) -> str:
    return "_".join(sorted(w for w in name.lower().translate(_SEPARATORS).split("_") if w))


class SuggestIndex:
    def __init__(self, names: Iterable[str]) -> None:
        self.names = frozenset(names)
        # length -> (delete of the first PREFIX characters -> names of that length): the length bucket keeps
        # the candidate lists short, and each bucket's keys are one frozenset for a C-level intersection
        by_len: dict[int, dict[str, list[str]]] = {}
        by_words: dict[str, list[str]] = {}
        for n in sorted(self.names):
            head = n.lower()[:PREFIX]
            bucket = by_len.setdefault(len(n), {})
            for d in (head, *_deletes(head)):
                bucket.setdefault(d, []).append(n)
            by_words.setdefault(_word_key(n), []).append(n)
        self.by_len = {n: (frozenset(b), b) for n, b in by_len.items()}
        self.by_words = by_words
        self.suggest = lru_cache(maxsize=65536)(self._suggest)

    def _suggest(self, key: str) -> str | None:
        low = key.lower()
        head = low[:PREFIX]
        probe = _deletes(head)
        probe.add(head)
        n = len(low)
        cands: set[str] = set()
        for length in range(n - MAX_LEN_DIFF, n + MAX_LEN_DIFF + 1):
            entry = self.by_len.get(length)
            if entry is not None:
                for d in entry[0].intersection(probe):
                    cands.update(entry[1][d])
        words = _word_key(low)
        reordered = self.by_words.get(words, ())
        cands.discard(key)
        if cands:
            # keep names one edit away on each side (a typo, a missing or extra letter, a swap): a C-level
            # disjointness test of deletion sets instead of a quadratic string comparison per candidate
            mine = _deletes(low)
            mine.add(low)
            cands = {c for c in cands if not mine.isdisjoint(self.deletes_of(c))}
        cands.update(c for c in reordered if c != key)
        best: tuple[float, str] | None = None
        for c in sorted(cands):
            r = 0.99 if c in reordered else difflib.SequenceMatcher(None, low, c.lower()).ratio()
            if r >= CUTOFF and (best is None or r > best[0]):
                best = (r, c)
        return best[1] if best else None

    @lru_cache(maxsize=8192)  # noqa: B019 - one index per name set lives for the whole process anyway
    def deletes_of(self, name: str) -> frozenset[str]:
        low = name.lower()
        return frozenset(_deletes(low) | {low})


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


def clear_caches() -> None:
    """Forget remembered answers (benchmarks measure the cold cost)."""
    for idx in _INDEXES.values():
        idx.suggest.cache_clear()

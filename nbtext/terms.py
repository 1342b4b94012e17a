"""Terms: a vocabulary growing as documents are counted, and the counts of features looked up
in one (``count_features``, the reference every faster path equals); and a model's terms as it
keeps them: one UTF-8 array, searched without being unpacked, so that a fresh process
classifying one message does not turn a million terms into strings."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from .checks import array_of, checked
from .matrices import CountMatrix, count_matrix, run_starts


class PackedTerms(Sequence):
    """Terms kept as one UTF-8 array and split into strings only when first read.

    A model keeps every term it saw, most of them pruned away; prediction never reads those,
    so a fresh process does not pay for turning them into strings.
    """

    def __init__(self, blob: np.ndarray, n_terms: int, ends: np.ndarray | None = None) -> None:
        self.blob, self.n_terms = blob, n_terms
        self._terms: list[str] | None = None
        if ends is not None and len(ends) != n_terms:
            raise ValueError(f"{len(ends)} term ends stored where {n_terms} were expected")
        self._ends = ends  # where each term ends (see ``ends``), kept in the model file; else found once

    @classmethod
    def stored(cls, blob: Any, n_terms: Any, ends: Any, name: str) -> PackedTerms:
        """Terms as a model file stores them (``blob``, their number and, where kept, where each
        ends); a ValueError, naming them ``name``, where those do not fit together."""
        blob = array_of(blob, f"{name}", np.uint8)
        checked(type(n_terms) is int and n_terms >= 0, f"{name}'s number", "a count")
        breaks = int(np.count_nonzero(blob == 10))  # a newline ends each term but the last
        checked(breaks == max(n_terms - 1, 0) and (n_terms > 0 or not len(blob)), name, f"{n_terms} terms")
        if ends is not None:
            ends = array_of(ends, f"{name}' ends", (np.int32, np.int64), n_terms)
            checked(not n_terms or (int(ends[-1]) == len(blob) and bool(np.all(np.diff(ends) > 0))
                                    and bool(np.all(blob[ends[:-1]] == 10))), f"{name}' ends", "where they end")
        return cls(blob, n_terms, ends)

    def unpacked(self) -> list[str]:
        if self._terms is None:
            terms = self.blob.tobytes().decode("utf-8", "surrogatepass").split("\n") if self.n_terms else []
            if len(terms) != self.n_terms:
                raise ValueError(f"{len(terms)} terms stored where {self.n_terms} were expected")
            self._terms = terms
        return self._terms

    def index_of(self, term: str, default: int = -1) -> int:
        """The position of ``term`` by binary search over the packed bytes, without unpacking
        (UTF-8 keeps code-point order, so the sorted terms are sorted bytes too)."""
        if self._terms is not None:
            return sorted_position(self._terms, term, default)
        if self._ends is None:
            self._ends = self.ends()
        ends = self._ends
        key, low, high = term.encode("utf-8", "surrogatepass"), 0, self.n_terms
        while low < high:
            middle = (low + high) // 2
            if self._term_bytes(ends, middle) < key:
                low = middle + 1
            else:
                high = middle
        if low < self.n_terms and self._term_bytes(ends, low) == key:
            return low
        return default

    def _term_bytes(self, ends: np.ndarray, i: int) -> bytes:
        start = int(ends[i - 1]) + 1 if i else 0
        return self.blob[start:int(ends[i])].tobytes()

    def ends(self) -> np.ndarray:
        """Where each term's bytes end in the blob (a newline, or the blob's end)."""
        return np.append(np.flatnonzero(self.blob == 10), len(self.blob)) if self.n_terms else np.zeros(0, np.int64)

    def __len__(self) -> int:
        return self.n_terms

    def __getitem__(self, index):
        return self.unpacked()[index]

    def __iter__(self):
        return iter(self.unpacked())

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented


def sorted_position(terms: Sequence[str], term: str, default: int = -1) -> int:
    """The index of ``term`` in the sorted ``terms`` by binary search (packed terms are
    searched without being unpacked), or ``default``.

    >>> sorted_position(["ant", "bee", "cat"], "bee"), sorted_position(["ant", "bee"], "cow")
    (1, -1)
    """
    if isinstance(terms, PackedTerms):
        return terms.index_of(term, default)
    i = bisect.bisect_left(terms, term)
    return i if i < len(terms) and terms[i] == term else default


def pack_terms(terms: Sequence[str]) -> np.ndarray:
    """Terms as one UTF-8 array split on newlines: it loads ten times faster than a list of
    strings through joblib's pure-Python unpickler. A lone surrogate, which a library caller's
    text may hold and ``char_wb`` n-grams keep, is written as its three bytes (surrogatepass),
    which still sort in code-point order."""
    if isinstance(terms, PackedTerms) and terms._terms is None:
        return terms.blob
    joined = "\n".join(terms)
    if joined.count("\n") != max(len(terms) - 1, 0):
        raise ValueError("a term contains a newline; it cannot be stored")
    return np.frombuffer(joined.encode("utf-8", "surrogatepass"), dtype=np.uint8)


class GrowingVocabulary(dict):
    """A term -> id dict that gives an unseen term the next id when it is looked up, so that
    ``map(vocabulary.__getitem__, features)`` stays in C for every term already known.

    >>> vocabulary = GrowingVocabulary()
    >>> [vocabulary[t] for t in ["b", "a", "b"]], dict(vocabulary)
    ([0, 1, 0], {'b': 0, 'a': 1})
    """

    def __missing__(self, term: str) -> int:
        self[term] = index = len(self)
        return index

    def ids(self, terms: Sequence[str]) -> np.ndarray:
        """``[self[t] for t in terms]`` for distinct ``terms``, at C speed when all are unseen.

        >>> vocabulary = GrowingVocabulary(a=0)
        >>> vocabulary.ids(["b", "c"]).tolist(), vocabulary.ids(["d", "a"]).tolist()
        ([1, 2], [3, 0])
        """
        before = len(self)
        ids = np.fromiter(map(self.setdefault, terms, itertools.count(before)), dtype=np.int64, count=len(terms))
        if len(self) != before + len(terms):  # some were known: number the others again, with no gap
            for term in [t for t, i in self.items() if i >= before]:
                del self[term]
            ids = np.fromiter(map(self.__getitem__, terms), dtype=np.int64, count=len(terms))
        return ids

    def sorted_terms(self) -> tuple[list[str], np.ndarray]:
        """The terms in sorted order, and each column's position among them."""
        terms, (position,) = sorted_union(list(self))
        return terms, position


def sorted_union(*sequences: Sequence[str]) -> tuple[list[str], list[np.ndarray]]:
    """The distinct items of all ``sequences`` in sorted order, and for each sequence the
    position there of each of its items. Sequences that are sorted already are merged in
    linear time (Timsort takes each as one run).

    >>> words, positions = sorted_union(["b", "c"], ["a", "c"])
    >>> words, [p.tolist() for p in positions]
    (['a', 'b', 'c'], [[1, 2], [0, 2]])
    """
    items = list(itertools.chain.from_iterable(sequences))
    order = sorted(range(len(items)), key=items.__getitem__)
    in_order = [items[i] for i in order]
    first = run_starts(np.array(in_order, dtype=object))  # where each distinct item first appears
    position = np.empty(len(items), dtype=np.int64)
    position[order] = np.cumsum(first) - 1
    cuts = np.cumsum([len(s) for s in sequences])[:-1]
    return list(itertools.compress(in_order, first)), np.split(position, cuts)


def count_features(
    feature_lists: Sequence[Sequence[str]], vocabulary: Any, *, n_known: int | None = None
) -> CountMatrix:
    """Count each document's features against ``vocabulary``.

    A ``GrowingVocabulary`` takes in unseen features (ids in order of first sight); any other
    mapping only needs ``get``, and unseen features are ignored (``n_known`` gives its size
    when it has no ``len``). The per-token work is C-level (``map``/``fromiter``), the
    counting is one ``np.unique`` over (document, feature) keys.
    """
    n_docs = len(feature_lists)
    lengths = np.fromiter(map(len, feature_lists), dtype=np.int64, count=n_docs)
    flat = itertools.chain.from_iterable(feature_lists)
    n_flat = int(lengths.sum())
    rows = np.repeat(np.arange(n_docs), lengths)
    if isinstance(vocabulary, GrowingVocabulary):
        ids = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=n_flat)
    else:
        ids = np.fromiter(map(vocabulary.get, flat, itertools.repeat(-1)), dtype=np.int64, count=n_flat)
        known = ids >= 0
        ids, rows = ids[known], rows[known]
    return count_matrix(rows, ids, n_docs, len(vocabulary) if n_known is None else n_known)

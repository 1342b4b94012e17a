"""Vocabulary and sparse counts: documents x terms, and the per-class sums Naive Bayes needs.

Everything here is numpy only, so that classifying a document never pays for importing scipy.
``CountMatrix`` is a minimal CSR matrix; ``ClassCounts`` holds the sufficient statistics of all
three Naive Bayes variants as plain sums, so counts from separate runs add up exactly.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import DataError, NotLearnedError

try:
    from . import _sparsedot  # type: ignore[attr-defined]  # compiled, with no types for mypy to find
except ImportError:  # built without a C compiler: numpy takes the product (the same to rounding)
    _sparsedot = None


@dataclass(frozen=True)
class CountMatrix:
    """A documents x features matrix in CSR layout (row pointers, column indices, values)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    n_features: int

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.indptr) - 1, self.n_features

    @classmethod
    def coerce(cls, X: Any) -> CountMatrix:
        """A CountMatrix from a scipy sparse matrix, a 2-D array-like or a CountMatrix."""
        if isinstance(X, CountMatrix):
            return X
        if isinstance(X, str):
            raise TypeError("expected a matrix of counts, got a string")
        if hasattr(X, "tocsr"):
            csr = X.tocsr()
            csr.sum_duplicates()
            return cls(
                csr.indptr.astype(np.int64), csr.indices.astype(np.int64),
                csr.data.astype(np.float64), csr.shape[1],
            )
        array = np.asarray(X, dtype=np.float64)
        if array.ndim != 2:
            raise ValueError(f"expected a 2-D matrix of counts, got {array.ndim} dimension(s)")
        rows, cols = np.nonzero(array)
        return cls(_indptr(rows, array.shape[0]), cols.astype(np.int64), array[rows, cols], array.shape[1])

    def row_ids(self) -> np.ndarray:
        """The row of every stored value."""
        return np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))

    def rows(self, which: np.ndarray) -> CountMatrix:
        """The rows ``which``, in that order.

        >>> CountMatrix.coerce([[1, 0], [0, 2], [3, 4]]).rows(np.array([2, 0])).to_scipy().toarray().tolist()
        [[3.0, 4.0], [1.0, 0.0]]
        """
        lengths, entries = segment_entries(self.indptr, which)
        return CountMatrix(np.concatenate([[0], np.cumsum(lengths)]), self.indices[entries], self.data[entries],
                           self.n_features)

    def remapped(self, column_map: np.ndarray, n_features: int) -> CountMatrix:
        """Column j moved to ``column_map[j]`` of ``n_features``, or dropped where that is -1;
        each row's values stay in their order.

        >>> CountMatrix.coerce([[1, 2, 3]]).remapped(np.array([1, -1, 0]), 2).to_scipy().toarray().tolist()
        [[3.0, 1.0]]
        """
        columns = column_map[self.indices]
        kept = columns >= 0
        indptr = np.concatenate([[0], np.cumsum(kept)])[self.indptr]
        return CountMatrix(indptr, columns[kept], self.data[kept], n_features)

    def plus_ones(self, rows: np.ndarray, columns: np.ndarray, n_features: int) -> CountMatrix:
        """These counts, ``n_features`` wide, with one more at each (``rows[i]``, ``columns[i]``).

        >>> m = CountMatrix.coerce([[1, 0], [0, 2]])
        >>> m.plus_ones(np.array([1, 1, 0]), np.array([2, 2, 0]), 3).to_scipy().toarray().tolist()
        [[2.0, 0.0, 0.0], [0.0, 2.0, 2.0]]
        """
        width = max(n_features, 1)
        return _summed(np.concatenate([self.row_ids() * width + self.indices, rows * width + columns]),
                       np.concatenate([self.data, np.ones(len(rows))]), self.shape[0], n_features)

    def summed_into(self, column_map: np.ndarray, n_features: int) -> CountMatrix:
        """Column j added into column ``column_map[j]`` of ``n_features`` (dropped where that is
        -1): the counts of columns that land on one are summed, each row's columns in order.

        >>> m = CountMatrix.coerce([[1, 2, 3], [4, 0, 0]])
        >>> m.summed_into(np.array([1, -1, 1]), 2).to_scipy().toarray().tolist()
        [[0.0, 4.0], [0.0, 4.0]]
        """
        columns = column_map[self.indices]
        kept = columns >= 0
        width = max(n_features, 1)
        return _summed(self.row_ids()[kept] * width + columns[kept], self.data[kept], self.shape[0], n_features)

    def in_column_order(self) -> CountMatrix:
        """The same matrix with each row's values in column order, as ``count_matrix`` makes
        them (``dot_by_feature`` and ``weigh_rows`` add a row's values in their order)."""
        order = np.argsort(self.row_ids() * max(self.n_features, 1) + self.indices)
        return CountMatrix(self.indptr, self.indices[order], self.data[order], self.n_features)

    def binarized(self, threshold: float = 0.0) -> CountMatrix:
        """The same matrix with every value above ``threshold`` set to 1 and the rest to 0."""
        return CountMatrix(self.indptr, self.indices, (self.data > threshold).astype(np.float64), self.n_features)

    def dot_by_feature(self, by_feature: np.ndarray) -> np.ndarray:
        """``self @ by_feature`` for a dense (n_features, k) ``by_feature``: k columns.

        Each stored value picks up its feature's k weights as one row, and a document's rows
        are summed (``np.add.reduceat``), a few thousand values at a time so that the picked
        rows stay in the CPU cache: one pass over the values instead of k. Only the rows of
        the columns that hold values are read. Compiled (``_sparsedot``), the same sums
        without the copies, each document's added in order (to rounding what numpy gives).
        """
        out = np.zeros((self.shape[0], by_feature.shape[1]))
        if _sparsedot is not None and by_feature.shape[1]:
            arrays = [(self.indptr, np.int64), (self.indices, np.int64), (self.data, np.float64),
                      (by_feature, np.float64)]
            _sparsedot.dot(*(np.ascontiguousarray(a, dtype=t) for a, t in arrays), by_feature.shape[1], out)
            return out
        rows = np.flatnonzero(np.diff(self.indptr))
        starts = self.indptr[rows]
        # Blocks begin at the rows holding every DOT_BLOCK-th value.
        cuts = np.searchsorted(starts, np.arange(0, self.indptr[-1], DOT_BLOCK), side="right") - 1
        cuts = cuts[run_starts(cuts)]  # sorted already; np.unique would import numpy.ma (15 ms)
        for first, stop in zip(cuts, [*cuts[1:], len(rows)]):
            low, high = starts[first], self.indptr[rows[stop - 1] + 1]
            picked = by_feature[self.indices[low:high]]
            picked *= self.data[low:high, None]
            out[rows[first:stop]] = np.add.reduceat(picked, starts[first:stop] - low, axis=0)
        return out

    def column_sums_by(self, groups: np.ndarray, n_groups: int, row_weights: np.ndarray) -> np.ndarray:
        """Weighted column sums per group of rows: a (n_groups, n_features) array."""
        rows = self.row_ids()
        flat = groups[rows] * self.n_features + self.indices
        return np.bincount(
            flat, weights=self.data * row_weights[rows], minlength=n_groups * self.n_features
        ).reshape(n_groups, self.n_features)

    def to_scipy(self):
        """The same matrix as ``scipy.sparse.csr_matrix`` (imports scipy)."""
        from scipy.sparse import csr_matrix

        return csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)


@dataclass(frozen=True)
class ColumnBlocks:
    """The values of a CountMatrix grouped by blocks of ``width`` columns, and in row order
    inside a block, for ``dot_by_feature`` with weights made a block at a time: each block's
    weight rows are still in the CPU cache when its values pick them up, where weights made
    for all the columns are written out and read back from memory (one 20news fold's 3,775
    test posts over 253,101 columns, 20 classes: weights and product in 44 ms against 67 ms).
    Where each row's values are in column order, as ``count_matrix`` makes them, a row's
    products are added in the same order and the sums are dot_by_feature's, to the bit;
    ``of`` gives None for any other matrix, and where the compiled product is missing.

    >>> X = CountMatrix.coerce([[1, 0, 2], [0, 3, 4]])
    >>> weights = np.arange(6.0).reshape(3, 2)
    >>> blocks = ColumnBlocks.of(X, width=2)
    >>> by_block = blocks.dot(X.data[blocks.order], [weights[:2], weights[2:]], 2)
    >>> by_block.tolist() == X.dot_by_feature(weights).tolist() == [[8.0, 11.0], [22.0, 29.0]]
    True
    """

    n_rows: int
    width: int
    #: Where each of the matrix's values goes: ``data[order]`` is in block order.
    order: np.ndarray
    #: Each value's column inside its block.
    indices: np.ndarray
    #: The runs of one row's values inside a block: the row, the first value, one past the last.
    run_row: np.ndarray
    run_start: np.ndarray
    run_end: np.ndarray
    #: The runs of block b are ``block_runs[b]`` to ``block_runs[b + 1]``.
    block_runs: np.ndarray

    @classmethod
    def of(cls, matrix: CountMatrix, width: int) -> ColumnBlocks | None:
        """The blocks of ``matrix``, or None (see above)."""
        if _sparsedot is None:
            return None
        rows = matrix.row_ids()
        if np.any((rows[1:] == rows[:-1]) & (matrix.indices[1:] <= matrix.indices[:-1])):
            return None  # a row's values out of column order
        block = matrix.indices.astype(np.int64) // width
        n_blocks = -(-matrix.n_features // width)
        # Stable, so each block keeps the rows' order and each row its values' (a radix sort
        # where the block numbers fit 16 bits).
        order = np.argsort(block.astype(np.uint16) if n_blocks <= 1 << 16 else block, kind="stable")
        rows = rows[order]
        block = block[order]
        starts = np.flatnonzero(run_starts(block * matrix.shape[0] + rows))
        ends = np.append(starts[1:], len(order))
        return cls(matrix.shape[0], width, order, matrix.indices[order] - block * width, rows[starts], starts, ends,
                   np.searchsorted(block[starts], np.arange(n_blocks + 1)))

    def dot(self, data: np.ndarray, by_feature_blocks: Iterable[np.ndarray], k: int) -> np.ndarray:
        """``dot_by_feature`` of the matrix, its values given in block order (``data[order]``
        of its own, or of a matrix with the same entries), and the weights as rows of
        ``width`` features (the last block fewer), one block after another."""
        out = np.zeros((self.n_rows, k))
        if not k:
            return out
        started = np.zeros(self.n_rows, dtype=np.uint8)
        data = np.ascontiguousarray(data, dtype=np.float64)
        rows = np.empty(self.width * k)  # each block's weights in C order, in one buffer
        for block, by_feature in enumerate(by_feature_blocks):
            runs = slice(self.block_runs[block], self.block_runs[block + 1])
            contiguous = rows[:by_feature.size].reshape(by_feature.shape)
            np.copyto(contiguous, by_feature)
            _sparsedot.dot_runs(self.run_row[runs], self.run_start[runs], self.run_end[runs], self.indices, data,
                                contiguous, k, out, started)
        return out


#: Stored values per block of ``CountMatrix.dot``: its picked weights stay within a CPU cache.
DOT_BLOCK = 8192


def segment_entries(indptr: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lengths of the compressed rows (or columns) ``which`` of ``indptr``, and the
    positions of their entries, one segment after another.

    >>> [a.tolist() for a in segment_entries(np.array([0, 2, 2, 5]), np.array([2, 0]))]
    [[3, 2], [2, 3, 4, 0, 1]]
    """
    starts = indptr[which]
    lengths = indptr[which + 1] - starts
    firsts = np.cumsum(lengths) - lengths
    return lengths, np.repeat(starts - firsts, lengths) + np.arange(lengths.sum())


def _indptr(rows: np.ndarray, n_rows: int) -> np.ndarray:
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    return indptr


#: Transformed counts are rounded to multiples of 2**-GRID_BITS before they are summed: sums of
#: such numbers are exact in float64 (up to 2**(53 - GRID_BITS) per entry), so adding and
#: removing documents, or summing shards in any order, gives the same bits every time.
GRID_BITS = 24


def on_grid(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to the nearest multiple of 2**-GRID_BITS (a change of at most 3e-8,
    next to weights that are 1e-3 or more for any document under a million words).

    >>> on_grid(np.array([0.1])).tolist(), float(on_grid(np.array([0.1]))[0] * 2**GRID_BITS)
    ([0.10000002384185791], 1677722.0)
    """
    return np.ldexp(np.rint(np.ldexp(values, GRID_BITS)), -GRID_BITS)


TF_MODES = ("raw", "binary", "log")
DOC_NORMS = (None, "l2")


def weigh_rows(matrix: CountMatrix, *, tf: str = "raw", doc_norm: str | None = None,
               column_weights: np.ndarray | None = None) -> CountMatrix:
    """Rennie et al.'s document transforms: term frequency (raw counts, presence, or
    ``log(1 + count)``), then length normalisation (``l2``), then per-column weights (IDF).

    >>> m = CountMatrix.coerce([[3, 0, 4], [0, 0, 0]])
    >>> weigh_rows(m, doc_norm="l2").to_scipy().toarray().tolist()
    [[0.6, 0.0, 0.8], [0.0, 0.0, 0.0]]
    >>> weigh_rows(m, tf="binary", column_weights=np.array([1.0, 2.0, 3.0])).to_scipy().toarray().tolist()
    [[1.0, 0.0, 3.0], [0.0, 0.0, 0.0]]
    """
    if tf not in TF_MODES:
        raise DataError(f"unknown term-frequency mode {tf!r}; use one of {TF_MODES}")
    if doc_norm not in DOC_NORMS:
        raise DataError(f"unknown document norm {doc_norm!r}; use l2 or none")
    data = matrix.binarized().data if tf == "binary" else matrix.data
    if tf == "log":
        data = np.log1p(data)
    if doc_norm == "l2":
        rows = matrix.row_ids()
        norms = np.sqrt(np.bincount(rows, weights=data * data, minlength=matrix.shape[0]))
        norms[norms == 0] = 1.0
        data = data / norms[rows]
    if column_weights is not None:
        data = data * column_weights[matrix.indices]
    return CountMatrix(matrix.indptr, matrix.indices, data, matrix.n_features)


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


def _check_label_kinds(classes: Sequence[Any]) -> None:
    """A TypeError where some class labels are strings and others not: they cannot be sorted
    into one list of classes (``labels_of`` names the document where one batch mixes them;
    this catches a batch whose labels are all of the other kind)."""
    first = classes[0]
    other = next((label for label in classes if isinstance(label, str) is not isinstance(first, str)), None)
    if other is not None:
        raise TypeError(f"class label {other!r} is {type(other).__name__}, where {first!r} is "
                        f"{type(first).__name__}: labels must be all strings or none")


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


def count_matrix(rows: np.ndarray, ids: np.ndarray, n_docs: int, n_columns: int) -> CountMatrix:
    """The CountMatrix of feature occurrences (row ``rows[i]``, column ``ids[i]``): one sort
    of (row, column) keys (``np.unique`` with counts, without its slower hashing)."""
    return _summed(rows * max(n_columns, 1) + ids, None, n_docs, n_columns)


def _summed(keys: np.ndarray, values: np.ndarray | None, n_docs: int, n_columns: int) -> CountMatrix:
    """The CountMatrix whose entry (row, column) is the sum of the ``values`` (each 1 where
    there are none) of the ``keys`` ``row * max(n_columns, 1) + column`` equal to it."""
    width = max(n_columns, 1)
    if values is None:
        keys = np.sort(keys)
        firsts = np.flatnonzero(run_starts(keys))
        sums = np.diff(firsts, append=len(keys)).astype(np.float64)
    else:
        order = np.argsort(keys)
        keys = keys[order]
        firsts = np.flatnonzero(run_starts(keys))
        sums = np.add.reduceat(values[order], firsts) if len(firsts) else np.zeros(0)
    keys = keys[firsts]
    return CountMatrix(_indptr(keys // width, n_docs), keys % width, sums, n_columns)


def used_columns(indices: np.ndarray, n_columns: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct columns among ``indices`` (sorted), and each index as a position among them:
    ``np.unique(indices, return_inverse=True)``, by a mask over the columns, with no sort,
    unless they are more than four times as many as the indices. (A mask over every column for
    each batch grew with the vocabulary: training word trigrams on 300,000 short lines spent
    5.6 s of 24 in it, in a profile, where sorting each batch's indices takes milliseconds.)

    >>> [a.tolist() for a in used_columns(np.array([5, 2, 5, 7]), 8)]
    [[2, 5, 7], [1, 0, 1, 2]]
    """
    if n_columns > 4 * len(indices):
        return np.unique(indices, return_inverse=True)
    in_use = np.zeros(n_columns, dtype=bool)
    in_use[indices] = True
    return np.flatnonzero(in_use), (np.cumsum(in_use) - 1)[indices]


def unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` by a stable sort: the keys merged here are
    mostly sorted runs laid end to end (totals and a batch, or one model's entries and
    another's), which a stable sort takes in one pass; np.unique's quicksort does not see
    them (0.05 s against 0.42 s for 3 million keys in two runs, and no slower for keys in
    no order).

    >>> [a.tolist() for a in unique_inverse(np.array([5, 2, 5, 7]))]
    [[2, 5, 7], [1, 0, 1, 2]]
    """
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = run_starts(ordered)
    where = np.empty(len(keys), dtype=np.int64)
    where[order] = np.cumsum(starts) - 1
    return ordered[starts], where


def run_starts(ordered: np.ndarray) -> np.ndarray:
    """A mask of where each run of equal values in the sorted ``ordered`` begins.

    >>> run_starts(np.array([3, 3, 5, 7, 7])).tolist()
    [True, False, True, True, False]
    """
    starts = np.ones(len(ordered), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    return starts


class ClassCounts:
    """Per-class sums over a stream of documents: the sufficient statistics of every NB variant.

    ``term_counts[c, t]`` is how often term t occurs in documents of class c, ``doc_freq[c, t]``
    in how many of them it occurs, ``class_docs[c]`` how many documents class c has. All three
    are plain sums, so ``a.merge(b)`` equals counting a's and b's documents in one run.

    Examples
    --------
    >>> counts = ClassCounts()
    >>> counts.add([["buy", "buy", "now"], ["hello"]], ["spam", "ham"])
    >>> sorted(counts.vocabulary), counts.classes
    (['buy', 'hello', 'now'], ['spam', 'ham'])
    >>> counts.finalized().term_counts.tolist()
    [[0.0, 1.0, 0.0], [2.0, 0.0, 1.0]]
    """

    #: Entries are kept sparsely, keyed ``term * CLASS_KEYS + class``: terms major, so that
    #: sorted keys are in the (term, class) order of FrozenCounts.
    CLASS_KEYS = 1 << 20
    #: Batches' entries held apart before they are added to the totals (at least).
    FOLD_ENTRIES = 1 << 20

    def __init__(self, *, tf: str = "raw", doc_norm: str | None = None, vocabulary: Any = None,
                 also: Iterable[tuple[str, str | None]] = ()) -> None:
        for weighting in ((tf, doc_norm), *also):  # validates each
            weigh_rows(CountMatrix.coerce(np.zeros((0, 0))), tf=weighting[0], doc_norm=weighting[1])
        self.tf, self.doc_norm = tf, doc_norm
        # Other weightings summed in the same pass (a search's), each under its own name, for
        # FrozenCounts.weighed_as: what counting again with them would give, bit for bit.
        self._also = {_weighed_name(*weighting): weighting for weighting in also
                      if _transforms(*weighting) and weighting != (tf, doc_norm)}
        # Term -> column: a GrowingVocabulary, or a vectorizer's own (see Vectorizer.vocabulary);
        # either has ``sorted_terms()``.
        self.vocabulary = GrowingVocabulary() if vocabulary is None else vocabulary
        self.label_ids: dict[str, int] = {}
        # The sums so far as sorted, distinct keys and their values, and the batches' sums not
        # yet added to them (each sorted and distinct on its own).
        names = ("term_counts", "doc_freq", *(["weighted"] if self.weighted else []), *self._also)
        self._totals: tuple[np.ndarray, dict[str, np.ndarray]] = (np.zeros(0, dtype=np.int64),
                                                                  {name: np.zeros(0) for name in names})
        self._pending: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []
        self._pending_entries = 0
        self._class_docs = np.zeros(0)

    @property
    def weighted(self) -> bool:
        """Whether documents are transformed before summing (else raw counts or presence do)."""
        return _transforms(self.tf, self.doc_norm)

    @property
    def classes(self) -> list[str]:
        return list(self.label_ids)

    def add(self, feature_lists: Sequence[Sequence[str]], labels: Iterable[str]) -> None:
        """Count a batch of documents (their features) with their labels."""
        self.add_counts(count_features(feature_lists, self.vocabulary), labels)

    def add_counts(self, matrix: CountMatrix, labels: Iterable[str]) -> None:
        """Add a batch of documents counted against ``self.vocabulary``, with their labels."""
        known = len(self.label_ids)
        y = np.fromiter(
            (self.label_ids.setdefault(label, len(self.label_ids)) for label in labels),
            dtype=np.int64, count=matrix.shape[0],
        )
        if len(self.label_ids) > known:
            _check_label_kinds(self.classes)
        if len(self.label_ids) > self.CLASS_KEYS:
            raise DataError(f"more than {self.CLASS_KEYS:,} classes")
        docs = np.bincount(y, minlength=len(self.label_ids)).astype(float)
        docs[:len(self._class_docs)] += self._class_docs
        self._class_docs = docs
        # The batch's sums over only the terms and classes it has, dense: a bincount, no sort.
        columns, local_column = used_columns(matrix.indices, len(self.vocabulary))
        batch_classes, local_class = np.unique(y, return_inverse=True)
        width = len(batch_classes)
        cell = local_column * width + local_class[matrix.row_ids()]
        size = len(columns) * width
        sums = {"term_counts": np.bincount(cell, weights=matrix.data, minlength=size),
                "doc_freq": np.bincount(cell, minlength=size).astype(float)}
        weightings = {"weighted": (self.tf, self.doc_norm)} if self.weighted else {}
        for name, (tf, doc_norm) in {**weightings, **self._also}.items():
            weighed = weigh_rows(matrix, tf=tf, doc_norm=doc_norm)
            sums[name] = np.bincount(cell, weights=on_grid(weighed.data), minlength=size)
        present = np.flatnonzero(sums["doc_freq"])
        keys = columns[present // width] * self.CLASS_KEYS + batch_classes[present % width]
        self._pending.append((keys, {name: values[present] for name, values in sums.items()}))
        self._pending_entries += len(keys)
        # Folding the batches in when they outnumber the totals keeps the work of folding in
        # proportion to the entries added, and memory within about twice the totals.
        if self._pending_entries > max(len(self._totals[0]), self.FOLD_ENTRIES):
            self._fold_pending()

    def _fold_pending(self) -> None:
        parts = [self._totals, *self._pending]
        keys, where = unique_inverse(np.concatenate([keys for keys, _ in parts]))
        self._totals = (keys, {name: np.bincount(where, weights=np.concatenate([v[name] for _, v in parts]),
                                                 minlength=len(keys))
                               for name in self._totals[1]})
        self._pending, self._pending_entries = [], 0

    def finalized(self) -> FrozenCounts:
        """The counts so far, with terms and classes in sorted order."""
        return self.finalized_with_columns()[0]

    def finalized_with_columns(self) -> tuple[FrozenCounts, np.ndarray]:
        """``finalized()``, and the frozen counts' column of each column of ``self.vocabulary``
        (every term it holds has one): what turns documents counted against the vocabulary into
        counts over the frozen terms."""
        self._fold_pending()
        keys, values = self._totals
        term_index, class_index = keys // self.CLASS_KEYS, keys % self.CLASS_KEYS
        terms, term_map = self.vocabulary.sorted_terms()
        classes, (class_map,) = sorted_union(self.classes)
        frozen = _combine(terms, classes, [(term_map[term_index], class_map[class_index], values)], self._class_docs,
                          class_map, self.tf, self.doc_norm)
        return frozen, term_map


#: Where --max-df keeps fewer documents than --min-df, whatever the counts.
DF_CONFLICT = "--max-df keeps fewer documents than --min-df; raise --max-df or lower --min-df"


@dataclass(frozen=True)
class FrozenCounts:
    """Finished per-class sums (see ClassCounts), the form kept in a model file.

    Stored sparsely, one entry per (class, term) that occurs: most terms occur in few classes,
    so this is several times smaller than the dense matrices, and a model can keep the counts
    of every term it saw (for merging and re-pruning) and still load fast.
    """

    terms: list[str]
    classes: list[str]
    class_index: np.ndarray
    term_index: np.ndarray
    #: ``term_counts``, ``doc_freq`` and, when documents were transformed, ``weighted``: one
    #: value per entry.
    values: dict[str, np.ndarray]
    class_docs: np.ndarray
    tf: str = "raw"
    doc_norm: str | None = None

    def dense(self, name: str) -> np.ndarray:
        """The whole (classes x terms) matrix of one statistic; for small data and tests."""
        return np.asarray(self.columns(name, np.arange(len(self.terms))))

    def columns(self, name: str, columns: np.ndarray, column_weights: np.ndarray | None = None) -> ColumnMatrix:
        """One statistic over some terms (in order), times ``column_weights``, as a ColumnMatrix."""
        position = np.full(len(self.terms), -1, dtype=np.int64)
        position[columns] = np.arange(len(columns))
        where = position[self.term_index]
        keep = where >= 0
        where, values = where[keep], self.values[name][keep]
        if column_weights is not None:
            values = values * column_weights[where]
        indptr = np.zeros(len(columns) + 1, dtype=np.int64)
        np.cumsum(np.bincount(where, minlength=len(columns)), out=indptr[1:])
        return ColumnMatrix(indptr, self.class_index[keep].astype(np.int32), values, len(self.classes))

    @property
    def term_counts(self) -> np.ndarray:
        """Dense (classes x terms) occurrences; for small data and tests."""
        return self.dense("term_counts")

    @property
    def doc_freq(self) -> np.ndarray:
        """Dense (classes x terms) document frequencies; for small data and tests."""
        return self.dense("doc_freq")

    def statistic_name(self) -> str:
        """Which sums hold the documents as transformed by ``tf`` and ``doc_norm``."""
        if "weighted" in self.values:
            return "weighted"
        return "doc_freq" if self.tf == "binary" else "term_counts"

    def weighed_as(self, tf: str, doc_norm: str | None) -> FrozenCounts:
        """These counts as counting the documents with ``tf`` and ``doc_norm`` gives them, where
        that weighting was summed too (``ClassCounts(also=...)``), with no other weighting's."""
        own = (tf, doc_norm) == (self.tf, self.doc_norm)
        name = "weighted" if own else _weighed_name(tf, doc_norm)
        if _transforms(tf, doc_norm) and name not in self.values:
            raise ValueError(f"these counts were not weighed with tf={tf}, doc_norm={doc_norm}")
        values = {key: self.values[key] for key in ("term_counts", "doc_freq")}
        if _transforms(tf, doc_norm):
            values["weighted"] = self.values[name]
        return dataclasses.replace(self, values=values, tf=tf, doc_norm=doc_norm)

    def _per_term(self, name: str) -> np.ndarray:
        return np.bincount(self.term_index, weights=self.values[name], minlength=len(self.terms))

    def documents_per_term(self) -> np.ndarray:
        """How many documents each term is in, over all classes."""
        return self._per_term("doc_freq")

    def idf(self) -> np.ndarray:
        """Smoothed inverse document frequency of each term, ``log((1 + n) / (1 + df)) + 1``."""
        n_docs = self.class_docs.sum()
        return np.log((1.0 + n_docs) / (1.0 + self.documents_per_term())) + 1.0

    def merge(self, other: FrozenCounts) -> FrozenCounts:
        """Counts of both runs together, as if all their documents had been counted at once."""
        if (self.tf, self.doc_norm) != (other.tf, other.doc_norm):
            raise DataError(
                f"cannot add counts weighted differently: tf={self.tf}, doc_norm={self.doc_norm} "
                f"vs tf={other.tf}, doc_norm={other.doc_norm}"
            )
        terms, term_maps = sorted_union(self.terms, other.terms)
        classes, class_maps = sorted_union(self.classes, other.classes)
        parts, class_docs = [], np.zeros(len(classes))
        for part, term_map, class_map in zip((self, other), term_maps, class_maps):
            parts.append((term_map[part.term_index], class_map[part.class_index], part.values))
            np.add.at(class_docs, class_map, part.class_docs)
        return _combine(terms, classes, parts, class_docs, None, self.tf, self.doc_norm)

    def regrouped(self, class_map: np.ndarray, classes: list[str]) -> FrozenCounts:
        """The counts with classes merged or dropped: old class i counts as ``classes[class_map[i]]``,
        or not at all where ``class_map[i]`` is -1. Terms left without entries are dropped.

        ``classes`` must be sorted. Cross-validation counts each (class, fold) once and builds
        every fold's training counts from them this way, with no string work.
        """
        keep = class_map[self.class_index] >= 0
        present, renumbered = used_columns(self.term_index[keep], len(self.terms))
        class_docs = np.zeros(len(classes))
        counted = class_map >= 0
        np.add.at(class_docs, class_map[counted], self.class_docs[counted])
        values = {name: v[keep] for name, v in self.values.items()}
        every_term = len(present) == len(self.terms)
        every = self.terms.unpacked() if isinstance(self.terms, PackedTerms) else self.terms  # no call a term
        terms = list(every) if every_term else list(map(every.__getitem__, present.tolist()))
        return _combine(terms, classes,
                        [(renumbered, class_map[self.class_index[keep]], values)],
                        class_docs, None, self.tf, self.doc_norm)

    def subtract(self, other: FrozenCounts) -> FrozenCounts:
        """These counts without ``other``'s documents: exactly the counts before they were
        merged in (terms and classes that only ``other`` brought are dropped again).

        Raises DataError when ``other`` holds documents these counts do not: unlearning a
        message that was never learned would leave negative counts.
        """
        negated = dataclasses.replace(other, values={name: -v for name, v in other.values.items()},
                                      class_docs=-other.class_docs)
        total = self.merge(negated)
        if (total.class_docs < 0).any() or any((v < 0).any() for v in total.values.values()):
            raise NotLearnedError("these documents were never learned (removing them would leave negative counts)")
        occurs = total.values["doc_freq"] > 0
        if any((v[~occurs] != 0).any() for v in total.values.values()):
            raise NotLearnedError("these documents were never learned (their counts do not match the model's)")
        used_terms = np.unique(total.term_index[occurs])
        used_classes = np.flatnonzero((total.class_docs > 0) | np.isin(np.arange(len(total.classes)),
                                                                          total.class_index[occurs]))
        term_map = np.full(len(total.terms), -1, dtype=np.int64)
        term_map[used_terms] = np.arange(len(used_terms))
        class_map = np.full(len(total.classes), -1, dtype=np.int64)
        class_map[used_classes] = np.arange(len(used_classes))
        return FrozenCounts(
            [total.terms[i] for i in used_terms], [total.classes[i] for i in used_classes],
            class_map[total.class_index[occurs]], term_map[total.term_index[occurs]],
            {name: v[occurs] for name, v in total.values.items()}, total.class_docs[used_classes],
            self.tf, self.doc_norm,
        )

    def keep_terms(self, min_df: float = 1, max_df: float = 1.0, max_features: int | None = None) -> np.ndarray:
        """Indices of the terms that survive document-frequency pruning, in term order.

        ``min_df``/``max_df`` are document counts when integers and proportions of the documents
        when floats, as in scikit-learn; ``max_features`` then keeps the most frequent terms
        (ties broken by term order, so the result is deterministic). None may survive, as where
        ``min_df`` asks for more documents than there are: a search's fold can score such a
        setting (by the priors alone); a trained model may not (``train``).
        """
        n_docs = float(self.class_docs.sum())
        df = self.documents_per_term()
        low = min_df if isinstance(min_df, (int, np.integer)) else min_df * n_docs
        high = max_df if isinstance(max_df, (int, np.integer)) else max_df * n_docs
        if high < low and high < n_docs:  # max_df restricts, and leaves nothing min_df allows
            raise DataError(DF_CONFLICT)
        kept = np.flatnonzero((df >= low) & (df <= high))
        if max_features is not None and len(kept) > max_features:
            frequency = self._per_term("term_counts")[kept]
            kept = np.sort(kept[np.argsort(-frequency, kind="stable")[:max_features]])
        return kept

    def to_dict(self) -> dict[str, Any]:
        """Plain data and arrays (see ``pack_terms``)."""
        return {
            "terms": pack_terms(self.terms),
            "n_terms": len(self.terms),
            "classes": list(self.classes),
            "class_index": self.class_index.astype(np.int32),
            "term_index": self.term_index.astype(np.int32),
            "values": dict(self.values),
            "class_docs": self.class_docs,
            "tf": self.tf,
            "doc_norm": self.doc_norm,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FrozenCounts:
        """The inverse of ``to_dict``; a ValueError naming the part of ``data`` that is not what
        ``to_dict`` writes (a damaged model file): the wrong keys, types, shapes or lengths,
        indices out of range, or values no count can have."""
        checked(isinstance(data, dict) and set(data) == _COUNTS_KEYS, "counts", f"the keys {sorted(_COUNTS_KEYS)}")
        n_terms, classes = data["n_terms"], data["classes"]
        checked(type(n_terms) is int and n_terms >= 0, "counts.n_terms", "a count")
        checked(isinstance(classes, list) and all(isinstance(c, str) for c in classes) and len(set(classes)) ==
                len(classes), "counts.classes", "a list of distinct labels")
        terms = PackedTerms.stored(data["terms"], n_terms, None, "counts.terms")
        entries = array_of(data["class_index"], "counts.class_index", np.int32)
        indices_within(entries, len(classes), "counts.class_index")
        indices_within(array_of(data["term_index"], "counts.term_index", np.int32, len(entries)), n_terms,
                       "counts.term_index")
        values = data["values"]
        checked(isinstance(values, dict) and {"term_counts", "doc_freq"} <= set(values) <= {"term_counts", "doc_freq",
                                                                                          "weighted"},
                "counts.values", "term_counts, doc_freq and maybe weighted")
        for name, column in values.items():
            counts_in(array_of(column, f"counts.values.{name}", np.float64, len(entries)), f"counts.values.{name}")
        counts_in(array_of(data["class_docs"], "counts.class_docs", np.float64, len(classes)), "counts.class_docs")
        checked(data["tf"] in TF_MODES and data["doc_norm"] in DOC_NORMS, "counts.tf and counts.doc_norm",
                f"one of {TF_MODES} and of {DOC_NORMS}")
        rest = {key: value for key, value in data.items() if key != "n_terms"}
        return cls(**{**rest, "terms": terms})


class ColumnMatrix:
    """A classes x terms matrix stored column by column (CSC) that hands out dense blocks.

    It is what a core needs to weigh the few words of a batch (``m[:, columns]``) and its
    per-class and per-term totals (``m.sum(axis)``), without densifying a bigram vocabulary,
    which on a fresh process costs more than everything else together.
    """

    ndim = 2
    dtype = np.dtype(np.float64)

    def __init__(self, indptr: np.ndarray, rows: np.ndarray, values: np.ndarray, n_rows: int,
                 row_sums: np.ndarray | None = None) -> None:
        self.indptr, self.rows, self.values = indptr, rows, values
        self.shape = (n_rows, len(indptr) - 1)
        self._row_sums = row_sums  # kept in the model file: a fresh process need not pass over every entry

    def _columns_of_entries(self) -> np.ndarray:
        return np.repeat(np.arange(self.shape[1]), np.diff(self.indptr))

    def sum(self, axis: int | None = None) -> np.ndarray | float:
        if axis is None:
            return float(self.values.sum())
        if axis == 0:
            return np.bincount(self._columns_of_entries(), weights=self.values, minlength=self.shape[1])
        if self._row_sums is None:
            self._row_sums = np.bincount(self.rows, weights=self.values, minlength=self.shape[0])
        return self._row_sums.copy()

    def __getitem__(self, key: tuple) -> np.ndarray:
        rows, columns = key
        if rows != slice(None):
            raise IndexError("ColumnMatrix hands out whole columns: m[:, columns]")
        columns = np.arange(self.shape[1])[columns] if isinstance(columns, slice) else np.asarray(columns)
        lengths, entries = segment_entries(self.indptr, columns)
        out = np.zeros((self.shape[0], len(columns)))
        out[self.rows[entries], np.repeat(np.arange(len(columns)), lengths)] = self.values[entries]
        return out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        dense = self[:, :]
        return dense if dtype is None else dense.astype(dtype)

    def to_dict(self) -> dict[str, Any]:
        return {"indptr": self.indptr, "rows": self.rows, "values": self.values, "n_rows": self.shape[0],
                "row_sums": self.sum(axis=1)}

    @classmethod
    def from_dict(cls, data: dict[str, Any], name: str = "matrix") -> ColumnMatrix:
        """The inverse of ``to_dict``; a ValueError, naming the matrix ``name``, where ``data``
        is not what ``to_dict`` writes."""
        checked(isinstance(data, dict) and {"indptr", "rows", "values", "n_rows"} <= set(data) <=
                {"indptr", "rows", "values", "n_rows", "row_sums"}, name, "indptr, rows, values, n_rows, row_sums")
        n_rows = data["n_rows"]
        checked(type(n_rows) is int and n_rows >= 0, f"{name}.n_rows", "a count")
        indptr = array_of(data["indptr"], f"{name}.indptr", np.int64)
        rows = array_of(data["rows"], f"{name}.rows", (np.int32, np.int64))
        checked(len(indptr) >= 1 and indptr[0] == 0 and indptr[-1] == len(rows) and bool(np.all(np.diff(indptr) >= 0)),
                f"{name}.indptr", f"offsets from 0 to the {len(rows)} entries, in order")
        indices_within(rows, n_rows, f"{name}.rows")
        values = array_of(data["values"], f"{name}.values", np.float64, len(rows))
        checked(bool(np.isfinite(values).all()), f"{name}.values", "finite numbers")
        row_sums = data.get("row_sums")
        if row_sums is not None:
            checked(bool(np.isfinite(array_of(row_sums, f"{name}.row_sums", np.float64, n_rows)).all()),
                    f"{name}.row_sums", "finite numbers")
        return cls(indptr, rows, values, n_rows, row_sums)


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


#: What ``FrozenCounts.to_dict`` writes.
_COUNTS_KEYS = {"terms", "n_terms", "classes", "class_index", "term_index", "values", "class_docs", "tf", "doc_norm"}


def checked(holds: bool, name: str, expected: str) -> None:
    """A ValueError where ``holds`` is false: part ``name`` of a model file is not ``expected``."""
    if not holds:
        raise ValueError(f"{name} is not {expected}")


def array_of(value: Any, name: str, dtype: Any, length: int | None = None) -> np.ndarray:
    """``value``, where it is a one-dimensional array of ``dtype`` (or one of several) and, if
    given, ``length``; else a ValueError naming ``name``."""
    dtypes = dtype if isinstance(dtype, tuple) else (dtype,)
    kinds = " or ".join(np.dtype(d).name for d in dtypes)
    # in either byte order: a model written on a big-endian machine holds its arrays so
    checked(isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.newbyteorder("=") in dtypes, name,
            f"a one-dimensional array of {kinds}")
    if length is not None:
        checked(len(value) == length, name, f"of length {length} (it has {len(value)})")
    return value


def indices_within(indices: np.ndarray, size: int, name: str) -> None:
    """A ValueError where ``indices`` (named ``name``) are not all positions of ``size`` things."""
    if len(indices):
        checked(int(indices.min()) >= 0 and int(indices.max()) < size, name, f"indices from 0 to {size - 1}")


def counts_in(values: np.ndarray, name: str) -> None:
    """A ValueError where ``values`` (named ``name``) are not what sums of documents give:
    finite and not negative."""
    checked(bool(np.isfinite(values).all()) and (not len(values) or float(values.min()) >= 0), name,
            "finite sums, none negative")


def _transforms(tf: str, doc_norm: str | None) -> bool:
    """Whether ``tf`` and ``doc_norm`` transform documents before summing (else raw counts or
    presence do)."""
    return (tf, doc_norm) not in (("raw", None), ("binary", None))


def _weighed_name(tf: str, doc_norm: str | None) -> str:
    """The name of a weighting's sums beside another's (``ClassCounts(also=...)``)."""
    return f"weighted tf={tf} doc_norm={doc_norm}"


def _combine(terms: list[str], classes: list[str], parts: list[tuple[np.ndarray, np.ndarray, dict]],
             class_docs: np.ndarray, class_map: np.ndarray | None, tf: str, doc_norm: str | None) -> FrozenCounts:
    """FrozenCounts from entries (term, class, values) that may repeat: repeats are summed and
    the entries sorted by term, then class."""
    if class_map is not None:
        reordered = np.zeros(len(classes))
        reordered[class_map] = class_docs
        class_docs = reordered
    term_index = np.concatenate([p[0] for p in parts]).astype(np.int64)
    class_index = np.concatenate([p[1] for p in parts]).astype(np.int64)
    keys, where = unique_inverse(term_index * max(len(classes), 1) + class_index)
    values = {}
    for name in parts[0][2]:
        column = np.concatenate([p[2][name] for p in parts])
        values[name] = np.bincount(where, weights=column, minlength=len(keys))
    width = max(len(classes), 1)
    return FrozenCounts(terms, classes, keys % width, keys // width, values, class_docs, tf, doc_norm)

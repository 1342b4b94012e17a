"""Sparse matrices, numpy only: ``CountMatrix`` (documents x features, CSR), ``ColumnMatrix``
(classes x terms by column, which hands out dense blocks of the columns a batch uses), and the
sparse-times-dense product that scores documents (compiled where a C compiler was found).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .checks import array_of, checked, indices_within

try:
    import nbtext._sparsedot as sparsedot  # compiled from its .c file beside it
except ImportError:  # built without a C compiler: numpy takes the product (the same to rounding)
    sparsedot = None


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
            _not_complex(csr.dtype)
            csr.sum_duplicates()
            return cls(
                csr.indptr.astype(np.int64), csr.indices.astype(np.int64),
                csr.data.astype(np.float64), csr.shape[1],
            )
        array = np.asarray(X)
        _not_complex(array.dtype)
        array = array.astype(np.float64, copy=False)
        if array.ndim != 2:
            raise ValueError(f"expected a 2-D matrix of counts, got {array.ndim} dimension(s). Reshape your data: "
                             "X.reshape(1, -1) for one document, X.reshape(-1, 1) for one feature")
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
        if sparsedot is not None and by_feature.shape[1]:
            arrays = [(self.indptr, np.int64), (self.indices, np.int64), (self.data, np.float64),
                      (by_feature, np.float64)]
            sparsedot.dot(*(np.ascontiguousarray(a, dtype=t) for a, t in arrays), by_feature.shape[1], out)
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
        if sparsedot is None:
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
            sparsedot.dot_runs(self.run_row[runs], self.run_start[runs], self.run_end[runs], self.indices, data,
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


def _not_complex(dtype: np.dtype) -> None:
    if dtype.kind == "c":  # numpy would drop the imaginary parts with a warning
        raise ValueError("Complex data not supported: counts are real numbers")


def _indptr(rows: np.ndarray, n_rows: int) -> np.ndarray:
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    return indptr


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
            # (as floats where there is nothing to sum: bincount gives integers then)
            self._row_sums = np.bincount(self.rows, weights=self.values, minlength=self.shape[0]).astype(np.float64)
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

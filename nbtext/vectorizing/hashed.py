"""Features hashed into buckets (``--hash-features``): any table's terms folded into their
buckets by CRC-32, computed for many terms at once."""

from __future__ import annotations

import threading
import zlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..analysis import Analyzer
from ..matrices import CountMatrix
from ..terms import PackedTerms, pack_terms
from .buffers import SortedMap, TokenClash, term_spans
from .paired import PairedTable, PairedVocabulary
from .words import TableColumns, WordTable, WordVocabulary


class BucketVocabulary(TableColumns):
    """The columns of a growing ``HashedTable``: buckets (terms ``#17``), each numbered when a
    batch first has it."""

    def __init__(self) -> None:
        self._columns = SortedMap()  # bucket -> column
        self._buckets: list[np.ndarray] = []  # the bucket of each column, in blocks

    def __len__(self) -> int:
        return sum(map(len, self._buckets)) if self._strings is None else len(self._strings)

    def columns(self, buckets: np.ndarray) -> np.ndarray:
        """The column of each of the distinct ``buckets``, new ones numbered next."""
        if self._strings is not None:
            return self._strings.ids(_bucket_terms(buckets))
        columns = self._columns.get(buckets)
        new = np.flatnonzero(columns < 0)
        if len(new):
            columns[new] = np.arange(len(self), len(self) + len(new))
            self._columns.add(buckets[new], columns[new])
            self._buckets.append(buckets[new])
        return columns

    def _table_terms(self) -> Sequence[str]:
        return _bucket_terms(np.concatenate([np.zeros(0, dtype=np.int64), *self._buckets]))

    def _table_sorted_terms(self) -> tuple[Sequence[str], np.ndarray]:
        return _sorted_bucket_terms(np.concatenate([np.zeros(0, dtype=np.int64), *self._buckets]))


class HashedTable:
    """Features hashed into buckets (``--hash-features``), counted by a table: a growing table
    of the same analyzer without hashing counts each batch, each of its new terms gets its
    bucket from its packed bytes (``crc32_of_terms``), and the counts of a document's terms
    that share a bucket are added up in its column: a ``BucketVocabulary``'s (growing) or a
    model's (fixed, ``for_terms``). No string is made for a term.

    So that memory stays bounded however many distinct terms the data have, the table is let go
    once it holds ``HASHED_TABLE_TERMS`` terms, and the next batch starts a new one. Each thread
    that counts has its own (a model's threads score blocks of one input side by side).
    """

    def __init__(self, analyzer: Analyzer, vocabulary: BucketVocabulary | None = None, *,
                 model_buckets: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Growing, with ``vocabulary``; fixed, with a model's (buckets, columns)."""
        assert analyzer.hash_features is not None
        self.analyzer, self.vocabulary = analyzer, vocabulary
        self._fixed = SortedMap()
        self._n_columns = 0
        if model_buckets is not None:
            self._fixed.add(*model_buckets)
            self._n_columns = len(model_buckets[0])
        self._finder = self._new_table()  # finds a batch's tokens, which depends on no batch before
        # Each thread's table, and the column of each of its terms (-1: none).
        self._counting = threading.local()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the threads' tables (a Dask worker pickles the model it scores with,
        to send it to another): each thread of the copy starts its own."""
        state = self.__dict__.copy()
        del state["_counting"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._counting = threading.local()

    @classmethod
    def for_terms(cls, analyzer: Analyzer, terms: Sequence[str]) -> HashedTable:
        """A fixed table whose columns are the positions of ``terms``, each a bucket (``#17``)."""
        assert analyzer.hash_features is not None
        buckets = _bucket_numbers(pack_terms(terms), len(terms))
        if (buckets >= analyzer.hash_features).any():
            raise TokenClash  # not terms this path makes: the plain path
        return cls(analyzer, model_buckets=(buckets, np.arange(len(terms))))

    def _new_table(self) -> WordTable | PairedTable:
        unhashed = without_hashing(self.analyzer)
        if unhashed.char_ngrams is not None:
            return PairedTable(unhashed, PairedVocabulary())
        return WordTable(unhashed, WordVocabulary())

    def count(self, texts: Sequence[str]) -> CountMatrix:
        """Documents x columns counts of ``texts``."""
        return self.count_tokens(self.tokens(texts))

    def tokens(self, texts: Sequence[str]) -> Any:
        """The tokens a table counts (see ``WordTable.tokens``)."""
        return self._finder.tokens(texts)

    def count_tokens(self, found: Any) -> CountMatrix:
        """The counts of the texts ``found`` was made from, by bucket."""
        counting = self._counting
        if getattr(counting, "table", None) is None or len(counting.column) > HASHED_TABLE_TERMS:
            counting.table, counting.column = self._new_table(), np.zeros(0, dtype=np.int64)
        try:
            matrix = counting.table.count_tokens(found)
        except TokenClash:  # a batch for the plain path; the table may have taken in part of it
            counting.table = None
            raise
        if matrix.n_features > len(counting.column):
            counting.column = np.concatenate([counting.column, self._columns_of_new_terms(counting.table,
                                                                                          len(counting.column))])
        n_columns = len(self.vocabulary) if self.vocabulary is not None else self._n_columns
        return matrix.summed_into(counting.column, n_columns)

    def _columns_of_new_terms(self, table: WordTable | PairedTable, known: int) -> np.ndarray:
        """The column of each term ``table`` took in after its first ``known``, by its bucket;
        a growing vocabulary numbers the buckets it lacks."""
        vocabulary = table.vocabulary
        assert vocabulary is not None
        parts = (zip((vocabulary.words, vocabulary.chars), vocabulary.columns())
                 if isinstance(vocabulary, PairedVocabulary) else [(vocabulary, np.arange(len(vocabulary)))])
        bucket = np.empty(len(vocabulary) - known, dtype=np.int64)
        for part, columns in parts:
            start = int(np.searchsorted(columns, known))  # a part's columns rise as batches add them
            bucket[columns[start:] - known] = crc32_of_terms(part.packed_from(start), len(columns) - start)
        distinct, inverse = np.unique(bucket % self.analyzer.hash_features, return_inverse=True)
        if self.vocabulary is not None:
            return self.vocabulary.columns(distinct)[inverse]
        return self._fixed.get(distinct)[inverse]


def without_hashing(analyzer: Analyzer) -> Analyzer:
    return replace(analyzer, hash_features=None)


def _bucket_terms(buckets: np.ndarray) -> list[str]:
    """Each bucket's term, as ``Analyzer`` writes it: ``#17``."""
    return list(map("#%d".__mod__, buckets.tolist()))


def _sorted_bucket_terms(buckets: np.ndarray) -> tuple[PackedTerms, np.ndarray]:
    """The terms of the distinct ``buckets`` (``#17``) in sorted order, packed, and each one's
    position among them, with no string made (a million of them held 40 MB more at the peak
    of training): ``#`` then the decimal digits, which sort as a key of one base-11 digit a
    place, 0 where a shorter number has none (so ``#1`` < ``#10`` < ``#2``).

    >>> terms, position = _sorted_bucket_terms(np.array([2, 10, 1, 0, 4294967295]))
    >>> list(terms), position.tolist()
    (['#0', '#1', '#10', '#2', '#4294967295'], [3, 2, 1, 0, 4])
    """
    n_digits = 1 + sum((buckets >= 10**k).astype(np.int64) for k in range(1, 10))
    digits = [np.where(n_digits > j, buckets // np.power(10, np.maximum(n_digits - 1 - j, 0)) % 10, -1)
              for j in range(10)]  # the j-th digit from the left, -1 past the last
    key = np.zeros(len(buckets), dtype=np.int64)
    for digit in digits:
        key = key * 11 + digit + 1
    order = np.argsort(key, kind="stable")
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    starts = np.cumsum(n_digits[order] + 2) - (n_digits[order] + 2)  # "#", the digits, a newline
    blob = np.full(int(starts[-1] + n_digits[order[-1]] + 2) if len(order) else 1, ord("\n"), dtype=np.uint8)
    blob[starts] = ord("#")
    for j, digit in enumerate(digits):
        inside = np.flatnonzero(n_digits[order] > j)
        blob[starts[inside] + 1 + j] = ord("0") + digit[order[inside]]
    return PackedTerms(blob[:-1], len(order)), position


def _bucket_numbers(blob: np.ndarray, n_terms: int) -> np.ndarray:
    """The bucket each of the ``n_terms`` terms packed in ``blob`` names, read with numpy (the
    inverse of ``_sorted_bucket_terms``; a model's million of them took 0.6 s to read one
    string at a time, where prediction builds its table); TokenClash unless every term is
    ``#`` and a number of at most ten digits written as ``_bucket_terms`` writes it.

    >>> _bucket_numbers(pack_terms(["#0", "#17", "#4294967295"]), 3).tolist()
    [0, 17, 4294967295]
    """
    starts, lengths = term_spans(blob, n_terms)
    n_digits = lengths - 1
    if ((n_digits < 1) | (n_digits > 10)).any() or (blob[starts] != ord("#")).any():
        raise TokenClash
    first_digit = blob[starts + 1] if n_terms else blob[:0]
    in_digits = np.ones(len(blob), dtype=bool)
    in_digits[starts] = False
    in_digits[blob == 10] = False  # the newlines between terms
    if ((blob[in_digits] < ord("0")) | (blob[in_digits] > ord("9"))).any() or (
            (first_digit == ord("0")) & (n_digits > 1)).any():
        raise TokenClash  # a byte that is no digit, or a leading zero
    buckets = np.zeros(n_terms, dtype=np.int64)
    for j in range(int(n_digits.max()) if n_terms else 0):
        going = np.flatnonzero(n_digits > j)
        buckets[going] = buckets[going] * 10 + (blob[starts[going] + 1 + j] - ord("0"))
    return buckets


def _crc_table() -> np.ndarray:
    """CRC-32's table (the reflected polynomial 0xEDB88320, as zlib's): the remainder of each byte."""
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0xEDB88320), table >> 1).astype(np.uint32)
    return table


_CRC_TABLE = _crc_table()


#: The terms a ``HashedTable``'s table holds before it is let go (about 50 bytes each).
HASHED_TABLE_TERMS = 1 << 20


#: Terms up to this many bytes get their CRC-32 from numpy, a byte position at a time across all
#: of them; a longer one (a rare run of base64, say) from zlib, alone.
CRC_ROUNDS = 64


def crc32_of_terms(blob: np.ndarray, n_terms: int) -> np.ndarray:
    """``zlib.crc32`` of each of the ``n_terms`` terms packed in ``blob`` (a newline between two),
    as int64: the hash ``--hash-features`` takes of a feature's UTF-8 bytes.

    >>> terms = ["cat", "the cat", ""]
    >>> crc32_of_terms(pack_terms(terms), 3).tolist() == [zlib.crc32(term.encode()) for term in terms]
    True
    """
    starts, lengths = term_spans(blob, n_terms)
    crc = np.zeros(n_terms, dtype=np.int64)
    short = np.flatnonzero(lengths <= CRC_ROUNDS)
    short = short[np.argsort(-lengths[short], kind="stable")]  # longest first: those still going are a prefix
    at, going = starts[short], lengths[short]
    state = np.full(len(short), 0xFFFFFFFF, dtype=np.uint32)
    for j in range(int(going[0]) if len(going) else 0):
        k = int(np.searchsorted(-going, -j))  # how many are longer than j bytes
        state[:k] = _CRC_TABLE[(state[:k] ^ blob[at[:k] + j]) & 0xFF] ^ (state[:k] >> 8)
    crc[short] = state ^ np.uint32(0xFFFFFFFF)
    for i in np.flatnonzero(lengths > CRC_ROUNDS).tolist():
        crc[i] = zlib.crc32(blob[starts[i]:starts[i] + lengths[i]].tobytes())
    return crc

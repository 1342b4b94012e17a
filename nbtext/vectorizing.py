"""Counting the word n-grams of a batch of documents with numpy: no Python object per token.

Making a string of every token and looking it up in a dict is where training and prediction
spent most of their time. Here a batch becomes one byte buffer; numpy finds the word runs in
it and gives each token a 64-bit key made from its UTF-8 bytes: the bytes themselves when
there are at most eight (exact), else a hash whose every occurrence is checked byte for byte
against the one token the key stands for. Strings are made once per distinct token and kept in
a ``WordTable``; bigrams are pairs of token numbers, so they need no hashing at all, and a
longer n-gram is the number of its first n - 1 words paired with its last word.

Where the compiled scanner (``_wordscan.c``) is built, it does a table's per-token work in C
instead, for training's growing tables and for models' fixed ones alike; numpy's path is the
fallback and the tests' oracle.

With the compiled scanner, ``char_wb`` takes this path too: each word's character n-grams
are the table's words, each counted alone (``scan_chars``), so no string is made for one.

Character n-grams beside words (``--char-ngrams``) are counted by two tables side by side
(``PairedTable``); hashed features (``--hash-features``) by any of these tables, whose terms
are then folded into their buckets (``HashedTable``).

The features and counts are exactly those of ``Analyzer`` + ``counting.count_features`` (the
tests hold the paths equal on real corpora); character n-grams without the compiled scanner,
which this path does not cover, keep the plain path.
Joined tokens are runs that go on through the joining bytes (``.``, ``@``, ``'``, ``-``),
trimmed of those at their ends. A batch in which two different tokens share a hash is
counted by the plain path too.
"""

from __future__ import annotations

import functools
import itertools
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .analysis import Analyzer, is_word_character
from .cores import run_ahead
from .counting import (CountMatrix, GrowingVocabulary, PackedTerms, count_features, count_matrix, pack_terms,
                       run_starts, sorted_union)

try:
    from . import _wordscan  # type: ignore[attr-defined]  # compiled, with no types for mypy to find
except ImportError:  # built without a C compiler: numpy finds a fixed table's words too
    _wordscan = None

#: Bytes that belong to a word: ASCII letters, digits and ``_``; every byte >= 128, because the
#: buffer's non-ASCII characters that are not word characters are blanked (``_blank_non_words``).
_WORD_BYTE = np.array([chr(i).isalnum() or chr(i) == "_" for i in range(128)] + [True] * 128, dtype=np.uint8)
#: Each byte's kind, by ``Analyzer.tokens``: 1 a word byte, 2 a byte that joins two word bytes
#: into one token (never at a token's ends), 0 neither.
BYTE_KINDS = {"words": _WORD_BYTE, "all-words": _WORD_BYTE,
              "joined": _WORD_BYTE + 2 * np.isin(np.arange(256), list(b".@'-")).astype(np.uint8)}
#: The fewest characters of a token, by ``Analyzer.tokens``: 1 or 2, and a run of 2 bytes or more
#: that is one character (``_UTF8_SIZE``) is one character.
SHORTEST = {"words": 2, "all-words": 1, "joined": 2}
#: The bytes of the UTF-8 character a byte begins: 2 to 4 for a lead byte, else 0 (ASCII bytes
#: and continuation bytes).
_UTF8_SIZE = np.array([0] * 192 + [2] * 32 + [3] * 16 + [4] * 8 + [0] * 8, dtype=np.int64)
#: MASK[n] keeps the first n bytes of a little-endian 64-bit word.
_MASK = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [2**64 - 1], dtype=np.uint64)
_PAD = 8
#: The byte that stands for NUL inside a character n-gram (NUL ends a word in the scanner's
#: tables): 0xFF, which UTF-8 never has; the compiled sort puts it first, where NUL sorts.
_NUL_IN_WORD = 0xFF
#: Capital sigma, which ``str.lower`` makes ς at the end of a word and σ elsewhere.
_SIGMA = "\u03a3"
_POSITION_BITS = 24
_HIGH_40 = np.uint64(2**64 - 2**_POSITION_BITS)
_NO_TOKEN = -1
#: Batches whose tokens are found ahead of the one being counted.
PREFETCH_BATCHES = 2
#: Slots a growing compiled table starts with, for words and for pairs (doubled when full).
GROWING_SLOTS = 1 << 16
#: Terms whose bytes ``WordTable.joined_terms`` gathers at a time (its index arrays are eight
#: bytes per byte gathered).
TERMS_PER_BLOCK = 1 << 16


def supports(analyzer: Analyzer) -> bool:
    """Whether this path gives ``analyzer``'s features: tokens (runs of word bytes, of any kind
    but marks) and their n-grams;
    or, with the compiled scanner, character n-grams inside words (``char_wb``), alone or
    beside words; each hashed or not."""
    if analyzer.hash_features is not None:
        return supports(_unhashed(analyzer))
    if analyzer.tokens not in BYTE_KINDS:  # marks, each a token of its own, which a run of bytes is not
        return False
    if analyzer.analyzer == "char_wb":
        return _wordscan is not None
    return analyzer.char_ngrams is None or _wordscan is not None


def fixed_table(analyzer: Analyzer, terms: Sequence[str]) -> AnyTable:
    """The table that counts a model's ``terms`` (its columns their positions), for an analyzer
    this path ``supports``."""
    if analyzer.hash_features is not None:
        return HashedTable.for_terms(analyzer, terms)
    if analyzer.char_ngrams is not None:
        return PairedTable.for_terms(analyzer, terms)
    return WordTable.for_terms(analyzer, terms)


class Vectorizer:
    """Texts -> counts against a growing ``vocabulary``, by this module's path where it covers
    ``analyzer`` and by ``Analyzer`` + ``count_features`` otherwise (the same counts).

    The vocabulary is a ``WordVocabulary`` on this module's path, else a ``GrowingVocabulary``.
    """

    def __init__(self, analyzer: Analyzer) -> None:
        self.analyzer = analyzer
        self.vocabulary: WordVocabulary | PairedVocabulary | BucketVocabulary | GrowingVocabulary
        self.table: AnyTable | None
        if supports(analyzer) and analyzer.hash_features is not None:
            self.vocabulary = BucketVocabulary()
            self.table = HashedTable(analyzer, self.vocabulary)
        elif supports(analyzer) and analyzer.char_ngrams is not None:
            self.vocabulary = PairedVocabulary()
            self.table = PairedTable(analyzer, self.vocabulary)
        elif supports(analyzer):
            self.vocabulary = WordVocabulary()
            self.table = WordTable(analyzer, self.vocabulary)
        else:
            self.vocabulary, self.table = GrowingVocabulary(), None

    def __call__(self, texts: Sequence[str]) -> CountMatrix:
        return self._counted(texts, None if self.table is None else functools.partial(self.table.tokens, texts))

    def counted(self, batches: Iterable[tuple[Sequence[str], Sequence[str]]], *, ahead: bool = True,
                ) -> Iterator[tuple[CountMatrix, Sequence[str]]]:
        """(counts, labels) of each batch of (texts, labels), in order, as ``__call__`` counts
        them. With the word table and ``ahead``, a second thread finds the next batches' tokens
        (numpy work, which lets other threads run) while this one reads documents and numbers
        tokens."""
        if self.table is None or not ahead:
            yield from ((self(texts), labels) for texts, labels in batches)
            return
        table = self.table
        found_ahead = run_ahead(batches, lambda batch: table.tokens(batch[0]), PREFETCH_BATCHES)
        for (texts, labels), found in found_ahead:
            yield self._counted(texts, found.result), labels

    def _counted(self, texts: Sequence[str], tokens: Callable[[], Any] | None) -> CountMatrix:
        """The counts of ``texts`` from their ``tokens()`` (what the table's ``tokens`` gives) by
        the table, or by the plain path where there is no table or two of the batch's tokens
        share a key."""
        if tokens is not None and self.table is not None:
            try:
                return self.table.count_tokens(tokens())
            except TokenClash:
                pass
        vocabulary = self.vocabulary
        if isinstance(vocabulary, PairedVocabulary):
            self.table = None  # its two tables cannot go on from terms kept as strings: plain from now on
        if isinstance(vocabulary, _TableColumns):
            vocabulary = vocabulary.as_strings()
        return count_features([self.analyzer(text) for text in texts], vocabulary)


class _TableColumns:
    """What the vocabularies of tables share: the columns kept as strings from the first batch
    counted the plain way (``as_strings``), the terms written out from the table otherwise."""

    _strings: GrowingVocabulary | None = None

    def __iter__(self) -> Iterator[str]:
        return iter(self.terms())

    def as_strings(self) -> GrowingVocabulary:
        """The columns as term -> column, kept as strings from now on."""
        if self._strings is None:
            self._strings = GrowingVocabulary(zip(self.terms(), itertools.count()))
        return self._strings

    def terms(self) -> Sequence[str]:
        """The terms in column order."""
        return self._table_terms() if self._strings is None else list(self._strings)

    def sorted_terms(self) -> tuple[Sequence[str], np.ndarray]:
        """The terms in sorted order, and each column's position among them."""
        return self._table_sorted_terms() if self._strings is None else self._strings.sorted_terms()

    def _table_terms(self) -> Sequence[str]:
        raise NotImplementedError

    def _table_sorted_terms(self) -> tuple[Sequence[str], np.ndarray]:
        raise NotImplementedError


class WordVocabulary(_TableColumns):
    """The columns of a growing ``WordTable``: each a word or an n-gram of words, kept as the
    table's token numbers rather than as a string, so that training makes no string per n-gram.

    The terms are written out once, at the end (``terms``, ``sorted_terms``), as packed UTF-8
    bytes. Sorting them compares only words: every byte of a word sorts after the space, so the
    pair "a b" sorts as the key (a, 1, b) and the word "a" as (a, 0): by first word, then a
    word alone before the n-grams it begins, then by second word, and so on.

    A batch counted the plain way (two of its words share a hash) looks terms up by string: from
    then on the columns are kept in a ``GrowingVocabulary`` (``as_strings``) and new ones join it
    as strings.
    """

    def __init__(self) -> None:
        self.table: WordTable  # the table whose token numbers these are; it sets itself here
        # Each column's token numbers, one a word of the term, in blocks of rows as long as
        # their longest term (padded with -1).
        self._words: list[np.ndarray] = []

    def __len__(self) -> int:
        return sum(map(len, self._words)) if self._strings is None else len(self._strings)

    def add(self, words: np.ndarray) -> np.ndarray:
        """Columns for terms not added before (distinct), given as rows of token numbers."""
        if self._strings is not None:
            return self._strings.ids(PackedTerms(self.table.joined_terms(words), len(words)).unpacked())
        start = len(self)
        self._words.append(words)
        return np.arange(start, start + len(words))

    def _table_terms(self) -> Sequence[str]:
        return PackedTerms(self.packed_from(0), len(self))

    def packed_from(self, start: int) -> np.ndarray:
        """The terms of the columns from ``start`` on, packed (a newline between two), from
        the table."""
        return self.table.joined_terms(self._codes()[start:])

    def _table_sorted_terms(self) -> tuple[Sequence[str], np.ndarray]:
        codes = self._codes()
        rank = self.table.word_ranks()
        keys = np.where(codes >= 0, rank[codes] + 1, 0)  # no word sorts before any word
        base = len(rank) + 1
        if base ** codes.shape[1] < 2**63:  # the keys as one number: one sort, not one a word
            combined = keys[:, 0]
            for j in range(1, codes.shape[1]):
                combined = combined * base + keys[:, j]
            order = np.argsort(combined)
        else:
            order = np.lexsort(keys.T[::-1])
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        return PackedTerms(self.table.joined_terms(codes[order]), len(order)), position

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The columns that are pairs of words, as ``first << 32 | second``, and the columns."""
        codes = self._codes()
        columns = np.flatnonzero((codes[:, 1] >= 0) & (codes[:, 2:] < 0).all(axis=1))
        return _pair_keys(codes[columns, 0], codes[columns, 1]), columns

    def _codes(self) -> np.ndarray:
        """The token numbers of every column: a row each, as long as the longest term."""
        if len(self._words) != 1 or self._words[0].shape[1] < 2:
            width = max([2, *(block.shape[1] for block in self._words)])
            self._words = [np.concatenate([np.zeros((0, width), dtype=np.int64)] + [
                np.pad(block, ((0, 0), (0, width - block.shape[1])), constant_values=_NO_TOKEN)
                for block in self._words])]
        return self._words[0]


class PairedVocabulary(_TableColumns):
    """The columns of a ``PairedTable``: its word table's and its character table's, numbered
    in one sequence as batches add them (a batch's new word columns first), so that each
    part's columns keep their order among all of them."""

    def __init__(self) -> None:
        self.words, self.chars = WordVocabulary(), WordVocabulary()
        self._maps = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)

    def __len__(self) -> int:
        return sum(map(len, self._maps)) if self._strings is None else len(self._strings)

    def columns(self) -> tuple[np.ndarray, np.ndarray]:
        """The column of each column of the word table's vocabulary and of the character
        table's, numbering those they took in since."""
        n = len(self)
        maps = []
        for part, known in zip((self.words, self.chars), self._maps):
            new = len(part) - len(known)
            maps.append(np.concatenate([known, np.arange(n, n + new)]) if new else known)
            n += new
        self._maps = maps[0], maps[1]
        return self._maps

    def _table_terms(self) -> Sequence[str]:
        terms: list[str] = [""] * len(self)
        for part, columns in zip((self.words, self.chars), self.columns()):
            for column, term in zip(columns.tolist(), part.terms()):
                terms[column] = term
        return terms

    def _table_sorted_terms(self) -> tuple[Sequence[str], np.ndarray]:
        """The words' that sort before ``[`` (no word has one), the character n-grams'
        (``[ab]``), then the other words', each part sorted by its own table."""
        word_columns, char_columns = self.columns()
        (words, word_position), (chars, char_position) = self.words.sorted_terms(), self.chars.sorted_terms()
        word_blob, char_blob = pack_terms(words), pack_terms(chars)
        starts = _term_spans(word_blob, len(words))[0]
        before = int(np.searchsorted(word_blob[starts] > ord("["), True))
        cut = int(starts[before]) if before < len(words) else len(word_blob) + 1  # where the words after begin
        newline = np.array([10], dtype=np.uint8)
        pieces = [word_blob[:cut - 1] if before else None, char_blob if len(chars) else None,
                  word_blob[cut:] if before < len(words) else None]
        present = [piece for piece in pieces if piece is not None]
        blob = np.concatenate(list(itertools.chain.from_iterable((newline, piece) for piece in present))[1:]
                              or [np.zeros(0, dtype=np.uint8)])
        position = np.empty(len(self), dtype=np.int64)
        position[word_columns] = np.where(word_position < before, word_position, word_position + len(chars))
        position[char_columns] = before + char_position
        return PackedTerms(blob, len(self)), position


class PairedTable:
    """Words and the character n-grams beside them (``--char-ngrams``): a word table and a
    character table (``char_wb``, its terms written ``[ab]``), each counting a batch in C, and
    their columns put side by side: a ``PairedVocabulary``'s (growing), or a model's terms'
    positions (fixed, ``for_terms``)."""

    def __init__(self, analyzer: Analyzer, vocabulary: PairedVocabulary | None = None, *,
                 parts: tuple[WordTable, WordTable] | None = None) -> None:
        """Growing, with ``vocabulary``; fixed, with the two tables made (``parts``)."""
        self.analyzer, self.vocabulary = analyzer, vocabulary
        if parts is None:
            assert vocabulary is not None
            parts = (WordTable(_word_part(analyzer), vocabulary.words),
                     WordTable(_char_part(analyzer), vocabulary.chars, bracketed=True))
        self.words, self.chars = parts
        self._maps = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)  # a fixed table's columns
        self._n_columns = 0

    @classmethod
    def for_terms(cls, analyzer: Analyzer, terms: Sequence[str]) -> PairedTable:
        """A fixed table whose columns are the positions of ``terms``: those written ``[ab]``
        are character n-grams (no word has a ``[``), the others words."""
        blob = pack_terms(terms)
        starts, lengths = _term_spans(blob, len(terms))
        if (lengths < 1).any():
            raise TokenClash  # not a term this path makes
        is_char = blob[starts] == ord("[")
        if (lengths[is_char] < 3).any() or (blob[starts[is_char] + lengths[is_char] - 1] != ord("]")).any():
            raise TokenClash
        words, chars = np.flatnonzero(~is_char), np.flatnonzero(is_char)
        parts = (WordTable.for_terms(_word_part(analyzer),
                                     PackedTerms(_packed(blob, starts[words], lengths[words]), len(words))),
                 WordTable.for_terms(_char_part(analyzer), PackedTerms(
                     _packed(blob, starts[chars] + 1, lengths[chars] - 2), len(chars)), bracketed=True))
        table = cls(analyzer, parts=parts)
        table._maps, table._n_columns = (words, chars), len(terms)
        return table

    def count(self, texts: Sequence[str]) -> CountMatrix:
        """Documents x columns counts of ``texts``."""
        return self.count_tokens(self.tokens(texts))

    def tokens(self, texts: Sequence[str]) -> tuple[Tokens | Buffered, Tokens | Buffered]:
        """Each table's ``tokens``."""
        return self.words.tokens(texts), self.chars.tokens(texts)

    def count_tokens(self, found: tuple[Tokens | Buffered, Tokens | Buffered]) -> CountMatrix:
        """Each table's counts, their columns side by side in each row, in order."""
        words, chars = self.words.count_tokens(found[0]), self.chars.count_tokens(found[1])
        if self.vocabulary is not None:
            (word_columns, char_columns), n_columns = self.vocabulary.columns(), len(self.vocabulary)
        else:
            (word_columns, char_columns), n_columns = self._maps, self._n_columns
        rows = np.arange(words.shape[0])
        keys = np.concatenate([np.repeat(rows, np.diff(words.indptr)) * n_columns + word_columns[words.indices],
                               np.repeat(rows, np.diff(chars.indptr)) * n_columns + char_columns[chars.indices]])
        # Each part is one sorted run (its columns keep their order among all): a stable sort
        # merges the two in one pass.
        order = np.argsort(keys, kind="stable")
        return CountMatrix(words.indptr + chars.indptr, keys[order] % max(n_columns, 1),
                           np.concatenate([words.data, chars.data])[order], n_columns)


class BucketVocabulary(_TableColumns):
    """The columns of a growing ``HashedTable``: buckets (terms ``#17``), each numbered when a
    batch first has it."""

    def __init__(self) -> None:
        self._columns = _SortedMap()  # bucket -> column
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
        self._fixed = _SortedMap()
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
        unhashed = _unhashed(self.analyzer)
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


def _unhashed(analyzer: Analyzer) -> Analyzer:
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
    starts, lengths = _term_spans(blob, n_terms)
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
    starts, lengths = _term_spans(blob, n_terms)
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


def _word_part(analyzer: Analyzer) -> Analyzer:
    return replace(analyzer, char_ngrams=None)


def _char_part(analyzer: Analyzer) -> Analyzer:
    assert analyzer.char_ngrams is not None
    return Analyzer(analyzer="char_wb", ngram_range=analyzer.char_ngrams, lowercase=analyzer.lowercase)


def _term_spans(blob: np.ndarray, n_terms: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each of the ``n_terms`` packed terms in ``blob`` (newline between two) starts, and
    its length in bytes."""
    ends = PackedTerms(blob, n_terms).ends()
    starts = np.append(0, ends[:-1] + 1) if n_terms else ends
    return starts, ends - starts


def _packed(blob: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The spans of ``blob`` packed as terms: a newline between two."""
    joined = _spans_joined(np.concatenate([blob, np.zeros(1, dtype=np.uint8)]), starts, lengths)
    joined[np.cumsum(lengths + 1) - 1] = 10
    return joined[:-1]


def _bracketed(joined: np.ndarray) -> np.ndarray:
    """Terms, each followed by a newline, each written ``[term]``."""
    newline = joined == 10
    term_of = np.cumsum(newline) - newline
    out = np.full(len(joined) + 2 * int(newline.sum()), ord("["), dtype=np.uint8)
    out[np.arange(len(joined)) + 2 * term_of + 1 + newline] = joined
    out[np.flatnonzero(newline) + 2 * term_of[newline] + 1] = ord("]")
    return out


class TokenClash(Exception):
    """Two different tokens of a batch got the same key (count that batch the plain way)."""


class WordTable:
    """Token keys -> token numbers, and token numbers (alone or in pairs) -> feature columns.

    Growing (with a ``WordVocabulary``, for training), an unseen token or bigram becomes a new
    feature; fixed (built with ``for_terms`` from a model's terms), it is ignored.

    With the compiled scanner, either kind finds and numbers a batch's tokens in C (``count``);
    a growing table then makes no string until its terms are written out.
    """

    def __init__(self, analyzer: Analyzer, vocabulary: WordVocabulary | None = None, *, bracketed: bool = False,
                 ) -> None:
        self.analyzer = analyzer
        self.vocabulary = vocabulary
        self._bracketed = bracketed  # its terms are written [ab], as beside words (PairedTable)
        # char_wb: each word's character n-grams are the table's words, each its own column
        # (the compiled scanner's ``scan_chars``); it has no stop words.
        self._chars = analyzer.analyzer == "char_wb"
        if self._chars and _wordscan is None:
            raise ValueError("character n-grams are counted by a word table only with the compiled scanner")
        self._low, self._high = (1, 1) if self._chars else analyzer.ngram_range
        # As _wordscan.count takes them: 1 words, 2 pairs; longer n-grams are numpy's (_long_grams).
        self._ngrams = (self._low == 1) | (self._low <= 2 <= self._high) << 1
        self._kind = BYTE_KINDS[analyzer.tokens]  # of each byte value: word, joining, neither
        self._shortest = SHORTEST[analyzer.tokens]
        if vocabulary is not None:
            vocabulary.table = self
        self.strings: list[str] = []  # each token number's string, in a growing table only
        self._tokens = _SortedMap()  # token key -> token number
        self._unigram = np.zeros(0, dtype=np.int64)  # column of each token number, or -1
        self._dropped = np.zeros(0, dtype=bool)  # stop words, by token number
        self._store = np.zeros(_PAD, dtype=np.uint8)  # the tokens' bytes, NUL after each
        self._store_starts = np.zeros(0, dtype=np.int64)  # where each token number's bytes start
        self._pairs = _SortedMap()  # key of (first << 32 | second) -> column
        # With n-grams of three words or more: for each length n from 2, the key of (number of
        # the first n - 1 words << 32 | last word) -> the n-gram's number, and from 3, the
        # column of each number (-1: none; a fixed table numbers the beginnings of its terms too).
        self._grams = {n: _SortedMap() for n in range(2, self._high + 1)} if self._high > 2 else {}
        self._gram_columns = {n: np.zeros(0, dtype=np.int64) for n in range(3, self._high + 1)}
        self._n_columns = 0
        # The compiled scanner's (word lengths, slots) and pair slots, and how many pairs those hold.
        self._scanned: tuple[np.ndarray, np.ndarray] | None = None
        self._pair_slots = np.full(2 << 4, -1, dtype=np.int64)  # the fewest the scanner takes: no pairs
        self._n_pairs = 0
        if vocabulary is not None and _wordscan is not None:
            no_spans = np.zeros(0, dtype=np.int64)
            self._add_words(np.zeros(_PAD, dtype=np.uint8), no_spans, no_spans, 0)  # the stop words, dropped
            assert self._scanned is not None  # the compiled scanner's words, just made
            if len(self._scanned[1]) < 2 * GROWING_SLOTS:
                self._rehash_words(GROWING_SLOTS)
            if self._ngrams & 2:
                self._pair_slots = np.full(2 * GROWING_SLOTS, -1, dtype=np.int64)

    @classmethod
    def for_terms(cls, analyzer: Analyzer, terms: Sequence[str], *, bracketed: bool = False) -> WordTable:
        """A fixed table whose columns are the positions of ``terms`` (a model's kept terms,
        each a word or n words with a space between two), read from their packed bytes with numpy, its
        words numbered in C where the compiled scanner is (see ``_add_words``)."""
        table = cls(analyzer, bracketed=bracketed)
        blob = pack_terms(terms)
        buffer = np.concatenate([blob, np.zeros(_PAD, dtype=np.uint8)])
        if table._chars:
            return table._for_character_terms(buffer, len(terms))
        starts, lengths = _token_spans(buffer, table._kind, table._shortest)
        spaces = blob == 32
        if len(starts) != len(terms) + spaces.sum() or lengths.sum() != len(blob) - spaces.sum() - (blob == 10).sum():
            raise TokenClash  # not terms this path makes (words that are not whole tokens): the plain path
        column = np.searchsorted(np.flatnonzero(blob == 10), starts)  # the term each word is in
        size = np.bincount(column, minlength=len(terms))[column]  # the words in it
        if len(size) and size.max() > max(2, table._high):
            raise TokenClash  # longer n-grams than the analyzer makes: not terms this path makes
        begins = np.ones(len(column), dtype=bool)
        begins[1:] = column[1:] != column[:-1]
        alone = begins & (size == 1)
        inverse = table._add_words(buffer, starts, lengths, int(alone.sum()))
        table._unigram[inverse[alone]] = column[alone]
        firsts = np.flatnonzero(begins & (size == 2))
        pairs = _pair_keys(inverse[firsts], inverse[firsts + 1])
        longer = np.flatnonzero(begins & (size > 2))
        table._number_terms(inverse, longer, size[longer], column[longer])
        table._n_columns = len(terms)
        if _wordscan is None:
            table._pairs.add(_mix(pairs), column[firsts])
        else:
            # (first << 32 | second, column) pairs, under three quarters of them used.
            table._pair_slots = np.full(2 << max(4, (4 * len(pairs) // 3).bit_length()), -1, dtype=np.int64)
            _wordscan.build_pairs(pairs, column[firsts], table._pair_slots)
        return table

    def _for_character_terms(self, buffer: np.ndarray, n_terms: int) -> WordTable:
        """``for_terms`` of a char_wb model's terms (packed in ``buffer``): each is one word of
        the table, its column its position."""
        terms = buffer[:len(buffer) - _PAD]
        terms[terms == 0] = _NUL_IN_WORD
        starts, lengths = _term_spans(terms, n_terms)
        if len(starts) != n_terms or (lengths < 1).any():
            raise TokenClash  # a term with a newline in it, or empty: not one this path makes
        numbers = self._add_words(buffer, starts, lengths, n_terms)
        if len(np.unique(numbers)) != n_terms:
            raise TokenClash
        self._unigram[numbers] = np.arange(n_terms)
        self._n_columns = n_terms
        return self

    def _add_words(self, buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray, guess: int) -> np.ndarray:
        """Number a new table's words (the spans of ``buffer``, about ``guess`` distinct ones:
        a model's, or none for a growing table), then the analyzer's stop words, to be
        dropped; the number of each span."""
        stop_words = [] if self._chars else sorted(word for word in self.analyzer.stop_words or () if word)
        if _wordscan is None:
            unique, first, inverse = _distinct(buffer, starts, lengths)
            self._add_tokens(unique, buffer, starts[first], lengths[first])  # numbered as ``unique``
            if stop_words:  # never among the terms, but they must still be dropped
                buffer, starts, lengths = _buffer_of_tokens(stop_words)
                keys = _keys(buffer, starts, lengths)
                if (self._tokens.get(keys) >= 0).any() or len(np.unique(keys)) < len(keys):
                    raise TokenClash
                self._add_tokens(keys, buffer, starts, lengths, stop_words=True)
            return inverse
        # In C, in one pass that also fills the scanner's slots: the words numbered in order
        # of first appearance, the stop words after them, from one buffer.
        n_spans = len(starts)
        stop_buffer, stop_starts, stop_lengths = _buffer_of_tokens(stop_words)
        starts = np.concatenate([starts, len(buffer) + stop_starts])
        buffer, lengths = np.concatenate([buffer, stop_buffer]), np.concatenate([lengths, stop_lengths])
        numbers, firsts = np.empty(len(starts), dtype=np.int64), np.empty(len(starts), dtype=np.int64)
        # At least one: a model of bigrams alone guesses none, and twice none stayed none, so
        # its table was never built and prediction hung.
        n_words, capacity = -1, max(guess + len(stop_words), 1)
        while n_words < 0:  # slots (tag, word number) pairs, under half of them used
            slots = np.full(2 << max(4, (2 * capacity).bit_length()), -1, dtype=np.int64)
            n_words = _wordscan.intern(buffer, starts, lengths, slots, numbers, firsts)
            capacity *= 2
        if (firsts[numbers[n_spans:]] < n_spans).any():
            raise TokenClash  # a stop word among the terms: not terms this path makes
        firsts = firsts[:n_words]
        self._store = np.concatenate([_spans_joined(buffer, starts[firsts], lengths[firsts]),
                                      np.zeros(_PAD, np.uint8)])
        self._store_starts = np.cumsum(lengths[firsts] + 1) - (lengths[firsts] + 1)
        self._scanned = lengths[firsts], slots
        self._dropped = np.zeros(n_words, dtype=bool)
        self._dropped[numbers[n_spans:]] = True
        self._unigram = np.full(n_words, -1, dtype=np.int64)
        return numbers[:n_spans]

    def _stop_words_among(self, numbers: np.ndarray) -> np.ndarray:
        """Which of these token numbers are stop words (-1, a word a fixed table lacks, is not)."""
        known = numbers != _NO_TOKEN
        dropped = np.zeros(len(numbers), dtype=bool)
        dropped[known] = self._dropped[numbers[known]]
        return dropped

    def _token_lengths(self) -> np.ndarray:
        """The length in bytes of each token number."""
        return np.append(self._store_starts[1:], len(self._store) - _PAD) - self._store_starts - 1

    def count(self, texts: Sequence[str]) -> CountMatrix:
        """Documents x columns counts of ``texts``."""
        return self.count_tokens(self.tokens(texts))

    def tokens(self, texts: Sequence[str]) -> Tokens | Buffered:
        """The tokens of ``texts``, found and keyed (for the compiled scanner, just the byte
        buffer): the half of ``count`` that reads nothing of this table, so that another
        thread can do it for the next batch meanwhile."""
        if self._chars:
            return _character_buffer(texts, self.analyzer.lowercase, self.analyzer.ngram_range)
        buffer, doc_starts = _buffer(texts, self.analyzer.lowercase)
        if self._scanned is not None:
            return Buffered(buffer, doc_starts)
        starts, lengths = _token_spans(buffer, self._kind, self._shortest)
        rows = np.repeat(np.arange(len(texts)), np.diff(np.searchsorted(starts, doc_starts), append=len(starts)))
        return Tokens(len(texts), buffer, starts, lengths, rows, *_distinct(buffer, starts, lengths))

    def _count_scanned(self, found: Buffered) -> CountMatrix:
        """The compiled scanner's counts: the token numbers in one pass, then each document's
        columns counted in another, in C."""
        numbers, rows = self._scan(found)
        return self._count_numbers(numbers, rows, len(found.doc_starts))

    def _scan(self, found: Buffered) -> tuple[np.ndarray, np.ndarray]:
        """Each token's word number (-1: not in a fixed table) and document. A growing table
        takes in the words it lacks, its slots made twice as large when they run short."""
        growing = self.vocabulary is not None
        buffer, doc_starts = found.buffer, found.doc_starts
        most = found.most if self._chars else len(buffer) // 2 + 1
        numbers, rows = np.empty(most, dtype=np.int64), np.empty(most, dtype=np.int64)
        while True:
            assert self._scanned is not None  # only the compiled scanner scans
            lengths, slots = self._scanned
            room = len(slots) // 4 - len(lengths) if growing else 0  # new words, keeping slots under half full
            if not growing or room > 0:
                spans = np.empty(2 * room, dtype=np.int64)
                table = self._store, self._store_starts, lengths, slots, numbers, rows, spans
                if self._chars:
                    n, n_new = _wordscan.scan_chars(buffer, *self.analyzer.ngram_range, doc_starts, *table)
                    if n == -2:
                        raise ValueError(f"room for {most} character n-grams, fewer than the batch has")
                else:
                    n, n_new = _wordscan.scan(buffer, self._kind, self._shortest, doc_starts, *table)
                if n >= 0:
                    break
            self._rehash_words(len(slots))
        if n_new:
            self._take_words(buffer, spans[0:2 * n_new:2], spans[1:2 * n_new:2])
        return numbers[:n], rows[:n]

    def _count_numbers(self, numbers: np.ndarray, rows: np.ndarray, n_texts: int) -> CountMatrix:
        """Documents x columns counts from the scan: words and pairs in C, longer n-grams
        beside them with numpy."""
        if self._ngrams:
            matrix = self._count_pairs(numbers, rows, n_texts)
        else:
            matrix = count_matrix(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), n_texts, 0)
        if self._high <= 2:
            return matrix
        kept = ~self._stop_words_among(numbers)  # unknown words stay, to part n-grams
        columns, column_rows = self._long_grams(numbers[kept], rows[kept])
        n_columns = len(self.vocabulary) if self.vocabulary is not None else self._n_columns
        return matrix.plus_ones(column_rows, columns, n_columns)

    def _count_pairs(self, numbers: np.ndarray, rows: np.ndarray, n_texts: int) -> CountMatrix:
        """Documents x columns counts of words and pairs, in C. A growing table gives each new
        pair the next column, its pair slots made twice as large when they run short."""
        growing_pairs = self.vocabulary is not None and self._ngrams & 2
        indptr, indices, data = (np.empty(n_texts + 1, np.int64), np.empty(2 * len(numbers), np.int64),
                                 np.empty(2 * len(numbers), np.float64))
        while True:
            n_columns = len(self.vocabulary) if self.vocabulary is not None else self._n_columns
            room = 3 * len(self._pair_slots) // 8 - self._n_pairs if growing_pairs else 0  # under 3/4 full
            if not growing_pairs or room > 0:
                pairs = np.empty(room, dtype=np.uint64)
                written, n_new = _wordscan.count(numbers, rows, self._dropped, self._unigram, self._pair_slots,
                                                 self._ngrams, n_columns, indptr, indices, data, pairs)
                if written >= 0:
                    break
            assert self.vocabulary is not None  # only a growing table runs out of pair slots
            self._pair_slots = np.full(2 * len(self._pair_slots), -1, dtype=np.int64)
            _wordscan.build_pairs(*self.vocabulary.pairs(), self._pair_slots)
        if n_new:
            assert self.vocabulary is not None  # only a growing table takes new pairs
            self.vocabulary.add(_pair_words(pairs[:n_new]))
            self._n_pairs += n_new
        return CountMatrix(indptr, indices[:written], data[:written], n_columns + n_new)

    def _rehash_words(self, n_slots: int) -> None:
        """Give the compiled scanner ``n_slots`` slots (a power of two), filled with the words."""
        assert self._scanned is not None
        lengths = self._scanned[0]
        slots, n = np.full(2 * n_slots, -1, dtype=np.int64), len(lengths)
        if _wordscan.intern(self._store, self._store_starts, lengths, slots, np.empty(n, np.int64),
                            np.empty(n, np.int64)) != n:
            raise ValueError(f"{n} words do not fit under half of {n_slots} slots")
        self._scanned = lengths, slots

    def _take_words(self, buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
        """Keep the new words the compiled scanner numbered (the spans of ``buffer``, already in
        its slots) in a growing table (stop words are in the table from the start, so none of
        these is one)."""
        self._append_words(_spans_joined(buffer, starts, lengths), lengths, np.zeros(len(lengths), dtype=bool))
        assert self._scanned is not None
        self._scanned = np.concatenate([self._scanned[0], lengths]), self._scanned[1]

    def _append_words(self, joined: np.ndarray, lengths: np.ndarray, dropped: np.ndarray) -> np.ndarray:
        """Number new words (their bytes, a NUL after each), those in ``dropped`` to be dropped;
        in a growing table whose analyzer counts single words, each other one gets a column.
        Their numbers."""
        numbers = np.arange(len(self._store_starts), len(self._store_starts) + len(lengths), dtype=np.int64)
        self._store_starts = np.concatenate([self._store_starts, len(self._store) - _PAD + np.cumsum(lengths + 1)
                                             - (lengths + 1)])
        self._store = np.concatenate([self._store[:len(self._store) - _PAD], joined, np.zeros(_PAD, np.uint8)])
        unigram = np.full(len(numbers), -1, dtype=np.int64)
        if self.vocabulary is not None and self._ngrams & 1:
            kept = numbers[~dropped]
            unigram[~dropped] = self.vocabulary.add(kept[:, np.newaxis])
        self._dropped = np.concatenate([self._dropped, dropped])
        self._unigram = np.concatenate([self._unigram, unigram])
        return numbers

    def word_ranks(self) -> np.ndarray:
        """Each word number's position among the table's words in sorted order."""
        if self._scanned is None:
            return sorted_union(self.strings)[1][0]
        order, rank = np.empty(len(self._store_starts), dtype=np.int64), np.empty(len(self._store_starts), np.int64)
        _wordscan.sort_words(self._store, self._store_starts, order, ord("]") if self._bracketed else 0)
        rank[order] = np.arange(len(order))
        return rank

    def count_tokens(self, found: Tokens | Buffered) -> CountMatrix:
        """Documents x columns counts of the texts ``found`` was made from."""
        if isinstance(found, Buffered):
            return self._count_scanned(found)
        if self._scanned is not None:
            raise TypeError("this word table is the compiled scanner's: count what its tokens() gives")
        tokens, rows = self._token_numbers(found), found.rows
        dropped = self._stop_words_among(tokens)
        tokens, rows = tokens[~dropped], rows[~dropped]
        known = tokens != _NO_TOKEN  # an unknown token (fixed table) still parts the words around it
        columns, column_rows = [], []
        if self._ngrams & 1:
            columns.append(self._unigram[tokens[known]])
            column_rows.append(rows[known])
        if self._ngrams & 2:
            pairs = (rows[:-1] == rows[1:]) & known[:-1] & known[1:]
            first, second = tokens[:-1][pairs], tokens[1:][pairs]
            columns.append(self._pair_columns_of(_pair_keys(first, second)))
            column_rows.append(rows[:-1][pairs])
        if self._high > 2:
            long_columns, long_rows = self._long_grams(tokens, rows)
            columns.append(long_columns)
            column_rows.append(long_rows)
        ids, id_rows = np.concatenate(columns), np.concatenate(column_rows)
        counted = ids >= 0
        n_columns = len(self.vocabulary) if self.vocabulary is not None else self._n_columns
        return count_matrix(id_rows[counted], ids[counted], found.n_texts, n_columns)

    # --- tokens ----------------------------------------------------------------------------

    def _token_numbers(self, found: Tokens) -> np.ndarray:
        buffer, starts, lengths, unique, first = found.buffer, found.starts, found.lengths, found.unique, found.first
        numbers = self._tokens.get(unique)
        found_long = np.flatnonzero((numbers >= 0) & (lengths[first] > 8))
        if len(found_long):  # and the token the key stood for before
            at, known = first[found_long], numbers[found_long]
            if (self._store[self._store_starts[known] + lengths[at]].any()  # the known token is longer
                    or not _same_bytes(buffer, starts[at], self._store, self._store_starts[known], lengths[at])):
                raise TokenClash
        missing = np.flatnonzero(numbers < 0)
        if self.vocabulary is not None and len(missing):
            at = first[missing]
            numbers[missing] = self._add_tokens(unique[missing], buffer, starts[at], lengths[at])
        return numbers[found.inverse]

    def _add_tokens(self, keys: np.ndarray, buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                    *, stop_words: bool = False) -> np.ndarray:
        """Number new tokens (none known yet, keys distinct); give each its unigram column.
        A growing table keeps each as a string too (its vocabulary's terms are made of them)
        and drops those among the analyzer's stop words; a fixed table makes no string and
        drops them all if ``stop_words``."""
        if self.vocabulary is not None:
            strings, joined = _strings(buffer, starts, lengths)
            self.strings += strings
        else:
            joined = _spans_joined(buffer, starts, lengths)
        dropped = np.full(len(starts), stop_words)
        if self.vocabulary is not None and self.analyzer.stop_words:
            dropped[:] = [s in self.analyzer.stop_words for s in strings]
        numbers = self._append_words(joined, lengths, dropped)
        self._tokens.add(keys, numbers)
        return numbers

    # --- bigrams ---------------------------------------------------------------------------

    def _pair_columns_of(self, pairs: np.ndarray) -> np.ndarray:
        """The column of each bigram, given as ``first << 32 | second`` token numbers."""
        unique, first, inverse = _unique_first(_mix(pairs))
        columns = self._pairs.get(unique)
        missing = np.flatnonzero(columns < 0)
        if self.vocabulary is not None and len(missing):
            new_pairs = pairs[first[missing]]
            columns[missing] = self.vocabulary.add(_pair_words(new_pairs))
            self._pairs.add(unique[missing], columns[missing])
        return columns[inverse]

    # --- terms -----------------------------------------------------------------------------

    def joined_terms(self, words: np.ndarray) -> np.ndarray:
        """Terms given as rows of token numbers (-1 after the last word) as UTF-8 bytes with a
        newline between two terms: ``pack_terms`` of their strings, with no string made."""
        lengths = self._token_lengths()
        blocks = []
        for at in range(0, len(words), TERMS_PER_BLOCK):
            # Each term's words one after the other, each copied with a NUL after it, which
            # becomes the space before the term's next word or the newline after the term.
            block = words[at:at + TERMS_PER_BLOCK]
            followed = np.zeros(block.shape, dtype=bool)
            followed[:, :-1] = block[:, 1:] >= 0
            flat = block.ravel()
            present = flat >= 0
            joined = _spans_joined(self._store, self._store_starts[flat[present]], lengths[flat[present]])
            joined[joined == 0] = np.where(followed.ravel()[present], 32, 10)
            if self._chars:
                joined[joined == _NUL_IN_WORD] = 0
            blocks.append(_bracketed(joined) if self._bracketed else joined)
        return np.concatenate(blocks)[:-1] if blocks else np.zeros(0, dtype=np.uint8)

    # --- n-grams of three words or more ----------------------------------------------------

    def _long_grams(self, tokens: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The columns and documents of the n-grams of three words or more of a batch, from
        its token numbers (stop words out; -1, a word a fixed table lacks, parts the words
        around it) and their documents. Each n-gram is numbered by the number of its first
        n - 1 words and its last word, a length at a time; a growing table numbers those it
        lacks, and gives a column to each of a length it counts."""
        columns, column_rows = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
        numbers = tokens  # of the n-gram that starts at each token, for n = 1
        for n in range(2, self._high + 1):
            end = max(len(tokens) - n + 1, 0)  # n-grams start before it
            whole = (numbers[:end] >= 0) & (tokens[n - 1:] >= 0) & (rows[:end] == rows[n - 1:])
            at = np.flatnonzero(whole)
            keys = _pair_keys(numbers[at], tokens[at + n - 1])
            found, new_at, new = self._gram_numbers(n, keys, grow=self.vocabulary is not None)
            numbers = np.full(end, -1, dtype=np.int64)
            numbers[at] = found
            if n < 3:
                continue
            if len(new) and n >= self._low:
                assert self.vocabulary is not None  # only a growing table numbers n-grams it has not seen
                starts = at[new_at]
                self._gram_columns[n][new] = self.vocabulary.add(tokens[starts[:, np.newaxis] + np.arange(n)])
            if n >= self._low:
                numbered = at[found >= 0]
                counted = self._gram_columns[n][numbers[numbered]]
                columns.append(counted[counted >= 0])
                column_rows.append(rows[numbered[counted >= 0]])
        return np.concatenate(columns), np.concatenate(column_rows)

    def _gram_numbers(self, n: int, keys: np.ndarray, *, grow: bool) -> tuple[np.ndarray, ...]:
        """The number of each n-gram, given as ``keys`` (the number of its first n - 1 words
        << 32 | its last word): -1 where the table lacks it, unless ``grow``, which numbers
        those; and for the n-grams it numbered, where one of each is in ``keys``, and their
        numbers."""
        grams = self._grams[n]
        unique, first, inverse = _unique_first(_mix(keys))
        numbers = grams.get(unique)
        missing = np.flatnonzero(numbers < 0) if grow else np.zeros(0, dtype=np.int64)
        if len(missing):
            numbers[missing] = np.arange(len(grams), len(grams) + len(missing))
            grams.add(unique[missing], numbers[missing])
            if n > 2:
                self._gram_columns[n] = np.concatenate([self._gram_columns[n], np.full(len(missing), -1)])
        return numbers[inverse], first[missing], numbers[missing]

    def _number_terms(self, words: np.ndarray, firsts: np.ndarray, sizes: np.ndarray, columns: np.ndarray) -> None:
        """Give a fixed table the ``columns`` of its terms of three words or more: each starts
        at ``firsts`` among the terms' ``words`` (token numbers), ``sizes`` words long. Every
        beginning of one is numbered too, the way to it."""
        numbers = words[firsts]
        for n in range(2, int(sizes.max(initial=0)) + 1):
            going_on = sizes >= n
            firsts, sizes, columns, numbers = firsts[going_on], sizes[going_on], columns[going_on], numbers[going_on]
            keys = _pair_keys(numbers, words[firsts + n - 1])
            numbers = self._gram_numbers(n, keys, grow=True)[0]
            ending = sizes == n
            if n > 2:
                self._gram_columns[n][numbers[ending]] = columns[ending]


def _pair_keys(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pairs of numbers (token numbers, or an n-gram's and a token's) as ``first << 32 | second``."""
    return first.astype(np.uint64) << np.uint64(32) | second.astype(np.uint64)


def _pair_words(pairs: np.ndarray) -> np.ndarray:
    """Pairs given as ``first << 32 | second`` (``_pair_keys``), as rows of two token numbers."""
    return np.stack([(pairs >> np.uint64(32)).astype(np.int64), (pairs & np.uint64(0xFFFFFFFF)).astype(np.int64)],
                    axis=1)


#: Any of the tables: what ``fixed_table`` gives a model.
AnyTable = WordTable | PairedTable | HashedTable


@dataclass(frozen=True)
class Tokens:
    """The tokens of a batch of texts: where each is in the buffer, its document, and its key
    among the batch's distinct keys (see ``_distinct``)."""

    n_texts: int
    buffer: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    rows: np.ndarray
    unique: np.ndarray
    first: np.ndarray
    inverse: np.ndarray


@dataclass(frozen=True)
class Buffered:
    """A batch of texts for the compiled scanner: its byte buffer, where each text starts, and
    for character n-grams, at most how many there are."""

    buffer: np.ndarray
    doc_starts: np.ndarray
    most: int = 0


class _SortedMap:
    """64-bit keys -> numbers, kept in sorted runs so that a whole array is looked up at once.

    Each ``add`` makes a run, merged with the run before it while that one is at most twice as
    long: there are about log2(n) runs, and a key is copied about log2(n) times in all. (Kept
    as one sorted array, each batch inserted into it copied all of it, so the time to add grew
    with the square of the batches: 19 s for 200 batches of 100,000 new keys, against 6 s.)
    """

    def __init__(self) -> None:
        self._runs: list[tuple[np.ndarray, np.ndarray]] = []  # (sorted keys, their values), longest first

    def __len__(self) -> int:
        return sum(len(keys) for keys, _ in self._runs)

    def get(self, wanted: np.ndarray) -> np.ndarray:
        """The value of each key in ``wanted``, -1 where absent."""
        found = np.full(len(wanted), -1, dtype=np.int64)
        for keys, values in self._runs:
            at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
            hit = keys[at] == wanted
            found[hit] = values[at[hit]]
        return found

    def add(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Take in keys not held yet (distinct), with their values."""
        if not len(keys):
            return
        order = np.argsort(keys)
        self._runs.append((keys[order], values[order]))
        while len(self._runs) > 1 and len(self._runs[-2][0]) <= 2 * len(self._runs[-1][0]):
            self._runs[-2:] = [_merged(*self._runs[-2], *self._runs[-1])]


def _merged(keys: np.ndarray, values: np.ndarray, other: np.ndarray, other_values: np.ndarray,
            ) -> tuple[np.ndarray, np.ndarray]:
    """Two sorted runs of distinct keys, with their values, as one: each key of the other run
    goes where ``searchsorted`` puts it, and every key is copied once."""
    goes = np.searchsorted(keys, other) + np.arange(len(other))
    rest = np.ones(len(keys) + len(other), dtype=bool)
    rest[goes] = False
    merged, merged_values = np.empty(len(rest), dtype=keys.dtype), np.empty(len(rest), dtype=values.dtype)
    merged[goes], merged_values[goes] = other, other_values
    merged[rest], merged_values[rest] = keys, values
    return merged, merged_values


def _buffer(texts: Sequence[str], lowercase: bool) -> tuple[np.ndarray, np.ndarray]:
    """The batch as one byte array of UTF-8 (documents split by NUL, 8 NULs after), and where
    each document starts in it; lowercased as ``str.lower`` would, and its non-ASCII characters
    that are not word characters blanked, so that the runs of word bytes are the runs of Unicode
    word characters. The bytes are lowered, not the strings: ``str.lower`` over text that is not
    ASCII took a third of the time of scoring it."""
    texts = [_checked(text) for text in texts]
    all_ascii = all(text.isascii() for text in texts)
    joined, doc_starts = _joined([_encoded(text) for text in texts], writable=not all_ascii)
    if lowercase:
        joined = joined.lower()  # the ASCII letters; _lower_in_place the others
    buffer = np.frombuffer(joined, dtype=np.uint8)
    if all_ascii:
        return buffer, doc_starts
    found = _Characters.of(buffer)
    resized = _lower_in_place(buffer, found) if lowercase else []
    _blank_non_words(buffer, found)  # a character lowered in place is a word character or not as it was
    if any(resized):
        return _spliced(buffer, doc_starts, found, resized)
    return buffer, doc_starts


def _character_buffer(texts: Sequence[str], lowercase: bool, ngram_range: tuple[int, int]) -> Buffered:
    """The batch as ``_buffer`` makes it for ``scan_chars``: each document's words as
    ``str.split`` finds them, one ASCII space before, between and after them, and at most how
    many character n-grams of ``ngram_range`` the batch has. A NUL, the buffer's document break,
    is written _NUL_IN_WORD. A document with a lone surrogate is a TokenClash: the batch is
    counted the plain way."""
    pieces, most = [], 0
    for text in map(_checked, texts):
        words = (text.lower() if lowercase else text).split()
        if not words:
            pieces.append(b"")
            continue
        spaced = f" {' '.join(words)} "
        try:
            piece = spaced.encode("ascii" if spaced.isascii() else "utf-8")
        except UnicodeEncodeError:  # a lone surrogate, which UTF-8 cannot hold
            raise TokenClash from None
        pieces.append(piece.replace(b"\x00", bytes([_NUL_IN_WORD])) if "\x00" in spaced else piece)
        most += len(spaced) + len(words) - 1  # a word of c characters has at most c + 2 n-grams of each n
    joined, doc_starts = _joined(pieces)
    low, high = ngram_range
    return Buffered(np.frombuffer(joined, dtype=np.uint8), doc_starts, most * (high - low + 1))


def _checked(text: Any) -> str:
    if not isinstance(text, str):
        raise TypeError(f"documents must be str, not {type(text).__name__}; decode bytes first")
    return text


def _encoded(text: str) -> bytes:
    if text.isascii():  # a flag Python keeps: no pass over the text
        return text.encode("ascii")
    return text.encode("utf-8", "surrogatepass")


def _joined(pieces: list[bytes], writable: bool = False) -> tuple[bytes | bytearray, np.ndarray]:
    """The pieces split by NUL, 8 NULs after (a bytearray if ``writable``: not copied again to
    be written), and where each starts."""
    sizes = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)) + 1
    nul = bytearray(1) if writable else b"\x00"
    joined = nul.join([*pieces, bytes(_PAD - 1)]) if pieces else nul * _PAD  # the last NULs joined on: no copy
    return joined, np.cumsum(sizes) - sizes


@dataclass(frozen=True)
class _Characters:
    """The non-ASCII characters of a UTF-8 buffer: where each starts, its length in bytes, and
    which of the distinct code points it is."""

    leads: np.ndarray
    sizes: np.ndarray
    distinct: np.ndarray
    inverse: np.ndarray

    @classmethod
    def of(cls, buffer: np.ndarray) -> _Characters:
        high = np.flatnonzero(buffer >= 0x80)
        leads = high[buffer[high] >= 0xC0]
        sizes = _UTF8_SIZE[buffer[leads]]
        code = buffer[leads].astype(np.int64) & (0x7F >> sizes)  # the lead byte's bits of the code point
        for k in range(1, 4):  # then 6 bits from each continuation byte (the padding keeps leads + 3 inside)
            more = sizes > k
            code = np.where(more, code << 6 | (buffer[leads + k].astype(np.int64) & 0x3F), code)
        distinct, inverse = np.unique(code, return_inverse=True)
        return cls(leads, sizes, distinct, inverse)


def _lower_in_place(buffer: np.ndarray, found: _Characters) -> list[bytes]:
    """Lowercase the non-ASCII characters ``found`` in ``buffer`` as ``str.lower`` does (its
    ASCII letters lowered already), each distinct character lowered once and written over its
    bytes; ``Σ`` to ``ς`` or ``σ`` by the characters beside it. The few that lower to another
    length (``İ`` to two characters, the Kelvin sign to ``k``) are left as they are. Returns,
    for each distinct character, the bytes to splice in for it (b"" for none), non-word
    characters blanked."""
    characters = [chr(code) for code in found.distinct.tolist()]
    lowered = [character.lower() for character in characters]
    same_length = [len(_encoded(low)) == len(_encoded(character)) for low, character in zip(lowered, characters)]
    _overwrite(buffer, found, [_encoded(low) if same and low != character else b""
                               for low, character, same in zip(lowered, characters, same_length)])
    if _SIGMA in characters:  # written σ, as Σ alone lowers; ς where it ends a word
        at = found.leads[found.inverse == characters.index(_SIGMA)]
        buffer[at[_final_sigmas(buffer, at, found, characters)] + 1] = 0x82  # σ is CF 83, ς CF 82
    return [b"" if same else _blanked(low) for low, same in zip(lowered, same_length)]


def _blanked(text: str) -> bytes:
    """The UTF-8 of ``text``, each non-ASCII character that is not a word character as spaces,
    byte for byte, as ``_blank_non_words`` leaves a buffer."""
    return _encoded("".join(c if c.isascii() or is_word_character(ord(c)) else " " * len(_encoded(c)) for c in text))


def _final_sigmas(buffer: np.ndarray, at: np.ndarray, found: _Characters, characters: list[str]) -> np.ndarray:
    """Which of the ``Σ`` at ``at`` ``str.lower`` makes ``ς``: those with a cased character
    before them and none after them, past any case-ignorable ones (an apostrophe, a period, a
    combining accent), within their document (NUL, which ends one, is neither). The characters
    are ``found``'s: ``buffer`` is read only for its ASCII bytes and where characters start, which
    lowering in place leaves as they were."""
    cased = np.zeros(len(characters) + 128, dtype=bool)
    ignorable = np.zeros(len(characters) + 128, dtype=bool)
    for index, character in enumerate([*characters, *map(chr, range(128))]):
        cased[index], ignorable[index] = _case_kind(character)

    def row_at(positions: np.ndarray) -> np.ndarray:  # rows of cased and ignorable: the distinct ones, then ASCII
        byte = buffer[positions].astype(np.int64)
        nearest = np.minimum(np.searchsorted(found.leads, positions), len(found.leads) - 1)
        return np.where(byte < 0x80, len(characters) + byte, found.inverse[nearest])

    def skip_ignorable(positions: np.ndarray, step: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        positions = step(positions)
        while (more := ignorable[row_at(positions)]).any():
            positions[more] = step(positions[more])
        return positions

    def back(positions: np.ndarray) -> np.ndarray:  # the character before: -1, before the first, is a padding NUL
        positions = positions - 1
        for _ in range(3):
            positions = np.where((buffer[positions] & 0xC0) == 0x80, positions - 1, positions)
        return positions

    def forward(positions: np.ndarray) -> np.ndarray:
        return positions + np.maximum(_UTF8_SIZE[buffer[positions]], 1)

    before = skip_ignorable(at, back)
    after = skip_ignorable(at, forward)
    return cased[row_at(before)] & ~cased[row_at(after)]


def _case_kind(character: str) -> tuple[bool, bool]:
    """Whether ``str.lower`` takes ``character`` for cased, and for case-ignorable, in choosing
    between ``ς`` and ``σ`` for a ``Σ`` after it: Python has no other way to ask."""
    alone, after_a_letter = (character + _SIGMA).lower()[-1], ("A" + character + _SIGMA).lower()[-1]
    ignorable = alone == "σ" and after_a_letter == "ς"
    return alone == "ς", ignorable


def _overwrite(buffer: np.ndarray, found: _Characters, replacements: list[bytes]) -> None:
    """Write over each character ``found`` the UTF-8 bytes its distinct character gives in
    ``replacements``: as many as it has, or none to leave it."""
    new = _byte_rows(replacements)
    for k in range(new.shape[1]):
        at = new[found.inverse, k] != 0  # a continuation byte is never 0, nor a lead byte
        buffer[found.leads[at] + k] = new[found.inverse[at], k]


def _spliced(buffer: np.ndarray, doc_starts: np.ndarray, found: _Characters, replacements: list[bytes],
             ) -> tuple[np.ndarray, np.ndarray]:
    """``buffer`` with each character ``found`` whose distinct character has bytes in
    ``replacements`` replaced by them, and where its documents start then."""
    lengths = np.array([len(new) for new in replacements], dtype=np.int64)
    new = _byte_rows(replacements)
    which = (lengths > 0)[found.inverse]
    at, sizes, rows = found.leads[which], found.sizes[which], found.inverse[which]
    kept = np.delete(buffer, _span_bytes(at, sizes))
    dropped_before = np.cumsum(sizes) - sizes
    values = new[rows][np.arange(new.shape[1]) < lengths[rows, None]]
    buffer = np.insert(kept, np.repeat(at - dropped_before, lengths[rows]), values)
    growth = np.append(0, np.cumsum(lengths[rows] - sizes))
    return buffer, doc_starts + growth[np.searchsorted(at, doc_starts)]


def _byte_rows(pieces: list[bytes]) -> np.ndarray:
    """The pieces as the rows of a byte matrix, padded with zeros."""
    rows = np.zeros((len(pieces), max(map(len, pieces), default=0)), dtype=np.uint8)
    for row, piece in enumerate(pieces):
        rows[row, :len(piece)] = list(piece)
    return rows


def _span_bytes(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Every position of the spans of ``sizes`` bytes at ``starts``, one span after another."""
    offsets = np.cumsum(sizes) - sizes  # where each span begins among them
    return np.repeat(starts - offsets, sizes) + np.arange(int(sizes.sum()))


def _blank_non_words(buffer: np.ndarray, found: _Characters) -> None:
    """Overwrite with spaces the bytes of each non-ASCII character ``found`` in ``buffer`` that
    is not a word character to Python's regular expressions (``’``, ``—``, a no-break space, a
    combining accent, a lone surrogate), numpy over the non-ASCII bytes alone: the regex
    engine's pass over a document took twice as long as counting it."""
    word = np.fromiter(map(is_word_character, found.distinct.tolist()), dtype=bool, count=len(found.distinct))
    blank = ~word[found.inverse]
    buffer[_span_bytes(found.leads[blank], found.sizes[blank])] = ord(" ")


def _token_spans(buffer: np.ndarray, kind: np.ndarray, shortest: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and length of every token: each run of word bytes, and of joining bytes between
    them where ``kind`` has those (see ``BYTE_KINDS``), ``shortest`` (1 or 2) or more
    characters long."""
    # The changes between run and other bytes alternate: a run's start, its end (the padding
    # ends the last run).
    kinds = kind[buffer]
    edges = np.flatnonzero(np.diff(kinds > 0, prepend=False))
    starts, ends = edges[0::2], edges[1::2]
    if kind.max() > 1:  # a run begins at its first word byte and ends after its last one
        word, at = kinds == 1, np.arange(len(buffer))
        next_word = np.minimum.accumulate(np.where(word, at, len(buffer))[::-1])[::-1]
        last_word = np.maximum.accumulate(np.where(word, at, -1))
        starts, ends = next_word[starts], last_word[ends - 1] + 1
    lengths = ends - starts
    long_enough = lengths >= shortest
    starts, lengths = starts[long_enough], lengths[long_enough]
    if shortest > 1:  # a run of 2 to 4 bytes can be one character
        several = lengths != _UTF8_SIZE[buffer[starts]]
        starts, lengths = starts[several], lengths[several]
    return starts, lengths


def _distinct(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
    """``_unique_first`` of the tokens' keys, having checked that every token with a hashed
    key is the same bytes as the one occurrence returned for it."""
    unique, first, inverse = _unique_first(_keys(buffer, starts, lengths))
    long = np.flatnonzero(lengths > 8)
    if len(long):
        same = first[inverse[long]]
        if not (np.array_equal(lengths[long], lengths[same])
                and _same_bytes(buffer, starts[long], buffer, starts[same], lengths[long])):
            raise TokenClash
    return unique, first, inverse


def _keys(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The 64-bit key of each token. Up to 8 bytes, the bytes themselves (the first byte is
    never 0); longer, a hash of them with the lowest byte 0 (the caller checks that a hash
    means one token). Then mixed, one to one, so that the keys spread evenly."""
    words64 = _words64(buffer)
    keys = words64[starts] & _MASK[np.minimum(lengths, 8)]
    long = np.flatnonzero(lengths > 8)
    if len(long):
        keys[long] = _long_keys(words64, starts[long], lengths[long])
    return _mix(keys)


def _long_keys(words64: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    chunks, offsets, chunk_number = _chunks(words64, starts, lengths)
    salted = _mix(chunks ^ (chunk_number.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)))
    return _mix(np.add.reduceat(salted, offsets) ^ lengths.astype(np.uint64)) & ~np.uint64(0xFF)


def _chunks(words64: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each token's bytes as 64-bit words (the last one zero-filled), where each token's words
    begin, and each word's number within its token."""
    n_chunks = (lengths + 7) // 8
    offsets = np.cumsum(n_chunks) - n_chunks
    chunk_number = np.arange(int(n_chunks.sum())) - np.repeat(offsets, n_chunks)
    left = np.repeat(lengths, n_chunks) - 8 * chunk_number
    chunks = words64[np.repeat(starts, n_chunks) + 8 * chunk_number] & _MASK[np.minimum(left, 8)]
    return chunks, offsets, chunk_number


def _same_bytes(buffer: np.ndarray, starts: np.ndarray, other: np.ndarray, other_starts: np.ndarray,
                lengths: np.ndarray) -> bool:
    """Whether every token (start, length) of ``buffer`` equals the one at ``other_starts`` in ``other``."""
    return np.array_equal(_chunks(_words64(buffer), starts, lengths)[0],
                          _chunks(_words64(other), other_starts, lengths)[0])


def _words64(buffer: np.ndarray) -> np.ndarray:
    """The (unaligned) 64-bit little-endian word at every byte offset of a NUL-padded buffer."""
    return np.ndarray((len(buffer) - _PAD + 1,), dtype="<u8", buffer=buffer, strides=(1,))


def _unique_first(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct keys, the position of one occurrence of each, and each key's index
    among them: ``np.unique`` with ``return_index`` and ``return_inverse`` for hashed keys,
    about twice as fast (its stable argsort is its slow part)."""
    n = len(keys)
    order = None
    if n < 2**_POSITION_BITS:
        # Sort each key's position under its top 40 bits: numpy's plain (vectorised) sort
        # instead of an argsort. Two keys sharing those bits would interleave; then argsort.
        packed = (keys & _HIGH_40) | np.arange(n, dtype=np.uint64)
        packed.sort()
        order = (packed & ~_HIGH_40).astype(np.int64)
        ordered = keys[order]
        new = run_starts(ordered)
        if not np.array_equal(new, run_starts(packed >> _POSITION_BITS)):
            order = None
    if order is None:
        order = np.argsort(keys)
        ordered = keys[order]
        new = run_starts(ordered)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], order[new], inverse


def _strings(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The tokens as strings, and their bytes joined, NUL after each, in one decode."""
    joined = _spans_joined(buffer, starts, lengths)
    return _decode(joined[:-1]).split("\x00") if len(starts) else [], joined


def _spans_joined(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The spans (start, length) of ``buffer`` one after another, a NUL after each."""
    spans = lengths + 1
    joined = buffer[_span_bytes(starts, spans)]
    joined[np.cumsum(spans) - 1] = 0
    return joined


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: one to one, and every input bit moves every output bit."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _buffer_of_tokens(tokens: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whole tokens in a buffer, as ``_buffer`` and ``_token_spans`` would find them."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in tokens]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    buffer = np.frombuffer(b"\x00".join(encoded) + b"\x00" * _PAD, dtype=np.uint8)
    return buffer, np.cumsum(lengths + 1) - (lengths + 1), lengths


def _decode(raw: np.ndarray) -> str:
    return raw.tobytes().decode("utf-8", "surrogatepass")

"""``WordTable``: the words of a batch numbered against a table of the vocabulary's words, their
n-grams numbered as pairs of numbers, in numpy or in the compiled scanner."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..analysis import CJK_RUN, Analyzer, cjk_bigrams
from ..matrices import CountMatrix, count_matrix
from ..terms import GrowingVocabulary, PackedTerms, pack_terms, sorted_union
from . import scanner
from .buffers import (BYTE_KINDS, NO_TOKEN, NUL_IN_WORD, PAD, SHORTEST, Buffered, SortedMap, TokenClash, Tokens,
                      bracketed_terms, buffer_of_tokens, character_buffer, distinct_tokens, mix64, pair_keys,
                      pair_words, same_bytes, spans_joined, term_spans, text_buffer, token_keys, token_spans,
                      token_strings, unique_first)

#: Slots a growing compiled table starts with, for words and for pairs (doubled when full).
GROWING_SLOTS = 1 << 16


#: Terms whose bytes ``WordTable.joined_terms`` gathers at a time (its index arrays are eight
#: bytes per byte gathered).
TERMS_PER_BLOCK = 1 << 16


class TableColumns:
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


class WordVocabulary(TableColumns):
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
        return pair_keys(codes[columns, 0], codes[columns, 1]), columns

    def _codes(self) -> np.ndarray:
        """The token numbers of every column: a row each, as long as the longest term."""
        if len(self._words) != 1 or self._words[0].shape[1] < 2:
            width = max([2, *(block.shape[1] for block in self._words)])
            self._words = [np.concatenate([np.zeros((0, width), dtype=np.int64)] + [
                np.pad(block, ((0, 0), (0, width - block.shape[1])), constant_values=NO_TOKEN)
                for block in self._words])]
        return self._words[0]


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
        if self._chars and scanner.wordscan is None:
            raise ValueError("character n-grams are counted by a word table only with the compiled scanner")
        self._low, self._high = (1, 1) if self._chars else analyzer.ngram_range
        # As scanner.wordscan.count takes them: 1 words, 2 pairs; longer n-grams are numpy's (_long_grams).
        self._ngrams = (self._low == 1) | (self._low <= 2 <= self._high) << 1
        self._kind = BYTE_KINDS[analyzer.tokens]  # of each byte value: word, joining, neither
        self._shortest = SHORTEST[analyzer.tokens]
        if vocabulary is not None:
            vocabulary.table = self
        self.strings: list[str] = []  # each token number's string, in a growing table only
        self._tokens = SortedMap()  # token key -> token number
        self._unigram = np.zeros(0, dtype=np.int64)  # column of each token number, or -1
        self._dropped = np.zeros(0, dtype=bool)  # stop words, by token number
        self._store = np.zeros(PAD, dtype=np.uint8)  # the tokens' bytes, NUL after each
        self._store_starts = np.zeros(0, dtype=np.int64)  # where each token number's bytes start
        self._pairs = SortedMap()  # key of (first << 32 | second) -> column
        # With n-grams of three words or more: for each length n from 2, the key of (number of
        # the first n - 1 words << 32 | last word) -> the n-gram's number, and from 3, the
        # column of each number (-1: none; a fixed table numbers the beginnings of its terms too).
        self._grams = {n: SortedMap() for n in range(2, self._high + 1)} if self._high > 2 else {}
        self._gram_columns = {n: np.zeros(0, dtype=np.int64) for n in range(3, self._high + 1)}
        self._n_columns = 0
        # The compiled scanner's (word lengths, slots) and pair slots, and how many pairs those hold.
        self._scanned: tuple[np.ndarray, np.ndarray] | None = None
        self._pair_slots = np.full(2 << 4, -1, dtype=np.int64)  # the fewest the scanner takes: no pairs
        self._n_pairs = 0
        if vocabulary is not None and scanner.wordscan is not None:
            no_spans = np.zeros(0, dtype=np.int64)
            self._add_words(np.zeros(PAD, dtype=np.uint8), no_spans, no_spans, 0)  # the stop words, dropped
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
        buffer = np.concatenate([blob, np.zeros(PAD, dtype=np.uint8)])
        if table._chars:
            return table._for_character_terms(buffer, len(terms))
        starts, lengths = token_spans(buffer, table._kind, table._shortest)
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
        pairs = pair_keys(inverse[firsts], inverse[firsts + 1])
        longer = np.flatnonzero(begins & (size > 2))
        table._number_terms(inverse, longer, size[longer], column[longer])
        table._n_columns = len(terms)
        if scanner.wordscan is None:
            table._pairs.add(mix64(pairs), column[firsts])
        else:
            # (first << 32 | second, column) pairs, under three quarters of them used.
            table._pair_slots = np.full(2 << max(4, (4 * len(pairs) // 3).bit_length()), -1, dtype=np.int64)
            scanner.wordscan.build_pairs(pairs, column[firsts], table._pair_slots)
        return table

    def _for_character_terms(self, buffer: np.ndarray, n_terms: int) -> WordTable:
        """``for_terms`` of a char_wb model's terms (packed in ``buffer``): each is one word of
        the table, its column its position."""
        terms = buffer[:len(buffer) - PAD]
        terms[terms == 0] = NUL_IN_WORD
        starts, lengths = term_spans(terms, n_terms)
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
        if scanner.wordscan is None:
            unique, first, inverse = distinct_tokens(buffer, starts, lengths)
            self._add_tokens(unique, buffer, starts[first], lengths[first])  # numbered as ``unique``
            if stop_words:  # never among the terms, but they must still be dropped
                buffer, starts, lengths = buffer_of_tokens(stop_words)
                keys = token_keys(buffer, starts, lengths)
                if (self._tokens.get(keys) >= 0).any() or len(np.unique(keys)) < len(keys):
                    raise TokenClash
                self._add_tokens(keys, buffer, starts, lengths, stop_words=True)
            return inverse
        # In C, in one pass that also fills the scanner's slots: the words numbered in order
        # of first appearance, the stop words after them, from one buffer.
        n_spans = len(starts)
        stop_buffer, stop_starts, stop_lengths = buffer_of_tokens(stop_words)
        starts = np.concatenate([starts, len(buffer) + stop_starts])
        buffer, lengths = np.concatenate([buffer, stop_buffer]), np.concatenate([lengths, stop_lengths])
        numbers, firsts = np.empty(len(starts), dtype=np.int64), np.empty(len(starts), dtype=np.int64)
        # At least one: a model of bigrams alone guesses none, and twice none stayed none, so
        # its table was never built and prediction hung.
        n_words, capacity = -1, max(guess + len(stop_words), 1)
        while n_words < 0:  # slots (tag, word number) pairs, under half of them used
            slots = np.full(2 << max(4, (2 * capacity).bit_length()), -1, dtype=np.int64)
            n_words = scanner.wordscan.intern(buffer, starts, lengths, slots, numbers, firsts)
            capacity *= 2
        if (firsts[numbers[n_spans:]] < n_spans).any():
            raise TokenClash  # a stop word among the terms: not terms this path makes
        firsts = firsts[:n_words]
        self._store = np.concatenate([spans_joined(buffer, starts[firsts], lengths[firsts]),
                                      np.zeros(PAD, np.uint8)])
        self._store_starts = np.cumsum(lengths[firsts] + 1) - (lengths[firsts] + 1)
        self._scanned = lengths[firsts], slots
        self._dropped = np.zeros(n_words, dtype=bool)
        self._dropped[numbers[n_spans:]] = True
        self._unigram = np.full(n_words, -1, dtype=np.int64)
        return numbers[:n_spans]

    def _stop_words_among(self, numbers: np.ndarray) -> np.ndarray:
        """Which of these token numbers are stop words (-1, a word a fixed table lacks, is not)."""
        known = numbers != NO_TOKEN
        dropped = np.zeros(len(numbers), dtype=bool)
        dropped[known] = self._dropped[numbers[known]]
        return dropped

    def _token_lengths(self) -> np.ndarray:
        """The length in bytes of each token number."""
        return np.append(self._store_starts[1:], len(self._store) - PAD) - self._store_starts - 1

    def count(self, texts: Sequence[str]) -> CountMatrix:
        """Documents x columns counts of ``texts``."""
        return self.count_tokens(self.tokens(texts))

    def _paired(self, text: Any) -> Any:
        """A text with its CJK runs in pairs (``analysis.cjk_bigrams``), lowercased first where
        the analyzer lowercases: the Analyzer pairs lowercased text, and lowering does not
        commute with the spaces the pairs bring (a final sigma: ΟΔΟΣーa lowers to οδοσーa, and
        ΟΔΟΣ ー a to οδος ー a). The buffer lowers the rest. Not a string: text_buffer's error."""
        if not isinstance(text, str) or text.isascii() or not CJK_RUN.search(text):
            return text
        return cjk_bigrams(text.lower() if self.analyzer.lowercase else text)

    def tokens(self, texts: Sequence[str]) -> Tokens | Buffered:
        """The tokens of ``texts``, found and keyed (for the compiled scanner, just the byte
        buffer): the half of ``count`` that reads nothing of this table, so that another
        thread can do it for the next batch meanwhile."""
        if self._chars:
            return character_buffer(texts, self.analyzer.lowercase, self.analyzer.ngram_range)
        if self.analyzer.cjk_bigrams:
            texts = [self._paired(text) for text in texts]
        buffer, doc_starts = text_buffer(texts, self.analyzer.lowercase)
        if self._scanned is not None:
            return Buffered(buffer, doc_starts)
        starts, lengths = token_spans(buffer, self._kind, self._shortest)
        rows = np.repeat(np.arange(len(texts)), np.diff(np.searchsorted(starts, doc_starts), append=len(starts)))
        return Tokens(len(texts), buffer, starts, lengths, rows, *distinct_tokens(buffer, starts, lengths))

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
                    n, n_new = scanner.wordscan.scan_chars(buffer, *self.analyzer.ngram_range, doc_starts, *table)
                    if n == -2:
                        raise ValueError(f"room for {most} character n-grams, fewer than the batch has")
                else:
                    n, n_new = scanner.wordscan.scan(buffer, self._kind, self._shortest, doc_starts, *table)
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
                written, n_new = scanner.wordscan.count(numbers, rows, self._dropped, self._unigram, self._pair_slots,
                                                 self._ngrams, n_columns, indptr, indices, data, pairs)
                if written >= 0:
                    break
            assert self.vocabulary is not None  # only a growing table runs out of pair slots
            self._pair_slots = np.full(2 * len(self._pair_slots), -1, dtype=np.int64)
            scanner.wordscan.build_pairs(*self.vocabulary.pairs(), self._pair_slots)
        if n_new:
            assert self.vocabulary is not None  # only a growing table takes new pairs
            self.vocabulary.add(pair_words(pairs[:n_new]))
            self._n_pairs += n_new
        return CountMatrix(indptr, indices[:written], data[:written], n_columns + n_new)

    def _rehash_words(self, n_slots: int) -> None:
        """Give the compiled scanner ``n_slots`` slots (a power of two), filled with the words."""
        assert self._scanned is not None
        lengths = self._scanned[0]
        slots, n = np.full(2 * n_slots, -1, dtype=np.int64), len(lengths)
        if scanner.wordscan.intern(self._store, self._store_starts, lengths, slots, np.empty(n, np.int64),
                            np.empty(n, np.int64)) != n:
            raise ValueError(f"{n} words do not fit under half of {n_slots} slots")
        self._scanned = lengths, slots

    def _take_words(self, buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
        """Keep the new words the compiled scanner numbered (the spans of ``buffer``, already in
        its slots) in a growing table (stop words are in the table from the start, so none of
        these is one)."""
        self._append_words(spans_joined(buffer, starts, lengths), lengths, np.zeros(len(lengths), dtype=bool))
        assert self._scanned is not None
        self._scanned = np.concatenate([self._scanned[0], lengths]), self._scanned[1]

    def _append_words(self, joined: np.ndarray, lengths: np.ndarray, dropped: np.ndarray) -> np.ndarray:
        """Number new words (their bytes, a NUL after each), those in ``dropped`` to be dropped;
        in a growing table whose analyzer counts single words, each other one gets a column.
        Their numbers."""
        numbers = np.arange(len(self._store_starts), len(self._store_starts) + len(lengths), dtype=np.int64)
        self._store_starts = np.concatenate([self._store_starts, len(self._store) - PAD + np.cumsum(lengths + 1)
                                             - (lengths + 1)])
        self._store = np.concatenate([self._store[:len(self._store) - PAD], joined, np.zeros(PAD, np.uint8)])
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
        scanner.wordscan.sort_words(self._store, self._store_starts, order, ord("]") if self._bracketed else 0)
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
        known = tokens != NO_TOKEN  # an unknown token (fixed table) still parts the words around it
        columns, column_rows = [], []
        if self._ngrams & 1:
            columns.append(self._unigram[tokens[known]])
            column_rows.append(rows[known])
        if self._ngrams & 2:
            pairs = (rows[:-1] == rows[1:]) & known[:-1] & known[1:]
            first, second = tokens[:-1][pairs], tokens[1:][pairs]
            columns.append(self._pair_columns_of(pair_keys(first, second)))
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
                    or not same_bytes(buffer, starts[at], self._store, self._store_starts[known], lengths[at])):
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
            strings, joined = token_strings(buffer, starts, lengths)
            self.strings += strings
        else:
            joined = spans_joined(buffer, starts, lengths)
        dropped = np.full(len(starts), stop_words)
        if self.vocabulary is not None and self.analyzer.stop_words:
            dropped[:] = [s in self.analyzer.stop_words for s in strings]
        numbers = self._append_words(joined, lengths, dropped)
        self._tokens.add(keys, numbers)
        return numbers

    # --- bigrams ---------------------------------------------------------------------------

    def _pair_columns_of(self, pairs: np.ndarray) -> np.ndarray:
        """The column of each bigram, given as ``first << 32 | second`` token numbers."""
        unique, first, inverse = unique_first(mix64(pairs))
        columns = self._pairs.get(unique)
        missing = np.flatnonzero(columns < 0)
        if self.vocabulary is not None and len(missing):
            new_pairs = pairs[first[missing]]
            columns[missing] = self.vocabulary.add(pair_words(new_pairs))
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
            joined = spans_joined(self._store, self._store_starts[flat[present]], lengths[flat[present]])
            joined[joined == 0] = np.where(followed.ravel()[present], 32, 10)
            if self._chars:
                joined[joined == NUL_IN_WORD] = 0
            blocks.append(bracketed_terms(joined) if self._bracketed else joined)
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
            keys = pair_keys(numbers[at], tokens[at + n - 1])
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
        unique, first, inverse = unique_first(mix64(keys))
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
            keys = pair_keys(numbers, words[firsts + n - 1])
            numbers = self._gram_numbers(n, keys, grow=True)[0]
            ending = sizes == n
            if n > 2:
                self._gram_columns[n][numbers[ending]] = columns[ending]

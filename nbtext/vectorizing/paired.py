"""Words and character n-grams side by side (``--char-ngrams``): two tables, one vocabulary."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..analysis import Analyzer
from ..matrices import CountMatrix
from ..terms import PackedTerms, pack_terms
from .buffers import Buffered, TokenClash, Tokens, packed_spans, term_spans
from .words import TableColumns, WordTable, WordVocabulary


class PairedVocabulary(TableColumns):
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
        starts = term_spans(word_blob, len(words))[0]
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
        starts, lengths = term_spans(blob, len(terms))
        if (lengths < 1).any():
            raise TokenClash  # not a term this path makes
        is_char = blob[starts] == ord("[")
        if (lengths[is_char] < 3).any() or (blob[starts[is_char] + lengths[is_char] - 1] != ord("]")).any():
            raise TokenClash
        words, chars = np.flatnonzero(~is_char), np.flatnonzero(is_char)
        parts = (WordTable.for_terms(_word_part(analyzer),
                                     PackedTerms(packed_spans(blob, starts[words], lengths[words]), len(words))),
                 WordTable.for_terms(_char_part(analyzer), PackedTerms(
                     packed_spans(blob, starts[chars] + 1, lengths[chars] - 2), len(chars)), bracketed=True))
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


def _word_part(analyzer: Analyzer) -> Analyzer:
    return replace(analyzer, char_ngrams=None)


def _char_part(analyzer: Analyzer) -> Analyzer:
    assert analyzer.char_ngrams is not None
    return Analyzer(analyzer="char_wb", ngram_range=analyzer.char_ngrams, lowercase=analyzer.lowercase)

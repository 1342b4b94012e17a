"""``Vectorizer``: texts to counts against a growing vocabulary, by a word table where one covers
the analyzer, by ``Analyzer`` and ``count_features`` otherwise (the same counts)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ..analysis import Analyzer
from ..cores import run_ahead
from ..matrices import CountMatrix
from ..terms import GrowingVocabulary, count_features
from . import scanner
from .buffers import BYTE_KINDS, TokenClash
from .hashed import BucketVocabulary, HashedTable, without_hashing
from .paired import PairedTable, PairedVocabulary
from .words import TableColumns, WordTable, WordVocabulary

#: Batches whose tokens are found ahead of the one being counted.
PREFETCH_BATCHES = 2


def supports(analyzer: Analyzer) -> bool:
    """Whether this path gives ``analyzer``'s features: tokens (runs of word bytes, of any kind
    but marks) and their n-grams;
    or, with the compiled scanner, character n-grams inside words (``char_wb``), alone or
    beside words; each hashed or not."""
    if analyzer.hash_features is not None:
        return supports(without_hashing(analyzer))
    if analyzer.tokens not in BYTE_KINDS:  # marks, each a token of its own, which a run of bytes is not
        return False
    if analyzer.analyzer == "char_wb":
        return scanner.wordscan is not None
    return analyzer.char_ngrams is None or scanner.wordscan is not None


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
        if isinstance(vocabulary, TableColumns):
            vocabulary = vocabulary.as_strings()
        return count_features([self.analyzer(text) for text in texts], vocabulary)


#: Any of the tables: what ``fixed_table`` gives a model.
AnyTable = WordTable | PairedTable | HashedTable

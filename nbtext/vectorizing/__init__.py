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

The features and counts are exactly those of ``Analyzer`` + ``terms.count_features`` (the
tests hold the paths equal on real corpora); character n-grams without the compiled scanner,
which this path does not cover, keep the plain path.
Joined tokens are runs that go on through the joining bytes (``.``, ``@``, ``'``, ``-``),
trimmed of those at their ends. A batch in which two different tokens share a hash is
counted by the plain path too.
"""

from __future__ import annotations

from .buffers import BYTE_KINDS, TokenClash
from .hashed import HASHED_TABLE_TERMS, BucketVocabulary, HashedTable, crc32_of_terms
from .paired import PairedTable, PairedVocabulary
from .vectorizer import AnyTable, Vectorizer, fixed_table, supports
from .words import WordTable, WordVocabulary

__all__ = ["BYTE_KINDS", "HASHED_TABLE_TERMS", "AnyTable", "BucketVocabulary", "HashedTable", "PairedTable",
           "PairedVocabulary", "TokenClash", "Vectorizer", "WordTable", "WordVocabulary", "crc32_of_terms",
           "fixed_table", "supports"]

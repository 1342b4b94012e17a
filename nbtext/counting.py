"""Counting: each document's counts weighed (tf, unit length), and the per-class sums Naive
Bayes needs, exact, so that counts from separate runs, processes or workers add up to one run's,
and can be taken back out.

Everything here is numpy only, so that classifying a document never pays for importing scipy.
``ClassCounts`` gathers the sufficient statistics of all three Naive Bayes variants as plain
sums; ``FrozenCounts`` is the finished form a model file keeps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .checks import array_of, checked, counts_in, indices_within
from .errors import DataError, NotLearnedError
from .matrices import ColumnMatrix, CountMatrix, unique_inverse, used_columns
from .terms import GrowingVocabulary, PackedTerms, count_features, pack_terms, sorted_union

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


def _check_label_kinds(classes: Sequence[Any]) -> None:
    """A TypeError where some class labels are strings and others not: they cannot be sorted
    into one list of classes (``labels_of`` names the document where one batch mixes them;
    this catches a batch whose labels are all of the other kind)."""
    first = classes[0]
    other = next((label for label in classes if isinstance(label, str) is not isinstance(first, str)), None)
    if other is not None:
        raise TypeError(f"class label {other!r} is {type(other).__name__}, where {first!r} is "
                        f"{type(first).__name__}: labels must be all strings or none")


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


#: Where `max_df` keeps fewer documents than `min_df`, whatever the counts.
DF_CONFLICT = "`max_df` keeps fewer documents than `min_df`; raise `max_df` or lower `min_df`"


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

    def merge(self, *others: FrozenCounts) -> FrozenCounts:
        """Counts of these runs together, as if all their documents had been counted at once
        (in one pass over all of them, however many)."""
        for other in others:
            if (self.tf, self.doc_norm) != (other.tf, other.doc_norm):
                raise DataError(
                    f"cannot add counts weighted differently: tf={self.tf}, doc_norm={self.doc_norm} "
                    f"vs tf={other.tf}, doc_norm={other.doc_norm}"
                )
        every = (self, *others)
        terms, term_maps = sorted_union(*(part.terms for part in every))
        classes, class_maps = sorted_union(*(part.classes for part in every))
        parts, class_docs = [], np.zeros(len(classes))
        for part, term_map, class_map in zip(every, term_maps, class_maps):
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


#: What ``FrozenCounts.to_dict`` writes.
_COUNTS_KEYS = {"terms", "n_terms", "classes", "class_index", "term_index", "values", "class_docs", "tf", "doc_norm"}


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
        # (bincount gives integers where there is nothing to count: a table read without text)
        values[name] = np.bincount(where, weights=column, minlength=len(keys)).astype(np.float64, copy=False)
    width = max(len(classes), 1)
    return FrozenCounts(terms, classes, keys % width, keys // width, values, class_docs, tf, doc_norm)

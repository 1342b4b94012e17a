"""Folds: stratified k-fold splits, held-out parts, and out-of-fold scores.

Documents are counted once, by fold and class and each on its own; a fold's training counts are
regrouped from those (exact sums), so that k folds cost k model builds, not k trainings. The
documents are held in memory, so this is for corpora that fit in it."""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .analysis import Analyzer
from .batches import BATCH_SIZE
from .counting import ClassCounts, FrozenCounts
from .errors import DataError
from .matrices import CountMatrix
from .metrics import text_groups
from .model import Model
from .phrasing import plural
from .readers.document import Document, label_digest, labels_of, texts_of_several_labels
from .terms import count_features
from .vectorizing.vectorizer import Vectorizer, supports


def stratified_folds(labels: Sequence[str], k: int, seed: int) -> np.ndarray:
    """The fold (0..k-1) of each document: every class spread evenly, shuffled with ``seed``.

    >>> stratified_folds(["a"] * 4 + ["b"] * 2, 2, seed=0).tolist()
    [1, 0, 0, 1, 0, 1]
    """
    if k < 2:
        raise DataError("cross-validation needs at least 2 folds")
    classes = list(_shuffled_classes(labels, seed))
    largest = max((len(members) for members in classes), default=0)
    if largest < 2:
        raise DataError(f"no class has more than {largest:,} {plural(largest, 'document')}: cross-validation needs a "
                        "class of 2 or more to fill 2 folds; label more documents")
    if k > largest:  # each class fills folds from the first, so the last ones would hold nothing
        raise DataError(f"{k} folds, but the largest class has {largest:,} {plural(largest, 'document')}: some folds "
                        f"would have nothing to test; use at most {largest:,}")
    fold = np.empty(len(labels), dtype=np.int64)
    for members in classes:
        fold[members] = np.arange(len(members)) % k
    return fold


def several_labels(labels: Sequence[str], digests: np.ndarray) -> int:
    """How many texts (their digests) came with more than one label, each read as one copy a
    label (``ReadReport.repeated`` counts them so as a corpus is read).

    >>> several_labels(["a", "a", "b"], np.array([1, 1, 2], dtype=np.uint64))
    0
    >>> several_labels(["a", "b", "b", "c"], np.array([1, 1, 2, 2], dtype=np.uint64))
    2
    """
    texts = np.asarray(digests, dtype=np.uint64)
    return texts_of_several_labels(texts, texts ^ np.array([label_digest(label) for label in labels], dtype=np.uint64))


def text_folds(labels: Sequence[str], digests: np.ndarray, k: int, seed: int) -> np.ndarray:
    """``stratified_folds``; but where some text came with several labels (one copy a label),
    folds of distinct texts, stratified by each text's first label, so that a text's copies
    are tested together and never trained on beside themselves.

    >>> text_folds(["a", "b", "a", "a"], np.array([5, 5, 6, 7], dtype=np.uint64), 2, seed=0).tolist()
    [0, 0, 0, 1]
    """
    if not several_labels(labels, digests):
        return stratified_folds(labels, k, seed)
    first, number = text_groups(digests)
    return stratified_folds([labels[i] for i in first], k, seed)[number]


def tested_on_copies(digests: np.ndarray, fold_of: np.ndarray) -> np.ndarray:
    """Whether each document's text (its digest) is also that of a document in another fold:
    one the model that scores it was trained on.

    >>> tested_on_copies(np.array([7, 5, 7, 9, 9], dtype=np.uint64), np.array([0, 1, 1, 0, 0])).tolist()
    [True, False, True, False, False]
    """
    pairs = np.unique(np.stack([np.asarray(digests, dtype=np.uint64), np.asarray(fold_of, dtype=np.uint64)], axis=1),
                      axis=0)
    texts, folds_of_text = np.unique(pairs[:, 0], return_counts=True)
    return folds_of_text[np.searchsorted(texts, digests)] > 1


def held_out(labels: Sequence[str], fraction: float, seed: int) -> np.ndarray:
    """A stratified boolean mask of the documents held out for testing; for no documents, an
    empty one, and training on none then says so."""
    if not 0 < fraction < 1:
        raise DataError("`fraction` must be between 0 and 1, e.g. 0.2")
    mask = np.zeros(len(labels), dtype=bool)
    for members in _shuffled_classes(labels, seed):
        held = round(len(members) * fraction)
        if held == len(members):
            raise DataError(f"`fraction` {fraction} holds out every document of class "
                            f"{labels[members[0]]!r} ({held:,}), leaving none to train on")
        mask[members[:held]] = True
    if len(labels) and not mask.any():
        raise DataError(f"`fraction` {fraction} holds out no documents of the {len(labels):,}; "
                        f"use a larger fraction")
    return mask


def _shuffled_classes(labels: Sequence[str], seed: int) -> Iterator[list[int]]:
    """The positions of each class's documents, classes in sorted order, each list shuffled
    by one generator seeded with ``seed``."""
    by_class: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        by_class.setdefault(label, []).append(i)
    rng = random.Random(seed)
    for label in sorted(by_class):
        members = by_class[label]
        rng.shuffle(members)
        yield members


@dataclass(frozen=True)
class FoldCounts:
    """Documents counted once by (fold, class), from which the counts of any set of folds are
    regrouped with no string work. The sums are exact (``counting.on_grid``), so they equal
    counting those folds' documents directly, bit for bit. Each document's counts are kept
    too, for scoring it where its fold is held out."""

    joint: FrozenCounts
    #: For each class of ``joint``: its fold, and its class as an index into ``classes``.
    fold: np.ndarray
    label: np.ndarray
    #: The sorted labels.
    classes: list[str]
    #: Each document's raw counts over the terms of ``joint``, and its fold.
    documents: CountMatrix
    document_fold: np.ndarray

    def without(self, fold: int) -> FrozenCounts:
        """The counts of every fold but ``fold`` (-1: of all folds). A class with no documents
        there is left out, as counting them directly would leave it out."""
        kept = self.fold != fold
        present = np.unique(self.label[kept])
        position = np.full(len(self.classes), -1, dtype=np.int64)
        position[present] = np.arange(len(present))
        return self.joint.regrouped(np.where(kept, position[self.label], -1), [self.classes[i] for i in present])

    def held_out(self, fold: int) -> CountMatrix:
        """The raw counts of the documents of ``fold`` (in their order) over the terms of
        ``without(fold)``: what counting them against those terms gives, with no string work."""
        in_use = np.zeros(len(self.joint.terms), dtype=bool)  # the terms without(fold) keeps
        in_use[self.joint.term_index[(self.fold != fold)[self.joint.class_index]]] = True
        column = np.where(in_use, np.cumsum(in_use) - 1, -1)
        held = self.documents.rows(np.flatnonzero(self.document_fold == fold)).remapped(column, int(in_use.sum()))
        return CountMatrix(held.indptr, held.indices, held.data.astype(np.float64), held.n_features)


def _compact(matrix: CountMatrix) -> CountMatrix:
    """``matrix`` in half the memory where that loses nothing: column numbers in 32 bits, and
    the counts (whole numbers) too while float32 holds them exactly."""
    indices = matrix.indices.astype(np.int32) if matrix.n_features <= 2**31 else matrix.indices
    data = matrix.data.astype(np.float32) if matrix.data.max(initial=0) < 2**24 else matrix.data
    return CountMatrix(matrix.indptr, indices, data, matrix.n_features)


def _renumbered(batches: list[CountMatrix], column: np.ndarray, n_terms: int) -> CountMatrix:
    """The rows of ``batches`` in one matrix, their column j renumbered ``column[j]`` of
    ``n_terms`` and each row's values in column order (as counting against those terms gives).
    ``batches`` is emptied as it goes, so that memory holds the counts about once."""
    entries = np.cumsum([0, *(len(batch.indices) for batch in batches)])
    rows = np.cumsum([0, *(batch.shape[0] for batch in batches)])
    indptr = np.zeros(rows[-1] + 1, dtype=np.int64)
    indices = np.empty(entries[-1], dtype=column.dtype)
    data = np.empty(entries[-1], dtype=np.result_type(np.float32, *(batch.data for batch in batches)))
    batches.reverse()
    for i in range(len(rows) - 1):
        batch = batches.pop().remapped(column, n_terms).in_column_order()
        indptr[rows[i] + 1:rows[i + 1] + 1] = batch.indptr[1:] + entries[i]
        indices[entries[i]:entries[i + 1]], data[entries[i]:entries[i + 1]] = batch.indices, batch.data
    return CountMatrix(indptr, indices, data, n_terms)


def counts_by_fold(documents: Sequence[Any], labels: Sequence[str], fold_of: np.ndarray, *, tf: str,
                   doc_norm: str | None, analyzer: Analyzer | None = None,
                   also: Sequence[tuple[str, str | None]] = ()) -> FoldCounts:
    """The documents counted once, by their fold and label, and each on its own (for
    ``FoldCounts.held_out``): texts that ``analyzer`` turns into features (by ``vectorizing``
    where it can), or without one, features already made. The sums of the weightings ``also``
    (tf, doc_norm) are made in the same pass: ``weighed_as`` of a fold's counts takes one."""
    names = [f"{f}\t{label}" for f, label in zip(fold_of, labels)]
    if analyzer is None:
        joint = ClassCounts(tf=tf, doc_norm=doc_norm, also=also)
        vectorize: Callable[[Sequence[Any]], CountMatrix] = functools.partial(count_features,
                                                                             vocabulary=joint.vocabulary)
    else:
        vectorize = Vectorizer(analyzer)
        joint = ClassCounts(tf=tf, doc_norm=doc_norm, vocabulary=vectorize.vocabulary, also=also)
    batches = []
    for start in range(0, len(documents), BATCH_SIZE):
        counted = vectorize(documents[start:start + BATCH_SIZE])
        joint.add_counts(counted, names[start:start + BATCH_SIZE])
        batches.append(_compact(counted))
    counts, column = joint.finalized_with_columns()
    n_terms = len(counts.terms)
    column = column.astype(np.int32) if n_terms <= 2**31 else column
    fold_label = [name.split("\t", 1) for name in counts.classes]
    classes = sorted({label for _, label in fold_label})
    number = {label: i for i, label in enumerate(classes)}
    return FoldCounts(counts, np.array([int(f) for f, _ in fold_label]),
                      np.array([number[label] for _, label in fold_label]), classes,
                      _renumbered(batches, column, n_terms), np.asarray(fold_of))


def out_of_fold(documents: Sequence[Document], labels: Sequence[str], analyzer: Analyzer, *, tf: str,
                doc_norm: str | None, settings: dict[str, Any] | None, folds: int,
                seed: int) -> tuple[FrozenCounts, np.ndarray]:
    """The counts of all ``documents``, and each document's log-probabilities (columns in
    sorted class order) from the model trained on the other stratified folds; every class must
    have a document in every fold's training part (``labelled_for_folds`` checks it).
    """
    fold_of = stratified_folds(labels, folds, seed)
    texts = [doc.text for doc in documents]
    if supports(analyzer):  # counted straight from the text
        by_fold = counts_by_fold(texts, labels, fold_of, tf=tf, doc_norm=doc_norm, analyzer=analyzer)
    else:  # analyzed into strings, let go once counted
        by_fold = counts_by_fold([analyzer(text) for text in texts], labels, fold_of, tf=tf, doc_norm=doc_norm)
    log_proba = np.empty((len(documents), len(by_fold.classes)))
    for f in range(folds):
        held = Model(analyzer, by_fold.without(f), settings)
        log_proba[fold_of == f] = held.answer_counts(held.restrict(by_fold.held_out(f)))
    return by_fold.without(-1), log_proba


def labelled_for_folds(documents: Iterable[Document], folds: int,
                       purpose: str) -> tuple[list[Document], list[str], list[str]]:
    """The documents, their labels and the sorted classes, checked for ``folds``-fold
    cross-validation: every document labelled, two classes or more, ``folds`` documents a class."""
    documents = list(documents)
    labels = labels_of(documents)
    classes = sorted(set(labels))
    if len(classes) < 2:
        raise DataError(f"{purpose} needs at least two classes; the data have {', '.join(classes) or 'none'}")
    sizes = Counter(labels)
    smallest = min(classes, key=sizes.__getitem__)
    if sizes[smallest] < folds:
        raise DataError(f"class {smallest!r} has {sizes[smallest]:,} {plural(sizes[smallest], 'document')}; "
                        f"{purpose} needs at least {folds} per class")
    return documents, labels, classes

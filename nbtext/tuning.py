"""Model selection: stratified cross-validation, held-out splits and a grid search over settings.

Documents are analyzed and counted once per analyzer, by fold and class and each on its own,
with the sums of every weighting (tf, doc_norm) the settings use made in the same pass; each
fold's training counts are regrouped from those, its held-out documents' counts taken from
theirs, and every NB setting (variant, alpha, IDF, pruning) is then a cheap rebuild. The
data are held in memory, so this is for corpora that fit in it.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import json
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .analysis import ANALYZERS, TOKENS, Analyzer
from .counting import DOC_NORMS, TF_MODES, ClassCounts, CountMatrix, FrozenCounts, count_features
from .errors import DataError
from .limits import MAX_ALPHA
from .metrics import evaluate, right_answers, seen_and_unseen
from .model import Model
from .naive_bayes import VARIANTS, SharedColumns
from .readers import Document
from .readers.folders import is_pipe
from .readers.report import labels_of, plural
from .training import BATCH_SIZE, DEFAULT_ANALYZER, DEFAULT_DOC_NORM, DEFAULT_TF, default_tokens, train
from .vectorizing import Vectorizer, supports

#: The settings that say how text becomes features.
ANALYZER_KEYS = ("analyzer", "ngram_range", "char_ngrams", "tokens")
#: Settings fixed when documents are counted; the rest are applied when a model is built.
COUNTING_KEYS = (*ANALYZER_KEYS, "tf", "doc_norm")

#: The default search, `nbtext tune` with no --grid: variant x alpha x Rennie's transforms x
#: min_df on word uni+bigrams of words of two or more letters, by 3-fold
#: cross-validation. Nested cross-validation scores it on every shared corpus (README,
#: "Accuracy"); an earlier, wider default (240 settings with unigrams, raw tf and alpha 0.01,
#: 5 folds) scored lower on SMS and both movie-review sets, and the same grid over train's
#: tokens, one-letter words too, lower on R52 and movie-review.
DEFAULT_GRID: dict[str, list[Any]] = {
    "variant": ["complement", "multinomial"],
    "alpha": [0.03, 0.1, 0.3, 1.0],
    "ngram_range": [(1, 2)],
    "tokens": ["words"],  # not train's default (all-words), which a setting that leaves tokens out gets
    "tf": ["binary", "log"],
    "doc_norm": [None, "l2"],
    "idf": [False, True],
    "min_df": [1, 2],
}
DEFAULT_FOLDS = 3


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
        raise DataError("--test-split must be between 0 and 1, e.g. 0.2")
    mask = np.zeros(len(labels), dtype=bool)
    for members in _shuffled_classes(labels, seed):
        held = round(len(members) * fraction)
        if held == len(members):
            raise DataError(f"--test-split {fraction} holds out every document of class "
                            f"{labels[members[0]]!r} ({held:,}), leaving none to train on")
        mask[members[:held]] = True
    if len(labels) and not mask.any():
        raise DataError(f"--test-split {fraction} holds out no documents of the {len(labels):,}; "
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


@dataclass
class Trial:
    """One point of the grid and its score on each fold."""

    settings: dict[str, Any]
    metric: str = "accuracy"
    reports: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    #: Folds where the setting left no term to train on (all pruned, or no words): their model
    #: answered every document with the class priors.
    termless_folds: int = 0
    #: The fold of each document, and its answer where that fold was held out: whether its
    #: most probable class was its label.
    folds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    right: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))

    @property
    def scores(self) -> list[float]:
        return [report[self.metric] for report in self.reports]

    @property
    def mean(self) -> float:
        return statistics.mean(self.scores)

    @property
    def std(self) -> float:
        return statistics.pstdev(self.scores)

    def summary(self) -> dict[str, Any]:
        """Mean and standard deviation over the folds of the headline figures."""
        out: dict[str, Any] = {"folds": len(self.reports)}
        for name in ("accuracy", "macro_f1", "log_loss"):
            values = [report[name] for report in self.reports]
            out[name] = {"mean": statistics.mean(values), "std": statistics.pstdev(values)}
        return out

    def on_copies(self, digests: Sequence[int] | np.ndarray) -> dict[str, Any]:
        """How many documents (of these text digests, in order) a fold scored by a model
        trained on a copy of their text in another fold, which flatters them, and the
        accuracy on the others (``metrics.seen_and_unseen``), with the number of documents."""
        seen = tested_on_copies(np.asarray(digests, dtype=np.uint64), self.folds)
        return {"n_documents": len(self.right), **seen_and_unseen(self.right, seen)}


#: Keys a grid may hold: DEFAULT_GRID's and the other model and analyzer settings.
GRID_KEYS = {*DEFAULT_GRID, "norm", "max_df", "fit_prior", *ANALYZER_KEYS}
#: The settings that name one of a few choices, and those choices.
NAMED_CHOICES: dict[str, Sequence[str | None]] = {
    "variant": sorted(VARIANTS), "tf": TF_MODES, "doc_norm": DOC_NORMS, "analyzer": ANALYZERS, "tokens": TOKENS,
}


def read_grid(spec: str | None) -> dict[str, list[Any]]:
    """A grid given as JSON text or as the path of a JSON file, n-gram ranges as tuples;
    DEFAULT_GRID when none is given.

    >>> read_grid('{"alpha": [0.1, 1], "ngram_range": [[1, 2]], "char_ngrams": [null]}')
    {'alpha': [0.1, 1], 'ngram_range': [(1, 2)], 'char_ngrams': [None]}
    >>> read_grid(None) == DEFAULT_GRID
    True
    >>> read_grid('{"alpha": [0.1, 0]}')
    Traceback (most recent call last):
    nbtext.errors.DataError: alpha 0: the smoothing must be a number above 0 and at most 1e+09, e.g. 0.1
    >>> read_grid('{"idf": ["false"]}')
    Traceback (most recent call last):
    nbtext.errors.DataError: idf "false": use true or false (JSON, no quotes)
    >>> read_grid('{"tf": ["lg"]}')
    Traceback (most recent call last):
    nbtext.errors.DataError: tf "lg": use one of "raw", "binary", "log" (did you mean "log"?)
    >>> read_grid('{"alpha": 0.1}')
    Traceback (most recent call last):
    nbtext.errors.DataError: alpha 0.1: give a list of the values to try, [0.1] for that one alone
    """
    if not spec:
        return dict(DEFAULT_GRID)
    where = ""
    if os.path.isfile(spec) or is_pipe(spec):  # a pipe: bash's <(...)
        where = f"{spec}: "
        with open(spec, "rb") as file:
            spec = file.read().decode("utf-8", "replace")
    elif not spec.lstrip().startswith(("{", "[")):  # a file name mistyped, not JSON mistyped
        raise DataError(f"{spec}: no such file, nor a JSON object; e.g. '{{\"alpha\": [0.1, 1.0]}}'")
    try:
        grid = json.loads(spec)
    except json.JSONDecodeError as error:
        at = f", line {error.lineno}" if where else ""
        raise DataError(f"{where}not JSON ({error.msg}{at}); e.g. '{{\"alpha\": [0.1, 1.0]}}'") from None
    if not isinstance(grid, dict) or not grid:
        raise DataError(f"{where}expected a JSON object of settings, each with a list of values to try; e.g. "
                        "'{\"alpha\": [0.1, 1.0]}'")
    unknown = sorted(set(grid) - GRID_KEYS)
    if unknown:
        close = difflib.get_close_matches(unknown[0], GRID_KEYS, n=1)
        raise DataError(f"unknown setting {unknown[0]!r}{f' (did you mean {close[0]!r}?)' if close else ''}; "
                        f"use {sorted(GRID_KEYS)}")
    for key, values in grid.items():
        if not isinstance(values, list):  # one value meant as the only one to try
            raise DataError(f"{where}{key} {json.dumps(values)}: give a list of the values to try, "
                            f"[{json.dumps(values)}] for that one alone")
        if not values:
            raise DataError(f"{where}{key} []: no value to try; leave {key} out for train's default")
        if key in ("ngram_range", "char_ngrams") and len(values) == 2 and all(type(n) is int for n in values):
            raise DataError(f"{where}{key} {json.dumps(values)}: give a list of the ranges to try, each [MIN, MAX]: "
                            f"[{json.dumps(values)}] for that one alone")
    return {key: [_grid_value(key, value) for value in values] for key, values in grid.items()}


def _grid_value(key: str, value: Any) -> Any:
    """One value of ``key`` in a grid, as the search takes it; a DataError that says what to
    write where JSON's types would slip through (``"false"`` is a true string), and names the
    choices where one is misspelt (before the data is read, which takes minutes on a corpus)."""
    def is_count(n: Any) -> bool:
        return isinstance(n, int) and not isinstance(n, bool)

    shown = json.dumps(value)
    if key in NAMED_CHOICES and value not in NAMED_CHOICES[key]:
        choices = NAMED_CHOICES[key]
        close = difflib.get_close_matches(value, [c for c in choices if c], n=1) if isinstance(value, str) else []
        raise DataError(f"{key} {shown}: use one of {', '.join(map(json.dumps, choices))}"
                        + (f" (did you mean {json.dumps(close[0])}?)" if close else ""))
    if key in ("idf", "norm", "fit_prior") and not isinstance(value, bool):
        raise DataError(f"{key} {shown}: use true or false (JSON, no quotes)")
    if key in ("ngram_range", "char_ngrams"):
        if value is None and key == "char_ngrams":
            return None
        if not (isinstance(value, list) and len(value) == 2 and all(map(is_count, value))
                and 1 <= value[0] <= value[1]):
            raise DataError(f"{key} {shown}: use [MIN, MAX] lengths, 1 <= MIN <= MAX, e.g. [1, 2]"
                            + (", or null for none" if key == "char_ngrams" else ""))
        return tuple(value)
    if key in ("min_df", "max_df") and not (is_count(value) and value >= 0
                                           or isinstance(value, float) and 0 <= value <= 1):
        raise DataError(f"{key} {shown}: use a document count (e.g. 2) or a proportion from 0.0 to 1.0 (e.g. 0.5)")
    if key == "alpha" and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                               and 0 < value <= MAX_ALPHA):  # JSON reads NaN and Infinity too
        raise DataError(f"alpha {shown}: the smoothing must be a number above 0 and at most {MAX_ALPHA:g}, e.g. 0.1")
    return value


def expand(grid: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, in a stable order."""
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


#: Decimal places a mean or spread is compared to: scores are counted over a fold's documents,
#: so settings as good as each other can differ by a bit of rounding, which must not rank them.
_RANK_PLACES = 12


def rank(trials: Iterable[Trial]) -> list[Trial]:
    """Best first: the highest mean score, then the lowest spread over folds, then grid order.

    Means and spreads are compared to ``_RANK_PLACES`` decimals. Over folds of 1,600 documents,
    1,586, 1,583 and 1,588 right is as good as 1,586, 1,584 and 1,587, but the floats of those
    accuracies average to 0.9910416666666667 and 0.9910416666666666: compared as they are,
    the setting with the larger spread would come first.
    """
    return sorted(trials, key=lambda trial: (-round(trial.mean, _RANK_PLACES), round(trial.std, _RANK_PLACES)))


def cross_validate(
    documents: Sequence[Document],
    candidates: Iterable[dict[str, Any]],
    *,
    k: int = 5,
    seed: int = 0,
    base_analyzer: Analyzer | None = None,
    metric: str = "accuracy",
    progress: Callable[[int], None] | None = None,
    folds: Sequence[int] | np.ndarray | None = None,
) -> list[Trial]:
    """Score each candidate setting by stratified k-fold cross-validation.

    A candidate is a dict of Model settings plus any of ``COUNTING_KEYS``; what it leaves out
    is nbtext's default, as `nbtext train` would give it (of ``base_analyzer``, where given,
    for the analyzer's keys: mail's header tokens, say). Documents are
    counted once per analyzer (see ``counts_by_fold``), with the sums of every weighting (tf,
    doc_norm) its candidates use: from the text by the word table where it covers the
    analyzer, as training counts, else from features made once. ``progress`` is called once
    per (fold, candidate) done. ``folds``, where given, is each document's fold, 0 to k - 1
    with none empty, in place of stratified folds (``k`` and ``seed`` then go unused): a
    corpus's own parts, say, or a training and a test part.
    """
    labels = labels_of(documents)
    if not labels:
        raise DataError("no documents to cross-validate")
    if len(set(labels)) < 2:
        raise DataError("cross-validation needs at least two classes")
    if folds is None:
        fold_of = stratified_folds(labels, k, seed)
    else:
        fold_of = np.asarray(folds, dtype=np.int64)
        k = int(fold_of.max(initial=-1)) + 1
        if fold_of.shape != (len(labels),) or k < 2 or not np.array_equal(np.unique(fold_of), np.arange(k)):
            raise ValueError(f"folds must give each of the {len(labels):,} documents a fold, 0 to k - 1 for "
                             "some k of 2 or more, none of them empty")
    trials = [Trial(dict(c), metric, folds=fold_of, right=np.zeros(len(labels), dtype=bool)) for c in candidates]
    base = base_analyzer or DEFAULT_ANALYZER
    # Settings by analyzer, then by how documents are weighed: each analyzer's documents are
    # counted once, with the sums of every weighting its settings use, and let go before the
    # next analyzer's are counted.
    by_analyzer: dict[tuple, dict[tuple[str, str | None], list[Trial]]] = {}
    for trial in trials:
        weighting = (trial.settings.get("tf", DEFAULT_TF), trial.settings.get("doc_norm", DEFAULT_DOC_NORM))
        key = tuple(str(trial.settings.get(name)) for name in ANALYZER_KEYS)
        by_analyzer.setdefault(key, {}).setdefault(weighting, []).append(trial)
    texts = [doc.text for doc in documents]
    for key in sorted(by_analyzer):
        weightings = by_analyzer[key]
        first = next(iter(weightings.values()))[0].settings
        analyzer = _analyzer_of(first, base)
        (tf, doc_norm), *also = weightings
        if supports(analyzer):  # counted straight from the text, as training counts: the same sums
            by_fold = counts_by_fold(texts, labels, fold_of, analyzer=analyzer, tf=tf, doc_norm=doc_norm, also=also)
        else:
            by_fold = counts_by_fold([analyzer(text) for text in texts], labels, fold_of, tf=tf, doc_norm=doc_norm,
                                     also=also)
        for f in range(k):
            every = by_fold.without(f)  # every weighting's sums, regrouped at once
            held = np.flatnonzero(fold_of == f)
            test_labels = [labels[i] for i in held]
            test_counts = by_fold.held_out(f)  # each setting takes its columns
            for (tf, doc_norm), group in weightings.items():
                _score_fold(group, every.weighed_as(tf, doc_norm), test_counts, held, test_labels, analyzer,
                            progress)
        del by_fold  # before the next analyzer's documents are counted
    return trials


def _analyzer_of(setting: dict[str, Any], base: Analyzer) -> Analyzer:
    """``base`` with the analyzer and n-grams ``setting`` gives (stop words, headers, hashing
    kept). Character n-grams, unless told, get the tokens `nbtext train --analyzer char_wb`
    gives them, whatever the base's word tokens."""
    given = {name: setting[name] for name in ANALYZER_KEYS if name in setting}
    kind = given.get("analyzer", base.analyzer)
    if kind != "word":
        given.setdefault("tokens", default_tokens(kind))
    return replace(base, **given)


def _score_fold(group: list[Trial], frozen: FrozenCounts, test_counts: CountMatrix, held: np.ndarray,
                test_labels: list[str], analyzer: Analyzer, progress: Callable[[int], None] | None) -> None:
    """Score the settings of ``group`` (one analyzer and weighting) on one fold: trained on
    ``frozen``, tested on ``test_counts`` (raw counts over its terms), the documents ``held``."""
    settings = [{key: value for key, value in trial.settings.items() if key not in COUNTING_KEYS}
                for trial in group]
    # Settings that prune and weigh alike (they differ in alpha, priors, Complement's norm, or
    # variant, Bernoulli aside) share their columns, sums and weighed test counts, and the sums
    # of the columns the test documents hold, made once and held while they are scored; each
    # is charged an equal part of making them.
    sharers: dict[tuple, list[int]] = {}
    for i, setting in enumerate(settings):
        sharers.setdefault(Model.columns_key(setting), []).append(i)
    for members in sharers.values():
        started = time.perf_counter()
        first = Model(analyzer, frozen, settings[members[0]])
        test = SharedColumns(first.core, first.restrict(test_counts))
        share = (time.perf_counter() - started) / len(members)
        for i in members:
            started = time.perf_counter()
            model = first if i == members[0] else first.alike(settings[i])
            trial = group[i]
            trial.termless_folds += model.core.n_features_in_ == 0
            log_proba = test.predict_log_proba(model.core)
            trial.reports.append(evaluate(test_labels, log_proba, model.classes))
            trial.right[held] = right_answers(test_labels, log_proba, model.classes)
            trial.seconds += time.perf_counter() - started + share
            if progress is not None:
                progress(1)


def train_setting(documents: Iterable[Document], setting: dict[str, Any], *, base_analyzer: Analyzer | None = None,
                  summary: dict[str, Any] | None = None) -> Model:
    """A model trained on ``documents`` with one candidate ``setting`` of ``cross_validate``
    (the one it scored: the same counting defaults, and the base analyzer's other options)."""
    analyzer = _analyzer_of(setting, base_analyzer or DEFAULT_ANALYZER)
    settings = {key: value for key, value in setting.items() if key not in ANALYZER_KEYS}
    weighting = {"tf": settings.pop("tf", DEFAULT_TF), "doc_norm": settings.pop("doc_norm", DEFAULT_DOC_NORM)}
    return train(documents, analyzer=analyzer, settings=settings, summary=summary, **weighting)


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
        log_proba[fold_of == f] = held.core.predict_log_proba(held.restrict(by_fold.held_out(f)))
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

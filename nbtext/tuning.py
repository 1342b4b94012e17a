"""Model selection: a grid search over settings, each scored by stratified cross-validation.

Documents are analyzed and counted once per analyzer (``folds.counts_by_fold``), with the sums
of every weighting (tf, doc_norm) the settings use made in the same pass; every NB setting
(variant, alpha, IDF, pruning) is then a cheap rebuild of each fold's model. The data are held
in memory, so this is for corpora that fit in it.
"""

from __future__ import annotations

import difflib
import itertools
import json
import os
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .analysis import ANALYZERS, TOKENS, Analyzer
from .counting import DOC_NORMS, TF_MODES, FrozenCounts
from .errors import DataError
from .folds import counts_by_fold, several_labels, tested_on_copies, text_folds
from .limits import MAX_ALPHA
from .matrices import CountMatrix
from .metrics import evaluate, multi_label, right_answers, seen_and_unseen
from .model import Model
from .naive_bayes import VARIANTS, SharedColumns
from .readers import Document
from .readers.document import document_digest, labels_of
from .readers.files import is_pipe
from .tabular import ColumnScorer, ColumnSums
from .training import (
    DEFAULT_ANALYZER,
    DEFAULT_DOC_NORM,
    DEFAULT_TF,
    default_tokens,
    train,
)
from .vectorizing import supports

#: The settings that say how text becomes features.
ANALYZER_KEYS = ("analyzer", "ngram_range", "char_ngrams", "tokens")
#: Settings fixed when documents are counted; the rest are applied when a model is built.
COUNTING_KEYS = (*ANALYZER_KEYS, "tf", "doc_norm")
#: The numeric and categorical columns a setting learns beside the text ("a,b"; "" for none),
#: as train's options name them; a grid gives them as ``columns``, lists of names.
COLUMN_KEYS = ("numeric_columns", "categorical_columns")

#: The default search, `nbtext tune` with no --grid: variant x alpha x Rennie's transforms x
#: min_df on word uni+bigrams of words of two or more letters, by 3-fold
#: cross-validation. Nested cross-validation scores it on every shared corpus (docs/accuracy.md); an earlier, wider default (240 settings with unigrams, raw tf and alpha 0.01,
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
    #: A spam filter's verdicts, each fold's at its own cut-offs, pooled over the folds
    #: (``SpamFilter.judged``'s counts and shares): None for a plain model.
    filter: dict[str, Any] | None = None
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
        for name in ("accuracy", "macro_f1", "log_loss", "micro_f1"):
            if name not in self.reports[0]:  # micro_f1: labels scored as sets, where texts have several
                continue
            values = [report[name] for report in self.reports]
            out[name] = {"mean": statistics.mean(values), "std": statistics.pstdev(values)}
        if self.filter is not None:
            out["filter"] = self.filter
        return out

    def record(self, held: np.ndarray, labels: list[str], log_proba: np.ndarray, classes: Sequence[str],
               digests: np.ndarray | None = None) -> None:
        """One fold's scores: of the documents ``held``, of these ``labels``, given ``log_proba``
        over ``classes``; with the ``digests`` of their texts, their labels as sets too (``micro_f1``)."""
        report = evaluate(labels, log_proba, classes)
        if digests is not None:
            report["micro_f1"] = multi_label(labels, log_proba, classes, digests)["micro"]["f1"]
        self.reports.append(report)
        self.right[held] = right_answers(labels, log_proba, classes)

    def on_copies(self, digests: Sequence[int] | np.ndarray) -> dict[str, Any]:
        """How many documents (of these text digests, in order) a fold scored by a model
        trained on a copy of their text in another fold, which flatters them, and the
        accuracy on the others (``metrics.seen_and_unseen``), with the number of documents."""
        seen = tested_on_copies(np.asarray(digests, dtype=np.uint64), self.folds)
        return {"n_documents": len(self.right), **seen_and_unseen(self.right, seen)}


#: Keys a grid may hold: DEFAULT_GRID's and the other model and analyzer settings.
GRID_KEYS = {*DEFAULT_GRID, "norm", "max_df", "fit_prior", *ANALYZER_KEYS, "columns"}
#: The default search with unlabelled documents (`nbtext tune --unlabelled`, EM): the weight of
#: an unlabelled document, which Nigam et al. chose by cross-validation for each number of
#: labelled documents, as no one weight suits them all (docs/accuracy.md).
EM_GRID: dict[str, list[Any]] = {"em_weight": [0.01, 0.03, 0.1, 0.3, 1.0]}
#: Keys such a grid may hold: EM's options, and the settings that need no recount (EM counts
#: every document once).
EM_GRID_KEYS = {"em_weight", "em_iterations", "variant", "alpha", "idf", "norm", "min_df", "max_df", "fit_prior"}
#: The settings that name one of a few choices, and those choices.
NAMED_CHOICES: dict[str, Sequence[str | None]] = {
    "variant": sorted(VARIANTS), "tf": TF_MODES, "doc_norm": DOC_NORMS, "analyzer": ANALYZERS, "tokens": TOKENS,
}


def read_grid(spec: str | None, *, unlabelled: bool = False) -> dict[str, list[Any]]:
    """A grid given as JSON text or as the path of a JSON file, n-gram ranges as tuples;
    DEFAULT_GRID when none is given. With ``unlabelled`` (a search by EM), a grid of
    ``EM_GRID_KEYS``, and EM_GRID when none is given.

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
    >>> read_grid('{"em_weight": [0.1, 1.5]}', unlabelled=True)
    Traceback (most recent call last):
    nbtext.errors.DataError: em_weight 1.5: the weight of an unlabelled document must be above 0 and at most 1, e.g. 0.1
    """
    if not spec:
        return dict(EM_GRID if unlabelled else DEFAULT_GRID)
    keys = EM_GRID_KEYS if unlabelled else GRID_KEYS
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
    unknown = sorted(set(grid) - keys)
    if unknown and unknown[0] in EM_GRID_KEYS:
        raise DataError(f"{unknown[0]} is searched with unlabelled documents, by EM: add `unlabelled`")
    if unknown and unknown[0] in GRID_KEYS:
        raise DataError(f"{unknown[0]} is not searched with unlabelled documents: EM counts every document once, "
                        f"with its own analyzer; use {sorted(keys)}")
    if unknown:
        close = difflib.get_close_matches(unknown[0], keys, n=1)
        raise DataError(f"unknown setting {unknown[0]!r}{f' (did you mean {close[0]!r}?)' if close else ''}; "
                        f"use {sorted(keys)}")
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
    if key == "columns":
        if not (isinstance(value, list) and all(isinstance(name, str) and name for name in value)):
            raise DataError(f"columns {shown}: use a list of the table's column names to learn beside the text, "
                            '[] for none, e.g. [["size", "tier"], []]')
        return tuple(value)
    if key == "em_weight" and not (isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1):
        raise DataError(f"em_weight {shown}: the weight of an unlabelled document must be above 0 and at most 1, "
                        "e.g. 0.1")
    if key == "em_iterations" and not (is_count(value) and value >= 0):
        raise DataError(f"em_iterations {shown}: use a number of EM steps, 0 or more, e.g. 20")
    if key == "alpha" and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                               and 0 < value <= MAX_ALPHA):  # JSON reads NaN and Infinity too
        raise DataError(f"alpha {shown}: the smoothing must be a number above 0 and at most {MAX_ALPHA:g}, e.g. 0.1")
    return value


def expand(grid: dict[str, list[Any]], numeric: Sequence[str] = (), categorical: Sequence[str] = ()
           ) -> list[dict[str, Any]]:
    """Every combination of the grid's values, in a stable order. Where the documents have
    ``numeric`` and ``categorical`` columns, each setting learns them all (``COLUMN_KEYS``),
    or the ones its ``columns`` names; a grid without ``columns`` tries them all and none, to
    tell whether they help.

    >>> [c["numeric_columns"] for c in expand({"alpha": [1.0]}, ["size"], [])]
    ['size', '']
    """
    grid = dict(grid)
    names = (*numeric, *categorical)
    if "columns" in grid and not names:
        raise DataError("the grid's `columns` are a table's numeric or categorical columns: name them with "
                        "`numeric_columns` or `categorical_columns`")
    if names:
        for chosen in grid.setdefault("columns", [names, ()]):
            unknown = [name for name in chosen if name not in names]
            if unknown:
                raise DataError(f"the grid's columns name {unknown[0]!r}, which is not read; the columns read: "
                                f"{', '.join(names)}")
    keys = list(grid)
    candidates = [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]
    for candidate in candidates:
        if "columns" in candidate:
            chosen = candidate.pop("columns")
            candidate["numeric_columns"] = ",".join(name for name in numeric if name in chosen)
            candidate["categorical_columns"] = ",".join(name for name in categorical if name in chosen)
    return candidates


def column_split(setting: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The numeric and categorical columns a candidate ``setting`` learns."""
    numeric, categorical = (tuple(name for name in (setting.get(key) or "").split(",") if name)
                            for key in COLUMN_KEYS)
    return numeric, categorical


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
    digests: Sequence[int] | np.ndarray | None = None,
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
    corpus's own parts, say, or a training and a test part. A candidate's ``COLUMN_KEYS`` name
    the documents' numeric and categorical ``values`` it learns beside the text; their scores
    are made once per fold for every setting that learns the same ones. ``digests``, where
    given, are the documents' ``document_digest``s, as a read report keeps them, not made again.
    """
    labels = labels_of(documents)
    if not labels:
        raise DataError("no documents to cross-validate")
    if len(set(labels)) < 2:
        raise DataError("cross-validation needs at least two classes")
    text_digests = np.asarray([document_digest(doc) for doc in documents] if digests is None else digests,
                              dtype=np.uint64)
    if text_digests.shape != (len(labels),):
        raise ValueError(f"digests must give each of the {len(labels):,} documents its digest")
    # Texts of several labels (one copy a label) are scored as sets, each fold's copies of a text together.
    sets = metric == "micro_f1" or several_labels(labels, text_digests) > 0
    if folds is None:
        fold_of = text_folds(labels, text_digests, k, seed)
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
    splits = {column_split(trial.settings) for trial in trials} - {((), ())}
    by_columns = [_fold_column_scores(documents, labels, fold_of, f, splits) for f in range(k)] if splits else None
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
                            progress, by_columns[f] if by_columns else {}, text_digests[held] if sets else None)
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


def _fold_column_scores(documents: Sequence[Document], labels: list[str], fold_of: np.ndarray, fold: int,
                        splits: Iterable[tuple[tuple[str, ...], tuple[str, ...]]]) -> dict[tuple, np.ndarray]:
    """For each (numeric, categorical) columns of ``splits``: the held-out documents of ``fold``
    scored by those columns as learnt from the other folds (``ColumnScorer.joint``)."""
    train = np.flatnonzero(fold_of != fold)
    test = np.flatnonzero(fold_of == fold)
    scores = {}
    for numeric, categorical in splits:
        sums = ColumnSums.of([labels[i] for i in train], [documents[i].values for i in train], numeric, categorical)
        scores[numeric, categorical] = ColumnScorer(sums).joint([documents[i].values for i in test], len(test))
    return scores


def _score_fold(group: list[Trial], frozen: FrozenCounts, test_counts: CountMatrix, held: np.ndarray,
                test_labels: list[str], analyzer: Analyzer, progress: Callable[[int], None] | None,
                column_scores: dict[tuple, np.ndarray], digests: np.ndarray | None = None) -> None:
    """Score the settings of ``group`` (one analyzer and weighting) on one fold: trained on
    ``frozen``, tested on ``test_counts`` (raw counts over its terms), the documents ``held``,
    with the columns a setting learns scored by ``column_scores`` (``_fold_column_scores``);
    with the ``digests`` of their texts, their labels as sets too (``micro_f1``).
    Settings that differ only in their columns share the text's scores."""
    settings = [{key: value for key, value in trial.settings.items() if key not in (*COUNTING_KEYS, *COLUMN_KEYS)}
                for trial in group]
    text_scores: dict[str, np.ndarray] = {}
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
            said = repr(sorted(settings[i].items()))
            if said not in text_scores:
                text_scores[said] = test.predict_log_proba(model.core)
            log_proba = text_scores[said]
            split = column_split(trial.settings)
            if split != ((), ()):
                log_proba = model.with_column_scores(log_proba, column_scores[split])
            trial.record(held, test_labels, log_proba, model.classes, digests)
            trial.seconds += time.perf_counter() - started + share
            if progress is not None:
                progress(1)


def train_setting(documents: Iterable[Document], setting: dict[str, Any], *, base_analyzer: Analyzer | None = None,
                  summary: dict[str, Any] | None = None) -> Model:
    """A model trained on ``documents`` with one candidate ``setting`` of ``cross_validate``
    (the one it scored: the same counting defaults, and the base analyzer's other options)."""
    analyzer = _analyzer_of(setting, base_analyzer or DEFAULT_ANALYZER)
    settings = {key: value for key, value in setting.items() if key not in (*ANALYZER_KEYS, *COLUMN_KEYS)}
    weighting = {"tf": settings.pop("tf", DEFAULT_TF), "doc_norm": settings.pop("doc_norm", DEFAULT_DOC_NORM)}
    numeric, categorical = column_split(setting)
    return train(documents, analyzer=analyzer, settings=settings, summary=summary, numeric_columns=numeric,
                 categorical_columns=categorical, **weighting)




@dataclass
class Tuned:
    """What ``tune`` found: every setting's trial, best first, and the best one's model."""

    trials: list[Trial]
    model: Model


def tune(documents: Sequence[Document], candidates: Sequence[dict[str, Any]], *, k: int = DEFAULT_FOLDS,
         seed: int = 0, base_analyzer: Analyzer | None = None, metric: str = "accuracy",
         summary: dict[str, Any] | None = None, progress: Callable[[int], None] | None = None,
         digests: Sequence[int] | np.ndarray | None = None) -> Tuned:
    """Score each of ``candidates`` (``expand``'s) by stratified ``k``-fold cross-validation of
    ``documents`` (``cross_validate``), rank them, and train the best on all of ``documents``:
    ``nbtext tune``. The model's summary keeps its score (``tuned``); ``progress`` is called
    with 1 as each candidate's fold is scored; ``digests`` are ``cross_validate``'s.

    Examples
    --------
    >>> docs = [Document(f"cheap pills {i}", "spam", f"s{i}") for i in range(6)]
    >>> docs += [Document(f"lunch at noon {i}", "ham", f"h{i}") for i in range(6)]
    >>> tuned = tune(docs, expand({"alpha": [0.1, 1.0]}))
    >>> len(tuned.trials), tuned.model.summary["tuned"]["accuracy"]
    (2, 1.0)
    """
    trials = rank(cross_validate(documents, candidates, k=k, seed=seed, base_analyzer=base_analyzer, metric=metric,
                                 progress=progress, digests=digests))
    best = trials[0]
    scored = {"tuned": {"cv": k, "seed": seed, metric: best.mean, "std": best.std}}
    model = train_setting(documents, best.settings, base_analyzer=base_analyzer, summary={**(summary or {}), **scored})
    return Tuned(trials, model)

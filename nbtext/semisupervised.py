"""Learning from unlabelled documents too: Naive Bayes and Expectation-Maximization (Nigam,
McCallum, Thrun and Mitchell, Machine Learning 39, 2000).

A model is trained on the labelled documents. Then, in turn: it gives each unlabelled document
a probability for each class (E step), and a model is trained on the labelled documents and on
the unlabelled ones, each counted in every class by its probability times ``weight`` (M step:
lambda in the paper, below 1 so that many unlabelled documents do not swamp the labelled). It
stops when the log-likelihood of the data, the labelled documents with their class and the
unlabelled with any, rises by less than ``tolerance`` of itself, or after ``iterations``.

Every document is counted once, on its own (``DocumentCounts``); each M step is then a product
of matrices: class sums = weights^T x document counts, for every statistic a variant reads.
The sums are rounded to the counting grid (``counting.on_grid``), so a model trained so is
still exact sums: ``train --update`` and ``merge`` add to it exactly.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .analysis import Analyzer, load_stop_words
from .classifier import logsumexp
from .counting import FrozenCounts, on_grid
from .errors import DataError
from .folds import text_folds
from .matrices import CountMatrix
from .model import Model
from .readers import Document, ReadReport
from .readers.document import document_digest, labels_of
from .readers.unlabelled import iter_unlabelled
from .training import count_all
from .tuning import Trial, Tuned, rank

#: The weight of an unlabelled document beside a labelled one, and the most EM steps: chosen
#: by ``benchmarks/semisupervised.py`` on 20 Newsgroups (docs/guides/training.md).
EM_WEIGHT = 0.1
EM_ITERATIONS = 20
#: EM stops when the log-likelihood rises by less than this share of itself.
EM_TOLERANCE = 1e-4
#: The model EM trains where its user sets none (option -> value): Nigam et al.'s Multinomial
#: NB over words, stop words left out, with light smoothing and the words of one document only
#: pruned. nbtext's own defaults (Complement NB, bigrams, log counts) lose accuracy under EM
#: (the benchmark's sweep).
EM_DEFAULTS: dict[str, Any] = {"ngram_range": (1, 1), "stop_words": "english", "tf": "raw", "variant": "multinomial",
                               "alpha": 0.01, "min_df": 2}


def em_analyzer() -> Analyzer:
    """The analyzer of ``EM_DEFAULTS``."""
    return Analyzer(ngram_range=EM_DEFAULTS["ngram_range"], tokens="all-words",
                    stop_words=load_stop_words(EM_DEFAULTS["stop_words"]))


def em_settings() -> dict[str, Any]:
    """The model settings of ``EM_DEFAULTS``."""
    return {name: EM_DEFAULTS[name] for name in ("variant", "alpha", "min_df")}


def em_weighting() -> dict[str, Any]:
    """How ``EM_DEFAULTS`` weighs a document's counts: raw, as Nigam et al. count them."""
    return {"tf": EM_DEFAULTS["tf"], "doc_norm": None}



@dataclass(frozen=True)
class DocumentCounts:
    """Each document's counts, one row a document, one column a term (sorted), for every
    statistic the cores read (``term_counts``, ``doc_freq``, and ``weighted`` where the
    documents are transformed): counted once, for every EM step, and every draw of a benchmark."""

    terms: list[str]
    rows: dict[str, Any]  # statistic -> scipy CSR matrix, documents x terms
    tf: str
    doc_norm: str | None

    @classmethod
    def of(cls, texts: Sequence[str], analyzer: Analyzer, *, tf: str, doc_norm: str | None,
           jobs: int | None = 1) -> DocumentCounts:
        """The counts of ``texts``, in order."""
        from scipy.sparse import csr_matrix

        width = len(str(len(texts)))
        ids = [Document(text, f"{i:0{width}d}", str(i)) for i, text in enumerate(texts)]
        counts = count_all(ids, analyzer, tf=tf, doc_norm=doc_norm, jobs=jobs)
        documents = np.array([int(name) for name in counts.classes])[counts.class_index]
        shape = (len(texts), len(counts.terms))
        rows = {name: csr_matrix((values, (documents, counts.term_index)), shape=shape)
                for name, values in counts.values.items()}
        return cls(list(counts.terms), rows, tf, doc_norm)

    def class_sums(self, weights: np.ndarray, classes: list[str]) -> FrozenCounts:
        """The counts of classes whose documents are these, each counted in class c with
        ``weights[document, c]``, on the counting grid; over every term of the documents, those
        of documents weighed 0 too, so that every model EM makes has one vocabulary."""
        sums = {name: on_grid(np.asarray(matrix.T @ weights)) for name, matrix in self.rows.items()}  # terms x classes
        present = np.zeros(sums["doc_freq"].shape, dtype=bool)
        for values in sums.values():
            present |= values != 0
        term_index, class_index = np.nonzero(present)  # by term, then class: FrozenCounts' order
        return FrozenCounts(self.terms, list(classes), class_index, term_index,
                            {name: values[term_index, class_index] for name, values in sums.items()},
                            on_grid(weights.sum(axis=0)), self.tf, self.doc_norm)

    def vocabulary(self, settings: dict[str, Any], rows: np.ndarray) -> np.ndarray:
        """The terms (indices) a model of the documents ``rows`` keeps by ``settings``' pruning,
        each document counted once, labelled or not."""
        pruned_by = dataclasses.replace(self, rows={name: self.rows[name] for name in ("doc_freq", "term_counts")})
        taken = np.zeros((self.rows["doc_freq"].shape[0], 1))
        taken[rows] = 1.0
        every = pruned_by.class_sums(taken, ["*"])
        return every.keep_terms(settings["min_df"], settings["max_df"], settings["max_features"])

    def matrix(self, rows: np.ndarray) -> CountMatrix:
        """The raw counts of some documents over every term."""
        part = self.rows["term_counts"][rows].tocsr()
        part.sort_indices()
        return CountMatrix(part.indptr.astype(np.int64), part.indices.astype(np.int64), part.data.astype(float),
                           len(self.terms))


@dataclass
class Step:
    """One EM step: the log-likelihood of the data under the model it started from."""

    iteration: int
    log_likelihood: float


def fit_em(counts: DocumentCounts, labels: dict[int, str], unlabelled: Sequence[int], *, analyzer: Analyzer,
           settings: dict[str, Any] | None = None, weight: float = EM_WEIGHT, iterations: int = EM_ITERATIONS,
           tolerance: float = EM_TOLERANCE,
           on_step: Callable[[Step], None] | None = None) -> tuple[Model, list[Step]]:
    """The model EM makes of the documents of ``counts``: those in ``labels`` (row -> label)
    with their class, those in ``unlabelled`` (rows) with the classes it finds; and the steps.
    Other rows of ``counts`` are left out, from pruning too. With no unlabelled document, or
    ``iterations`` 0, the labelled documents' plain model."""
    if not 0 < weight <= 1:
        raise DataError(f"`em_weight` must be above 0 and at most 1, got {weight}")
    if iterations < 0:
        raise DataError(f"`em_iterations` must be 0 or more, got {iterations}")
    classes = sorted(set(labels.values()))
    if len(classes) < 2:
        raise DataError(f"{len(classes)} class in the labelled documents; need at least two")
    rows = np.fromiter(labels, dtype=np.int64, count=len(labels))
    known = np.searchsorted(np.array(classes, dtype=object), np.array([labels[i] for i in rows], dtype=object))
    unlabelled = np.asarray(unlabelled, dtype=np.int64)
    weights = np.zeros((counts.rows["term_counts"].shape[0], len(classes)))
    weights[rows, known] = 1.0
    kept = counts.vocabulary({**Model.DEFAULT_SETTINGS, **(settings or {})}, np.concatenate([rows, unlabelled]))
    model = Model(analyzer, counts.class_sums(weights, classes), settings, kept=kept)
    steps: list[Step] = []
    previous = model
    for iteration in range(1, iterations + 1 if len(unlabelled) else 1):
        jll_unlabelled = _joint(model, counts, unlabelled)
        likelihood = float(_joint(model, counts, rows)[np.arange(len(rows)), known].sum()
                           + weight * logsumexp(jll_unlabelled).sum())
        if steps and likelihood <= steps[-1].log_likelihood:
            return previous, steps  # fallen (rounding can do that): the model before is kept
        steps.append(Step(iteration, likelihood))
        if on_step is not None:
            on_step(steps[-1])
        if len(steps) > 1 and likelihood - steps[-2].log_likelihood < tolerance * abs(steps[-2].log_likelihood):
            return model, steps
        previous = model
        weights[unlabelled] = weight * np.exp(jll_unlabelled - logsumexp(jll_unlabelled)[:, None])
        model = Model(analyzer, counts.class_sums(weights, classes), settings, kept=kept)
    return model, steps


def _joint(model: Model, counts: DocumentCounts, rows: np.ndarray) -> np.ndarray:
    """The joint log-likelihood of some documents under ``model`` (documents x classes)."""
    return model.core.predict_joint_log_proba(model.restrict(counts.matrix(rows)))


def train_semisupervised(labelled: Iterable[Document], unlabelled: Iterable[Document], *, analyzer: Analyzer,
                         tf: str, doc_norm: str | None, settings: dict[str, Any] | None = None,
                         weight: float = EM_WEIGHT, iterations: int = EM_ITERATIONS, tolerance: float = EM_TOLERANCE,
                         on_step: Callable[[Step], None] | None = None) -> Model:
    """A model of the ``labelled`` documents and of the ``unlabelled`` ones (their labels, if
    any, unread), by EM (``fit_em``). A LabelledCorpus, or its Reading, is recorded as
    ``training.train`` records one, and every DATA of it must give a document.

    Examples
    --------
    >>> labelled = [Document("cheap pills", "spam", "a"), Document("lunch at noon", "ham", "b")]
    >>> unlabelled = [Document("cheap pills offer", None, "c"), Document("offer of pills", None, "d"),
    ...               Document("lunch notes", None, "e")]
    >>> model = train_semisupervised(labelled, unlabelled, analyzer=em_analyzer(), tf="raw", doc_norm=None,
    ...                              settings={**em_settings(), "min_df": 1}, weight=1.0)
    >>> model.predict(["an offer"]), model.summary["unlabelled_documents"]
    (['spam'], 3)
    """
    data = _EMData.read(labelled, unlabelled, analyzer=analyzer, tf=tf, doc_norm=doc_norm)
    return data.model(settings, weight=weight, iterations=iterations, tolerance=tolerance, on_step=on_step)


@dataclass
class _EMData:
    """The labelled and unlabelled documents of EM, every one counted once, rows in that order."""

    labelled: list[Document]
    unlabelled: list[Document]
    counts: DocumentCounts
    analyzer: Analyzer
    summary: dict[str, Any]

    @classmethod
    def read(cls, labelled: Iterable[Document], unlabelled: Iterable[Document], *, analyzer: Analyzer, tf: str,
             doc_norm: str | None) -> _EMData:
        from .readers import LabelledCorpus, Reading

        reading = labelled.read() if isinstance(labelled, LabelledCorpus) else labelled
        documents, others = list(reading), list(unlabelled)
        summary: dict[str, Any] = {}
        if isinstance(reading, Reading):
            reading.corpus.check_all_read()
            summary = reading.corpus.summary
        if not documents:
            raise DataError("no labelled documents to train on")
        counts = DocumentCounts.of([doc.text for doc in documents + others], analyzer, tf=tf, doc_norm=doc_norm)
        return cls(documents, others, counts, analyzer, summary)

    @property
    def others(self) -> range:
        """The rows of the unlabelled documents."""
        return range(len(self.labelled), len(self.labelled) + len(self.unlabelled))

    def model(self, settings: dict[str, Any] | None, *, weight: float, iterations: int,
              tolerance: float = EM_TOLERANCE, on_step: Callable[[Step], None] | None = None,
              summary: dict[str, Any] | None = None) -> Model:
        """The model EM makes of all the documents, recorded."""
        from .model import trained_texts
        from .training import finished

        model, steps = fit_em(self.counts, dict(enumerate(labels_of(self.labelled))), self.others,
                              analyzer=self.analyzer, settings=settings, weight=weight, iterations=iterations,
                              tolerance=tolerance, on_step=on_step)
        model.summary = {**self.summary, **(summary or {}), "labelled_documents": len(self.labelled),
                         "unlabelled_documents": len(self.unlabelled),
                         "em": {"weight": weight, "iterations": iterations, "steps": len(steps),
                                "log_likelihood": [round(step.log_likelihood, 3) for step in steps]}}
        model = finished(model)
        model.summary["documents"] = len(self.labelled) + len(self.unlabelled)  # documents_per_class weighs them
        model.texts = trained_texts([document_digest(doc) for doc in self.labelled + self.unlabelled])
        return model


def tune_em(labelled: Iterable[Document], unlabelled: Iterable[Document], candidates: Sequence[dict[str, Any]], *,
            analyzer: Analyzer, tf: str, doc_norm: str | None, settings: dict[str, Any] | None = None,
            k: int = 3, seed: int = 0, metric: str = "accuracy", summary: dict[str, Any] | None = None,
            progress: Callable[[int], None] | None = None) -> Tuned:
    """Score each candidate (``em_weight``, ``em_iterations`` and model settings over
    ``settings``: ``tuning.read_grid(..., unlabelled=True)``'s) by stratified ``k``-fold
    cross-validation of the ``labelled`` documents: each fold's model is made by EM of the
    other folds' labelled documents and every unlabelled one, and scored on the fold's. Then
    rank them, and make the best one's model of all the documents: `nbtext tune --unlabelled`.
    Every document is counted once; ``progress`` is called with 1 as each candidate's fold is scored.

    Examples
    --------
    >>> labelled = [Document(f"cheap pills {i}", "spam", f"s{i}") for i in range(3)]
    >>> labelled += [Document(f"lunch at noon {i}", "ham", f"h{i}") for i in range(3)]
    >>> unlabelled = [Document("cheap pills offer", None, "u1"), Document("lunch notes", None, "u2")]
    >>> tuned = tune_em(labelled, unlabelled, [{"em_weight": 0.1}, {"em_weight": 1.0}], analyzer=em_analyzer(),
    ...                 tf="raw", doc_norm=None, settings={**em_settings(), "min_df": 1})
    >>> [trial.mean for trial in tuned.trials], tuned.model.summary["em"]["weight"]
    ([1.0, 1.0], 0.1)
    """
    data = _EMData.read(labelled, unlabelled, analyzer=analyzer, tf=tf, doc_norm=doc_norm)
    digests = np.array([document_digest(doc) for doc in data.labelled], dtype=np.uint64)
    trials = rank(cross_validate_em(data.counts, dict(enumerate(labels_of(data.labelled))), data.others, candidates,
                                    analyzer=analyzer, settings=settings, k=k, seed=seed, metric=metric,
                                    digests=digests, progress=progress))
    best = _em_options({**(settings or {}), **trials[0].settings})
    scored = {"tuned": {"cv": k, "seed": seed, metric: trials[0].mean, "std": trials[0].std}}
    return Tuned(trials, data.model(best.pop("settings"), summary={**(summary or {}), **scored}, **best))


def cross_validate_em(counts: DocumentCounts, labels: dict[int, str], unlabelled: Sequence[int],
                      candidates: Iterable[dict[str, Any]], *, analyzer: Analyzer,
                      settings: dict[str, Any] | None = None, k: int = 3, seed: int = 0, metric: str = "accuracy",
                      digests: np.ndarray | None = None, progress: Callable[[int], None] | None = None) -> list[Trial]:
    """Each candidate of ``tune_em`` scored by stratified ``k``-fold cross-validation of the
    documents of ``labels`` (row -> label), each fold's model made by EM (``fit_em``) of the
    other folds' and of the ``unlabelled`` rows. With the ``digests`` of the labelled texts,
    in ``labels``' order, a text's copies (one a label) share a fold."""
    rows = np.fromiter(labels, dtype=np.int64, count=len(labels))
    truth = [labels[row] for row in rows]
    fold_of = text_folds(truth, np.arange(len(rows), dtype=np.uint64) if digests is None else digests, k, seed)
    trials = [Trial(dict(c), metric, folds=fold_of, right=np.zeros(len(rows), dtype=bool)) for c in candidates]
    for f in range(k):
        held = np.flatnonzero(fold_of == f)
        known = {int(rows[i]): truth[i] for i in np.flatnonzero(fold_of != f)}
        for trial in trials:
            started = time.perf_counter()
            model, _ = fit_em(counts, known, unlabelled, analyzer=analyzer,
                              **_em_options({**(settings or {}), **trial.settings}))
            joint = _joint(model, counts, rows[held])
            trial.record(held, [truth[i] for i in held], joint - logsumexp(joint)[:, None], model.classes,
                         digests[held] if metric == "micro_f1" and digests is not None else None)
            trial.seconds += time.perf_counter() - started
            if progress is not None:
                progress(1)
    return trials


def _em_options(setting: dict[str, Any]) -> dict[str, Any]:
    """``fit_em``'s keywords for a setting of ``tune_em``: its EM options, the rest as ``settings``."""
    rest = dict(setting)
    return {"weight": rest.pop("em_weight", EM_WEIGHT), "iterations": rest.pop("em_iterations", EM_ITERATIONS),
            "settings": rest}


def unlabelled_documents(paths: Sequence[str], report: ReadReport, **reading: Any) -> list[Document]:
    """The documents under ``paths`` as predict reads them (``iter_unlabelled``: a file is one
    document, a folder's files at any depth, ``-`` stdin's lines, a table's rows by its
    columns), their labels, if any, unread."""
    return [doc for batch, _ in iter_unlabelled(paths, report, **reading)
            for doc in (batch if isinstance(batch, list) else batch.read(report))]

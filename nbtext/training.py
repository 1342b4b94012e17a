"""Training: a model from a stream of labelled documents, with a held-out part or a fitted
temperature where asked; a model updated with more documents, or merged from models of parts.

Only the per-class counts are kept, never the documents, so memory grows with the vocabulary
and not with the corpus (held-out training and calibration hold them, to score them again).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from .analysis import Analyzer
from .batches import BATCH_SIZE, count_batches, labelled, read_ahead, workers_start_after, batched
from .calibration import fit_temperature, log_loss, reliability, tempered
from .cores import available_cores
from .counting import FrozenCounts
from .errors import DataError
from .model import Model, trained_texts
from .phrasing import plural
from .readers import Document, Reading


def count_all(documents: Iterable[Document], analyzer: Analyzer, *, tf: str, doc_norm: str | None,
              jobs: int | None = 1) -> FrozenCounts:
    """The counts of the labelled ``documents``: the same, bit for bit, however many processes
    count them.

    ``jobs`` > 1 starts that many - 1 worker processes after the first batch, which count
    beside this one; ``None`` means one per core, started once more than
    ``workers_start_after(analyzer)`` bytes have come. When ``documents`` is a corpus's
    Reading, the workers read the folders' files themselves, and parse the messages of mbox
    files and maildirs.
    """
    if jobs == 1 or (jobs is None and available_cores() == 1):
        return count_batches(read_ahead(labelled(batch, None) for batch in batched(documents)), analyzer, tf=tf,
                             doc_norm=doc_norm)
    from .parallel import count_in_processes

    if isinstance(documents, Reading):
        batches, report = documents.batches(BATCH_SIZE), documents.report
    else:
        batches, report = batched(documents), None
    return count_in_processes(batches, analyzer, tf=tf, doc_norm=doc_norm, jobs=jobs or available_cores(),
                              report=report, start_after=workers_start_after(analyzer) if jobs is None else 0)


#: The analyzer and document transforms of nbtext's defaults (see Model.DEFAULT_SETTINGS).
DEFAULT_ANALYZER = Analyzer(ngram_range=(1, 2), tokens="all-words")
DEFAULT_TF, DEFAULT_DOC_NORM = "log", None


def default_tokens(analyzer: str) -> str:
    """The tokens nbtext's defaults give ``analyzer``: the defaults' own for words; for
    character n-grams, which find no words and refuse other tokens, the Analyzer's."""
    return DEFAULT_ANALYZER.tokens if analyzer == "word" else Analyzer.tokens


def train(
    documents: Iterable[Document],
    *,
    analyzer: Analyzer | None = None,
    tf: str = DEFAULT_TF,
    doc_norm: str | None = DEFAULT_DOC_NORM,
    settings: dict[str, Any] | None = None,
    summary: dict[str, Any] | None = None,
    jobs: int | None = 1,
) -> Model:
    """A Model trained on labelled ``documents``.

    ``tf`` and ``doc_norm`` say how each document's counts are transformed before they are
    summed per class (see ``counting.weigh_rows``); ``settings`` are the Model's. ``jobs``
    processes count (see ``count_all``; None: one per core, for large data).

    Examples
    --------
    >>> docs = [Document("cheap pills now", "spam", "a"), Document("lunch at noon?", "ham", "b"),
    ...         Document("cheap cheap offer", "spam", "c"), Document("notes from lunch", "ham", "d")]
    >>> model = train(docs)
    >>> model.predict(["a cheap offer", "lunch notes"])
    ['spam', 'ham']
    >>> model.summary["documents_per_class"]
    {'ham': 2, 'spam': 2}
    """
    analyzer = analyzer or DEFAULT_ANALYZER
    counts = count_all(documents, analyzer, tf=tf, doc_norm=doc_norm, jobs=jobs)
    if not counts.classes:
        raise DataError("no documents to train on")
    if len(counts.classes) < 2:
        raise DataError(f"only one class ({counts.classes[0]!r}) in the training data; need at least two")
    return finished(Model(analyzer, counts, settings, summary))


def finished(model: Model) -> Model:
    """``model`` with its summary; a DataError where it has no term to go by, which would
    classify every document by the class priors alone. The summary holds no time, so that the
    same documents always give the same model bytes."""
    counts = model.counts
    documents = int(counts.class_docs.sum())
    if len(model.terms) == 0:
        if len(counts.terms):
            df = counts.documents_per_term()
            terms = f"{len(df):,} {plural(len(df), 'term')}"
            raise DataError(f"no terms remain after pruning: the {terms} read are each in {int(df.min()):,} to "
                            f"{int(df.max()):,} of the {documents:,} {plural(documents, 'document')}; "
                            "lower --min-df or raise --max-df")
        raise DataError(f"no words to learn from in the {documents:,} {plural(documents, 'document')} read")
    model.summary = {
        **model.summary,
        "documents": documents,
        "documents_per_class": {c: int(n) for c, n in zip(counts.classes, counts.class_docs)},
        "vocabulary_size": len(model.terms),
        "terms_seen": len(counts.terms),
    }
    return model


def update(model: Model, documents: Iterable[Document], *, settings: dict[str, Any] | None = None,
           remove: bool = False, jobs: int | None = 1) -> Model:
    """``model`` with ``documents`` added: equal to training on the old and new data at once.

    New words grow the vocabulary; pruning (``min_df`` ...) is redone over all the counts.
    With ``remove`` the documents, added before, are taken out again exactly (see
    ``FrozenCounts.subtract``); a DataError where that would take every document of a class.
    """
    change = counts_for(model, documents, jobs=jobs, remove=remove)
    return with_counts(model, change, settings=settings, remove=remove)


def counts_for(model: Model, documents: Iterable[Document], *, jobs: int | None = 1,
               remove: bool = False) -> FrozenCounts:
    """The counts of ``documents`` as ``model`` counts them (its analyzer and weighting): what
    ``with_counts`` adds to it, or to the model as it is by then (a file another writer changed
    meanwhile), so that a long read holds no lock. A DataError where there are none: a wrong
    folder in a nightly job must not pass as an update."""
    change = count_all(documents, model.analyzer, tf=model.counts.tf, doc_norm=model.counts.doc_norm, jobs=jobs)
    if not change.classes:
        raise DataError(f"no documents to {'remove' if remove else 'add'}; the model is unchanged")
    return change


def with_counts(model: Model, change: FrozenCounts, *, settings: dict[str, Any] | None = None,
                remove: bool = False) -> Model:
    """``model`` with the counts ``change`` (``counts_for``) added, or with ``remove`` taken out."""
    if (change.tf, change.doc_norm) != (model.counts.tf, model.counts.doc_norm):
        raise DataError("the documents were counted otherwise than the model counts them: count them with "
                        "counts_for(model, documents)")
    counts = model.counts.subtract(change) if remove else model.counts.merge(change)
    emptied = sorted(set(model.counts.classes) - set(counts.classes))
    if emptied:  # a filter without its spam class, or a model of one class, could not classify
        named = ", ".join(map(repr, emptied))
        raise DataError(f"unlearning these would leave no documents in {plural(len(emptied), 'class')}"
                        f" {named}; the model is unchanged")
    return _rebuild(model, counts, settings)


def merge(models: list[Model], *, settings: dict[str, Any] | None = None) -> Model:
    """One model from several trained on separate data with the same analyzer.

    Counts are added, then pruned with the first model's settings (or ``settings``), so the
    vocabulary is the same however the data were split.
    """
    first, *rest = models
    counts = first.counts
    for other in rest:
        if other.analyzer != first.analyzer:
            mine, theirs = first.analyzer.to_dict(), other.analyzer.to_dict()
            differ = "; ".join(f"{key} {mine.get(key)} vs {theirs.get(key)}"
                               for key in sorted(mine.keys() | theirs.keys()) if mine.get(key) != theirs.get(key))
            raise DataError(f"cannot merge models whose analyzers differ: {differ}")
        counts = counts.merge(other.counts)
    merged = _rebuild(first, counts, settings)
    # Trained on every part's data; a held-out or tuned score was one part's, not the whole's.
    merged.summary["inputs"] = list(dict.fromkeys(data for model in models for data in model.summary.get("inputs", [])))
    for key in ("held_out", "tuned"):
        merged.summary.pop(key, None)
    learned: Counter[str] = Counter()
    for model in models:
        learned.update(model.summary.get("learned", {}))
    if any(learned.values()):
        merged.summary["learned"] = {label: n for label, n in learned.items() if n}
    texts = [model.texts for model in models]
    if all(part is not None for part in texts):
        merged.texts = trained_texts(np.concatenate(texts))
    return merged


def _rebuild(model: Model, counts: FrozenCounts, settings: dict[str, Any] | None) -> Model:
    # The training time an older file stored would be stale: files store none now.
    summary = {key: value for key, value in model.summary.items() if key != "seconds"}
    merged = Model(model.analyzer, counts, {**model.settings, **(settings or {})}, summary)
    return finished(merged)


def train_calibrated(documents: Iterable[Document], *, analyzer: Analyzer, tf: str, doc_norm: str | None,
                     settings: dict[str, Any] | None = None, summary: dict[str, Any] | None = None,
                     folds: int = 5, seed: int = 0) -> Model:
    """A model trained on labelled ``documents`` (held in memory) with a temperature fitted on
    out-of-fold predictions of stratified ``folds``-fold cross-validation.

    Its counts equal ``training.train``'s on the same documents; its predictions are the same,
    its probabilities tempered. The out-of-fold log loss and ECE before and after are kept.
    """
    from .model import Model
    from .training import finished
    from .folds import labelled_for_folds, out_of_fold

    documents, labels, classes = labelled_for_folds(documents, folds, "--calibrate")
    counts, log_proba = out_of_fold(documents, labels, analyzer, tf=tf, doc_norm=doc_norm,
                                    settings=settings, folds=folds, seed=seed)
    number = {label: i for i, label in enumerate(classes)}
    truth = np.array([number[label] for label in labels])
    temperature = fit_temperature(log_proba, truth)
    calibrated = tempered(log_proba, temperature)
    calibration = {
        "temperature": temperature, "folds": folds, "seed": seed,
        "log_loss": {"before": log_loss(log_proba, truth), "after": log_loss(calibrated, truth)},
        "ece": {"before": reliability(log_proba, truth)["ece"], "after": reliability(calibrated, truth)["ece"]},
    }
    return finished(Model(analyzer, counts, {**(settings or {}), "calibration": calibration}, summary))

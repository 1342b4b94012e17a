"""Training spam filters: the model ``training.train`` makes, with a calibrated spam score
and cut-offs measured by cross-validation on the training messages (see ``spam``); and a
filter's cross-validation, each fold a filter trained so.

Documents are counted once, per (class, fold); each fold's model is regrouped from those
counts (exact, see ``counting.on_grid``), so cross-validation costs k model builds, not k
trainings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .analysis import Analyzer
from .calibration import fit_platt, log_odds, sigmoid
from .combining import COMBINING, NB
from .errors import DataError
from .folds import labelled_for_folds, out_of_fold, stratified_folds
from .metrics import evaluate, right_answers
from .model import Model
from .readers import Document, LabelledCorpus, Reading
from .readers.document import labels_of
from .spam import DEFAULT_FP_TARGET, SPAM_LABEL, SpamFilter, choose_cutoffs, judged_verdicts, spam_class
from .training import digests_of, finished, held_documents, train
from .tuning import Trial

#: Folds of the cross-validation that measures a filter's calibration and cut-offs.
DEFAULT_FOLDS = 5

#: A filter's transforms and settings where the caller gave none. A filter is judged by how
#: much spam it catches at a tiny false-positive rate, not by accuracy; there, unit length and
#: IDF catch more spam for fewer lost messages than the plain-text defaults, and every term
#: kept, even one seen in a single message, catches the next message of a spam run
#: (docs/accuracy.md, "Spam filters": benchmarks/spam.py under each).
FILTER_WEIGHTING = {"tf": "log", "doc_norm": "l2"}
FILTER_SETTINGS = {"alpha": 0.05, "idf": True, "min_df": 1}


#: A filter's word tokens where the caller gave none: runs of two or more letters and digits,
#: with which its settings and cut-offs were measured. The plain defaults' one-letter words
#: were chosen for accuracy across the corpora, not for spam caught at a fixed false-positive rate.
FILTER_TOKENS = "words"


def train_filter(
    documents: Iterable[Document],
    *,
    analyzer: Analyzer,
    tf: str = FILTER_WEIGHTING["tf"],
    doc_norm: str | None = FILTER_WEIGHTING["doc_norm"],
    settings: dict[str, Any] | None = None,
    summary: dict[str, Any] | None = None,
    label: str = SPAM_LABEL,
    folds: int = DEFAULT_FOLDS,
    seed: int = 0,
    fp_target: float = DEFAULT_FP_TARGET,
    spam_cutoff: float | None = None,
    ham_cutoff: float | None = None,
    jobs: int | None = None,
    combining: str = NB,
) -> Model:
    """A filter model trained on labelled ``documents`` (they are held in memory: a corpus's
    are read by ``jobs`` processes where that pays, see ``parallel.read_all``).

    Equals ``training.train`` on the same documents, plus the spam settings: calibration and
    cut-offs measured by stratified ``folds``-fold cross-validation; ``spam_cutoff`` and
    ``ham_cutoff`` override the measured ones. ``tf``, ``doc_norm`` and any setting not given
    take a filter's defaults (``FILTER_WEIGHTING``, ``FILTER_SETTINGS``). ``combining`` is how
    a message's words make its score: naive Bayes' posterior (``NB``), Platt scaled, or
    Robinson's chi-square (``CHI_SQUARE``, see ``combining``), whose score is used as it is.
    """
    if combining not in COMBINING:
        raise DataError(f"`combining` {combining!r}: use one of {', '.join(COMBINING)}")
    documents, read_from = held_documents(documents, jobs)
    summary = {**read_from, **(summary or {})}
    settings = {**FILTER_SETTINGS, **(settings or {})}
    documents, labels, classes = labelled_for_folds(documents, folds, "measuring the cut-offs")
    if label not in classes:
        raise DataError(f"no documents labelled {label!r} (the spam label); labels seen: {', '.join(classes)}")
    # Each fold's model scores as the filter will: by chi-square, its spam label named.
    scoring = settings if combining == NB else {**settings, "spam": {"label": label, "combining": combining}}
    total, log_proba = out_of_fold(documents, labels, analyzer, tf=tf, doc_norm=doc_norm, settings=scoring,
                                   folds=folds, seed=seed)
    odds = log_odds(log_proba, classes.index(label))
    is_spam = np.array(labels) == label
    slope, intercept = fit_platt(odds, is_spam) if combining == NB else (1.0, 0.0)
    scores = sigmoid(slope * odds + intercept)
    measured_filter = SpamFilter(label, *choose_cutoffs(scores, is_spam, fp_target), slope, intercept,
                                 combining=combining)
    spam_filter = measured_filter.with_cutoffs(spam_cutoff, ham_cutoff)
    judged = spam_filter.judged(scores, is_spam)
    shares = {key: judged[key] for key in ("ham_false_positive_rate", "spam_recall", "unsure_share")}
    spam_filter = replace(spam_filter, measured={"folds": folds, "seed": seed, "fp_target": fp_target, **shares})
    model = finished(Model(analyzer, total, {**settings, "spam": spam_filter.to_dict()}, summary))
    model.texts = digests_of(documents)
    return model


def cross_validate_filter(documents: Sequence[Document], *, k: int, seed: int, analyzer: Analyzer,
                          label: str = SPAM_LABEL, progress: Callable[[int], None] | None = None,
                          **options: Any) -> Trial:
    """The ``tuning.Trial`` of ``k``-fold cross-validation of the filter ``train_filter`` gives
    (``options`` are its): each fold is scored by the filter trained on the other folds,
    calibration and all, as ``nbtext eval`` scores a filter; and its verdicts, each fold's at
    the cut-offs its filter chose, pooled (``Trial.filter``)."""
    labels = labels_of(documents)
    fold_of = stratified_folds(labels, k, seed)
    trial = Trial({"spam_label": label}, folds=fold_of, right=np.zeros(len(labels), dtype=bool))
    verdicts = np.zeros(len(labels), dtype=np.int64)
    for f in range(k):
        held = np.flatnonzero(fold_of == f)
        model = train_filter([documents[i] for i in np.flatnonzero(fold_of != f)], analyzer=analyzer, label=label,
                             seed=seed, **options)
        log_proba = model.predict_log_proba([documents[i].text for i in held])
        test_labels = [labels[i] for i in held]
        trial.reports.append(evaluate(test_labels, log_proba, model.classes))
        trial.right[held] = right_answers(test_labels, log_proba, model.classes)
        spam_filter = SpamFilter.of(model)
        verdicts[held] = spam_filter.verdicts(spam_filter.scores_of(log_proba, model.classes))
        if progress is not None:
            progress(1)
    trial.filter = {"spam_label": label, **judged_verdicts(verdicts, np.array(labels) == label)}
    return trial


def makes_a_filter(is_mail: bool, labels: Iterable[str]) -> bool:
    """Whether ``train`` makes a spam filter of data unasked: mail with a spam class
    (``spam.spam_class``: spam, or a folder named as mail clients name theirs, Junk...)."""
    return is_mail and spam_class(labels) is not None


def train_mail(documents: Iterable[Document], *, plain: dict[str, Any], as_filter: dict[str, Any],
               label: str = SPAM_LABEL, required: bool = False, seed: int = 0, jobs: int | None = None,
               summary: dict[str, Any] | None = None) -> Model:
    """What ``nbtext train`` makes of mail (or of any data it is asked to make a filter of): a
    spam filter (``train_filter(**as_filter)``) where the documents have a class ``label``, or
    anyway where ``required`` (which fails without one); else a plain model
    (``training.train(**plain)``). The documents are held in memory, to cross-validate.

    Examples
    --------
    >>> from nbtext.training import DEFAULT_ANALYZER
    >>> docs = [Document(f"cheap pills {i}", "spam", f"s{i}") for i in range(5)]
    >>> docs += [Document(f"lunch at noon {i}", "ham", f"h{i}") for i in range(5)]
    >>> model = train_mail(docs, plain={}, as_filter={"analyzer": DEFAULT_ANALYZER}, required=True)
    >>> model.settings["spam"]["label"], model.predict(["cheap pills"])
    ('spam', ['spam'])
    """
    held, read_from = held_documents(documents, jobs)
    summary = {**read_from, **(summary or {})}
    is_mail = isinstance(documents, (LabelledCorpus, Reading)) and (
        documents.is_mail if isinstance(documents, LabelledCorpus) else documents.corpus.is_mail)
    if required:
        return train_filter(held, label=label, seed=seed, summary=summary, **as_filter)
    if makes_a_filter(is_mail, labels := labels_of(held)):
        return train_filter(held, label=spam_class(labels) or label, seed=seed, summary=summary, **as_filter)
    return train(held, summary=summary, **plain)

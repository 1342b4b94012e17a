"""Evaluation: a trained model scored on a stream of labelled documents, batch by batch (the
documents are not held), with the documents it labels wrongly and why; and training options
scored by stratified cross-validation, a spam filter's as ``train`` would make it.

The figures themselves are ``metrics``' (independent of how they are shown); this module walks
the documents and says which the model was trained on, which texts came with several labels,
and what a filter's verdicts were.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .analysis import Analyzer
from .calibration import reliability, tempered
from .errors import DataError
from .folds import stratified_folds
from .metrics import MULTI_LABEL_THRESHOLD, evaluate, multi_label, seen_by_text
from .model import Explanation, Model
from .readers import Document, Reading, ReadReport
from .readers.document import labels_of, without_known_words
from .spam import SpamFilter
from .spam_training import cross_validate_filter
from .tuning import Trial, train_setting
from .tuning import cross_validate as cross_validate_settings

#: Documents scored at a time.
BATCH = 1000


@dataclass(frozen=True)
class WrongAnswer:
    """A document the model labels wrongly: the class it gave and the probability of that one
    and of the true one (None where the model has no such class), and, where asked for, the
    words that most raise the wrong class over the true one."""

    document: Document
    predicted: str
    p_predicted: float
    p_true: float | None
    why: Explanation | None = None


@dataclass
class Evaluation:
    """``metrics.evaluate``'s report, with what this evaluation adds (documents the model was
    trained on, texts of several labels, a filter's verdicts), and the documents labelled wrongly."""

    report: dict[str, Any]
    wrong: list[WrongAnswer]
    #: Each document's class log-probabilities (the model's classes), and its label, in order.
    log_proba: np.ndarray | None = None
    y_true: list[str] | None = None

    def picture_parts(self, model: Model, spam_filter: SpamFilter | None = None) -> dict[str, Any]:
        """What a picture of this evaluation shows beside its report (``plots.plot_evaluation``'s
        keywords): for a calibrated model, the reliability before its temperature; for a spam
        filter, each message's spam score and truth, and the cut-offs."""
        parts: dict[str, Any] = {}
        if self.log_proba is None or self.y_true is None:
            return parts
        calibration = model.settings["calibration"]
        if calibration and not model.settings["spam"]:
            column = {label: i for i, label in enumerate(model.classes)}
            known = [i for i, label in enumerate(self.y_true) if label in column]
            truth = np.array([column[self.y_true[i]] for i in known], dtype=np.int64)
            # tempering by 1/T undoes tempering by T: the core's own probabilities
            parts["before"] = reliability(tempered(self.log_proba[known], 1 / calibration["temperature"]), truth)
        if spam_filter is not None:
            parts["spam"] = {"scores": spam_filter.scores_of(self.log_proba, model.classes),
                             "is_spam": np.array(self.y_true) == spam_filter.label,
                             "spam_cutoff": spam_filter.spam_cutoff, "ham_cutoff": spam_filter.ham_cutoff}
        return parts


def evaluate_model(model: Model, documents: Iterable[Document], read_report: ReadReport | None = None, *,
                   spam_filter: SpamFilter | None = None, wrong: bool = False,
                   explain: int | None = None, threshold: float | None = None) -> Evaluation:
    """How ``model`` fares on labelled ``documents``, read as they come, and with ``spam_filter``
    (the model's, at the cut-offs a user gave) its verdicts too.

    ``read_report`` is the report of the reading that yields ``documents`` (a corpus's
    ``Reading`` brings its own): its digests of their texts tell which ones the model was
    trained on (it keeps theirs), and which texts came under several labels; the documents in
    which the model knows no word are added to it. A corpus's DATA that gave no document is an
    error once the others are scored. With ``wrong``, each document labelled wrongly is kept,
    with the ``explain`` words that most raised the wrong class over the true one. Where texts
    came with several labels, or a ``threshold`` is given, the report's ``multi_label`` scores
    each distinct text given every class of probability ``threshold`` or more
    (``metrics.multi_label``; ``MULTI_LABEL_THRESHOLD`` where none is given).

    Examples
    --------
    >>> from nbtext.training import train
    >>> docs = [Document("cheap pills", "spam", "1"), Document("lunch at noon", "ham", "2")]
    >>> model = train(docs)
    >>> test = [Document("cheap lunch pills", "spam", "3"), Document("noon lunch", "spam", "4")]
    >>> done = evaluate_model(model, test, wrong=True)
    >>> done.report["accuracy"], [(answer.document.source, answer.predicted) for answer in done.wrong]
    (0.5, [('4', 'ham')])
    """
    if read_report is None:
        read_report = documents.report if isinstance(documents, Reading) else ReadReport()
        if not isinstance(documents, Reading):
            documents = (read_report.add(doc, replaced=False) for doc in documents)
    y_true: list[str] = []
    blocks: list[np.ndarray] = []
    wrongly: list[WrongAnswer] = []
    stream = iter(documents)
    while batch := list(itertools.islice(stream, BATCH)):
        values = model.values_of(batch)
        blocks.append(model.predict_log_proba([doc.text for doc in batch], values))
        read_report.no_known_word += without_known_words(batch, model.scored_as_empty(blocks[-1]))
        if values is not None:
            read_report.unseen_values.update(model.unseen_values(values))
        y_true += labels_of(batch)
        if wrong:
            wrongly += wrongly_labelled(model, batch, blocks[-1], explain)
    if isinstance(documents, Reading):
        documents.corpus.check_all_read()
    if not y_true:
        raise DataError("no documents to evaluate")
    log_proba = np.vstack(blocks)
    report = evaluate(y_true, log_proba, model.classes)
    if model.texts is not None:  # documents the model was trained on score better than new ones
        # The read report took each document's digest as it was read, in order.
        report.update(seen_by_text(y_true, log_proba, model.classes, np.array(read_report.texts, dtype=np.uint64),
                                   model.texts))
    relabelled = read_report.repeated()[1]
    if relabelled:  # a text's copies under its several labels all get one answer: right for one at most
        predicted = np.asarray(model.classes, dtype=object)[np.argmax(log_proba, axis=1)]
        report.update(multi_label_texts=relabelled, **read_report.any_label(predicted))
    if relabelled or threshold is not None:
        digests = np.array(read_report.texts, dtype=np.uint64)
        report["multi_label"] = multi_label(y_true, log_proba, model.classes, digests,
                                            threshold=MULTI_LABEL_THRESHOLD if threshold is None else threshold)
    if spam_filter is not None:
        report["filter"] = spam_filter.judged(spam_filter.scores_of(log_proba, model.classes),
                                              np.array(y_true) == spam_filter.label)
    return Evaluation(report, wrongly, log_proba, y_true)


def wrongly_labelled(model: Model, batch: Sequence[Document], log_proba: np.ndarray,
                     explain: int | None = None) -> list[WrongAnswer]:
    """The documents of ``batch`` whose most probable class (the confusion matrix's prediction)
    is not their label, with ``explain`` words each that most raise it over the true class.
    Where the model has no class of the true label, no probability of it is given, and no word
    weighed against it."""
    column = {label: i for i, label in enumerate(model.classes)}
    labels = labels_of(batch)
    best = np.argmax(log_proba, axis=1)
    wrong = [i for i, label in enumerate(labels) if model.classes[best[i]] != label]
    known = [i for i in wrong if labels[i] in column]
    why = {}
    if explain and known:
        explained = model.explain([batch[i].text for i in known], explain, log_proba=log_proba[known],
                                  against=[labels[i] for i in known],
                                  values=model.values_of([batch[i] for i in known]))
        why = dict(zip(known, explained))
    answers = []
    for i in wrong:
        row, true = log_proba[i], column.get(labels[i])
        answers.append(WrongAnswer(batch[i], model.classes[best[i]], float(np.exp(row[best[i]])),
                                   None if true is None else float(np.exp(row[true])), why.get(i)))
    return answers


def cross_validate(documents: Sequence[Document], *, k: int, seed: int, analyzer: Analyzer,
                   settings: dict[str, Any], filter_options: dict[str, Any] | None = None,
                   progress: Callable[[int], None] | None = None) -> Trial:
    """The training options ``settings`` (a model's settings, with ``tf`` and ``doc_norm``) over
    ``analyzer`` scored by stratified ``k``-fold cross-validation of ``documents``; with
    ``filter_options`` (``spam_training.train_filter``'s), each fold's model is a spam filter,
    trained as ``train`` trains one, calibration and all.

    Examples
    --------
    >>> from nbtext.training import DEFAULT_ANALYZER
    >>> docs = [Document(f"cheap pills {i}", "spam", f"s{i}") for i in range(6)]
    >>> docs += [Document(f"lunch at noon {i}", "ham", f"h{i}") for i in range(6)]
    >>> trial = cross_validate(docs, k=3, seed=0, analyzer=DEFAULT_ANALYZER, settings={"alpha": 0.5})
    >>> trial.summary()["accuracy"]
    {'mean': 1.0, 'std': 0.0}
    """
    if filter_options is not None:
        return cross_validate_filter(documents, k=k, seed=seed, analyzer=analyzer, progress=progress,
                                     **filter_options)
    # the whole analyzer (n-grams, tokens, headers, hashing) is the base; the candidate adds the rest
    return cross_validate_settings(documents, [settings], k=k, seed=seed, base_analyzer=analyzer,
                                   progress=progress)[0]


#: The shares of each fold's training documents a learning curve trains on.
CURVE_SHARES = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)


def learning_curve(documents: Sequence[Document], *, k: int, seed: int, analyzer: Analyzer,
                   settings: dict[str, Any], shares: Sequence[float] = CURVE_SHARES,
                   progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Would more labelled documents help? For each of ``shares``: models of the training
    ``settings`` (``cross_validate``'s) trained on that share of each fold's training documents,
    scored on the held-out fold of stratified ``k``-fold cross-validation. A share takes each
    class's documents in one seeded order, so a larger share holds a smaller one's, and every
    class keeps a document. Naive Bayes trains in one pass, which makes this cheap.
    ``progress`` is called once per model trained.

    Examples
    --------
    >>> from nbtext.training import DEFAULT_ANALYZER
    >>> docs = [Document(f"cheap pills {i}", "spam", f"s{i}") for i in range(10)]
    >>> docs += [Document(f"lunch at noon {i}", "ham", f"h{i}") for i in range(10)]
    >>> points = learning_curve(docs, k=2, seed=0, analyzer=DEFAULT_ANALYZER, settings={}, shares=[0.2, 1.0])
    >>> [(p["share"], p["documents"], p["accuracy"]["mean"]) for p in points]
    [(0.2, 2.0, 1.0), (1.0, 10.0, 1.0)]
    """
    labels = labels_of(documents)
    if len(set(labels)) < 2:
        raise DataError("a learning curve needs at least two classes")
    fold_of = stratified_folds(labels, k, seed)
    rank = np.random.default_rng(seed).permutation(len(labels))
    scores: dict[float, list[dict[str, Any]]] = {share: [] for share in shares}
    sizes: dict[float, list[int]] = {share: [] for share in shares}
    for f in range(k):
        held = np.flatnonzero(fold_of == f)
        test = [documents[i] for i in held]
        by_class: dict[str, list[int]] = {}
        for i in sorted(np.flatnonzero(fold_of != f), key=rank.__getitem__):
            by_class.setdefault(labels[i], []).append(int(i))
        for share in shares:
            chosen = sorted(i for members in by_class.values()
                            for i in members[:max(1, int(round(share * len(members))))])
            model = train_setting([documents[i] for i in chosen], settings, base_analyzer=analyzer)
            values = model.values_of(test)
            scores[share].append(evaluate(labels_of(test), model.predict_log_proba([doc.text for doc in test], values),
                                          model.classes))
            sizes[share].append(len(chosen))
            if progress is not None:
                progress(1)
    return [{"share": share, "documents": float(np.mean(sizes[share])),
             **{name: {"mean": float(np.mean([r[name] for r in scores[share]])),
                       "std": float(np.std([r[name] for r in scores[share]]))} for name in ("accuracy", "macro_f1")}}
            for share in shares]

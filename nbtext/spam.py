"""Spam-filter mode: a calibrated spam score, cut-offs with an unsure band, learning from corrections.

A filter model is an ordinary model whose settings name the spam class and carry what turns
the Naive Bayes log-odds into a score a cut-off can be set on:

* the score is the probability that a message is spam, calibrated by Platt scaling on
  out-of-fold predictions over the training data (of messages scored 0.9, about nine in ten
  were spam in cross-validation);
* the spam cut-off is the lowest score, 0.99 or above, at which no more than ``fp_target`` of
  the training ham would be called spam out of fold; the ham cut-off is 0.5, so "unsure" means
  "more likely spam than not, but not sure enough to risk a good message".

Documents are counted once, per (class, fold); each fold's model is regrouped from those
counts (exact, see ``counting.on_grid``), so cross-validation costs k model builds, not k
trainings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .analysis import Analyzer
from .calibration import fit_platt, log_odds, platt_scaled, sigmoid
from .errors import DataError, ModelError
from .model import Model
from .readers import Document

if TYPE_CHECKING:
    from .tuning import Trial

#: The share of the training ham that may score above the spam cut-off out of fold.
DEFAULT_FP_TARGET = 0.001
DEFAULT_HAM_CUTOFF = 0.5
#: The lowest spam cut-off a filter measures. A message is called spam only when it is at least
#: 99% likely to be, which weighs a lost good message as 99 lost catches (bogofilter's spam
#: cut-off is 0.99 too). Ham outside the training data's kinds is what the out-of-fold target
#: cannot see: an airline's newsletter, a list post with nothing but a signature; with
#: cut-offs as low as 0.5 such messages were lost (README, "Side by side with bogofilter").
MIN_SPAM_CUTOFF = 0.99
DEFAULT_FOLDS = 5
#: A filter's transforms and settings where the caller gave none. A filter is judged by how
#: much spam it catches at a tiny false-positive rate, not by accuracy; there, unit length and
#: IDF catch more spam for fewer lost messages than the plain-text defaults, and every term
#: kept, even one seen in a single message, catches the next message of a spam run (README,
#: "nbtext filter": benchmarks/spam.py under each).
FILTER_WEIGHTING = {"tf": "log", "doc_norm": "l2"}
FILTER_SETTINGS = {"alpha": 0.05, "idf": True, "min_df": 1}
#: A filter's word tokens where the caller gave none: runs of two or more letters and digits,
#: with which its settings and cut-offs were measured. The plain defaults' one-letter words
#: were chosen for accuracy across the corpora, not for spam caught at a fixed false-positive rate.
FILTER_TOKENS = "words"
#: bogofilter's exit statuses, so that procmail and maildrop rules work unchanged.
EXIT_SPAM, EXIT_HAM, EXIT_UNSURE = 0, 1, 2
VERDICTS = ("Spam", "Ham", "Unsure")


@dataclass(frozen=True)
class SpamFilter:
    """What a filter model stores (``model.settings["spam"]``) and how it scores messages."""

    label: str
    spam_cutoff: float
    ham_cutoff: float
    #: Platt scaling of the log-odds: score = 1 / (1 + exp(-(slope * log_odds + intercept))).
    slope: float = 1.0
    intercept: float = 0.0
    #: Out-of-fold figures at the chosen cut-offs (plain data, for the train summary).
    measured: dict[str, Any] | None = None

    @classmethod
    def of(cls, model: Model) -> SpamFilter:
        """The filter settings of ``model``; a ModelError if it was not trained as a filter."""
        stored = model.settings.get("spam")
        if not stored:
            raise ModelError(
                "this model is not a spam filter: nbtext train makes one of mail with a spam class (mbox files, "
                "maildirs and .eml files are read as mail; other message files with --input-format email), or of "
                "any data with --spam-label LABEL (nbtext tune and train --calibrate make plain models)"
            )
        return cls(**stored)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def with_cutoffs(self, spam_cutoff: float | None, ham_cutoff: float | None) -> SpamFilter:
        """These settings with the cut-offs a user gave (None keeps this filter's; the ham
        cut-off never rises above a given spam cut-off unless given too)."""
        spam_cutoff = self.spam_cutoff if spam_cutoff is None else spam_cutoff
        ham_cutoff = min(self.ham_cutoff, spam_cutoff) if ham_cutoff is None else ham_cutoff
        if ham_cutoff > spam_cutoff:
            raise DataError(f"the ham cut-off ({ham_cutoff}) is above the spam cut-off ({spam_cutoff})")
        return replace(self, spam_cutoff=spam_cutoff, ham_cutoff=ham_cutoff)

    def ham_label(self, classes: Sequence[str]) -> str:
        """The class that ``learn --ham`` adds to: the other class, or ``ham`` among several."""
        others = [c for c in classes if c != self.label]
        if len(others) == 1:
            return others[0]
        if "ham" in others:
            return "ham"
        raise ModelError(f"the model has several non-spam classes ({', '.join(others)}); none is called ham")

    def scores(self, model: Model, texts: Sequence[str]) -> np.ndarray:
        """The calibrated spam probability of each text."""
        return self.scores_of(model.predict_log_proba(texts), model.classes)

    def scores_of(self, log_proba: np.ndarray, classes: Sequence[str]) -> np.ndarray:
        """The calibrated spam probability of each row of a filter model's ``log_proba``
        (``Model.predict_log_proba``, which has calibrated them)."""
        return np.exp(log_proba[:, list(classes).index(self.label)])

    def calibrated(self, log_proba: np.ndarray, classes: Sequence[str]) -> np.ndarray:
        """The Naive Bayes class log-probabilities ``log_proba`` made the filter's: the spam
        class's is the log of the Platt-scaled score, and the other classes share the rest in
        the proportions the Naive Bayes model gave them. ``predict --proba``, ``eval`` and
        ``filter`` then give one message one probability of spam."""
        return platt_scaled(log_proba, list(classes).index(self.label), self.slope, self.intercept)

    def empty_answer(self, model: Model) -> str:
        """What the read report says this filter answers a message with no word it knows: the
        score its calibration gives even evidence, and the verdict at its cut-offs (``filter``;
        predict and eval say the class that score makes: ``Model.empty_answer``)."""
        score = self.scores_of(model.empty_log_proba[None], model.classes)
        return f"no words to go by: scored {score[0]:.6f}, {VERDICTS[self.verdicts(score)[0]]}"

    def verdicts(self, scores: np.ndarray) -> np.ndarray:
        """0 (Spam), 1 (Ham) or 2 (Unsure) for each score: indices into VERDICTS, and exit statuses."""
        return np.where(scores >= self.spam_cutoff, EXIT_SPAM, np.where(scores < self.ham_cutoff, EXIT_HAM, EXIT_UNSURE))

    def judged(self, scores: np.ndarray, is_spam: np.ndarray) -> dict[str, Any]:
        """How this filter's verdicts at its cut-offs (named first) fare on messages of known
        class: the ham called spam (the costly error), the spam caught and the messages left
        unsure, each as a count and a share (0 where there are no such messages).

        >>> SpamFilter("spam", 0.99, 0.5).judged(np.array([0.1, 0.995, 0.6, 0.999]),
        ...                                      np.array([False, False, True, True]))["spam_recall"]
        0.5
        """
        verdicts = self.verdicts(scores)
        ham_lost, caught = int(np.sum(verdicts[~is_spam] == EXIT_SPAM)), int(np.sum(verdicts[is_spam] == EXIT_SPAM))
        unsure, n_spam = int(np.sum(verdicts == EXIT_UNSURE)), int(np.sum(is_spam))
        n_ham = len(is_spam) - n_spam
        return {
            "spam_label": self.label, "spam_cutoff": self.spam_cutoff, "ham_cutoff": self.ham_cutoff,
            "ham_false_positives": ham_lost, "n_ham": n_ham, "spam_caught": caught, "n_spam": n_spam,
            "unsure": unsure, "n_messages": len(is_spam),
            "ham_false_positive_rate": ham_lost / n_ham if n_ham else 0.0,
            "spam_recall": caught / n_spam if n_spam else 0.0,
            "unsure_share": unsure / len(is_spam) if len(is_spam) else 0.0,
        }


def choose_cutoffs(scores: np.ndarray, is_spam: np.ndarray, fp_target: float = DEFAULT_FP_TARGET,
                   ham_cutoff: float = DEFAULT_HAM_CUTOFF,
                   min_spam_cutoff: float = MIN_SPAM_CUTOFF) -> tuple[float, float]:
    """(spam cut-off, ham cut-off) from out-of-fold scores.

    The spam cut-off lies between the highest ham score that must stay below it (so that at
    most ``fp_target`` of the ham is above) and the next spam score; never below
    ``min_spam_cutoff``.

    >>> scores = np.array([0.1, 0.2, 0.95, 0.6, 0.999, 0.97])
    >>> is_spam = np.array([False, False, False, True, True, True])
    >>> choose_cutoffs(scores, is_spam, fp_target=0.0)
    (0.99, 0.5)
    >>> choose_cutoffs(scores, is_spam, fp_target=0.0, min_spam_cutoff=0.5)
    (0.96, 0.5)
    """
    ham = np.sort(scores[~is_spam])[::-1]
    if len(ham) == 0:
        raise DataError("no ham to set the spam cut-off on")
    allowed = min(int(fp_target * len(ham)), len(ham) - 1)
    boundary = float(ham[allowed])
    above = scores[is_spam & (scores > boundary)]
    spam_cutoff = (boundary + float(above.min())) / 2 if above.size else float(np.nextafter(boundary, 2.0))
    # Above 1 (nothing is spam) only when a ham message scored 1.0: the data then allow no cut-off.
    spam_cutoff = max(spam_cutoff, min_spam_cutoff)
    return spam_cutoff, min(ham_cutoff, spam_cutoff)


def train_filter(
    documents: Iterable[Document],
    *,
    analyzer: Analyzer,
    tf: str = FILTER_WEIGHTING["tf"],
    doc_norm: str | None = FILTER_WEIGHTING["doc_norm"],
    settings: dict[str, Any] | None = None,
    summary: dict[str, Any] | None = None,
    label: str = "spam",
    folds: int = DEFAULT_FOLDS,
    seed: int = 0,
    fp_target: float = DEFAULT_FP_TARGET,
    spam_cutoff: float | None = None,
    ham_cutoff: float | None = None,
) -> Model:
    """A filter model trained on labelled ``documents`` (they are held in memory).

    Equals ``training.train`` on the same documents, plus the spam settings: calibration and
    cut-offs measured by stratified ``folds``-fold cross-validation; ``spam_cutoff`` and
    ``ham_cutoff`` override the measured ones. ``tf``, ``doc_norm`` and any setting not given
    take a filter's defaults (``FILTER_WEIGHTING``, ``FILTER_SETTINGS``).
    """
    from .training import finished
    from .folds import labelled_for_folds, out_of_fold

    settings = {**FILTER_SETTINGS, **(settings or {})}
    documents, labels, classes = labelled_for_folds(documents, folds, "measuring the cut-offs")
    if label not in classes:
        raise DataError(f"no documents labelled {label!r} (the spam label); labels seen: {', '.join(classes)}")
    total, log_proba = out_of_fold(documents, labels, analyzer, tf=tf, doc_norm=doc_norm, settings=settings,
                                   folds=folds, seed=seed)
    odds = log_odds(log_proba, classes.index(label))
    is_spam = np.array(labels) == label
    slope, intercept = fit_platt(odds, is_spam)
    scores = sigmoid(slope * odds + intercept)
    measured_filter = SpamFilter(label, *choose_cutoffs(scores, is_spam, fp_target), slope, intercept)
    spam_filter = measured_filter.with_cutoffs(spam_cutoff, ham_cutoff)
    judged = spam_filter.judged(scores, is_spam)
    shares = {key: judged[key] for key in ("ham_false_positive_rate", "spam_recall", "unsure_share")}
    spam_filter = replace(spam_filter, measured={"folds": folds, "seed": seed, "fp_target": fp_target, **shares})
    model = Model(analyzer, total, {**settings, "spam": spam_filter.to_dict()}, summary)
    return finished(model)


def cross_validate_filter(documents: Sequence[Document], *, k: int, seed: int, analyzer: Analyzer,
                          label: str = "spam", progress: Callable[[int], None] | None = None,
                          **options: Any) -> Trial:
    """The ``tuning.Trial`` of ``k``-fold cross-validation of the filter ``train_filter`` gives
    (``options`` are its): each fold is scored by the filter trained on the other folds,
    calibration and all, as ``nbtext eval`` scores a filter."""
    from .metrics import evaluate, right_answers
    from .readers.document import labels_of
    from .tuning import Trial
    from .folds import stratified_folds

    labels = labels_of(documents)
    fold_of = stratified_folds(labels, k, seed)
    trial = Trial({"spam_label": label}, folds=fold_of, right=np.zeros(len(labels), dtype=bool))
    for f in range(k):
        held = np.flatnonzero(fold_of == f)
        model = train_filter([documents[i] for i in np.flatnonzero(fold_of != f)], analyzer=analyzer, label=label,
                             seed=seed, **options)
        log_proba = model.predict_log_proba([documents[i].text for i in held])
        test_labels = [labels[i] for i in held]
        trial.reports.append(evaluate(test_labels, log_proba, model.classes))
        trial.right[held] = right_answers(test_labels, log_proba, model.classes)
        if progress is not None:
            progress(1)
    return trial



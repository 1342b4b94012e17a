"""What a spam filter is: a calibrated spam score, and cut-offs with an unsure band.

A filter model is an ordinary model whose settings name the spam class and carry what turns
the Naive Bayes log-odds into a score a cut-off can be set on:

* the score is the probability that a message is spam, calibrated by Platt scaling on
  out-of-fold predictions over the training data (of messages scored 0.9, about nine in ten
  were spam in cross-validation);
* the spam cut-off is the lowest score, 0.99 or above, at which no more than ``fp_target`` of
  the training ham would be called spam out of fold; the ham cut-off is 0.5, so "unsure" means
  "more likely spam than not, but not sure enough to risk a good message".

``spam_training`` measures them; ``filtering`` gives messages their verdicts, ``learning``
teaches a filter from corrections. This module is what the three share, and what ``nbtext
filter`` loads to judge one message: it imports nothing that trains.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .calibration import platt_scaled
from .combining import NB
from .errors import DataError, ModelError
from .model import Model

#: The class that makes mail a spam filter's training data unasked.
SPAM_LABEL = "spam"
#: The names mail clients give their spam folder (Thunderbird's and Outlook's Junk, Outlook's
#: Junk E-mail, Yahoo's Bulk Mail), in any case: mail exported in such folders is a filter's too.
SPAM_FOLDER_NAMES = ("spam", "junk", "junk e-mail", "junk email", "bulk mail", "bulk")
#: The share of the training ham that may score above the spam cut-off out of fold.
DEFAULT_FP_TARGET = 0.001
DEFAULT_HAM_CUTOFF = 0.5
#: The lowest spam cut-off a filter measures. A message is called spam only when it is at least
#: 99% likely to be, which weighs a lost good message as 99 lost catches (bogofilter's spam
#: cut-off is 0.99 too). Ham outside the training data's kinds is what the out-of-fold target
#: cannot see: an airline's newsletter, a list post with nothing but a signature; with
#: cut-offs as low as 0.5 such messages were lost (benchmarks/spam.py).
MIN_SPAM_CUTOFF = 0.99
#: bogofilter's exit statuses, so that procmail and maildrop rules work unchanged.
EXIT_SPAM, EXIT_HAM, EXIT_UNSURE = 0, 1, 2
VERDICTS = ("Spam", "Ham", "Unsure")


def spam_class(labels: Iterable[str]) -> str | None:
    """The class of ``labels`` that is spam unasked: ``spam``, else the one class named as mail
    clients name their spam folder (``SPAM_FOLDER_NAMES``), else None.

    >>> spam_class(["INBOX", "Junk"]), spam_class(["ham", "spam", "Junk"]), spam_class(["Junk", "BULK"])
    ('Junk', 'spam', None)
    """
    names = set(labels)
    if SPAM_LABEL in names:
        return SPAM_LABEL
    found = sorted(name for name in names if name.casefold() in SPAM_FOLDER_NAMES)
    return found[0] if len(found) == 1 else None


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
    #: How the words' evidence makes the score (``combining``): naive Bayes' posterior, Platt
    #: scaled, or Robinson's chi-square, used as it is (slope 1, intercept 0).
    combining: str = NB

    @classmethod
    def of(cls, model: Model) -> SpamFilter:
        """The filter settings of ``model``; a ModelError if it was not trained as a filter."""
        stored = model.settings.get("spam")
        if not stored:
            raise ModelError(
                "this model is not a spam filter: nbtext train makes one of mail with a spam class (mbox files, "
                "maildirs and .eml files are read as mail; other message files with `input_format` email), or of "
                "any data with `spam_label` LABEL (tuned and calibrated models are plain ones)"
            )
        return cls(**stored)

    def to_dict(self) -> dict[str, Any]:
        """The settings a model file keeps; naive Bayes' combining unsaid, as files before it had it."""
        return {key: value for key, value in self.__dict__.items() if not (key == "combining" and value == NB)}

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
        return {"spam_label": self.label, "spam_cutoff": self.spam_cutoff, "ham_cutoff": self.ham_cutoff,
                **judged_verdicts(self.verdicts(scores), is_spam)}


def judged_verdicts(verdicts: np.ndarray, is_spam: np.ndarray) -> dict[str, Any]:
    """``SpamFilter.judged``'s counts and shares of ``verdicts`` (EXIT_SPAM, EXIT_HAM or
    EXIT_UNSURE each), given at whatever cut-offs: several folds' filters' too, pooled."""
    ham_lost, caught = int(np.sum(verdicts[~is_spam] == EXIT_SPAM)), int(np.sum(verdicts[is_spam] == EXIT_SPAM))
    unsure, n_spam = int(np.sum(verdicts == EXIT_UNSURE)), int(np.sum(is_spam))
    n_ham = len(is_spam) - n_spam
    return {
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



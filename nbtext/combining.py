"""Robinson's chi-square combining (Fisher's method), the spam score bogofilter and SpamBayes
give a message, as a spam filter's other way to score (``train --combining chi-square``).

Each word w the filter knows has a spamicity: of the training messages, b spam and g others
hold it, out of N_s spam and N_o others, and

    p(w) = (b / N_s) / (b / N_s + g / N_o)
    f(w) = (s x + n p(w)) / (s + n),  n = b + g

which draws a rarely seen word towards x (Robinson's smoothing: ``ROBS`` is s, ``ROBX`` is x).
Of a message's distinct words, those whose f(w) lies more than ``MIN_DEV`` from 0.5 are its
evidence, k of them. Fisher's method asks how unlikely their product is were the words random:

    H = Q(-2 sum ln f(w), 2k),  S = Q(-2 sum ln(1 - f(w)), 2k),  score = (1 + H - S) / 2

with Q the chi-square survival function. Spammy words make H near 1 and S near 0, and the
score near 1; hammy words the other way; and where the message holds both, the score sits
near 0.5, unsure, which the naive Bayes posterior, sure of every message, never is. A
message with no such word scores 0.5. ``ROBS``, ``ROBX`` and ``MIN_DEV`` are bogofilter's
defaults (``bogofilter -Q``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from .calibration import spam_logit_scaled

if TYPE_CHECKING:
    from .matrices import ColumnMatrix, CountMatrix

NB, CHI_SQUARE = "nb", "chi-square"
#: How a filter may combine its words' evidence into a message's spam score.
COMBINING = (NB, CHI_SQUARE)
ROBS, ROBX, MIN_DEV = 0.0178, 0.52, 0.375
#: How far from 0 and 1 a score is held, so that its log-odds stay finite.
_EDGE = 1e-12


def spamicity(spam_docs: np.ndarray, other_docs: np.ndarray, n_spam: float, n_other: float) -> np.ndarray:
    """f(w) of words held by ``spam_docs`` spam and ``other_docs`` other training messages (out
    of ``n_spam`` and ``n_other``); ROBX for a word no message holds.

    >>> spamicity(np.array([3.0, 0.0, 0.0]), np.array([1.0, 2.0, 0.0]), 4, 4).round(4).tolist()
    [0.749, 0.0046, 0.52]
    """
    spam_share = spam_docs / n_spam if n_spam else np.zeros_like(spam_docs)
    other_share = other_docs / n_other if n_other else np.zeros_like(other_docs)
    both = spam_share + other_share
    p = np.divide(spam_share, both, out=np.full_like(both, ROBX), where=both > 0)
    n = spam_docs + other_docs
    return (ROBS * ROBX + n * p) / (ROBS + n)


def chi_square_survival(x2: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Q(x2, 2k): the chance that a chi-square variable of 2k degrees of freedom is at least
    x2; for even degrees the sum exp(-m) sum_{i<k} m^i / i!, m = x2 / 2, taken in logs (k may
    run to thousands, where exp(-m) alone underflows); 1 where k is 0.

    >>> chi_square_survival(np.array([0.0, 2.0, 4.0]), np.array([3, 1, 2])).round(6).tolist()
    [1.0, 0.367879, 0.406006]
    """
    m = np.asarray(x2, dtype=float) / 2
    k = np.asarray(k, dtype=np.int64)
    with np.errstate(divide="ignore"):
        log_m = np.log(m)
    term = -m  # log of the i = 0 term
    total = np.where(k > 0, term, 0.0)
    for i in range(1, int(k.max(initial=0))):
        term = term + log_m - np.log(i)
        total = np.where(i < k, np.logaddexp(total, term), total)
    return np.minimum(np.exp(total), 1.0)


def chi_square_scores(present: CountMatrix, f: np.ndarray) -> np.ndarray:
    """The combined score of each document of ``present`` (documents x words, a word there
    where its entry is not 0), its words' spamicities ``f``."""
    evidence = np.abs(f - 0.5) > MIN_DEV
    rows = np.repeat(np.arange(present.shape[0]), np.diff(present.indptr))
    used = evidence[present.indices] & (present.data != 0)
    rows, words = rows[used], present.indices[used]
    n = present.shape[0]
    k = np.bincount(rows, minlength=n)
    ham_sum = -2 * np.bincount(rows, weights=np.log(f[words]), minlength=n)
    spam_sum = -2 * np.bincount(rows, weights=np.log1p(-f[words]), minlength=n)
    h, s = chi_square_survival(ham_sum, k), chi_square_survival(spam_sum, k)
    return np.where(k > 0, (1 + h - s) / 2, 0.5)


def chi_square_log_proba(log_proba: np.ndarray, present: CountMatrix, doc_freq: ColumnMatrix,
                         class_docs: np.ndarray, column: int) -> np.ndarray:
    """A filter's class log-probabilities ``log_proba`` (naive Bayes') with the spam class's
    (in ``column``) made the chi-square score of each document of ``present`` (over the
    model's columns), the other classes sharing the rest in the proportions naive Bayes gave
    them. ``doc_freq`` holds how many training messages of each class hold each column's word,
    ``class_docs`` how many messages each class had."""
    f = _spamicities(present, doc_freq, class_docs, column)
    score = np.clip(chi_square_scores(present, f), _EDGE, 1 - _EDGE)
    return spam_logit_scaled(log_proba, column, np.log(score) - np.log1p(-score))


def chi_square_evidence(present: CountMatrix, doc_freq: ColumnMatrix, class_docs: np.ndarray, column: int,
                        label: np.ndarray, against: np.ndarray) -> CountMatrix:
    """What each word of each document of ``present`` weighs for its ``label`` over ``against``
    (class indices, one a document) in a chi-square filter: a word of evidence, the log-odds of
    its spamicity, ln(f / (1 - f)), for the spam class (``column``) and against it; any other
    word 0. The words ``predict --explain`` names for such a filter."""
    f = _spamicities(present, doc_freq, class_docs, column)
    rows = np.repeat(np.arange(present.shape[0]), np.diff(present.indptr))
    side = (label == column).astype(float) - (against == column)  # +1 for spam, -1 against it, 0 else
    words = f[present.indices]
    weight = np.where(np.abs(words - 0.5) > MIN_DEV, np.log(words) - np.log1p(-words), 0.0) * side[rows]
    return dataclasses.replace(present, data=np.where(present.data != 0, weight, 0.0))


def _spamicities(present: CountMatrix, doc_freq: ColumnMatrix, class_docs: np.ndarray, column: int) -> np.ndarray:
    """f(w) of every column, from the training counts, for the words ``present`` holds (ROBX elsewhere)."""
    words = np.unique(present.indices)
    held = doc_freq[:, words]  # classes x the words these documents hold
    f = np.full(present.shape[1], ROBX)
    f[words] = spamicity(held[column], held.sum(axis=0) - held[column], float(class_docs[column]),
                         float(class_docs.sum() - class_docs[column]))
    return f

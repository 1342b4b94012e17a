"""Probabilities users can threshold: how well calibrated they are, temperature scaling, and Platt
scaling of one class's log-odds (a spam filter's score). numpy only: it imports nothing of nbtext.

Naive Bayes multiplies evidence as if words were independent, so its probabilities sit near
0 and 1 far more often than its accuracy warrants. Dividing the log-probabilities by one
temperature T > 1 (and normalising again) softens them without changing any prediction; T is
fitted to minimise the log loss of out-of-fold predictions (Guo et al. 2017).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    pass

#: Bins of the reliability table and of the expected calibration error.
BINS = 10
#: Temperatures searched, as log T.
_LOG_T_RANGE = (np.log(1e-2), np.log(1e3))


def tempered(log_proba: np.ndarray, temperature: float) -> np.ndarray:
    """``log_proba`` divided by ``temperature`` and normalised again (the argmax is kept).

    >>> np.exp(tempered(np.log(np.array([[0.9, 0.1]])), 2.0)).round(4).tolist()
    [[0.75, 0.25]]
    """
    scaled = log_proba / temperature
    top = scaled.max(axis=1, keepdims=True)
    return scaled - (top + np.log(np.exp(scaled - top).sum(axis=1, keepdims=True)))


def log_loss(log_proba: np.ndarray, truth: np.ndarray) -> float:
    """Mean negative log-probability of the true class (``truth`` holds column numbers)."""
    return float(-log_proba[np.arange(len(truth)), truth].mean())


def fit_temperature(log_proba: np.ndarray, truth: np.ndarray) -> float:
    """The temperature that minimises the log loss of ``log_proba`` against ``truth``.

    The loss is convex in 1/T, so a golden-section search over log T finds its minimum.

    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 2, 2000)
    >>> margin = np.where(truth == 1, 1.0, -1.0) + rng.normal(0, 1, 2000)   # true log-odds: 2 * margin
    >>> overconfident = 10 * margin                                          # NB-like: 5x too sure
    >>> log_proba = tempered(np.stack([-overconfident, overconfident], axis=1) / 2, 1.0)
    >>> 4.5 < fit_temperature(log_proba, truth) < 5.5
    True
    """
    def loss(log_t: float) -> float:
        return log_loss(tempered(log_proba, float(np.exp(log_t))), truth)

    low, high = _LOG_T_RANGE
    ratio = (np.sqrt(5) - 1) / 2
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    loss_a, loss_b = loss(a), loss(b)
    while high - low > 1e-9:  # in log T; coarser loses to scipy where the optimum is at a bound
        if loss_a <= loss_b:
            high, b, loss_b = b, a, loss_a
            a = high - ratio * (high - low)
            loss_a = loss(a)
        else:
            low, a, loss_a = a, b, loss_b
            b = low + ratio * (high - low)
            loss_b = loss(b)
    return float(np.exp((low + high) / 2))


def reliability(log_proba: np.ndarray, truth: np.ndarray, bins: int = BINS) -> dict[str, Any]:
    """The reliability table of the top-class probability, and the expected calibration error.

    Each bin of confidence (``bins`` equal widths over [0, 1]) holds the documents whose top
    probability falls in it; a calibrated model is right in about that share of them. The ECE
    is the mean gap between confidence and accuracy, bins weighted by their documents.

    >>> report = reliability(np.log([[0.95, 0.05], [0.95, 0.05], [0.6, 0.4], [0.3, 0.7]]), np.array([0, 1, 0, 1]))
    >>> [(row["low"], row["documents"], row["accuracy"]) for row in report["bins"]]
    [(0.6, 1, 1.0), (0.7, 1, 1.0), (0.9, 2, 0.5)]
    >>> round(report["ece"], 4)   # (0.4 * 1 + 0.3 * 1 + 0.45 * 2) / 4
    0.4
    """
    confidence = np.exp(log_proba.max(axis=1))
    correct = np.argmax(log_proba, axis=1) == truth
    which = np.minimum((confidence * bins).astype(np.int64), bins - 1)
    rows, ece = [], 0.0
    for b in range(bins):
        members = which == b
        if not members.any():
            continue
        mean_confidence, accuracy = float(confidence[members].mean()), float(correct[members].mean())
        rows.append({"low": b / bins, "high": (b + 1) / bins, "documents": int(members.sum()),
                     "confidence": mean_confidence, "accuracy": accuracy})
        ece += members.sum() * abs(mean_confidence - accuracy)
    return {"ece": float(ece / max(len(truth), 1)), "bins": rows}


def log_odds(log_proba: np.ndarray, column: int) -> np.ndarray:
    """log P(c | x) - log P(not c | x) of each row of class log-probabilities ``log_proba``, for
    the class in ``column``.

    >>> log_odds(np.log(np.array([[0.8, 0.1, 0.1]])), 0).round(4).tolist()
    [1.3863]
    """
    return log_proba[:, column] - _log_rest(log_proba, column)


def platt_scaled(log_proba: np.ndarray, column: int, slope: float, intercept: float) -> np.ndarray:
    """Class log-probabilities ``log_proba`` with the class in ``column`` given the Platt-scaled
    probability sigmoid(slope * log-odds + intercept), and the other classes sharing the rest in
    the proportions they had: how a spam filter's model answers, so that predict, eval and
    filter give one message one probability of spam.

    >>> np.exp(platt_scaled(np.log(np.array([[0.5, 0.3, 0.2]])), 0, 1.0, 0.0)).round(4).tolist()
    [[0.5, 0.3, 0.2]]
    """
    rest = _log_rest(log_proba, column)
    return spam_logit_scaled(log_proba, column, slope * (log_proba[:, column] - rest) + intercept, rest)


def spam_logit_scaled(log_proba: np.ndarray, column: int, z: np.ndarray, rest: np.ndarray | None = None) -> np.ndarray:
    """Class log-probabilities ``log_proba`` with the class in ``column`` given the
    probability sigmoid(``z``), and the other classes sharing the rest in the proportions they
    had (``rest``: their log-probability together, where known)."""
    rest = _log_rest(log_proba, column) if rest is None else rest
    out = log_proba - rest[:, None] - np.logaddexp(0.0, z)[:, None]
    out[:, column] = -np.logaddexp(0.0, -z)  # log of sigmoid(z), to the bit
    return out


def _log_rest(log_proba: np.ndarray, column: int) -> np.ndarray:
    """log P(not c | x) for each row, c the class in ``column``."""
    return np.logaddexp.reduce(np.delete(log_proba, column, axis=1), axis=1)



def sigmoid(z: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-z)), without overflow."""
    return np.exp(-np.logaddexp(0.0, -z))


def fit_platt(log_odds: np.ndarray, is_spam: np.ndarray) -> tuple[float, float]:
    """(slope, intercept) of Platt's sigmoid fitted to labelled scores by Newton's method.

    Targets are Platt's smoothed labels, (N+ + 1) / (N+ + 2) and 1 / (N- + 2), which keep the
    fit finite when the classes are perfectly separated.

    >>> slope, intercept = fit_platt(np.array([-4.0, -2.0, -1.0, 1.0, 0.5, 3.0]),
    ...                              np.array([False, False, True, False, True, True]))
    >>> round(slope, 3), round(intercept, 3)
    (0.324, 0.132)
    """
    d = np.asarray(log_odds, dtype=np.float64)
    y = np.asarray(is_spam, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    target = np.where(y, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))

    def loss(a: float, b: float) -> float:
        z = a * d + b
        return float(np.sum(np.logaddexp(0.0, z) - target * z))

    a, b = 0.0, float(np.log((n_pos + 1.0) / (n_neg + 1.0)))
    current = loss(a, b)
    for _ in range(200):
        p = sigmoid(a * d + b)
        gradient = np.array([np.dot(p - target, d), np.sum(p - target)])
        w = p * (1.0 - p)
        hessian = np.array([[np.dot(w, d * d), np.dot(w, d)], [np.dot(w, d), np.sum(w)]]) + 1e-12 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        scale = 1.0
        while scale > 1e-10 and loss(a - scale * step[0], b - scale * step[1]) > current:
            scale /= 2
        a, b = a - scale * step[0], b - scale * step[1]
        previous, current = current, loss(a, b)
        if previous - current <= 1e-12 * max(1.0, abs(current)):
            break
    return float(a), float(b)

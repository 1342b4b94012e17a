"""Probabilities users can threshold: how well calibrated they are, and temperature scaling.

Naive Bayes multiplies evidence as if words were independent, so its probabilities sit near
0 and 1 far more often than its accuracy warrants. Dividing the log-probabilities by one
temperature T > 1 (and normalising again) softens them without changing any prediction; T is
fitted to minimise the log loss of out-of-fold predictions (Guo et al. 2017).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .analysis import Analyzer
    from .model import Model
    from .readers import Document

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


def train_calibrated(documents: Iterable[Document], *, analyzer: Analyzer, tf: str, doc_norm: str | None,
                     settings: dict[str, Any] | None = None, summary: dict[str, Any] | None = None,
                     folds: int = 5, seed: int = 0) -> Model:
    """A model trained on labelled ``documents`` (held in memory) with a temperature fitted on
    out-of-fold predictions of stratified ``folds``-fold cross-validation.

    Its counts equal ``training.train``'s on the same documents; its predictions are the same,
    its probabilities tempered. The out-of-fold log loss and ECE before and after are kept.
    """
    from .model import Model
    from .training import _finish
    from .tuning import labelled_for_folds, out_of_fold

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
    return _finish(Model(analyzer, counts, {**(settings or {}), "calibration": calibration}, summary))

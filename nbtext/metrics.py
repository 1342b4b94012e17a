"""Evaluation figures, independent of how they are shown."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from .calibration import reliability

#: Probabilities are clipped to [eps, 1 - eps] for the log loss, as scikit-learn does.
_EPS = float(np.finfo(np.float64).eps)


def evaluate(y_true: Sequence[str | None], log_proba: np.ndarray, classes: Sequence[str]) -> dict[str, Any]:
    """Accuracy, per-class precision/recall/F1, averages, confusion matrix, log loss, and the
    calibration of the top-class probability (``ece`` and the ``reliability`` table, see
    ``calibration.reliability``).

    ``y_true`` are the documents' labels (``Document.label``), none of them None. ``log_proba``
    has one column per entry of ``classes`` (the model's). True labels the model never saw can
    never be predicted: they count as errors, and are left out of the log loss (which needs
    the model's probability of the true class) and of the calibration, as ``n_unknown_label``
    says; ``unknown_labels`` counts them by label (a class folder named Spam/ where the model
    has spam).
    The per-class figures, their averages and the confusion matrix cover the labels that are
    true or predicted, as scikit-learn's do: a class of the model with no document in the
    data and none predicted does not pull the macro average down.

    Examples
    --------
    >>> import numpy as np
    >>> report = evaluate(["a", "a", "b"], np.log([[0.9, 0.1], [0.4, 0.6], [0.2, 0.8]]), ["a", "b"])
    >>> report["accuracy"], report["confusion_matrix"]
    (0.6666666666666666, [[1, 1], [0, 1]])
    >>> import math
    >>> math.isclose(report["log_loss"], -(math.log(0.9) + math.log(0.4) + math.log(0.8)) / 3)
    True
    """
    if isinstance(y_true, str):
        raise TypeError("y_true must be a list of labels, not one string")
    classes = list(classes)
    y_true = _labels(y_true)
    n = len(y_true)
    log_proba = np.asarray(log_proba)
    if log_proba.shape != (n, len(classes)):
        raise ValueError(f"log_proba must have a row per label and a column per class, ({n}, {len(classes)}); "
                         f"it has shape {log_proba.shape}")
    predicted = [classes[i] for i in np.argmax(log_proba, axis=1)] if n else []
    labels = sorted(set(y_true) | set(predicted))  # as scikit-learn: no row for a class neither seen nor predicted
    index = {label: i for i, label in enumerate(labels)}
    confusion = np.zeros((len(labels), len(labels)), dtype=np.int64)
    np.add.at(confusion, ([index[t] for t in y_true], [index[p] for p in predicted]), 1)
    support = confusion.sum(axis=1)
    hits = np.diag(confusion)
    precision = _ratio(hits, confusion.sum(axis=0))
    recall = _ratio(hits, support)
    f1 = _ratio(2 * precision * recall, precision + recall)
    per_class = {
        label: {"precision": float(p), "recall": float(r), "f1": float(f), "support": int(s)}
        for label, p, r, f, s in zip(labels, precision, recall, f1, support)
    }
    class_index = {label: i for i, label in enumerate(classes)}
    known = [i for i, t in enumerate(y_true) if t in class_index]
    truth = np.array([class_index[y_true[i]] for i in known], dtype=np.int64)
    log_p = log_proba[known, truth] if known else np.zeros(0)
    log_loss = float(-np.clip(log_p, np.log(_EPS), np.log1p(-_EPS)).mean()) if known else float("nan")
    calibration = reliability(log_proba[known], truth)
    weights = support / support.sum() if n else np.zeros(len(labels))
    return {
        "n_documents": n,
        "accuracy": float(hits.sum() / n) if n else float("nan"),
        "macro_f1": _mean(f1),
        "weighted_f1": float(weights @ f1),
        "macro_avg": {"precision": _mean(precision), "recall": _mean(recall), "f1": _mean(f1)},
        "weighted_avg": {"precision": float(weights @ precision), "recall": float(weights @ recall), "f1": float(weights @ f1)},
        "log_loss": log_loss,
        "ece": calibration["ece"] if known else float("nan"),
        "reliability": calibration["bins"],
        "n_unknown_label": n - len(known),
        "unknown_labels": dict(sorted(Counter(t for t in y_true if t not in class_index).items())),
        "labels": labels,
        "per_class": per_class,
        "confusion_matrix": confusion.tolist(),
    }


def _labels(y_true: Sequence[str | None]) -> list[str]:
    """``y_true`` as a list, or a ValueError naming the first label that is None (an unlabelled
    document's), which cannot be scored."""
    labels = []
    for i, label in enumerate(y_true):
        if label is None:
            raise ValueError(f"y_true[{i}] is None: every document scored needs its true label")
        labels.append(label)
    return labels


def right_answers(y_true: Sequence[str], log_proba: np.ndarray, classes: Sequence[str]) -> np.ndarray:
    """Whether each document's most probable class is its label, as ``evaluate``'s accuracy counts.

    >>> right_answers(["a", "b", "c"], np.log([[0.9, 0.1], [0.7, 0.3], [0.5, 0.5]]), ["a", "b"]).tolist()
    [True, False, False]
    """
    return np.asarray(classes, dtype=object)[np.argmax(log_proba, axis=1)] == np.asarray(y_true, dtype=object)


def seen_and_unseen(right: np.ndarray, seen: np.ndarray) -> dict[str, Any]:
    """How many documents were ``seen`` in training (the same text), and the accuracy on the
    others, from each one's ``right`` answer: None where every one was seen."""
    return {"seen_in_training": int(seen.sum()), "unseen_accuracy": None if seen.all() else float(right[~seen].mean())}


def seen_by_text(y_true: Sequence[str], log_proba: np.ndarray, classes: Sequence[str], digests: np.ndarray,
                 trained: np.ndarray) -> dict[str, Any]:
    """``seen_and_unseen`` of documents whose text digests (``readers.report.text_digest``)
    are ``digests``, scored by a model trained on the texts whose digests are ``trained``."""
    return seen_and_unseen(right_answers(y_true, log_proba, classes), np.isin(digests, trained))


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """top / bottom, with 0 where bottom is 0 (scikit-learn's zero_division=0)."""
    top = np.asarray(top, dtype=np.float64)
    out = np.zeros_like(top)
    np.divide(top, bottom, out=out, where=np.asarray(bottom) > 0)
    return out


def _mean(values: np.ndarray) -> float:
    """The mean, nan for no values (no documents), without numpy's warning."""
    return float(values.mean()) if values.size else float("nan")


#: The cut-off of a multi-label evaluation where none is given: a text is given every label at
#: least this probable. Chosen by cross-validation on Reuters ModApte90's training documents
#: (docs: accuracy, several labels).
MULTI_LABEL_THRESHOLD = 0.05
#: The k of precision and recall at k in a multi-label evaluation.
AT_K = (1, 3)


def text_groups(digests: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For documents read as one copy a label (``digests`` of their texts, in order): the row of
    each distinct text's first copy, in order of first appearance, and each row's text number.

    >>> text_groups(np.array([7, 5, 7, 9], dtype=np.uint64))
    (array([0, 1, 3]), array([0, 1, 0, 2]))
    """
    _, first, inverse = np.unique(np.asarray(digests, dtype=np.uint64), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # texts numbered by first appearance
    number = np.empty_like(order)
    number[order] = np.arange(len(order))
    return first[order], number[inverse.ravel()]


def multi_label(y_true: Sequence[str], log_proba: np.ndarray, classes: Sequence[str], digests: np.ndarray, *,
                threshold: float = MULTI_LABEL_THRESHOLD, at_k: Sequence[int] = AT_K) -> dict[str, Any]:
    """Figures of labels given as sets: each distinct text (its copies, one a label, share a
    ``digests`` value and a row of ``log_proba``) is given every class of probability
    ``threshold`` or more, against the set of its copies' labels. Micro averages pool every
    (text, class) decision; macro averages are over the classes of the truth or the model, a
    class never given nor true counting 0, as scikit-learn's zero_division=0 does; precision
    and recall at k look at each text's k most probable classes.

    >>> p = np.log([[0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])
    >>> figures = multi_label(["a", "b", "c"], np.vstack([p[0], p[0], p[1]]), ["a", "b", "c"],
    ...                       np.array([1, 1, 2], dtype=np.uint64), threshold=0.25)
    >>> figures["texts"], figures["micro"]["f1"], figures["at_k"]["1"]["precision"]
    (2, 1.0, 1.0)
    """
    first, number = text_groups(digests)
    names = sorted(set(classes) | set(y_true))
    index = {label: i for i, label in enumerate(names)}
    truth = np.zeros((len(first), len(names)), dtype=bool)
    truth[number, [index[label] for label in y_true]] = True
    proba = np.exp(np.asarray(log_proba)[first])
    given = np.zeros_like(truth)
    given[:, [index[label] for label in classes]] = proba >= threshold
    tp, fp, fn = (given & truth).sum(axis=0), (given & ~truth).sum(axis=0), (~given & truth).sum(axis=0)
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    micro_p, micro_r = float(_ratio(tp.sum(), tp.sum() + fp.sum())), float(_ratio(tp.sum(), tp.sum() + fn.sum()))
    ranked = np.argsort(-proba, axis=1, kind="stable")
    true_in_model = truth[:, [index[label] for label in classes]]
    at: dict[str, dict[str, float]] = {}
    for k in at_k:
        hits = np.take_along_axis(true_in_model, ranked[:, :k], axis=1).sum(axis=1)
        at[str(k)] = {"precision": _mean(hits / min(k, len(classes))), "recall": _mean(_ratio(hits, truth.sum(axis=1)))}
    return {
        "texts": len(first), "several_labels": int((truth.sum(axis=1) > 1).sum()), "threshold": threshold,
        "micro": {"precision": micro_p, "recall": micro_r, "f1": float(_ratio(2 * micro_p * micro_r,
                                                                               micro_p + micro_r))},
        "macro": {"precision": _mean(precision), "recall": _mean(recall),
                  "f1": _mean(_ratio(2 * precision * recall, precision + recall))},
        "labels_per_text": {"true": float(truth.sum(axis=1).mean()), "given": float(given.sum(axis=1).mean())},
        "at_k": at,
    }

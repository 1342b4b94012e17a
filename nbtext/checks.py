"""What the parts of a model file must be, its arrays, settings and summary: each check raises a
ValueError in one line that names the part and says what it is not (``Model.load`` turns it
into "damaged nbtext model")."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .combining import COMBINING, NB
from .limits import MAX_ALPHA


def checked(holds: bool, name: str, expected: str) -> None:
    """A ValueError where ``holds`` is false: part ``name`` of a model file is not ``expected``."""
    if not holds:
        raise ValueError(f"{name} is not {expected}")


def array_of(value: Any, name: str, dtype: Any, length: int | None = None) -> np.ndarray:
    """``value``, where it is a one-dimensional array of ``dtype`` (or one of several) and, if
    given, ``length``; else a ValueError naming ``name``."""
    dtypes = dtype if isinstance(dtype, tuple) else (dtype,)
    kinds = " or ".join(np.dtype(d).name for d in dtypes)
    # in either byte order: a model written on a big-endian machine holds its arrays so
    checked(isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.newbyteorder("=") in dtypes, name,
            f"a one-dimensional array of {kinds}")
    if length is not None:
        checked(len(value) == length, name, f"of length {length} (it has {len(value)})")
    return value


def indices_within(indices: np.ndarray, size: int, name: str) -> None:
    """A ValueError where ``indices`` (named ``name``) are not all positions of ``size`` things."""
    if len(indices):
        checked(int(indices.min()) >= 0 and int(indices.max()) < size, name, f"indices from 0 to {size - 1}")


def counts_in(values: np.ndarray, name: str) -> None:
    """A ValueError where ``values`` (named ``name``) are not what sums of documents give:
    finite and not negative."""
    checked(bool(np.isfinite(values).all()) and (not len(values) or float(values.min()) >= 0), name,
            "finite sums, none negative")


def smoothing(alpha: Any) -> bool:
    """Whether ``alpha`` is a model's smoothing: a number (not a bool) above 0, at most MAX_ALPHA."""
    return (isinstance(alpha, (int, float, np.integer, np.floating)) and not isinstance(alpha, bool)
            and 0 < alpha <= MAX_ALPHA)


def check_settings(settings: Any, classes: Sequence[str], documents: float | None) -> None:
    """A ValueError where a model file's ``settings`` are not what nbtext writes, or prune away
    every term of the ``documents`` it kept terms of; the Model checks unknown keys and the variant."""
    checked(isinstance(settings, dict), "settings", "a dict")
    checked(smoothing(settings.get("alpha")), "settings.alpha", f"a smoothing above 0 and at most {MAX_ALPHA:g}")
    for name in ("fit_prior", "norm", "idf"):
        checked(type(settings.get(name, False)) is bool, f"settings.{name}", "true or false")
    for name in ("min_df", "max_df"):
        value = settings.get(name, 1)
        checked(type(value) in (int, float) and math.isfinite(value) and value >= 0, f"settings.{name}",
                "a count or a proportion")
    min_df = settings.get("min_df", 1)  # a count, or a proportion of the documents
    checked(documents is None or min_df * (documents if type(min_df) is float else 1) <= documents,
            "settings.min_df", "one that leaves the terms kept")
    max_features = settings.get("max_features")
    checked(max_features is None or (type(max_features) is int and max_features >= 1), "settings.max_features",
            "a count")
    spam = settings.get("spam")
    if spam is not None:
        checked(isinstance(spam, dict) and {"label", "spam_cutoff", "ham_cutoff", "slope", "intercept"} <= set(spam)
                <= {"label", "spam_cutoff", "ham_cutoff", "slope", "intercept", "measured", "combining"}
                and spam.get("combining", NB) in COMBINING, "settings.spam",
                "a filter's label, cut-offs and calibration")
        checked(spam["label"] in classes, "settings.spam.label", "one of the classes")
        checked(all(type(spam[key]) is float and 0 <= spam[key] <= 1 for key in ("spam_cutoff", "ham_cutoff"))
                and spam["ham_cutoff"] <= spam["spam_cutoff"], "settings.spam's cut-offs", "scores, ham below spam")
        checked(all(type(spam[key]) is float and math.isfinite(spam[key]) for key in ("slope", "intercept")),
                "settings.spam's calibration", "finite numbers")
        checked(spam.get("measured") is None or isinstance(spam["measured"], dict), "settings.spam.measured",
                "a dict")
    calibration = settings.get("calibration")
    if calibration is not None:
        temperature = calibration.get("temperature") if isinstance(calibration, dict) else None
        checked(type(temperature) is float and math.isfinite(temperature) and temperature > 0,
                "settings.calibration.temperature", "a positive number")


#: The summary's parts that nbtext reads back, and what each must be.
SUMMARY_TYPES: dict[str, tuple[type, ...]] = {
    "documents": (int,), "vocabulary_size": (int,), "terms_seen": (int,), "documents_per_class": (dict,),
    "inputs": (list,), "input_format": (str, type(None)), "columns": (dict, type(None)), "held_out": (dict,),
    "tuned": (dict,), "learned": (dict,), "several_labels": (int,),
}


def check_summary(summary: Any) -> None:
    """A ValueError where a model file's ``summary`` lacks what every model has, or holds a part
    nbtext reads back in another type."""
    checked(isinstance(summary, dict) and {"documents", "documents_per_class", "vocabulary_size", "terms_seen"}
            <= set(summary), "summary", "what training writes (documents, documents_per_class, vocabulary_size, "
                                        "terms_seen)")
    for key, types in SUMMARY_TYPES.items():
        if key in summary:
            checked(type(summary[key]) in types, f"summary.{key}", " or ".join(t.__name__ for t in types))
    checked(all(type(label) is str and type(n) is int for label, n in summary["documents_per_class"].items()),
            "summary.documents_per_class", "a count for each class")
    checked(all(type(path) is str for path in summary.get("inputs", [])), "summary.inputs", "a list of paths")

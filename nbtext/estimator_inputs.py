"""What an estimator's ``fit`` and ``predict`` take, as scikit-learn's estimators take it,
without importing scikit-learn: labels that are classes, and the feature names of a table.

scikit-learn's own checks (``check_estimator``) hold nbtext's estimators to this, matching the
words of its messages where a check looks for them; the rest of each message says what to do.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np


def checked_labels(y: Any, n_rows: int, estimator: str) -> np.ndarray:
    """``y`` as a 1-D array of class labels, one for each of ``n_rows`` documents.

    A column vector is taken as one label per row, with scikit-learn's warning; numbers with a
    fraction are refused as scikit-learn refuses a continuous target.

    >>> checked_labels([1.0, 2.0, 1.0], 3, "MultinomialNB").tolist()
    [1.0, 2.0, 1.0]
    >>> checked_labels([0.5, 2.0], 2, "MultinomialNB")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: Unknown label type: continuous. MultinomialNB learns classes, and 0.5 is not a class label: ...
    """
    if y is None:
        raise ValueError(f"{estimator} requires y to be passed, but the target y is None: give one label per row of X")
    if isinstance(y, str):
        raise TypeError("y must be a sequence of labels, not one string")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        from .sklearn_types import DataConversionWarning  # only on this path: it imports scikit-learn

        warnings.warn(f"A column-vector y was passed when a 1d array was expected; {estimator} took it as one "
                      "label per row (give y.ravel() to say so)", DataConversionWarning, stacklevel=3)
        y = y.ravel()
    if y.ndim != 1 or len(y) != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has shape {y.shape}: give one label per row of X")
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported: y must be class labels")
    if y.dtype.kind == "f":
        if not np.isfinite(y).all():
            raise ValueError(f"y holds NaN or infinity; {estimator} needs a class label for every row")
        fractional = y != np.floor(y)
        if fractional.any():
            raise ValueError(f"Unknown label type: continuous. {estimator} learns classes, and {y[fractional][0]:g} "
                             "is not a class label: bin numbers into classes first")
    return y


def feature_names(X: Any) -> np.ndarray | None:
    """The column names of a table (a pandas DataFrame, or anything with string ``columns``),
    as scikit-learn keeps them in ``feature_names_in_``; None for an array or a sparse matrix,
    or where the names are not all strings."""
    columns = getattr(X, "columns", None)
    if columns is None or hasattr(X, "tocsr"):
        return None
    names = np.asarray(list(columns), dtype=object)
    if not len(names) or not all(isinstance(name, str) for name in names):
        return None
    return names


def check_feature_names(fitted: np.ndarray | None, X: Any, estimator: str) -> None:
    """Refuse a table whose columns are not the ones ``fit`` saw, in their order (its numbers
    would be read as other features); warn where names were fitted and ``X`` has none.

    >>> fit = np.array(["a", "b"], dtype=object)
    >>> class Table:
    ...     columns = ["b", "c"]
    >>> check_feature_names(fit, Table(), "MultinomialNB")
    Traceback (most recent call last):
    ValueError: The feature names should match those that were passed during fit.
    Feature names unseen at fit time:
    - c
    Feature names seen at fit time, yet now missing:
    - a
    <BLANKLINE>
    """
    names = feature_names(X)
    if fitted is None or names is None:
        if fitted is not None:
            warnings.warn(f"X does not have valid feature names, but {estimator} was fitted with feature names",
                          UserWarning, stacklevel=3)
        elif names is not None:
            warnings.warn(f"X has feature names, but {estimator} was fitted without feature names",
                          UserWarning, stacklevel=3)
        return
    if len(names) == len(fitted) and (names == fitted).all():
        return
    message = ["The feature names should match those that were passed during fit."]
    unseen = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))
    if unseen:
        message += ["Feature names unseen at fit time:", *_listed(unseen)]
    if missing:
        message += ["Feature names seen at fit time, yet now missing:", *_listed(missing)]
    if not unseen and not missing:
        message.append("Feature names must be in the same order as they were in fit.")
    raise ValueError("\n".join(message) + "\n")


def _listed(names: list[str], most: int = 5) -> list[str]:
    return [f"- {name}" for name in names[:most]] + (["- ..."] if len(names) > most else [])

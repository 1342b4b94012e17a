r"""Numbers and categories beside the text: what a model learns of a table's other columns.

A numeric column is Gaussian Naive Bayes's feature, a categorical column Categorical Naive
Bayes's (``column_nb``). Naive Bayes takes the features as independent given the class, so a
document's joint log-likelihood is one class prior plus each group's log-likelihood:

.. math::  \log P(c, x) = \log P(c) + s_c(\text{words}) + \sum_{f \in \text{numeric}} \log N(x_f; \mu_{cf},
           \sigma^2_{cf}) + \sum_{f \in \text{categorical}} \log P(x_f \mid c)

where :math:`s_c` is the text core's score without its prior. A cell left empty leaves its
feature out of that document, in training and in scoring: summed out, as Naive Bayes allows.

``ColumnSums`` keeps only sums that add up exactly (per class: documents with a value, their
mean and sum of squared deviations, merged by the parallel-variance formula; category counts),
so that ``merge``, ``train --update`` and batches give one run's model to rounding.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .checks import array_of, checked
from .column_nb import CategoricalNB, GaussianNB, merged_moments, moments
from .errors import DataError
from .readers.tables import check_names

#: A document's values: column name -> a number (numeric columns; NaN where the cell was empty)
#: or a string (categorical columns; None where it was empty).
Values = Mapping[str, Any]

#: scikit-learn's defaults: the largest variance's share added to every variance, and Laplace's rule.
VAR_SMOOTHING = 1e-9
CATEGORY_ALPHA = 1.0


@dataclass(frozen=True, eq=False)
class ColumnSums:
    """Per-class sums over a table's numeric and categorical columns.

    ``weight``, ``mean``, ``m2`` are classes x numeric columns: how many of the class's
    documents have a value, their mean, and their sum of squared deviations; ``all_*`` the same
    over all documents (for the variance floor, ``var_smoothing`` times the largest variance).
    ``categories`` are each categorical column's values seen, sorted, and ``category_counts``
    their counts, classes x categories. ``missing`` counts the empty cells of each column
    (numeric, then categorical) read in training.

    Examples
    --------
    >>> sums = ColumnSums.of(["a", "a", "b"], [{"size": 1.0, "tier": "gold"}, {"size": 3.0, "tier": None},
    ...                                         {"size": float("nan"), "tier": "free"}], ["size"], ["tier"])
    >>> sums.mean.tolist(), sums.m2.tolist(), sums.categories, sums.category_counts[0].tolist(), sums.missing.tolist()
    ([[2.0], [0.0]], [[2.0], [0.0]], (('free', 'gold'),), [[0.0, 1.0], [1.0, 0.0]], [1, 1])
    """

    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    classes: tuple[str, ...]
    weight: np.ndarray
    mean: np.ndarray
    m2: np.ndarray
    all_count: np.ndarray
    all_mean: np.ndarray
    all_m2: np.ndarray
    categories: tuple[tuple[str, ...], ...]
    category_counts: tuple[np.ndarray, ...]
    missing: np.ndarray
    var_smoothing: float = VAR_SMOOTHING
    alpha: float = CATEGORY_ALPHA

    @classmethod
    def of(cls, labels: Sequence[str], rows: Sequence[Values | None], numeric: Sequence[str],
           categorical: Sequence[str], *, var_smoothing: float = VAR_SMOOTHING,
           alpha: float = CATEGORY_ALPHA) -> ColumnSums:
        """The sums of documents of ``labels`` whose values are ``rows`` (a missing row or key: an empty cell)."""
        check_names(numeric, categorical)
        classes = tuple(sorted(set(labels)))
        index = np.searchsorted(np.array(classes, dtype=object), np.array(labels, dtype=object)) if labels else \
            np.zeros(0, dtype=np.int64)
        X = numbers(rows, numeric)
        (weight, mean, m2), (all_count, all_mean, all_m2) = moments(X, index, len(classes), np.ones(len(rows)))
        categories, counts = [], []
        missing = list(np.isnan(X).sum(axis=0))
        for name in categorical:
            cells = [None if row is None else category(row.get(name)) for row in rows]
            seen = sorted({cell for cell in cells if cell is not None})
            code = {value: i for i, value in enumerate(seen)}
            table = np.zeros((len(classes), len(seen)))
            kept = [i for i, cell in enumerate(cells) if cell is not None]
            np.add.at(table, (index[kept], [code[cell] for cell in cells if cell is not None]), 1.0)
            categories.append(tuple(seen))
            counts.append(table)
            missing.append(len(cells) - len(kept))
        return cls(tuple(numeric), tuple(categorical), classes, weight, mean, m2, all_count, all_mean, all_m2,
                   tuple(categories), tuple(counts), np.array(missing, dtype=np.int64), float(var_smoothing),
                   float(alpha))

    def same_columns(self, other: ColumnSums) -> bool:
        return (self.numeric, self.categorical) == (other.numeric, other.categorical)

    def merge(self, other: ColumnSums) -> ColumnSums:
        """The sums of both parts' documents; the smoothing is this one's."""
        return self._combined(other, subtract=False)

    def subtract(self, other: ColumnSums) -> ColumnSums:
        """These sums without a part ``other`` added before (``merge``'s inverse, to rounding)."""
        return self._combined(other, subtract=True)

    def _combined(self, other: ColumnSums, *, subtract: bool) -> ColumnSums:
        if not self.same_columns(other):
            raise DataError(f"the columns differ: {describe(self)} against {describe(other)}")
        classes = tuple(sorted(set(self.classes) | set(other.classes)))
        ours, theirs = self.aligned(classes), other.aligned(classes)
        moments = _unmerged_moments if subtract else merged_moments
        weight, mean, m2 = moments(ours.weight, ours.mean, ours.m2, theirs.weight, theirs.mean, theirs.m2)
        all_count, all_mean, all_m2 = moments(ours.all_count, ours.all_mean, ours.all_m2, theirs.all_count,
                                              theirs.all_mean, theirs.all_m2)
        categories, counts = [], []
        sign = -1.0 if subtract else 1.0
        for f in range(len(self.categorical)):
            union = tuple(sorted(set(ours.categories[f]) | set(theirs.categories[f])))
            table = _widened(ours, f, union) + sign * _widened(theirs, f, union)
            if subtract:  # categories whose every document was taken out go with them
                keep = table.sum(axis=0) > 0
                union, table = tuple(value for value, kept in zip(union, keep) if kept), table[:, keep]
            categories.append(union)
            counts.append(table)
        missing = ours.missing - theirs.missing if subtract else ours.missing + theirs.missing
        return ColumnSums(self.numeric, self.categorical, classes, weight, mean, m2, all_count, all_mean, all_m2,
                          tuple(categories), tuple(counts), missing, self.var_smoothing, self.alpha)

    def aligned(self, classes: Sequence[str]) -> ColumnSums:
        """These sums over ``classes`` (which hold every one of ours), a class without documents here all zeros."""
        classes = tuple(classes)
        if classes == self.classes:
            return self
        rows = np.searchsorted(np.array(classes, dtype=object), np.array(self.classes, dtype=object))

        def spread(table: np.ndarray) -> np.ndarray:
            out = np.zeros((len(classes), table.shape[1]))
            out[rows] = table
            return out

        return ColumnSums(self.numeric, self.categorical, classes, spread(self.weight), spread(self.mean),
                          spread(self.m2), self.all_count, self.all_mean, self.all_m2, self.categories,
                          tuple(map(spread, self.category_counts)), self.missing, self.var_smoothing, self.alpha)

    def to_dict(self) -> dict[str, Any]:
        return {"numeric": list(self.numeric), "categorical": list(self.categorical), "classes": list(self.classes),
                "weight": self.weight, "mean": self.mean, "m2": self.m2, "all_count": self.all_count,
                "all_mean": self.all_mean, "all_m2": self.all_m2,
                "categories": [list(values) for values in self.categories],
                "category_counts": list(self.category_counts), "missing": self.missing,
                "var_smoothing": self.var_smoothing, "alpha": self.alpha}

    @classmethod
    def from_dict(cls, data: Any) -> ColumnSums:
        """The sums a model file holds; a ValueError where they are not what nbtext writes."""
        checked(isinstance(data, dict) and set(data) == set(_KEYS), "columns", f"the parts {sorted(_KEYS)}")
        names = {}
        for key in ("numeric", "categorical", "classes"):
            checked(isinstance(data[key], list) and all(type(name) is str for name in data[key]), f"columns.{key}",
                    "a list of names")
            names[key] = tuple(data[key])
        n_classes, n_numeric = len(names["classes"]), len(names["numeric"])
        checked(list(names["classes"]) == sorted(set(names["classes"])), "columns.classes", "sorted and distinct")
        tables = {}
        for key in ("weight", "mean", "m2"):
            value = data[key]
            checked(isinstance(value, np.ndarray) and value.dtype == np.float64
                    and value.shape == (n_classes, n_numeric) and bool(np.isfinite(value).all()), f"columns.{key}",
                    f"a finite {n_classes} x {n_numeric} table")
            tables[key] = value
        for key in ("all_count", "all_mean", "all_m2"):
            tables[key] = array_of(data[key], f"columns.{key}", np.float64, n_numeric)
        checked(bool((tables["weight"] >= 0).all() and (tables["m2"] >= 0).all() and (tables["all_count"] >= 0).all()),
                "columns' counts", "not below 0")
        categories, counts = data["categories"], data["category_counts"]
        n_categorical = len(names["categorical"])
        checked(isinstance(categories, list) and len(categories) == n_categorical
                and all(isinstance(values, list) and all(type(v) is str for v in values)
                        and values == sorted(set(values)) for values in categories),
                "columns.categories", "each column's values, sorted")
        checked(isinstance(counts, list) and len(counts) == n_categorical
                and all(isinstance(table, np.ndarray) and table.dtype == np.float64
                        and table.shape == (n_classes, len(values)) and bool((table >= 0).all())
                        for table, values in zip(counts, categories)), "columns.category_counts",
                "a count for each class and value")
        missing = array_of(data["missing"], "columns.missing", np.int64, n_numeric + n_categorical)
        for key in ("var_smoothing", "alpha"):
            checked(type(data[key]) is float and math.isfinite(data[key]) and data[key] >= 0, f"columns.{key}",
                    "a number not below 0")
        check_names(names["numeric"], names["categorical"])
        return cls(names["numeric"], names["categorical"], names["classes"], tables["weight"], tables["mean"],
                   tables["m2"], tables["all_count"], tables["all_mean"], tables["all_m2"],
                   tuple(tuple(values) for values in categories), tuple(counts), missing, data["var_smoothing"],
                   data["alpha"])

    @property
    def names(self) -> tuple[str, ...]:
        return self.numeric + self.categorical


_KEYS = ("numeric", "categorical", "classes", "weight", "mean", "m2", "all_count", "all_mean", "all_m2",
         "categories", "category_counts", "missing", "var_smoothing", "alpha")


def describe(sums: ColumnSums | None) -> str:
    """The columns in a few words, for messages and ``info``."""
    if sums is None:
        return "no numeric or categorical columns"
    parts = []
    if sums.numeric:
        parts.append(f"numeric {', '.join(sums.numeric)}")
    if sums.categorical:
        parts.append(f"categorical {', '.join(sums.categorical)}")
    return "; ".join(parts)


def category(value: Any) -> str | None:
    """A categorical cell as the model keeps it: a string, None where empty (None, NaN, "")."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    value = value if isinstance(value, str) else str(value)
    return value or None


def numbers(rows: Sequence[Values | None], names: Sequence[str]) -> np.ndarray:
    """Documents x ``names`` numbers, NaN where a row has none."""
    X = np.full((len(rows), len(names)), np.nan)
    for d, row in enumerate(rows):
        if row:
            for f, name in enumerate(names):
                value = row.get(name)
                if value is not None:
                    X[d, f] = value
    return X


class ColumnScorer:
    """What a model's columns add to each class's joint log-likelihood, made from its sums by the
    library's Gaussian and Categorical cores (the formulas scikit-learn's are checked against)."""

    def __init__(self, sums: ColumnSums) -> None:
        self.sums = sums
        classes = np.array(sums.classes, dtype=object)
        self.gaussian = None if not sums.numeric else GaussianNB.from_moments(
            classes, sums.weight, sums.mean, sums.m2, (sums.all_count, sums.all_mean, sums.all_m2),
            var_smoothing=sums.var_smoothing)
        self.categorical = None if not sums.categorical else CategoricalNB.from_counts(
            classes, list(sums.category_counts), alpha=sums.alpha)
        self.codes = [{value: i for i, value in enumerate(values)} for values in sums.categories]

    def encoded(self, rows: Sequence[Values | None]) -> tuple[np.ndarray, np.ndarray]:
        """The numeric columns as numbers, and the categorical ones as codes (an unseen value: a
        code past the seen ones, which the core scores as the smoothing implies), NaN where empty."""
        X = numbers(rows, self.sums.numeric)
        C = np.full((len(rows), len(self.sums.categorical)), np.nan)
        for f, (name, code) in enumerate(zip(self.sums.categorical, self.codes)):
            for d, row in enumerate(rows):
                value = None if row is None else category(row.get(name))
                if value is not None:
                    C[d, f] = code.get(value, len(code))
        return X, C

    def joint(self, rows: Sequence[Values | None] | None, n: int) -> np.ndarray:
        """Documents x classes: the columns' log-likelihood of each class (no prior); 0 for none given."""
        jll = np.zeros((n, len(self.sums.classes)))
        if rows is None:
            return jll
        X, C = self.encoded(rows)
        if self.gaussian is not None:
            jll += self.gaussian.predict_joint_log_proba(X) - np.log(self.gaussian.class_prior_)
        if self.categorical is not None:
            jll += self.categorical.predict_joint_log_proba(C) - self.categorical.class_log_prior_
        return jll

    def per_column(self, row: Values | None) -> list[tuple[str, np.ndarray]]:
        """Each column a document has a value in, as ``name=value``, with its log-likelihood under each class."""
        if not row:
            return []
        X, C = self.encoded([row])
        out = []
        for f, name in enumerate(self.sums.numeric):
            if not np.isnan(X[0, f]) and self.gaussian is not None:
                out.append((f"{name}={X[0, f]:g}", self.gaussian.feature_log_likelihood(f, X[0, f])))
        for f, name in enumerate(self.sums.categorical):
            if not np.isnan(C[0, f]) and self.categorical is not None:
                scores = self.categorical.feature_log_likelihood(f, int(C[0, f]))
                out.append((f"{name}={category(row.get(name))}", scores))
        return out

    def linear_parts(self) -> dict[str, Any]:
        """What scoring the columns takes, as plain arrays (``Model.linear_form``): per numeric
        column, each class's mean and variance (a column's log-likelihood is
        -(log(2 pi var) + (x - mean)^2 / var) / 2; a column no training document had adds 0:
        ``informative``); per categorical column, its values and each class's log-probability of
        each, and of a value not among them (``unseen``). An empty cell adds 0."""
        parts: dict[str, Any] = {"numeric": [], "categorical": []}
        if self.gaussian is not None:
            for f, name in enumerate(self.sums.numeric):
                informative = bool(self.gaussian.all_count_[f] > 0)
                parts["numeric"].append({
                    "name": name, "informative": informative,
                    "mean": self.gaussian.feature_mean(f), "var": np.array(self.gaussian.var_[:, f])})
        if self.categorical is not None:
            for f, name in enumerate(self.sums.categorical):
                parts["categorical"].append({
                    "name": name, "values": list(self.sums.categories[f]),
                    "log_prob": np.array(self.categorical.feature_log_prob_[f]),
                    "unseen": self.categorical.feature_log_likelihood(f, len(self.sums.categories[f]))})
        return parts

    def unseen(self, rows: Sequence[Values | None]) -> Counter[str]:
        """How many of the documents' categorical values each column never had in training."""
        found: Counter[str] = Counter()
        for name, code in zip(self.sums.categorical, self.codes):
            values = (category(row.get(name)) for row in rows if row)
            found[name] += sum(1 for value in values if value is not None and value not in code)
        return +found

    def profile(self, k: int) -> dict[str, dict[str, Any]]:
        """For each class: each numeric column's mean and standard deviation, and for each
        categorical column the ``k`` values that tell the class most from the others (by how
        much more likely they are under it than under the others on average, in nats)."""
        sums, out = self.sums, {}
        for c, label in enumerate(sums.classes):
            numeric = {}
            if self.gaussian is not None:
                numeric = {name: (float(sums.mean[c, f]) if sums.weight[c, f] else math.nan,
                                  float(np.sqrt(self.gaussian.var_[c, f])) if sums.weight[c, f] else math.nan)
                           for f, name in enumerate(sums.numeric)}
            telling = {}
            if self.categorical is not None:
                for f, name in enumerate(sums.categorical):
                    log_prob = self.categorical.feature_log_prob_[f]
                    others = (log_prob.sum(axis=0) - log_prob[c]) / max(len(sums.classes) - 1, 1)
                    lift = log_prob[c] - others
                    best = np.argsort(-lift, kind="stable")[:k]
                    telling[name] = [(sums.categories[f][i], float(lift[i])) for i in best]
            out[label] = {"numeric": numeric, "categorical": telling}
        return out


def _widened(sums: ColumnSums, f: int, union: tuple[str, ...]) -> np.ndarray:
    """Column ``f``'s counts over the categories ``union`` (which holds every one of ``sums``')."""
    table = np.zeros((len(sums.classes), len(union)))
    table[:, np.searchsorted(np.array(union, dtype=object), np.array(sums.categories[f], dtype=object))] = \
        sums.category_counts[f]
    return table


def _unmerged_moments(n: np.ndarray, mean: np.ndarray, m2: np.ndarray, n_b: np.ndarray, mean_b: np.ndarray,
                      m2_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weights, means and sums of squared deviations of a whole without its part b: the parallel
    variance formula solved for part a.

    >>> whole = merged_moments(np.array([2.0]), np.array([2.0]), np.array([2.0]), np.array([1.0]),
    ...                         np.array([5.0]), np.array([0.0]))
    >>> [part.tolist() for part in _unmerged_moments(*whole, np.array([1.0]), np.array([5.0]), np.array([0.0]))]
    [[2.0], [2.0], [2.0]]
    """
    n_a = n - n_b
    left = n_a > 0
    mean_a = np.divide(n * mean - n_b * mean_b, n_a, out=np.zeros_like(mean), where=left)
    delta = mean_b - mean_a
    share = np.divide(n_b, n, out=np.zeros_like(n), where=n > 0)
    m2_a = np.where(left, np.maximum(m2 - m2_b - delta ** 2 * n_a * share, 0.0), 0.0)
    return np.where(left, n_a, 0.0), mean_a, m2_a

"""Naive Bayes over columns of numbers and of categories: ``GaussianNB`` and ``CategoricalNB``.

Both learn sums that merge exactly, so that ``partial_fit`` over batches, and ``merge`` of parts
trained apart, give the model ``fit`` gives on the whole, to rounding. A value that is missing
(NaN) leaves its feature out of that document, in training and in scoring: Naive Bayes takes
each feature's likelihood on its own, so leaving one out is summing it out.
"""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

import numpy as np

from .classifier import Classifier, class_log_prior
from .estimator_inputs import check_feature_names, checked_labels


#: A column model's own class: merge returns one of the same class.
Column = TypeVar("Column", bound="ColumnNB")


class ColumnNB(Classifier):
    """What the column models share: dense tables with NaN for a missing value, and ``merge``,
    for which a model adds another's sums in ``_merge``."""

    def merge(self: Column, other: Column) -> Column:
        """A new model of this one's documents and ``other``'s, as ``fit`` on both would make
        it (to rounding): the two must have the same classes and columns."""
        self._check_fitted()
        other._check_fitted()
        if type(other) is not type(self) or not np.array_equal(other.classes_, self.classes_) \
                or other.n_features_in_ != self.n_features_in_:
            raise ValueError(f"only a {type(self).__name__} of the same classes and number of features merges with "
                             f"this one ({self.classes_.tolist()}, {self.n_features_in_} features)")
        merged = type(self)(**self.get_params())
        merged.__dict__.update({name: value.copy() if isinstance(value, np.ndarray) else value
                                for name, value in self.__dict__.items() if name.endswith("_")})
        merged._merge(other)
        merged._update()
        return merged

    def _checked_X_y(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        X = self._checked_X(X)
        return X, checked_labels(y, X.shape[0], type(self).__name__)

    def _checked_X(self, X: Any) -> np.ndarray:
        """``X`` as a 2-D float array, NaN where a value is missing."""
        name = type(self).__name__
        if hasattr(X, "tocsr"):
            raise TypeError(f"Sparse data was passed to {name}, but dense data is required: each column is a "
                            "number or a category, missing ones NaN (use X.toarray())")
        if isinstance(X, str):
            raise TypeError("expected a table of values, got a string")
        array = np.asarray(X)
        if array.dtype.kind == "c":
            raise ValueError("Complex data not supported: columns are real numbers or categories")
        if array.ndim != 2:
            raise ValueError(f"expected a 2-D table, got {array.ndim} dimension(s). Reshape your data: "
                             "X.reshape(1, -1) for one document, X.reshape(-1, 1) for one feature")
        if not array.shape[1] or not (array.shape[0] or self.__sklearn_is_fitted__()):  # a later batch may be empty
            raise ValueError(f"Found array with {array.shape[0]} sample(s) and {array.shape[1]} feature(s) "
                             f"(shape={array.shape}) while a minimum of 1 is required by {name}")
        array = array.astype(np.float64)
        if np.isinf(array).any():
            raise ValueError(f"Input X contains infinity; {name} takes finite values, NaN where one is missing")
        return array

    def _checked_for_scoring(self, X: Any) -> np.ndarray:
        self._check_fitted()
        check_feature_names(getattr(self, "feature_names_in_", None), X, type(self).__name__)
        X = self._checked_X(X)
        self._check_n_features(X)
        return X

    def _input_tags(self) -> dict[str, bool]:
        return {**super()._input_tags(), "allow_nan": True}

    def _merge(self, other: Any) -> None:
        raise NotImplementedError


class GaussianNB(ColumnNB):
    r"""Gaussian Naive Bayes: each class draws each number from a normal distribution.

    Per class c and feature f, the mean and variance by maximum likelihood over the documents
    that have the feature, weighted:
    :math:`\mu_{cf} = \sum w x / \sum w` and :math:`\sigma^2_{cf} = \sum w (x - \mu_{cf})^2 / \sum w`,
    plus :math:`\epsilon` = ``var_smoothing`` times the largest variance of any feature over all
    documents (as scikit-learn defines it), so that no variance is 0. A document scores
    :math:`\log P(c) - \frac12 \sum_f [\log(2\pi\sigma^2_{cf}) + (x_f - \mu_{cf})^2 / \sigma^2_{cf}]`
    over the features it has.

    Each class keeps its weights, means and sums of squared deviations, which merge exactly
    (Chan, Golub and LeVeque's parallel variance): :math:`\delta = \mu_b - \mu_a`,
    :math:`\mu = \mu_a + \delta\, n_b / n`, :math:`M_2 = M_{2a} + M_{2b} + \delta^2 n_a n_b / n`.
    So ``partial_fit`` over batches gives ``fit``'s model, epsilon included (scikit-learn's
    ``partial_fit`` takes epsilon from each batch alone).

    Examples
    --------
    Class a has 1 and 3: mean 2, variance ((1 - 2)^2 + (3 - 2)^2) / 2 = 1; class b has 10 alone.

    >>> nb = GaussianNB(var_smoothing=0.0).fit([[1.0], [3.0], [10.0], [10.0]], ["a", "a", "b", "b"])
    >>> nb.theta_.tolist(), nb.var_.tolist()
    ([[2.0], [10.0]], [[1.0], [0.0]])
    >>> parts = GaussianNB().fit([[1.0], [10.0]], ["a", "b"]).merge(GaussianNB().fit([[3.0], [10.0]], ["a", "b"]))
    >>> parts.theta_.tolist(), round(float(parts.var_[0, 0]), 6)
    ([[2.0], [10.0]], 1.0)
    """

    def __init__(self, *, priors: Any = None, var_smoothing: float = 1e-9) -> None:
        self.priors = priors
        self.var_smoothing = var_smoothing

    def _start(self, classes: np.ndarray, n_features: int) -> None:
        self.classes_ = classes
        self.n_features_in_ = n_features
        shape = (len(classes), n_features)
        self.class_count_ = np.zeros(len(classes))
        #: The weight of each class's documents that have each feature (classes x features).
        self.feature_weight_ = np.zeros(shape)
        self.theta_ = np.zeros(shape)
        #: Each class's sum of weighted squared deviations from its mean, per feature.
        self.m2_ = np.zeros(shape)
        #: Over all documents, unweighted, per feature: how many have it, their mean and sum
        #: of squared deviations, for epsilon.
        self.all_count_ = np.zeros(n_features)
        self.all_mean_ = np.zeros(n_features)
        self.all_m2_ = np.zeros(n_features)

    def _add(self, X: np.ndarray, index: np.ndarray, weights: np.ndarray) -> None:
        (total, mean, m2), every = moments(X, index, len(self.classes_), weights)
        for c in np.unique(index):
            self.class_count_[c] += weights[index == c].sum()
            self.feature_weight_[c], self.theta_[c], self.m2_[c] = merged_moments(
                self.feature_weight_[c], self.theta_[c], self.m2_[c], total[c], mean[c], m2[c])
        self.all_count_, self.all_mean_, self.all_m2_ = merged_moments(
            self.all_count_, self.all_mean_, self.all_m2_, *every)

    def _merge(self, other: GaussianNB) -> None:
        self.class_count_ = self.class_count_ + other.class_count_
        self.feature_weight_, self.theta_, self.m2_ = merged_moments(
            self.feature_weight_, self.theta_, self.m2_, other.feature_weight_, other.theta_, other.m2_)
        self.all_count_, self.all_mean_, self.all_m2_ = merged_moments(
            self.all_count_, self.all_mean_, self.all_m2_, other.all_count_, other.all_mean_, other.all_m2_)

    @classmethod
    def from_moments(cls, classes: np.ndarray, weight: np.ndarray, mean: np.ndarray, m2: np.ndarray,
                     all_moments: tuple[np.ndarray, np.ndarray, np.ndarray], *, var_smoothing: float = 1e-9
                     ) -> GaussianNB:
        """A model fitted on sums kept elsewhere (``tabular.ColumnSums``): per class and feature,
        the documents' weight, mean and sum of squared deviations, and ``all_moments`` the
        same over all documents. Its priors are even: the sums' owner adds its own."""
        model = cls(var_smoothing=var_smoothing)
        model._start(classes, weight.shape[1])
        model.feature_weight_, model.theta_, model.m2_ = weight, mean, m2
        model.all_count_, model.all_mean_, model.all_m2_ = all_moments
        model.class_count_ = np.ones(len(classes))
        model._update()
        return model

    def feature_mean(self, feature: int) -> np.ndarray:
        """Each class's mean of ``feature`` as scoring takes it: its own, or where a class never
        had the feature, that of all documents."""
        self._check_fitted()
        return np.array(self._mean[:, feature])

    def feature_log_likelihood(self, feature: int, value: float) -> np.ndarray:
        """log N(value; mean, variance) of ``feature`` under each class; 0s for a feature no
        training document had, which tells no class from another."""
        self._check_fitted()
        if not self._informative[feature]:
            return np.zeros(len(self.classes_))
        var, mean = self.var_[:, feature], self._mean[:, feature]
        return -0.5 * (np.log(2.0 * np.pi * var) + (value - mean) ** 2 / var)

    def _update(self) -> None:
        smoothing = np.asarray(self.var_smoothing)
        if smoothing.ndim or smoothing.dtype.kind not in "iuf" or not (np.isfinite(smoothing) and smoothing >= 0):
            raise ValueError(f"var_smoothing must be a number not below 0, got {self.var_smoothing!r}")
        spread = np.divide(self.all_m2_, self.all_count_, out=np.zeros_like(self.all_m2_), where=self.all_count_ > 0)
        self.epsilon_ = self.var_smoothing * (spread.max() if spread.size else 0.0)
        seen = self.feature_weight_ > 0
        # A class that never had a feature knows nothing of it: it takes the mean and variance
        # of all documents that had it, so the feature neither favours nor disfavours it.
        pooled_var = spread
        self.var_ = np.where(seen, np.divide(self.m2_, self.feature_weight_, out=np.zeros_like(self.m2_),
                                             where=seen), pooled_var) + self.epsilon_
        self._mean = np.where(seen, self.theta_, self.all_mean_)
        # a feature no training document had tells no class from another: it is left out
        self._informative = self.all_count_ > 0
        if self.priors is not None:
            priors = np.asarray(self.priors, dtype=np.float64)
            if priors.shape != (len(self.classes_),):
                raise ValueError(f"priors has {priors.size} values for {len(self.classes_)} classes")
            if (priors < 0).any() or not np.isclose(priors.sum(), 1.0):
                raise ValueError(f"priors must not be negative and must sum to 1, got {priors.tolist()}")
            self.class_prior_ = priors
        else:
            self.class_prior_ = self.class_count_ / self.class_count_.sum()

    def _jll(self, X: Any) -> np.ndarray:
        X = self._checked_for_scoring(X)
        present = ~np.isnan(X) & self._informative
        values = np.where(present, X, 0.0)
        # a variance of 0 (var_smoothing 0, one value in a class) makes terms of values not
        # given infinite or NaN: they are dropped by the mask, and given ones stand as computed
        with np.errstate(divide="ignore", invalid="ignore"):
            jll = np.tile(np.log(self.class_prior_), (X.shape[0], 1))
            for c in range(len(self.classes_)):
                log_norm = np.log(2.0 * np.pi * self.var_[c])
                terms = log_norm + (values - self._mean[c]) ** 2 / self.var_[c]
                jll[:, c] -= 0.5 * np.where(present, terms, 0.0).sum(axis=1)
        return jll


class CategoricalNB(ColumnNB):
    r"""Categorical Naive Bayes: each class draws each feature's category from its own
    distribution over the feature's categories.

    Categories are codes 0, 1, 2, ... (an ordinal encoding of the values); NaN is a missing
    value. With :math:`N_{cft}` the weight of class c's documents with category t of feature f,
    :math:`N_{cf}` that of those with feature f at all, and :math:`T_f` the feature's number of
    categories, :math:`P(t \mid c, f) = (N_{cft} + \alpha) / (N_{cf} + \alpha T_f)`: the
    maximum-likelihood frequency at ``alpha`` 0, Laplace's rule at 1. A category never seen
    in training scores as the smoothing implies, :math:`\alpha / (N_{cf} + \alpha T_f)`.

    Examples
    --------
    Class a has categories 0, 0, 1 of a feature with categories 0, 1, 2 (``min_categories``):
    P(0|a) = (2 + 1) / (3 + 3) = 1/2, P(1|a) = 2/6, P(2|a) = 1/6.

    >>> nb = CategoricalNB(min_categories=3).fit([[0], [0], [1], [2]], ["a", "a", "a", "b"])
    >>> np.exp(nb.feature_log_prob_[0][0]).round(4).tolist()
    [0.5, 0.3333, 0.1667]
    """

    def __init__(self, *, alpha: float = 1.0, force_alpha: bool = True, fit_prior: bool = True,
                 class_prior: Any = None, min_categories: Any = None) -> None:
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories

    def _input_tags(self) -> dict[str, bool]:
        return {**super()._input_tags(), "positive_only": True, "categorical": True}

    def _checked_X(self, X: Any) -> np.ndarray:
        X = super()._checked_X(X)
        present = X[~np.isnan(X)]
        if present.size and present.min() < 0:
            raise ValueError(f"Negative values in data passed to {type(self).__name__}: categories are codes 0, 1, "
                             "2, ... (NaN where one is missing)")
        fractional = present != np.floor(present)
        if fractional.any():
            raise ValueError(f"{type(self).__name__} takes categories as codes 0, 1, 2, ..., but X holds "
                             f"{present[fractional][0]:g}: encode each column's values as codes first")
        return X

    def _start(self, classes: np.ndarray, n_features: int) -> None:
        self.classes_ = classes
        self.n_features_in_ = n_features
        self.class_count_ = np.zeros(len(classes))
        low = self._min_categories(n_features)
        self.category_count_ = [np.zeros((len(classes), int(n))) for n in low]

    def _min_categories(self, n_features: int) -> np.ndarray:
        if self.min_categories is None:
            return np.zeros(n_features, dtype=np.int64)
        low = np.asarray(self.min_categories)
        if low.dtype.kind not in "iu" or low.ndim > 1 or (low.ndim and low.shape != (n_features,)) or (low < 0).any():
            raise ValueError(f"min_categories must be a number of categories not below 0, or one for each of the "
                             f"{n_features} features, got {self.min_categories!r}")
        return np.broadcast_to(low, (n_features,)).astype(np.int64)

    def _add(self, X: np.ndarray, index: np.ndarray, weights: np.ndarray) -> None:
        n_classes = len(self.classes_)
        self.class_count_ += np.bincount(index, weights=weights, minlength=n_classes)
        for f, counts in enumerate(self.category_count_):
            present = ~np.isnan(X[:, f])
            codes = X[present, f].astype(np.int64)
            width = max(counts.shape[1], int(codes.max()) + 1 if codes.size else 0)
            cells = np.bincount(index[present] * width + codes, weights=weights[present], minlength=n_classes * width)
            self.category_count_[f] = _widened(counts, width) + cells.reshape(n_classes, width)

    def _merge(self, other: CategoricalNB) -> None:
        self.class_count_ = self.class_count_ + other.class_count_
        self.category_count_ = [
            _widened(ours, max(ours.shape[1], theirs.shape[1])) + _widened(theirs, max(ours.shape[1], theirs.shape[1]))
            for ours, theirs in zip(self.category_count_, other.category_count_)]

    @classmethod
    def from_counts(cls, classes: np.ndarray, category_count: list[np.ndarray], *, alpha: float = 1.0
                    ) -> CategoricalNB:
        """A model fitted on counts kept elsewhere (``tabular.ColumnSums``): per feature, classes x
        categories. Its priors are even: the counts' owner adds its own."""
        model = cls(alpha=alpha)
        model._start(classes, len(category_count))
        model.category_count_ = [counts.copy() for counts in category_count]
        model.class_count_ = np.ones(len(classes))
        model._update()
        return model

    def feature_log_likelihood(self, feature: int, code: int) -> np.ndarray:
        """log P(category ``code`` | class) of ``feature`` under each class; for a code past
        those seen in training, what the smoothing gives an unseen category."""
        self._check_fitted()
        log_prob = self.feature_log_prob_[feature]
        return log_prob[:, code] if code < log_prob.shape[1] else self._unseen_log_prob[:, feature]

    def _update(self) -> None:
        given = np.asarray(self.alpha)
        if given.ndim or given.dtype.kind not in "iuf":  # not "0.1", None, True
            raise ValueError(f"alpha must be a number, got {self.alpha!r}")
        alpha = float(given)
        if not (np.isfinite(alpha) and alpha >= 0):
            raise ValueError(f"alpha must be finite and not negative, got {self.alpha!r}")
        if alpha < 1e-10 and not self.force_alpha:
            warnings.warn("alpha too small will result in numeric errors, setting alpha = 1.0e-10; force_alpha=True "
                          "keeps it as given", UserWarning, stacklevel=4)
            alpha = 1e-10
        self._alpha = alpha
        self.n_categories_ = np.array([counts.shape[1] for counts in self.category_count_], dtype=np.int64)
        self.class_log_prior_ = class_log_prior(self.class_count_, self.fit_prior, self.class_prior)
        with np.errstate(divide="ignore"):
            self.feature_log_prob_ = [np.log(counts + alpha) - np.log(counts.sum(axis=1, keepdims=True)
                                                                      + alpha * counts.shape[1])
                                      for counts in self.category_count_]
            self._unseen_log_prob = np.array([
                np.log(alpha) - np.log(counts.sum(axis=1) + alpha * counts.shape[1])
                for counts in self.category_count_]).T.reshape(len(self.classes_), -1)

    def _jll(self, X: Any) -> np.ndarray:
        X = self._checked_for_scoring(X)
        jll = np.tile(self.class_log_prior_, (X.shape[0], 1))
        for f, log_prob in enumerate(self.feature_log_prob_):
            present = ~np.isnan(X[:, f])
            codes = X[present, f].astype(np.int64)
            seen = codes < log_prob.shape[1]
            scores = np.tile(self._unseen_log_prob[:, f], (len(codes), 1))
            scores[seen] = log_prob[:, codes[seen]].T
            jll[present] += scores
        return jll


def moments(X: np.ndarray, index: np.ndarray, n_classes: int, weights: np.ndarray
            ) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """Of the values of ``X`` present (not NaN), per class (rows of class ``index``, weighted) and
    over all rows (unweighted): the weight, the mean and the sum of squared deviations of each
    feature, what ``merged_moments`` adds up.

    >>> (weight, mean, m2), every = moments(np.array([[1.0], [3.0], [np.nan]]), np.array([0, 0, 1]), 2, np.ones(3))
    >>> weight.tolist(), mean.tolist(), m2.tolist(), [part.tolist() for part in every]
    ([[2.0], [0.0]], [[2.0], [0.0]], [[2.0], [0.0]], [[2.0], [2.0], [2.0]])
    """
    present = ~np.isnan(X)
    values = np.where(present, X, 0.0)
    shape = (n_classes, X.shape[1])
    weight, mean, m2 = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for c in np.unique(index):
        rows = index == c
        w = weights[rows][:, None] * present[rows]
        weight[c] = w.sum(axis=0)
        mean[c] = np.divide((w * values[rows]).sum(axis=0), weight[c], out=np.zeros(X.shape[1]), where=weight[c] > 0)
        m2[c] = (w * (values[rows] - mean[c]) ** 2).sum(axis=0)
    count = present.sum(axis=0).astype(np.float64)
    all_mean = np.divide(values.sum(axis=0), count, out=np.zeros_like(count), where=count > 0)
    all_m2 = (present * (values - all_mean) ** 2).sum(axis=0)
    return (weight, mean, m2), (count, all_mean, all_m2)


def merged_moments(n_a: np.ndarray, mean_a: np.ndarray, m2_a: np.ndarray,
                    n_b: np.ndarray, mean_b: np.ndarray, m2_b: np.ndarray) -> tuple[np.ndarray, ...]:
    """Weights, means and sums of squared deviations of two parts, as of the whole.

    >>> one, two = np.array([1.0]), np.array([2.0])
    >>> merged_moments(two, two, two, one, 5 * one, 0 * one)  # {1, 3} and {5}: {1, 3, 5}
    (array([3.]), array([3.]), array([8.]))
    """
    n = n_a + n_b
    delta = mean_b - mean_a
    share = np.divide(n_b, n, out=np.zeros_like(n), where=n > 0)
    return n, mean_a + delta * share, m2_a + m2_b + delta ** 2 * n_a * share


def _widened(counts: np.ndarray, width: int) -> np.ndarray:
    """``counts`` (classes x categories) with columns of zeros up to ``width`` categories."""
    if counts.shape[1] >= width:
        return counts
    return np.pad(counts, ((0, 0), (0, width - counts.shape[1])))

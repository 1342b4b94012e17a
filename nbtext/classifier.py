"""What every nbtext classifier shares: scikit-learn's estimator protocol (parameters, tags,
fitted-ness), ``fit`` and ``partial_fit``, and the predict family.

A model supplies ``_checked_X_y`` (its ``X`` as it takes it, and the labels), ``_start`` (its
sums, zero, for the classes and features of a first call), ``_add`` (a batch's sums added to
them), ``_update`` (what scoring needs, from the sums) and ``_jll(X)`` (log P(c) + log P(x|c)
for each document and class, or the scores Complement NB ranks by); and says through
``_input_tags()`` what its ``X`` may be.
"""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

import numpy as np

from .estimator_inputs import check_feature_names, feature_names

#: An estimator's own class: fit returns the estimator it was called on.
Self = TypeVar("Self", bound="Classifier")


class Classifier:
    """The base of nbtext's estimators, which import no scikit-learn on the way to an answer."""

    #: The labels learned, sorted: column i of every score is classes_[i].
    classes_: np.ndarray
    #: How many features (columns of X) fit saw.
    n_features_in_: int
    #: What fit sets: where it is set, the estimator is fitted.
    _fitted_attribute = "classes_"
    _estimator_type = "classifier"

    # --- parameters ----------------------------------------------------------------------

    @classmethod
    def _param_names(cls) -> list[str]:
        return sorted(
            name for name, p in inspect.signature(cls.__init__).parameters.items()
            if p.kind is p.KEYWORD_ONLY
        )

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self: Self, **params: Any) -> Self:
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; valid: {valid}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = type(self)().get_params()
        changed = {k: v for k, v in self.get_params().items() if not _same(v, defaults[k])}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in changed.items())})"

    # --- what scikit-learn asks --------------------------------------------------------

    def _input_tags(self) -> dict[str, bool]:
        """What ``X`` may be, in the names of scikit-learn's input tags."""
        return {"sparse": False, "positive_only": False, "allow_nan": False, "categorical": False}

    def __sklearn_tags__(self):
        """The tags of scikit-learn 1.6 on: ``_input_tags()``, labels required, and a poor score
        allowed on data unlike the model's (scikit-learn's checks try blobs of numbers), as
        scikit-learn allows its own Naive Bayes classes."""
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags  # asked by scikit-learn only

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(poor_score=True),
            input_tags=InputTags(**self._input_tags()),
        )

    def _more_tags(self) -> dict[str, Any]:
        """The same, as scikit-learn before 1.6 asks for it."""
        tags = self._input_tags()
        return {"requires_positive_X": tags["positive_only"], "allow_nan": tags["allow_nan"], "requires_y": True,
                "poor_score": True, "X_types": ["2darray"] + ["sparse"] * tags["sparse"]
                + ["categorical"] * tags["categorical"]}

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, self._fitted_attribute)

    def _check_fitted(self) -> None:
        if not self.__sklearn_is_fitted__():
            from .sklearn_types import NotFittedError  # scikit-learn's too: imported on this mistake only

            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _check_n_features(self, X: Any) -> None:
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input: one column for each of the features it was "
                             "fitted on")

    # --- fitting -------------------------------------------------------------------------

    def fit(self: Self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Learn from documents ``X`` (documents x features) with labels ``y``, anew."""
        names = feature_names(X)
        X, y = self._checked_X_y(X, y)
        for name in ("classes_", self._fitted_attribute, "feature_names_in_"):
            self.__dict__.pop(name, None)
        return self._partial_fit(X, y, X, names, np.unique(y), sample_weight)

    def partial_fit(self: Self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None) -> Self:
        """Add documents to what was learned; ``classes`` is required on the first call, and
        where given later must be the same."""
        table, names = X, feature_names(X)
        X, y = self._checked_X_y(X, y)
        return self._partial_fit(X, y, table, names, classes, sample_weight)

    def _partial_fit(self: Self, X: Any, y: np.ndarray, table: Any, names: np.ndarray | None, classes: Any,
                     sample_weight: Any) -> Self:
        """``partial_fit`` of ``X`` and ``y`` checked already (``_checked_X_y``); ``table`` is X
        as given, for its column names."""
        weights = sample_weights(sample_weight, X.shape[0])
        first, known, index = self._class_index(X, table, y, classes, weights)
        if first:
            self._start(known, X.shape[1])
            if names is not None:
                self.feature_names_in_ = names
        self._add(X, index, weights)
        self._update()
        return self

    def _checked_X_y(self, X: Any, y: Any) -> tuple[Any, np.ndarray]:
        raise NotImplementedError

    def _start(self, classes: np.ndarray, n_features: int) -> None:
        raise NotImplementedError

    def _add(self, X: Any, index: np.ndarray, weights: np.ndarray) -> None:
        raise NotImplementedError

    def _update(self) -> None:
        raise NotImplementedError

    def _class_index(self, X: Any, table: Any, y: np.ndarray, classes: Any,
                     weights: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray]:
        """For ``partial_fit``: whether this is the first call, the classes, and the class of
        each label of ``y``, as positions in them. The first call needs ``classes`` and a
        document of some weight; a later one the first call's features (by number, and by
        name where ``table`` has names) and, if given again, its classes. Every check comes
        before anything is learned: a first call refused leaves the estimator unfitted."""
        first = not self.__sklearn_is_fitted__()
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit: all the labels y may hold")
            if not weights.sum() > 0:  # the priors would be 0/0; a later empty batch adds nothing
                raise ValueError(f"{type(self).__name__} needs at least one document to learn from; "
                                 + (f"sample weights are all zero for the {X.shape[0]} rows of X" if X.shape[0]
                                    else "X has none"))
            known = np.unique(np.asarray(classes))
        else:
            self._check_n_features(X)
            check_feature_names(getattr(self, "feature_names_in_", None), table, type(self).__name__)
            known = self.classes_
            if classes is not None and not np.array_equal(np.unique(np.asarray(classes)), known):
                raise ValueError(f"classes={list(np.unique(classes))} is not the same as on the first call to "
                                 f"partial_fit, {known.tolist()}: the classes are fixed by the first call")
        if not len(y):  # np.asarray([]) is floats: numpy 1.x warns on comparing them with labels
            y = y.astype(known.dtype)
        index = np.searchsorted(known, y)
        unknown = (index >= len(known)) | (known[np.minimum(index, len(known) - 1)] != y)
        if unknown.any():
            raise ValueError(f"labels {sorted(set(y[unknown].tolist()))} are not in classes {known.tolist()}")
        return first, known, index

    # --- prediction ----------------------------------------------------------------------

    def _jll(self, X: Any) -> np.ndarray:
        raise NotImplementedError

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each document."""
        best = np.argmax(self._jll(X), axis=1)
        return self.classes_[best]

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """log P(c) + log P(x|c) for each class (columns in ``classes_`` order), unnormalised:
        for Complement NB, its scores, as scikit-learn's."""
        return self._jll(X)

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Log-probability of each class (columns in ``classes_`` order) for each document."""
        jll = self._jll(X)
        return jll - logsumexp(jll)[:, None]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Probability of each class (columns in ``classes_`` order) for each document."""
        return np.exp(self.predict_log_proba(X))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy, so that ``GridSearchCV`` can rank settings."""
        hits = (self.predict(X) == np.asarray(y)).astype(np.float64)
        return float(np.average(hits, weights=sample_weight))


def class_log_prior(class_count: np.ndarray, fit_prior: bool, class_prior: Any) -> np.ndarray:
    """log P(c): ``class_prior`` as given, else the classes' shares of the documents
    (``fit_prior``), else even.

    >>> class_log_prior(np.array([3.0, 1.0]), True, None).round(4).tolist()
    [-0.2877, -1.3863]
    """
    n_classes = len(class_count)
    if class_prior is not None:
        prior = np.asarray(class_prior, dtype=np.float64)
        if prior.shape != (n_classes,):
            raise ValueError(f"class_prior has {prior.size} values for {n_classes} classes")
        return np.log(prior)
    if fit_prior:
        with np.errstate(divide="ignore"):
            return np.log(class_count) - np.log(class_count.sum())
    return np.full(n_classes, -np.log(n_classes))


def sample_weights(sample_weight: Any, n_rows: int) -> np.ndarray:
    """The weight of each of ``n_rows`` documents: 1 each where none are given."""
    weights = np.ones(n_rows) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if weights.shape != (n_rows,):
        raise ValueError(f"sample_weight has shape {weights.shape}, expected ({n_rows},)")
    if not (np.isfinite(weights).all() and (weights >= 0).all()):
        raise ValueError("sample_weight must be finite and not negative")
    return weights


def logsumexp(a: np.ndarray) -> np.ndarray:
    """log(sum(exp(a))) of each row, without overflow; -inf for a row of -inf."""
    top = a.max(axis=1)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return top + np.log(np.exp(a - top[:, None]).sum(axis=1))


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(np.all(a == b)) if not (a is None or b is None) else a is b
    except (TypeError, ValueError):
        return False

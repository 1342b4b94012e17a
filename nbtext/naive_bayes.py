"""The Naive Bayes cores: one base class and the Multinomial, Bernoulli and Complement variants.

They are scikit-learn estimators: scikit-learn's own checks (``check_estimator``) pass on each
(tests/test_estimator_checks.py), so they work in a ``Pipeline``, with ``clone`` and
``GridSearchCV``. They import neither scikit-learn nor scipy on the way to an answer: a matrix
is whatever ``CountMatrix.coerce`` accepts (scipy sparse, numpy, nested lists, a table), and
scikit-learn's exception classes are imported only where one is raised.
"""

from __future__ import annotations

import _thread
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from .classifier import Classifier, class_log_prior, logsumexp
from .estimator_inputs import check_feature_names, checked_labels
from .matrices import ColumnBlocks, ColumnMatrix, CountMatrix, run_starts, used_columns


class NaiveBayes(Classifier):
    """The shared machinery of the discrete Naive Bayes variants.

    The base owns the sums (``_start``, ``_add``, ``fit_counts``), alpha and the class priors;
    ``Classifier`` owns ``fit``/``partial_fit``, the ``predict`` family (one log-sum-exp) and
    scikit-learn's protocol. A variant supplies:

    - ``_statistic(X)``: what is counted per class from a document matrix (the counts
      themselves, or presence for Bernoulli);
    - ``_prepare()``: cheap per-class aggregates of ``feature_count_`` and ``class_count_``;
    - ``_log_prob_of(counts, alpha, out=None)``: ``feature_log_prob_`` for some columns only,
      from their ``feature_count_`` (classes x columns, dense) and their ``alpha`` (one number,
      or one per column), and ``_weights_of(counts, alpha, out=None)``/``_jll_bias()``, with
      which a document scores ``x @ weights.T + bias``; each column's weights depend on its own
      counts and alpha and the aggregates alone. Given ``out`` (the shape of ``counts``), the
      result is made in it;
    - ``_feature_scores()``, the per-class score of each feature used by ``top_features``
      (how much a feature raises the class);
    - ``empty_answer``: what a document with none of the model's words is classified by (it
      scores ``_jll_bias()`` alone), as the read report tells the user.

    Prediction computes weights only for the columns a batch uses, so a fresh process
    classifying one message does not pay for the whole vocabulary; ``feature_log_prob_`` is
    computed in full on first use. Because ``feature_count_`` and ``class_count_`` are plain
    sums, ``partial_fit`` on parts equals ``fit`` on the whole, and ``fit_counts`` takes sums
    made elsewhere.
    """

    empty_answer = "classified by the class priors alone"
    #: Learned per-class sums (classes x features): an array, or a ColumnMatrix taken as given.
    feature_count_: Any
    _fitted_attribute = "feature_count_"

    def __init__(self, *, alpha: Any = 1.0, force_alpha: bool = True, fit_prior: bool = True,
                 class_prior: Any = None) -> None:
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle of this core holds: its settings and sums, not the weights computed
        from them for scoring. Those are rows written in place while a batch is scored, and a
        pickle's arrays may be read after it is made: Dask sends a model from a worker still
        scoring to another worker, the arrays out of band, as they are at sending time. The
        copy then held slots for rows it never got, and scored thousands of 20news posts
        wrongly. The receiver computes its own."""
        state = dict(self.__dict__)
        if "_kept" in state:
            state["_kept"] = {}
        return state

    def _input_tags(self) -> dict[str, bool]:
        """Counts, dense or sparse; negative ones refused where they cannot be counts (as by
        scikit-learn's own Naive Bayes classes)."""
        return {**super()._input_tags(), "sparse": True, "positive_only": self._refuses_negative()}

    def _refuses_negative(self) -> bool:
        """Whether ``fit`` refuses negative values: a count is never below zero."""
        return True

    # --- fitting -------------------------------------------------------------------------

    def _start(self, classes: np.ndarray, n_features: int) -> None:
        self.classes_ = classes
        self.n_features_in_ = n_features
        self.feature_count_ = np.zeros((len(classes), n_features))
        self.class_count_ = np.zeros(len(classes))

    def _add(self, X: CountMatrix, index: np.ndarray, weights: np.ndarray) -> None:
        # sums taken by fit_counts may be a ColumnMatrix: adding to them makes them an array
        self.feature_count_ = np.asarray(self.feature_count_, dtype=np.float64)
        self.feature_count_ += self._statistic(X).column_sums_by(index, len(self.classes_), weights)
        self.class_count_ += np.bincount(index, weights=weights, minlength=len(self.classes_))

    def fit_counts(self, feature_count: Any, class_count: Any, *, classes: Any) -> NaiveBayes:
        """Take per-class sums made elsewhere (the CLI's streaming counts, a merged run);
        ``feature_count`` is used as given, not copied."""
        self.classes_ = np.asarray(classes)
        # A ColumnMatrix is kept as it is: prediction reads only the columns it needs.
        self.feature_count_ = (feature_count if isinstance(feature_count, ColumnMatrix)
                               else np.asarray(feature_count, dtype=np.float64))
        self.class_count_ = np.array(class_count, dtype=np.float64, ndmin=1)
        self.n_features_in_ = self.feature_count_.shape[1]
        if self.feature_count_.shape[0] != len(self.classes_) or self.class_count_.shape != (len(self.classes_),):
            raise ValueError("feature_count, class_count and classes disagree on the number of classes")
        self._update()
        return self

    def _update(self) -> None:
        self._alpha = self._checked_alpha()
        #: What is computed from the sums when first needed (by predict, say) and kept: kept
        #: here, so that predict leaves the estimator's attributes as they were.
        self._kept: dict[str, Any] = {}
        self._update_class_log_prior()
        # Only a core with no features (a search's fold whose terms were all pruned, scored by
        # its priors) takes a log of zero: totals that no column will ever use.
        with np.errstate(divide="ignore"):
            self._prepare()

    def _checked_alpha(self) -> Any:
        """``alpha`` as scikit-learn takes it: one number, or one per feature, none negative;
        below 1e-10 it is raised to 1e-10 with a warning unless ``force_alpha`` (at 0, a word a
        class never had makes that class impossible)."""
        alpha = np.asarray(self.alpha)
        name = type(self).__name__
        if alpha.dtype.kind not in "iuf" or alpha.ndim > 1:  # not "0.1", None, True
            raise ValueError(f"alpha must be a number, or one number per feature, got {self.alpha!r}")
        if alpha.ndim and alpha.shape != (self.n_features_in_,):
            raise ValueError(f"alpha has {alpha.size} values, but {name} has {self.n_features_in_} features: give one "
                             "number, or one per feature")
        alpha = alpha.astype(np.float64)
        if not (np.isfinite(alpha).all() and (alpha >= 0).all()):
            raise ValueError(f"alpha must be finite and not negative, got {self.alpha!r}")
        if alpha.size and alpha.min() < _ALPHA_FLOOR and not self.force_alpha:
            warnings.warn(f"alpha too small will result in numeric errors, setting alpha = {_ALPHA_FLOOR:.1e}; "
                          "force_alpha=True keeps it as given", UserWarning, stacklevel=4)
            alpha = np.maximum(alpha, _ALPHA_FLOOR)
        return float(alpha) if not alpha.ndim else alpha

    def _alpha_at(self, columns: Any) -> Any:
        """The alpha of ``columns`` (an index array or a slice): one number, or one per column."""
        return self._alpha if np.ndim(self._alpha) == 0 else self._alpha[columns]

    def _alpha_sum(self) -> float:
        """alpha summed over every feature."""
        return self._alpha * self.n_features_in_ if np.ndim(self._alpha) == 0 else float(self._alpha.sum())

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """Log-probability (or Complement weight) of every feature for every class."""
        self._check_fitted()
        if "full_log_prob" not in self._kept:
            self._kept["full_log_prob"] = self._log_prob(slice(None))
        return self._kept["full_log_prob"]

    def _update_class_log_prior(self) -> None:
        self.class_log_prior_ = class_log_prior(self.class_count_, self.fit_prior, self.class_prior)

    # --- prediction ----------------------------------------------------------------------

    def linear_form(self) -> tuple[np.ndarray, np.ndarray]:
        """The model as a linear one: weights W (classes x features) and a bias b (one per
        class), such that the joint log-likelihood of documents X is ``S(X) @ W.T + b``, where
        S is X itself, or for Bernoulli NB whether each feature is present (``binarize``).

        >>> nb = MultinomialNB().fit([[2, 1, 0], [0, 1, 3]], ["a", "b"])
        >>> W, b = nb.linear_form()
        >>> bool(np.allclose(np.array([[1, 0, 2]]) @ W.T + b, nb.predict_joint_log_proba([[1, 0, 2]])))
        True
        """
        self._check_fitted()
        n_features = self.n_features_in_
        rows = np.empty((n_features, len(self.classes_)))
        for start in range(0, n_features, _BLOCK):
            columns = np.arange(start, min(start + _BLOCK, n_features))
            self._put_weight_rows(np.asarray(self.feature_count_[:, columns], dtype=np.float64), columns,
                                  rows[start:start + _BLOCK])
        return np.ascontiguousarray(rows.T), np.array(self._jll_bias(), dtype=np.float64)

    def top_features(self, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each class, the ``k`` feature indices that raise it most and their scores."""
        self._check_fitted()
        scores = self._feature_scores()
        top = []
        for row in scores:
            order = np.lexsort((np.arange(len(row)), -row))[:k]
            top.append((order, row[order]))
        return top

    def contributions(self, X: Any, towards: Any, against: Any) -> CountMatrix:
        """What each feature of each document adds to its score for class ``towards[d]`` over
        its score for ``against[d]`` (class indices, one per row of ``X``): the feature's value
        times the difference of the two classes' weights, in nats. A document's contributions
        and the difference of the two classes' ``_jll_bias()`` add up to the difference of its
        two joint log-likelihoods, the log-odds of the one class against the other (Bernoulli
        NB's absent features are in its bias).

        Examples
        --------
        >>> from sklearn.feature_extraction.text import CountVectorizer
        >>> counts = CountVectorizer().fit_transform(["cheap pills", "meeting notes", "cheap meeting"])
        >>> nb = MultinomialNB().fit(counts, ["spam", "ham", "ham"])
        >>> nb.contributions(counts[:1], [1], [0]).data.round(4).tolist()  # cheap, pills: spam over ham
        [0.2877, 0.9808]
        """
        X = self._checked(X)
        towards, against = np.asarray(towards, dtype=np.int64), np.asarray(against, dtype=np.int64)
        if towards.shape != (X.shape[0],) or against.shape != (X.shape[0],):
            raise ValueError(f"need one class to weigh towards and one against for each of the {X.shape[0]} rows")
        rows, slot_of = self._weight_rows_for(X.indices)
        doc = X.row_ids()
        spread = rows[slot_of, towards[doc]] - rows[slot_of, against[doc]]
        return CountMatrix(X.indptr, X.indices, X.data * spread, X.n_features)

    def _jll(self, X: Any) -> np.ndarray:
        X = self._checked(X)
        rows, slot_of = self._weight_rows_for(X.indices)
        return CountMatrix(X.indptr, slot_of, X.data, len(rows)).dot_by_feature(rows) + self._jll_bias()

    def _checked(self, X: Any) -> CountMatrix:
        """``X`` as a CountMatrix of this model's width and finite values, as the variant counts it."""
        self._check_fitted()
        check_feature_names(getattr(self, "feature_names_in_", None), X, type(self).__name__)
        X = CountMatrix.coerce(X)
        self._check_n_features(X)
        self._check_finite(X)
        return self._statistic(X)

    def _weight_rows_for(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The weights of ``_weights_of`` as rows, one per feature, and the row of each of
        ``indices``. Rows are computed when first needed and kept: one message pays for its
        own words only, and a stream of batches, whose words mostly recur, soon stops computing
        any. Only the features met have a row, so memory grows with the words seen, not with
        the vocabulary. Each row is the same bits whichever rows are computed with it, so every
        score is the same however the documents were batched."""
        state = self._kept.get("weight_rows")
        if state is not None:
            rows, slots, _ = state
            slot_of = slots[indices]
            if slot_of.all():
                return rows, slot_of
        with _WEIGHT_ROWS_LOCK:
            rows, slots = self._add_weight_rows(indices)
        return rows, slots[indices]

    def _add_weight_rows(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Give ``indices`` rows (holding the lock). Readers take no lock, so a row is written
        before its slot is set, and a grown copy comes with its own slots: a reader holding
        the old arrays never sees a slot pointing past the rows it holds."""
        state = self._kept.get("weight_rows")
        fresh = state is None
        if state is None:
            # Slot 0 means no row yet (row 0 is never used): zeros take no memory until
            # written, so one short message costs a few pages, not one slot per term.
            state = (np.empty((1, len(self.classes_))), np.zeros(self.n_features_in_, dtype=np.int64), 1)
        rows, slots, used = state
        unseen = indices[slots[indices] == 0]
        if len(unseen) > len(slots) // 64:  # a search's fold, a large batch: a mask, not a sort
            in_use = np.zeros(len(slots), dtype=bool)
            in_use[unseen] = True
            new = np.flatnonzero(in_use)
        else:  # one message: its own words only
            new = np.sort(unseen)  # not np.unique: it imports numpy.ma, 15 ms
            new = new[run_starts(new)]
        if len(new):
            needed = used + len(new)
            if needed > len(rows):
                grown = np.empty((min(max(needed, 2 * len(rows), 1024), len(slots) + 1), rows.shape[1]))
                grown[:used] = rows[:used]
                rows, slots = grown, slots if fresh else slots.copy()
            self._put_weight_rows(self.feature_count_[:, new], new, rows[used:needed])
            slots[new] = np.arange(used, needed)
            self._kept["weight_rows"] = (rows, slots, needed)
        return rows, slots

    def _put_weight_rows(self, counts: np.ndarray, columns: np.ndarray, out: np.ndarray) -> None:
        """``_weights_of(counts)`` written into ``out`` with a row a column of ``counts`` (the
        features ``columns``), a block of columns at a time: a block's arithmetic stays in the
        CPU cache, and no transposed copy of the whole is made (1.5 to 2 times as fast on
        250,000 columns)."""
        for start, rows in zip(range(0, counts.shape[1], _ROWS_BLOCK), self._weight_row_blocks(counts, columns)):
            out[start:start + _ROWS_BLOCK] = rows

    def _weight_row_blocks(self, counts: np.ndarray, columns: np.ndarray) -> Iterator[np.ndarray]:
        """``_weights_of(counts)`` as rows, ``_ROWS_BLOCK`` columns of ``counts`` at a time,
        each made in the buffer of the one before: use a block before asking for the next.
        Fresh arrays the size of a block can cost more than their arithmetic, their memory
        mapped anew: Multinomial NB's weights for a 20news fold's 253,101 test columns took
        17 ms in one buffer against 38 ms in fresh arrays, measured alone (in the whole
        search, a few percent)."""
        buffer = np.empty(counts.shape[0] * min(counts.shape[1], _ROWS_BLOCK))
        for start in range(0, counts.shape[1], _ROWS_BLOCK):
            block = counts[:, start:start + _ROWS_BLOCK]
            alpha = self._alpha_at(columns[start:start + _ROWS_BLOCK])
            yield self._weights_of(block, alpha, buffer[:block.size].reshape(block.shape)).T

    # --- checks --------------------------------------------------------------------------

    def _checked_X_y(self, X: Any, y: Any) -> tuple[CountMatrix, np.ndarray]:
        name = type(self).__name__
        X = CountMatrix.coerce(X)
        y = checked_labels(y, X.shape[0], name)
        if not X.n_features:
            raise ValueError(f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is required by "
                             f"{name}: each document needs a column for each feature")
        self._check_finite(X)
        if self._refuses_negative() and X.data.size and X.data.min() < 0:
            raise ValueError(f"Negative values in data passed to {name}, which needs counts (or other values not "
                             "below zero)")
        return X, y

    def _check_finite(self, X: CountMatrix) -> None:
        if not np.isfinite(X.data).all():
            raise ValueError(f"X holds NaN or infinity; {type(self).__name__} needs counts")

    # --- what a variant provides ---------------------------------------------------------

    def _statistic(self, X: CountMatrix) -> CountMatrix:
        return X

    def _prepare(self) -> None:
        raise NotImplementedError

    def _log_prob(self, columns: Any) -> np.ndarray:
        return self._log_prob_of(self.feature_count_[:, columns], self._alpha_at(columns))

    def _log_prob_of(self, counts: np.ndarray, alpha: Any, out: np.ndarray | None = None) -> np.ndarray:
        raise NotImplementedError

    def _weights_of(self, counts: np.ndarray, alpha: Any, out: np.ndarray | None = None) -> np.ndarray:
        return self._log_prob_of(counts, alpha, out)

    def _jll_bias(self) -> np.ndarray:
        return self.class_log_prior_

    def _feature_scores(self) -> np.ndarray:
        raise NotImplementedError

    def _column_sums(self, per_columns) -> np.ndarray:
        """Sum over every feature of ``per_columns(block)``, block by block (bounded memory)."""
        total = np.zeros(len(self.classes_))
        for start in range(0, self.n_features_in_, _BLOCK):
            total += per_columns(slice(start, start + _BLOCK)).sum(axis=1)
        return total


class MultinomialNB(NaiveBayes):
    r"""Multinomial Naive Bayes: a class is a bag of word draws.

    :math:`P(w \mid c) = (N_{cw} + \alpha) / (N_c + \alpha |V|)`, and a document scores
    :math:`\log P(c) + \sum_w x_w \log P(w \mid c)`.

    Examples
    --------
    The worked example of Manning, Raghavan & Schuetze, *Introduction to Information
    Retrieval*, ch. 13 (vocabulary: Chinese, Beijing, Shanghai, Macao, Tokyo, Japan):

    >>> X = [[2, 1, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 1, 1]]
    >>> nb = MultinomialNB().fit(X, ["china", "china", "china", "japan"])
    >>> import math
    >>> math.isclose(math.exp(nb.feature_log_prob_[0, 0]), (5 + 1) / (8 + 6))
    True
    >>> math.isclose(math.exp(nb.feature_log_prob_[1, 0]), (1 + 1) / (3 + 6))
    True
    >>> d5 = [[3, 0, 0, 0, 1, 1]]  # Chinese Chinese Chinese Tokyo Japan
    >>> china = 3 / 4 * (3 / 7) ** 3 * (1 / 14) ** 2    # the book's 0.0003
    >>> japan = 1 / 4 * (2 / 9) ** 3 * (2 / 9) ** 2     # the book's 0.0001
    >>> math.isclose(nb.predict_proba(d5)[0, 0], china / (china + japan))
    True
    >>> nb.predict(d5).tolist()
    ['china']
    """

    def _prepare(self) -> None:
        self._log_total = np.log(self.feature_count_.sum(axis=1) + self._alpha_sum())

    def _log_prob_of(self, counts: np.ndarray, alpha: Any, out: np.ndarray | None = None) -> np.ndarray:
        out = np.add(counts, alpha, out=out)
        np.log(out, out=out)
        return np.subtract(out, self._log_total[:, None], out=out)

    def _feature_scores(self) -> np.ndarray:
        counts = np.asarray(self.feature_count_)
        rest = counts.sum(axis=0) - counts + self._alpha
        return self.feature_log_prob_ - (np.log(rest) - np.log(rest.sum(axis=1, keepdims=True)))


class BernoulliNB(NaiveBayes):
    r"""Bernoulli Naive Bayes: a class is a set of independent word-presence coins.

    :math:`P(w \mid c) = (D_{cw} + \alpha) / (D_c + 2\alpha)` with :math:`D` counting documents,
    and absent words count too, through :math:`\log(1 - P(w \mid c))`.

    Parameters
    ----------
    binarize : float or None
        Values above it count as present; None when the input is already 0/1.
    """

    empty_answer = "classified by the class priors and the absence of every word"

    def __init__(self, *, alpha: Any = 1.0, force_alpha: bool = True, binarize: float | None = 0.0,
                 fit_prior: bool = True, class_prior: Any = None) -> None:
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior, class_prior=class_prior)
        self.binarize = binarize

    def _statistic(self, X: CountMatrix) -> CountMatrix:
        return X if self.binarize is None else X.binarized(self.binarize)

    def _refuses_negative(self) -> bool:
        """Values at or below ``binarize`` count as absent, negative ones too; without it the
        values are presence itself, 0 or 1."""
        return self.binarize is None

    def _checked_X_y(self, X: Any, y: Any) -> tuple[CountMatrix, np.ndarray]:
        X, y = super()._checked_X_y(X, y)
        if self.binarize is None and not ((X.data == 0) | (X.data == 1)).all():
            # a word in more documents than the class has makes log(1 - P) the log of a negative
            raise ValueError(f"BernoulliNB(binarize=None) takes presence, 0 or 1, but X holds "
                             f"{X.data[(X.data != 0) & (X.data != 1)][0]:g}: give binarize=0.0 to count every value "
                             "above 0 as present")
        return X, y

    def _prepare(self) -> None:
        # With one alpha for every word, log(D_c + 2 alpha) is one column: made once, not for
        # each block of columns scored.
        self._one_log_docs = None if np.ndim(self._alpha) else np.log(self.class_count_[:, None] + 2 * self._alpha)
        # Absent words count too: every document starts from the sum of log(1 - p) over all words.
        # log(1 - p) = log(D_c - D_cw + alpha) - log(D_c + 2 alpha)
        self._bias = self.class_log_prior_ + self._column_sums(lambda columns: self._logged_absent(
            self.feature_count_[:, columns], self._alpha_at(columns)) - self._log_docs(self._alpha_at(columns)))

    def _log_docs(self, alpha: Any) -> np.ndarray:
        """log(D_c + 2 alpha), the denominator of log P(w|c): a column, or classes x columns."""
        if self._one_log_docs is not None and np.ndim(alpha) == 0:
            return self._one_log_docs
        return np.log(self.class_count_[:, None] + 2 * np.asarray(alpha))

    def _log_prob_of(self, counts: np.ndarray, alpha: Any, out: np.ndarray | None = None) -> np.ndarray:
        present = self._logged_present(counts, alpha, out)
        return np.subtract(present, self._log_docs(alpha), out=present)

    def _logged_present(self, counts: np.ndarray, alpha: Any, out: np.ndarray | None = None) -> np.ndarray:
        """log(D_cw + alpha), the numerator of log P(w|c)."""
        present = np.add(counts, alpha, out=out)
        return np.log(present, out=present)

    def _logged_absent(self, counts: np.ndarray, alpha: Any) -> np.ndarray:
        """log(D_c - D_cw + alpha), from the counts, not as log(1 - exp(log P)), which
        scikit-learn takes: a word in every document of a class has 1 - P = alpha / (D_c + 2
        alpha), which rounds to 0 from there where alpha is small beside D_c (1e-300, or 1e-12
        and a million documents), and made every score NaN."""
        absent = np.subtract(self.class_count_[:, None], counts)
        absent += alpha
        return np.log(absent, out=absent)

    def _weights_of(self, counts: np.ndarray, alpha: Any, out: np.ndarray | None = None) -> np.ndarray:
        # log P - log(1 - P): their common denominator, D_c + 2 alpha, cancels out
        absent = self._logged_absent(counts, alpha)
        present = self._logged_present(counts, alpha, out)
        return np.subtract(present, absent, out=present)

    def _jll_bias(self) -> np.ndarray:
        return self._bias

    def _feature_scores(self) -> np.ndarray:
        counts = np.asarray(self.feature_count_)
        rest = counts.sum(axis=0) - counts + self._alpha
        rest_docs = (self.class_count_.sum() - self.class_count_)[:, None] + 2 * np.asarray(self._alpha)
        return self.feature_log_prob_ - (np.log(rest) - np.log(rest_docs))


class ComplementNB(NaiveBayes):
    r"""Complement Naive Bayes (Rennie et al. 2003): learn each class from all the others.

    The weight of word w for class c is :math:`-\log P(w \mid \neg c)`, estimated from the
    counts of every other class, which keeps small classes from being swamped. With ``norm``
    the weights are divided by their sum per class (Rennie's weight normalisation). The prior
    only matters when there is a single class, as in scikit-learn.
    """

    empty_answer = "no words to go by: Complement NB gives every class the same probability"

    def __init__(self, *, alpha: Any = 1.0, force_alpha: bool = True, fit_prior: bool = True,
                 class_prior: Any = None, norm: bool = False) -> None:
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior, class_prior=class_prior)
        self.norm = norm

    def _prepare(self) -> None:
        per_class = self.feature_count_.sum(axis=1)
        # The other classes' words, then alpha's: added first, a small alpha is lost in the total.
        self._log_complement_total = np.log(per_class.sum() - per_class + self._alpha_sum())
        if self.norm:
            total = self._column_sums(lambda columns: self._logged(self.feature_count_[:, columns],
                                                                   self._alpha_at(columns)))
            # With one term its weight is log 1 = 0 in every class, and so is the sum: 0 / 0 made
            # every score NaN. It stays 0, as without normalisation.
            self._logged_total = np.where(total == 0, 1.0, total)

    def _logged(self, counts: np.ndarray, alpha: Any, out: np.ndarray | None = None) -> np.ndarray:
        """log P(w | not c) for some columns, from their counts. The columns' totals over the
        classes come from the same block, so a document's few words never cost a pass over the
        vocabulary."""
        # Row by row, not counts.sum(axis=0): numpy sums a single column pairwise, so a column's
        # total would depend on how many columns were asked for with it.
        total = counts[0].copy()
        for row in counts[1:]:
            total += row
        out = np.subtract(total, counts, out=out)
        out += alpha  # after the subtraction: added to the total, 1e-300 was lost, and log 0 made NaN
        np.log(out, out=out)
        return np.subtract(out, self._log_complement_total[:, None], out=out)

    def _log_prob_of(self, counts: np.ndarray, alpha: Any, out: np.ndarray | None = None) -> np.ndarray:
        logged = self._logged(counts, alpha, out)
        if self.norm:
            return np.divide(logged, self._logged_total[:, None], out=logged)
        return np.negative(logged, out=logged)

    def _jll_bias(self) -> np.ndarray:
        if len(self.classes_) == 1:
            return self.class_log_prior_
        return np.zeros(len(self.classes_))

    def _feature_scores(self) -> np.ndarray:
        # Weights point away from the complement; a word favours c by how much more it adds to
        # c's score than to the other classes' on average.
        weights = self.feature_log_prob_
        n_classes = len(weights)
        if n_classes == 1:
            return weights.copy()
        return weights - (weights.sum(axis=0) - weights) / (n_classes - 1)


class SharedColumns:
    """Documents ``X`` to score with several cores fitted on the same sums (``feature_count_``
    the same object): a search's settings that differ only in alpha, priors or variant.

    The features the documents hold are found once, and their sums densified once, where each
    core's ``predict_log_proba`` would do both again; each core turns the sums into its own
    weights. The scores are the same bits as ``core.predict_log_proba(X)``: a weight depends on
    its column's counts alone, and each document's values are added in the same order.

    >>> X = [[2, 1, 0], [0, 1, 1]]
    >>> fitted = MultinomialNB(alpha=1.0).fit(X, ["a", "b"])
    >>> other = MultinomialNB(alpha=0.1).fit_counts(fitted.feature_count_, fitted.class_count_, classes=["a", "b"])
    >>> shared = SharedColumns(fitted, [[0, 3, 0]])
    >>> [bool(np.array_equal(shared.predict_log_proba(core), core.predict_log_proba([[0, 3, 0]])))
    ...  for core in (fitted, other)]
    [True, True]
    """

    def __init__(self, core: NaiveBayes, X: Any) -> None:
        core._check_fitted()
        X = CountMatrix.coerce(X)
        core._check_n_features(X)
        core._check_finite(X)
        columns, slot = used_columns(X.indices, X.shape[1])
        self.X = CountMatrix(X.indptr, slot, X.data, len(columns))
        self.columns = columns
        self.sums = core.feature_count_
        self.counts = core.feature_count_[:, columns]
        # Where the weights outgrow the cache, each block of weight rows is used while it is
        # still there, not written out whole and read back (None: the product over all at once).
        large = len(columns) * len(core.classes_) * 8 > _BLOCKED_WEIGHTS
        self.blocks = ColumnBlocks.of(self.X, _ROWS_BLOCK) if large else None
        # X's values in block order: the statistic of Multinomial and Complement NB.
        self.block_data = None if self.blocks is None else self.X.data[self.blocks.order]

    def predict_log_proba(self, core: NaiveBayes) -> np.ndarray:
        """``core.predict_log_proba(X)``, for a core fitted on the sums these were made from."""
        if core.feature_count_ is not self.sums:
            raise ValueError("the core was fitted on other sums than the shared columns were taken from")
        statistic = core._statistic(self.X)
        if self.blocks is None:
            weights = np.empty((self.counts.shape[1], len(core.classes_)))
            core._put_weight_rows(self.counts, self.columns, weights)
            jll = statistic.dot_by_feature(weights)
        else:
            data = self.block_data if statistic is self.X else statistic.data[self.blocks.order]
            jll = self.blocks.dot(data, core._weight_row_blocks(self.counts, self.columns), len(core.classes_))
        jll += core._jll_bias()
        return jll - logsumexp(jll)[:, None]


#: Held while a model adds weight rows (rare: a stream soon meets few new words). The lock
#: ``threading.Lock`` returns, from the module Python starts with: the predict path of the
#: library does not otherwise import ``threading``.
_WEIGHT_ROWS_LOCK = _thread.allocate_lock()
#: The smallest alpha taken without ``force_alpha``, as in scikit-learn.
_ALPHA_FLOOR = 1e-10

#: Columns per block when a sum over the whole vocabulary is needed.
_BLOCK = 1 << 16
#: Columns per block when weights are written as rows: a block of 20 classes fits in the cache.
_ROWS_BLOCK = 1 << 12
#: Bytes of weights above which SharedColumns scores a block of weight rows at a time. Measured
#: on one 20news fold's columns, 20 classes, per setting: the same time at 8 MB, 10% less at
#: 16 MB, 35% less at 40 MB; below 8 MB, where all the weights stay in the cache, a little
#: more (R8's search, 2.5 MB: 4.4 s against 4.0 s).
_BLOCKED_WEIGHTS = 12 << 20

VARIANTS: dict[str, type[NaiveBayes]] = {
    "multinomial": MultinomialNB,
    "bernoulli": BernoulliNB,
    "complement": ComplementNB,
}

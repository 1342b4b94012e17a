"""Gaussian and Categorical Naive Bayes three ways: by hand (here and in the doctests),
scikit-learn as oracle on the real data it ships (iris, wine, breast cancer; digits as 64
categorical columns), and properties: parts merged, or batches added, are the whole."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import datasets
from sklearn import naive_bayes as skl

from nbtext.column_nb import CategoricalNB, GaussianNB

TABLES = {"iris": datasets.load_iris, "wine": datasets.load_wine, "breast-cancer": datasets.load_breast_cancer}


def _close(ours, theirs, X):
    np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=0, atol=1e-9)
    assert (ours.predict(X) == theirs.predict(X)).all()


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("settings_", [{}, {"var_smoothing": 1e-3}, {"priors": "even"}], ids=["default", "smoothed",
                                                                                                "priors"])
def test_gaussian_is_scikit_learns_on_its_tables(table, settings_):
    X, y = TABLES[table](return_X_y=True)
    if settings_.get("priors") == "even":
        settings_ = {"priors": np.full(len(np.unique(y)), 1 / len(np.unique(y)))}
    ours, theirs = GaussianNB(**settings_).fit(X, y), skl.GaussianNB(**settings_).fit(X, y)
    _close(ours, theirs, X)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-9)
    assert math.isclose(ours.epsilon_, theirs.epsilon_, rel_tol=1e-12)
    np.testing.assert_allclose(ours.class_prior_, theirs.class_prior_, rtol=1e-12)


@pytest.mark.parametrize("table", TABLES)
def test_gaussian_sample_weights_are_scikit_learns(table):
    X, y = TABLES[table](return_X_y=True)
    weights = np.random.default_rng(3).integers(0, 4, len(y)).astype(float)
    _close(GaussianNB().fit(X, y, sample_weight=weights), skl.GaussianNB().fit(X, y, sample_weight=weights), X)


@pytest.mark.parametrize("settings_", [{}, {"alpha": 0.5}, {"min_categories": 20}, {"fit_prior": False},
                                       {"class_prior": [0.1] * 10}], ids=["default", "alpha", "min-categories",
                                                                          "even-prior", "class-prior"])
def test_categorical_is_scikit_learns_on_digits(settings_):
    """The 8x8 digits, each pixel's darkness (0 to 16) a category."""
    X, y = datasets.load_digits(return_X_y=True)
    weights = np.random.default_rng(5).integers(0, 4, len(y)).astype(float)
    for w in (None, weights):
        ours = CategoricalNB(**settings_).fit(X[:1200], y[:1200], sample_weight=None if w is None else w[:1200])
        theirs = skl.CategoricalNB(**settings_).fit(X[:1200], y[:1200], sample_weight=None if w is None else w[:1200])
        _close(ours, theirs, X[:1200])
        np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)
        for mine, oracle in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
            np.testing.assert_allclose(mine, oracle, rtol=1e-12)


def test_categorical_partial_fit_is_scikit_learns_and_grows_its_categories():
    """Batches whose codes reach further than the first's: each feature's categories grow, as
    scikit-learn's do."""
    X, y = datasets.load_digits(return_X_y=True)
    order = np.argsort(X[:, 20], kind="stable")  # the first batches see the lighter pixels only
    X, y = X[order], y[order]
    ours, theirs = CategoricalNB(), skl.CategoricalNB()
    for rows in np.array_split(np.arange(len(y)), 4):
        ours.partial_fit(X[rows], y[rows], classes=np.arange(10))
        theirs.partial_fit(X[rows], y[rows], classes=np.arange(10))
    _close(ours, theirs, X)
    _close(CategoricalNB().fit(X, y), theirs, X)


@pytest.mark.parametrize("model", [GaussianNB, CategoricalNB])
def test_parts_merged_and_batches_added_are_the_whole(model):
    """merge of parts trained apart, and partial_fit over batches, give fit's model on all the
    documents: epsilon included for Gaussian NB (scikit-learn's partial_fit takes it from each
    batch alone, so its batches do not make its fit)."""
    X, y = (datasets.load_digits if model is CategoricalNB else datasets.load_wine)(return_X_y=True)
    whole = model().fit(X, y)
    parts = [model().fit(X[rows], y[rows], ) for rows in (np.arange(len(y)) % 3 == k for k in range(3))]
    merged = parts[0].merge(parts[1]).merge(parts[2])
    np.testing.assert_allclose(merged.predict_log_proba(X), whole.predict_log_proba(X), rtol=0, atol=1e-9)
    batched = model()
    for rows in np.array_split(np.arange(len(y)), 5):
        batched.partial_fit(X[rows], y[rows], classes=np.unique(y))
    np.testing.assert_allclose(batched.predict_log_proba(X), whole.predict_log_proba(X), rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match=f"only a {model.__name__} of the same classes and number of features"):
        whole.merge(model().fit(X[:, :3], y))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_merging_any_split_is_fitting_the_whole(data):
    """Any table with missing values, any weights, any split into two parts."""
    n, f = data.draw(st.integers(4, 30)), data.draw(st.integers(1, 4))
    cells = st.one_of(st.integers(0, 5).map(float), st.just(np.nan))
    X = np.array(data.draw(st.lists(st.lists(cells, min_size=f, max_size=f), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n)))
    weights = np.array(data.draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), dtype=float)
    split = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    for model in (GaussianNB, CategoricalNB):
        whole = model().partial_fit(X, y, classes=["a", "b"], sample_weight=weights)
        parts = [model().partial_fit(X[rows], y[rows], classes=["a", "b"], sample_weight=weights[rows])
                 for rows in (split, ~split) if rows.any()]
        merged = parts[0] if len(parts) == 1 else parts[0].merge(parts[1])
        np.testing.assert_allclose(merged.predict_log_proba(X), whole.predict_log_proba(X), rtol=1e-9, atol=1e-9)


def test_a_missing_value_leaves_its_feature_out_by_hand():
    """NaN is a value not given: in training it is left out of its class's mean and variance
    (or category counts), in scoring out of the sum; the class still counts the document."""
    X = [[1.0, 0.0], [3.0, np.nan], [np.nan, 1.0], [10.0, 1.0]]
    nb = GaussianNB(var_smoothing=0.0).fit(X, ["a", "a", "a", "b"])
    assert nb.theta_[0].tolist() == [2.0, 0.5] and nb.var_[0].tolist() == [1.0, 0.25]
    assert nb.class_count_.tolist() == [3.0, 1.0]
    np.testing.assert_allclose(nb.predict_joint_log_proba([[np.nan, np.nan]])[0], np.log([3 / 4, 1 / 4]))
    one = -0.5 * (math.log(2 * math.pi * 1.0) + (2.5 - 2.0) ** 2 / 1.0)  # feature 0 alone, class a
    assert math.isclose(nb.predict_joint_log_proba([[2.5, np.nan]])[0, 0], math.log(3 / 4) + one)
    cat = CategoricalNB().fit([[0, 1], [1, np.nan], [np.nan, 1], [1, 0]], ["a", "a", "a", "b"])
    # feature 1 of class a: categories 1, 1 seen (the NaN left out): (2 + 1) / (2 + 2)
    assert math.isclose(math.exp(cat.feature_log_prob_[1][0, 1]), 3 / 4)
    assert math.isclose(cat.predict_joint_log_proba([[np.nan, 1]])[0, 0], math.log(3 / 4) + math.log(3 / 4))


def test_a_category_never_seen_scores_as_the_smoothing_implies():
    """Code 5 of a feature trained with codes 0 and 1: alpha / (N_cf + alpha T_f), the share
    the smoothing gives a category with no documents (scikit-learn raises an IndexError)."""
    nb = CategoricalNB(alpha=0.5).fit([[0], [1], [1], [0]], ["a", "a", "a", "b"])
    unseen = nb.predict_joint_log_proba([[5]])[0]
    np.testing.assert_allclose(unseen, [math.log(3 / 4) + math.log(0.5 / (3 + 0.5 * 2)),
                                        math.log(1 / 4) + math.log(0.5 / (1 + 0.5 * 2))])


@pytest.mark.parametrize("model", [GaussianNB, CategoricalNB])
def test_nothing_to_learn_from_is_refused_and_a_later_empty_batch_adds_nothing(model):
    empty = rf"^Found array with 0 sample\(s\) and 1 feature\(s\) .* required by {model.__name__}$"
    with pytest.raises(ValueError, match=empty):
        model().fit(np.zeros((0, 1)), [])
    fitted = model().fit([[0.0], [1.0], [1.0]], ["a", "b", "b"])
    before = fitted.predict_log_proba([[0.0], [1.0]])
    np.testing.assert_array_equal(fitted.partial_fit(np.zeros((0, 1)), []).predict_log_proba([[0.0], [1.0]]), before)


def test_bad_columns_are_refused_with_what_to_do():
    with pytest.raises(ValueError, match=r"^CategoricalNB takes categories as codes 0, 1, 2, ..., but X holds 1.5: "
                                         "encode each column"):
        CategoricalNB().fit([[0], [1.5]], ["a", "b"])
    with pytest.raises(ValueError, match="^Negative values in data passed to CategoricalNB: categories are codes"):
        CategoricalNB().fit([[0], [-1]], ["a", "b"])
    with pytest.raises(TypeError, match="^Sparse data was passed to GaussianNB, but dense data is required"):
        GaussianNB().fit(sp.csr_matrix([[1.0], [2.0]]), ["a", "b"])
    with pytest.raises(ValueError, match="^Input X contains infinity; GaussianNB takes finite values"):
        GaussianNB().fit([[1.0], [np.inf]], ["a", "b"])
    with pytest.raises(ValueError, match=r"^priors must not be negative and must sum to 1, got \[0.5, 0.6\]"):
        GaussianNB(priors=[0.5, 0.6]).fit([[1.0], [2.0]], ["a", "b"])
    for smoothing in (-1e-9, "1e-9", None, float("nan")):
        with pytest.raises(ValueError, match="^var_smoothing must be a number not below 0, got"):
            GaussianNB(var_smoothing=smoothing).fit([[1.0], [2.0]], ["a", "b"])
    for alpha in ("0.1", True, None, [1.0]):
        with pytest.raises(ValueError, match="^alpha must be a number, got"):
            CategoricalNB(alpha=alpha).fit([[0], [1]], ["a", "b"])
    with pytest.raises(ValueError, match="^alpha must be finite and not negative"):
        CategoricalNB(alpha=-1).fit([[0], [1]], ["a", "b"])
    with pytest.raises(ValueError, match="^min_categories must be a number of categories"):
        CategoricalNB(min_categories=[2, 3]).fit([[0], [1]], ["a", "b"])

"""The maths three ways: a textbook example by hand, scikit-learn as oracle, and properties."""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import naive_bayes as skl
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

import sklearn.exceptions

from nbtext.errors import NotFittedError
from nbtext.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB

from .conftest import corpus_path

#: One list drives every parametrized test: (ours, scikit-learn's, extra parameters).
VARIANTS = [
    (MultinomialNB, skl.MultinomialNB, {}),
    (BernoulliNB, skl.BernoulliNB, {}),
    (ComplementNB, skl.ComplementNB, {}),
    (ComplementNB, skl.ComplementNB, {"norm": True}),
]
ALPHAS = [0.001, 0.1, 1.0, 2.5]
VARIANT_IDS = ["multinomial", "bernoulli", "complement", "complement-norm"]


def test_bernoulli_textbook_example():
    """Manning, Raghavan & Schuetze, IR book, example 13.2 (Bernoulli model), by hand."""
    # vocabulary: Chinese, Beijing, Shanghai, Macao, Tokyo, Japan
    X = [[2, 1, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 1, 1]]
    nb = BernoulliNB().fit(X, ["china", "china", "china", "japan"])
    p_china = np.exp(nb.feature_log_prob_[0])
    np.testing.assert_allclose(p_china, [4 / 5, 2 / 5, 2 / 5, 2 / 5, 1 / 5, 1 / 5])
    np.testing.assert_allclose(np.exp(nb.feature_log_prob_[1]), [2 / 3, 1 / 3, 1 / 3, 1 / 3, 2 / 3, 2 / 3])
    china = 3 / 4 * 4 / 5 * 1 / 5 * 1 / 5 * (1 - 2 / 5) ** 3  # the book's 0.005
    japan = 1 / 4 * 2 / 3 * 2 / 3 * 2 / 3 * (1 - 1 / 3) ** 3  # the book's 0.022
    d5 = [[3, 0, 0, 0, 1, 1]]
    assert math.isclose(nb.predict_proba(d5)[0, 0], china / (china + japan))
    assert nb.predict(d5).tolist() == ["japan"]


@pytest.mark.parametrize("alpha", [1e-300, 1e-20, 1.0])
def test_a_tiny_alpha_gives_the_textbook_scores_not_nan(alpha):
    """The IR book's example 13.2 again, by hand for any alpha. Chinese is in every china
    document, so 1 - P(Chinese|china) is alpha / (3 + 2 alpha): Bernoulli took it as
    1 - exp(log P), which is 0 for alpha 1e-20, and Complement NB lost alpha in a total of counts
    where a word is in one class only; log 0 made every score NaN. Scores now come from the
    counts themselves, as the formulas are written."""
    X = [[2, 1, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 1, 1]]
    labels = ["china", "china", "china", "japan"]
    d5 = [[3, 0, 0, 0, 1, 1]]  # present: Chinese, Tokyo, Japan; absent: Beijing, Shanghai, Macao
    a, log = alpha, math.log
    # Bernoulli: present words at (D_cw + a) / (D_c + 2a), absent ones at (D_c - D_cw + a) / (D_c + 2a)
    china = log(3 / 4) + log((3 + a) / (3 + 2 * a)) + 2 * log(a / (3 + 2 * a)) + 3 * log((2 + a) / (3 + 2 * a))
    japan = log(1 / 4) + 6 * log((1 + a) / (1 + 2 * a))
    # Complement: each word of d5 weighs -log P(w | the other class), (count + a) / (total + 6a)
    not_china, not_japan = 3 + 6 * a, 8 + 6 * a  # japan's 3 words; china's 8
    c_china = -5 * log((1 + a) / not_china)  # Chinese 3 times, Tokyo, Japan: each once in japan's
    c_japan = -3 * log((5 + a) / not_japan) - 2 * log(a / not_japan)  # Tokyo, Japan: in no china document
    for core, (first, second) in [(BernoulliNB, (china, japan)), (ComplementNB, (c_china, c_japan))]:
        nb = core(alpha=alpha).fit(X, labels)
        top = max(first, second)
        total = top + log(math.exp(first - top) + math.exp(second - top))
        np.testing.assert_allclose(nb.predict_log_proba(d5)[0], [first - total, second - total], rtol=1e-12)


def test_multinomial_textbook_contributions():
    """The same book's example 13.1 (multinomial model), by hand: what each word of d5 adds to
    china's score over japan's is its count times log P(w|china) / P(w|japan)."""
    X = [[2, 1, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 1, 1]]
    nb = MultinomialNB().fit(X, ["china", "china", "china", "japan"])
    d5 = [[3, 0, 0, 0, 1, 1]]  # Chinese Chinese Chinese Tokyo Japan
    # P(Chinese|china) = 6/14, P(Tokyo|china) = P(Japan|china) = 1/14; each 2/9 given japan
    by_hand = [3 * math.log((6 / 14) / (2 / 9)), math.log((1 / 14) / (2 / 9)), math.log((1 / 14) / (2 / 9))]
    china_over_japan = nb.contributions(d5, [0], [1])
    assert china_over_japan.indices.tolist() == [0, 4, 5]
    np.testing.assert_allclose(china_over_japan.data, by_hand)
    # with the priors' log-odds, log(3/4) - log(1/4), they are the log-odds of the answer
    log_odds = math.log(3) + sum(by_hand)
    assert math.isclose(log_odds, math.log(nb.predict_proba(d5)[0, 0] / nb.predict_proba(d5)[0, 1]))
    assert nb.predict(d5).tolist() == ["china"]  # the book's 0.0003 against 0.0001


@pytest.fixture(scope="module")
def sms_counts():
    """Counts and labels of the real SMS spam corpus (first 30% train, the rest test)."""
    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes().decode("utf-8", "replace").splitlines()
    labels, texts = zip(*(line.split("\t", 1) for line in lines))
    cut = int(len(texts) * 0.3)
    vectorizer = CountVectorizer().fit(texts[:cut])
    return vectorizer.transform(texts[:cut]), np.array(labels[:cut]), vectorizer.transform(texts[cut:])


@pytest.mark.parametrize("fit_prior", [True, False])
@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("ours, theirs, extra", VARIANTS, ids=VARIANT_IDS)
def test_matches_scikit_learn_on_real_corpus(sms_counts, ours, theirs, extra, alpha, fit_prior):
    X_train, y_train, X_test = sms_counts
    mine = ours(alpha=alpha, fit_prior=fit_prior, **extra).fit(X_train, y_train)
    oracle = theirs(alpha=alpha, fit_prior=fit_prior, **extra).fit(X_train, y_train)
    np.testing.assert_allclose(mine.predict_log_proba(X_test), oracle.predict_log_proba(X_test), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(mine.predict(X_test), oracle.predict(X_test))
    np.testing.assert_array_equal(mine.feature_count_, oracle.feature_count_)


def matrices_of(fewest_features: int):
    return st.integers(2, 12).flatmap(
        lambda n_rows: st.tuples(
            arrays(np.int64, st.tuples(st.just(n_rows), st.integers(fewest_features, 8)), elements=st.integers(0, 6)),
            st.lists(st.sampled_from(["a", "b", "c"]), min_size=n_rows, max_size=n_rows)
            .filter(lambda y: len(set(y)) > 1),
        )
    )


#: Two features or more: with one, scikit-learn's Complement NB with norm answers NaN (0 / 0).
count_matrices = matrices_of(2)


@settings(max_examples=60, deadline=None)
@given(data=count_matrices, alpha=st.sampled_from(ALPHAS), fit_prior=st.booleans(),
       variant=st.sampled_from(range(len(VARIANTS))))
def test_matches_scikit_learn_on_generated_counts(data, alpha, fit_prior, variant):
    X, y = data
    ours, theirs, extra = VARIANTS[variant]
    mine = ours(alpha=alpha, fit_prior=fit_prior, **extra).fit(sp.csr_matrix(X), y)
    oracle = theirs(alpha=alpha, fit_prior=fit_prior, **extra).fit(X, y)
    np.testing.assert_allclose(mine.predict_log_proba(X), oracle.predict_log_proba(X), rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(data=count_matrices, variant=st.sampled_from(range(len(VARIANTS))), split=st.integers(1, 11))
def test_partial_fit_in_parts_equals_fit(data, variant, split):
    X, y = data
    ours, _, extra = VARIANTS[variant]
    split = min(split, len(y) - 1)
    whole = ours(**extra).fit(X, y)
    parts = ours(**extra).partial_fit(X[:split], y[:split], classes=sorted(set(y)))
    parts.partial_fit(X[split:], y[split:])
    np.testing.assert_array_equal(parts.feature_count_, whole.feature_count_)
    np.testing.assert_allclose(parts.predict_log_proba(X), whole.predict_log_proba(X), rtol=0, atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(data=matrices_of(1), variant=st.sampled_from(range(len(VARIANTS))),
       alpha=st.one_of(st.just(1.0), st.floats(-300, 3).map(lambda exponent: 10.0 ** exponent)))
def test_probabilities_sum_to_one(data, variant, alpha):
    """At any alpha from 1e-300 to 1000 (a small one made NaN where a word is in every
    document of a class, or in one class only)."""
    X, y = data
    ours, _, extra = VARIANTS[variant]
    proba = ours(alpha=alpha, **extra).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert (proba >= 0).all()


@pytest.mark.parametrize("ours, theirs, extra", VARIANTS, ids=VARIANT_IDS)
def test_contributions_add_up_to_scikit_learns_log_odds_on_a_real_corpus(sms_counts, ours, theirs, extra):
    """Each test message's contributions, summed, are the oracle's log-odds of ham against
    spam less those of a message with no words (the priors, and Bernoulli NB's absent words)."""
    X, y, X_test = sms_counts
    mine = ours(**extra).fit(X, y)
    oracle = theirs(**extra).fit(X, y)
    n = X_test.shape[0]
    ham_over_spam = mine.contributions(X_test, np.zeros(n), np.ones(n))
    summed = np.add.reduceat(np.append(ham_over_spam.data, 0), ham_over_spam.indptr[:-1])
    summed[np.diff(ham_over_spam.indptr) == 0] = 0
    jll, empty = oracle.predict_joint_log_proba(X_test), oracle.predict_joint_log_proba(np.zeros((1, X.shape[1])))
    np.testing.assert_allclose(summed, (jll[:, 0] - jll[:, 1]) - (empty[0, 0] - empty[0, 1]), rtol=0, atol=1e-9)
    assert list(mine.classes_) == ["ham", "spam"]


@settings(max_examples=60, deadline=None)
@given(data=count_matrices, variant=st.sampled_from(range(len(VARIANTS))), seed=st.integers(0, 2**32 - 1))
def test_contributions_and_bias_are_the_log_odds(data, variant, seed):
    """For any classes weighed towards and against, a document's contributions and the two
    biases give the log-odds of its answer; swapped, they change sign; a class against itself
    gains nothing."""
    X, y = data
    ours, _, extra = VARIANTS[variant]
    core = ours(**extra).fit(X, y)
    rng = np.random.default_rng(seed)
    towards, against = rng.integers(0, len(core.classes_), size=(2, len(X)))
    weighed = core.contributions(X, towards, against)
    summed = np.array([weighed.data[a:b].sum() for a, b in zip(weighed.indptr, weighed.indptr[1:])])
    log_proba, bias = core.predict_log_proba(X), core._jll_bias()
    rows = np.arange(len(X))
    expected = log_proba[rows, towards] - log_proba[rows, against] - (bias[towards] - bias[against])
    np.testing.assert_allclose(summed, expected, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(core.contributions(X, against, towards).data, -weighed.data)
    assert not core.contributions(X, towards, towards).data.any()


@pytest.mark.parametrize("ours, theirs, extra", VARIANTS, ids=VARIANT_IDS)
def test_sample_weight_matches_scikit_learn(sms_counts, ours, theirs, extra):
    X, y, X_test = sms_counts
    weights = np.random.default_rng(0).uniform(0.1, 3.0, size=len(y))
    mine = ours(**extra).fit(X, y, sample_weight=weights)
    oracle = theirs(**extra).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(mine.predict_log_proba(X_test), oracle.predict_log_proba(X_test), rtol=0, atol=1e-9)


def test_class_prior_is_used():
    X, y = [[1, 0], [0, 1]], ["a", "b"]
    mine = MultinomialNB(class_prior=[0.9, 0.1]).fit(X, y)
    oracle = skl.MultinomialNB(class_prior=[0.9, 0.1]).fit(X, y)
    np.testing.assert_allclose(mine.predict_log_proba(X), oracle.predict_log_proba(X), atol=1e-12)


@pytest.mark.parametrize("variant, expected", [(MultinomialNB, [1 / 3, 2 / 3]), (BernoulliNB, [1 / 3, 2 / 3]),
                                               (ComplementNB, [1 / 2, 1 / 2])])
def test_a_core_without_features_answers_its_priors_quietly(variant, expected):
    """A search's fold can prune every term away: its core, given the fold's sums, then answers
    every document with the class priors (Complement NB with even odds), and warns of nothing
    (warnings fail tests). ``fit`` on documents without features is refused, as scikit-learn
    refuses it."""
    core = variant().fit_counts(np.zeros((2, 0)), [1, 2], classes=["a", "b"])
    np.testing.assert_allclose(core.predict_proba(np.zeros((2, 0))), [expected] * 2)
    with pytest.raises(ValueError, match=r"^Found array with 0 feature\(s\) \(shape=\(3, 0\)\) while a minimum of 1"):
        variant().fit(np.zeros((3, 0)), ["a", "b", "b"])


@pytest.mark.parametrize("ours, theirs, extra", VARIANTS, ids=VARIANT_IDS)
def test_a_core_with_one_feature_answers_numbers(ours, theirs, extra):
    """One term left after pruning (min_df 2 over a few short texts): Complement NB's weight
    normalisation divided its one weight, log 1 = 0, by their sum, 0, and every document that
    had the word was answered NaN. The weight stays 0, as without normalisation."""
    X, y = np.array([[2], [1], [1], [0]]), ["a", "b", "b", "a"]
    core = ours(**extra).fit(X, y)
    proba = core.predict_proba(np.array([[3], [0]]))
    without_norm = ours(**{k: v for k, v in extra.items() if k != "norm"}).fit(X, y).predict_proba(np.array([[3], [0]]))
    np.testing.assert_allclose(proba, without_norm, rtol=0, atol=1e-12)
    if ours is BernoulliNB:  # the word's presence speaks: it is in both of b's documents, one of a's
        assert proba[0, 1] > proba[1, 1] and np.isfinite(proba).all()
    else:  # a multinomial's one word has probability 1 in every class: only the priors speak
        np.testing.assert_allclose(proba, [[0.5, 0.5]] * 2)


def test_works_in_pipeline_with_clone_and_grid_search():
    texts = ["cheap pills", "cheap offer now", "meeting at noon", "lunch meeting", "offer pills", "noon lunch"] * 3
    labels = ["spam", "spam", "ham", "ham", "spam", "ham"] * 3
    pipeline = make_pipeline(CountVectorizer(), MultinomialNB())
    search = GridSearchCV(pipeline, {"multinomialnb__alpha": [0.1, 1.0]}, cv=3).fit(texts, labels)
    assert search.best_score_ == 1.0
    assert search.predict(["cheap lunch offer"]).tolist() == ["spam"]
    copy = clone(ComplementNB(alpha=0.5, norm=True))
    assert copy.get_params() == {"alpha": 0.5, "class_prior": None, "fit_prior": True, "force_alpha": True,
                                 "norm": True}
    assert repr(copy) == "ComplementNB(alpha=0.5, norm=True)"


@pytest.mark.parametrize("ours, theirs, extra", VARIANTS, ids=VARIANT_IDS)
def test_counts_that_are_not_finite_are_refused(ours, theirs, extra):
    """A NaN or an infinity among the counts trained a model whose every score was NaN (and
    Complement NB warned of invalid values); scikit-learn refuses them, and so do we."""
    variant = functools.partial(ours, **extra)
    name = ours.__name__
    fitted = variant().fit([[1, 0], [0, 1]], ["a", "b"])
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match=f"^X holds NaN or infinity; {name} needs counts$"):
            variant().fit(np.array([[bad, 1], [1, 0]]), ["a", "b"])
        with pytest.raises(ValueError, match="Input X contains"):  # the oracle agrees
            theirs(**extra).fit(np.array([[bad, 1], [1, 0]]), ["a", "b"])
        with pytest.raises(ValueError, match="X holds NaN or infinity"):
            fitted.predict(sp.csr_matrix(np.array([[bad, 1]])))
        with pytest.raises(ValueError, match="^sample_weight must be finite and not negative$"):
            variant().fit([[1, 0], [0, 1]], ["a", "b"], sample_weight=[1, bad])
    with pytest.raises(ValueError, match="sample_weight must be finite"):
        variant().fit([[1, 0], [0, 1]], ["a", "b"], sample_weight=[1, -1])


def test_errors_say_what_is_wrong():
    with pytest.raises(NotFittedError, match="not fitted yet; call fit first"):
        MultinomialNB().predict([[1, 2]])
    with pytest.raises(ValueError, match="^Negative values in data passed to MultinomialNB, which needs counts"):
        MultinomialNB().fit([[1, -1], [0, 1]], ["a", "b"])
    with pytest.raises(TypeError, match="not one string"):
        MultinomialNB().fit([[1], [2]], "ab")
    with pytest.raises(ValueError, match="X has 3 features, but MultinomialNB is expecting 2 features as input"):
        MultinomialNB().fit([[1, 0], [0, 1]], ["a", "b"]).predict([[1, 2, 3]])
    with pytest.raises(ValueError, match="need one class to weigh towards and one against for each of the 2 rows"):
        MultinomialNB().fit([[1, 0], [0, 1]], ["a", "b"]).contributions([[1, 0], [0, 1]], [0], [1])
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        MultinomialNB().partial_fit([[1, 0]], ["a"])
    with pytest.raises(ValueError, match=r"labels \['z'\] are not in classes"):
        MultinomialNB().partial_fit([[1, 0]], ["a"], classes=["a", "b"]).partial_fit([[1, 0]], ["z"])
    for alpha in (-1, np.nan, np.inf, [0.1, -0.2]):  # nan passed, giving nan probabilities
        with pytest.raises(ValueError, match="alpha must be finite and not negative"):
            MultinomialNB(alpha=alpha).fit([[1, 0], [0, 1]], ["a", "b"])
    for alpha in ("0.1", None, True, [[0.1, 0.2]]):
        with pytest.raises(ValueError, match="^alpha must be a number, or one number per feature, got"):
            MultinomialNB(alpha=alpha).fit([[1, 0], [0, 1]], ["a", "b"])
    with pytest.raises(ValueError, match="^alpha has 3 values, but MultinomialNB has 2 features"):
        MultinomialNB(alpha=[1, 2, 3]).fit([[1, 0], [0, 1]], ["a", "b"])
    with pytest.raises(ValueError, match="^Unknown label type: continuous. MultinomialNB learns classes, and 0.5 is"):
        MultinomialNB().fit([[1, 0], [0, 1]], [0.5, 1.0])
    with pytest.raises(ValueError, match="^MultinomialNB requires y to be passed, but the target y is None"):
        MultinomialNB().fit([[1, 0], [0, 1]], None)
    with pytest.raises(ValueError, match="Reshape your data: X.reshape"):
        MultinomialNB().fit([[1, 0], [0, 1]], ["a", "b"]).predict([1, 0])
    with pytest.raises(ValueError, match=r"^BernoulliNB\(binarize=None\) takes presence, 0 or 1, but X holds 2: give"):
        BernoulliNB(binarize=None).fit([[1, 2], [0, 1]], ["a", "b"])
    with pytest.raises(ValueError, match="^Negative values in data passed to BernoulliNB"):
        BernoulliNB(binarize=None).fit([[1, -1], [0, 1]], ["a", "b"])
    np.testing.assert_array_equal(BernoulliNB().fit([[1, -1], [0, 1]], ["a", "b"]).feature_count_, [[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="^Complex data not supported"):
        MultinomialNB().fit(np.array([[1 + 1j, 0], [0, 1]]), ["a", "b"])


@pytest.mark.parametrize("ours, theirs, extra", VARIANTS, ids=VARIANT_IDS)
def test_nothing_to_learn_from_is_refused_and_a_later_empty_batch_adds_nothing(ours, theirs, extra):
    """fit on no documents failed inside numpy ("zero-size array to reduction operation", or an
    IndexError for Complement NB), and a first partial_fit on none, or on documents all of
    weight 0, learned NaN priors with a RuntimeWarning. scikit-learn refuses them; so do we.
    A refused first call leaves the model unfitted (a label outside ``classes`` left it half
    made, its next call no longer the first), and an empty batch later, as a stream can give,
    changes nothing."""
    variant = functools.partial(ours, **extra)
    name = ours.__name__
    empty = np.zeros((0, 2))
    with pytest.raises(ValueError, match=f"^{name} needs at least one document to learn from; X has none$"):
        variant().fit(empty, [])
    with pytest.raises(ValueError, match="minimum of 1 is required"):  # the oracle agrees
        theirs(**extra).fit(empty, [])
    with pytest.raises(ValueError, match=f"^{name} needs at least one document to learn from; X has none$"):
        variant().partial_fit(empty, [], classes=["a", "b"])
    with pytest.raises(ValueError, match=f"^{name} needs at least one document to learn from; sample weights are all "
                                         "zero for the 2 rows of X$"):
        variant().fit([[1, 0], [0, 1]], ["a", "b"], sample_weight=[0, 0])
    refused = variant()
    with pytest.raises(ValueError, match=r"^labels \['z'\] are not in classes \['a', 'b'\]$"):
        refused.partial_fit([[1, 0], [0, 1]], ["a", "z"], classes=["a", "b"])
    with pytest.raises(NotFittedError):
        refused.predict([[1, 0]])
    fitted = refused.partial_fit([[1, 0], [0, 1]], ["a", "b"], classes=["a", "b"])
    before = fitted.predict_proba([[1, 0], [0, 3]])
    assert before[0, 0] > 0.5 > before[1, 0]
    np.testing.assert_array_equal(fitted.partial_fit(empty, []).predict_proba([[1, 0], [0, 3]]), before)


@pytest.mark.parametrize("ours, theirs, extra", VARIANTS, ids=VARIANT_IDS)
def test_the_api_of_scikit_learn_is_scikit_learns(sms_counts, ours, theirs, extra):
    """What a scikit-learn user calls, with scikit-learn as the oracle on the SMS corpus: the
    same parameters, joint log-likelihoods, force_alpha, partial_fit's rules on classes, and the
    exception types they catch."""
    X_train, y_train, X_test = sms_counts
    assert sorted(ours(**extra).get_params()) == sorted(theirs(**extra).get_params())
    mine, oracle = ours(alpha=0.3, **extra).fit(X_train, y_train), theirs(alpha=0.3, **extra).fit(X_train, y_train)
    np.testing.assert_allclose(mine.predict_joint_log_proba(X_test), oracle.predict_joint_log_proba(X_test),
                               rtol=1e-12, atol=1e-9)
    # alpha below 1e-10 is raised to it, with a warning, unless force_alpha (then taken as given)
    for force in (False, True):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            mine = ours(alpha=1e-14, force_alpha=force, **extra).fit(X_train, y_train)
            oracle = theirs(alpha=1e-14, force_alpha=force, **extra).fit(X_train, y_train)
        said = [str(w.message).split(",")[0].split(".")[0] for w in seen]
        assert said == ([] if force else ["alpha too small will result in numeric errors"] * 2)
        as_given = ours(alpha=1e-14 if force else 1e-10, **extra).fit(X_train, y_train)
        np.testing.assert_array_equal(mine.predict_log_proba(X_test), as_given.predict_log_proba(X_test))
        # scikit-learn's Complement NB adds alpha to a total of counts, where 1e-14 is lost (the
        # textbook test above has nbtext's exact); the others agree to the last digits
        if ours is not ComplementNB:
            np.testing.assert_allclose(mine.predict_log_proba(X_test), oracle.predict_log_proba(X_test), atol=1e-9)
    # partial_fit: classes on the first call, the same ones if given later; batches add up to fit
    halves = np.array_split(np.arange(X_train.shape[0]), 3)
    classes = np.unique(y_train)
    for model in (ours(**extra), theirs(**extra)):
        with pytest.raises(ValueError, match="classes must be passed on the first call to partial_fit"):
            model.partial_fit(X_train[halves[0]], y_train[halves[0]])
        for rows in halves:
            model.partial_fit(X_train[rows], y_train[rows], classes=classes)
        with pytest.raises(ValueError, match="is not the same as"):
            model.partial_fit(X_train[halves[0]], y_train[halves[0]], classes=["ham", "spam", "eggs"])
    mine, oracle = (model.partial_fit(X_train[halves[0]], y_train[halves[0]]) for model in (
        ours(**extra).partial_fit(X_train, y_train, classes=classes),
        theirs(**extra).partial_fit(X_train, y_train, classes=classes)))
    np.testing.assert_allclose(mine.predict_log_proba(X_test), oracle.predict_log_proba(X_test), rtol=0, atol=1e-9)
    # the exceptions scikit-learn users catch
    for model in (ours(**extra), theirs(**extra)):
        with pytest.raises(sklearn.exceptions.NotFittedError):
            model.predict(X_test)
        with pytest.raises(ValueError, match="Unknown label type"):
            model.fit(X_train[:3], [0.5, 1.5, 2.5])


@pytest.mark.parametrize("ours, theirs, extra", [v for v in VARIANTS if v[0] is not BernoulliNB],
                         ids=[i for i, v in zip(VARIANT_IDS, VARIANTS) if v[0] is not BernoulliNB])
def test_one_alpha_per_feature_is_scikit_learns(sms_counts, ours, theirs, extra):
    """alpha as a vector, one per word: scikit-learn as the oracle, to 1e-9 (its BernoulliNB
    adds the vector to the class counts, which fails unless there are as many classes as
    features: Bernoulli's is checked by hand below)."""
    X_train, y_train, X_test = sms_counts
    alpha = np.random.default_rng(7).uniform(0.01, 2.0, X_train.shape[1])
    mine, oracle = ours(alpha=alpha, **extra).fit(X_train, y_train), theirs(alpha=alpha, **extra).fit(X_train, y_train)
    np.testing.assert_allclose(mine.feature_log_prob_, oracle.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(mine.predict_log_proba(X_test), oracle.predict_log_proba(X_test), rtol=0, atol=1e-9)
    one_by_one = [mine.predict_log_proba(X_test[i]) for i in range(50)]  # a row's weights, as a batch's
    np.testing.assert_array_equal(np.vstack(one_by_one), mine.predict_log_proba(X_test[:50]))


def test_bernoulli_with_one_alpha_per_feature_by_hand():
    """The IR book's example 13.2, with each word its own alpha: P(w|c) = (D_cw + a_w) / (D_c + 2 a_w)."""
    X = [[2, 1, 0, 0, 0, 0], [2, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 1, 1]]
    a = np.array([0.5, 1.0, 2.0, 0.1, 1.5, 3.0])
    nb = BernoulliNB(alpha=a).fit(X, ["china", "china", "china", "japan"])
    docs_with = np.array([[3, 1, 1, 1, 0, 0], [1, 0, 0, 0, 1, 1]])
    p = (docs_with + a) / (np.array([[3], [1]]) + 2 * a)
    np.testing.assert_allclose(np.exp(nb.feature_log_prob_), p)
    d5 = np.array([1, 0, 0, 0, 1, 1])  # Chinese, Tokyo, Japan present
    joint = np.log([3 / 4, 1 / 4]) + np.log(np.where(d5, p, 1 - p)).sum(axis=1)
    np.testing.assert_allclose(nb.predict_joint_log_proba([[3, 0, 0, 0, 1, 1]])[0], joint)


def test_a_table_keeps_its_column_names_as_scikit_learn_does(sms_counts):
    """fit on a pandas DataFrame keeps its column names in feature_names_in_; a table whose
    columns differ is refused with scikit-learn's words, where its numbers would be read as
    other words' counts."""
    pd = pytest.importorskip("pandas", reason="pandas shows what a table of named columns does")
    X_train, y_train, _ = sms_counts
    words = [f"w{i}" for i in range(40)]
    table = pd.DataFrame(X_train[:, :40].toarray(), columns=words)
    mine, oracle = MultinomialNB().fit(table, y_train), skl.MultinomialNB().fit(table, y_train)
    assert mine.feature_names_in_.tolist() == oracle.feature_names_in_.tolist() == words
    assert mine.feature_names_in_.dtype == object
    np.testing.assert_allclose(mine.predict_log_proba(table), oracle.predict_log_proba(table), rtol=0, atol=1e-9)
    for model in (mine, oracle):
        with pytest.raises(ValueError, match="^The feature names should match those that were passed during fit.\n"
                                             "Feature names must be in the same order"):
            model.predict(table[words[::-1]])
        with pytest.warns(UserWarning, match="X does not have valid feature names"):
            model.predict(table.to_numpy())
    assert not hasattr(MultinomialNB().fit(table, y_train).fit(table.to_numpy(), y_train), "feature_names_in_")

"""scikit-learn's own estimator checks, over every nbtext estimator.

``parametrize_with_checks`` makes one test of each check scikit-learn has for a classifier, so
a check a new scikit-learn release adds shows up here as a failing test. Checks scikit-learn
itself skips say why in its own words: ``check_array_api_input`` needs ``SCIPY_ARRAY_API=1``
and array-api-strict (nbtext's cores are numpy's, and do not claim the array API).
``BernoulliNB(binarize=None)`` is not among them: the checks feed any numbers not below zero,
and it takes presence only, 0 or 1, refusing the rest (tests/test_naive_bayes.py). Two checks
are expected to fail for ``CategoricalNB`` (``EXPECTED_TO_FAIL``): they feed fractions as
category codes, which scikit-learn's CategoricalNB truncates to other categories and nbtext's
refuses (tests/test_column_nb.py).
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
import sklearn
from sklearn.utils.estimator_checks import parametrize_with_checks

from nbtext.column_nb import CategoricalNB, GaussianNB
from nbtext.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB

SKLEARN = tuple(int(part) for part in sklearn.__version__.split(".")[:2])
ESTIMATORS = [
    MultinomialNB(),
    BernoulliNB(),
    ComplementNB(),
    ComplementNB(norm=True),
    GaussianNB(),
    CategoricalNB(),
]
#: (estimator class, check): why the check fails by design.
EXPECTED_TO_FAIL = {
    ("CategoricalNB", "check_sample_weight_equivalence_on_dense_data"):
        "feeds fractions as category codes: nbtext refuses them",
    ("CategoricalNB", "check_classifiers_one_label_sample_weights"):
        "feeds fractions as category codes: nbtext refuses them, naming no class",
}
if SKLEARN < (1, 6):  # later releases first make the data what the tags ask: codes, for a categorical one
    EXPECTED_TO_FAIL[("CategoricalNB", "check_classifiers_one_label")] = (
        "feeds fractions as category codes: nbtext refuses them, naming no class")


# nbtext's estimators do not inherit scikit-learn's BaseEstimator: importing scikit-learn costs a
# fresh `nbtext predict` half a second. scikit-learn warns of it, as it lists the checks and as it
# runs them; the checks themselves are what say whether the estimator keeps its conventions.
NOT_INHERITED = "Estimator .* does not inherit from `sklearn.base.BaseEstimator`"
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", NOT_INHERITED)
    checks = parametrize_with_checks(ESTIMATORS)
    # scikit-learn before 1.6 hands pytest a generator of checks, which pytest 9 warns of: a list
    cases = [pytest.param(estimator, check, marks=pytest.mark.xfail(reason=reason, strict=True)) if (
        reason := EXPECTED_TO_FAIL.get((type(estimator).__name__, getattr(check, "func", check).__name__))) else
        (estimator, check) for estimator, check in checks.args[1]]
    each_check = pytest.mark.parametrize(checks.args[0], cases, **checks.kwargs)


@pytest.mark.filterwarnings(f"ignore:{NOT_INHERITED}")
@each_check
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_fitting_and_predicting_import_no_scikit_learn():
    """The compatibility is in the classes: a fresh process that fits and predicts (the way
    `nbtext predict` scores) never imports scikit-learn, whose import takes half a second."""
    code = ("import sys; from nbtext.naive_bayes import MultinomialNB, BernoulliNB, ComplementNB\n"
            "from nbtext.column_nb import GaussianNB, CategoricalNB\n"
            "for core in (MultinomialNB(), BernoulliNB(), ComplementNB(norm=True), GaussianNB(), CategoricalNB()):\n"
            "    core.fit([[1, 0], [0, 2]], ['a', 'b']).partial_fit([[1, 1]], ['a'])\n"
            "    core.predict_proba([[1, 0]]); core.predict_joint_log_proba([[0, 1]])\n"
            "print(sorted(name for name in sys.modules if name.split('.')[0] in ('sklearn', 'scipy')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"

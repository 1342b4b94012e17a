"""The search's cross-validation: each fold scores what training on the other folds gives, counted
as training counts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from nbtext.analysis import Analyzer
from nbtext.folds import counts_by_fold, stratified_folds
from nbtext.metrics import evaluate
from nbtext.readers import LabelledCorpus
from nbtext.terms import count_features
from nbtext.tuning import Trial, cross_validate, expand, rank, train_setting

from .conftest import assert_same_counts, assert_same_matrix, corpus_path


@pytest.fixture(scope="module")
def sms_documents():
    return list(LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")]))


@pytest.mark.parametrize("grid", [
    # counted from the text by the word table: the default grid's transforms, and other tokens
    {"variant": ["complement", "multinomial"], "alpha": [0.1], "ngram_range": [(1, 2)], "tf": ["log"],
     "doc_norm": ["l2"], "idf": [True], "min_df": [2]},
    {"variant": ["bernoulli"], "alpha": [0.3], "tokens": ["joined"], "ngram_range": [(1, 1)], "tf": ["raw"]},
    # analyzed into strings first: n-grams the word table does not make, and character n-grams
    {"variant": ["complement"], "alpha": [0.3], "ngram_range": [(1, 3)], "tf": ["binary"]},
    {"variant": ["multinomial"], "alpha": [1.0], "analyzer": ["char_wb"], "ngram_range": [(2, 4)], "tf": ["raw"]},
    # every weighting summed in one pass over the documents, from the text and from strings
    {"variant": ["complement"], "alpha": [0.3], "ngram_range": [(1, 2)], "tf": ["raw", "binary", "log"],
     "doc_norm": [None, "l2"]},
    {"variant": ["multinomial"], "alpha": [0.1], "ngram_range": [(1, 3)], "tf": ["binary", "log"],
     "doc_norm": [None, "l2"], "idf": [True]},
])
def test_each_fold_scores_the_model_trained_on_the_other_folds(sms_documents, grid):
    """On SMS spam, every fold's figures of a search equal training that setting on the other
    folds (as `nbtext train` does) and scoring the fold with the model, count for count."""
    labels = [doc.label for doc in sms_documents]
    base = Analyzer(tokens="words")
    trials = cross_validate(sms_documents, expand(grid), k=3, seed=1, base_analyzer=base)
    folds = stratified_folds(labels, 3, 1)
    for trial in trials:
        for f, report in enumerate(trial.reports):
            held = np.flatnonzero(folds == f)
            model = train_setting([sms_documents[i] for i in np.flatnonzero(folds != f)], trial.settings,
                                  base_analyzer=base)
            log_proba = model.predict_log_proba([sms_documents[i].text for i in held])
            expected = evaluate([labels[i] for i in held], log_proba, model.classes)
            assert report["confusion_matrix"] == expected["confusion_matrix"], (trial.settings, f)
            assert report["log_loss"] == pytest.approx(expected["log_loss"], rel=1e-9), (trial.settings, f)


@pytest.mark.parametrize("analyzer", [Analyzer(ngram_range=(1, 2)), Analyzer(tokens="joined", ngram_range=(1, 2)),
                                      Analyzer(tokens="all-words", stop_words="english")])
def test_folds_counted_from_the_text_equal_the_analyzed_features(sms_documents, analyzer):
    """The search counts the folds straight from the text where the word table covers the
    analyzer; the counts, and each held-out fold's counts over its training terms, are the
    analyzed features' bit for bit, so the search picks what it picked before (README's tables)."""
    texts, labels = [doc.text for doc in sms_documents], [doc.label for doc in sms_documents]
    features = [analyzer(text) for text in texts]
    folds = stratified_folds(labels, 3, 0)
    from_text = counts_by_fold(texts, labels, folds, tf="log", doc_norm="l2", analyzer=analyzer)
    from_features = counts_by_fold(features, labels, folds, tf="log", doc_norm="l2")
    for f in range(3):
        trained = from_text.without(f)
        assert_same_counts(trained.to_dict(), from_features.without(f).to_dict())
        held = np.flatnonzero(folds == f)
        expected = count_features([features[i] for i in held], dict(zip(trained.terms, itertools.count())))
        assert_same_matrix(from_text.held_out(f), expected)
        assert_same_matrix(from_features.held_out(f), expected)
        assert from_text.held_out(f).data.dtype == np.float64  # as the transforms and scoring take them


def test_weightings_summed_in_one_pass_equal_each_counted_alone(sms_documents):
    """A search counts an analyzer's documents once, with the sums of every weighting its
    settings use; each must be the sums counting with that weighting alone gives, bit for bit
    (the search then picks what it picked when it counted each weighting apart)."""
    texts, labels = [doc.text for doc in sms_documents], [doc.label for doc in sms_documents]
    analyzer = Analyzer(ngram_range=(1, 2))
    folds = stratified_folds(labels, 3, 0)
    weightings = [("binary", None), ("log", None), ("binary", "l2"), ("log", "l2"), ("raw", "l2")]
    (tf, doc_norm), *also = weightings
    together = counts_by_fold(texts, labels, folds, tf=tf, doc_norm=doc_norm, analyzer=analyzer, also=also)
    for tf, doc_norm in weightings:
        alone = counts_by_fold(texts, labels, folds, tf=tf, doc_norm=doc_norm, analyzer=analyzer)
        # no other weighting's sums
        assert set(together.joint.weighed_as(tf, doc_norm).values) == set(alone.joint.values)
        for f in (0, 2, -1):  # regrouped with every weighting's sums, then one taken, as the search does
            assert_same_counts(together.without(f).weighed_as(tf, doc_norm).to_dict(), alone.without(f).to_dict())
    with pytest.raises(ValueError, match="not weighed with tf=log, doc_norm=None"):
        alone.joint.weighed_as("log", None)


def test_settings_as_good_as_each_other_rank_by_spread_not_by_rounding():
    """Two settings of the default grid in an inner search on enron6 (folds of 1,600 messages):
    1,586, 1,583 and 1,588 right, and 1,586, 1,584 and 1,587. Their mean accuracies are equal,
    but the floats average one unit in the last place apart, which ranked the wider first."""
    wide = Trial({"alpha": 0.03}, reports=[{"accuracy": n / 1600} for n in (1586, 1583, 1588)])
    steady = Trial({"alpha": 0.3}, reports=[{"accuracy": n / 1600} for n in (1586, 1584, 1587)])
    assert wide.mean > steady.mean and wide.std > steady.std
    assert [t.settings["alpha"] for t in rank([wide, steady])] == [0.3, 0.03]
    # Equal in both, they keep the grid's order; a better mean still comes first.
    twin = Trial({"alpha": 1.0}, reports=[{"accuracy": n / 1600} for n in (1587, 1586, 1584)])
    better = Trial({"alpha": 0.1}, reports=[{"accuracy": n / 1600} for n in (1586, 1583, 1589)])
    assert [t.settings["alpha"] for t in rank([wide, twin, steady, better])] == [0.1, 1.0, 0.3, 0.03]


def test_folds_of_ones_own_score_as_a_model_trained_on_the_others(sms_documents):
    """Folds given as each document's fold: the stratified ones give the same figures as k and
    seed do, and a training and a test part answer each test message as the model trained on
    the training part does (benchmarks/selection.py replays the search's choice so)."""
    documents = sms_documents[:2000]
    labels = [doc.label for doc in documents]
    grid = [{"variant": "complement", "alpha": 0.3}, {"variant": "multinomial", "alpha": 0.1, "tf": "binary"}]
    given = cross_validate(documents, grid, folds=stratified_folds(labels, 3, 0))
    assert [t.reports for t in given] == [t.reports for t in cross_validate(documents, grid, k=3, seed=0)]
    parts = np.array([1] * 1500 + [0] * 500)  # the last 500 messages are the test part
    trials = cross_validate(documents, grid, folds=parts)
    test = [doc.text for doc in documents[1500:]]
    for trial, setting in zip(trials, grid):
        predicted = train_setting(documents[:1500], setting).predict(test)
        assert trial.right[1500:].tolist() == [p == label for p, label in zip(predicted, labels[1500:])]
        assert trial.right[1500:].sum() > 480  # a real model, not every answer the same
    for bad in (parts[:-1], np.zeros(2000, dtype=int), np.where(parts == 1, 2, 0)):
        with pytest.raises(ValueError, match="none of them empty"):
            cross_validate(documents, grid, folds=bad)


def test_held_out_counts_too_large_for_float32_stay_exact():
    """Each document's counts are kept in 32 bits where that is exact; a word counted 2**24 + 1
    times in one document (float32 would make it 2**24) is held as it was counted."""
    features = [["w"] * (2**24 + 1) + ["x"], ["w", "y"], ["x"], ["y", "y"]]
    by_fold = counts_by_fold(features, ["a", "a", "b", "b"], np.array([0, 1, 0, 1]), tf="raw", doc_norm=None)
    held = by_fold.held_out(0)  # documents 0 and 2, over fold 1's terms w and y: x is unknown there
    assert by_fold.without(0).terms == ["w", "y"]
    assert held.to_scipy().toarray().tolist() == [[2**24 + 1, 0], [0, 0]]


def test_what_a_setting_leaves_out_is_what_train_gives(sms_documents):
    """A setting names only what it changes, as `tune --grid '{"alpha": [0.1, 1]}'` does; the
    rest is nbtext's defaults, as `nbtext train` gives them. They were the plainest model (raw
    counts of single words), a point below train's model on rt-polarity. Character n-grams keep
    the Analyzer's word tokens, as train's --analyzer char_wb does: the defaults' one-letter
    words are refused with them."""
    from nbtext.training import train

    from .test_training import assert_same_model

    documents = sms_documents[:1500]
    cases = [({"alpha": 1.0}, None, {"alpha": 1.0}),
             ({"analyzer": "char_wb", "ngram_range": (2, 4)}, Analyzer(analyzer="char_wb", ngram_range=(2, 4)), {})]
    for setting, analyzer, settings in cases:
        assert_same_model(train_setting(documents, setting), train(documents, analyzer=analyzer, settings=settings))
    spelled_out = {"analyzer": "word", "ngram_range": (1, 2), "tokens": "all-words", "tf": "log", "doc_norm": None,
                   "variant": "complement", "alpha": 1.0, "idf": False, "min_df": 1}
    short, full = cross_validate(documents, [{"alpha": 1.0}, spelled_out], k=3, seed=0)
    assert short.reports == full.reports and short.mean == full.mean

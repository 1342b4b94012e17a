"""Calibration: the temperature against an optimizer oracle, the reliability table by hand and
by its invariants, and --calibrate end to end on real data."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbtext.calibration import fit_temperature, log_loss, reliability, tempered
from nbtext.model import Model

from .conftest import assert_same_counts, run


@st.composite
def predictions(draw):
    n, k = draw(st.integers(20, 200)), draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    logits = rng.normal(0, 1, (n, k)) * draw(st.floats(0.2, 5.0))
    logits[np.arange(n), truth] += draw(st.floats(0.0, 4.0))
    return tempered(logits * draw(st.floats(0.3, 10.0)), 1.0), truth


@settings(max_examples=40, deadline=None)
@given(predictions())
def test_temperature_minimises_the_log_loss_as_scipy_finds(case):
    from scipy.optimize import minimize_scalar

    log_proba, truth = case
    ours = fit_temperature(log_proba, truth)
    oracle = minimize_scalar(lambda log_t: log_loss(tempered(log_proba, np.exp(log_t)), truth),
                             bounds=(np.log(1e-2), np.log(1e3)), method="bounded", options={"xatol": 1e-8})
    assert log_loss(tempered(log_proba, ours), truth) <= oracle.fun + 1e-9
    # tempering never changes a prediction
    assert np.array_equal(np.argmax(tempered(log_proba, ours), axis=1), np.argmax(log_proba, axis=1))


@settings(max_examples=40, deadline=None)
@given(predictions())
def test_reliability_bins_cover_every_document_and_bound_the_ece(case):
    log_proba, truth = case
    report = reliability(log_proba, truth)
    assert sum(row["documents"] for row in report["bins"]) == len(truth)
    assert all(row["low"] <= row["confidence"] <= row["high"] for row in report["bins"])
    gaps = [abs(row["confidence"] - row["accuracy"]) for row in report["bins"]]
    assert min(gaps) - 1e-12 <= report["ece"] <= max(gaps) + 1e-12


def test_a_perfectly_calibrated_bin_has_no_gap():
    # 10 documents at 0.7 confidence, 7 of them right
    log_proba = np.log(np.tile([0.7, 0.3], (10, 1)))
    truth = np.array([0] * 7 + [1] * 3)
    assert reliability(log_proba, truth)["ece"] == pytest.approx(0.0, abs=1e-12)


def test_calibrate_keeps_predictions_and_lowers_held_out_log_loss(sms, tmp_path):
    run(["train", sms / "train.tsv", "-o", tmp_path / "plain"])
    trained = run(["train", sms / "train.tsv", "-o", tmp_path / "calibrated", "--calibrate"])
    assert "calibrated: temperature" in trained.stderr and "out of fold (5-fold)" in trained.stderr
    plain, calibrated = Model.load(tmp_path / "plain"), Model.load(tmp_path / "calibrated")
    assert_same_counts(plain.counts.to_dict(), calibrated.counts.to_dict())
    stored = calibrated.settings["calibration"]
    assert stored["log_loss"]["after"] < stored["log_loss"]["before"]
    reports = {name: json.loads(run(["eval", tmp_path / name, sms / "test.tsv", "--format", "json"]).stdout)
               for name in ("plain", "calibrated")}
    assert reports["plain"]["confusion_matrix"] == reports["calibrated"]["confusion_matrix"]
    assert reports["calibrated"]["log_loss"] < reports["plain"]["log_loss"]
    # A temperature fits the log loss; it need not lower the binned calibration error, and on
    # this well-calibrated model it does not (README): both stay small.
    assert max(reports["calibrated"]["ece"], reports["plain"]["ece"]) < 0.03
    assert sum(row["documents"] for row in reports["calibrated"]["reliability"]) == 3902
    table = run(["eval", tmp_path / "calibrated", sms / "test.tsv"]).stdout
    assert f"top-class calibration, ECE {reports['calibrated']['ece']:.4f}" in table
    refused = run(["train", sms / "train.tsv", "-o", tmp_path / "x", "--calibrate", "--test-split", "0.2"], expect=2)
    assert "--calibrate trains a new plain model" in refused.stderr
    merged = run(["merge", tmp_path / "calibrated", tmp_path / "plain", "-o", tmp_path / "merged"])
    assert merged.stderr.splitlines()[-1] == (
        f"the calibration is {tmp_path / 'calibrated'}'s, measured on its documents alone, not on the merged data; "
        "train on all of it to measure it again")
    assert Model.load(tmp_path / "merged").settings["calibration"] == stored


def test_out_of_fold_from_the_text_equals_the_string_path(sms):
    """Held-out scores (what --calibrate and spam filters fit on) counted from the text by the
    numpy path equal those of analyzed features looked up as strings, count for count."""
    from nbtext.analysis import Analyzer
    from nbtext.readers import LabelledCorpus
    from nbtext.folds import counts_by_fold, out_of_fold, stratified_folds

    docs = list(LabelledCorpus([str(sms / "train.tsv")]))
    labels = [d.label for d in docs]
    analyzer = Analyzer(ngram_range=(1, 2))
    total, log_proba = out_of_fold(docs, labels, analyzer, tf="log", doc_norm="l2", settings=None, folds=5, seed=0)
    features = [analyzer(d.text) for d in docs]
    fold_of = stratified_folds(labels, 5, 0)
    by_fold = counts_by_fold(features, labels, fold_of, tf="log", doc_norm="l2")
    assert_same_counts(total.to_dict(), by_fold.without(-1).to_dict())
    for f in range(5):
        members = np.flatnonzero(fold_of == f)
        held = Model(analyzer, by_fold.without(f))
        expected = held.core.predict_log_proba(held.vectorize_features([features[i] for i in members]))
        np.testing.assert_array_equal(log_proba[members], expected)

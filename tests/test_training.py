"""Counts add up: update and merge equal one training run over all the data (real SMS corpus)."""

from __future__ import annotations

import numpy as np
import pytest

from nbtext.model import Model
from nbtext.readers import LabelledCorpus

from .conftest import corpus_path, run


@pytest.fixture(scope="module")
def sms_halves(tmp_path_factory):
    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes().splitlines(keepends=True)
    folder = tmp_path_factory.mktemp("sms")
    half = len(lines) // 2
    for name, part in (("a.tsv", lines[:half]), ("b.tsv", lines[half:]), ("all.tsv", lines)):
        (folder / name).write_bytes(b"".join(part))
    return folder


def assert_same_model(left: Model, right: Model) -> None:
    assert left.terms == right.terms and left.classes == right.classes
    for name in ("term_counts", "doc_freq", "class_docs"):
        np.testing.assert_array_equal(getattr(left.counts, name), getattr(right.counts, name))
    texts = [doc.text for doc in LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")])][:500]
    np.testing.assert_array_equal(left.predict_log_proba(texts), right.predict_log_proba(texts))


def test_update_equals_training_on_everything(sms_halves, tmp_path):
    d = sms_halves
    run(["train", d / "all.tsv", "-o", tmp_path / "all", "--min-df", "2", "--ngram-range", "1,2"])
    run(["train", d / "a.tsv", "-o", tmp_path / "grown", "--min-df", "2", "--ngram-range", "1,2"])
    small = Model.load(tmp_path / "grown")
    result = run(["train", "--update", tmp_path / "grown", d / "b.tsv"])
    assert "trained multinomial Naive Bayes on 5,574 documents" in result.stderr
    grown = Model.load(tmp_path / "grown")
    assert len(grown.terms) > len(small.terms)
    assert_same_model(grown, Model.load(tmp_path / "all"))


def test_merge_prunes_after_adding(sms_halves, tmp_path):
    d = sms_halves
    run(["train", d / "all.tsv", "-o", tmp_path / "all", "--min-df", "3"])
    run(["train", d / "a.tsv", "-o", tmp_path / "a"])
    run(["train", d / "b.tsv", "-o", tmp_path / "b"])
    result = run(["merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "merged", "--min-df", "3"])
    assert result.stderr.startswith("merged multinomial Naive Bayes on 5,574 documents")
    assert_same_model(Model.load(tmp_path / "merged"), Model.load(tmp_path / "all"))


def test_update_keeps_the_analyzer_and_merge_checks_it(sms_halves, tmp_path):
    d = sms_halves
    run(["train", d / "a.tsv", "-o", tmp_path / "a"])
    result = run(["train", "--update", tmp_path / "a", d / "b.tsv", "--ngram-range", "1,2"], expect=2)
    assert "--update keeps the model's analyzer; drop --ngram-range" in result.stderr
    run(["train", d / "b.tsv", "-o", tmp_path / "b", "--analyzer", "char_wb"])
    result = run(["merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "m"], expect=1)
    assert result.stderr.startswith("Error: cannot merge models whose analyzers differ")
    result = run(["train", d / "a.tsv"], expect=2)
    assert "give the model file to write with -o MODEL" in result.stderr

"""predict --threshold: only labels at least that probable; a document with none is 'unsure',
counted on stderr, and predict exits 4 so that a pipeline can route those to a person."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nbtext.model import Model

from .conftest import TICKETS, run


@pytest.fixture(scope="module")
def calibrated(sms, tmp_path_factory):
    path = tmp_path_factory.mktemp("threshold") / "sms.joblib"
    run(["train", sms / "train.tsv", "--calibrate", "-o", path])
    return path


def test_documents_below_the_threshold_are_unsure_and_predict_exits_4(calibrated, sms):
    texts = [line.split("\t", 1)[1] for line in (sms / "test.tsv").read_text("utf-8", "replace").splitlines()]
    stdin = "\n".join(texts) + "\n"
    plain = run(["predict", calibrated, "--proba"], input=stdin).stdout.splitlines()
    result = run(["predict", calibrated, "--proba", "--threshold", "0.95"], input=stdin, expect=4)
    lines = result.stdout.splitlines()
    best = Model.load(calibrated).predict_proba(texts).max(axis=1)
    unsure = best < 0.95
    assert len(lines) == len(texts) == 3902 and 0 < unsure.sum() < 3902
    assert [line.startswith("unsure\t") for line in lines] == unsure.tolist()
    assert [line for line, u in zip(lines, unsure) if not u] == [line for line, u in zip(plain, unsure) if not u]
    assert [float(line.split("\t")[1]) for line, u in zip(lines, unsure) if u] == \
           pytest.approx(best[unsure].tolist(), abs=1e-6)
    assert f"{unsure.sum():,} answered unsure: no label as probable as the threshold" in result.stderr


def test_the_labels_above_the_threshold_of_the_top_k(tickets_model):
    """--top 3 --threshold 0.2: of the three best labels, those of 0.2 or more, best first, as
    fastText's `predict K T` gives them; in JSON too."""
    test = TICKETS / "test"
    top = run(["predict", tickets_model, test, "--top", "3", "--proba"]).stdout.splitlines()
    some = run(["predict", tickets_model, test, "--top", "3", "--proba", "--threshold", "0.2"], expect=None)
    for full, kept in zip(top, some.stdout.splitlines()):
        fields = full.split("\t")
        labels = [(fields[i], fields[i + 1]) for i in range(1, len(fields), 2) if float(fields[i + 1]) >= 0.2]
        expected = labels or [("unsure", fields[2])]
        assert kept.split("\t") == [fields[0], *[field for pair in expected for field in pair]]
    assert any(len(line.split("\t")) >= 5 for line in some.stdout.splitlines())  # two labels above 0.2
    records = [json.loads(line) for line in run(["predict", tickets_model, test, "--format", "jsonl",
                                                 "--threshold", "0.999"], expect=None).stdout.splitlines()]
    assert {record["label"] is None for record in records} == {True, False}


def test_a_model_with_a_class_named_unsure_refuses_the_threshold(tmp_path):
    data = tmp_path / "d.tsv"
    data.write_text("unsure\tmaybe perhaps\nsure\tyes indeed\n")
    run(["train", data, "-o", tmp_path / "m.joblib"])
    result = run(["predict", tmp_path / "m.joblib", "--threshold", "0.5"], input="yes\n", expect=2)
    assert "--threshold answers 'unsure' where no label is probable enough" in result.stderr
    assert run(["predict", tmp_path / "m.joblib"], input="yes\n").stdout == "sure\n"


def test_without_a_threshold_no_answer_is_unsure(calibrated):
    result = run(["predict", calibrated, "--proba"], input="free entry win a prize now\nsee you at lunch\n")
    assert np.all([not line.startswith("unsure") for line in result.stdout.splitlines()])

"""predict --explain: the words that gave each document its label, and by how much."""

from __future__ import annotations

import dataclasses
import json
import math
from collections import Counter

import pytest

from nbtext.model import Model

from .conftest import REPO, TICKETS, run

GOLDEN = REPO / "tests" / "golden" / "models"


@pytest.fixture(scope="module")
def ticket_lines() -> str:
    """Each line of the test tickets a document, as the golden answers were made."""
    return "".join(path.read_text(errors="replace") for path in sorted((TICKETS / "test").glob("*/*.txt")))


@pytest.fixture(scope="module")
def sms_model(sms, tmp_path_factory):
    """The default model of the SMS spam corpus's first 30%, and the other 70%'s texts, a line each."""
    path = tmp_path_factory.mktemp("explain") / "sms.joblib"
    run(["train", sms / "train.tsv", "-o", path])
    texts = [line.split("\t", 1)[1] for line in (sms / "test.tsv").read_text(errors="replace").splitlines()]
    return path, "\n".join(texts) + "\n"


@pytest.mark.parametrize("name", ["default", "weighted", "hashed", "filter"])
def test_the_answers_stay_and_the_words_explained_are_the_documents_own(ticket_lines, name):
    """Every kind of model (calibrated, hashed, a spam filter): --explain adds the runner-up
    and words after the same answers, at most N of them, each a feature of its own line (a
    hashed model's buckets named by the line's words in them), weightiest first."""
    path = GOLDEN / f"{name}.joblib"
    model = Model.load(path)
    plain = run(["predict", path, "--proba", "--top", "2"], input=ticket_lines).stdout.splitlines()
    explained = run(["predict", path, "--proba", "--top", "2", "--explain", "4"], input=ticket_lines).stdout
    lines = ticket_lines.splitlines()
    assert len(explained.splitlines()) == len(plain) == len(lines) == 327
    analyzer = dataclasses.replace(model.analyzer, hash_features=None)
    with_words = 0
    for line, answer, fields in zip(lines, plain, (row.split("\t") for row in explained.splitlines())):
        assert fields[:4] == answer.split("\t")
        assert fields[4] == fields[2]  # the runner-up
        terms, weights = fields[5::2], [float(weight) for weight in fields[6::2]]
        assert len(terms) == len(weights) <= 4
        assert weights == sorted(weights, reverse=True)
        features = set(analyzer(line))
        assert all(set(term.split(" | ")) <= features for term in terms), (line, terms)
        with_words += bool(terms)
    assert with_words == 327  # each line has a word the model knows


def test_the_weights_of_every_word_add_up_to_the_odds_printed(sms_model):
    """On the real SMS corpus: with every word explained, a message's weights and the log-odds
    of the empty message (the priors) give the log-odds of its label over the runner-up, as
    the probabilities printed beside them say."""
    path, texts = sms_model
    model = Model.load(path)
    empty = model.empty_log_proba
    records = [json.loads(line) for line in run(["predict", path, "--format", "jsonl", "--proba", "--top", "2",
                                                 "--explain", "1000"], input=texts).stdout.splitlines()]
    assert len(records) == 3902
    checked = 0
    for record in records:
        (best, p), (runner_up, q) = ((top["label"], top["proba"]) for top in record["top"])
        assert (record["label"], record["against"]) == (best, runner_up)
        if q < 1e-300:  # odds too long for a double
            continue
        prior = empty[model.classes.index(best)] - empty[model.classes.index(runner_up)]
        assert math.isclose(sum(term["weight"] for term in record["explain"]) + prior, math.log(p / q),
                            rel_tol=1e-9, abs_tol=1e-9), record
        checked += 1
    assert checked > 3800


def test_spam_is_explained_by_spam_words(sms_model):
    """What a user would see: the word that most often tips an SMS to spam is "claim" (a prize
    to claim), and to ham "i"."""
    path, texts = sms_model
    first = Counter()
    for line in run(["predict", path, "--explain", "1"], input=texts).stdout.splitlines():
        label, _, *word = line.split("\t")
        if word:
            first[label, word[0]] += 1
    assert max((n, word) for (label, word), n in first.items() if label == "spam") == (59, "claim")
    assert max((n, word) for (label, word), n in first.items() if label == "ham") == (430, "i")


def test_tsv_jsonl_and_worker_processes_explain_alike(sms_model):
    path, texts = sms_model
    one = run(["predict", path, "--explain", "3"], input=texts).stdout
    assert run(["predict", path, "--explain", "3", "--jobs", "2"], input=texts).stdout == one
    records = [json.loads(line) for line in run(["predict", path, "--explain", "3", "--format", "jsonl"],
                                               input=texts).stdout.splitlines()]
    rows = [line.split("\t") for line in one.splitlines()]
    assert [[r["label"], r["against"], *(f for t in r["explain"] for f in (t["term"], f"{t['weight']:.6f}"))]
            for r in records] == rows
    assert rows[1] == ["spam", "ham", "claim", "4.008298", "prize", "3.781792", "guaranteed", "3.578209"]


def test_the_library_explains_as_predict_does(tickets_model):
    model = Model.load(tickets_model)
    (label, against, terms), = model.explain(["my parcel never arrived"], k=3)
    assert (label, against) == ("shipping", "technical")
    assert [(term, round(weight, 6)) for term, weight in terms] == [
        ("parcel", 1.405929), ("arrived", 1.243451), ("my parcel", 1.199635)]
    assert run(["predict", tickets_model, "--explain", "3"], input="my parcel never arrived\n").stdout == (
        "shipping\ttechnical\tparcel\t1.405929\tarrived\t1.243451\tmy parcel\t1.199635\n")
    assert model.explain([""], k=3)[0].terms == []
    # against a class named: the true one, where the label is wrong (eval --errors --explain)
    (label, against, terms), = model.explain(["my parcel never arrived"], k=2, against=["billing"])
    assert (label, against, [term for term, _ in terms]) == ("shipping", "billing", ["parcel", "arrived"])
    with pytest.raises(ValueError, match="no class 'refunds' in the model"):
        model.explain(["my parcel never arrived"], against=["refunds"])
    with pytest.raises(ValueError, match="1 classes to weigh against for 2 texts"):
        model.explain(["my parcel", "never arrived"], against=["billing"])
    with pytest.raises(TypeError, match="not one string"):
        model.explain("my parcel")

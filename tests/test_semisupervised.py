"""Unlabelled documents by EM (Nigam et al. 2000): the M step by hand, the labelled-only case
against plain training, exact sums after EM, a rising likelihood and a real gain on 20
Newsgroups, and the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbtext.analysis import Analyzer
from nbtext.counting import GRID_BITS
from nbtext.model import Model
from nbtext.readers import Document, LabelledCorpus
from nbtext.semisupervised import (
    DocumentCounts,
    cross_validate_em,
    em_analyzer,
    em_settings,
    fit_em,
    train_semisupervised,
)
from nbtext.training import count_all, train
from nbtext.tuning import cross_validate

from .conftest import corpus_path, run

WORDS = Analyzer(ngram_range=(1, 1), tokens="all-words")
LAPLACE = {"variant": "multinomial", "alpha": 1.0, "min_df": 1}


def test_one_em_step_by_hand():
    """Labelled: spam "cheap pills", ham "lunch at noon". Unlabelled, each weighing 0.5:
    "cheap offer" and "lunch notes". The M step counts each unlabelled document in each class
    by half its probability there under the labelled documents' model."""
    labelled = [Document("cheap pills", "spam", "a"), Document("lunch at noon", "ham", "b")]
    unlabelled = ["cheap offer", "lunch notes"]
    counts = DocumentCounts.of([doc.text for doc in labelled] + unlabelled, WORDS, tf="raw", doc_norm=None)
    model, steps = fit_em(counts, {0: "spam", 1: "ham"}, [2, 3], analyzer=WORDS, settings=LAPLACE, weight=0.5,
                          iterations=1)
    assert len(steps) == 1
    # The labelled model over all seven words, Laplace-smoothed: P(w|spam) = (n + 1) / (2 + 7).
    # "cheap offer": spam (2/9)(1/9), ham (1/10)(1/10), equal priors.
    p_spam_1 = (2 / 9 * 1 / 9) / (2 / 9 * 1 / 9 + 1 / 10 * 1 / 10)
    # "lunch notes": spam (1/9)(1/9), ham (2/10)(1/10).
    p_spam_2 = (1 / 9 * 1 / 9) / (1 / 9 * 1 / 9 + 2 / 10 * 1 / 10)
    expected = {  # word -> (ham, spam) counts
        "at": (1, 0), "cheap": (0.5 * (1 - p_spam_1), 1 + 0.5 * p_spam_1), "lunch": (1 + 0.5 * (1 - p_spam_2),
                                                                                  0.5 * p_spam_2),
        "noon": (1, 0), "notes": (0.5 * (1 - p_spam_2), 0.5 * p_spam_2), "offer": (0.5 * (1 - p_spam_1),
                                                                                 0.5 * p_spam_1),
        "pills": (0, 1)}
    grid = 2.0 ** -GRID_BITS
    assert list(model.counts.terms) == sorted(expected)
    np.testing.assert_allclose(model.counts.term_counts.T, [expected[word] for word in sorted(expected)], atol=grid)
    np.testing.assert_allclose(model.counts.class_docs, [1 + 0.5 * (2 - p_spam_1 - p_spam_2),
                                                         1 + 0.5 * (p_spam_1 + p_spam_2)], atol=grid)


def test_rows_em_is_not_given_are_left_out_of_its_pruning():
    """Counted, but neither labelled nor unlabelled (the held-out fold of tune --unlabelled):
    "pills" is in rows 0, 3 and 4, but only row 0 is EM's, so --min-df 2 prunes it."""
    counts = DocumentCounts.of(["cheap pills", "lunch at noon", "cheap cheap", "pills again", "pills"], WORDS,
                               tf="raw", doc_norm=None)
    model, _ = fit_em(counts, {0: "spam", 1: "ham"}, [2], analyzer=WORDS, settings={**LAPLACE, "min_df": 2},
                      iterations=0)
    assert list(model.terms) == ["cheap"]


def test_without_unlabelled_documents_em_is_plain_training(sms):
    documents = list(LabelledCorpus([str(sms / "train.tsv")]))
    model = train_semisupervised(documents, [], analyzer=WORDS, tf="log", doc_norm=None, settings=LAPLACE)
    plain = train(documents, analyzer=WORDS, tf="log", doc_norm=None, settings=LAPLACE)
    assert list(model.counts.terms) == list(plain.counts.terms) and model.counts.classes == plain.counts.classes
    for name in plain.counts.values:
        assert np.array_equal(model.counts.dense(name), plain.counts.dense(name)), name
    assert model.predict([doc.text for doc in documents[:200]]) == plain.predict([doc.text for doc in documents[:200]])


@settings(max_examples=50, deadline=None)
@given(texts=st.lists(st.text(alphabet="abc ", min_size=1, max_size=12), min_size=1, max_size=12),
       classes=st.lists(st.sampled_from(["x", "y", "z"]), min_size=12, max_size=12))
def test_documents_weighed_one_in_their_class_count_as_training_counts_them(texts, classes):
    labels = classes[:len(texts)]
    counts = DocumentCounts.of(texts, WORDS, tf="log", doc_norm="l2")
    names = sorted(set(labels))
    weights = np.zeros((len(texts), len(names)))
    weights[np.arange(len(texts)), [names.index(label) for label in labels]] = 1
    summed = counts.class_sums(weights, names)
    direct = count_all([Document(text, label, str(i)) for i, (text, label) in enumerate(zip(texts, labels))],
                       WORDS, tf="log", doc_norm="l2")
    present = summed.documents_per_term() > 0
    assert [t for t, kept in zip(summed.terms, present) if kept] == list(direct.terms)
    for name in direct.values:
        assert np.array_equal(summed.dense(name)[:, present], direct.dense(name)), name
    assert np.array_equal(summed.class_docs, direct.class_docs)


@pytest.fixture(scope="module")
def news():
    root = corpus_path("20news-bydate")
    train_documents = list(LabelledCorpus([str(root / "train")]))
    test_documents = list(LabelledCorpus([str(root / "test")]))
    return train_documents, test_documents


def test_on_20news_the_likelihood_rises_and_em_gains_ten_points(news):
    """Two labelled posts a newsgroup and 3,000 unlabelled ones (seed 0): the log-likelihood
    rises at every step, and the test accuracy gains at least 10 points over the labelled
    documents' model."""
    train_documents, test_documents = news
    labels = np.array([doc.label for doc in train_documents])
    rng = np.random.default_rng(0)
    labelled = np.concatenate([rng.choice(np.flatnonzero(labels == c), 2, replace=False) for c in sorted(set(labels))])
    unlabelled = rng.choice(np.setdiff1d(np.arange(len(labels)), labelled), 3000, replace=False)
    rows = np.concatenate([labelled, unlabelled])
    counts = DocumentCounts.of([train_documents[i].text for i in rows], em_analyzer(), tf="raw", doc_norm=None)
    known = {i: str(labels[row]) for i, row in enumerate(labelled)}
    plain, _ = fit_em(counts, known, range(len(labelled), len(rows)), analyzer=em_analyzer(), settings=em_settings(),
                      iterations=0)  # EM's vocabulary, no step: the gain is EM's
    model, steps = fit_em(counts, known, range(len(labelled), len(rows)), analyzer=em_analyzer(),
                          settings=em_settings())
    likelihood = [step.log_likelihood for step in steps]
    assert len(steps) > 3 and all(later > earlier for earlier, later in zip(likelihood, likelihood[1:]))
    texts, truth = [doc.text for doc in test_documents], np.array([doc.label for doc in test_documents])
    plain_accuracy = np.mean(np.array(plain.predict(texts)) == truth)
    em_accuracy = np.mean(np.array(model.predict(texts)) == truth)
    assert em_accuracy >= plain_accuracy + 0.10, (plain_accuracy, em_accuracy)


@pytest.fixture(scope="module")
def few_labelled(tmp_path_factory):
    """20news train's first two posts of each group, as links: a labelled folder."""
    root = corpus_path("20news-bydate") / "train"
    folder = tmp_path_factory.mktemp("few")
    for group in sorted(root.iterdir()):
        (folder / group.name).mkdir()
        for post in sorted(group.iterdir())[:2]:
            (folder / group.name / post.name).symlink_to(post)
    return folder


def test_train_unlabelled_through_the_command_line(few_labelled, tmp_path):
    """The unlabelled posts of a folder (its class folders unread as classes), the EM defaults,
    the report of both readings; and the model, EM's counts being exact sums, takes --update
    exactly as the counts of the added documents say."""
    unlabelled = corpus_path("20news-bydate") / "test" / "sci.space"
    result = run(["train", few_labelled, "--unlabelled", unlabelled, "-o", tmp_path / "em.joblib"])
    lines = result.stderr.splitlines()
    assert lines[0] == "read 40 documents"
    assert "unlabelled: read 394 documents" in lines
    em_line = next(line for line in lines if line.startswith("EM: "))
    assert em_line.startswith("EM: 40 labelled and 394 unlabelled documents (each weighing 0.1), ")
    assert "trained multinomial Naive Bayes on 434 documents" in result.stderr
    model = Model.load(tmp_path / "em.joblib")
    assert model.settings["alpha"] == 0.01 and model.analyzer.ngram_range == (1, 1) and "the" in \
        model.analyzer.stop_words
    # --update adds plain counts to EM's: exactly the sum, term by term.
    extra = corpus_path("20news-bydate") / "test"
    added = tmp_path / "added"
    (added / "sci.space").mkdir(parents=True)
    for post in sorted((extra / "sci.space").iterdir())[:5]:
        (added / "sci.space" / post.name).symlink_to(post)
    run(["train", "--update", tmp_path / "em.joblib", added, "-o", tmp_path / "updated.joblib"])
    updated = Model.load(tmp_path / "updated.joblib")
    plain = count_all(LabelledCorpus([str(added)]), model.analyzer, tf="raw", doc_norm=None)
    expected = model.counts.merge(plain)
    assert list(updated.counts.terms) == list(expected.terms)
    for name in expected.values:
        assert np.array_equal(updated.counts.values[name], expected.values[name]), name


@pytest.mark.parametrize(("args", "message"), [
    (["--dask", "local:1"], "--unlabelled trains a new plain model by EM; it does not go with --dask"),
    (["--calibrate"], "it does not go with --calibrate"),
    (["--test-split", "0.2"], "it does not go with --test-split"),
])
def test_em_with_what_it_does_not_go_with_is_a_usage_error(few_labelled, tmp_path, args, message):
    result = run(["train", few_labelled, "--unlabelled", few_labelled, *args, "-o", tmp_path / "m"], expect=2)
    assert message in result.stderr


def test_em_options_without_unlabelled_documents_are_a_usage_error(few_labelled, tmp_path):
    result = run(["train", few_labelled, "--em-weight", "0.5", "-o", tmp_path / "m"], expect=2)
    assert "--em-weight and --em-iterations are for EM: add --unlabelled PATH" in result.stderr


def test_em_of_no_step_is_cross_validated_as_plain_nb_is(sms):
    """With no EM step and no unlabelled document, each fold's model is the labelled folds'
    plain Multinomial NB: cross_validate_em scores every fold as tuning.cross_validate does
    on the same folds with the same settings."""
    documents = list(LabelledCorpus([str(sms / "train.tsv")]))
    counts = DocumentCounts.of([doc.text for doc in documents], em_analyzer(), tf="raw", doc_norm=None)
    [em] = cross_validate_em(counts, {i: doc.label for i, doc in enumerate(documents)}, [], [{"em_iterations": 0}],
                             analyzer=em_analyzer(), settings=em_settings(), k=3, seed=4)
    [plain] = cross_validate(documents, [{**em_settings(), "ngram_range": (1, 1), "tf": "raw", "doc_norm": None}],
                             base_analyzer=em_analyzer(), folds=em.folds)
    assert len(em.reports) == 3 and em.scores == plain.scores
    assert [report["log_loss"] for report in em.reports] == pytest.approx(
        [report["log_loss"] for report in plain.reports], rel=1e-9)
    assert np.array_equal(em.right, plain.right)


def test_tune_unlabelled_searches_the_em_weight_and_its_line_retrains_the_model(few_labelled, tmp_path):
    """tune --unlabelled: a leaderboard of EM weights, best first; the model written is EM's
    at the best weight, over the labelled and the unlabelled posts; and train with the options
    of stderr's last line makes that model, count for count."""
    unlabelled = corpus_path("20news-bydate") / "test" / "sci.space"
    result = run(["tune", few_labelled, "--unlabelled", unlabelled, "--cv", 2, "--format", "json",
                  "--grid", '{"em_weight": [0.03, 1.0]}', "-o", tmp_path / "tuned.joblib"])
    board = json.loads(result.stdout)
    assert [row["settings"] for row in sorted(board, key=lambda row: row["settings"]["em_weight"])] == [
        {"em_weight": 0.03}, {"em_weight": 1.0}]
    best = board[0]["settings"]["em_weight"]
    assert board[0]["mean"] >= board[1]["mean"] and board[0]["options"] == f"--em-weight {best}"
    lines = result.stderr.splitlines()
    assert "unlabelled: read 394 documents" in lines
    assert any(line.startswith(f"EM: 40 labelled and 394 unlabelled documents (each weighing {best:g}), ")
               for line in lines)
    tuned = Model.load(tmp_path / "tuned.joblib")
    assert tuned.summary["tuned"]["cv"] == 2 and tuned.summary["tuned"]["accuracy"] == board[0]["mean"]
    assert tuned.summary["em"]["weight"] == best and tuned.summary["unlabelled_documents"] == 394
    command = lines[-1].removeprefix("the same model: nbtext ").split()
    assert f"--unlabelled PATH --em-weight {best} --em-iterations 20" in " ".join(command)
    command = [str(few_labelled) if word == "DATA" else str(unlabelled) if word == "PATH" else word
               for word in command[:-2]]
    run([*command, "-o", tmp_path / "again.joblib"])
    again = Model.load(tmp_path / "again.joblib")
    assert list(again.counts.terms) == list(tuned.counts.terms) and again.settings == tuned.settings
    for name in tuned.counts.values:
        assert np.array_equal(again.counts.values[name], tuned.counts.values[name]), name


@pytest.mark.parametrize(("args", "message"), [
    (["--unlabelled", "PATH", "--grid", '{"ngram_range": [[1, 2]]}'],
     "ngram_range is not searched with unlabelled documents: EM counts every document once"),
    (["--grid", '{"em_weight": [0.1]}'], "em_weight is searched with unlabelled documents, by EM: add --unlabelled"),
    (["--unlabelled", "PATH", "--grid", '{"em_weight": [0]}'], "em_weight 0: the weight of an unlabelled document "
                                                             "must be above 0 and at most 1"),
    (["--unlabelled", "PATH", "--numeric-columns", "size"], "--unlabelled learns from text alone"),
])
def test_tune_unlabelled_grids_that_cannot_be_searched_are_usage_errors(few_labelled, tmp_path, args, message):
    result = run(["tune", few_labelled, *args, "-o", tmp_path / "m"], expect=2)
    assert message in " ".join(result.stderr.split())

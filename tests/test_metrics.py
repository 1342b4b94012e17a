"""The figures `nbtext eval` reports, against scikit-learn's on real predictions."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbtext.analysis import Analyzer
from nbtext.metrics import evaluate
from nbtext.readers import LabelledCorpus
from nbtext.training import train

from .conftest import corpus_path


@pytest.fixture(scope="module")
def news_predictions():
    """The default model's log-probabilities on the 7,532 20news test posts, and their labels."""
    news = corpus_path("20news-bydate")
    model = train(LabelledCorpus([str(news / "train")]), analyzer=Analyzer())
    test = list(LabelledCorpus([str(news / "test")]))
    return [doc.label for doc in test], model.predict_log_proba([doc.text for doc in test]), model.classes


def _oracle(y_true, log_proba, classes):
    from sklearn import metrics

    known = [i for i, label in enumerate(y_true) if label in classes]  # log loss needs the true class's probability
    with warnings.catch_warnings():  # scikit-learn 1.4 wants rows to sum to 1 within 2e-15; 20 exps can miss it
        warnings.filterwarnings("ignore", "The y_pred values do not sum to one", UserWarning)
        log_loss = metrics.log_loss([y_true[i] for i in known], np.exp(log_proba[known]),
                                    labels=classes) if known else math.nan
    predicted = [classes[i] for i in log_proba.argmax(axis=1)]
    labels = sorted(set(y_true) | set(predicted))  # scikit-learn's unique_labels
    precision, recall, f1, support = metrics.precision_recall_fscore_support(
        y_true, predicted, labels=labels, zero_division=0)
    with warnings.catch_warnings():  # the one label is given as labels; 1.9 warns of one found anyway
        warnings.filterwarnings("ignore", "A single label was found", UserWarning)
        confusion = metrics.confusion_matrix(y_true, predicted, labels=labels).tolist()
    return {
        "accuracy": metrics.accuracy_score(y_true, predicted),
        "macro_f1": metrics.f1_score(y_true, predicted, average="macro", zero_division=0),
        "weighted_f1": metrics.f1_score(y_true, predicted, average="weighted", zero_division=0),
        "log_loss": log_loss,
        "labels": labels,
        "per_class": {label: {"precision": p, "recall": r, "f1": f, "support": s}
                      for label, p, r, f, s in zip(labels, precision, recall, f1, support)},
        "confusion_matrix": confusion,
    }


@pytest.mark.parametrize("groups", [None, ("rec.autos", "sci.space")], ids=["all 20 groups", "two groups"])
def test_evaluate_equals_scikit_learn(news_predictions, groups):
    """On the whole test set, and on two groups' posts alone (the errors then fall on groups
    with no posts of their own; a group neither present nor predicted is left out, as
    scikit-learn leaves it out of the macro average)."""
    y_true, log_proba, classes = news_predictions
    if groups is not None:
        keep = [i for i, label in enumerate(y_true) if label in groups]
        y_true, log_proba = [y_true[i] for i in keep], log_proba[keep]
    ours, oracle = evaluate(y_true, log_proba, classes), _oracle(y_true, log_proba, classes)
    assert ours["labels"] == oracle["labels"]
    assert ours["confusion_matrix"] == oracle["confusion_matrix"]
    for name in ("accuracy", "macro_f1", "weighted_f1", "log_loss"):
        assert ours[name] == pytest.approx(oracle[name], rel=1e-12), name
    for label, figures in oracle["per_class"].items():
        assert ours["per_class"][label] == pytest.approx(figures, rel=1e-12), label
    if groups is not None:  # the case that tells the two label sets apart
        assert 2 < len(ours["labels"]) < 20


@st.composite
def _labelled_scores(draw):
    """A model's classes, true labels drawn from them and two names it never saw, and
    log-probabilities with exact ties between classes (where both must take the first)."""
    classes = draw(st.lists(st.sampled_from("abcde"), min_size=1, max_size=5, unique=True).map(sorted))
    n = draw(st.integers(1, 30))
    y_true = draw(st.lists(st.sampled_from(classes + ["x", "y"]), min_size=n, max_size=n))
    weights = draw(st.lists(st.lists(st.sampled_from([1.0, 2.0, 3.0, 7.5]), min_size=len(classes),
                                     max_size=len(classes)), min_size=n, max_size=n))
    proba = np.array(weights) / np.sum(weights, axis=1, keepdims=True)
    return y_true, np.log(proba), classes


@settings(max_examples=200, deadline=None)
@given(_labelled_scores())
def test_evaluate_equals_scikit_learn_on_any_labels(case):
    """Small cases the news posts do not make: one class, classes without a document, labels
    the model never saw (errors, and out of the log loss), ties for the top class."""
    y_true, log_proba, classes = case
    ours = evaluate(y_true, log_proba, classes)
    known = [i for i, label in enumerate(y_true) if label in classes]
    assert ours["n_unknown_label"] == len(y_true) - len(known)
    if len(classes) == 1:  # scikit-learn's log loss needs two classes: every answer is the one class
        assert ours["accuracy"] == len(known) / len(y_true)
        assert ours["log_loss"] == pytest.approx(0.0 if known else math.nan, abs=1e-15, nan_ok=True)  # 1 clipped
        return
    oracle = _oracle(y_true, log_proba, classes)
    assert ours["labels"] == oracle["labels"]
    assert ours["confusion_matrix"] == oracle["confusion_matrix"]
    for name in ("accuracy", "macro_f1", "weighted_f1", "log_loss"):
        assert ours[name] == pytest.approx(oracle[name], rel=1e-12, nan_ok=True), name
    for label, figures in oracle["per_class"].items():
        assert ours["per_class"][label] == pytest.approx(figures, rel=1e-12), label


def test_labels_and_scores_that_do_not_line_up_are_refused(news_predictions):
    """A label list one short of the scores gave an accuracy of 2.0 for [a] against two rows;
    the rows must match the labels and the columns the classes."""
    y_true, log_proba, classes = news_predictions
    with pytest.raises(ValueError, match=rf"\({len(y_true) - 1}, 20\); it has shape \({len(y_true)}, 20\)$"):
        evaluate(y_true[1:], log_proba, classes)
    with pytest.raises(ValueError, match=r"\(2, 19\); it has shape \(2, 20\)$"):
        evaluate(y_true[:2], log_proba[:2], classes[1:])
    with pytest.raises(TypeError, match="not one string"):
        evaluate("rec.autos", log_proba[:1], classes)
    assert evaluate([], log_proba[:0], classes)["n_documents"] == 0
    # an unlabelled document's label, None, failed in sorting as "'<' not supported between..."
    with pytest.raises(ValueError, match=r"^y_true\[1\] is None: every document scored needs its true label$"):
        evaluate([y_true[0], None], log_proba[:2], classes)


def test_the_table_report_prints_every_name_and_count_whole(news_predictions):
    """Written to a file (80 columns), the 20 groups' matrix is too wide to head its columns
    with names: they are numbered as the rows are, and no name or count is cut to an ellipsis.
    The tickets' three classes keep their names (tests/golden/eval-tickets.txt)."""
    import io

    from nbtext.render import eval_report

    report = evaluate(*news_predictions)
    out = io.StringIO()
    eval_report(report, "table", out, width=80)
    lines = out.getvalue().splitlines()
    assert "…" not in out.getvalue()
    title = next(i for i, line in enumerate(lines) if line.startswith("confusion matrix"))
    assert lines[title + 1].split() == ["true", "\\", "predicted", *map(str, range(1, 21))]
    rows = [line.split() for line in lines[title + 2:title + 22]]
    assert [row[:2] for row in rows] == [[str(i), label] for i, label in enumerate(report["labels"], 1)]
    assert [[0 if n == "." else int(n) for n in row[2:]] for row in rows] == report["confusion_matrix"]


def test_thousands_of_classes_list_the_most_frequent_confusions(tmp_path):
    """An SMS table with its line numbers read as labels (the label column mistaken): train
    listed 5,574 classes without a word, and eval spent minutes laying out a confusion matrix
    of 2,000 columns (stopped after 5). eval now lists the largest confusions and train asks
    whether the label is the right column."""
    import json

    from .conftest import run

    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes().splitlines()[:2000]  # 2,000 classes
    numbered = tmp_path / "numbered.tsv"
    numbered.write_bytes(b"".join(b"%d\t%s\n" % (n, line.partition(b"\t")[2]) for n, line in enumerate(lines, 1)))
    trained = run(["train", numbered, "-o", tmp_path / "m"]).stderr
    assert "\n2,000 of the 2,000 classes have one document each: is the label read from the right column or field?\n" \
        in trained
    test = tmp_path / "test.tsv"
    test.write_bytes(b"".join(numbered.read_bytes().splitlines(keepends=True)[:800]))
    table = run(["eval", tmp_path / "m", test]).stdout.splitlines()
    report = json.loads(run(["eval", tmp_path / "m", test, "--format", "json"]).stdout)
    labels, matrix = report["labels"], np.array(report["confusion_matrix"])
    title = table.index(f"most frequent confusions ({len(labels):,} classes, too many for a confusion matrix; "
                        "--format json has it whole)")
    assert table[title + 1].split() == ["true", "predicted", "documents"]
    listed = [line.split() for line in table[title + 2:title + 22]]
    np.fill_diagonal(matrix, 0)
    cells = sorted((-matrix[i, j], i, j) for i, j in zip(*np.nonzero(matrix)))[:20]
    assert listed == [[labels[i], labels[j], str(-n)] for n, i, j in cells]
    assert len(listed) == 20 and not any(line.startswith("confusion matrix") for line in table)

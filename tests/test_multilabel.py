"""Several labels per document: read from a file in several class folders, a fastText line of
several labels, a JSONL list and a table's label cell split by --label-separator, all alike;
scored by eval as sets (micro and macro precision, recall and F1, precision and recall at k),
with scikit-learn's metrics as the oracle, on Reuters ModApte90."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import precision_recall_fscore_support
from sklearn.preprocessing import MultiLabelBinarizer

from nbtext.metrics import multi_label
from nbtext.model import Model

from .conftest import assert_same_counts, corpus_path, run


@pytest.fixture(scope="module")
def modapte(tmp_path_factory) -> tuple[Path, Path]:
    """ModApte90, and a model trained on its training folders."""
    root = corpus_path("reuters21578") / "ModApte90"
    folder = tmp_path_factory.mktemp("modapte")
    run(["train", root / "train", "-o", folder / "m.joblib"])
    return root, folder / "m.joblib"


def articles(split: Path) -> dict[str, tuple[str, list[str]]]:
    """Each article of a ModApte90 split by its file name: its text, and its topics (the folders
    that hold it), sorted."""
    found: dict[str, tuple[str, list[str]]] = {}
    for path in sorted(split.glob("*/*")):
        text = path.read_bytes().decode("utf-8", "replace")
        found.setdefault(path.name, (text, []))[1].append(path.parent.name)
    return found


def test_eval_scores_each_text_s_labels_as_a_set(modapte):
    """The sets predict gives (every topic of probability 0.05 or more), against the folders
    that hold each text, scored by scikit-learn: eval's figures, and the lines a user reads."""
    root, model = modapte
    truth: dict[bytes, set[str]] = {}
    for path in sorted((root / "test").glob("*/*")):
        truth.setdefault(path.read_bytes(), set()).add(path.parent.name)
    given_sets: dict[bytes, set[str]] = {}
    for line in run(["predict", model, root / "test", "--threshold", "0.05", "--top", "90"],
                    expect=None).stdout.splitlines():
        path, *labels = line.split("\t")
        given_sets[Path(path).read_bytes()] = set(labels) - {"unsure"}
    texts = list(truth)
    classes = sorted(set(Model.load(model).classes) | {label for labels in truth.values() for label in labels})
    binarizer = MultiLabelBinarizer(classes=classes)
    y_true = binarizer.fit_transform([truth[t] for t in texts])
    y_given = binarizer.transform([given_sets[t] for t in texts])

    report = json.loads(run(["eval", model, root / "test", "--format", "json"]).stdout)
    figures = report["multi_label"]
    assert figures["texts"] == len(texts) == 3007 and figures["several_labels"] == 433
    for average in ("micro", "macro"):
        p, r, f1, _ = precision_recall_fscore_support(y_true, y_given, average=average, zero_division=0)
        assert (figures[average]["precision"], figures[average]["recall"], figures[average]["f1"]) == \
            pytest.approx((p, r, f1), abs=1e-12)
    assert figures["at_k"]["1"]["precision"] == pytest.approx(report["any_label_accuracy"], abs=1e-12)
    assert 0.79 < figures["micro"]["f1"] < 0.81 and figures["macro"]["f1"] > 0.37  # docs: accuracy
    said = run(["eval", model, root / "test"]).stdout.splitlines()
    micro, macro = figures["micro"], figures["macro"]
    assert said[3:5] == [
        "as sets of labels, each of probability 0.05 or more, over the 3,007 distinct texts (433 with several; labels "
        f"a text: {figures['labels_per_text']['true']:.2f} true, {figures['labels_per_text']['given']:.2f} given):",
        f"  micro precision {micro['precision']:.4f}  recall {micro['recall']:.4f}  F1 {micro['f1']:.4f}   "
        f"macro precision {macro['precision']:.4f}  recall {macro['recall']:.4f}  F1 {macro['f1']:.4f}",
    ]
    looser = json.loads(run(["eval", model, root / "test", "--format", "json", "--threshold", "0.01"]).stdout)
    assert looser["multi_label"]["labels_per_text"]["given"] > figures["labels_per_text"]["given"]
    assert looser["multi_label"]["micro"]["recall"] > figures["micro"]["recall"]


def test_every_format_reads_a_document_of_several_labels_as_the_folders_do(modapte, tmp_path):
    """ModApte90's test articles written as fastText lines of several __label__s, JSONL records
    with a list of labels, and a CSV whose label cell holds them split by '|': each trains the
    model the folders train, count for count, and eval scores it alike."""
    root, _ = modapte
    found = articles(root / "test")
    with open(tmp_path / "test.ft", "w", encoding="utf-8") as ft, \
            open(tmp_path / "test.jsonl", "w", encoding="utf-8") as jsonl, \
            open(tmp_path / "test.csv", "w", encoding="utf-8", newline="") as table:
        writer = csv.writer(table)
        writer.writerow(["topics", "text"])
        for text, topics in found.values():
            ft.write(" ".join(f"__label__{topic}" for topic in topics) + " " + " ".join(text.split()) + "\n")
            jsonl.write(json.dumps({"label": topics, "text": text}) + "\n")
            writer.writerow(["|".join(topics), text])
    run(["train", root / "test", "-o", tmp_path / "folders.joblib"])
    expected = Model.load(tmp_path / "folders.joblib").to_payload()["counts"]
    for name, options in (("test.ft", []), ("test.jsonl", []),
                          ("test.csv", ["--label-column", "topics", "--label-separator", "|"])):
        run(["train", tmp_path / name, "-o", tmp_path / f"{name}.joblib", *options])
        assert_same_counts(Model.load(tmp_path / f"{name}.joblib").to_payload()["counts"], expected)
    folder_report = json.loads(run(["eval", tmp_path / "folders.joblib", root / "test", "--format", "json"]).stdout)
    for name in ("test.ft", "test.jsonl", "test.csv"):  # the CSV by the columns its model was trained on
        report = json.loads(run(["eval", tmp_path / "folders.joblib", tmp_path / name, "--format", "json",
                                 *(["--label-column", "topics", "--label-separator", "|"] if name == "test.csv"
                                   else [])]).stdout)
        # A fastText line holds its text on one line: articles whose texts differ in their spaces alone are one
        # text there, and are scored as one.
        close = 1e-3 if name == "test.ft" else 1e-12
        assert report["multi_label"]["micro"] == pytest.approx(folder_report["multi_label"]["micro"], abs=close)
        assert report["n_documents"] == 3744 and (report["multi_label_texts"] == 433 or name == "test.ft")
    table_model = Model.load(tmp_path / "test.csv.joblib")
    assert table_model.summary["columns"]["label_separator"] == "|"
    again = json.loads(run(["eval", tmp_path / "test.csv.joblib", tmp_path / "test.csv", "--format",
                            "json"]).stdout)  # the model's own columns, separator and all
    assert again["n_documents"] == 3744


def test_a_record_of_no_label_is_skipped_and_counted(tmp_path):
    """A JSONL record whose label list is empty has no class to train: skipped and counted,
    never dropped unsaid; a label list of something else than strings and numbers is an error."""
    (tmp_path / "a.jsonl").write_text('{"label": ["grain", "wheat"], "text": "wheat exports rise"}\n'
                                      '{"label": [], "text": "no topic at all"}\n'
                                      '{"label": ["crude"], "text": "oil prices fall"}\n', encoding="utf-8")
    result = run(["train", tmp_path / "a.jsonl", "-o", tmp_path / "m", "--verbose"])
    assert "1 skipped: no label (an empty list)" in result.stderr
    assert f"{tmp_path / 'a.jsonl'}:2" in result.stderr
    assert Model.load(tmp_path / "m").summary["documents_per_class"] == {"crude": 1, "grain": 1, "wheat": 1}
    (tmp_path / "b.jsonl").write_text('{"label": [["grain"]], "text": "wheat"}\n', encoding="utf-8")
    result = run(["train", tmp_path / "b.jsonl", "-o", tmp_path / "m2"], expect=1)
    assert result.stderr == (f'Error: {tmp_path / "b.jsonl"}:1: "label" must be a string or a number, or a list of '
                             "them\n")


def test_a_fasttext_label_anywhere_in_the_line_is_a_label(tmp_path):
    """fastText takes every word with the prefix as a label, wherever it is: so does nbtext, and
    the word is no part of the text."""
    (tmp_path / "t.ft").write_text("__label__grain __label__wheat wheat exports rise\n"
                                   "__label__crude oil prices __label__nat-gas fall\n"
                                   "__label__crude crude__label__x stays a word\n", encoding="utf-8")
    run(["train", tmp_path / "t.ft", "-o", tmp_path / "m", "--ngram-range", "1,1"])
    model = Model.load(tmp_path / "m")
    assert model.summary["documents_per_class"] == {"crude": 2, "grain": 1, "nat-gas": 1, "wheat": 1}
    assert "__label__nat" not in model.terms and "nat" not in model.terms and "crude__label__x" in model.terms


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n_classes=st.integers(1, 6), n_texts=st.integers(1, 12),
       threshold=st.sampled_from([0.05, 0.2, 0.5, 0.9]))
def test_the_figures_are_scikit_learns(data, n_classes, n_texts, threshold):
    """Random label sets and probabilities: micro and macro precision, recall and F1 are
    scikit-learn's (zero_division=0, over the model's classes and the truth's), and precision
    and recall at k are the share of the k best that are true and of the true among them."""
    classes = [f"c{i}" for i in range(n_classes)]
    names = classes + ["unknown"]
    sets = [data.draw(st.sets(st.sampled_from(names), min_size=1)) for _ in range(n_texts)]
    weights = np.array(data.draw(st.lists(st.lists(st.floats(0.01, 1), min_size=n_classes, max_size=n_classes),
                                          min_size=n_texts, max_size=n_texts)))
    proba = weights / weights.sum(axis=1, keepdims=True)
    rows, labels, digests = [], [], []
    for t, labels_of_text in enumerate(sets):
        for label in sorted(labels_of_text):
            rows.append(np.log(proba[t]))
            labels.append(label)
            digests.append(1000 + t)
    figures = multi_label(labels, np.array(rows), classes, np.array(digests, dtype=np.uint64), threshold=threshold)
    every = sorted(set(classes) | set(labels))
    binarizer = MultiLabelBinarizer(classes=every)
    y_true = binarizer.fit_transform(sets)
    given_sets = [{c for c, p in zip(classes, row) if p >= threshold} for row in proba]
    y_given = binarizer.transform(given_sets)
    for average in ("micro", "macro"):
        p, r, f1, _ = precision_recall_fscore_support(y_true, y_given, average=average, zero_division=0)
        assert (figures[average]["precision"], figures[average]["recall"], figures[average]["f1"]) == \
            pytest.approx((p, r, f1), abs=1e-12)
    for k in (1, 3):  # ranked by the probabilities as the log-probabilities give them back, ties in class order
        best = [set(np.array(classes)[np.argsort(-row, kind="stable")[:k]]) for row in np.exp(np.log(proba))]
        assert figures["at_k"][str(k)]["precision"] == pytest.approx(
            np.mean([len(b & s) / min(k, n_classes) for b, s in zip(best, sets)]), abs=1e-12)
        assert figures["at_k"][str(k)]["recall"] == pytest.approx(
            np.mean([len(b & s) / len(s) for b, s in zip(best, sets)]), abs=1e-12)


def test_cross_validation_tune_and_info_keep_a_text_s_labels_together(modapte, tmp_path):
    """Folds of texts: a text's copies are tested together, never trained on beside themselves,
    where stratified folds of copies split hundreds of ModApte90's texts. eval --cv and tune
    score the label sets; tune ranks by their micro F1, and info says the model was trained on
    texts of several labels, and what it was tuned by."""
    from nbtext.folds import stratified_folds, text_folds
    from nbtext.readers import LabelledCorpus
    from nbtext.readers.document import document_digest

    root, _ = modapte
    documents = list(LabelledCorpus([str(root / "train")]))
    labels = [doc.label for doc in documents]
    digests = np.array([document_digest(doc) for doc in documents], dtype=np.uint64)

    def split(folds: np.ndarray) -> int:
        return sum(len(set(folds[digests == d].tolist())) > 1 for d in np.unique(digests))

    assert split(stratified_folds(labels, 2, 0)) > 500 and split(text_folds(labels, digests, 2, 0)) == 0

    said = run(["eval", "--cv", "2", root / "train"]).stdout.splitlines()
    micro = float(re.search(r" micro F1 of label sets (0\.\d{4}) ± ", said[-1]).group(1))
    assert said[-1].startswith("accuracy 0.") and 0.78 < micro < 0.84
    assert said[-1].endswith("(2 folds of texts, stratified, seed 0)")
    assert not any("trained on a copy" in line for line in said)
    result = run(["tune", root / "train", "-o", tmp_path / "t.joblib", "--cv", "2", "--grid", '{"alpha": [0.2, 1]}'])
    best = result.stderr.splitlines()[-2]
    assert re.fullmatch(r"best micro_f1 0\.(79|8\d)\d\d ± 0\.\d{4} -> .*t\.joblib", best)
    info = run(["info", tmp_path / "t.joblib"]).stdout.splitlines()
    assert ("several labels: 1,169 texts trained on had more than one; predict --threshold 0.05 --top K gives each "
            "text its labels as a set") in info
    assert any(re.fullmatch(r"tuned: 2-fold micro_f1 0\.(79|8\d)\d\d ± 0\.\d{4} \(seed 0\)", line) for line in info)

"""Numbers and categories beside the text, in one model: through the command line on real
tables (scikit-learn's own as oracle; SpamAssassin's mail as text with its size, links, hour and
mailer), by hand, and as a property (parts merged, or taken out, are the whole)."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import datasets
from sklearn import naive_bayes as skl
from sklearn.preprocessing import OrdinalEncoder

from nbtext import Document
from nbtext.errors import DataError
from nbtext.model import Model
from nbtext.readers import Columns, LabelledCorpus
from nbtext.tabular import ColumnSums
from nbtext.training import train

from .conftest import corpus_path, run

TABLES = {"iris": datasets.load_iris, "wine": datasets.load_wine, "breast-cancer": datasets.load_breast_cancer}
MAIL_NUMERIC, MAIL_CATEGORICAL = ("log_size", "log_links"), ("hour", "mailer")


def _write(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _answers(stdout: str) -> list[str]:
    return [line.split("\t")[1] for line in stdout.splitlines()]


@pytest.mark.parametrize("table", TABLES)
def test_a_table_of_numbers_is_scikit_learns_gaussian_nb(table, tmp_path):
    """No text column: train, predict and eval through the command line give GaussianNB's answers."""
    data = TABLES[table]()
    names = [f"f{i}" for i in range(data.data.shape[1])]
    labels = data.target_names[data.target]
    rows = [[y, *(repr(float(v)) for v in x)] for x, y in zip(data.data, labels)]
    path = _write(tmp_path / f"{table}.csv", ["label", *names], rows)
    run(["train", path, "--numeric-columns", ",".join(names), "-o", tmp_path / "m.joblib"])
    model = Model.load(tmp_path / "m.joblib")
    theirs = skl.GaussianNB().fit(data.data, labels)
    rows = [dict(zip(names, x)) for x in data.data]
    np.testing.assert_allclose(model.predict_log_proba([""] * len(rows), rows), theirs.predict_log_proba(data.data),
                               rtol=0, atol=1e-9)
    assert _answers(run(["predict", tmp_path / "m.joblib", path]).stdout) == theirs.predict(data.data).tolist()
    accuracy = float((theirs.predict(data.data) == labels).mean())
    assert run(["eval", tmp_path / "m.joblib", path]).stdout.startswith(f"accuracy {accuracy:.4f}")


def test_a_table_of_categories_is_scikit_learns_categorical_nb(tmp_path):
    """The 8x8 digits, each pixel's darkness a category: CategoricalNB over the values seen."""
    X, y = datasets.load_digits(return_X_y=True)
    names = [f"p{i}" for i in range(64)]
    path = _write(tmp_path / "digits.csv", ["label", *names], [[str(t), *map(int, x)] for x, t in zip(X, y)])
    run(["train", path, "--categorical-columns", ",".join(names), "-o", tmp_path / "m.joblib"])
    model = Model.load(tmp_path / "m.joblib")
    theirs = skl.CategoricalNB().fit(OrdinalEncoder().fit_transform(X), y.astype(str))
    rows = [{name: str(int(v)) for name, v in zip(names, x)} for x in X]
    np.testing.assert_allclose(model.predict_log_proba([""] * len(rows), rows),
                               theirs.predict_log_proba(OrdinalEncoder().fit_transform(X)), rtol=0, atol=1e-9)


def test_text_and_columns_add_up_as_the_formula_says():
    """By hand: log P(c|x) = log P(c) + the words' score + each column's log-likelihood, normalised.
    Class a: sizes 1 and 3 (mean 2, variance 1), tier gold twice; class b: size 10 twice (variance 0
    plus epsilon), tiers gold and free."""
    docs = [Document("cheap", "a", "1", values={"size": 1.0, "tier": "gold"}),
            Document("cheap pills", "a", "2", values={"size": 3.0, "tier": "gold"}),
            Document("lunch", "b", "3", values={"size": 10.0, "tier": "gold"}),
            Document("lunch", "b", "4", values={"size": 10.0, "tier": "free"})]
    for variant in ("multinomial", "complement"):
        model = train(docs, numeric_columns=["size"], categorical_columns=["tier"], settings={"variant": variant})
        text = train([Document(d.text, d.label, d.source) for d in docs], settings={"variant": variant})
        epsilon = 1e-9 * np.var([1.0, 3.0, 10.0, 10.0])
        gauss = [-0.5 * (math.log(2 * math.pi * (1 + epsilon)) + (2.5 - 2) ** 2 / (1 + epsilon)),
                 -0.5 * (math.log(2 * math.pi * epsilon) + (2.5 - 10) ** 2 / epsilon)]
        tier = [math.log((0 + 1) / (2 + 2)), math.log((1 + 1) / (2 + 2))]  # "free": a 0 of 2, b 1 of 2; 2 values
        words = text.predict_log_proba(["cheap"])[0] + (math.log(0.5) if variant == "complement" else 0)
        joint = words + np.array(gauss) + np.array(tier)
        expected = joint - np.logaddexp.reduce(joint)
        got = model.predict_log_proba(["cheap"], [{"size": 2.5, "tier": "free"}])[0]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
        # no values: the columns are summed out, and the words (with one prior) alone decide
        np.testing.assert_allclose(model.predict_log_proba(["cheap"])[0],
                                   words - np.logaddexp.reduce(words), rtol=0, atol=1e-12)


@pytest.fixture(scope="module")
def mail_table(tmp_path_factory):
    """SpamAssassin's 3,000 messages as rows: text, log size, log links, hour and mailer."""
    corpus_path("spamassassin-2003")
    from benchmarks.mail_columns import write_table

    folder = tmp_path_factory.mktemp("mail-table")
    whole = write_table("spamassassin-2003", folder / "mail.csv")
    with open(whole, newline="", encoding="utf-8", errors="surrogateescape") as handle:
        header, *rows = list(csv.reader(handle))
    parts = {name: [row for i, row in enumerate(rows) if i % 3 == k] for k, name in enumerate(("a", "b", "test"))}
    paths = {name: _write(folder / f"{name}.csv", header, part) for name, part in parts.items()}
    paths["train"] = _write(folder / "train.csv", header, parts["a"] + parts["b"])
    return paths, header, parts


MAIL_OPTIONS = ["--numeric-columns", ",".join(MAIL_NUMERIC), "--categorical-columns", ",".join(MAIL_CATEGORICAL)]


def _mail_rows(path):
    return list(LabelledCorpus([str(path)], columns=Columns(numeric=MAIL_NUMERIC, categorical=MAIL_CATEGORICAL)))


def test_mail_with_its_columns_trains_evaluates_predicts_and_explains(mail_table, tmp_path):
    paths, header, parts = mail_table
    model_path = tmp_path / "mail.joblib"
    trained = run(["train", paths["train"], *MAIL_OPTIONS, "-o", model_path])
    empty = {name: sum(1 for row in parts["a"] + parts["b"] if not row[header.index(name)].strip())
             for name in MAIL_CATEGORICAL}
    assert empty["mailer"] > 500  # most of the mail names no mailer
    for name, n in empty.items():
        assert f"{n:,} empty {'cell' if n == 1 else 'cells'} in column {name!r}" in trained.stderr
    model = Model.load(model_path)
    test = _mail_rows(paths["test"])
    predicted = model.predict([doc.text for doc in test], [doc.values for doc in test])
    accuracy = float(np.mean([p == doc.label for p, doc in zip(predicted, test)]))
    assert accuracy > 0.97
    assert run(["eval", model_path, paths["test"]]).stdout.startswith(f"accuracy {accuracy:.4f}")
    answers = run(["predict", model_path, paths["test"], "--explain", "3"])
    assert _answers(answers.stdout) == predicted
    # every row has a size: its weight stands beside the 3 words', as do the hour's and mailer's where given
    for line, doc in zip(answers.stdout.splitlines(), test):
        named = [field.split("=")[0] for field in line.split("\t")[3::2] if "=" in field]
        assert sorted(named) == sorted(name for name, value in doc.values.items()
                                       if value is not None and value == value), line
    seen = set(model.columns.categories[MAIL_CATEGORICAL.index("mailer")])
    unseen = sum(1 for doc in test if doc.values["mailer"] is not None and doc.values["mailer"] not in seen)
    assert unseen > 0
    assert f"{unseen:,} {'value' if unseen == 1 else 'values'} of column 'mailer' the model never saw" in answers.stderr
    info = json.loads(run(["info", model_path, "--format", "json"]).stdout)
    assert info["format_version"] == 3 and info["columns"]["numeric"] == list(MAIL_NUMERIC)
    assert f"--numeric-columns {','.join(MAIL_NUMERIC)}" in info["train_options"]


def test_merge_and_update_give_one_runs_model(mail_table, tmp_path):
    paths, _, _ = mail_table
    for name in ("a", "b", "train"):
        run(["train", paths[name], *MAIL_OPTIONS, "-o", tmp_path / f"{name}.joblib"])
    run(["merge", tmp_path / "a.joblib", tmp_path / "b.joblib", "-o", tmp_path / "merged.joblib"])
    run(["train", "--update", tmp_path / "a.joblib", paths["b"], "-o", tmp_path / "updated.joblib"])
    whole = Model.load(tmp_path / "train.joblib")
    test = _mail_rows(paths["test"])
    texts, values = [doc.text for doc in test], [doc.values for doc in test]
    for name in ("merged", "updated"):
        model = Model.load(tmp_path / f"{name}.joblib")
        np.testing.assert_allclose(model.predict_log_proba(texts, values), whole.predict_log_proba(texts, values),
                                   rtol=0, atol=1e-9)
        assert model.columns.categories == whole.columns.categories
        np.testing.assert_allclose(model.columns.m2, whole.columns.m2, rtol=1e-9)
        np.testing.assert_array_equal(model.columns.missing, whole.columns.missing)


def test_columns_help_only_where_the_text_does_not_decide(mail_table, tmp_path):
    """The columns alone classify mail better than the majority class, and far worse than text."""
    paths, _, _ = mail_table
    test = _mail_rows(paths["test"])
    rows = _mail_rows(paths["train"])
    alone = train([Document("", d.label, d.source, values=d.values) for d in rows],
                  numeric_columns=MAIL_NUMERIC, categorical_columns=MAIL_CATEGORICAL)
    right = np.mean([p == d.label for p, d in zip(alone.predict([""] * len(test), [d.values for d in test]), test)])
    majority = max(np.mean([d.label == label for d in test]) for label in ("ham", "spam"))
    assert majority < right < 0.97


def test_a_cell_that_is_not_a_number_is_an_error_naming_row_and_column(tmp_path):
    data = datasets.load_iris()
    rows = [[data.target_names[t], *(repr(float(v)) for v in x)] for x, t in zip(data.data[:5], data.target[:5])]
    rows[2][3] = "wide"
    path = _write(tmp_path / "iris.csv", ["label", "a", "b", "c", "d"], rows)
    failed = run(["train", path, "--numeric-columns", "a,b,c,d", "-o", tmp_path / "m.joblib"], expect=None)
    assert failed.exit_code != 0
    assert f"{path}:4: column 'c' holds 'wide', not a number" in failed.stderr


def test_jsonl_fields_of_numbers_and_categories(tmp_path):
    records = [{"label": "a", "text": "cheap", "size": 1, "tier": "gold"},
               {"label": "a", "text": "cheap pills", "size": "3", "tier": 7},
               {"label": "b", "text": "lunch", "size": None, "tier": None},
               {"label": "b", "text": "lunch now", "size": 10.5}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    docs = list(LabelledCorpus([str(path)], columns=Columns(numeric=("size",), categorical=("tier",))))
    assert [doc.values for doc in docs][:2] == [{"size": 1.0, "tier": "gold"}, {"size": 3.0, "tier": "7"}]
    assert math.isnan(docs[2].values["size"]) and docs[2].values["tier"] is None and docs[3].values["tier"] is None
    result = run(["train", path, "--numeric-columns", "size", "--categorical-columns", "tier", "-o",
                  tmp_path / "m.joblib"])
    assert "2 empty cells in column 'tier'" in result.stderr and "1 empty cell in column 'size'" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--numeric-columns", "label"], "column 'label' is the label column"),
    (["--numeric-columns", "a", "--categorical-columns", "a"], "column 'a' is named twice"),
    (["--numeric-columns", "a", "--calibrate"], "not yet with --calibrate or --spam-label"),
    (["--numeric-columns", "a,,b"], "has an empty name"),
])
def test_columns_that_cannot_be_read_are_usage_errors(args, message, tmp_path):
    path = _write(tmp_path / "t.csv", ["label", "text", "a", "b"], [["x", "one", "1", "2"], ["y", "two", "3", "4"]])
    result = run(["train", path, *args, "-o", tmp_path / "m.joblib"], expect=2)
    assert message in result.stderr


def test_a_model_without_columns_is_still_written_in_format_2(tmp_path):
    path = _write(tmp_path / "t.csv", ["label", "text"], [["x", "one"], ["y", "two"]])
    run(["train", path, "-o", tmp_path / "m.joblib"])
    assert json.loads(run(["info", tmp_path / "m.joblib", "--format", "json"]).stdout)["format_version"] == 2


_values = st.one_of(st.floats(-1e3, 1e3, allow_nan=False), st.just(math.nan))
_rows = st.lists(st.tuples(st.sampled_from("abc"), _values, st.sampled_from(["x", "y", "z", None])), min_size=1,
                 max_size=30)


@settings(max_examples=60, deadline=None)
@given(_rows, _rows)
def test_sums_of_parts_merged_are_the_sums_of_the_whole(left, right):
    def sums(rows):
        return ColumnSums.of([r[0] for r in rows], [{"n": r[1], "c": r[2]} for r in rows], ["n"], ["c"])

    whole, merged = sums(left + right), sums(left).merge(sums(right))
    assert merged.classes == whole.classes and merged.categories == whole.categories
    for name in ("weight", "mean", "m2", "all_count", "all_mean", "all_m2"):
        np.testing.assert_allclose(getattr(merged, name), getattr(whole, name), rtol=1e-9, atol=1e-6)
    np.testing.assert_array_equal(merged.missing, whole.missing)
    back = merged.subtract(sums(right)).aligned(merged.classes)
    alone = sums(left).aligned(merged.classes)
    np.testing.assert_allclose(back.weight, alone.weight, atol=1e-9)
    np.testing.assert_allclose(back.mean, alone.mean, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(back.m2, alone.m2, rtol=1e-6, atol=1e-3)
    assert back.categories == alone.categories


def test_stored_sums_are_checked_when_read():
    sums = ColumnSums.of(["a", "b"], [{"n": 1.0, "c": "x"}, {"n": 2.0, "c": "y"}], ["n"], ["c"])
    assert ColumnSums.from_dict(sums.to_dict()).categories == sums.categories
    damaged = {**sums.to_dict(), "mean": np.zeros((3, 1))}
    with pytest.raises(ValueError, match="columns.mean is not a finite 2 x 1 table"):
        ColumnSums.from_dict(damaged)
    with pytest.raises(DataError, match="the columns differ"):
        sums.merge(ColumnSums.of(["a"], [{"m": 1.0}], ["m"], []))


def test_a_search_scores_columns_as_training_with_them_would(mail_table):
    """Each fold's columns, scored once for every setting, give the answers of models trained
    on the fold with those columns."""
    from nbtext.folds import stratified_folds
    from nbtext.tuning import cross_validate, expand

    paths, _, _ = mail_table
    rows = _mail_rows(paths["train"])
    candidates = expand({"alpha": [0.2], "variant": ["complement", "multinomial"],
                         "columns": [MAIL_NUMERIC + MAIL_CATEGORICAL, ("mailer",), ()]},
                        MAIL_NUMERIC, MAIL_CATEGORICAL)
    assert [(c["numeric_columns"], c["categorical_columns"]) for c in candidates[:3]] == [
        ("log_size,log_links", "hour,mailer"), ("", "mailer"), ("", "")]
    folds = stratified_folds([doc.label for doc in rows], 3, 0)
    trials = cross_validate(rows, candidates, folds=folds)
    for trial in trials:
        numeric = tuple(filter(None, trial.settings["numeric_columns"].split(",")))
        categorical = tuple(filter(None, trial.settings["categorical_columns"].split(",")))
        right = np.zeros(len(rows), dtype=bool)
        for f in range(3):
            model = train([doc for doc, g in zip(rows, folds) if g != f], numeric_columns=numeric,
                          categorical_columns=categorical,
                          settings={"alpha": 0.2, "variant": trial.settings["variant"]}, analyzer=None)
            held = [i for i, g in enumerate(folds) if g == f]
            values = [rows[i].values for i in held] if numeric or categorical else None
            right[held] = np.array(model.predict([rows[i].text for i in held], values)) == \
                np.array([rows[i].label for i in held])
        np.testing.assert_array_equal(trial.right, right, err_msg=str(trial.settings))


def test_tune_tells_whether_the_columns_help(mail_table, tmp_path):
    paths, _, _ = mail_table
    result = run(["tune", paths["train"], *MAIL_OPTIONS, "--grid", '{"alpha": [0.2]}', "--format", "json",
                  "-o", tmp_path / "best.joblib"])
    board = json.loads(result.stdout)
    assert sorted(row["settings"]["numeric_columns"] for row in board) == ["", ",".join(MAIL_NUMERIC)]
    best = Model.load(tmp_path / "best.joblib")
    assert (best.columns is not None) == bool(board[0]["settings"]["numeric_columns"])
    assert f"the same model: nbtext train DATA {board[0]['options']}" not in result.stderr  # every option is spelled
    said = result.stderr.split("the same model: ", 1)[1]
    assert ("--numeric-columns" in said) == (best.columns is not None)
    cv = run(["eval", "--cv", "3", paths["train"], *MAIL_OPTIONS, "--alpha", "0.2", "--format", "json"])
    assert math.isclose(json.loads(cv.stdout)["accuracy"]["mean"], next(
        row["mean"] for row in board if row["settings"]["numeric_columns"]), rel_tol=1e-12)
    refused = run(["eval", tmp_path / "best.joblib", paths["test"], "--numeric-columns", "log_size"], expect=2)
    assert "--numeric-columns is for --cv K" in refused.stderr


def test_a_held_out_part_is_scored_with_its_columns(mail_table, tmp_path):
    paths, _, _ = mail_table
    result = run(["train", paths["train"], *MAIL_OPTIONS, "--test-split", "0.25", "-o", tmp_path / "m.joblib"])
    model = Model.load(tmp_path / "m.joblib")
    held = model.summary["held_out"]
    assert model.columns is not None and held["n_documents"] == 500
    assert f"held-out accuracy {held['accuracy']:.4f}" in result.stderr and held["accuracy"] > 0.97

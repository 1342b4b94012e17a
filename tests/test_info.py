"""nbtext info: what a model file says of itself, and the train options that make it again.

The options are tested the only way that shows they are right: trained with them on the same
documents, a model comes out the same, counts and settings, and for one trained here, byte for
byte. They are checked on the model files of nbtext 0.1.0 (tests/golden/models), on SMS spam
with every kind of option, and on SpamAssassin read as mail.
"""

from __future__ import annotations

import csv
import json
import shlex
import subprocess
import sys

import pytest

from nbtext.model import Model

from .conftest import REPO, TICKETS, assert_same_counts, corpus_path, run

MODELS = REPO / "tests" / "golden" / "models"


def info(path, *options: str) -> str:
    return run(["info", path, *options]).stdout


def train_options(path) -> list[str]:
    return shlex.split(json.loads(info(path, "--format", "json"))["train_options"])


def assert_same_model(left, right) -> None:
    """The same analyzer, settings (a filter's cut-offs and a calibration included), terms and
    counts, exactly; but the figures of a fitted calibration to a millionth, since another
    numpy's exp and log move its search's last steps (numpy 1.24: a temperature 1e-8 off)."""
    ours, theirs = Model.load(left).to_payload(), Model.load(right).to_payload()
    assert ours["analyzer"] == theirs["analyzer"] and ours["settings"] == _floats_approx(theirs["settings"])
    assert_same_counts(ours["counts"], theirs["counts"])
    assert list(Model.load(left).terms) == list(Model.load(right).terms)


def _floats_approx(value):
    """``value`` with each float in it, however deep, compared to a millionth."""
    if isinstance(value, float):
        return pytest.approx(value, rel=1e-6)
    if isinstance(value, dict):
        return {key: _floats_approx(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_floats_approx(item) for item in value)
    return value


@pytest.mark.parametrize("name", ["default", "weighted", "hashed", "filter"])
def test_the_options_rebuild_each_model_file_of_0_1_0(name, tmp_path):
    """Each golden model, written by nbtext 0.1.0 with the options tests/golden/models/make.sh
    gives (the defaults of that day included), comes out the same when trained again with the
    options info prints for it, though the defaults have changed since (tokens, for one)."""
    options = train_options(MODELS / f"{name}.joblib")
    run(["train", TICKETS / "train", "-o", tmp_path / "again.joblib", *options])
    assert_same_model(MODELS / f"{name}.joblib", tmp_path / "again.joblib")


def test_what_info_says_of_a_calibrated_model_and_of_a_filter():
    """The lines a user reads, for the golden model with every weighing option and a calibration,
    and for the golden filter. Written before CJK runs were read in pairs, it reads them whole."""
    weighted = info(MODELS / "weighted.joblib").splitlines()
    size = (MODELS / "weighted.joblib").stat().st_size
    assert weighted == [
        f"{MODELS / 'weighted.joblib'}: multinomial Naive Bayes on 243 documents, written by nbtext 0.1.0 (model "
        f"format 1), {size:,} bytes",
        "  billing          81",
        "  shipping         81",
        "  technical        81",
        "vocabulary: 1,218 terms (of 1,676 seen)",
        "calibrated: temperature 4.073; out of fold (5-fold): log loss 0.3190 -> 0.1227, expected calibration error "
        "0.0376 -> 0.0229",
        "trained on: corpora/support-tickets/train",
        "train options: --analyzer word --ngram-range 1,2 --char-ngrams 3,3 --tokens joined --lowercase "
        "--no-cjk-bigrams --stop-words english --tf log --doc-norm l2 --idf --variant multinomial --alpha 0.2 "
        "--fit-prior --no-norm --min-df 2 --max-df 1.0 --calibrate --seed 0",
    ]
    spam_filter = info(MODELS / "filter.joblib").splitlines()
    assert spam_filter[5:7] == [
        "spam filter ('billing' is spam): spam cut-off 0.9900, ham cut-off 0.5000",
        "  5-fold cross-validation at these cut-offs: ham false positives 0.00%, spam recall 50.62%, unsure 15.23%",
    ]
    assert spam_filter[-1].endswith(" --alpha 0.05 --fit-prior --no-norm --min-df 1 --max-df 1.0 --spam-label billing "
                                    "--fp-target 0.001 --seed 0")


def test_json_holds_the_stored_summary_settings_and_analyzer():
    written = json.loads(info(MODELS / "hashed.joblib", "--format", "json"))
    assert written["nbtext_version"] == "0.1.0" and written["format_version"] == 1
    assert written["bytes"] == (MODELS / "hashed.joblib").stat().st_size
    assert written["summary"] == {"inputs": ["corpora/support-tickets/train"], "input_format": None, "columns": None,
                                  "documents": 243, "documents_per_class": {"billing": 81, "shipping": 81,
                                                                            "technical": 81},
                                  "vocabulary_size": 833, "terms_seen": 837}  # no "seconds", which 0.1.0 stored
    assert written["analyzer"]["hash_features"] == 4096 and written["weighting"] == {"tf": "log", "doc_norm": None}
    assert written["settings"]["variant"] == "bernoulli" and written["settings"]["max_df"] == 0.5


@pytest.fixture(scope="module")
def sms_files(tmp_path_factory):
    """SMS spam's training part (the first 30%) as its own TSV and as a CSV with a header."""
    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes().splitlines(keepends=True)
    folder = tmp_path_factory.mktemp("sms")
    train = lines[:int(len(lines) * 0.3)]
    (folder / "train.tsv").write_bytes(b"".join(train))
    with open(folder / "train.csv", "w", newline="", encoding="utf-8") as handle:
        table = csv.writer(handle)
        table.writerow(["kind", "message body"])
        for line in train:
            table.writerow(line.decode("utf-8", "replace").rstrip("\r\n").split("\t", 1))
    return folder


@pytest.mark.corpus
@pytest.mark.parametrize("options", [
    [],
    ["--spam-label", "spam"],
    ["--calibrate", "--seed", "3"],
    ["--test-split", "0.2", "--seed", "1"],
    ["--variant", "multinomial", "--uniform-prior", "--tokens", "joined", "--char-ngrams", "2,4", "--stop-words",
     "english", "--idf", "--doc-norm", "l2", "--tf", "binary", "--min-df", "2", "--max-df", "0.5", "--max-features",
     "5000", "--alpha", "0.07"],
    ["--analyzer", "char_wb", "--ngram-range", "2,4", "--variant", "bernoulli", "--hash-features", "2**12"],
    ["--no-lowercase", "--norm", "--ngram-range", "1,1", "--min-df", "0.001"],
], ids=["default", "filter", "calibrated", "held-out", "weighed", "hashed-characters", "cased"])
def test_the_options_give_the_same_bytes(sms_files, tmp_path, options):
    """Trained on the same SMS messages with the options info printed, the model file is the
    same bytes. A filter's spam label typed as --spam-label spam made other bytes than the one
    read from the data, until every equal string of the file was written as one object."""
    run(["train", sms_files / "train.tsv", "-o", tmp_path / "first.joblib", *options])
    again = train_options(tmp_path / "first.joblib")
    run(["train", sms_files / "train.tsv", "-o", tmp_path / "again.joblib", *again])
    assert (tmp_path / "again.joblib").read_bytes() == (tmp_path / "first.joblib").read_bytes()


@pytest.mark.corpus
def test_a_table_s_columns_and_a_stop_word_file(sms_files, tmp_path):
    """A CSV is read by the columns it was trained with, named in the options (quoted: one has a
    space). A stop-word file is named FILE, since the model keeps its words, not its path; the
    JSON lists them, and given back in a file they make the same model."""
    stop_words = tmp_path / "stop.txt"
    stop_words.write_text("the\nto\nyou\n", encoding="utf-8")
    run(["train", sms_files / "train.csv", "--text-column", "message body", "--label-column", "kind",
         "--stop-words", stop_words, "-o", tmp_path / "first.joblib"])
    said = info(tmp_path / "first.joblib").splitlines()
    assert said[-2] == "stop words: 3, not scikit-learn's English list (--format json lists them)"
    assert said[-1].startswith("train options: --text-column 'message body' --label-column kind --analyzer word ")
    assert " --stop-words FILE " in said[-1]
    written = json.loads(info(tmp_path / "first.joblib", "--format", "json"))
    assert written["analyzer"]["stop_words"] == ["the", "to", "you"]
    (tmp_path / "FILE").write_text("\n".join(written["analyzer"]["stop_words"]) + "\n", encoding="utf-8")
    again = train_options(tmp_path / "first.joblib")
    run(["train", sms_files / "train.csv", "-o", tmp_path / "again.joblib",
         *[str(tmp_path / "FILE") if option == "FILE" else option for option in again]])
    assert (tmp_path / "again.joblib").read_bytes() == (tmp_path / "first.joblib").read_bytes()


@pytest.mark.corpus
def test_a_filter_of_mail_in_a_shell_as_help_shows(tmp_path):
    """SpamAssassin read as mail: the filter's options (its header tokens and its defaults
    spelled out) go through a real shell, as the help's example passes them, and give the
    same bytes."""
    mail = corpus_path("spamassassin-2003")
    run(["train", "--input-format", "email", mail, "-o", tmp_path / "filter.joblib"])
    said = info(tmp_path / "filter.joblib").splitlines()
    assert said[-1] == ("train options: --input-format email --analyzer word --ngram-range 1,2 --tokens words "
                        "--lowercase --cjk-bigrams --headers from,to,reply-to,x-mailer,content-type,html-links --tf log "
                        "--doc-norm l2 --idf --variant complement --alpha 0.05 --fit-prior --no-norm --min-df 1 "
                        "--max-df 1.0 --spam-label spam --fp-target 0.001 --seed 0")
    assert said[-2] == f"trained on: {mail}"
    nbtext = f"{shlex.quote(sys.executable)} -m nbtext"
    options = (f"$({nbtext} info filter.joblib --format json | {shlex.quote(sys.executable)} -c "
               "'import json, sys; print(json.load(sys.stdin)[\"train_options\"])')")
    subprocess.run(["bash", "-c", f'eval "{nbtext} train {shlex.quote(str(mail))} -o again.joblib {options}"'],
                   cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "again.joblib").read_bytes() == (tmp_path / "filter.joblib").read_bytes()


def test_a_tuned_model_says_its_search_and_its_options_train_it_again(tmp_path):
    grid = '{"alpha": [0.1, 0.5], "idf": [true, false]}'
    run(["tune", TICKETS / "train", "-o", tmp_path / "best.joblib", "--grid", grid])
    said = info(tmp_path / "best.joblib").splitlines()
    tuned = json.loads(info(tmp_path / "best.joblib", "--format", "json"))["summary"]["tuned"]
    assert said[-2] == f"tuned: 3-fold accuracy {tuned['accuracy']:.4f} ± {tuned['std']:.4f} (seed 0)"
    run(["train", TICKETS / "train", "-o", tmp_path / "again.joblib", *train_options(tmp_path / "best.joblib")])
    assert_same_model(tmp_path / "best.joblib", tmp_path / "again.joblib")


def test_what_is_not_a_model_is_told(tmp_path):
    document = TICKETS / "test" / "billing" / sorted(p.name for p in (TICKETS / "test" / "billing").iterdir())[0]
    wrong = run(["info", document], expect=1).stderr
    assert wrong == f"Error: {document}: text, not an nbtext model file (the model file comes first, then the " \
                    "documents)\n"
    assert run(["info", tmp_path / "none.joblib"], expect=1).stderr == \
        f"Error: {tmp_path / 'none.joblib'}: no such model file\n"

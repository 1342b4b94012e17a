"""Model files: the same documents give the same bytes, and files written by an earlier nbtext
load and answer as they did then.

tests/golden/models holds models written once, by nbtext 0.1.0, with what nbtext answered with
them then (tests/golden/models/make.sh shows the commands): the default model, one with every
weighing and pruning option, character n-grams and a calibration, a hashed Bernoulli model, and
a spam filter; the second of them trained again under numpy 1.24; and the default one written
in model format 2, whose checksum is checked as it loads. A user's nightly job keeps
its model across upgrades; these tests fail when a change to the code would make such a file
unreadable, or make it answer differently.
"""

from __future__ import annotations

import re

import pytest

from nbtext import __version__
from nbtext.errors import EXIT_DATA_ERROR
from nbtext.model import Model
from nbtext.readers import LabelledCorpus

from .conftest import REPO, TICKETS, corpus_path, run

MODELS = REPO / "tests" / "golden" / "models"


@pytest.mark.corpus
@pytest.mark.parametrize("options", [[], ["--calibrate"], ["--spam-label", "spam"], ["--tokens", "joined",
                                     "--char-ngrams", "2,4", "--idf", "--doc-norm", "l2"]],
                         ids=["default", "calibrated", "filter", "char-ngrams"])
def test_the_same_documents_give_the_same_file(sms, tmp_path, options):
    """Trained twice on the same SMS messages, the files are the same bytes, so a nightly
    retrain can be checked with cmp or a checksum: counted in one process and in two, and with
    a seeded calibration or filter. The time training took is printed, not stored (it was)."""
    files = []
    for jobs in ("1", "2"):
        path = tmp_path / f"jobs{jobs}.joblib"
        result = run(["train", sms / "train.tsv", "-o", path, "--jobs", jobs, *options])
        assert re.search(rf" in \d+\.\ds -> {re.escape(str(path))}$", result.stderr, re.MULTILINE)
        files.append(path.read_bytes())
    assert files[0] == files[1]
    model = Model.load(tmp_path / "jobs1.joblib")
    assert "seconds" not in model.summary and model.summary["documents"] == 1672


def assert_same_lines(got: str, expected: str) -> None:
    """The same lines field by field: text exactly, and each number to the six decimals printed
    (within one unit of the last, which rounding on another platform may move)."""
    got_lines, expected_lines = got.splitlines(), expected.splitlines()
    assert len(got_lines) == len(expected_lines)
    for number, (ours, theirs) in enumerate(zip(got_lines, expected_lines), 1):
        ours_fields, their_fields = ours.split("\t"), theirs.split("\t")
        assert len(ours_fields) == len(their_fields), f"line {number}: {ours!r} against {theirs!r}"
        for field, expected_field in zip(ours_fields, their_fields):
            try:
                value = float(expected_field)
            except ValueError:
                assert field == expected_field, f"line {number}: {ours!r} against {theirs!r}"
            else:
                assert float(field) == pytest.approx(value, abs=1.01e-6), f"line {number}: {ours!r} against {theirs!r}"


def ticket_lines() -> bytes:
    """The test documents one after another, each of whose lines ``predict`` takes as a document."""
    return b"".join(path.read_bytes() for path in sorted((TICKETS / "test").glob("*/*.txt")))


def test_documents_read_for_the_golden_answers_are_the_test_folder_in_order():
    """make.sh pipes ``cat corpora/support-tickets/test/*/*.txt``; the tests pipe the same bytes."""
    assert len(ticket_lines().splitlines()) == len((MODELS / "default.predict.tsv").read_text().splitlines())


#: Models expected to answer as another does: weighted trained again under numpy 1.24, so that
#: a model a user trained before numpy 2 answers under today's numpy as one trained under it.
ANSWERS_OF = {"weighted-numpy1": "weighted", "default-format2": "default"}


@pytest.mark.parametrize("name", ["default", "weighted", "hashed", "filter", "weighted-numpy1", "default-format2"])
def test_a_saved_model_predicts_as_it_did(name):
    result = run(["predict", MODELS / f"{name}.joblib", "--proba", "--top", "3"], input=ticket_lines())
    assert_same_lines(result.stdout, (MODELS / f"{ANSWERS_OF.get(name, name)}.predict.tsv").read_text())


@pytest.mark.parametrize("name", ["default", "weighted", "filter", "weighted-numpy1", "default-format2"])
def test_a_saved_model_shows_the_same_top_words(name):
    result = run(["inspect-top-words", MODELS / f"{name}.joblib", "--top", "5", "--format", "tsv"])
    assert_same_lines(result.stdout, (MODELS / f"{ANSWERS_OF.get(name, name)}.top-words.tsv").read_text())


def test_a_saved_filter_gives_the_same_verdicts(monkeypatch):
    monkeypatch.chdir(REPO)  # the golden lines name the messages from the top of the repository
    result = run(["filter", MODELS / "filter.joblib", "corpora/support-tickets/test"])
    assert_same_lines(result.stdout, (MODELS / "filter.filter.tsv").read_text())
    assert {line.split("\t")[1] for line in result.stdout.splitlines()} == {"Spam", "Ham", "Unsure"}


def test_saved_models_keep_their_settings():
    """What each file says of itself, as ``Model.load`` gives it to a library user."""
    weighted, hashed, spam = (Model.load(MODELS / f"{name}.joblib") for name in ("weighted", "hashed", "filter"))
    assert (weighted.analyzer.char_ngrams, weighted.analyzer.tokens) == ((3, 3), "joined")
    assert weighted.counts.doc_norm == "l2" and weighted.settings["idf"] and weighted.settings["min_df"] == 2
    assert weighted.settings["calibration"]["temperature"] > 0
    assert (hashed.analyzer.hash_features, hashed.settings["variant"]) == (4096, "bernoulli")
    assert spam.settings["spam"]["label"] == "billing" and spam.summary["documents"] == 243


@pytest.mark.parametrize("commit", ["d2cd9c0", "42b9dfc"])
def test_a_model_of_the_first_days_layouts_is_refused_with_what_to_do(commit):
    """first-day-COMMIT.joblib was written by nbtext at COMMIT on the project's first day, under
    the same format number, before the layout settled (811d13b): d2cd9c0's counts had another
    layout and it kept no pruning (``kept``); 42b9dfc's kept no sums of the kept terms
    (``statistic``). They were called damaged (KeyError: 'kept', KeyError: 'statistic')."""
    path = MODELS / f"first-day-{commit}.joblib"
    result = run(["predict", path], input="refund\n", expect=EXIT_DATA_ERROR)
    assert result.stderr == (f"Error: {path}: written by an early build of nbtext, in a layout this nbtext "
                             f"{__version__} does not read: train the model again\n")


def test_a_saved_model_updated_or_merged_keeps_no_stored_time(tmp_path):
    """The saved models, like every file written before the time was left out, store the time
    their training took; updated or merged, the new file keeps none (it would be the old run's)."""
    assert "seconds" in Model.load(MODELS / "default.joblib").summary
    run(["train", TICKETS / "test", "--update", MODELS / "default.joblib", "-o", tmp_path / "updated.joblib"])
    run(["train", TICKETS / "test", "-o", tmp_path / "test.joblib"])
    run(["merge", MODELS / "default.joblib", tmp_path / "test.joblib", "-o", tmp_path / "merged.joblib"])
    for name in ("updated", "merged"):
        summary = Model.load(tmp_path / f"{name}.joblib").summary
        assert "seconds" not in summary and summary["documents"] == 243 + 120, name


def test_a_model_that_reads_cjk_runs_whole_merges_where_it_never_saw_one(tmp_path):
    """Models trained before CJK runs were read in pairs read them whole. Merged with one that
    reads pairs, where neither saw a CJK character, the counts are what either reading gives:
    the merged model reads pairs. Where one saw Chinese text (SpamAssassin's spam), the two
    readings gave other counts, and merge says how the analyzers differ."""
    run(["train", TICKETS / "test", "--no-cjk-bigrams", "-o", tmp_path / "whole.joblib"])
    run(["train", TICKETS / "train", "-o", tmp_path / "pairs.joblib"])
    run(["merge", tmp_path / "whole.joblib", tmp_path / "pairs.joblib", "-o", tmp_path / "merged.joblib"])
    merged = Model.load(tmp_path / "merged.joblib")
    assert merged.analyzer.cjk_bigrams and merged.summary["documents"] == 120 + 243
    assert merged.predict(["東京都 refund"]) == merged.predict(["refund"])

    chinese = [d.text for d in LabelledCorpus([str(corpus_path("spamassassin-2003"))], input_format="email")
               if len(re.findall("[\u4e00-\u9fff]", d.text)) > 100]
    lines = "".join("billing\t" + " ".join(text.split()) + "\n" for text in chinese)
    (tmp_path / "chinese.tsv").write_text(lines, encoding="utf-8")
    run(["train", TICKETS / "test", tmp_path / "chinese.tsv", "--no-cjk-bigrams", "-o", tmp_path / "saw.joblib"])
    result = run(["merge", tmp_path / "saw.joblib", tmp_path / "pairs.joblib", "-o", tmp_path / "no.joblib"],
                 expect=EXIT_DATA_ERROR)
    assert result.stderr == "Error: cannot merge models whose analyzers differ: cjk_bigrams False vs True\n"


def test_a_file_of_format_2_holds_the_checksum_of_what_it_holds():
    """Format 2 files end with a checksum of their contents, checked as they load: a format 1
    file holds none, and is read as it was."""
    from nbtext import modelfile

    payload = modelfile.load(str(MODELS / "default-format2.joblib"))
    assert payload["format_version"] == 2 and list(payload)[-1] == "checksum"
    content = {key: value for key, value in payload.items() if key != "checksum"}
    assert payload["checksum"] == f"{modelfile.checksum(content):08x}"
    assert "checksum" not in modelfile.load(str(MODELS / "default.joblib"))

"""The commands as a user meets them: exact lines, exit codes, pipes and help pages."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import click
import pytest

from nbtext.cli import cli
from nbtext.cli.process import BLAS_THREAD_VARIABLES
from nbtext.model import Model
from nbtext.readers import LabelledCorpus

from .conftest import (REPO, TICKETS, corpus_path, in_bash, nbtext_command, nbtext_process, numpy_imports_by_itself,
                       on_a_terminal, library_guide_example, run)

GOLDEN = Path(__file__).parent / "golden"


def test_train_prints_a_summary(tmp_path):
    result = run(["train", TICKETS / "train", "-o", tmp_path / "m.joblib", "--variant", "complement"])
    lines = result.stderr.splitlines()
    assert lines[:3] == [
        "read 243 documents",
        "1 decoded with replacement (bytes not valid utf-8)",
        "1 empty (kept: they still count for the class priors)",
    ]
    assert lines[3].startswith("trained complement Naive Bayes on 243 documents in ")
    assert lines[4:] == ["  billing          81", "  shipping         81", "  technical        81",
                         "vocabulary: 920 terms (of 920 seen)"]
    assert result.stdout == ""


def test_train_keeps_one_letter_words_unless_told(tmp_path):
    """The default tokens keep one-letter words ("I want a refund": i, want, a, refund), which
    scored closest to the tuned pipeline across the shared corpora (README); --tokens words
    drops them, as scikit-learn's default does, and so does a character analyzer untold."""
    run(["train", TICKETS / "train", "-o", tmp_path / "default"])
    run(["train", TICKETS / "train", "-o", tmp_path / "words", "--tokens", "words"])
    run(["train", TICKETS / "train", "-o", tmp_path / "chars", "--analyzer", "char_wb"])
    default, words = Model.load(tmp_path / "default"), Model.load(tmp_path / "words")
    assert (default.analyzer.tokens, words.analyzer.tokens) == ("all-words", "words")
    assert {"i", "a", "i want"} <= set(default.terms)
    assert not {"i", "a", "i want"} & set(words.terms) and "want" in words.terms
    assert Model.load(tmp_path / "chars").analyzer.tokens == "words"  # words or not, unused by char_wb
    result = run(["train", TICKETS / "train", "-o", tmp_path / "x", "--analyzer", "char_wb", "--tokens", "all-words"],
                 expect=1)
    assert "Error: --tokens is how the word analyzer finds words: use it with the word analyzer" in result.stderr


def test_eval_table_matches_golden_file(tickets_model):
    """Into a pipe, the tables' lines end at their last character, not in rich's cell padding:
    the golden file has no trailing spaces, and a saved report diffs cleanly."""
    result = run(["eval", tickets_model, TICKETS / "test"])
    assert result.stdout == (GOLDEN / "eval-tickets.txt").read_text()
    assert result.stderr == "read 120 documents\n"


def test_eval_json(tickets_model):
    report = json.loads(run(["eval", tickets_model, TICKETS / "test", "--format", "json"]).stdout)
    assert {"accuracy", "macro_f1", "log_loss", "labels", "per_class", "confusion_matrix", "n_documents"} <= set(report)
    assert report["n_documents"] == 120 and report["labels"] == ["billing", "shipping", "technical"]
    assert report["accuracy"] == pytest.approx(117 / 120)
    assert report["confusion_matrix"] == [[40, 0, 0], [1, 39, 0], [2, 0, 38]]
    assert report["per_class"]["shipping"] == {"precision": 1.0, "recall": 39 / 40,
                                               "f1": pytest.approx(2 * 39 / 79), "support": 40}


def test_eval_lists_the_documents_it_labels_wrongly(tickets_model, tmp_path):
    """The three errors of the confusion matrix above, each named, with both probabilities and
    the words that most raise the wrong label over the true one."""
    wrong = tmp_path / "wrong.tsv"
    result = run(["eval", tickets_model, TICKETS / "test", "--errors", wrong, "--explain", "3"])
    assert result.stdout == (GOLDEN / "eval-tickets.txt").read_text()  # the report as without
    assert result.stderr.endswith(f"3 documents labelled wrongly -> {wrong}\n")
    refused = run(["eval", tickets_model, TICKETS / "test", "--errors", tickets_model], expect=2)
    assert f"Error: --errors {tickets_model} is MODEL: the list would be written over it\n" in refused.stderr
    test = TICKETS / "test"
    assert wrong.read_text() == (
        f"{test}/shipping/020.txt\tshipping\tbilling\t0.719285\t0.280710\tfor my\t1.543771\ta receipt\t1.431527"
        "\texpense\t1.431527\n"
        f"{test}/technical/003.txt\ttechnical\tbilling\t1.000000\t0.000000\tand stop\t2.716724\tcancel\t2.716724"
        "\tcancel my\t2.716724\n"
        f"{test}/technical/017.txt\ttechnical\tbilling\t1.000000\t0.000000\tand stop\t2.716724\tcancel\t2.716724"
        "\tcancel my\t2.716724\n")


def test_eval_errors_on_a_real_corpus_are_the_matrix_errors_and_predict_explains_them(sms, tmp_path):
    """SMS spam: a line for each error the report counts, in input order; with two classes the
    runner-up is the true class, so the words are those predict --explain gives the same text.
    A class the model does not have is an error with no probability and no words."""
    model, wrong = tmp_path / "sms.joblib", tmp_path / "wrong.tsv"
    run(["train", sms / "train.tsv", "-o", model])
    report = json.loads(run(["eval", model, sms / "test.tsv", "--format", "json", "--errors", wrong,
                             "--explain", "4"]).stdout)
    rows = [line.split("\t") for line in wrong.read_text().splitlines()]
    assert len(rows) == round((1 - report["accuracy"]) * report["n_documents"])
    matrix = report["confusion_matrix"]
    assert len(rows) == matrix[0][1] + matrix[1][0] == 64
    numbers = [int(row[0].rsplit(":", 1)[1]) for row in rows]
    assert numbers == sorted(set(numbers)) and all(row[1] != row[2] for row in rows)
    assert all(float(row[3]) >= 0.5 >= float(row[4]) for row in rows)
    texts = (sms / "test.tsv").read_text(errors="replace").splitlines()
    lines = "".join(texts[n - 1].split("\t", 1)[1] + "\n" for n in numbers)
    explained = run(["predict", model, "--explain", "4"], input=lines).stdout.splitlines()
    assert [row[5:] for row in rows] == [line.split("\t")[2:] for line in explained]
    assert [row[2] for row in rows] == [line.split("\t")[0] for line in explained]
    # a label the model never saw
    other = tmp_path / "other.tsv"
    other.write_text("spam\tWIN a prize now\nunseen\tsee you at lunch\n")
    run(["eval", model, other, "--errors", wrong, "--explain", "4"])
    (line,) = wrong.read_text().splitlines()
    name, true, predicted, p, p_true = line.split("\t")
    assert (name, true, predicted, p_true) == (f"{other}:2", "unseen", "ham", "") and float(p) > 0.5


def test_a_class_named_in_other_letter_case_is_pointed_out(tmp_path):
    """A test folder named Billing beside a model's billing is a label the model never saw:
    eval said so and no more, and the user read 0% recall as a bad model. eval and an update
    now say that the two names differ only in case, as a merge does (test_training)."""
    (tmp_path / "test").mkdir()
    for label in ("Billing", "shipping", "technical"):
        (tmp_path / "test" / label).symlink_to(TICKETS / "test" / label.lower())
    model = tmp_path / "m.joblib"
    run(["train", TICKETS / "train", "-o", model])
    said = run(["eval", model, tmp_path / "test"]).stdout.splitlines()
    assert said[1:3] == ["40 documents have labels the model never saw (Billing 40): counted as errors, left out of "
                         "the log loss and the calibration",
                         "Billing and the model's billing differ only in letter case, which makes them two labels: "
                         "rename one to the other"]
    updated = run(["train", "--update", model, tmp_path / "test", "-o", tmp_path / "u.joblib"]).stderr
    assert updated.endswith("new class from this update: Billing (the model had billing, shipping, technical)\n"
                            "Billing and the model's billing differ only in letter case, which makes them two "
                            "labels: rename one to the other\n")


def test_a_class_named_in_another_unicode_form_is_pointed_out(tmp_path):
    """A folder named on macOS is named decomposed (e and U+0301 for é), one copied elsewhere
    composed. eval said the model "never saw" facturación, a class it has; an update or a
    merge added it as a new class, named as the old one prints. Both now say what differs."""
    composed, decomposed = "facturaci\u00f3n", "facturacio\u0301n"
    for part, name in (("train", composed), ("test", decomposed)):
        (tmp_path / part).mkdir()
        for label in ("shipping", "technical"):
            (tmp_path / part / label).symlink_to(TICKETS / part / label)
        (tmp_path / part / name).symlink_to(TICKETS / part / "billing")
    model = tmp_path / "m.joblib"
    run(["train", tmp_path / "train", "-o", model])
    twins = (f"{decomposed} and the model's {composed} are one name written in two Unicode forms (decomposed and "
             f"composed; macOS writes file names decomposed), which are two labels: convmv -r -f utf8 -t utf8 --nfc "
             f"--notest DIR renames DIR's files and folders to the composed form\n")
    said = run(["eval", model, tmp_path / "test"]).stdout.splitlines(keepends=True)
    assert said[1] == (f"40 documents have labels the model never saw ({decomposed} 40): counted as errors, left "
                       "out of the log loss and the calibration\n")
    assert said[2] == twins
    updated = run(["train", "--update", model, tmp_path / "test", "-o", tmp_path / "u.joblib"]).stderr
    assert updated.endswith(f"new class from this update: {decomposed} (the model had {composed}, shipping, "
                            f"technical)\n{twins}")
    run(["train", tmp_path / "test", "-o", tmp_path / "t.joblib"])
    merged = run(["merge", model, tmp_path / "t.joblib", "-o", tmp_path / "both.joblib"]).stderr.splitlines()
    assert merged[-1] == (f"{composed} and {decomposed} are one name written in two Unicode forms (composed and "
                          f"decomposed; macOS{twins.split('; macOS', 1)[1]}").rstrip("\n")


def test_predict_stdin_lines(tickets_model):
    result = run(["predict", tickets_model], input="my parcel never arrived\nthe app crashes on login\n")
    assert result.stdout == "shipping\ntechnical\n"
    result = run(["predict", tickets_model, "-", "--proba", "--top", "2"], input="charged twice\n")
    label, p, second, q = result.stdout.rstrip("\n").split("\t")
    assert (label, second) == ("billing", "shipping") and float(p) > 0.9 > float(q)


def test_labelled_lines_piped_to_predict_are_said_to_be_classified_whole(tmp_path):
    """`nbtext predict MODEL < test.tsv` classified each LABEL<TAB>TEXT line whole, its label
    a word of it, and said nothing: on SMS spam's 70% tested on a model of its 30%, 4 hams
    were answered ham for the word "ham" in their line, and spam without it. The report now
    says so and what to give instead; the text alone, or a line with no tab, gets no word."""
    sms = corpus_path("sms-spam") / "SMSSpamCollection"
    lines = sms.read_bytes().splitlines(keepends=True)
    (tmp_path / "train.tsv").write_bytes(b"".join(lines[:1672]))
    (tmp_path / "test.tsv").write_bytes(b"".join(lines[1672:]))
    run(["train", tmp_path / "train.tsv", "-o", tmp_path / "m"])
    whole = in_bash(f"nbtext predict {tmp_path / 'm'} < {tmp_path / 'test.tsv'}")
    assert whole.stderr.splitlines()[-1] == (
        "stdin's first 20 lines hold a tab, as LABEL<TAB>TEXT lines do, and were classified whole, what comes "
        "before the tab too: cut -f2- | nbtext predict MODEL classifies what follows it, and nbtext eval MODEL - "
        "scores labelled lines")
    text = in_bash(f"cut -f2- {tmp_path / 'test.tsv'} | nbtext predict {tmp_path / 'm'}")
    assert "classified whole" not in text.stderr
    labels = [line.split(b"\t", 1)[0].decode() for line in lines[1672:]]
    answers = list(zip(labels, whole.stdout.splitlines(), text.stdout.splitlines(), strict=True))
    assert [answer for answer in answers if answer[1] != answer[2]] == [("ham", "ham", "spam")] * 4
    fasttext = run(["predict", tmp_path / "m"], input="__label__ham see you at lunch\n").stderr
    assert fasttext.endswith("\nstdin's line starts with __label__, as fastText's labelled lines do, and was "
                             "classified whole, labels too: nbtext eval MODEL - scores labelled lines, and sed "
                             "'s/^__label__[^ ]* *//' | nbtext predict MODEL classifies their text\n")


def test_paths_piped_to_predict_are_said_to_be_classified_as_text(tickets_model, tmp_path):
    """`find DIR | nbtext predict MODEL` classifies each file's name, as a line of text, and
    said nothing: every ticket was "shipping". The report now says so, and how to give them."""
    piped = in_bash(f"find {TICKETS / 'test' / 'billing'} -name '*.txt' | sort | nbtext predict {tickets_model}")
    assert piped.returncode == 0 and piped.stdout == "shipping\n" * 40
    assert piped.stderr == ("read 40 documents\nstdin's lines name files or folders (the first 20 of 40 do), and "
                            "were classified as text: to classify what the files hold, give them as PATH arguments "
                            "(find ... -print0 | xargs -0 nbtext predict MODEL)\n")
    command = nbtext_command(tmp_path / "bin")  # xargs runs a command, not bash's function
    given = in_bash(f"find {TICKETS / 'test' / 'billing'} -name '*.txt' -print0 | sort -z | "
                    f"xargs -0 {command} predict {tickets_model}")
    assert given.stderr == "" and given.stdout.count("\tbilling\n") == 40
    one = in_bash(f"echo {TICKETS / 'test'} | nbtext predict {tickets_model}")
    assert one.stderr.endswith("\nstdin's line names a file or folder, and was classified as text: to classify "
                               "what the files hold, give them as PATH arguments (find ... -print0 | xargs -0 "
                               "nbtext predict MODEL)\n")
    # lines of text are not paths, even where a word of one names a file here
    (tmp_path / "invoice").write_text("a file named as a word")
    text = in_bash(f"printf 'invoice\\nmy invoice is wrong\\n' | nbtext predict {tickets_model}", cwd=tmp_path)
    assert text.stdout == "billing\nbilling\n" and text.stderr == ""


def test_predict_files_and_folders_in_order(tickets_model):
    folder = TICKETS / "test" / "billing"
    result = run(["predict", tickets_model, folder / "001.txt", TICKETS / "test" / "shipping"])
    lines = result.stdout.splitlines()
    assert len(lines) == 41
    assert lines[0] == f"{folder / '001.txt'}\tbilling"
    assert lines[1] == f"{TICKETS / 'test' / 'shipping' / '000.txt'}\tshipping"


def test_predict_jsonl(tickets_model):
    result = run(["predict", tickets_model, "--format", "jsonl", "--proba", "--top", "3"], input="app crash\n\n")
    first, empty = (json.loads(line) for line in result.stdout.splitlines())
    assert first["line"] == 1 and first["label"] == "technical" and len(first["top"]) == 3
    assert sum(t["proba"] for t in first["top"]) == pytest.approx(1.0)
    assert empty["line"] == 2  # an empty line is still a document, and still gets its answer
    assert result.stderr == ("read 2 documents\n1 empty (no words to go by: Complement NB gives every class the same "
                             "probability)\n")
    # more than there are: every class, and stderr says why the lines are short of K
    result = run(["predict", tickets_model, "--format", "jsonl", "--top", "5"], input="app crash\n")
    assert [t["label"] for t in json.loads(result.stdout)["top"]] == ["technical", "shipping", "billing"]
    assert result.stderr == "--top 5: the model has 3 classes, so each answer gives all 3\n"


def test_the_library_gives_the_probabilities_predict_prints(tickets_model):
    """``Model.predict_proba``, which a scikit-learn user reaches for first, is what
    ``nbtext predict --proba`` prints, to the bit (JSON keeps every digit)."""
    texts = ["app crash", "charged twice", "my parcel never arrived", ""]
    printed = run(["predict", tickets_model, "--format", "jsonl", "--proba", "--top", "3"],
                  input="\n".join(texts) + "\n").stdout.splitlines()
    model = Model.load(tickets_model)
    proba = model.predict_proba(texts)
    assert proba.shape == (4, 3) and len(set(proba[3].tolist())) == 1  # an empty document: no class favoured
    np.testing.assert_allclose(proba[3], 1 / 3, rtol=1e-15)  # 1/3 exactly with numpy 2, an ulp off with 1.24
    for row, line in zip(proba, printed):
        assert dict(zip(model.classes, row.tolist())) == {t["label"]: t["proba"] for t in json.loads(line)["top"]}


@pytest.mark.parametrize("variant, priors, answer", [
    ("multinomial", [81 / 121, 40 / 121], "classified by the class priors alone"),
    ("complement", [0.5, 0.5], "no words to go by: Complement NB gives every class the same probability"),
    ("bernoulli", None, "classified by the class priors and the absence of every word"),
])
def test_the_report_says_what_an_empty_document_is_answered(tmp_path, variant, priors, answer):
    """With unequal classes (81 billing tickets, 40 shipping), the priors and a tie differ, so
    the probabilities show which one an empty line got; words the model never saw get the same,
    and the report says so of them too."""
    import shutil

    shutil.copytree(TICKETS / "train" / "billing", tmp_path / "train" / "billing")
    (tmp_path / "train" / "shipping").mkdir()
    for path in sorted((TICKETS / "train" / "shipping").iterdir())[:40]:
        shutil.copy(path, tmp_path / "train" / "shipping")
    model = tmp_path / "m.joblib"
    run(["train", tmp_path / "train", "--variant", variant, "-o", model])
    result = run(["predict", model, "--format", "jsonl", "--proba", "--top", "2"], input="\nqqzx zzqx\n")
    empty, unknown = ({t["label"]: t["proba"] for t in json.loads(line)["top"]} for line in result.stdout.splitlines())
    assert empty == pytest.approx(unknown, abs=1e-12)
    if priors is not None:
        assert [empty["billing"], empty["shipping"]] == pytest.approx(priors)
    assert result.stderr == f"read 2 documents\n1 empty ({answer})\n1 with no word the model knows ({answer})\n"


def test_the_report_names_the_documents_with_no_word_the_model_knows(sms, tmp_path):
    """Trained on the first 30% of SMS, 7 later messages ("Okie", ":-) :-)") hold no word the
    model knows, so their answer is no evidence: eval and predict (one process or two, lines
    from a real pipe) count them after the read, and --verbose names them."""
    model = tmp_path / "sms.joblib"
    run(["train", sms / "train.tsv", "-o", model])
    docs = list(LabelledCorpus([str(sms / "test.tsv")]))
    no_known_word = np.flatnonzero(np.diff(Model.load(model).vectorize([d.text for d in docs]).indptr) == 0)
    assert len(no_known_word) == 7
    answer = "no words to go by: Complement NB gives every class the same probability"
    report = f"read 3,902 documents\n7 with no word the model knows ({answer})\n"
    repeated = "208 documents with the text of one read before (kept: each counts)\n"
    assert run(["eval", model, sms / "test.tsv"]).stderr == report + repeated
    named = "".join(f"  {sms / 'test.tsv'}:{i + 1}\n" for i in no_known_word)
    assert run(["eval", model, sms / "test.tsv", "-v"]).stderr == report + named + repeated
    lines = "".join(doc.text + "\n" for doc in docs).encode()
    for jobs in ("1", "2"):
        process = nbtext_process("predict", model, "-v", "--jobs", jobs, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        answers, errors = process.communicate(lines, timeout=120)
        assert process.returncode == 0 and answers.count(b"\n") == 3902
        assert errors.decode() == report + "".join(f"  <stdin>:{i + 1}\n" for i in no_known_word), jobs


def test_a_name_with_a_tab_or_newline_keeps_its_line_and_columns(tmp_path):
    """Names are escaped as PostgreSQL's text format does, so `cut -f2` and `wc -l` stay right."""
    import shutil

    shutil.copytree(TICKETS / "train" / "billing", tmp_path / "train" / "billing\tEU")
    shutil.copytree(TICKETS / "train" / "shipping", tmp_path / "train" / "shipping")
    trained = run(["train", tmp_path / "train", "-o", tmp_path / "m"]).stderr.splitlines()
    assert trained[-3:] == ["  billing\\tEU        81", "  shipping           81",
                            "vocabulary: 827 terms (of 827 seen)"]
    inbox = tmp_path / "in\\box"
    inbox.mkdir()
    for name in ["a\tb.txt", "c\nd.txt", "e\rf.txt"]:
        (inbox / name).write_text("I was charged twice for my invoice\n")
    lines = run(["predict", tmp_path / "m", inbox, "--top", "2"]).stdout.splitlines()
    folder = str(inbox).replace("\\", "\\\\")
    assert lines == [f"{folder}/{name}\tbilling\\tEU\tshipping" for name in ["a\\tb.txt", "c\\nd.txt", "e\\rf.txt"]]
    jsonl = run(["predict", tmp_path / "m", inbox / "a\tb.txt", "--format", "jsonl"]).stdout
    assert json.loads(jsonl) == {"path": str(inbox / "a\tb.txt"), "label": "billing\tEU"}  # JSON keeps them as they are
    tsv = run(["inspect-top-words", tmp_path / "m", "--top", "2", "--format", "tsv"]).stdout
    assert [line.split("\t")[:2] for line in tsv.splitlines()] == [["billing\\tEU", "1"], ["billing\\tEU", "2"],
                                                                  ["shipping", "1"], ["shipping", "2"]]
    # The tables too: rich turned the tab into spaces, and wrapped the confusion matrix's column
    # name onto two lines.
    table = run(["inspect-top-words", tmp_path / "m", "--top", "1", "--format", "table"]).stdout.splitlines()
    assert [line.split()[:2] for line in table[1:]] == [["billing\\tEU", "1"], ["shipping", "1"]]
    report = run(["eval", tmp_path / "m", tmp_path / "train"]).stdout.splitlines()
    at = report.index("confusion matrix")
    assert [line.split() for line in report[at + 1:at + 4]] == [
        ["true", "\\", "predicted", "billing\\tEU", "shipping"], ["billing\\tEU", "81", "."], ["shipping", "1", "80"]]
    assert report[1] == "162 of the 162 documents are in the model's training data (the same text)"
    assert [line.split()[0] for line in report[3:5]] == ["billing\\tEU", "shipping"]


def test_read_report_counts_in_words(tickets_model):
    result = run(["predict", tickets_model], input=b"caf\xe9 ordered twice\n")
    assert result.stdout == "billing\n"
    assert result.stderr == "read 1 document\n1 decoded with replacement (bytes not valid utf-8)\n"


def test_inspect_top_words(tickets_model):
    tsv = run(["inspect-top-words", tickets_model, "--top", "3", "--format", "tsv", "--class", "shipping"]).stdout
    rows = [line.split("\t") for line in tsv.splitlines()]
    assert [r[:2] for r in rows] == [["shipping", "1"], ["shipping", "2"], ["shipping", "3"]]
    shipping_words = {"parcel", "delivery", "courier", "express", "friday", "depot", "pick", "tracking",
                      "warehouse", "door", "country", "week", "box", "order", "address", "carrier"}
    assert all(set(r[2].split()) & shipping_words for r in rows), rows
    top = json.loads(run(["inspect-top-words", tickets_model, "--format", "json"]).stdout)
    assert set(top) == {"billing", "shipping", "technical"} and len(top["billing"]) == 20
    assert not {"the", "and", "my", "is"} & {w["word"] for words in top.values() for w in words}


def test_top_words_are_a_table_on_a_terminal_and_tsv_in_a_pipe(tickets_model):
    """`nbtext inspect-top-words m | cut -f3` worked only with --format tsv: piped, the table's
    columns, aligned with spaces, split inside each bigram ("and stop"). With no --format a
    pipe now gets TSV, and a person at a terminal still gets the table."""
    piped = nbtext_process("inspect-top-words", tickets_model, "--top", "3", stdout=subprocess.PIPE, text=True)
    rows = piped.communicate()[0]
    assert piped.returncode == 0
    assert rows == run(["inspect-top-words", tickets_model, "--top", "3", "--format", "tsv"]).stdout
    assert rows.splitlines()[0] == "billing\t1\tand stop\t3.938584"
    table = run(["inspect-top-words", tickets_model, "--top", "3", "--format", "table"]).stdout
    assert table.splitlines()[1].split() == ["billing", "1", "and", "stop", "3.939"]
    # the same table, though only into a file or pipe do its lines end without rich's padding
    assert [line.rstrip(" ") for line in on_a_terminal("inspect-top-words", tickets_model, "--top", "3").splitlines()] \
        == table.splitlines()
    assert not any(line.endswith(" ") for line in table.splitlines())


def test_predict_counts_its_answers_on_the_terminal_while_they_go_to_a_file(tickets_model, tmp_path):
    """`nbtext predict m crawl/ > labels.tsv` said nothing until it ended. With stderr on a
    terminal it now counts the documents scored there, and the file gets the answers and
    nothing else; on the terminal itself the answers are the progress, and no bar tears them."""
    answers = run(["predict", tickets_model, TICKETS / "test"]).stdout
    assert len(answers.splitlines()) == 120
    with open(tmp_path / "labels.tsv", "w") as labels:
        shown = on_a_terminal("predict", tickets_model, TICKETS / "test", streams=("stderr",), stdout=labels)
    assert (tmp_path / "labels.tsv").read_text() == answers
    assert "scoring" in shown and " 120 documents " in shown
    assert on_a_terminal("predict", tickets_model, TICKETS / "test", streams=("stdout", "stderr")) == answers


def test_cross_validation_and_tune_show_their_progress_on_a_terminal(tmp_path):
    """eval --cv read and cross-validated without a word on a terminal (20 s on 20news), and
    tune read so: both now show the bytes read, and eval --cv the folds done; in a pipe, nothing."""
    shown = on_a_terminal("eval", "--cv", "3", TICKETS / "train", streams=("stderr",))
    assert "reading" in shown and "43.1/43.1 kB" in shown and "cross-validating" in shown and " 3/3 " in shown
    shown = on_a_terminal("tune", TICKETS / "train", "-o", tmp_path / "best", "--grid", '{"alpha": [0.1, 1]}',
                          streams=("stderr",))
    assert "reading" in shown and "43.1/43.1 kB" in shown and "tuning" in shown and " 6/6 " in shown
    piped = run(["eval", "--cv", "3", TICKETS / "train"]).stderr
    assert "reading" not in piped and "cross-validating" not in piped


@pytest.mark.parametrize("variant", ["bernoulli", "complement"])
def test_top_words_of_other_variants_are_class_words(tmp_path, variant):
    run(["train", TICKETS / "train", "-o", tmp_path / "m", "--variant", variant])
    top = json.loads(run(["inspect-top-words", tmp_path / "m", "--top", "5", "--format", "json"]).stdout)
    assert {"invoice", "refund", "charged", "receipt", "discount", "cancel", "charge", "payment", "vat",
            "monthly", "stop", "want", "price", "bank"} & {w["word"] for w in top["billing"]}
    assert not {"the", "and", "my", "is", "to"} & {w["word"] for words in top.values() for w in words}


@pytest.mark.parametrize("args, code, message", [
    (["train", "nowhere", "-o", "m"], 1, "Error: nowhere: no such file or folder\n"),
    (["eval", "missing.joblib", str(TICKETS / "test")], 1, "Error: missing.joblib: no such model file\n"),
    # The arguments swapped: "not an nbtext model file, or truncated (KeyError)" said nothing of the order.
    (["predict", str(TICKETS / "test" / "billing" / "000.txt"), "m.joblib"], 1,
     f"Error: {TICKETS / 'test' / 'billing' / '000.txt'}: text, not an nbtext model file "
     "(the model file comes first, then the documents)\n"),
    (["eval", str(TICKETS / "test"), "m.joblib"], 1,
     f"Error: {TICKETS / 'test'}: is a folder, not a model file (the model file comes first, then the documents)\n"),
    # predict, filter and the others said only "File ... is a directory", as click's usage error.
    (["predict", str(TICKETS / "test"), "m.joblib"], 1,
     f"Error: {TICKETS / 'test'}: is a folder, not a model file (the model file comes first, then the documents)\n"),
    (["inspect-top-words", str(TICKETS / "test")], 1,
     f"Error: {TICKETS / 'test'}: is a folder, not a model file (the model file comes first, then the documents)\n"),
    (["learn", str(TICKETS / "test"), "--spam", "m.eml"], 1,  # it said "no such model file" of the folder
     f"Error: {TICKETS / 'test'}: is a folder, not a model file (the model file comes first, then "
     "--spam|--ham PATH...)\n"),
    (["learn", "--spam", "m.eml", "filter.joblib"], 2,  # it said "--spam: no such model file"
     "Error: the model file comes first: nbtext learn MODEL --spam|--ham PATH...\n"),
    (["train", str(TICKETS / "train"), "-o", "m", "--min-df", "0.99"], 1,
     "Error: no terms remain after pruning: the 920 terms read are each in 1 to 235 of the 243 documents; "
     "lower --min-df or raise --max-df\n"),
    (["train", str(TICKETS / "train" / "billing"), "-o", "m"], 1,
     "Error: no documents to train on\n"),
    (["train", str(TICKETS / "train"), "-o", "m", "--alpha", "0"], 2, "Invalid value for '--alpha'"),
    # nan passed, and every probability of the model it trained was nan; inf too
    (["train", str(TICKETS / "train"), "-o", "m", "--alpha", "nan"], 2,
     "Error: Invalid value for '--alpha': nan is not a finite number.\n"),
    (["train", str(TICKETS / "train"), "-o", "m", "--alpha", "inf"], 2,
     "Error: Invalid value for '--alpha': inf is not in the range 0<x<=1000000000.0.\n"),
    (["train", str(TICKETS / "train"), "-o", "m", "--min-df", "nan"], 2,  # a ValueError traceback, and inf an
     "Error: Invalid value for '--min-df': a count must be >= 0 and a proportion between 0.0 and 1.0\n"),  # Overflow
    (["train", str(TICKETS / "train"), "-o", "m", "--max-df", "inf"], 2,
     "Error: Invalid value for '--max-df': a count must be >= 0 and a proportion between 0.0 and 1.0\n"),
    (["train", str(TICKETS / "train"), "-o", "m", "--ngram-range", "2,1"], 2, "need 1 <= MIN <= MAX"),
    (["predict"], 2, "Missing argument 'MODEL'"),
    (["train", str(TICKETS / "train"), "-o", "m", "--analyzer", "char_wb", "--tokens", "joined"], 1,
     "Error: --tokens is how the word analyzer finds words: use it with the word analyzer\n"),
    (["eval", "m.joblib", str(TICKETS / "test"), "--alpha", "5"], 2,  # ignored, the model's own alpha scored
     "Error: --alpha is for --cv K: MODEL is scored as it was trained (train it again to change that)\n"),
    (["eval", "m.joblib", str(TICKETS / "test"), "--explain", "3"], 2,
     "Error: --explain adds to each line of --errors FILE: give --errors FILE too\n"),
    (["eval", "--cv", "3", str(TICKETS / "train"), "--errors", "wrong.tsv"], 2,
     "Error: --errors lists what a MODEL labels wrongly; with --cv K there is none\n"),
    (["eval", "m.joblib", str(TICKETS / "test"), "--errors", str(TICKETS / "test" / "billing" / "000.txt")], 2,
     f"Error: --errors {TICKETS / 'test' / 'billing' / '000.txt'} is a document of DATA {TICKETS / 'test'}: the list "
     "would be written over it; write the list outside the data\n"),
    (["eval", "m.joblib", str(TICKETS / "test"), "--errors", "no/such/wrong.tsv"], 2,
     "Error: Invalid value for '--errors': folder "),
    (["eval", "m.joblib", str(TICKETS / "test"), "--errors", "-"], 2,  # a file named "-" was written
     "Error: Invalid value for '--errors': - is not stdout here, where the report goes: name a file "
     "(--errors wrong.tsv)\n"),
    (["train", str(TICKETS / "train"), f"{TICKETS / 'train'}/", "-o", "m"], 2,  # each document counted twice
     f"Error: {TICKETS / 'train'} is given twice (again as {TICKETS / 'train'}/): its documents would be read twice\n"),
])
def test_exit_codes_and_one_line_errors(tmp_path, monkeypatch, args, code, message):
    monkeypatch.chdir(tmp_path)
    result = run(args, expect=code)
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_data_errors_come_after_what_was_read(tmp_path, tickets_model):
    # The common slip: DATA is one class's folder, so its files sit outside any class folder.
    billing = TICKETS / "train" / "billing"
    skipped = ("read 0 documents\n"
               "81 skipped: not inside a class folder (DATA holds one folder per class: DATA/LABEL/FILE)\n"
               f"{billing} holds files and no folder, as one class's folder does: give the folder above, "
               f"{TICKETS / 'train'}, which holds a folder per class (billing, shipping, technical)\n")
    result = run(["train", billing, "-o", tmp_path / "m"], expect=1)
    assert result.stderr == skipped + "Error: no documents to train on\n"
    result = run(["eval", tickets_model, billing], expect=1)
    assert result.stderr == skipped + "Error: no documents to evaluate\n"
    result = run(["train", "--test-split", "0.2", billing, "-o", tmp_path / "m"], expect=1)
    assert result.stderr == skipped + "Error: no documents to train on\n"
    assert not (tmp_path / "m").exists()
    # A fresh folder, the path mistyped: "no documents to train on" came alone, unexplained.
    # predict on one stays silent, as a nightly job on a mail folder with nothing new needs.
    (tmp_path / "data").mkdir()
    result = run(["train", tmp_path / "data", "-o", tmp_path / "m"], expect=1)
    assert result.stderr == ("read 0 documents\n1 skipped: empty folder (DATA holds one folder per class: "
                             "DATA/LABEL/FILE)\nError: no documents to train on\n")
    assert run(["predict", tickets_model, tmp_path / "data"]).stderr == ""


def test_class_folders_given_for_data_are_told_to_give_their_parent(tmp_path, monkeypatch):
    monkeypatch.chdir(TICKETS / "train")  # `nbtext train billing shipping`, from inside DATA
    result = run(["train", "billing", "shipping", "-o", tmp_path / "m"], expect=1)
    assert result.stderr.splitlines()[-2:] == [
        f"billing and shipping hold files and no folder, as class folders do: give the folder above, "
        f"{TICKETS / 'train'}, which holds a folder per class (billing, shipping, technical)",
        "Error: no documents to train on"]
    # Given beside a good DATA, one class's folder is said too, though training goes on.
    result = run(["train", TICKETS / "test", "shipping", "-o", tmp_path / "m"])
    assert f"\nshipping holds files and no folder, as one class's folder does: give the folder above, " \
           f"{TICKETS / 'train'}, which" in result.stderr
    # A folder of files, with no folder beside it: nothing to point to but the layout.
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "1.txt").write_text("call me")
    result = run(["train", tmp_path / "notes", "-o", tmp_path / "m"], expect=1)
    assert result.stderr == ("read 0 documents\n1 skipped: not inside a class folder (DATA holds one folder per "
                             "class: DATA/LABEL/FILE)\nError: no documents to train on\n")


def test_a_folder_holding_a_table_is_told_to_give_the_table():
    """SMS spam comes as a folder holding one LABEL<TAB>TEXT file: the folder is the path a
    user first gives."""
    folder = corpus_path("sms-spam")
    result = run(["eval", "--cv", "2", folder], expect=1)
    assert result.stderr.splitlines()[-2:] == [
        f"{folder / 'SMSSpamCollection'} holds labelled documents (tsv): give the file itself as DATA",
        "Error: no documents to cross-validate"]
    assert "read 5,574 documents" in run(["eval", "--cv", "2", folder / "SMSSpamCollection"]).stderr


def test_a_corpus_given_one_level_too_high_is_told_to_give_a_part(tmp_path):
    """R8 holds train/ and test/, Enron enron1..enron6, Ling-spam bare/part1..part10, each
    with the class folders inside: given the corpus's own folder, train made a model of the
    classes train and test (or enron1..enron6) and said nothing, and on Ling-spam said only
    that 'bare' was one class. Each now says which folder to give."""
    r8 = corpus_path("reuters21578") / "R8"
    result = run(["train", r8, "-o", tmp_path / "m"])
    assert (f"\nthe folders of {r8} (test, train) were read as classes, but look like parts of one corpus: each "
            "holds the same folders (acq, crude, earn, grain, interest, money-fx and 2 more) and no documents of "
            f"its own. Give a part as DATA, or several ({r8 / 'train'}), whose folders are the classes\n"
            ) in result.stderr
    assert Model.load(tmp_path / "m").classes == ["test", "train"]
    lingspam = corpus_path("lingspam")
    result = run(["eval", "--cv", "2", lingspam], expect=1)
    assert result.stderr.splitlines()[-3:] == [
        f"the documents of {lingspam} are all in {lingspam / 'bare'}, whose folders (part1, part2, part3, part4, "
        "part5, part6 and 4 more) look like parts of one corpus: each holds the same folders (ham, spam) and no "
        f"documents of its own. Give a part as DATA, or several ({lingspam / 'bare' / 'part1'}), whose folders are "
        "the classes", "1 class: bare 2,893", "Error: cross-validation needs at least two classes"]
    # Classes with folders of their own inside, named alike, are classes still: ham/2003, spam/2003.
    for label in ("billing", "shipping"):
        (tmp_path / "years" / label).mkdir(parents=True)
        for year, part in (("2003", "train"), ("2004", "test")):
            (tmp_path / "years" / label / year).symlink_to(TICKETS / part / label)
    result = run(["train", tmp_path / "years", "-o", tmp_path / "y"])
    assert "parts" not in result.stderr and Model.load(tmp_path / "y").classes == ["billing", "shipping"]
    # Nor is a part given as DATA said to be one: R8's train/ holds its classes.
    assert "parts" not in run(["train", r8 / "train", "-o", tmp_path / "m"]).stderr


def test_a_folder_of_tables_is_told_to_give_them(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.tsv").write_text("spam\tfree cash\nham\tlunch?\n")
    (tmp_path / "data" / "test.ft").write_text("__label__ham see you\n")
    result = run(["train", tmp_path / "data", "-o", tmp_path / "m"], expect=1)
    assert result.stderr.splitlines()[-2:] == [
        f"the 2 files of {tmp_path / 'data'} hold labelled documents (fasttext, tsv): give the files themselves "
        "as DATA", "Error: no documents to train on"]
    # A class's document whose first line holds a tab is no table; nor is a pipe opened, which would wait.
    for label in ("ham", "spam"):
        (tmp_path / "mail" / label).mkdir(parents=True)
    (tmp_path / "mail" / "ham" / "1.txt").write_text("To:\tann\n\nlunch at noon?\n")
    os.mkfifo(tmp_path / "mail" / "ham" / "pipe")
    result = run(["train", tmp_path / "mail" / "ham", "-o", tmp_path / "m"], expect=1)
    assert result.stderr.splitlines()[-2:] == [
        f"{tmp_path / 'mail' / 'ham'} holds files and no folder, as one class's folder does: give the folder above, "
        f"{tmp_path / 'mail'}, which holds a folder per class (ham, spam)", "Error: no documents to train on"]


@pytest.mark.parametrize("command", [["train", TICKETS / "train"], ["tune", TICKETS / "train"],
                                     ["merge", TICKETS / "none.joblib"]])
def test_a_missing_output_folder_stops_before_any_reading(tmp_path, command):
    result = run([*command, "-o", tmp_path / "nowhere" / "m.joblib"], expect=2)
    assert result.stderr.endswith(f"Invalid value for '-o' / '--output': folder {tmp_path / 'nowhere'} "
                                  "does not exist\n")
    assert "read" not in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="file-size limits are POSIX")
def test_a_failed_model_write_is_one_line_and_keeps_the_old_file(tmp_path):
    import resource
    import signal

    def limit_file_size():  # a real write failure (EFBIG) part-way through the model file
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))

    path = tmp_path / "m.joblib"
    path.write_bytes(b"the old model")
    process = nbtext_process("train", TICKETS / "train", "-o", path, stderr=subprocess.PIPE,
                             preexec_fn=limit_file_size)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 1
    assert stderr.decode().splitlines()[-1] == f"Error: {path}: cannot write the model (File too large)"
    assert path.read_bytes() == b"the old model" and os.listdir(tmp_path) == ["m.joblib"]


def test_inspect_unknown_class(tickets_model):
    result = run(["inspect-top-words", tickets_model, "--class", "sales"], expect=1)
    assert result.stderr == "Error: no class sales in the model; it has: billing, shipping, technical\n"
    result = run(["inspect-top-words", tickets_model, "--class", "biling"], expect=1)
    assert result.stderr == ("Error: no class biling in the model (did you mean billing?); it has: billing, shipping, "
                             "technical\n")


def test_every_command_has_help_with_an_example_and_is_in_the_reference():
    reference = (REPO / "docs" / "reference" / "commands.md").read_text()
    for name in cli.list_commands(click.Context(cli)):
        help_text = run([name, "-h"]).stdout
        assert "Example:" in help_text and f"nbtext {name} " in help_text, name
        assert f"## `nbtext {name}`" in reference, f"the command reference has no section for {name}"


def test_readme_gives_the_lower_bounds_of_the_dependencies_ci_tests():
    """CI's Python 3.10 run installs each dependency at the lower bound pyproject.toml sets
    (.ci/run reads them there); README names the same versions, so raising one shows there."""
    pyproject = (REPO / "pyproject.toml").read_text()
    listed = pyproject.split("\ndependencies = [", 1)[1].split("]", 1)[0]
    bounds = re.findall(r'"([\w-]+)>=([\d.]+)"', listed)
    assert [name for name, _ in bounds] == ["click", "numpy", "scipy", "scikit-learn", "joblib", "rich", "stop-words",
                                              "charset-normalizer"]
    readme = " ".join((REPO / "README.md").read_text().split())
    said = readme.split("Python 3.10 or newer, and ", 1)[1].split(" or newer.", 1)[0]
    assert sorted(said.replace(" and ", ", ").split(", ")) == sorted(f"{name} {version}" for name, version in bounds)


def test_the_library_guides_example_prints_what_its_comments_say(tmp_path):
    """The Python example of the library's guide, run as a user pastes it (from a folder with
    the repository's corpora/): each print gives the line its comment promises."""
    code = library_guide_example()
    promised = [line.split("#", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
    assert len(promised) == 3
    (tmp_path / "corpora").symlink_to(REPO / "corpora")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == promised


def test_predict_streams_before_input_ends(tickets_model):
    process = nbtext_process("predict", tickets_model, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    process.stdin.write(b"where is my parcel\n")
    process.stdin.flush()
    assert process.stdout.readline() == b"shipping\n"  # answered while stdin is still open
    process.stdin.write(b"refund my invoice\n")
    process.stdin.close()
    assert process.stdout.read() == b"billing\n"
    process.stdout.close()
    assert process.wait(timeout=30) == 0


@contextlib.contextmanager
def at_a_terminal(*args):
    """nbtext as a process whose stdin is a real terminal (a pty): yields the process and the
    terminal's other end, to type at."""
    import pty

    controller, terminal = pty.openpty()
    process = nbtext_process(*args, stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(terminal)
    try:
        yield process, controller
    finally:
        os.close(controller)
        process.stdout.close()
        process.stderr.close()


def test_typing_at_a_terminal_gets_a_hint_and_answers_line_by_line(tickets_model):
    """`nbtext predict MODEL` with no PATH at a terminal waits for typed lines: it says so on
    stderr (a pipe gets no such line), answers each line as it is typed, and Ctrl-D ends it."""
    with at_a_terminal("predict", tickets_model) as (process, keyboard):
        assert process.stderr.readline() == b"reading documents from the terminal, one a line; Ctrl-D ends\n"
        os.write(keyboard, b"where is my parcel\n")
        assert process.stdout.readline() == b"shipping\n"
        os.write(keyboard, b"\x04")  # Ctrl-D at the start of a line: end of input
        assert process.wait(timeout=30) == 0
        assert process.stdout.read() == b"" and process.stderr.read() == b""


def test_predict_with_a_mail_model_says_it_reads_one_message_typed(tmp_path):
    """A model trained on mail reads stdin as one message, not a document a line, but predict
    said it read lines: a user typed one and waited for an answer that came only at Ctrl-D."""
    model = tmp_path / "m.joblib"
    run(["train", TICKETS / "train", "--input-format", "email", "-o", model])
    with at_a_terminal("predict", model) as (process, keyboard):
        assert process.stderr.readline() == b"reading one message from the terminal; Ctrl-D ends\n"
        os.write(keyboard, b"Subject: refund\n\nI was charged twice this month.\n\x04")
        assert process.wait(timeout=30) == 0
        assert process.stdout.read() == b"<stdin>\tbilling\n"


def test_labelled_lines_on_stdin_for_a_mail_model_need_their_format_said(tmp_path):
    """eval and train --update read DATA as their model was trained; for a model trained on
    mail, stdin then failed with "--input-format email reads DIR/<label>/ folders by name",
    an option the user never gave. The error now says where it came from and what to give."""
    model = tmp_path / "m.joblib"
    run(["train", TICKETS / "train", "--input-format", "email", "-o", model])
    lines = "billing\tI was charged twice this month\nshipping\twhere is my parcel\n"
    error = (f"Error: {model} was trained on mail, which is read by name (DIR/<label>/ folders), not from stdin: "
             "give --input-format tsv|jsonl|fasttext to read labelled lines from stdin\n")
    assert run(["eval", model, "-"], input=lines, expect=1).stderr == error
    assert run(["train", "-", "--update", model, "-o", tmp_path / "u.joblib"], input=lines, expect=1).stderr == error
    scored = run(["eval", model, "-", "--input-format", "tsv"], input=lines).stdout
    assert scored.startswith("accuracy 1.0000 ") and scored.splitlines()[0].endswith("documents 2")


def test_filter_says_it_reads_a_message_typed_at_the_terminal(tmp_path):
    model = tmp_path / "f.joblib"
    run(["train", TICKETS / "train", "--spam-label", "billing", "-o", model])
    with at_a_terminal("filter", model) as (process, keyboard):
        assert process.stderr.readline() == b"reading one message from the terminal; Ctrl-D ends\n"
        os.write(keyboard, b"I was charged twice for my subscription. Stop the monthly charge.\n\x04")
        assert process.wait(timeout=30) == 0  # spam: billing is this filter's spam
        assert process.stdout.read().startswith(b"Spam\t")


def _forkservers(parent: int) -> set[int]:
    """The processes of multiprocessing's forkservers that ``parent`` started, and the workers
    forked from them: those of other programs on the machine are not this test's."""
    parents = {}
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if b"multiprocessing.forkserver" in handle.read():
                    with open(f"/proc/{entry}/stat", "rb") as stat:
                        parents[int(entry)] = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    servers = {pid for pid, ppid in parents.items() if ppid == parent}
    return servers | {pid for pid, ppid in parents.items() if ppid in servers}


def _running(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (not gone, nor a zombie)."""
    running = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                if stat.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                    running.add(pid)
        except OSError:
            continue
    return running


def test_kill_stops_the_workers_as_ctrl_c_does(tmp_path):
    """`timeout 60 nbtext train ... --jobs 2` sends SIGTERM: the command died at once and left
    its forkserver and a worker running, counting for nobody. Now the run ends through the
    same clean-up as Ctrl-C, exit status 143 as for a killed process, nothing left behind."""
    import time

    news = corpus_path("20news-bydate") / "train"
    process = nbtext_process("train", news, "--jobs", "2", "-o", tmp_path / "m.joblib", stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    started: set[int] = set()
    while not started and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
        started = _forkservers(process.pid)
    assert started, "no worker process started"
    time.sleep(0.2)  # its workers too
    started |= _forkservers(process.pid)
    process.terminate()
    status = process.wait(timeout=30)
    process.stderr.close()
    deadline = time.monotonic() + 10
    while _running(started) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _running(started)
    for pid in left:  # not to leave them running after the test either
        os.kill(pid, 9)
    assert not left
    assert status == 143
    assert os.listdir(tmp_path) == []  # no model, and no half-written temporary file


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe and bash")
def test_ctrl_c_stops_a_shell_loop(tickets_model, tmp_path):
    """Ctrl-C in `for f in ...; do nbtext ...; done` went on to the next round: the shell ends
    a loop only when the command it waited for died of SIGINT, and nbtext exited 1. It now
    ends by SIGINT, after its clean-up, still saying only "Aborted!"."""
    import signal
    import time

    fifo = tmp_path / "lines"
    os.mkfifo(fifo)
    loop = (f"for i in 1 2; do {sys.executable} -m nbtext predict {tickets_model} < {fifo} 2>>{tmp_path / 'err'}; "
            "echo \"next $i\"; done")
    shell = subprocess.Popen(["bash", "-c", loop], stdout=subprocess.PIPE, text=True, start_new_session=True)
    with open(fifo, "w") as lines:
        lines.write("my parcel never arrived\n")
        lines.flush()
        assert shell.stdout.readline() == "shipping\n"  # predict is running, waiting for more lines
        os.killpg(shell.pid, signal.SIGINT)  # what Ctrl-C does: the signal to the terminal's whole group
        time.sleep(0.5)
    try:
        rest, _ = shell.communicate(timeout=60)  # the loop going on would wait for the fifo again
    except subprocess.TimeoutExpired:  # say what was left running and what nbtext said, then stop it
        left = subprocess.run(["ps", "-o", "pid,stat,args", "-g", str(shell.pid)], capture_output=True, text=True)
        os.killpg(shell.pid, signal.SIGKILL)
        raise AssertionError(f"still running after Ctrl-C:\n{left.stdout}\nstderr: {(tmp_path / 'err').read_text()!r}")
    assert rest == ""
    assert shell.returncode == -signal.SIGINT
    assert (tmp_path / "err").read_text() == "\nAborted!\n"


@pytest.mark.parametrize("jobs", [1, 2])
def test_closed_pipe_ends_quietly(tickets_model, jobs):
    """`nbtext predict ... | head -1`: no traceback, no message, SIGPIPE's status; with --jobs,
    the workers stop too (the run used to hang at exit, waiting to hand them more lines)."""
    done = subprocess.run(
        f"yes 'where is my parcel' | head -300000 | {sys.executable} -m nbtext predict {tickets_model} --jobs {jobs}"
        " | head -1;"
        " exit ${PIPESTATUS[2]}",
        shell=True, executable="/bin/bash", capture_output=True, text=True, timeout=60,
    )
    assert done.stdout == "shipping\n"
    assert done.stderr == ""
    assert done.returncode == 141


def _into_a_closed_pipe(args: list[str], stderr: int = subprocess.PIPE) -> tuple[int, str]:
    """nbtext's exit status where its reader goes before it writes, and what it said on stderr
    (nothing to read where ``stderr`` is subprocess.STDOUT, into the pipe too)."""
    with subprocess.Popen([sys.executable, "-m", "nbtext", *args], stdout=subprocess.PIPE, stderr=stderr,
                          text=True) as shown:
        shown.stdout.close()  # the reader goes before anything is written: the first write meets a closed pipe
        said = shown.stderr.read() if shown.stderr else ""
        return shown.wait(timeout=60), said


@pytest.mark.parametrize("args", [["eval", "{model}", TICKETS / "test"], ["inspect-top-words", "{model}"],
                                  ["eval", "--cv", "2", TICKETS / "train"], ["--help"], ["--version"]])
def test_a_table_into_a_closed_pipe_ends_as_sigpipe_ends_a_tool(tickets_model, args):
    """`nbtext eval m data | head -c1`, or a reader gone before the tables came: rich, which
    draws them, ended the command with status 1 and not a word, which a shell script takes for a
    failure of nbtext's own; so did click for `nbtext --help | head -1`. They end as the
    line-by-line commands do, quietly with 141."""
    status, said = _into_a_closed_pipe([str(a).format(model=tickets_model) for a in args])
    assert status == 141
    assert "Error" not in said and "Traceback" not in said and "Exception ignored" not in said


@pytest.mark.parametrize("args", [["--bogus"], ["train", "--bogus"], ["eval", "{model}", "{model}.nowhere"]])
def test_an_error_into_a_closed_pipe_ends_as_sigpipe_ends_a_tool(tickets_model, args):
    """`nbtext ... 2>&1 | head -0`: an error's message, or the usage, met the closed pipe in a
    traceback of its own (seen by no one) and status 1; the reader is gone, as for output."""
    status, _ = _into_a_closed_pipe([str(a).format(model=tickets_model) for a in args], stderr=subprocess.STDOUT)
    assert status == 141


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full, a device that is always full")
@pytest.mark.parametrize("args", [["predict", "{model}", TICKETS / "test"], ["predict", "{model}", "-"],
                                  ["eval", "{model}", TICKETS / "test"], ["inspect-top-words", "{model}"]])
def test_output_to_a_full_disk_is_an_error_not_a_traceback(tickets_model, args):
    """`nbtext predict m data > out` with the disk full ended in an OSError traceback (or, for
    output small enough to sit in the buffer, Python's own complaint at exit): the answers were
    lost, and the message did not say so plainly."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "nbtext", *(str(a).format(model=tickets_model) for a in args)],
                              input="where is my parcel\n", stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.endswith("Error: cannot write the output: No space left on device\n")
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def _with_files_of_at_most(size: int):
    """A child's set-up in which writing past ``size`` bytes of a file fails with EFBIG, as on a
    full disk, instead of killing it with SIGXFSZ."""
    import resource
    import signal

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return limit


def test_an_errors_list_cut_short_is_removed_not_left_half_written(tickets_model, tmp_path):
    """`eval --errors wrong.tsv` on a disk that filled up said so and exited 1, but left the
    lines written so far: a script reading wrong.tsv next would take them for the whole list.
    Here a file-size limit stands in for the full disk; a list that fits is written whole."""
    import shutil

    wrong = tmp_path / "wrong.tsv"
    command = [sys.executable, "-m", "nbtext", "eval", str(tickets_model), str(TICKETS / "test"), "--errors",
               str(wrong), "--explain", "3"]
    cut = subprocess.run(command, capture_output=True, text=True, timeout=60, preexec_fn=_with_files_of_at_most(200))
    assert cut.returncode == 1 and cut.stdout == ""
    assert cut.stderr.endswith(f"Error: cannot write {wrong} (File too large); the part written is removed\n")
    assert not wrong.exists()
    whole = subprocess.run(command, capture_output=True, text=True, timeout=60,
                           preexec_fn=_with_files_of_at_most(10_000))
    assert whole.stderr.endswith(f"3 documents labelled wrongly -> {wrong}\n")
    assert len(wrong.read_text().splitlines()) == 3
    (tmp_path / "one" / "technical").mkdir(parents=True)
    shutil.copy(TICKETS / "test" / "technical" / "003.txt", tmp_path / "one" / "technical")
    assert run(["eval", tickets_model, tmp_path / "one", "--errors", wrong]).stderr.endswith(
        f"1 document labelled wrongly -> {wrong}\n")


def test_the_model_file_is_a_regular_file_and_a_link_to_one_is_kept(tmp_path):
    """`-o` naming a FIFO or a device (/dev/stdout) had the model written beside it and renamed
    over it: the device was replaced by a file (as root, /dev/full became one). A link given as
    -o was replaced by a file too, where a "current model" link should keep pointing at its
    file. The first is refused before reading; the second writes through the link."""
    os.mkfifo(tmp_path / "pipe")
    result = run(["train", TICKETS / "train", "-o", tmp_path / "pipe"], expect=2)
    assert result.stderr.endswith(f"{tmp_path / 'pipe'} is not a regular file: a model is written to a file of its "
                                  "own, then moved into place\n")
    assert "read " not in result.stderr and not (tmp_path / "pipe").is_file()
    # `-o -`, stdout to other tools, wrote a file named "-" into the current folder
    dash = subprocess.run([sys.executable, "-m", "nbtext", "train", TICKETS / "train", "-o", "-"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert dash.returncode == 2 and dash.stderr.endswith(
        "- is not stdout here: a model is written to a file of its own, then moved into place; name the file "
        "(-o model.joblib)\n")
    assert dash.stdout == "" and not (tmp_path / "-").exists()
    (tmp_path / "models").mkdir()
    run(["train", TICKETS / "train", "-o", tmp_path / "models" / "v1.joblib", "--alpha", "0.5"])
    (tmp_path / "current.joblib").symlink_to(tmp_path / "models" / "v1.joblib")
    run(["train", "--update", tmp_path / "current.joblib", TICKETS / "test"])
    assert (tmp_path / "current.joblib").is_symlink()
    assert Model.load(tmp_path / "models" / "v1.joblib").summary["inputs"][-1] == str(TICKETS / "test")
    assert sorted(os.listdir(tmp_path / "models")) == ["v1.joblib"]  # no temporary file left


@pytest.mark.parametrize(("args", "status"), [(["predict", "{model}"], 1), (["train", "-", "-o", "{out}"], 1),
                                               (["predict", "{model}", "-", "--input-format", "email"], 1)])
def test_a_closed_stdin_is_an_error_of_one_line(tickets_model, tmp_path, args, status):
    """A job started with stdin closed (`<&-`, as some schedulers do) ended predict in an
    AttributeError traceback ('NoneType' object has no attribute 'isatty'), train - too."""
    command = " ".join(str(a).format(model=tickets_model, out=tmp_path / "m") for a in args)
    done = subprocess.run(f"{sys.executable} -m nbtext {command} <&-", shell=True, executable="/bin/bash",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == status
    assert done.stderr == ("Error: stdin is closed, so there is nothing to read from it: give files or folders, or "
                           "pipe documents in\n")


def test_a_closed_stdout_or_stderr_is_no_traceback(tickets_model, tmp_path):
    """Started with stdout closed (`>&-`), predict ended in an AttributeError traceback; with
    stderr closed (`2>&-`), train died at its progress bar with status 1, and wrote no model."""
    def nbtext(command: str) -> subprocess.CompletedProcess:
        return subprocess.run(f"{sys.executable} -m nbtext {command}", shell=True, executable="/bin/bash",
                              capture_output=True, text=True, timeout=60)

    done = nbtext(f"predict {tickets_model} {TICKETS / 'test'} >&-")
    assert (done.returncode, done.stderr) == (1, "Error: cannot write the output: stdout is closed\n")
    done = nbtext(f"train {TICKETS / 'train'} -o {tmp_path / 'm'} 2>&- <&- >&-")
    assert done.returncode == 0 and Model.load(tmp_path / "m").classes == ["billing", "shipping", "technical"]
    done = nbtext(f"predict {tmp_path / 'm'} {TICKETS / 'test' / 'billing' / '000.txt'} 2>&-")
    assert (done.returncode, done.stdout) == (0, f"{TICKETS / 'test' / 'billing' / '000.txt'}\tbilling\n")


@pytest.mark.parametrize(("args", "message"), [
    (["train", "-", "-o", "{out}"], "no documents to train on"), (["eval", "--cv", "3", "-"], "no documents to "
     "cross-validate"), (["tune", "-", "-o", "{out}"], "no documents to cross-validate")])
def test_an_empty_pipe_has_no_documents(tmp_path, args, message):
    """Nothing on stdin was "cannot tell the format from the name or the first line", and for
    eval --cv and tune then "0 classes: " and "needs at least two classes"."""
    result = run([str(a).format(out=tmp_path / "m") for a in args], input="", expect=1)
    assert result.stderr.endswith(f"Error: {message}\n") and "classes" not in result.stderr


def test_predict_imports_neither_scipy_nor_sklearn_nor_rich_nor_joblib(tickets_model):
    """Nor tempfile, which only saving needs (5 ms)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "nbtext", "predict", tickets_model, "-"],
                          input=b"hello\n", capture_output=True, timeout=60)
    assert done.stdout == b"billing\n" or done.stdout.endswith(b"\n")
    modules = {line.split("|")[-1].strip() for line in done.stderr.decode().splitlines() if "|" in line}
    imported = {name.split(".")[0] for name in modules}
    assert {"numpy", "click"} <= imported
    assert not {"scipy", "sklearn", "rich", "joblib", "tempfile"} & imported
    assert "numpy.ma" not in modules or numpy_imports_by_itself("numpy.ma")  # np.unique imports it


@pytest.mark.parametrize("chosen, threads", [(None, 1), ("2", 2)])
def test_the_command_gives_numpy_one_blas_thread_unless_the_user_chose(chosen, threads):
    """OpenBLAS starts a thread per core as numpy is imported (0.05 s of a cold start here);
    the command needs none, but a user's OMP_NUM_THREADS wins."""
    code = ("import sys, threadpoolctl; from nbtext.cli import main; sys.argv = ['nbtext', '--version']\n"
            "try: main()\nexcept SystemExit: pass\n"
            "import numpy; print([p['num_threads'] for p in threadpoolctl.threadpool_info()"
            " if p['internal_api'] == 'openblas'])")
    env = {name: value for name, value in os.environ.items() if name not in BLAS_THREAD_VARIABLES}
    if chosen is not None:
        env["OMP_NUM_THREADS"] = chosen
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    found = json.loads(done.stdout.splitlines()[-1])
    if not found:
        pytest.skip("this numpy is not built with OpenBLAS")
    if threads > (os.cpu_count() or 1):
        pytest.skip("OpenBLAS uses at most one thread per core")
    assert found == [threads]


def test_a_file_name_that_is_not_utf8_is_printed_as_its_own_bytes(tmp_path, tickets_model):
    """A latin-1 name (caf\xe9.txt) under a UTF-8 locale whose stdout is strict, as
    en_US.UTF-8's is: predict stopped there with a UnicodeEncodeError. TSV gives the name's
    bytes, as ls does; JSONL escapes them, and the escape reads back to the same bytes."""
    folder = tmp_path / "inbox"
    folder.mkdir()
    name = os.path.join(os.fsencode(folder), b"caf\xe9.txt")
    with open(name, "wb") as handle:
        handle.write(b"where is my parcel")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    tsv = subprocess.run([sys.executable, "-m", "nbtext", "predict", tickets_model, folder], env=env,
                         capture_output=True)
    assert (tsv.returncode, tsv.stdout) == (0, name + b"\tshipping\n")
    jsonl = subprocess.run([sys.executable, "-m", "nbtext", "predict", tickets_model, folder, "--format", "jsonl"],
                           env=env, capture_output=True)
    assert jsonl.returncode == 0 and b"caf\\udce9.txt" in jsonl.stdout
    assert os.fsencode(json.loads(jsonl.stdout)["path"]) == name


def test_terms_holding_lone_surrogates_print_as_bytes_or_escapes(tmp_path):
    """A library caller's text may hold lone surrogates: escapes of bytes that are not UTF-8
    (surrogateescape's \\udce9 for latin-1's é) or JSON's \\ud800. Character n-grams keep both;
    inspect-top-words stopped at the second with a UnicodeEncodeError traceback. The first is
    written as its byte, as file names are; the second as its escape."""
    from nbtext.analysis import Analyzer
    from nbtext.training import train

    odd = "caf\udce9 \ud800x"
    documents = [dataclasses.replace(doc, text=f"{doc.text} {odd}") if doc.label == "billing" else doc
                 for doc in LabelledCorpus([str(TICKETS / "train")])]
    train(documents, analyzer=Analyzer(analyzer="char_wb", ngram_range=(3, 3))).save(tmp_path / "m.joblib")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run([sys.executable, "-m", "nbtext", "inspect-top-words", tmp_path / "m.joblib", "--class",
                           "billing", "--top", "5"], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert [line.split(b"\t")[2] for line in done.stdout.splitlines()] == [  # the same score: in term order
        b" \\ud800x", b"af\xe9", b"caf", b"f\xe9 ", b"\\ud800x "]


def test_a_name_that_is_not_utf8_is_written_to_stderr_as_its_own_bytes(tmp_path):
    """stderr wrote such a name as the escape caf\\udce9: a latin-1 class folder's count in
    train's summary stood out of line with the other classes', and a path that -v named could
    not be pasted back into a command. Both streams now give the name's bytes, as ls does."""
    data = os.fsencode(tmp_path / "data")
    for label in (b"caf\xe9", b"tea"):
        os.makedirs(os.path.join(data, label))
        for n in range(3):
            with open(os.path.join(data, label, b"%d.txt" % n), "wb") as handle:
                handle.write(b"a cup of %s, number %d" % (b"tea" if label == b"tea" else b"coffee", n))
    odd = os.path.join(data, b"tea", b"th\xe9.txt")
    with open(odd, "wb") as handle:
        handle.write(b"th\xe9 vert")  # latin-1 in the text too: replaced, and -v names the file
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    done = subprocess.run([sys.executable, "-m", "nbtext", "train", data, "-o", tmp_path / "m", "-v"], env=env,
                          capture_output=True)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[:3] == [b"read 7 documents", b"1 decoded with replacement (bytes not valid utf-8)", b"  " + odd]
    assert lines[4:6] == [b"  caf\xe9         3", b"  tea          4"]  # lined up byte for byte


def test_shell_completion_offers_commands_and_choices():
    """README's completion line: the shell asks the installed command itself."""
    def complete(*words: str) -> list[str]:
        env = {**os.environ, "COMP_WORDS": " ".join(["nbtext", *words]), "COMP_CWORD": str(len(words)),
               "_NBTEXT_COMPLETE": "bash_complete"}
        done = subprocess.run([sys.executable, "-c", "from nbtext.cli import main; main()"], env=env,
                              capture_output=True, text=True)
        return done.stdout.split()

    assert complete("t") == ["plain,train", "plain,tune"]
    assert complete("train", "--variant", "") == ["plain,multinomial", "plain,bernoulli", "plain,complement"]
    assert 'eval "$(_NBTEXT_COMPLETE=bash_source nbtext)"' in (REPO / "README.md").read_text()


def test_python_dash_m_and_version():
    done = subprocess.run([sys.executable, "-m", "nbtext", "--version"], capture_output=True, text=True)
    assert done.stdout.startswith("nbtext, version ")


def test_version_says_which_compiled_parts_were_built(monkeypatch):
    """Speed depends on them, and an install without a C compiler succeeds without them."""
    from nbtext import matrices
    from nbtext.vectorizing import scanner as compiled

    if compiled.wordscan is not None and matrices.sparsedot is not None:
        assert run(["--version"]).stdout.splitlines()[1] == "compiled word scanner: yes, scorer: yes"
    monkeypatch.setattr(compiled, "wordscan", None)  # as an install without a compiler has it
    assert run(["--version"]).stdout.splitlines()[1] == (
        f"compiled word scanner: no, scorer: {'yes' if matrices.sparsedot is not None else 'no'} (installed "
        "without a C compiler: numpy does that work, with the same results, more slowly)")


def test_eval_cv_is_seeded_and_json(tmp_path):
    first = run(["eval", "--cv", "4", "--seed", "3", TICKETS / "train", "--format", "json"]).stdout
    assert first == run(["eval", "--cv", "4", "--seed", "3", TICKETS / "train", "--format", "json"]).stdout
    report = json.loads(first)
    assert report["folds"] == 4 and report["seed"] == 3 and 0.85 < report["accuracy"]["mean"] <= 1.0
    assert report["accuracy"]["std"] >= 0
    line = run(["eval", "--cv", "4", TICKETS / "train"]).stdout
    assert line.startswith("accuracy 0.") and line.rstrip().endswith("(4-fold stratified, seed 0)")


def test_eval_cv_and_tune_name_the_classes_they_read(tmp_path):
    """No model summary follows a cross-validation, so the classes line is what shows a folder
    given one level too high: the tickets' train/ and test/ taken for two classes."""
    too_high = run(["eval", "--cv", "3", TICKETS]).stderr.splitlines()
    assert too_high[-1] == "2 classes: test 120, train 243"
    tuned = run(["tune", TICKETS / "train", "-o", tmp_path / "m", "--grid", '{"alpha": [1]}']).stderr.splitlines()
    assert "3 classes: billing 81, shipping 81, technical 81" in tuned


def test_more_folds_than_the_largest_class_is_a_clear_error(tmp_path):
    """Each class fills the folds from the first: with 82 folds over 81 tickets a class, the
    last fold would test nothing (it used to end in a statistics traceback)."""
    assert run(["eval", "--cv", "81", TICKETS / "train"]).stdout.endswith("(81-fold stratified, seed 0)\n")
    error = "Error: 82 folds, but the largest class has 81 documents: some folds would have nothing to test; " \
            "use at most 81"
    for command in (["eval", "--cv", "82", TICKETS / "train"],
                    ["tune", "--cv", "82", TICKETS / "train", "-o", tmp_path / "m", "--grid", '{"alpha": [1]}']):
        assert run(command, expect=1).stderr.splitlines()[-1] == error
    assert not (tmp_path / "m").exists()


def test_cross_validating_one_document_a_class_is_a_clear_error(tmp_path):
    """With one document in every class no fold count works; the error said "use at most 1"
    folds, which --cv refuses."""
    data = tmp_path / "two.tsv"
    data.write_text("billing\tmy invoice is wrong\nshipping\twhere is my parcel\n")
    error = "Error: no class has more than 1 document: cross-validation needs a class of 2 or more to fill 2 " \
            "folds; label more documents"
    for command in (["eval", "--cv", "2", data], ["tune", data, "-o", tmp_path / "m", "--grid", '{"alpha": [1]}']):
        assert run(command, expect=1).stderr.splitlines()[-1] == error
    assert not (tmp_path / "m").exists()


def test_eval_cv_hashes_features_when_asked():
    """--cv keeps every analyzer option: 16 buckets cannot tell the tickets apart as words can."""
    line = run(["eval", "--cv", "5", TICKETS / "train", "--hash-features", "16"]).stdout
    assert line.startswith("accuracy 0.7243 ± 0.0306")


def test_tune_leaderboard_and_best_model(tmp_path):
    grid = '{"variant": ["complement", "multinomial"], "alpha": [0.1, 1.0], "ngram_range": [[1, 1], [1, 2]]}'
    result = run(["tune", TICKETS / "train", "-o", tmp_path / "best", "--grid", grid, "--cv", "3", "--format", "table"])
    board = result.stdout.splitlines()
    assert board[0].strip() == "best 8 of 8 settings"
    best_row = board[2].split()
    assert best_row[0] == "1" and float(best_row[1]) >= float(board[3].split()[1])
    assert len(best_row[3].split(".")[1]) == 2  # fitting and scoring 243 tickets takes milliseconds, not "0.0"
    model = Model.load(tmp_path / "best")
    assert model.summary["tuned"]["cv"] == 3 and model.summary["documents"] == 243
    assert f"--variant {model.settings['variant']} --alpha {model.settings['alpha']}" in board[2]
    (tmp_path / "grid.json").write_text(grid)  # the same grid from a file
    again = run(["tune", TICKETS / "train", "-o", tmp_path / "again", "--grid", tmp_path / "grid.json", "--cv", "3"])
    rows = [line.split("\t") for line in again.stdout.splitlines()]  # piped: TSV, the options one field
    assert [[rank, f"{float(mean):.4f}", options] for rank, mean, _, _, options in rows] == \
        [[cells[0], cells[1], " ".join(cells[4:])] for cells in map(str.split, board[2:])]
    # and from a pipe, bash's <(...): it was "no such file, nor a JSON object"
    piped = in_bash(f"nbtext tune {TICKETS / 'train'} -o {tmp_path / 'piped'} --grid <(cat {tmp_path / 'grid.json'})"
                    " --cv 3")
    assert piped.returncode == 0, piped.stderr
    unclocked = [[*row[:3], *row[4:]] for row in rows]  # all but the seconds
    assert [[*line.split("\t")[:3], *line.split("\t")[4:]] for line in piped.stdout.splitlines()] == unclocked
    listed = json.loads(run(["tune", TICKETS / "train", "-o", tmp_path / "again", "--grid", grid, "--format",
                             "json"]).stdout)
    assert [entry["options"] for entry in listed] == [options for *_, options in rows]
    assert listed[0]["settings"] == {"variant": model.settings["variant"], "alpha": model.settings["alpha"],
                                     "ngram_range": list(model.analyzer.ngram_range)}
    bad = run(["tune", TICKETS / "train", "-o", tmp_path / "x", "--grid", '{"beta": [1]}'], expect=2)
    assert "unknown setting 'beta'" in bad.stderr
    negative = run(["tune", TICKETS / "train", "-o", tmp_path / "x", "--grid", '{"alpha": [0.1, -1]}'], expect=2)
    # This was a ValueError traceback, after all the reading.
    assert negative.stderr.endswith("Error: Invalid value for --grid: alpha -1: the smoothing must be a number "
                                    "above 0 and at most 1e+09, e.g. 0.1\n")


def test_a_setting_that_prunes_every_term_is_scored_by_the_priors_not_fatal(tmp_path):
    """min_df 0.99 leaves no term of the tickets in any fold: the search ranks it at the
    priors (a third of the balanced tickets right), where it used to stop the whole search;
    eval --cv scores it so too. Both say so on stderr."""
    grid = '{"min_df": [1, 0.99], "variant": ["complement", "multinomial"]}'
    result = run(["tune", TICKETS / "train", "-o", tmp_path / "best", "--grid", grid])
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert [(mean, options) for _, mean, _, _, options in rows[2:]] == [
        ("0.333333", "--min-df 0.99 --variant complement"), ("0.333333", "--min-df 0.99 --variant multinomial")]
    assert all(options.startswith("--min-df 1 ") for *_, options in rows[:2])
    assert Model.load(tmp_path / "best").settings["min_df"] == 1
    assert "2 of 4 settings had no term left to train on in some fold (every one pruned, or no words) and " \
           "answered there with the class priors alone; the best of them: --min-df 0.99 --variant complement\n" \
           in result.stderr
    scored = run(["eval", "--cv", "3", TICKETS / "train", "--min-df", "0.99"])
    assert scored.stdout.startswith("accuracy 0.3333 ± 0.0000   macro F1 0.1667 ± 0.0000   log loss 1.0986 ")
    assert "3 of 3 folds had no term left to train on" in scored.stderr
    assert "3 of 3" not in run(["eval", "--cv", "3", TICKETS / "train", "--min-df", "2"]).stderr


def test_a_min_df_above_the_number_of_documents_is_not_blamed_on_max_df(tmp_path):
    """--min-df 500 over the 243 tickets, --max-df left alone, was refused with "--max-df keeps
    fewer documents than --min-df; raise --max-df": max_df 1.0 already keeps every document, and
    no value of it could help. It prunes every term, as --min-df 240 does; train says what the
    terms' document counts are, and a search scores the setting by the priors in each fold
    (a fold trains on 162 tickets, so --min-df 170 stopped the search before)."""
    for low in ("500", "240"):
        result = run(["train", TICKETS / "train", "-o", tmp_path / "m", "--min-df", low], expect=1)
        assert result.stderr.endswith("Error: no terms remain after pruning: the 920 terms read are each in 1 to 235 "
                                      "of the 243 documents; lower --min-df or raise --max-df\n")
    assert not (tmp_path / "m").exists()
    result = run(["tune", TICKETS / "train", "-o", tmp_path / "m", "--grid", '{"min_df": [2, 170]}'])
    assert [line.split("\t")[4] for line in result.stdout.splitlines()] == ["--min-df 2", "--min-df 170"]
    assert result.stdout.splitlines()[1].split("\t")[1] == "0.333333"
    assert Model.load(tmp_path / "m").settings["min_df"] == 2
    # a --max-df that leaves fewer documents than --min-df asks for is still the conflict it was
    refused = run(["train", TICKETS / "train", "-o", tmp_path / "m2", "--min-df", "5", "--max-df", "0.01"], expect=1)
    assert refused.stderr.endswith("Error: --max-df keeps fewer documents than --min-df; raise --max-df or lower "
                                   "--min-df\n")


def test_a_class_of_one_document_is_named_before_cross_validation(tmp_path):
    """Its one document is tested by a fold trained without it, so it is always counted wrong:
    a cost of the data, not of the settings, that eval --cv and tune say before scoring."""
    data = tmp_path / "data"
    for label in ("billing", "shipping", "technical"):
        (data / label).mkdir(parents=True)
        for path in sorted((TICKETS / "train" / label).iterdir()):
            (data / label / path.name).symlink_to(path)
    assert "one document only" not in run(["eval", "--cv", "3", data]).stderr
    (data / "refunds").mkdir()
    (data / "refunds" / "1.txt").write_text("I want my money back for the broken kettle\n")
    notice = "one document only in refunds: the fold that tests it trains without its class, so counts it wrong\n"
    scored = run(["eval", "--cv", "3", data])
    assert scored.stderr.endswith("4 classes: billing 81, refunds 1, shipping 81, technical 81\n" + notice)
    assert notice in run(["tune", data, "-o", tmp_path / "m", "--grid", '{"alpha": [0.2]}']).stderr


def test_classes_smaller_than_the_folds_are_named_with_the_folds_that_test_them_all(tmp_path):
    """R52's smallest topics have 2 to 4 training stories: 5 folds leave some of those folds
    without a story of them to test, which eval --cv said nothing about."""
    r52 = corpus_path("reuters21578") / "R52" / "train"
    notice = ("fewer documents than the 5 folds in cpu 3, dlr 3, fuel 4, jet 2, lead 4, nickel 3, potato 2, tea 2: "
              "some folds test none of them (--cv 2 tests every class in every fold)")
    stderr = run(["eval", "--cv", "5", r52]).stderr.splitlines()
    assert stderr[stderr.index(notice) - 1].startswith("one document only in platinum: ")
    assert not any(line.startswith("fewer documents") for line in run(["eval", "--cv", "2", r52]).stderr.splitlines())
    assert notice in run(["tune", "--cv", "5", r52, "-o", tmp_path / "m", "--grid", '{"alpha": [1]}']).stderr


def test_classes_too_small_for_a_test_split_are_named_as_untested(tmp_path):
    """At 20%, R52's topics of 1 and 2 training stories round to none held out: the held-out
    score said nothing of the 4 classes it never tested."""
    r52 = corpus_path("reuters21578") / "R52" / "train"
    notice = "not tested: 4 classes too small to hold out a document at 20% (jet 2, platinum 1, potato 2, tea 2)"
    stderr = run(["train", r52, "-o", tmp_path / "m", "--test-split", "0.2"]).stderr.splitlines()
    assert stderr[-3].startswith("held-out accuracy 0.9") and " on 1,306 documents (20%, seed 0);" in stderr[-3]
    assert stderr[-2].startswith("28 of the 1,306 documents held out have the text of one the model is trained on")
    assert stderr[-1] == notice
    info = run(["info", tmp_path / "m"]).stdout.splitlines()
    assert info[info.index(notice) - 2].startswith("held out when trained: 1,306 documents (0.2, seed 0)")
    assert info[info.index(notice) - 1] == stderr[-2]
    stderr = run(["train", r52, "-o", tmp_path / "m", "--test-split", "0.5"]).stderr.splitlines()
    assert stderr[-1] == "not tested: 1 class too small to hold out a document at 50% (platinum 1)"


@pytest.mark.parametrize("input_format, reads", [
    ("mbox", "DIR/<label>/ folders"), ("email", "DIR/<label>/ folders"), ("folder", "DIR/<label>/ folders"),
    ("csv", "a table file"), ("manifest", "a list of files"),
])
def test_a_format_that_cannot_come_from_a_pipe_is_refused_not_left_unread(tmp_path, input_format, reads):
    """`cat box.mbox | nbtext train - --input-format mbox` read nothing from the pipe and said
    only "no documents to train on"; csv and manifest died with a FileNotFoundError traceback."""
    mail = min((corpus_path("spamassassin-2003") / "spam").iterdir()).read_bytes()
    process = nbtext_process("train", "-", "-o", tmp_path / "m", "--input-format", input_format,
                             stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    _, stderr = process.communicate(b"From someone Mon Jan  1 00:00:00 2024\n" + mail, timeout=60)
    assert process.returncode == 1
    assert stderr.decode().endswith(f"Error: --input-format {input_format} reads {reads} by name, not stdin: "
                                    "stdin takes one labelled document a line (tsv, jsonl, fasttext)\n")
    assert not (tmp_path / "m").exists()


def test_training_data_without_a_word_is_refused(tmp_path):
    """Every class's documents read, but not one word in them (punctuation and one-letter words
    where words are two letters or more): a model of the class priors alone is not written."""
    for label, texts in {"yes": ["!!!", "a b c"], "no": ["?", "-- :-)"]}.items():
        (tmp_path / "data" / label).mkdir(parents=True)
        for n, text in enumerate(texts):
            (tmp_path / "data" / label / f"{n}.txt").write_text(text)
    result = run(["train", tmp_path / "data", "-o", tmp_path / "m", "--tokens", "words"], expect=1)
    assert result.stderr.endswith("Error: no words to learn from in the 4 documents read\n")
    assert not (tmp_path / "m").exists()
    run(["train", tmp_path / "data", "-o", tmp_path / "m"])  # train's own tokens keep one-letter words
    assert list(Model.load(tmp_path / "m").terms) == ["a", "a b", "b", "b c", "c"]


@pytest.mark.parametrize("grid, message", [
    ('{"idf": ["false"]}', 'idf "false": use true or false (JSON, no quotes)'),  # was a true string: IDF on
    ('{"norm": [0]}', "norm 0: use true or false (JSON, no quotes)"),
    ('{"ngram_range": [2]}', "ngram_range 2: use [MIN, MAX] lengths, 1 <= MIN <= MAX, e.g. [1, 2]"),  # a TypeError
    ('{"char_ngrams": [[3]]}', "char_ngrams [3]: use [MIN, MAX] lengths, 1 <= MIN <= MAX, e.g. [1, 2], or null for "
                               "none"),
    # These two were found only after all the reading.
    ('{"ngram_range": [[2, 1]]}', "ngram_range [2, 1]: use [MIN, MAX] lengths, 1 <= MIN <= MAX, e.g. [1, 2]"),
    ('{"char_ngrams": [[0, 4]]}', "char_ngrams [0, 4]: use [MIN, MAX] lengths, 1 <= MIN <= MAX, e.g. [1, 2], or null "
                                  "for none"),
    ('{"min_df": ["2"]}', 'min_df "2": use a document count (e.g. 2) or a proportion from 0.0 to 1.0 (e.g. 0.5)'),
    ('{"max_df": [1.5]}', "max_df 1.5: use a document count (e.g. 2) or a proportion from 0.0 to 1.0 (e.g. 0.5)"),
    ('{"maxdf": [0.5]}', "unknown setting 'maxdf' (did you mean 'max_df'?); use ['alpha', "),
    # These four were found only as the first model was built, after all the reading, with exit status 1.
    ('{"variant": ["multinomial", "complment"]}',
     'variant "complment": use one of "bernoulli", "complement", "multinomial" (did you mean "complement"?)'),
    ('{"tf": ["lg"]}', 'tf "lg": use one of "raw", "binary", "log" (did you mean "log"?)'),
    ('{"doc_norm": ["l1"]}', 'doc_norm "l1": use one of null, "l2"'),
    ('{"tokens": ["word"]}', 'tokens "word": use one of "words", "all-words", "joined", "marks" (did you mean '
                             '"words"?)'),
    # One value, or one range, where a list of them is to be tried: it was "expected an object of
    # non-empty lists", and [1, 2] for ngram_range was the ranges 1 and 2.
    ('{"alpha": 0.1}', "alpha 0.1: give a list of the values to try, [0.1] for that one alone"),
    ('{"ngram_range": [1, 2]}', "ngram_range [1, 2]: give a list of the ranges to try, each [MIN, MAX]: [[1, 2]] "
                                "for that one alone"),
    ('{"alpha": []}', "alpha []: no value to try; leave alpha out for train's default"),
    ('{"alpah": 0.1}', "unknown setting 'alpah' (did you mean 'alpha'?)"),  # the name first: it is the mistake
    ('[{"alpha": [1]}]', "expected a JSON object of settings, each with a list of values to try; e.g. "),
    # JSON takes these two.
    ('{"alpha": [Infinity]}', "alpha Infinity: the smoothing must be a number above 0 and at most 1e+09, e.g. 0.1"),
    ('{"alpha": [NaN]}', "alpha NaN: the smoothing must be a number above 0 and at most 1e+09, e.g. 0.1"),
])
def test_a_mistyped_grid_is_told_before_anything_is_read(tmp_path, grid, message):
    result = run(["tune", TICKETS / "train", "-o", tmp_path / "x", "--grid", grid], expect=2)
    assert f"Error: Invalid value for --grid: {message}" in result.stderr
    assert "Traceback" not in result.stderr and "read 243" not in result.stderr


def test_a_grid_file_mistyped_or_broken_is_named(tmp_path):
    """--grid mygrid.json, mistyped, said "not JSON (Expecting value)", as if the name were the
    JSON; a broken grid file did not say it was the file, nor where."""
    refused = run(["tune", TICKETS / "train", "-o", tmp_path / "x", "--grid", "my-grid.json"], expect=2).stderr
    assert refused.endswith("Error: Invalid value for --grid: my-grid.json: no such file, nor a JSON object; e.g. "
                            "'{\"alpha\": [0.1, 1.0]}'\n")
    broken = tmp_path / "grid.json"
    broken.write_text('{"alpha": [0.1, 0.3],\n "idf": [true false]}\n')
    refused = run(["tune", TICKETS / "train", "-o", tmp_path / "x", "--grid", broken], expect=2).stderr
    assert refused.endswith(f"Error: Invalid value for --grid: {broken}: not JSON (Expecting ',' delimiter, line 2); "
                            "e.g. '{\"alpha\": [0.1, 1.0]}'\n")
    broken.write_text('{"alpha": [0.1, 0.3],\n "idf": [true, false]}\n')
    assert "best accuracy" in run(["tune", TICKETS / "train", "-o", tmp_path / "x", "--grid", broken]).stderr


@pytest.mark.parametrize(("command", "low", "high"), [("train", "5", "2"), ("train", "0.5", "0.2"),
                                                     ("eval", "5", "2")])
def test_document_frequencies_the_wrong_way_round_are_told_before_anything_is_read(tmp_path, command, low, high):
    """--min-df 5 --max-df 2 was refused only once every document had been read and counted
    (20news: seconds; a mail archive: minutes). Two counts, or two shares, are compared at once;
    a count and a share still wait for the number of documents."""
    args = ["train", "-o", tmp_path / "m"] if command == "train" else ["eval", "--cv", "3"]
    result = run([*args, corpus_path("20news-bydate") / "train", "--min-df", low, "--max-df", high], expect=2)
    assert result.stderr.endswith("Error: --max-df keeps fewer documents than --min-df; raise --max-df or lower "
                                  "--min-df\n")
    assert "read " not in result.stderr


def test_a_document_frequency_is_a_count_when_whole_and_a_share_otherwise(tmp_path):
    """--min-df 5e-2 was read as the count 0, a number written without a dot being taken for a
    count: it kept every term. 5e-2 is the share 0.05, and 1_0 (Python's way) the count 10."""
    vocabulary = {}
    for value in ("5e-2", "0.05", "1_0", "10"):
        run(["train", TICKETS / "train", "-o", tmp_path / value, "--min-df", value])
        vocabulary[value] = Model.load(tmp_path / value).vocabulary
    assert vocabulary["5e-2"] == vocabulary["0.05"] and vocabulary["1_0"] == vocabulary["10"]
    assert 10 < len(vocabulary["5e-2"]) < len(vocabulary["10"]) < 920


def test_tune_help_names_every_key_a_grid_may_hold():
    from nbtext.tuning import GRID_KEYS

    grid_option = next(p for p in cli.get_command(click.Context(cli), "tune").params if p.name == "grid")
    named = grid_option.help.partition("Keys: ")[2].partition(" (")[0]
    assert sorted(named.split(", ")) == sorted(GRID_KEYS)


@pytest.mark.parametrize("flags", [True, False])
def test_the_leaderboard_shows_settings_as_options_train_takes(flags):
    """tune prints each setting as the options that give it, to paste into `nbtext train`:
    --no-fit-prior and --no-norm were no options of train ("No such option")."""
    from nbtext.render import describe
    from nbtext.tuning import COLUMN_KEYS, GRID_KEYS

    setting = {"variant": "multinomial", "alpha": 0.3, "analyzer": "word", "ngram_range": (1, 3), "char_ngrams": None,
               "tokens": "joined", "tf": "binary", "doc_norm": None, "idf": flags, "norm": flags, "min_df": 2,
               "max_df": 0.5, "fit_prior": flags, "numeric_columns": "size,age", "categorical_columns": "tier"}
    assert set(setting) == GRID_KEYS - {"columns"} | set(COLUMN_KEYS)  # a grid's columns are a setting's two keys
    train = cli.get_command(click.Context(cli), "train").make_context("train", ["DATA", "-o", "m", *describe(setting).split()])
    assert {key: train.params[key] for key in setting} == {**setting, "doc_norm": "none",  # train spells it none
                                                          "numeric_columns": ("size", "age"),
                                                          "categorical_columns": ("tier",)}


def test_tune_as_it_comes_picks_what_the_accuracy_benchmark_scores(tmp_path):
    """`nbtext tune` with no --grid or --cv searches the 128 settings by the 3 folds whose
    nested cross-validation README reports, and saves the setting the benchmark scores."""
    from benchmarks.accuracy import tuned_setting

    board = run(["tune", TICKETS / "train", "-o", tmp_path / "best", "--format", "table"]).stdout
    assert board.splitlines()[0].strip() == "best 10 of 128 settings"
    chosen = tuned_setting(list(LabelledCorpus([str(TICKETS / "train")])))
    model = Model.load(tmp_path / "best")
    assert model.summary["tuned"]["cv"] == 3
    assert {key: model.settings[key] for key in ("variant", "alpha", "idf", "min_df")} == \
        {key: chosen[key] for key in ("variant", "alpha", "idf", "min_df")}
    assert (model.counts.tf, model.counts.doc_norm, model.analyzer.ngram_range) == \
        (chosen["tf"], chosen["doc_norm"], chosen["ngram_range"])


def test_char_ngrams_train_tune_and_show_as_written(tmp_path):
    """--char-ngrams is kept in the model, predicted with, searched by tune, and its bracketed
    features print as themselves (rich would read ``[ant]`` as markup and print nothing)."""
    run(["train", TICKETS / "train", "-o", tmp_path / "c", "--char-ngrams", "3,4"])
    model = Model.load(tmp_path / "c")
    assert model.analyzer.char_ngrams == (3, 4)
    shown = run(["inspect-top-words", tmp_path / "c", "--top", "40", "--class", "billing", "--format", "table"]).stdout
    rows = run(["inspect-top-words", tmp_path / "c", "--top", "40", "--class", "billing", "--format", "tsv"]).stdout
    features = [row.split("\t")[2] for row in rows.splitlines()]
    assert any(feature.startswith("[") and " " not in feature for feature in features)  # e.g. [ant]
    assert all(feature in shown for feature in features)  # every one, brackets and all, in the table
    assert run(["predict", tmp_path / "c"], input="I was charged twice, refund please\n").stdout == "billing\n"
    grid = '{"char_ngrams": [null, [3, 4]], "alpha": [0.3]}'
    board = run(["tune", TICKETS / "train", "-o", tmp_path / "t", "--grid", grid, "--cv", "3"]).stdout
    assert "--char-ngrams 3,4" in board and "--char-ngrams none" in board
    tuned = Model.load(tmp_path / "t")
    assert tuned.analyzer.char_ngrams == ((3, 4) if "--char-ngrams 3,4" in board.splitlines()[0] else None)


def test_joined_tokens_keep_news_names_whole_and_lift_20news(tmp_path):
    """--tokens joined on real news: newsgroup, host and mail names become features, the model
    keeps reading text that way, and 20news test accuracy with the defaults rises from 0.8567
    to 0.8640 (README); tune searches it as a grid key."""
    from .conftest import corpus_path

    news = corpus_path("20news-bydate")
    scores = {}
    for tokens in ("words", "joined"):
        run(["train", news / "train", "-o", tmp_path / tokens, "--tokens", tokens])
        scores[tokens] = run(["eval", tmp_path / tokens, news / "test"]).stdout.splitlines()[0].split()[:2]
    assert scores == {"words": ["accuracy", "0.8567"], "joined": ["accuracy", "0.8640"]}
    joined = Model.load(tmp_path / "joined")
    assert joined.analyzer.tokens == "joined" and joined._table_possible  # predicts by the word table
    rows = run(["inspect-top-words", tmp_path / "joined", "--class", "comp.windows.x", "--top", "30",
                "--format", "tsv"]).stdout.splitlines()
    assert {"comp.windows.x", "xpert@expo.lcs.mit.edu"} <= {row.split("\t")[2] for row in rows}
    words_rows = run(["inspect-top-words", tmp_path / "words", "--class", "comp.windows.x", "--top", "30",
                      "--format", "tsv"]).stdout.splitlines()
    assert not any("." in row.split("\t")[2] for row in words_rows)
    refused = run(["train", "--update", tmp_path / "joined", news / "test", "--tokens", "words"], expect=2)
    assert "--update counts as the model was trained (its analyzer and term weighting); drop --tokens" in refused.stderr

    board = run(["tune", TICKETS / "train", "-o", tmp_path / "t", "--grid",
                 '{"tokens": ["words", "joined"], "alpha": [0.3]}', "--cv", "3"]).stdout.splitlines()
    assert sorted(row.split("--tokens ")[1].split()[0] for row in board) == ["joined", "words"]  # TSV: no title
    assert f"--tokens {Model.load(tmp_path / 't').analyzer.tokens}" in board[0]


def test_marks_are_tokens_as_scikit_learn_counts_them_and_raise_spam(tmp_path):
    """--tokens marks on Ling-spam, whose texts come tokenized ("only $ 19 . 95 !"): every
    mark is a token, so "$" and "!" are words of spam. With the options of scikit-learn's
    defaults, the model is CountVectorizer with the same token pattern + MultinomialNB; the
    plain path counts it (marks are no run of word bytes), in one process or two, and tune
    searches it as a grid key."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    parts = corpus_path("lingspam") / "bare"
    run(["train", parts / "part1", "-o", tmp_path / "m", "--tokens", "marks", "--variant", "multinomial",
         "--alpha", "1", "--ngram-range", "1,1", "--tf", "raw"])
    model = Model.load(tmp_path / "m")
    assert model.analyzer.tokens == "marks" and not model._table_possible
    train, test = (list(LabelledCorpus([str(parts / part)])) for part in ("part1", "part2"))
    vectorizer = CountVectorizer(token_pattern=r"(?u)\w+|[^\w\s]")
    oracle = MultinomialNB().fit(vectorizer.fit_transform([d.text for d in train]), [d.label for d in train])
    expected = oracle.predict_proba(vectorizer.transform([d.text for d in test]))[:, 1]
    answers = run(["predict", tmp_path / "m", parts / "part2", "--proba", "--top", "2"]).stdout.splitlines()
    spam = [float(dict(zip(fields[1::2], fields[2::2]))["spam"]) for fields in (line.split("\t") for line in answers)]
    np.testing.assert_allclose(spam, expected, atol=1e-6)  # six decimals printed
    assert run(["predict", tmp_path / "m", parts / "part2", "--proba", "--top", "2", "--jobs", "2"]).stdout == \
        "\n".join(answers) + "\n"
    run(["train", parts / "part1", "-o", tmp_path / "d", "--tokens", "marks"])  # the defaults' uni+bigrams
    top = run(["inspect-top-words", tmp_path / "d", "--class", "spam", "--top", "4", "--format", "tsv"]).stdout
    assert [row.split("\t")[2] for row in top.splitlines()] == ["remove", "only $", "! you", "$ 5"]
    board = run(["tune", parts / "part1", "-o", tmp_path / "t", "--grid",
                 '{"tokens": ["words", "marks"], "alpha": [0.3]}', "--cv", "3"]).stdout.splitlines()
    assert sorted(row.split("--tokens ")[1].split()[0] for row in board) == ["marks", "words"]


@pytest.mark.parametrize("grid", [None, '{"alpha": [0.1, 1]}'])
def test_tune_ends_with_the_train_command_that_makes_its_model(sms, tmp_path, grid):
    """tune's last line is the `nbtext train` command that gives the model it saved, every
    option spelled out, and the leaderboard shows only the grid's settings. Run on SMS spam, it
    makes the same model. Settings the grid leaves out are train's defaults: they were the
    library's plainest (raw counts of single words), so that a search of alpha alone scored a
    point below what `nbtext train --alpha 1` gives rt-polarity."""
    import shlex

    from .test_training import assert_same_model

    searched = ["--grid", grid] if grid else []
    lines = run(["tune", sms / "train.tsv", "-o", tmp_path / "tuned", *searched]).stderr.splitlines()
    assert lines[-1].startswith("the same model: nbtext train DATA ") and lines[-1].endswith(" -o MODEL")
    command = shlex.split(lines[-1].split(": ", 1)[1].replace("DATA", str(sms / "train.tsv")))
    run([*command[1:-1], tmp_path / "trained"])
    tuned, trained = Model.load(tmp_path / "tuned"), Model.load(tmp_path / "trained")
    assert_same_model(tuned, trained)
    if grid:  # train given the grid's one setting, and nothing else, makes the same model
        alpha = tuned.settings["alpha"]
        run(["train", sms / "train.tsv", "--alpha", str(alpha), "-o", tmp_path / "told"])
        assert_same_model(tuned, Model.load(tmp_path / "told"))
        assert "--tf log" in lines[-1] and "--tokens all-words" in lines[-1] and "--ngram-range 1,2" in lines[-1]
        # The training part of SMS spam holds copies: the best setting's folds scored some
        # messages on them, as eval --cv of the same options over the same folds says, with
        # the same score.
        copies = [line for line in lines if line.startswith("best setting: ")]
        again = run(["eval", "--cv", "3", "--alpha", str(alpha), sms / "train.tsv"]).stdout.splitlines()
        assert copies == [f"best setting: {again[1]}"]
        assert again[1].startswith("69 of the 1,672 documents were scored by a model trained on the same text")
        best = next(line for line in lines if line.startswith("best accuracy "))
        assert best.split(" -> ")[0] == "best " + " ".join(again[0].split()[:4])
    else:  # the default grid names every setting train's defaults would change, tokens too
        assert tuned.analyzer.tokens == "words" and "--tokens words" in lines[-1]
        leader = run(["tune", sms / "train.tsv", "-o", tmp_path / "again", "--format", "json"]).stdout
        run(["train", sms / "train.tsv", *shlex.split(json.loads(leader)[0]["options"]), "-o", tmp_path / "pasted"])
        assert_same_model(tuned, Model.load(tmp_path / "pasted"))


@pytest.mark.parametrize("tokens", ["joined", "marks"])
def test_the_tokens_grids_are_the_default_grid_with_tokens(tokens):
    """README's 20news and SpamAssassin rows tuned over examples/tune-joined.json, and its
    Ling-spam and SMS rows over examples/tune-marks.json, are the default search plus those
    tokens; the files must not drift from the default grid."""
    from nbtext.tuning import DEFAULT_GRID, read_grid

    grid = read_grid(str(REPO / "examples" / f"tune-{tokens}.json"))
    assert grid["tokens"] == ["words", tokens]
    assert grid == {**DEFAULT_GRID, "tokens": ["words", tokens]}
    assert list(grid) == list(DEFAULT_GRID)  # the leaderboard's options in the same order


def test_the_model_is_never_written_over_the_data(sms, tmp_path):
    """`nbtext train data.tsv -o data.tsv` (a slip of tab completion) replaced the training
    data with the model, and so did -o naming a document in a class folder; a new model file
    in a class folder was read as one of its documents the next time. All are refused before
    anything is read, by name or through a link, and the data are left as they were; a model
    file beside the class folders is still allowed (later runs skip it, and say so)."""
    import shutil

    table = tmp_path / "data.tsv"
    shutil.copy(sms / "train.tsv", table)
    (tmp_path / "link.tsv").symlink_to(table)
    for command, output, data in [("train", table, table), ("tune", os.path.join(tmp_path, ".", "data.tsv"), table),
                                  ("train", table, tmp_path / "link.tsv")]:
        refused = run([command, data, "-o", output], expect=2).stderr
        assert refused.endswith(f"Error: -o {output} is DATA {data}: the model would be written over it\n")
    assert table.read_bytes() == (sms / "train.tsv").read_bytes()
    folder = tmp_path / "tickets"
    shutil.copytree(TICKETS / "train", folder)
    document = folder / "billing" / "000.txt"
    before = document.read_bytes()
    refused = run(["train", folder, "-o", document], expect=2).stderr
    assert refused.endswith(f"Error: -o {document} is a document of DATA {folder}: the model would be written "
                            "over it; write the model outside the data\n")
    assert document.read_bytes() == before
    new = folder / "billing" / "model.joblib"  # written there, it was read as a billing ticket the next time
    refused = run(["train", folder, "-o", new], expect=2).stderr
    assert refused.endswith(f"Error: -o {new} is inside class folder billing of DATA {folder}: the next run would "
                            "read the model as one of its documents; write the model outside the data\n")
    assert not new.exists()
    run(["train", folder, "-o", folder / "m.joblib"])
    again = run(["train", folder, "-o", folder / "m.joblib"]).stderr
    assert again.startswith("read 243 documents\n") and "\n1 skipped: not inside a class folder" in again


def test_counts_of_one_read_as_one(tmp_path, tickets_model):
    """One held-out document, one document of a class the model never saw, a class of one
    document too small to calibrate: each said in the singular, the class named."""
    import shutil

    for label, texts in {"billing": ["my invoice is wrong"], "shipping": ["where is my parcel", "parcel lost"]}.items():
        (tmp_path / "tiny" / label).mkdir(parents=True)
        for number, text in enumerate(texts):
            (tmp_path / "tiny" / label / f"{number}.txt").write_text(text)
    split = run(["train", tmp_path / "tiny", "-o", tmp_path / "m", "--test-split", "0.5"])
    *_, held, untested = split.stderr.splitlines()
    assert held.startswith("held-out accuracy ") and " on 1 document (50%, seed 0);" in held
    assert untested == "not tested: 1 class too small to hold out a document at 50% (billing 1)"
    refused = run(["train", tmp_path / "tiny", "-o", tmp_path / "m", "--calibrate"], expect=1).stderr
    assert refused.endswith("Error: class 'billing' has 1 document; --calibrate needs at least 5 per class\n")
    shutil.copytree(TICKETS / "test", tmp_path / "test")
    (tmp_path / "test" / "returns").mkdir()
    (tmp_path / "test" / "returns" / "0.txt").write_text("I want to send this back")
    table = run(["eval", tickets_model, tmp_path / "test"]).stdout.splitlines()
    assert table[1] == ("1 document has a label the model never saw (returns 1): counted as errors, left out of the "
                        "log loss and the calibration")
    report = json.loads(run(["eval", tickets_model, tmp_path / "test", "--format", "json"]).stdout)
    assert report["n_unknown_label"] == 1 and report["unknown_labels"] == {"returns": 1}
    assert report["n_documents"] == 121
    assert sum(row["documents"] for row in report["reliability"]) == 120
    (tmp_path / "returns").mkdir()
    shutil.move(tmp_path / "test" / "returns", tmp_path / "returns" / "returns")
    alone = run(["eval", tickets_model, tmp_path / "returns"]).stdout.splitlines()
    assert alone[0] == "accuracy 0.0000   macro F1 0.0000   log loss n/a   documents 1"
    assert json.loads(run(["eval", tickets_model, tmp_path / "returns", "--format", "json"]).stdout)["log_loss"] is None


def test_train_test_split_reports_held_out_score(tmp_path):
    result = run(["train", TICKETS / "train", "-o", tmp_path / "m", "--test-split", "0.25", "--seed", "1"])
    last = result.stderr.splitlines()[-1]
    assert last.startswith("held-out accuracy 0.") and "on 60 documents (25%, seed 1)" in last

    summary = Model.load(tmp_path / "m").summary
    assert summary["documents"] == 243 - 60 and summary["held_out"]["n_documents"] == 60  # round(81 * 0.25) each


def test_a_test_split_that_leaves_a_side_empty_is_a_clear_error(tmp_path):
    """81 tickets a class: 0.001 of them rounds to none held out, 0.999 to all of them."""
    last = {fraction: run(["train", TICKETS / "train", "-o", tmp_path / "m", "--test-split", fraction],
                          expect=1).stderr.splitlines()[-1] for fraction in ("0.001", "0.999")}
    assert last == {"0.001": "Error: --test-split 0.001 holds out no documents of the 243; use a larger fraction",
                    "0.999": "Error: --test-split 0.999 holds out every document of class 'billing' (81), "
                             "leaving none to train on"}
    assert not (tmp_path / "m").exists()
    for fraction, why in [("0", "0.0 is not in the range 0<x<1"), ("1.5", "1.5 is not in the range 0<x<1"),
                          ("nan", "nan is not a finite number")]:  # refused before a document is read
        refused = run(["train", "no-such-folder", "-o", tmp_path / "m", "--test-split", fraction], expect=2).stderr
        assert refused.endswith(f"Error: Invalid value for '--test-split': {why}.\n")


def test_predict_jobs_answers_as_one_process_does_in_order(tmp_path):
    """--jobs 2 on a real folder (7,532 files) and on a real pipe: the same lines, in the same
    order, as one process."""
    from .conftest import corpus_path

    news = corpus_path("20news-bydate")
    model = tmp_path / "news.joblib"
    run(["train", news / "train", "-o", model, "--ngram-range", "1,1", "--jobs", "1"])
    by_folder = {jobs: run(["predict", model, news / "test", "--proba", "--jobs", jobs]).stdout for jobs in (1, 2)}
    assert by_folder[1].count("\n") == 7532
    assert by_folder[2] == by_folder[1]
    lines = "".join(" ".join(path.read_text(errors="replace").split()) + "\n"
                    for path in sorted((news / "test" / "sci.space").iterdir()))
    by_pipe = {}
    for jobs in (1, 2):
        process = nbtext_process("predict", model, "-", "--format", "jsonl", "--jobs", jobs,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        by_pipe[jobs], errors = process.communicate(lines.encode(), timeout=120)
        assert process.returncode == 0, errors
    assert by_pipe[2] == by_pipe[1]
    answers = [json.loads(line) for line in by_pipe[2].splitlines()]
    assert [a["line"] for a in answers] == list(range(1, 395))
    assert sum(a["label"] == "sci.space" for a in answers) > 350


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bad_record_comes_after_the_answers_read_before_it(tmp_path, tickets_model, jobs):
    """Record 301 of a JSONL file has no text field: the 300 before it (more than a reading
    batch) are answered, then the error names the record."""
    texts = [path.read_text(errors="replace") for path in sorted(TICKETS.glob("*/*/*.txt"))][:300]
    records = [json.dumps({"id": f"t{i}", "text": text}) for i, text in enumerate(texts)] + ['{"id": "late"}']
    (tmp_path / "new.jsonl").write_text("\n".join(records) + "\n")
    result = run(["predict", tickets_model, tmp_path / "new.jsonl", "--text-field", "text", "--id-field", "id",
                  "--jobs", jobs], expect=1)
    assert [line.split("\t")[0] for line in result.stdout.splitlines()] == [f"t{i}" for i in range(300)]
    assert result.stderr == f"Error: {tmp_path / 'new.jsonl'}:301: no 'text' field (set by --text-field)\n"


def test_a_failing_scoring_process_is_an_error(tickets_model):
    """A worker that cannot load the model stops the run with a message instead of hanging."""
    import functools

    from nbtext.errors import NbtextError
    from nbtext.parallel import map_in_processes

    items = [(["where is my parcel"],)] * 20
    with pytest.raises(NbtextError, match="a worker process failed: ModelError: .*no such model file"):
        list(map_in_processes(Model.predict, functools.partial(Model.load, "/nonexistent/model"), items, 2))
    done = list(map_in_processes(Model.predict, functools.partial(Model.load, str(tickets_model)), items, 2))
    assert done == [["shipping"]] * 20


def test_a_model_of_bigrams_alone_predicts_a_stream(tmp_path):
    """Trained with --ngram-range 2,2, a model has no single words among its terms: building
    its word table guessed room for none and doubled that, forever, so predict hung on any
    input long enough to build it (a few dozen characters here). Now every line gets the label
    the plain path gives it."""
    run(["train", TICKETS / "train", "-o", tmp_path / "bi", "--ngram-range", "2,2"])
    lines = [" ".join(d.text.split()) for d in LabelledCorpus([str(TICKETS / "test")])]
    done = subprocess.run([sys.executable, "-m", "nbtext", "predict", tmp_path / "bi"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=60)
    model = Model.load(tmp_path / "bi")
    plain = model.core.predict_log_proba(model.vectorize_features([model.analyzer(t) for t in lines]))
    assert done.returncode == 0 and len(lines) == 120
    assert done.stdout.splitlines() == [model.classes[i] for i in plain.argmax(axis=1)]


def test_one_vocabulary_and_the_old_spellings_kept_for_a_release(tickets_model):
    """"How many" is --top in every command, and info's text format is table, as everywhere
    else; the old spellings give the same output, with one line on stderr saying what to use."""
    renamed = "nbtext: {old} is now {new}; {old} will stop working in nbtext 0.3.0\n"
    new = run(["predict", tickets_model, "--top", "2", "--proba"], input="charged twice\n")
    old = run(["predict", tickets_model, "--top-k", "2", "--proba"], input="charged twice\n")
    assert old.stdout == new.stdout and len(new.stdout.split("\t")) == 4
    assert old.stderr == renamed.format(old="--top-k", new="--top") + new.stderr
    new = run(["inspect-top-words", tickets_model, "--top", "3", "--format", "tsv"])
    old = run(["inspect-top-words", tickets_model, "-k", "3", "--format", "tsv"])
    assert old.stdout == new.stdout and len(new.stdout.splitlines()) == 9
    assert old.stderr == renamed.format(old="-k", new="--top")
    new = run(["info", tickets_model, "--format", "table"])
    old = run(["info", tickets_model, "--format", "text"])
    assert old.stdout == new.stdout and new.stdout.startswith(f"{tickets_model}: complement Naive Bayes")
    assert old.stderr == renamed.format(old="--format text", new="--format table")
    for command in ("predict", "inspect-top-words", "tune"):
        shown = run([command, "-h"]).stdout
        assert "--top N" in shown and "--top-k" not in shown and "-k," not in shown, command
    formats = {command: run([command, "-h"]).stdout.split("--format [", 1)[1].split("]", 1)[0]
               for command in ("eval", "info", "predict", "tune", "inspect-top-words")}
    assert formats == {"eval": "table|json", "info": "table|json", "predict": "tsv|jsonl", "tune": "table|tsv|json",
                       "inspect-top-words": "table|tsv|json"}

"""Every shared corpus trains and evaluates through the CLI under its protocol, every document counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from benchmarks.accuracy import mcnemar_p
from benchmarks.protocols import PROTOCOLS, folds
from nbtext.readers import LabelledCorpus
from nbtext.readers.mail import message_text

from .conftest import corpus_path, run

#: Sanity floors: well below what plain multinomial NB reaches on each (see the corpus notes).
FLOORS = {"20news-bydate": 0.76, "R8": 0.93, "R52": 0.82, "sms-spam": 0.95, "spamassassin-2003": 0.90,
          "lingspam": 0.95, "movie-review-polarity": 0.75, "rt-polarity": 0.72}


@pytest.mark.parametrize("name", list(PROTOCOLS))
def test_trains_and_evaluates_through_the_cli(name, tmp_path):
    corpus_path("sms-spam")  # skip (or, under CI, fail) where ../shared is missing
    fold = next(folds(name))
    train, test = fold.write(tmp_path)
    trained = run(["train", train, "-o", tmp_path / "m.joblib"])
    assert trained.stderr.startswith(f"read {len(fold.train):,} documents\n")
    assert "skipped" not in trained.stderr
    report = json.loads(run(["eval", tmp_path / "m.joblib", test, "--format", "json"]).stdout)
    assert report["n_documents"] == len(fold.test)
    assert report["accuracy"] >= FLOORS.get(name, 0.90)


def test_20news_accuracy_at_least_scikit_learn_defaults(tmp_path):
    root = corpus_path("20news-bydate")
    run(["train", root / "train", "-o", tmp_path / "m.joblib"])
    ours = json.loads(run(["eval", tmp_path / "m.joblib", root / "test", "--format", "json"]).stdout)
    train, test = (list(LabelledCorpus([str(root / part)])) for part in ("train", "test"))
    vectorizer = CountVectorizer()
    oracle = SkMultinomialNB().fit(vectorizer.fit_transform([d.text for d in train]), [d.label for d in train])
    predicted = oracle.predict(vectorizer.transform([d.text for d in test]))
    theirs = float(np.mean(predicted == np.array([d.label for d in test])))
    assert ours["accuracy"] >= theirs > 0.76


def test_20news_read_as_posts_reaches_rennie_twcnb(tmp_path):
    """Read as posts (Subject and body), 20news beats Rennie et al.'s TWCNB, 0.861, with the
    setting best on the plain text (README, "Accuracy"); every post is read, no other header."""
    root = corpus_path("20news-bydate")
    as_posts = ["--input-format", "email", "--headers", "none"]
    trained = run(["train", root / "train", "-o", tmp_path / "m.joblib", *as_posts,
                   "--tf", "binary", "--doc-norm", "l2", "--alpha", "0.03"])
    assert trained.stderr.startswith("read 11,314 documents\n")
    posts = list(LabelledCorpus([str(root / "test")], input_format="email"))
    assert len(posts) == 7532 and all(post.text.startswith("Subject: ") for post in posts)
    # Headers of train/sci.space/59497: From: et@teal.csn.org (Eric H. Taylor), Subject, Summary,
    # Keywords: space, curvature, nothing, tesla, Nntp-Posting-Host, Organization: 4-L
    # Laboratories, Distribution, Expires, Lines.
    text = message_text((root / "train" / "sci.space" / "59497").read_bytes()).text
    assert text.startswith("Subject: Re: Gravity waves, was: Predicting gravity wave quantization")
    assert not any(header in text for header in ("teal", "tesla", "Laboratories", "Expires", "Lines:"))
    report = json.loads(run(["eval", tmp_path / "m.joblib", root / "test", "--input-format", "email",
                             "--format", "json"]).stdout)
    assert report["n_documents"] == 7532
    assert report["accuracy"] > 0.861


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_read_report_counts_repeated_texts_as_the_corpus_notes_do(jobs, tmp_path):
    """Ling-spam's bare version has 17 extra copies in 13 groups, none across ham and spam; R8
    (train and test) has 51 groups, 3 of them under two topics (the corpus notes). The report
    says as much, read in one process or with worker processes reading the folders."""
    lingspam = corpus_path("lingspam") / "bare"
    parts = [lingspam / f"part{n}" for n in range(1, 11)]
    said = run(["train", *parts, "-o", tmp_path / "m.joblib", "--jobs", jobs]).stderr.splitlines()
    assert said[:2] == ["read 2,893 documents", "17 documents with the text of one read before (kept: each counts)"]
    assert not any(line.endswith("with more than one label") for line in said)
    r8 = corpus_path("reuters21578") / "R8"
    said = run(["train", r8 / "train", r8 / "test", "-o", tmp_path / "m.joblib", "--jobs", jobs]).stderr.splitlines()
    assert said[2:4] == ["52 documents with the text of one read before (kept: each counts)",
                         "3 texts with more than one label"]


@pytest.mark.parametrize("name", ["sms-spam", "enron-spam", "spamassassin-2003", "20news-bydate"])
def test_repeated_texts_of_the_other_corpora_as_their_notes_count(name):
    """The corpus notes' counts of exact copies: SMS 403 texts repeated; enron1..6 178, 33,
    238, 149, 63 and 11 extra copies, none across ham and spam; none in SpamAssassin (whose
    file names hold each message's MD5) or in either split of 20news."""
    root = corpus_path(name)
    sets = {"sms-spam": {"": [root / "SMSSpamCollection"]},
            "enron-spam": {n: [root / f"enron{n}"] for n in range(1, 7)},
            "spamassassin-2003": {"": [root]},
            "20news-bydate": {part: [root / part] for part in ("train", "test")}}[name]
    expected = {"sms-spam": [403], "enron-spam": [178, 33, 238, 149, 63, 11]}.get(name, [0] * len(sets))
    counted = []
    for paths in sets.values():
        corpus = LabelledCorpus([str(path) for path in paths])
        for _ in corpus:
            pass
        copies, relabelled = corpus.report.repeated()
        assert relabelled == 0
        counted.append(copies)
    assert counted == expected


def test_eval_tells_the_documents_the_model_was_trained_on(tmp_path):
    """SMS spam's published split tests on messages whose text the first 30% holds too: eval
    counts them, and the accuracy on the others, as the texts and the model's own answers give
    them. A model file without its texts (nbtext 0.1.0's) says nothing of them."""
    from nbtext.model import Model

    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes().splitlines(keepends=True)
    cut = int(len(lines) * 0.3)
    (tmp_path / "train.tsv").write_bytes(b"".join(lines[:cut]))
    (tmp_path / "test.tsv").write_bytes(b"".join(lines[cut:]))
    run(["train", tmp_path / "train.tsv", "-o", tmp_path / "m.joblib"])
    report = json.loads(run(["eval", tmp_path / "m.joblib", tmp_path / "test.tsv", "--format", "json"]).stdout)
    trained = {doc.text for doc in LabelledCorpus([str(tmp_path / "train.tsv")])}
    test = list(LabelledCorpus([str(tmp_path / "test.tsv")]))
    unseen = [doc for doc in test if doc.text not in trained]
    answers = Model.load(tmp_path / "m.joblib").predict([doc.text for doc in unseen])
    assert report["seen_in_training"] == len(test) - len(unseen) == 206
    assert report["unseen_accuracy"] == np.mean([doc.label == label for doc, label in zip(unseen, answers)])
    said = run(["eval", tmp_path / "m.joblib", tmp_path / "test.tsv"]).stdout.splitlines()
    assert said[1] == ("206 of the 3,902 documents are in the model's training data (the same text): accuracy on the "
                       f"other 3,696 {report['unseen_accuracy']:.4f}")
    golden = Path(__file__).resolve().parent / "golden" / "models" / "default.joblib"
    old = json.loads(run(["eval", golden, tmp_path / "test.tsv", "--format", "json"]).stdout)
    assert "seen_in_training" not in old and "unseen_accuracy" not in old


def test_eval_of_a_multi_label_corpus_also_counts_an_answer_right_for_any_label(tmp_path):
    """Reuters' ModApte90 copies each article into a folder per topic: 3,744 test files, 3,007
    distinct texts, 433 of them under several topics (the corpus notes count 3,019 articles:
    a few share a text). Each copy is scored against its own topic, so a text under wheat and
    grain answered grain is one error; eval also gives the accuracy over the distinct texts
    that counts an answer right for any of its text's topics, as the files and predict's
    answers give it."""
    root = corpus_path("reuters21578") / "ModApte90"
    run(["train", root / "train", "-o", tmp_path / "m.joblib"])
    report = json.loads(run(["eval", tmp_path / "m.joblib", root / "test", "--format", "json"]).stdout)
    topics: dict[bytes, set[str]] = {}
    answers: dict[bytes, set[str]] = {}
    for line in run(["predict", tmp_path / "m.joblib", root / "test"]).stdout.splitlines():
        path, answer = line.split("\t")
        text = Path(path).read_bytes()
        topics.setdefault(text, set()).add(Path(path).parent.name)
        answers.setdefault(text, set()).add(answer)
    assert all(len(answer) == 1 for answer in answers.values())  # every copy of a text, one answer
    right = sum(answers[text] <= labels for text, labels in topics.items())
    assert report["n_documents"] == 3744
    assert report["multi_label_texts"] == sum(len(labels) > 1 for labels in topics.values()) == 433
    assert report["distinct_texts"] == len(topics) == 3007
    assert report["any_label_accuracy"] == right / len(topics)
    assert report["any_label_accuracy"] > report["accuracy"] + 0.1
    said = run(["eval", tmp_path / "m.joblib", root / "test"]).stdout.splitlines()
    assert said[2] == ("433 texts have more than one label, and each copy is scored against its own, so one answer is "
                       "right for one of them at most: counted right for any of its text's labels, accuracy over the "
                       f"3,007 distinct texts {report['any_label_accuracy']:.4f}")
    r8 = corpus_path("reuters21578") / "R8"  # single-label: nothing more to say
    run(["train", r8 / "train", "-o", tmp_path / "r8.joblib"])
    assert "any_label_accuracy" not in json.loads(run(["eval", tmp_path / "r8.joblib", r8 / "test", "--format",
                                                       "json"]).stdout)


def test_a_test_split_tells_the_held_out_documents_with_a_copy_trained_on(tmp_path):
    """SMS spam repeats 403 texts: at --test-split 0.2, 112 of the 1,114 messages held out
    have their very text among those trained on. train counts them, with the accuracy on the
    others, as the texts and the model's own answers give them; nbtext info repeats it."""
    from nbtext.model import Model
    from nbtext.folds import held_out

    data = corpus_path("sms-spam") / "SMSSpamCollection"
    said = run(["train", data, "-o", tmp_path / "m.joblib", "--test-split", "0.2"]).stderr.splitlines()
    documents = list(LabelledCorpus([str(data)]))
    out = held_out([doc.label for doc in documents], 0.2, 0)
    trained = {doc.text for doc, held in zip(documents, out) if not held}
    unseen = [doc for doc, held in zip(documents, out) if held and doc.text not in trained]
    answers = Model.load(tmp_path / "m.joblib").predict([doc.text for doc in unseen])
    accuracy = np.mean([doc.label == label for doc, label in zip(unseen, answers)])
    assert out.sum() - len(unseen) == 112
    line = f"112 of the 1,114 documents held out have the text of one the model is trained on: accuracy on the " \
           f"other {len(unseen):,} {accuracy:.4f}"
    assert said[-1] == line
    assert line in run(["info", tmp_path / "m.joblib"]).stdout.splitlines()


@pytest.mark.parametrize("name", ["sms-spam", "enron1"])
def test_cv_tells_the_documents_a_fold_scored_on_a_copy_of_their_text(name, tmp_path):
    """`eval --cv` counts the documents whose fold was scored by a model trained on their
    text (a copy in another fold), and the accuracy on the others: what training each fold
    with `nbtext train` and evaluating it with `nbtext eval` says, pooled over the folds. SMS
    spam is a plain model's cross-validation, enron1 read as mail a filter's, whose verdicts
    (each fold's at its own cut-offs) are pooled as the folds' evals give them."""
    from nbtext.folds import stratified_folds

    if name == "sms-spam":
        lines = (corpus_path(name) / "SMSSpamCollection").read_bytes().splitlines(keepends=True)
        items: list = [(line.split(b"\t", 1)[0].decode(), line) for line in lines]
        data, options = tmp_path / "all.tsv", []
        data.write_bytes(b"".join(lines))
    else:
        data, options = corpus_path("enron-spam") / name, ["--input-format", "email"]
        items = [(label.name, path) for label in sorted(data.iterdir()) for path in sorted(label.iterdir())]
    cv = json.loads(run(["eval", "--cv", "5", data, *options, "--format", "json"]).stdout)
    fold_of = stratified_folds([label for label, _ in items], 5, seed=0)
    seen = right = 0
    verdicts = dict.fromkeys(("ham_false_positives", "n_ham", "spam_caught", "n_spam", "unsure"), 0)
    for f in range(5):
        parts = []
        for side, chosen in (("train", fold_of != f), ("test", fold_of == f)):
            if name == "sms-spam":
                parts.append(tmp_path / f"{side}{f}.tsv")
                parts[-1].write_bytes(b"".join(line for (_, line), keep in zip(items, chosen) if keep))
            else:
                parts.append(tmp_path / f"{side}{f}")
                for n, ((label, path), keep) in enumerate(zip(items, chosen)):
                    if keep:
                        (parts[-1] / label).mkdir(parents=True, exist_ok=True)
                        (parts[-1] / label / f"{n:05d}").symlink_to(path)
        run(["train", parts[0], *options, "-o", tmp_path / f"m{f}"])
        report = json.loads(run(["eval", tmp_path / f"m{f}", parts[1], "--format", "json"]).stdout)
        seen += report["seen_in_training"]
        right += report["unseen_accuracy"] * (report["n_documents"] - report["seen_in_training"])
        if name != "sms-spam":
            verdicts = {key: n + report["filter"][key] for key, n in verdicts.items()}
    assert cv["n_documents"] == len(items)
    assert cv["seen_in_training"] == seen == {"sms-spam": 592, "enron1": 265}[name]
    assert cv["unseen_accuracy"] == pytest.approx(right / (len(items) - seen), abs=1e-12)
    said = run(["eval", "--cv", "5", data, *options]).stdout.splitlines()
    if name != "sms-spam":
        assert {key: cv["filter"][key] for key in verdicts} == verdicts and verdicts["n_ham"] == 3672
        lost, caught, unsure = verdicts["ham_false_positives"], verdicts["spam_caught"], verdicts["unsure"]
        assert said.pop(1) == (f"spam filter ('spam' is spam; each fold's at its own cut-offs): ham lost {lost:,} of "
                               f"3,672 ({lost / 3672:.2%}), spam caught {caught:,} of 1,500 ({caught / 1500:.2%}), "
                               f"unsure {unsure:,} ({unsure / 5172:.2%})")
    else:
        assert "filter" not in cv
    assert said[1] == (f"{seen:,} of the {len(items):,} documents were scored by a model trained on the same text (a "
                       f"copy in another fold): accuracy on the other {len(items) - seen:,} "
                       f"{cv['unseen_accuracy']:.4f}")


def test_mcnemar_p_by_hand_and_against_scipy():
    """The benchmark's paired p-value: by hand (three documents only one side gets right, all
    on one side: 2 x 1/8), no split at all is no evidence, and over a grid it is scipy's
    exact binomial test at one half."""
    from scipy.stats import binomtest

    assert mcnemar_p(0, 3) == 0.25
    assert mcnemar_p(9, 1) == 2 * (1 + 10) / 2 ** 10
    assert mcnemar_p(0, 0) == mcnemar_p(4, 4) == 1.0
    for only_first in range(0, 40, 3):
        for only_second in range(1, 40, 4):
            expected = binomtest(only_first, only_first + only_second, 0.5).pvalue
            assert mcnemar_p(only_first, only_second) == pytest.approx(expected, rel=1e-12)


def test_the_accuracy_benchmark_pairs_the_documents_its_figures_count():
    """On SMS spam, the paired table's split of the documents only one side gets right is the
    difference of the two accuracies the first table prints, document for document; stderr
    counts the test messages whose text the training part holds, as eval does (206)."""
    corpus_path("sms-spam")
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "accuracy.py"
    done = subprocess.run([sys.executable, script, "--corpora", "sms-spam"], capture_output=True, text=True, check=True)
    out = done.stdout
    assert done.stderr.splitlines()[-1].endswith("s; 206 test documents with a text their fold trains on)")
    figures, paired = (table.splitlines()[2].strip("| ").split(" | ") for table in out.split("\n\n"))
    ours, theirs = float(figures[3]), float(figures[4])
    assert paired[:3] == ["sms-spam", "nbtext default", "sklearn default"]
    documents, only_ours, only_theirs = (int(cell.replace(",", "")) for cell in paired[3:6])
    assert documents == 3902  # the 70% of 5,574 lines the protocol tests on
    assert only_ours - only_theirs == round((ours - theirs) * documents) != 0
    assert paired[6] == f"{mcnemar_p(only_ours, only_theirs):.3g}"


def test_the_selection_benchmark_replays_the_pick_the_accuracy_benchmark_scores(tmp_path):
    """On SMS spam's split, benchmarks/selection.py's "best mean" is the setting accuracy.py
    --tuned picks, and the answers it kept are those of that setting trained on the training
    part: the same accuracy. Picked after seeing the test part, the best does at least as well."""
    corpus_path("sms-spam")
    from benchmarks import selection
    from benchmarks.accuracy import correct, read_documents, tuned_setting
    from nbtext.tuning import train_setting

    kept = selection.collect("sms-spam", None, None, None)
    train, test = next(folds("sms-spam")).write(tmp_path)
    train_docs, test_docs = read_documents(train), read_documents(test)
    (fold,) = kept
    pick = selection.best_mean(fold)
    assert fold["settings"][pick] == tuned_setting(train_docs)
    model = train_setting(train_docs, fold["settings"][pick])
    assert fold["right"][pick].tolist() == correct(model, test_docs).tolist()
    accuracy, wrong = selection.scored(kept, [pick])
    assert (round(accuracy, 4), wrong) == (0.9859, 55)  # README's tuned SMS figure
    hindsight = selection.scored(kept, [selection.best_for_the_fold(fold)])
    assert hindsight[1] <= 55 and hindsight == selection.single_settings(kept)["hindsight: best single setting"]
    # Along alpha a setting has the next alpha up and down (one at the ends); along every axis,
    # also the other value of each of the grid's five two-valued axes.
    assert sorted({len(n) for n in selection._neighbours(fold["settings"], ("alpha",))}) == [1, 2]
    every = ("alpha", "variant", "tf", "doc_norm", "idf", "min_df")
    assert sorted({len(n) for n in selection._neighbours(fold["settings"], every)}) == [6, 7]


@pytest.mark.parametrize("name", ["spamassassin-2003", "enron3"])
def test_the_temporal_split_trains_on_each_class_s_older_mail(name):
    """benchmarks/spam.py --temporal: of each class, the oldest 80% trains and the newest 20%
    tests, by the Date header (SpamAssassin) or the file name's date (Enron); no message lost.
    --incremental walks the test mail with each class in its date order, the two interleaved
    evenly: every tenth of the walk holds a tenth of each class's messages, to one."""
    from benchmarks.protocols import _date, temporal_fold
    from benchmarks.spam import walk_order

    fold, said = temporal_fold(name)
    shuffled = next(folds(name))  # a fold of the usual protocol holds every message, in train or test
    every = sorted(str(p) for _, p in shuffled.train + shuffled.test)
    assert sorted(str(p) for _, p in fold.train + fold.test) == every
    for label in ("ham", "spam"):
        train = [_date(p, name) for lab, p in fold.train if lab == label]
        test = [_date(p, name) for lab, p in fold.test if lab == label]
        assert len(test) == len(train + test) - int(len(train + test) * 0.8)
        assert max(d for d in train if d is not None) <= min(test)
    assert said.startswith("test ham ") and ("undated" in said) == (name == "spamassassin-2003")
    walked = walk_order(fold.test)
    assert sorted(map(str, walked)) == sorted(map(str, fold.test))
    for label in ("ham", "spam"):
        mine = [item for item in fold.test if item[0] == label]
        assert [item for item in walked if item[0] == label] == mine
        for tenth in range(1, 10):
            seen = sum(item[0] == label for item in walked[:len(walked) * tenth // 10])
            assert abs(seen - len(mine) * tenth / 10) <= 1

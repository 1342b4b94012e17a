"""Counts add up: update and merge equal one training run over all the data (real SMS corpus)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from nbtext.model import Model
from nbtext.readers import Document, LabelledCorpus
from nbtext.readers.document import text_digest
from nbtext.folds import held_out

from .conftest import TICKETS, assert_same_counts, corpus_path, run


@pytest.fixture(scope="module")
def sms_halves(tmp_path_factory):
    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes().splitlines(keepends=True)
    folder = tmp_path_factory.mktemp("sms")
    half = len(lines) // 2
    for name, part in (("a.tsv", lines[:half]), ("b.tsv", lines[half:]), ("all.tsv", lines)):
        (folder / name).write_bytes(b"".join(part))
    return folder


def assert_same_model(left: Model, right: Model) -> None:
    """Same vocabulary, same integer counts exactly; sums of length-normalised documents (floats
    added in another order) and the predictions they give agree to rounding."""
    assert list(left.terms) == list(right.terms) and left.classes == right.classes
    for name in ("term_counts", "doc_freq", "class_docs"):
        np.testing.assert_array_equal(getattr(left.counts, name), getattr(right.counts, name))
    assert sorted(left.counts.values) == sorted(right.counts.values)
    if "weighted" in left.counts.values:  # raw counts have no weighted sums
        np.testing.assert_allclose(left.counts.dense("weighted"), right.counts.dense("weighted"), rtol=1e-12)
    texts = [doc.text for doc in LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")])][:500]
    np.testing.assert_allclose(left.predict_log_proba(texts), right.predict_log_proba(texts), rtol=1e-12)
    assert left.predict(texts) == right.predict(texts)


def test_library_train_says_what_it_takes():
    """Pairs of text and label, the shape a user of scikit-learn reaches for, failed with
    "'tuple' object has no attribute 'label'"; an analyzer's setting given as the model's was
    refused without a word of where it belongs."""
    from nbtext import Analyzer, train

    with pytest.raises(TypeError, match=r"^documents must be Document\(text, label, source\) records, not tuple$"):
        train([("win cash now", "spam"), ("lunch at noon?", "ham")])
    docs = [doc for doc in LabelledCorpus([str(TICKETS / "train")])]
    with pytest.raises(ValueError) as refused:
        train(docs, settings={"ngram_range": (1, 3), "tf": "binary", "alfa": 0.1})
    assert str(refused.value) == (
        "unknown model settings ['alfa', 'ngram_range', 'tf']; use ['alpha', 'calibration', 'fit_prior', 'idf', "
        "'max_df', 'max_features', 'min_df', 'norm', 'spam', 'variant']; ngram_range is the analyzer's: "
        "train(..., analyzer=Analyzer(ngram_range=...)); tf is train's own: train(..., tf=...)")
    model = train(docs, analyzer=Analyzer(ngram_range=(1, 3)), tf="binary", settings={"alpha": 0.1})
    assert model.analyzer.ngram_range == (1, 3) and model.counts.tf == "binary"
    assert model.predict(["where is my parcel?"]) == ["shipping"]


def test_library_train_names_the_document_whose_label_does_not_fit():
    """A table's missing label reaches train as None, or from pandas as the float NaN among
    strings. NaN failed only after all the counting, with "'<' not supported between
    instances of 'str' and 'float'"; now it fails at once, naming the document. Labels that
    are all numbers stay a user's choice: they train, and predict gives them back."""
    from dataclasses import replace

    from nbtext import train
    from nbtext.errors import DataError

    docs = [doc for doc in LabelledCorpus([str(TICKETS / "train")])]
    first, tenth = re.escape(docs[0].source), re.escape(docs[10].source)
    with pytest.raises(TypeError, match=f"^{tenth}: label nan is float, where {first} has 'billing', str: labels must "
                                        "be all strings or none$"):
        train([*docs[:10], replace(docs[10], label=float("nan")), *docs[11:]])
    with pytest.raises(DataError, match=f"^{tenth}: document has no label$"):
        train([*docs[:10], replace(docs[10], label=None), *docs[11:]])
    numbered = {"billing": 0, "shipping": 1, "technical": 2}
    model = train([replace(doc, label=numbered[doc.label]) for doc in docs])
    assert model.classes == [0, 1, 2] and model.predict(["where is my parcel?"]) == [1]
    # Training reads 1,000 documents a batch: a later batch of numbers alone is caught as it comes.
    later = [*(docs * 5)[:1000], *(replace(doc, label=numbered[doc.label]) for doc in docs)]
    with pytest.raises(TypeError, match="^class label 0 is int, where 'billing' is str: labels must be all strings or "
                                        "none$"):
        train(later)


def test_update_equals_training_on_everything(sms_halves, tmp_path):
    d = sms_halves
    run(["train", d / "all.tsv", "-o", tmp_path / "all", "--min-df", "2", "--ngram-range", "1,2"])
    run(["train", d / "a.tsv", "-o", tmp_path / "grown", "--min-df", "2", "--ngram-range", "1,2"])
    small = Model.load(tmp_path / "grown")
    result = run(["train", "--update", tmp_path / "grown", d / "b.tsv"])
    assert "trained complement Naive Bayes on 5,574 documents" in result.stderr
    grown = Model.load(tmp_path / "grown")
    assert len(grown.terms) > len(small.terms)
    assert_same_model(grown, Model.load(tmp_path / "all"))
    assert len(small.texts) == 2787 and grown.texts.tobytes() == Model.load(tmp_path / "all").texts.tobytes()


def test_an_update_that_reads_nothing_fails_and_keeps_the_model(tmp_path):
    """One class's folder given by mistake (its files sit in no class folder): exit 1, so a
    nightly job notices, and the model file is not rewritten."""
    run(["train", TICKETS / "train", "-o", tmp_path / "m"])
    before = (tmp_path / "m").read_bytes()
    result = run(["train", "--update", tmp_path / "m", TICKETS / "train" / "billing"], expect=1)
    assert result.stderr.splitlines() == ["read 0 documents",
                                          "81 skipped: not inside a class folder (DATA holds one folder per class: "
                                          "DATA/LABEL/FILE)",
                                          f"{TICKETS / 'train' / 'billing'} holds files and no folder, as one "
                                          f"class's folder does: give the folder above, {TICKETS / 'train'}, "
                                          "which holds a folder per class (billing, shipping, technical)",
                                          "Error: no documents to add; the model is unchanged"]
    assert (tmp_path / "m").read_bytes() == before


def test_an_update_names_the_classes_it_adds(tmp_path):
    """A new class is allowed (training on everything would have it), and said, so that a
    misnamed folder does not pass unnoticed."""
    run(["train", TICKETS / "train", "-o", tmp_path / "m"])
    (tmp_path / "new" / "refunds").mkdir(parents=True)
    (tmp_path / "new" / "refunds" / "1.txt").write_text("please refund my order\n")
    result = run(["train", "--update", tmp_path / "m", tmp_path / "new"])
    assert result.stderr.splitlines()[-1] == \
        "new class from this update: refunds (the model had billing, shipping, technical)"
    assert Model.load(tmp_path / "m").classes == ["billing", "refunds", "shipping", "technical"]
    again = run(["train", "--update", tmp_path / "m", TICKETS / "test"])
    assert "new class" not in again.stderr


def test_merge_prunes_after_adding(sms_halves, tmp_path):
    d = sms_halves
    run(["train", d / "all.tsv", "-o", tmp_path / "all", "--min-df", "3"])
    run(["train", d / "a.tsv", "-o", tmp_path / "a"])
    run(["train", d / "b.tsv", "-o", tmp_path / "b"])
    result = run(["merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "merged", "--min-df", "3"])
    assert result.stderr.startswith("merged complement Naive Bayes on 5,574 documents")
    assert_same_model(Model.load(tmp_path / "merged"), Model.load(tmp_path / "all"))


def test_a_merged_model_was_trained_on_every_part_s_data(sms_halves, tmp_path):
    """nbtext info names the DATA of every model merged, where the merged model kept the first
    model's alone, and no held-out score, which was one part's."""
    d = sms_halves
    run(["train", d / "a.tsv", "-o", tmp_path / "a", "--test-split", "0.2"])
    run(["train", d / "b.tsv", "-o", tmp_path / "b"])
    assert "held out when trained: 557 documents (0.2, seed 0), accuracy " in run(["info", tmp_path / "a"]).stdout
    run(["merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "merged"])
    said = run(["info", tmp_path / "merged"]).stdout.splitlines()
    assert said[-2] == f"trained on: {d / 'a.tsv'}, {d / 'b.tsv'}"
    assert not any(line.startswith("held out") for line in said) and "--test-split" not in said[-1]
    # The texts trained on: a's 2,230 (its held-out 557 are not), then b's 2,787.
    part, merged = Model.load(tmp_path / "a"), Model.load(tmp_path / "merged")
    assert len(part.texts) == 2230 and len(merged.texts) == 2230 + 2787
    a_texts = [doc.text for doc in LabelledCorpus([str(d / "a.tsv")])]
    assert np.isin(part.texts, [text_digest(text) for text in a_texts]).all()
    a_docs = list(LabelledCorpus([str(d / "a.tsv")]))
    kept = [text_digest(doc.text) for doc, out in zip(a_docs, held_out([doc.label for doc in a_docs], 0.2, 0))
            if not out]
    assert part.texts.tolist() == sorted(kept)  # the very documents trained on, not any 2,230 of a's


def test_merge_names_the_classes_not_in_every_model(sms_halves, tmp_path):
    """As an update names the classes it adds: a class folder named Spam/ in one part and
    spam/ in the other would merge into two classes without a word."""
    d = sms_halves
    run(["train", d / "a.tsv", "-o", tmp_path / "a"])
    run(["train", d / "b.tsv", "-o", tmp_path / "b"])
    assert "not in every model" not in run(["merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "m"]).stderr
    (tmp_path / "b.tsv").write_text((d / "b.tsv").read_text(encoding="utf-8").replace("spam\t", "Spam\t"),
                                    encoding="utf-8")
    run(["train", tmp_path / "b.tsv", "-o", tmp_path / "b2"])
    result = run(["merge", tmp_path / "a", tmp_path / "b2", "-o", tmp_path / "m"])
    assert result.stderr.splitlines()[-2:] == [
        f"classes not in every model: spam (only in {tmp_path / 'a'}); Spam (only in {tmp_path / 'b2'})",
        "spam and Spam differ only in letter case, which makes them two labels: rename one to the other"]
    assert Model.load(tmp_path / "m").classes == ["Spam", "ham", "spam"]


def test_merge_refuses_a_model_twice_and_warns_of_shared_data(sms_halves, tmp_path):
    """Merging a file with itself (or a link to it) doubled every count without a word; models
    trained on the same DATA path are merged, since a folder filled afresh each day is the
    intended use, but the user is told in case it held the same documents."""
    d = sms_halves
    run(["train", d / "a.tsv", "-o", tmp_path / "a"])
    (tmp_path / "link").symlink_to(tmp_path / "a")
    for again in (tmp_path / "a", tmp_path / "link"):
        result = run(["merge", tmp_path / "a", again, "-o", tmp_path / "m"], expect=2)
        shown = f" (again as {again})" if again != tmp_path / "a" else ""
        assert result.stderr.endswith(f"Error: {tmp_path / 'a'} is given twice{shown}: its counts would be added "
                                      "twice\n")
    assert not (tmp_path / "m").exists()
    missing = run(["merge", tmp_path / "none", tmp_path / "a", "-o", tmp_path / "m"], expect=1)
    assert missing.stderr == f"Error: {tmp_path / 'none'}: no such model file\n"  # told as before
    run(["train", d / "a.tsv", "-o", tmp_path / "a2"])
    run(["train", d / "b.tsv", "-o", tmp_path / "b"])
    warned = f"{tmp_path / 'a2'} and {tmp_path / 'a'} were both trained on {d / 'a.tsv'}"
    assert warned in run(["merge", tmp_path / "a", tmp_path / "a2", "-o", tmp_path / "m"]).stderr
    assert "both trained on" not in run(["merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "m"]).stderr


def test_merge_says_which_settings_of_a_later_model_give_way(sms_halves, tmp_path):
    """The counts of a Multinomial model with its own alpha and min_df add up with a Complement
    one's, and the merged model takes the first model's settings: said, not done silently."""
    d = sms_halves
    run(["train", d / "a.tsv", "-o", tmp_path / "a"])
    run(["train", d / "b.tsv", "-o", tmp_path / "b", "--variant", "multinomial", "--alpha", "1", "--min-df", "2"])
    result = run(["merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "m"])
    assert result.stderr.splitlines()[-1] == (f"{tmp_path / 'b'} was trained with --variant multinomial --alpha 1.0 "
                                              f"--min-df 2; the merged model has {tmp_path / 'a'}'s --variant "
                                              "complement --alpha 0.2 --min-df 1")
    merged = Model.load(tmp_path / "m").settings
    assert (merged["variant"], merged["alpha"], merged["min_df"]) == ("complement", 0.2, 1)
    pruned = run(["merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "m", "--min-df", "2"])
    assert pruned.stderr.splitlines()[-1].endswith("'s --variant complement --alpha 0.2")  # min_df: merge's own
    run(["train", d / "b.tsv", "-o", tmp_path / "b2"])
    assert "was trained with" not in run(["merge", tmp_path / "a", tmp_path / "b2", "-o", tmp_path / "m"]).stderr


def test_update_keeps_the_analyzer_and_merge_checks_it(sms_halves, tmp_path):
    d = sms_halves
    run(["train", d / "a.tsv", "-o", tmp_path / "a"])
    result = run(["train", "--update", tmp_path / "a", d / "b.tsv", "--ngram-range", "1,2"], expect=2)
    assert ("--update counts as the model was trained (its analyzer and term weighting); drop --ngram-range"
            in result.stderr)
    run(["train", d / "b.tsv", "-o", tmp_path / "b", "--analyzer", "char_wb"])
    result = run(["merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "m"], expect=1)
    assert result.stderr == ("Error: cannot merge models whose analyzers differ: analyzer word vs char_wb; "
                             "tokens all-words vs words\n")
    result = run(["train", d / "a.tsv"], expect=2)
    assert "give the model file to write with -o MODEL" in result.stderr


@pytest.mark.parametrize("weighting, idf, oracle_steps", [
    ({"tf": "log", "doc_norm": "l2"}, False, {"log1p": True, "use_idf": False, "norm": "l2"}),
    ({"tf": "log", "doc_norm": None}, True, {"log1p": True, "use_idf": True, "norm": None}),
    ({"tf": "binary", "doc_norm": "l2"}, False, {"binary": True, "use_idf": False, "norm": "l2"}),
])
@pytest.mark.parametrize("variant", ["multinomial", "complement"])
def test_transforms_equal_scikit_learn_tfidf(weighting, idf, oracle_steps, variant):
    """Where both orders of operations agree, Rennie's transforms match scikit-learn's TF-IDF + NB.

    Rennie's log term frequency is log(1 + tf) (scikit-learn's sublinear_tf is 1 + log tf), so the
    oracle applies log1p itself before TfidfTransformer. nbtext rounds each transformed count to
    a multiple of 2**-24 before summing (counting.on_grid, so that unlearning is exact), which
    moves log-probabilities by about 2e-7: hence 1e-6 here and 1e-9 for raw counts.
    """
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
    from sklearn.naive_bayes import ComplementNB, MultinomialNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from nbtext.analysis import Analyzer
    from nbtext.training import train

    docs = list(LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")]))
    train_docs, test_texts = docs[:1500], [d.text for d in docs[1500:2500]]
    model = train(train_docs, analyzer=Analyzer(), settings={"variant": variant, "alpha": 0.1, "idf": idf, "min_df": 1},
                  **weighting)
    steps = [CountVectorizer(binary=oracle_steps.get("binary", False))]
    if oracle_steps.get("log1p"):
        steps.append(FunctionTransformer(lambda X: X.log1p(), accept_sparse=True))
    steps.append(TfidfTransformer(use_idf=oracle_steps["use_idf"], norm=oracle_steps["norm"]))
    steps.append({"multinomial": MultinomialNB, "complement": ComplementNB}[variant](alpha=0.1))
    oracle = make_pipeline(*steps).fit([d.text for d in train_docs], [d.label for d in train_docs])
    np.testing.assert_allclose(model.predict_log_proba(test_texts), oracle.predict_log_proba(test_texts),
                               rtol=0, atol=1e-6)


def test_the_options_readme_gives_build_scikit_learns_default_model(tmp_path):
    """README: these options build exactly CountVectorizer() + MultinomialNB(), on real SMS
    lines: the same terms, the same counts, the same probabilities."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    data = corpus_path("sms-spam") / "SMSSpamCollection"
    run(["train", data, "-o", tmp_path / "m", "--variant", "multinomial", "--alpha", "1", "--ngram-range", "1,1",
         "--tf", "raw", "--tokens", "words", "--no-cjk-bigrams"])
    model = Model.load(tmp_path / "m")
    docs = list(LabelledCorpus([str(data)]))
    texts = [doc.text for doc in docs]
    pipeline = make_pipeline(CountVectorizer(), MultinomialNB()).fit(texts, [doc.label for doc in docs])
    assert list(model.terms) == pipeline[0].get_feature_names_out().tolist() and len(model.terms) > 8000
    np.testing.assert_array_equal(model.core.feature_count_, pipeline[-1].feature_count_)
    np.testing.assert_allclose(model.predict_log_proba(texts), pipeline.predict_log_proba(texts), rtol=0, atol=1e-9)


@pytest.mark.parametrize("corpus, options", [
    ("sms-spam", []),  # a line file, nbtext's defaults (log tf, unit length: weighted sums)
    ("20news-bydate", ["--variant", "multinomial", "--ngram-range", "1,1", "--min-df", "1", "--tf", "raw",
                       "--doc-norm", "none", "--no-idf"]),  # a folder: the workers read its files
])
def test_jobs_give_the_same_model_bit_for_bit(corpus, options, tmp_path):
    """The model, and the account of what was read (replaced bytes, broken MIME, attachments,
    each file named in order), are the same however many processes read and count."""
    data = corpus_path(corpus) / ("SMSSpamCollection" if corpus == "sms-spam" else "train")
    models, reports = {}, {}
    for jobs in (1, 3):
        path = tmp_path / f"jobs{jobs}.joblib"
        result = run(["train", data, "-o", path, "--jobs", jobs, "--verbose", *options])
        models[jobs] = Model.load(path)
        reports[jobs] = result.stderr.split("\ntrained ")[0]
    assert models[1].summary["documents"] == models[3].summary["documents"] > 5000
    assert reports[1] == reports[3]
    assert_same_counts(models[1].counts.to_dict(), models[3].counts.to_dict())
    texts = [doc.text for doc in LabelledCorpus([str(data)])][:300]
    assert models[1].predict(texts) == models[3].predict(texts)


def test_workers_parse_mail_files_as_one_process_does():
    """Mail folders: the workers read and parse the message files themselves. The counts and
    the account of what was read (replaced bytes, broken MIME, attachments: all present in this
    corpus) equal one process's, in file order."""
    from nbtext.analysis import Analyzer
    from nbtext.training import count_all

    counts, reports = {}, {}
    for jobs in (1, 3):
        corpus = LabelledCorpus([str(corpus_path("spamassassin-2003"))], input_format="email")
        counts[jobs] = count_all(corpus.read(), Analyzer(ngram_range=(1, 2)), tf="log", doc_norm=None, jobs=jobs)
        reports[jobs] = corpus.report
    assert_same_counts(counts[1].to_dict(), counts[3].to_dict())
    assert reports[1] == reports[3]
    assert (reports[1].documents, len(reports[1].malformed), reports[1].attachments) == (3000, 28, 88)
    assert (len(reports[1].replaced), len(reports[1].guessed)) == (1, 50)  # the guesses made in the workers too


@pytest.mark.parametrize("layout", ["mbox", "maildir"])
def test_workers_count_mbox_and_maildir_messages_as_one_process_does(layout, tmp_path):
    """mbox files and maildirs are read here, in order, and their documents counted by the
    workers too; the counts and the account of what was read equal one process's:
    SpamAssassin's 3,000 messages, with its replaced bytes, broken MIME and attachments, and
    an image in a maildir, skipped."""
    import mailbox

    from nbtext.analysis import Analyzer
    from nbtext.training import count_all

    for label in ("ham", "spam"):
        (tmp_path / label).mkdir()
        box = (mailbox.mbox(tmp_path / label / "inbox.mbox") if layout == "mbox"
               else mailbox.Maildir(tmp_path / label / "inbox"))
        for path in sorted((corpus_path("spamassassin-2003") / label).iterdir()):
            box.add(path.read_bytes())
        box.close()
    if layout == "maildir":
        (tmp_path / "spam" / "inbox" / "new" / "scan.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    counts, reports = {}, {}
    for jobs in (1, 3):
        corpus = LabelledCorpus([str(tmp_path)], input_format=layout)
        counts[jobs] = count_all(corpus.read(), Analyzer(ngram_range=(1, 2)), tf="log", doc_norm=None, jobs=jobs)
        reports[jobs] = corpus.report
    assert_same_counts(counts[1].to_dict(), counts[3].to_dict())
    assert reports[1] == reports[3]
    assert (reports[1].documents, len(reports[1].malformed), reports[1].attachments) == (3000, 28, 88)
    assert (len(reports[1].replaced), len(reports[1].guessed)) == (1, 50)
    assert reports[1].skipped == ({"not text (a PNG image)": [str(tmp_path / "spam" / "inbox" / "new" / "scan.png")]}
                                  if layout == "maildir" else {})


def test_workers_that_join_part_way_count_the_same():
    """By default (jobs=None) workers join in only once PROCESSES_AFTER_BYTES of documents have
    come, while this process counts on: the counts still equal one process's."""
    from nbtext.analysis import Analyzer
    from nbtext.parallel import count_in_processes
    from nbtext.training import count_all

    docs = list(LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")]))
    batches = (docs[i:i + 300] for i in range(0, len(docs), 300))
    late = count_in_processes(batches, Analyzer(), tf="log", doc_norm=None, jobs=2, start_after=100_000)
    assert_same_counts(count_all(docs, Analyzer(), tf="log", doc_norm=None).to_dict(), late.to_dict())


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_bad_line_after_many_batches_stops_training_with_its_place(sms_halves, tmp_path, jobs):
    """Past the first two batches, lines are read ahead in another thread (one process) or
    handed to workers: a bad line there still stops the run with its file and line, and no
    model is written."""
    lines = (sms_halves / "all.tsv").read_bytes().splitlines(keepends=True)
    (tmp_path / "bad.tsv").write_bytes(b"".join(lines[:3500]) + b"no tab on this line\n" + b"".join(lines[3500:]))
    failed = run(["train", tmp_path / "bad.tsv", "-o", tmp_path / "m.joblib", "--jobs", jobs], expect=1)
    assert "bad.tsv:3501:" in failed.stderr
    assert not (tmp_path / "m.joblib").exists()


def test_a_dead_counting_process_is_an_error(sms_halves, tmp_path):
    """A worker that cannot start its work (here: an analyzer it cannot rebuild) fails the run
    with a message, and the parent does not hang."""
    from nbtext.analysis import Analyzer
    from nbtext.errors import NbtextError
    from nbtext.parallel import count_in_processes

    batches = [[Document("free prize now", "spam", "a")] * 10] * 4
    broken = Analyzer()
    object.__setattr__(broken, "analyzer", "no-such-analyzer")
    with pytest.raises(NbtextError, match="a worker process failed: DataError: unknown analyzer"):
        count_in_processes(batches, broken, tf="raw", doc_norm=None, jobs=2)


def test_hashed_counts_are_the_word_counts_folded_into_buckets(sms_halves, tmp_path):
    """--hash-features N: each word's counts land in bucket crc32(word) mod N, collisions add."""
    import zlib

    options = ["--ngram-range", "1,2", "--min-df", "1", "--tf", "raw", "--doc-norm", "none"]
    run(["train", sms_halves / "all.tsv", "-o", tmp_path / "words", *options])
    result = run(["train", sms_halves / "all.tsv", "-o", tmp_path / "hashed", "--hash-features", "2**10", *options])
    words, hashed = Model.load(tmp_path / "words"), Model.load(tmp_path / "hashed")
    # the buckets used, which the summary called terms ("1,024 terms (of 1,024 seen)"): they are not words
    assert result.stderr.endswith(f"vocabulary: words hashed into 1,024 buckets, {len(hashed.terms):,} of them used\n")
    assert words.classes == hashed.classes
    bucket = np.array([zlib.crc32(term.encode()) % 1024 for term in words.counts.terms])
    folded = np.zeros((len(words.classes), 1024))
    np.add.at(folded, (slice(None), bucket), words.counts.dense("term_counts"))
    column = np.array([int(name.lstrip("#")) for name in hashed.counts.terms])
    assert len(column) > 1000 - 50  # almost every bucket is used: there are far more words
    np.testing.assert_array_equal(folded[:, column], hashed.counts.dense("term_counts"))
    assert np.count_nonzero(folded) == np.count_nonzero(hashed.counts.dense("term_counts"))
    # prediction hashes the same way: the hashed model mostly agrees with the word model
    texts = [doc.text for doc in LabelledCorpus([str(sms_halves / "b.tsv")])][:200]
    assert np.mean(np.array(hashed.predict(texts)) == np.array(words.predict(texts))) > 0.9
    refused = run(["inspect-top-words", tmp_path / "hashed"], expect=1)
    assert "hashes its features into 1,024 buckets (--hash-features): it keeps no words" in refused.stderr
    bad = run(["train", sms_halves / "a.tsv", "-o", tmp_path / "x", "--hash-features", "lots"], expect=2)
    assert "expected a bucket count, e.g. 1048576 or 2**20" in bad.stderr


def test_workers_join_from_the_start_where_python_makes_each_feature(monkeypatch):
    """By default workers wait for 64 MB where the word path counts in C (words and their
    n-grams, hashed or not, and with the compiled scanner character n-grams, alone or beside
    words), but not where the analyzer's features are Python strings (character n-grams without
    the compiled scanner): there one core is the limit. Counted on real SMS in two processes,
    the counts are one process's: word trigrams', hashed features' and both kinds of character
    n-grams'."""
    from nbtext.vectorizing import scanner
    from nbtext.analysis import Analyzer
    from nbtext.training import count_all
    from nbtext.batches import PROCESSES_AFTER_BYTES, workers_start_after

    trigrams, hashed = Analyzer(ngram_range=(1, 3)), Analyzer(ngram_range=(1, 2), hash_features=1 << 10)
    assert [workers_start_after(analyzer) for analyzer in (trigrams, Analyzer(tokens="joined", ngram_range=(1, 2)),
                                                           hashed)] == [PROCESSES_AFTER_BYTES] * 3
    char_wb, beside = Analyzer(analyzer="char_wb", ngram_range=(2, 4)), Analyzer(ngram_range=(1, 2), char_ngrams=(2, 3))
    compiled = [workers_start_after(analyzer) for analyzer in (char_wb, beside)]
    assert compiled == [0 if scanner.wordscan is None else PROCESSES_AFTER_BYTES] * 2
    with monkeypatch.context() as patch:
        patch.setattr(scanner, "wordscan", None)
        assert [workers_start_after(analyzer) for analyzer in (char_wb, beside, trigrams)] == [0, 0,
                                                                                              PROCESSES_AFTER_BYTES]
    docs = list(LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")]))[:2500]
    for analyzer, jobs in ((trigrams, 2), (hashed, 2), (char_wb, 2), (beside, 2)):
        assert_same_counts(count_all(docs, analyzer, tf="log", doc_norm=None, jobs=jobs).to_dict(),
                           count_all(docs, analyzer, tf="log", doc_norm=None, jobs=1).to_dict())

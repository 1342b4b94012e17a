"""The model file: round trips exactly, writes atomically, and never runs code on load."""

from __future__ import annotations

import errno
import gzip
import os
import pickle
import re
import subprocess
import sys
import warnings

import joblib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.pipeline import make_pipeline

from nbtext.analysis import Analyzer
from nbtext.errors import ModelError, UnsafeModelError
from nbtext.model import Model
from nbtext.readers import Document, LabelledCorpus
from nbtext.terms import PackedTerms, pack_terms
from nbtext.training import train

from .conftest import TICKETS, assert_same_matrix, in_bash, numpy_imports_by_itself, run


@pytest.fixture(scope="module")
def model() -> Model:
    return train(LabelledCorpus([str(TICKETS / "train")]), settings={"variant": "complement", "alpha": 0.5})


@pytest.fixture(scope="module")
def test_texts() -> list[str]:
    return [doc.text for doc in LabelledCorpus([str(TICKETS / "test")])]


def test_save_load_predicts_identically(model, test_texts, tmp_path):
    path = tmp_path / "m.joblib"
    model.save(path)
    loaded = Model.load(path)
    np.testing.assert_array_equal(loaded.predict_log_proba(test_texts), model.predict_log_proba(test_texts))
    assert loaded.settings == model.settings and loaded.terms == model.terms
    assert loaded.summary["documents"] == 243


def test_the_package_offers_its_api_and_not_what_it_imports_for_itself():
    """Tab completion on ``nbtext.`` offered ``Any``, ``annotations`` and ``importlib``."""
    import nbtext

    public = [name for name in dir(nbtext) if not name.startswith("_")]
    assert public == nbtext.__all__
    assert [getattr(nbtext, name).__name__ for name in public] == public
    with pytest.raises(AttributeError, match="module 'nbtext' has no attribute 'Modle'"):
        nbtext.Modle


@pytest.mark.parametrize("texts, message", [
    ("where is my parcel?", "texts must be a list of documents, not one string"),
    (["where is my parcel?", None], r"texts\[1\] is NoneType, not a string$"),  # was "has no len()"
    ([3], r"texts\[0\] is int, not a string$"),
    (["ok", b"where is my parcel?"], r"texts\[1\] is bytes, not a string; decode bytes first"),
])
def test_a_document_that_is_not_a_string_is_named(model, test_texts, texts, message):
    """A None among the texts (a missing field of a data frame) gave "object of type 'NoneType'
    has no len()", from deep inside; the library now names the document."""
    for method in (model.predict, model.predict_log_proba, model.vectorize):
        with pytest.raises(TypeError, match=message):
            method(texts)
    many = test_texts * 40  # enough characters to be scored in threads
    with pytest.raises(TypeError, match=r"texts\[4800\] is NoneType"):
        model.predict([*many, None])


def test_texts_may_come_as_any_iterable(model, test_texts):
    """A generator of texts was used up by the check that each is a string, and predict
    answered [] for it: every document silently lost."""
    expected = model.predict(test_texts)
    assert len(expected) == 120
    for texts in (iter(test_texts), (text for text in test_texts), tuple(test_texts), np.array(test_texts)):
        assert model.predict(texts) == expected
    np.testing.assert_array_equal(model.predict_log_proba(iter(test_texts)), model.predict_log_proba(test_texts))
    assert model.vectorize(iter(test_texts)).indptr.tolist() == model.vectorize(test_texts).indptr.tolist()
    with pytest.raises(TypeError, match=r"texts\[2\] is NoneType"):
        model.predict(iter(["ok", "ok", None]))


@pytest.mark.parametrize("options", [[], ["--spam-label", "billing", "--stop-words", "english", "--char-ngrams", "2,3"]],
                         ids=["default", "filter"])
def test_same_data_gives_the_same_model_bytes(tmp_path, options):
    """Whole files alike, made in processes whose str hashes differ: no set or dict order of
    terms, stop words or classes reaches the file, and the file holds no time of training."""
    for seed in ("1", "2"):
        done = subprocess.run([sys.executable, "-m", "nbtext", "train", TICKETS / "train", *options, "-o", seed],
                              cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "1").read_bytes() == (tmp_path / "2").read_bytes()


def test_save_is_atomic(model, tmp_path, monkeypatch):
    path = tmp_path / "m.joblib"
    model.save(path)
    before = path.read_bytes()

    broken = Model(model.analyzer, model.counts, model.settings, {"callback": lambda: None})
    with pytest.raises(TypeError, match="a model file holds no function"):  # refused before a byte is written
        broken.save(path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.joblib"]

    from nbtext import modelfile

    def half(payload, handle):  # fails half-way through writing the arrays
        handle.write(b"\x80\x04half a model")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(modelfile, "dump", half)
    with pytest.raises(ModelError, match="cannot write the model \\(No space left on device\\)"):
        model.save(path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.joblib"]


class _RunsCommand:
    """Unpickling this runs a shell command: the classic pickle exploit."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_pickle_payload_that_runs_a_command_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.joblib"
    evil.write_bytes(pickle.dumps({"format": "nbtext-model", "x": _RunsCommand(str(marker))}))
    # the payload is real: plain pickle would run it
    pickle.loads(evil.read_bytes())
    assert marker.exists()
    marker.unlink()
    with pytest.raises(UnsafeModelError, match=r"refused: loading it would import (posix|os)\.system"):
        Model.load(evil)
    assert not marker.exists()


def test_joblib_payload_and_foreign_pipelines_are_refused(tmp_path):
    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.joblib"
    joblib.dump([np.arange(3), _RunsCommand(str(marker))], evil)
    with pytest.raises(UnsafeModelError):
        Model.load(evil)
    assert not marker.exists()
    pipeline = make_pipeline(CountVectorizer(), SkMultinomialNB()).fit(["aa bb", "cc dd"], ["x", "y"])
    joblib.dump(pipeline, tmp_path / "sk.joblib")
    with pytest.raises(UnsafeModelError, match="would import sklearn.pipeline.Pipeline"):
        Model.load(tmp_path / "sk.joblib")


def test_object_arrays_are_refused(tmp_path):
    joblib.dump({"format": "nbtext-model", "a": np.array([{"x": 1}], dtype=object)}, tmp_path / "obj.joblib")
    with pytest.raises(UnsafeModelError, match="array of Python objects"):
        Model.load(tmp_path / "obj.joblib")


def test_broken_files_give_one_line_errors(model, tmp_path):
    path = tmp_path / "m.joblib"
    model.save(path)
    (tmp_path / "truncated").write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    (tmp_path / "text").write_text("label\ttext\n")
    (tmp_path / "latin-1 text").write_bytes("Fenêtre cassée\n".encode("latin-1"))
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "folder").mkdir()
    joblib.dump({"some": "dict"}, tmp_path / "foreign")
    joblib.dump({"some": "dict"}, tmp_path / "compressed", compress=3)
    expectations = {
        "truncated": "not an nbtext model file, or truncated (ValueError)",  # what pickle met where the file ends
        "text": "text, not an nbtext model file (the model file comes first, then the documents)",
        "latin-1 text": "not an nbtext model file (a model file is a pickle; this is none)",
        "empty": "an empty file, not an nbtext model file",
        "folder": "is a folder, not a model file (the model file comes first, then the documents)",
        "foreign": "not an nbtext model file",
        "compressed": "not an nbtext model file (a model file is a pickle; this is none)",
        "missing": "no such model file",
    }
    for name, message in expectations.items():
        with pytest.raises(ModelError) as error:
            Model.load(tmp_path / name)
        assert str(error.value) == f"{tmp_path / name}: {message}"


def test_a_model_read_through_a_pipe_is_the_file_s_model(model, tmp_path):
    """`nbtext predict <(zcat m.joblib.gz)`: a pipe cannot be mapped into memory as a file is,
    and every model given so was "not an nbtext model file, or truncated (OSError)". A pipe is
    read whole; a broken file through one says what the file says."""
    path = tmp_path / "m.joblib"
    model.save(path)
    with gzip.open(tmp_path / "m.joblib.gz", "wb") as packed:
        packed.write(path.read_bytes())
    by_file = run(["predict", path, TICKETS / "test"]).stdout
    piped = in_bash(f"nbtext predict <(gzip -dc {tmp_path / 'm.joblib.gz'}) {TICKETS / 'test'}")
    assert piped.returncode == 0 and piped.stdout == by_file and len(by_file.splitlines()) == 120, piped.stderr
    # worker processes cannot open a pipe this process has read: "a worker process failed"
    shared = in_bash(f"nbtext predict <(gzip -dc {tmp_path / 'm.joblib.gz'}) {TICKETS / 'test'} --jobs 2")
    assert shared.returncode == 0 and shared.stdout == by_file, shared.stderr
    (tmp_path / "truncated").write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    (tmp_path / "text").write_text("label\ttext\n")
    for name in ("truncated", "text", "m.joblib.gz"):
        told = run(["info", tmp_path / name], expect=1).stderr
        through = in_bash(f"nbtext info <(cat {tmp_path / name})")
        assert through.returncode == 1
        assert re.sub(r"/dev/fd/\d+", str(tmp_path / name), through.stderr) == told, name
    # an update from a pipe is written to the file -o names, as the file's update is; the pipe
    # cannot take it back, and that is said before the data are read, as learn says it
    run(["train", "--update", path, TICKETS / "test", "-o", tmp_path / "by-file.joblib"])
    updated = in_bash(f"nbtext train --update <(cat {path}) {TICKETS / 'test'} -o {tmp_path / 'by-pipe.joblib'}")
    assert updated.returncode == 0, updated.stderr
    by_pipe, by_file = Model.load(tmp_path / "by-pipe.joblib"), Model.load(tmp_path / "by-file.joblib")
    assert by_pipe.terms == by_file.terms and by_pipe.summary["documents"] == 363
    back = in_bash(f"nbtext train --update <(cat {path}) {TICKETS / 'test'}")
    assert back.returncode == 2 and re.search(r"Error: --update /dev/fd/\d+: a pipe, which the updated model cannot "
                                              r"be written back to: name the file to write with -o MODEL\n$", back.stderr)
    learned = in_bash(f"nbtext learn <(cat {path}) --spam {TICKETS / 'test' / 'billing' / '000.txt'}")
    assert learned.returncode == 1 and re.fullmatch(r"Error: /dev/fd/\d+: a pipe; learn rewrites the model it "
                                                    r"teaches, so it takes the model file\n", learned.stderr)


@pytest.mark.parametrize("compat", [False, True], ids=["joblib", "joblib-before-1.2"])
def test_arrays_read_back_as_joblib_reads_them(tmp_path, monkeypatch, compat):
    """nbtext reads joblib's file layout itself; joblib.load is the oracle, over every kind of
    array a payload can hold (orders, byte orders, empty and 0-d arrays, strings)."""
    if compat:  # files from joblib < 1.2 have no alignment padding before the array bytes
        monkeypatch.setattr(joblib.numpy_pickle.NumpyArrayWrapper.__init__, "__defaults__", (False, None))
    payload = every_kind_of_array()
    joblib.dump(payload, tmp_path / "p.joblib")
    from nbtext import modelfile

    ours = modelfile.load(str(tmp_path / "p.joblib"))
    with warnings.catch_warnings():  # joblib warns that old files' arrays may be unaligned; numpy copes
        warnings.simplefilter("ignore")
        theirs = joblib.load(tmp_path / "p.joblib", mmap_mode="r")
    assert ours.keys() == theirs.keys() and ours["plain"] == theirs["plain"]
    for key in payload.keys() - {"format", "plain"}:
        # the dtype written, byte order kept, as joblib maps it (1.3 with numpy 1.24 swapped it to the machine's)
        assert ours[key].dtype == payload[key].dtype and ours[key].shape == theirs[key].shape
        np.testing.assert_array_equal(ours[key], theirs[key])
        assert not ours[key].flags.writeable  # views of the read-only mapped file
    assert ours["fortran"].flags.f_contiguous


def test_model_files_are_the_bytes_joblib_writes(model, tmp_path):
    """Model.save writes joblib's layout without importing joblib: byte for byte what
    joblib.dump writes, for a trained model and for every kind of array."""
    from nbtext import modelfile

    model.save(tmp_path / "ours")
    joblib.dump(model.to_payload(), tmp_path / "theirs")
    assert (tmp_path / "ours").read_bytes() == (tmp_path / "theirs").read_bytes()
    with open(tmp_path / "arrays", "wb") as handle:
        modelfile.dump(every_kind_of_array(), handle)
    joblib.dump(every_kind_of_array(), tmp_path / "arrays-joblib")
    assert (tmp_path / "arrays").read_bytes() == (tmp_path / "arrays-joblib").read_bytes()


def every_kind_of_array() -> dict:
    """Orders, byte orders, empty and 0-d arrays, strings, a strided view."""
    rng = np.random.default_rng(0)
    return {
        "format": "nbtext-model",
        "plain": [1, 2.5, "x", None, {"nested": (True, b"bytes")}],
        "float": rng.random((3, 5)),
        "fortran": np.asfortranarray(rng.random((4, 2))),
        "big-endian": np.arange(7, dtype=">i4"),
        "empty": np.zeros((0, 3)),
        "scalar": np.array(3.5),
        "bool": rng.random(9) > 0.5,
        "uint8": np.frombuffer(b"\x00\xffterms", dtype=np.uint8),
        "unicode": np.array(["a", "bc"]),
        "float32": rng.random(11).astype(np.float32),
        "strided": np.arange(20)[::3],
    }


def test_newer_format_asks_to_upgrade(model, tmp_path):
    payload = model.to_payload()
    payload.update(format_version=99, nbtext_version="9.0")
    joblib.dump(payload, tmp_path / "new.joblib")
    with pytest.raises(ModelError, match=r"made by nbtext 9.0 in model format 99; .* upgrade nbtext"):
        Model.load(tmp_path / "new.joblib")


def test_loading_does_not_import_scipy_sklearn_or_joblib(model, tmp_path):
    """Nor does saving import joblib, nor scoring in threads multiprocessing, nor scoring
    numpy.ma (np.unique imports it: 15 ms of a cold start)."""
    model.save(tmp_path / "m.joblib")
    unwanted = ["scipy", "sklearn", "rich", "joblib", "multiprocessing"]
    unwanted += [] if numpy_imports_by_itself("numpy.ma") else ["numpy.ma"]
    code = (
        "import sys; from nbtext.model import Model; m = Model.load(sys.argv[1]); m.predict(['my parcel']); "
        "m.predict(['my parcel never arrived'] * 10_000); m.save(sys.argv[1] + '.copy'); "
        f"print(sorted(n for n in {unwanted!r} if n in sys.modules))"
    )
    import subprocess

    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "m.joblib")], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr


def test_short_documents_use_the_sorted_lookup_with_the_same_answer(model, test_texts, tmp_path):
    model.save(tmp_path / "m.joblib")
    fresh = Model.load(tmp_path / "m.joblib")
    short = ["my parcel never arrived, refund please"]
    one = fresh.predict_log_proba(short)
    # answered by binary search: neither the dict nor the word table was built
    assert fresh._vocabulary is None and fresh._word_table is None
    np.testing.assert_array_equal(one, model.predict_log_proba(short))
    np.testing.assert_array_equal(fresh.predict_log_proba(test_texts), model.predict_log_proba(test_texts))


@pytest.mark.parametrize("analyzer", [Analyzer(analyzer="char_wb", ngram_range=(2, 4)), Analyzer(char_ngrams=(3, 4))],
                         ids=["char_wb 2-4", "words and char 3-4"])
def test_lone_surrogates_in_a_callers_text_train_a_model_that_saves_and_predicts(test_texts, tmp_path, analyzer):
    """Text a library caller decoded with surrogateescape (bytes that are not UTF-8 kept as
    lone surrogates, \\udce9 for Latin-1's é): character n-grams keep them, and the model they
    made could neither save nor predict (UnicodeEncodeError from packing its terms)."""
    latin = "café crème résumé".encode("latin-1").decode("utf-8", "surrogateescape")
    documents = [Document(f"{doc.text} {latin}" if doc.label == "billing" else doc.text, doc.label, doc.source)
                 for doc in LabelledCorpus([str(TICKETS / "train")])]
    model = train(documents, analyzer=analyzer)
    assert sum("\udce9" in term for term in model.terms) >= 5
    model.save(tmp_path / "m.joblib")
    fresh = Model.load(tmp_path / "m.joblib")
    assert fresh.terms == model.terms
    packed = PackedTerms(pack_terms(model.terms), len(model.terms))  # as a fresh process looks terms up
    assert all(packed.index_of(term) == i for i, term in enumerate(model.terms) if "\udce9" in term)
    short = [f"my card {latin}", "my card"]
    one = [fresh.predict_log_proba([text])[0] for text in short]
    np.testing.assert_array_equal(one, model.predict_log_proba(short))
    assert one[0][model.classes.index("billing")] > one[1][model.classes.index("billing")]
    texts = [f"{text} {latin}" for text in test_texts] + test_texts
    np.testing.assert_array_equal(fresh.predict_log_proba(texts), model.predict_log_proba(texts))


@pytest.mark.parametrize("analyzer", [None, Analyzer(analyzer="char_wb", ngram_range=(2, 4))],
                         ids=["default", "char_wb 2-4"])
def test_a_stream_builds_the_word_table_where_it_would_build_the_dict(model, test_texts, tmp_path, analyzer):
    """Short documents one at a time, as predict takes files named on its command line: looked up
    by binary search until, where the dict of every term would pay, the word table is built
    instead. Both used to be built (20news's default model, 1.2 million terms: the dict half a
    second and 160 MB, so 100 posts took as long as 7,500); and a model of character n-grams,
    with many more features a character, must not search term by term until it has read enough
    characters for the table."""
    if analyzer is not None:
        model = train(LabelledCorpus([str(TICKETS / "train")]), analyzer=analyzer)
    model.save(tmp_path / "m.joblib")
    fresh = Model.load(tmp_path / "m.joblib")
    lines = [" ".join(text.split()[:4]) for text in test_texts[:20]]
    answers = []
    for line in lines:
        answers.append(fresh.predict_log_proba([line])[0])
        assert fresh._vocabulary is None, f"the dict was built by {line!r}"
    assert fresh._word_table is not None
    assert fresh._looked_up < len(fresh.terms) // 64  # no binary search past the dict's mark
    np.testing.assert_array_equal(answers, model.predict_log_proba(lines))
    # The public lookup of analyzed features, which no table replaces, still builds the dict.
    fresh.vectorize_features([model.analyzer(text) for text in test_texts])
    assert fresh._vocabulary is not None


def test_files_without_stored_term_ends_and_class_totals_still_load(model, test_texts, tmp_path):
    """Files of earlier versions lack the kept terms' ends and the per-class totals that spare a
    fresh process a pass over the vocabulary; they are found again, with the same answers."""
    payload = model.to_payload()
    stored = payload["kept"]
    assert len(stored["term_ends"]) == len(model.terms)
    np.testing.assert_array_equal(stored["statistic"]["row_sums"], model.core.feature_count_.sum(axis=1))
    del stored["term_ends"], stored["statistic"]["row_sums"], payload["checksum"]
    payload["format_version"] = 1  # as they were, without a checksum
    joblib.dump(payload, tmp_path / "old.joblib")
    old = Model.load(tmp_path / "old.joblib")
    np.testing.assert_array_equal(old.predict_log_proba(test_texts[:1]), model.predict_log_proba(test_texts[:1]))
    np.testing.assert_array_equal(old.predict_log_proba(test_texts), model.predict_log_proba(test_texts))
    assert [old.terms.index_of(t) for t in ("refund", "zzz-not-a-term")] == [model.terms.index("refund"), -1]


def test_files_from_before_joined_tokens_read_words(test_texts, tmp_path):
    """Model files written before ``--tokens`` existed have no ``tokens`` in their analyzer;
    they were trained on runs of two or more word characters (not today's default, which keeps
    one-letter words too), and must keep predicting with them."""
    from nbtext.analysis import Analyzer

    model = train(LabelledCorpus([str(TICKETS / "train")]), analyzer=Analyzer(ngram_range=(1, 2)))
    payload = model.to_payload()
    assert payload["analyzer"].pop("tokens") == "words"
    del payload["checksum"]
    payload["format_version"] = 1  # as they were, without a checksum
    joblib.dump(payload, tmp_path / "old.joblib")
    old = Model.load(tmp_path / "old.joblib")
    assert old.analyzer == model.analyzer
    np.testing.assert_array_equal(old.predict_log_proba(test_texts), model.predict_log_proba(test_texts))


@pytest.mark.parametrize("settings", [
    {"min_df": 2}, {"min_df": 3, "idf": True}, {"variant": "multinomial", "max_features": 2000},
    {"variant": "bernoulli", "min_df": 2, "max_df": 0.5},
])
def test_restricting_counts_over_all_terms_equals_vectorizing_the_features(settings):
    """What cross-validation does for every setting it scores: count the test documents once
    over all the fold's terms, then take each model's columns, weighted as the model weighs."""
    from nbtext.analysis import Analyzer
    from nbtext.terms import count_features

    from .conftest import corpus_path

    docs = list(LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")]))
    training, test = docs[:3000], [d.text for d in docs[3000:]]
    trained = train(training, analyzer=Analyzer(ngram_range=(1, 2)), settings=settings)
    assert len(trained.terms) < len(trained.counts.terms)  # pruning dropped terms
    features = [trained.analyzer(t) for t in test]
    everything = count_features(features, dict(zip(trained.counts.terms, range(len(trained.counts.terms)))),
                                n_known=len(trained.counts.terms))
    restricted, expected = trained.restrict(everything), trained.vectorize_features(features)
    assert_same_matrix(restricted, expected)
    assert restricted.n_features == expected.n_features == len(trained.terms)


#: Settings that prune and weigh alike, as a search's are shared.
ALIKE = [
    ({"variant": "complement", "alpha": 0.1, "min_df": 2, "idf": True},
     {"variant": "multinomial", "alpha": 1.0, "min_df": 2, "idf": True, "fit_prior": False}),
    ({"variant": "complement", "alpha": 0.3}, {"variant": "complement", "alpha": 0.03, "norm": True}),
    ({"variant": "bernoulli", "alpha": 1.0, "idf": True}, {"variant": "bernoulli", "alpha": 0.1}),
]


@pytest.mark.parametrize("first, other", ALIKE)
def test_a_model_made_alike_scores_as_one_made_afresh(first, other):
    """A search builds the columns, sums and weighed test counts once for the settings that
    share them; the model it scores with must be the one training with those settings gives."""
    from nbtext.analysis import Analyzer

    from .conftest import corpus_path

    docs = list(LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")]))
    trained = train(docs[:3000], analyzer=Analyzer(ngram_range=(1, 2)), tf="log", doc_norm="l2", settings=first)
    assert Model.columns_key(first) == Model.columns_key(other)
    alike, afresh = trained.alike(other), Model(trained.analyzer, trained.counts, other)
    test = [d.text for d in docs[3000:]]
    np.testing.assert_array_equal(alike.predict_log_proba(test), afresh.predict_log_proba(test))
    assert alike.settings == afresh.settings and alike.terms == afresh.terms
    np.testing.assert_array_equal(trained.predict_log_proba(test), Model(trained.analyzer, trained.counts,
                                                                         first).predict_log_proba(test))


@pytest.mark.parametrize("first, other", ALIKE)
def test_models_alike_score_shared_columns_as_each_scores_alone(first, other):
    """A search densifies the sums of the columns a fold's test documents hold once for every
    setting that shares them; each setting must score the documents from them to the bit as
    its own model does, and a model of other sums must not be scored from them."""
    from nbtext import matrices, naive_bayes
    from nbtext.analysis import Analyzer
    from nbtext.naive_bayes import SharedColumns

    from .conftest import corpus_path

    docs = list(LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")]))
    trained = train(docs[:3000], analyzer=Analyzer(ngram_range=(1, 2)), tf="log", doc_norm="l2", settings=first)
    test = trained.vectorize([d.text for d in docs[3000:]])
    shared = SharedColumns(trained.core, test)
    assert 0 < shared.X.n_features < test.n_features  # only the columns the test documents hold
    assert shared.blocks is None  # 10,416 columns of 2 classes: all the weights fit in the cache
    for model in (trained, trained.alike(other)):
        log_proba = shared.predict_log_proba(model.core)
        np.testing.assert_array_equal(log_proba, model.core.predict_log_proba(test))
        # A block of weight rows at a time, as for large weights where the product is compiled:
        # blocks of 7 columns, so a product in 1,488 parts.
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(naive_bayes, "_BLOCKED_WEIGHTS", 0)
            patch.setattr(naive_bayes, "_ROWS_BLOCK", 7)
            by_blocks = SharedColumns(model.core, test)
            assert (by_blocks.blocks is None) == (matrices.sparsedot is None)
            np.testing.assert_array_equal(by_blocks.predict_log_proba(model.core), log_proba)
    assert (log_proba.argmax(axis=1) == (np.array([d.label for d in docs[3000:]]) == "spam")).mean() > 0.9
    other_sums = train(docs[:2000], analyzer=Analyzer(ngram_range=(1, 2)), tf="log", doc_norm="l2", settings=first)
    with pytest.raises(ValueError, match="other sums"):
        shared.predict_log_proba(other_sums.core)


@pytest.mark.parametrize("other", [{"min_df": 3}, {"idf": False}, {"variant": "bernoulli"}, {"max_df": 0.5}])
def test_settings_that_make_other_columns_are_not_made_alike(other):
    trained = train(LabelledCorpus([str(TICKETS / "train")]), settings={"min_df": 2, "idf": True})
    with pytest.raises(ValueError, match="other columns"):
        trained.alike({"min_df": 2, "idf": True, **other})


@pytest.mark.parametrize("tf, doc_norm, settings", [
    ("raw", None, {"variant": "multinomial"}),
    ("raw", None, {"variant": "bernoulli", "min_df": 2}),
    ("log", "l2", {"variant": "complement", "idf": True, "norm": True}),
    ("log", None, {"variant": "complement", "min_df": 3, "calibration": {"temperature": 2.0}}),
])
def test_the_texts_answered_as_empty_are_those_with_no_word_the_model_knows(tf, doc_norm, settings):
    """Trained on the first 3,000 SMS messages, a few later ones ("Okie", ":-) :-)", "East
    coast") hold no word the model knows. Their rows, and no other, are the empty document's
    answer, whether the texts are scored in one call (by threads), in one thread, or one by one."""
    from .conftest import corpus_path

    docs = list(LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")]))
    trained = train(docs[:3000], tf=tf, doc_norm=doc_norm, settings=settings)
    texts = [doc.text for doc in docs[3000:]]
    no_known_word = np.diff(trained.vectorize(texts).indptr) == 0
    assert 5 <= no_known_word.sum() <= 50
    np.testing.assert_array_equal(trained.scored_as_empty(trained.predict_log_proba(texts)), no_known_word)
    one_by_one = [trained.scored_as_empty(trained.predict_log_proba([text]))[0] for text in texts]
    np.testing.assert_array_equal(one_by_one, no_known_word)
    trained.threads = 1
    np.testing.assert_array_equal(trained.scored_as_empty(trained.predict_log_proba(texts)), no_known_word)


#: Pieces of hostile text: one- to four-byte characters, NUL, lone surrogates (escaped bytes and
#: JSON's), joining and space characters, words longer than a hashed key's 8 bytes.
HOSTILE = ["a", "b", "ab", "é", "ß", "İ", "ﬃ", "日本", "\U0001f600", "\x00", " ", "\n", "\r\n", "\t", "\u200b",
           ".", "@", "'", "-", "_", "1", "\ufffd", "\udce9", "\ud800", "x" * 9, "y" * 17]


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(st.lists(st.sampled_from(HOSTILE), max_size=30).map("".join), min_size=4, max_size=16),
       queries=st.lists(st.lists(st.sampled_from(HOSTILE), max_size=30).map("".join), min_size=1, max_size=6),
       analyzer=st.sampled_from([Analyzer(), Analyzer(ngram_range=(1, 3), tokens="all-words"),
                                 Analyzer(ngram_range=(1, 2), tokens="joined", char_ngrams=(2, 4)),
                                 Analyzer(analyzer="char_wb", ngram_range=(1, 3)), Analyzer(hash_features=7)]),
       variant=st.sampled_from(["multinomial", "bernoulli", "complement"]), min_df=st.sampled_from([1, 2]),
       weighing=st.sampled_from([("log", None, False, False), ("raw", None, False, True), ("log", "l2", True, True)]))
def test_any_text_trains_a_model_that_answers_probabilities_saved_or_not(tmp_path_factory, texts, queries, analyzer,
                                                                        variant, min_df, weighing):
    """Train, score, save and load on text made of hostile pieces, with every variant and
    weighing: probabilities that are numbers and sum to 1, the same after a round trip through
    the file, and the same to rounding without the compiled parts. Found two faults: a lone
    surrogate in a character n-gram kept the model from saving or predicting, and Complement
    NB's weight normalisation answered NaN when one term was left."""
    from nbtext import matrices
    from nbtext.errors import DataError
    from nbtext.vectorizing import scanner as compiled

    tf, doc_norm, idf, norm = weighing
    documents = [Document(text, "xyz"[i % 3], str(i)) for i, text in enumerate(texts)]
    options = {"analyzer": analyzer, "tf": tf, "doc_norm": doc_norm,
               "settings": {"variant": variant, "min_df": min_df, "idf": idf, "norm": norm and variant == "complement"}}
    try:
        model = train(documents, **options)
    except DataError as error:  # no word at all, or none left after pruning
        assert str(error).startswith(("no words to learn from", "no terms remain after pruning"))
        return
    scores = model.predict_log_proba(queries)
    assert np.isfinite(scores).all()
    np.testing.assert_allclose(np.exp(scores).sum(axis=1), 1.0, rtol=0, atol=1e-9)
    path = tmp_path_factory.mktemp("any") / "m.joblib"
    model.save(path)
    np.testing.assert_array_equal(Model.load(path).predict_log_proba(queries), scores)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled, "wordscan", None)
        patch.setattr(matrices, "sparsedot", None)
        plain = train(documents, **options)
        assert plain.terms == model.terms
        np.testing.assert_allclose(plain.predict_log_proba(queries), scores, rtol=0, atol=1e-9)


@pytest.mark.parametrize("alpha", [0, -1.0, 2e9, float("nan"), True, "0.1"])
def test_a_model_smooths_by_an_alpha_above_0(alpha):
    """The cores take scikit-learn's alpha, 0 included (force_alpha); a model does not: at 0 a
    word one class never had rules that class out. From Python it is refused by name (in a
    model file, as damage: tests/test_damaged_models.py)."""
    docs = [Document("free cash", "spam", "1"), Document("see you", "ham", "2")]
    with pytest.raises(ModelError, match=r"^alpha must be a number above 0 and at most 1e\+09, got "):
        train(docs, settings={"alpha": alpha})
    assert train(docs, settings={"alpha": 1e-12}).predict(["free"]) == ["spam"]

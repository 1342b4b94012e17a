"""The model file: round trips exactly, writes atomically, and never runs code on load."""

from __future__ import annotations

import os
import pickle
import sys

import joblib
import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
from sklearn.pipeline import make_pipeline

from nbtext.errors import ModelError, UnsafeModelError
from nbtext.model import Model
from nbtext.readers import LabelledCorpus
from nbtext.training import train

from .conftest import TICKETS


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


def test_same_data_gives_the_same_model_bytes(tmp_path):
    for name in ("a", "b"):
        train(LabelledCorpus([str(TICKETS / "train")])).save(tmp_path / name)
    first, second = ((tmp_path / n).read_bytes() for n in ("a", "b"))
    # the summary's timing differs; everything before it must be identical
    assert first[:len(first) // 2] == second[:len(second) // 2]


def test_save_is_atomic(model, tmp_path):
    path = tmp_path / "m.joblib"
    model.save(path)
    before = path.read_bytes()

    broken = Model(model.analyzer, model.counts, model.settings, {"callback": lambda: None})
    with pytest.raises(Exception, match="lambda"):  # fails half-way through writing the arrays
        broken.save(path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["m.joblib"]


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
    joblib.dump({"some": "dict"}, tmp_path / "foreign")
    expectations = {
        "truncated": "not an nbtext model file, or truncated",
        "text": "not an nbtext model file, or truncated",
        "foreign": "not an nbtext model file",
        "missing": "no such model file",
    }
    for name, message in expectations.items():
        with pytest.raises(ModelError, match=message) as error:
            Model.load(tmp_path / name)
        assert "\n" not in str(error.value)


def test_newer_format_asks_to_upgrade(model, tmp_path):
    payload = model.to_payload()
    payload.update(format_version=99, nbtext_version="9.0")
    joblib.dump(payload, tmp_path / "new.joblib")
    with pytest.raises(ModelError, match=r"made by nbtext 9.0 in model format 99; .* upgrade nbtext"):
        Model.load(tmp_path / "new.joblib")


def test_loading_does_not_import_scipy_or_sklearn(model, tmp_path):
    model.save(tmp_path / "m.joblib")
    code = (
        "import sys; from nbtext.model import Model; m = Model.load(sys.argv[1]); m.predict(['my parcel']); "
        "print(sorted(n for n in ('scipy', 'sklearn', 'rich') if n in sys.modules))"
    )
    import subprocess

    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "m.joblib")], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr


def test_short_documents_use_the_sorted_lookup_with_the_same_answer(model, test_texts, tmp_path):
    model.save(tmp_path / "m.joblib")
    fresh = Model.load(tmp_path / "m.joblib")
    one = fresh.predict_log_proba(test_texts[:1])
    assert fresh._vocabulary is None  # answered by binary search, the dict was never built
    np.testing.assert_array_equal(one, model.predict_log_proba(test_texts[:1]))
    np.testing.assert_array_equal(fresh.predict_log_proba(test_texts), model.predict_log_proba(test_texts))

"""The model as a linear one, exported: the scores recomputed from the export alone (its
terms, weights, bias and how text becomes x) are the model's, on real data, for every variant
and weighting, and through each file format."""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter

import numpy as np
import pytest

from nbtext.export import write_export
from nbtext.model import Model
from nbtext.readers import LabelledCorpus
from nbtext.training import train

from .conftest import TICKETS, corpus_path, run

SETTINGS = {
    "complement (defaults)": ({}, {}),
    "multinomial, raw counts": ({"variant": "multinomial", "alpha": 1.0}, {"tf": "raw", "doc_norm": None}),
    "complement, norm, idf, l2": ({"variant": "complement", "norm": True, "idf": True},
                                  {"tf": "log", "doc_norm": "l2"}),
    "bernoulli": ({"variant": "bernoulli", "alpha": 0.5}, {"tf": "binary", "doc_norm": None}),
    "multinomial, binary, idf": ({"variant": "multinomial", "idf": True, "min_df": 2},
                                 {"tf": "binary", "doc_norm": None}),
}


def features_from(form: dict, text: str) -> list[str]:
    """A text's features as the export describes them: its token pattern, lowercasing, stop
    words and n-grams, without nbtext's analyzer."""
    settings = form["analyzer"]
    assert settings["analyzer"] == "word" and not settings["headers"]
    text = text.lower() if settings["lowercase"] else text
    if form["cjk_run_pattern"] is not None:
        text = re.sub(form["cjk_run_pattern"], _cjk_pairs, text)
    tokens = re.findall(form["token_pattern"], text)
    tokens = [token for token in tokens if token not in set(settings["stop_words"])]
    low, high = settings["ngram_range"]
    return [" ".join(tokens[i:i + n]) for n in range(low, high + 1) for i in range(len(tokens) - n + 1)]


def _cjk_pairs(run: re.Match) -> str:
    """A CJK run as the export's docs say: each run of word characters in it as its overlapping
    pairs (one character as itself), spaced apart from each other and from what is around them."""
    def pairs(word: str) -> str:
        return f" {' '.join(word[i:i + 2] for i in range(max(len(word) - 1, 1)))} "

    return re.sub(r"\w+", lambda word: pairs(word.group()), run.group())


def scores_from(form: dict, texts: list[str]) -> np.ndarray:
    """Documents x classes joint log-likelihoods, computed from an export's parts alone."""
    def analyzer(text: str) -> list[str]:
        return features_from(form, text)

    column = {term: j for j, term in enumerate(form["terms"])}
    weights, bias = np.asarray(form["weights"]), np.asarray(form["bias"])
    idf = None if form["idf"] is None else np.asarray(form["idf"])
    out = np.empty((len(texts), len(bias)))
    for d, text in enumerate(texts):
        counts = Counter(column[f] for f in analyzer(text) if f in column)
        at = np.array(sorted(counts), dtype=np.int64)
        x = np.array([counts[j] for j in at], dtype=np.float64)
        if form["presence"] or form["tf"] == "binary":
            x = np.minimum(x, 1.0)
        elif form["tf"] == "log":
            x = np.log1p(x)
        if form["doc_norm"] == "l2" and len(x):
            x = x / np.sqrt((x * x).sum())
        if idf is not None:
            x = x * idf[at]
        out[d] = weights[:, at] @ x + bias
    return out


def _normalised(jll: np.ndarray) -> np.ndarray:
    return jll - np.logaddexp.reduce(jll, axis=1)[:, None]


@pytest.mark.parametrize("corpus", ["sms", "tickets"])
@pytest.mark.parametrize("name", SETTINGS)
def test_the_export_alone_gives_the_models_scores(name, corpus, sms):
    settings, weighting = SETTINGS[name]
    train_path, test_path = ((sms / "train.tsv", sms / "test.tsv") if corpus == "sms"
                             else (TICKETS / "train", TICKETS / "test"))
    model = train(LabelledCorpus([str(train_path)]), settings=settings, **weighting)
    texts = [doc.text for doc in LabelledCorpus([str(test_path)])][:1500]
    out = io.StringIO()
    write_export(model, out, "json")
    form = json.loads(out.getvalue())
    assert form["format"] == "nbtext-linear" and form["classes"] == model.classes
    ours = model.predict_log_proba(texts)
    recomputed = scores_from(form, texts)
    np.testing.assert_allclose(_normalised(recomputed), ours, rtol=0, atol=1e-9)
    assert (recomputed.argmax(axis=1) == ours.argmax(axis=1)).all()


def test_the_export_alone_scores_chinese_and_korean_spam_as_the_model_does():
    """SpamAssassin's mail, whose Chinese and Korean spam is read in pairs of characters: the
    export's CJK pattern and its docs' rule give the model's scores on every message."""
    mail = list(LabelledCorpus([str(corpus_path("spamassassin-2003"))], input_format="email", headers=()))
    model = train(mail[::2])
    out = io.StringIO()
    write_export(model, out, "json")
    form = json.loads(out.getvalue())
    texts = [doc.text for doc in mail[1::2]]
    assert sum(len(re.findall(form["cjk_run_pattern"], text)) for text in texts) > 200  # 256 runs in 8 messages
    assert sum(" " not in term and re.search(form["cjk_run_pattern"], term) is not None
               for term in form["terms"]) > 1000
    recomputed, ours = scores_from(form, texts), model.predict_log_proba(texts)
    # Long mail's log-probabilities reach -6,000: sums of thousands of products, apart in the 13th digit.
    np.testing.assert_allclose(_normalised(recomputed), ours, rtol=1e-11, atol=1e-9)
    assert (recomputed.argmax(axis=1) == ours.argmax(axis=1)).all()


def test_every_format_holds_the_same_weights(tmp_path, tickets_model):
    model = Model.load(tickets_model)
    form = json.loads(run(["export", tickets_model]).stdout)
    run(["export", tickets_model, "-o", tmp_path / "m.npz"])
    with np.load(tmp_path / "m.npz") as npz:
        assert npz["terms"].tolist() == form["terms"] and npz["classes"].tolist() == form["classes"]
        np.testing.assert_array_equal(npz["weights"], np.array(form["weights"]))
        meta = json.loads(str(npz["meta"]))
        assert meta["analyzer"] == form["analyzer"] and meta["tf"] == form["tf"]
    rows = list(csv.reader(io.StringIO(run(["export", tickets_model, "--format", "csv"]).stdout)))
    assert rows[0] == ["term", *model.classes] and rows[1][0] == ""
    np.testing.assert_array_equal(np.array([row[1:] for row in rows[2:]], dtype=float).T, np.array(form["weights"]))
    np.testing.assert_array_equal(np.array(rows[1][1:], dtype=float), np.array(form["bias"]))
    assert [row[0] for row in rows[2:]] == form["terms"]


def test_a_model_with_columns_exports_them_and_scores_the_same(tmp_path):
    from sklearn.datasets import load_wine

    data = load_wine()
    names = [f"f{i}" for i in range(data.data.shape[1])]
    labels = data.target_names[data.target]
    path = tmp_path / "wine.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["label", "text", "kind", *names])
        for i, (x, y) in enumerate(zip(data.data, labels)):
            writer.writerow([y, "dry red" if i % 3 else "sweet", f"k{i % 4}", *(repr(float(v)) for v in x)])
    run(["train", path, "--numeric-columns", ",".join(names), "--categorical-columns", "kind", "-o",
         tmp_path / "m.joblib"])
    form = json.loads(run(["export", tmp_path / "m.joblib"]).stdout)
    model = Model.load(tmp_path / "m.joblib")
    rows = [{"kind": f"k{i % 5}", **dict(zip(names, x))} for i, x in enumerate(data.data)]  # k4: never seen
    texts = ["dry red" if i % 2 else "sweet" for i in range(len(rows))]
    jll = scores_from(form, texts)
    for part in form["columns"]["numeric"]:
        x = np.array([row[part["name"]] for row in rows])[:, None]
        var, mean = np.array(part["var"]), np.array(part["mean"])
        jll += -0.5 * (np.log(2 * np.pi * var) + (x - mean) ** 2 / var)
    for part in form["columns"]["categorical"]:
        index = {value: i for i, value in enumerate(part["values"])}
        log_prob = np.hstack([np.array(part["log_prob"]), np.array(part["unseen"])[:, None]])
        jll += log_prob[:, [index.get(row[part["name"]], len(index)) for row in rows]].T
    np.testing.assert_allclose(_normalised(jll), model.predict_log_proba(texts, rows), rtol=0, atol=1e-9)
    refused = run(["export", tmp_path / "m.joblib", "--format", "csv"], expect=1)
    assert "export it as json or npz" in refused.stderr


def test_a_hashed_model_has_no_words_to_export(tmp_path):
    run(["train", TICKETS / "train", "--hash-features", "1024", "-o", tmp_path / "h.joblib"])
    refused = run(["export", tmp_path / "h.joblib"], expect=1)
    assert "keeps no words to export" in refused.stderr

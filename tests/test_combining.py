"""Robinson's chi-square combining (``train --combining chi-square``): a message's score by hand,
the chi-square tail against scipy's, the combined scores against a message-by-message oracle,
and a filter so trained on real mail, whose every score the oracle gives again."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2

import nbtext
from nbtext.analysis import Analyzer
from nbtext.combining import CHI_SQUARE, MIN_DEV, ROBS, ROBX, chi_square_scores, chi_square_survival
from nbtext.matrices import CountMatrix
from nbtext.model import Model

WORDS = Analyzer(ngram_range=(1, 1), tokens="all-words")
CHI_FILTER = {"label": "spam", "spam_cutoff": 0.99, "ham_cutoff": 0.5, "slope": 1.0, "intercept": 0.0,
              "combining": CHI_SQUARE}


def test_a_messages_score_by_hand():
    """Spam "cheap pills" and "cheap offer", ham "lunch notes" and "lunch offer". Spamicities,
    f = (s x + n p) / (s + n): cheap (2 spam of 2, no ham) (0.52 s + 2) / (s + 2); pills (1 of
    2) (0.52 s + 1) / (s + 1); offer, in one of each, 0.5 nearly: no evidence. "cheap pills
    offer" has two words of evidence (k = 2), and Q(x, 4) = exp(-x/2) (1 + x/2)."""
    docs = [nbtext.Document(text, label, str(i)) for i, (text, label) in enumerate(
        [("cheap pills", "spam"), ("cheap offer", "spam"), ("lunch notes", "ham"), ("lunch offer", "ham")])]
    model = nbtext.train(docs, analyzer=WORDS, settings={"variant": "multinomial", "spam": CHI_FILTER})
    cheap, pills = (ROBS * ROBX + 2) / (ROBS + 2), (ROBS * ROBX + 1) / (ROBS + 1)
    assert abs((ROBS * ROBX + 1) / (ROBS + 2) - 0.5) < MIN_DEV  # offer

    def q4(x2):
        return math.exp(-x2 / 2) * (1 + x2 / 2)

    h = q4(-2 * (math.log(cheap) + math.log(pills)))
    s = q4(-2 * (math.log(1 - cheap) + math.log(1 - pills)))
    proba = model.predict_proba(["cheap pills offer", "hello there", "cheap lunch"])
    spam = model.classes.index("spam")
    assert proba[0, spam] == pytest.approx((1 + h - s) / 2, rel=1e-12) and proba[0, spam] > 0.99
    assert proba[1, spam] == 0.5  # no word it knows: no evidence either way
    lunch = ROBS * ROBX / (ROBS + 2)
    mixed = (1 + q4(-2 * (math.log(cheap) + math.log(lunch)))
             - q4(-2 * (math.log(1 - cheap) + math.log(1 - lunch)))) / 2
    assert proba[2, spam] == pytest.approx(mixed, rel=1e-12) and 0.3 < mixed < 0.7  # spammy and hammy: unsure
    assert np.allclose(proba.sum(axis=1), 1)


def test_a_chi_square_filter_explains_its_score_by_its_words_of_evidence():
    """predict --explain on such a filter named naive Bayes' words, which its score ignores.
    It names the words of chi-square evidence, each weighing the log-odds of its spamicity,
    ln(f / (1 - f)); a word within MIN_DEV of 0.5 weighs nothing. The label is the filter's."""
    docs = [nbtext.Document(text, label, str(i)) for i, (text, label) in enumerate(
        [("cheap pills", "spam"), ("cheap offer", "spam"), ("lunch notes", "ham"), ("lunch offer", "ham")])]
    model = nbtext.train(docs, analyzer=WORDS, settings={"variant": "multinomial", "spam": CHI_FILTER})
    cheap, pills = (ROBS * ROBX + 2) / (ROBS + 2), (ROBS * ROBX + 1) / (ROBS + 1)
    label, against, terms = model.explain(["cheap pills offer"])[0]
    assert (label, against) == ("spam", "ham")
    assert [term for term, _ in terms] == ["cheap", "pills", "offer"]
    assert [weight for _, weight in terms] == pytest.approx([math.log(cheap / (1 - cheap)),
                                                             math.log(pills / (1 - pills)), 0.0], rel=1e-12)
    lunch = ROBS * ROBX / (ROBS + 2)
    label, against, terms = model.explain(["lunch notes"], against=["spam"])[0]
    assert (label, against) == ("ham", "spam")  # ham's words raise ham: ln((1 - f) / f), positive
    assert dict(terms)["lunch"] == pytest.approx(math.log((1 - lunch) / lunch), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(x2=st.floats(0, 20_000), k=st.integers(0, 3_000))
def test_the_chi_square_tail_is_scipys(x2, k):
    expected = 1.0 if k == 0 else chi2.sf(x2, 2 * k)
    assert chi_square_survival(np.array([x2]), np.array([k]))[0] == pytest.approx(expected, rel=1e-9, abs=1e-300)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_combined_scores_are_a_message_by_message_oracles(data):
    words = data.draw(st.integers(1, 30))
    f = np.array(data.draw(st.lists(st.floats(1e-6, 1 - 1e-6), min_size=words, max_size=words)))
    rows = data.draw(st.lists(st.lists(st.integers(0, words - 1), max_size=12, unique=True), min_size=1,
                              max_size=8))
    indptr = np.cumsum([0, *map(len, rows)])
    present = CountMatrix(indptr, np.array([w for row in rows for w in row], dtype=np.int64),
                          np.ones(int(indptr[-1])), words)
    for row, score in zip(rows, chi_square_scores(present, f)):
        evidence = [f[w] for w in row if abs(f[w] - 0.5) > MIN_DEV]
        if not evidence:
            assert score == 0.5
            continue
        h = chi2.sf(-2 * sum(map(math.log, evidence)), 2 * len(evidence))
        s = chi2.sf(-2 * sum(math.log1p(-p) for p in evidence), 2 * len(evidence))
        assert score == pytest.approx((1 + h - s) / 2, abs=1e-9)


def oracle_scores(model: Model, texts: list[str]) -> np.ndarray:
    """A chi-square filter's scores, each message on its own: its words (the model's columns it
    holds), their spamicities from the training counts, then Fisher's method by scipy."""
    every = {term: i for i, term in enumerate(model.counts.terms)}
    doc_freq = model.counts.dense("doc_freq")
    docs = model.counts.class_docs
    spam = model.classes.index("spam")
    matrix = model.vectorize(texts)
    scores = []
    for row in range(len(texts)):
        columns = matrix.indices[matrix.indptr[row]:matrix.indptr[row + 1]]
        evidence = []
        for column in columns:
            held = doc_freq[:, every[model.terms[column]]]
            b, g = held[spam], held.sum() - held[spam]
            bad, good = b / docs[spam], g / (docs.sum() - docs[spam])
            p = bad / (bad + good) if bad + good else ROBX
            f = (ROBS * ROBX + (b + g) * p) / (ROBS + b + g)
            if abs(f - 0.5) > MIN_DEV:
                evidence.append(f)
        if not evidence:
            scores.append(0.5)
            continue
        h = chi2.sf(-2 * sum(map(math.log, evidence)), 2 * len(evidence))
        s = chi2.sf(-2 * sum(math.log1p(-p) for p in evidence), 2 * len(evidence))
        scores.append((1 + h - s) / 2)
    return np.array(scores)

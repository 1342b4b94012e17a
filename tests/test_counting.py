"""Features and counts equal scikit-learn's CountVectorizer on real text; sums merge exactly."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

from nbtext import matrices
from nbtext.analysis import Analyzer, load_stop_words
from nbtext.counting import ClassCounts
from nbtext.errors import DataError
from nbtext.matrices import ColumnBlocks, CountMatrix
from nbtext.readers import LabelledCorpus
from nbtext.terms import GrowingVocabulary, count_features

from .conftest import corpus_path, needs_compiled


@pytest.fixture(scope="module")
def mixed_documents():
    """Real documents with non-ASCII text: rt-polarity (cp1252 bytes) and 20news (latin-1)."""
    rt = list(LabelledCorpus([str(corpus_path("rt-polarity"))], encoding="cp1252"))
    news = list(LabelledCorpus([str(corpus_path("20news-bydate") / "test")], encoding="latin-1"))
    docs = rt[::5] + news[::10] + [d for d in rt + news if not d.text.isascii()]
    assert sum(not d.text.isascii() for d in docs) > 200
    return docs


SETTINGS = [
    ({}, {}),
    ({"ngram_range": (1, 3)}, {"ngram_range": (1, 3)}),
    ({"ngram_range": (2, 2), "stop_words": ENGLISH_STOP_WORDS}, {"ngram_range": (2, 2), "stop_words": "english"}),
    ({"analyzer": "char_wb", "ngram_range": (2, 5)}, {"analyzer": "char_wb", "ngram_range": (2, 5)}),
    ({"lowercase": False}, {"lowercase": False}),
    ({"tokens": "marks", "ngram_range": (1, 2)}, {"token_pattern": r"(?u)\w+|[^\w\s]", "ngram_range": (1, 2)}),
]


@pytest.mark.parametrize("ours, theirs", SETTINGS, ids=["words", "1-3grams", "bigrams-stop", "char_wb", "case", "marks"])
def test_analyzer_equals_scikit_learn(mixed_documents, ours, theirs):
    mine = Analyzer(**ours)
    oracle = CountVectorizer(**theirs).build_analyzer()
    for doc in mixed_documents[::3]:
        assert mine(doc.text) == oracle(doc.text), doc.source


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(st.lists(st.sampled_from(["a", "ab", "Éé", "x" * 19, "y" * 20, "z" * 21, "中文", " ", "  ", "\t",
                                             "\n", "\xa0", "\u2003", "\x1c", "."]), max_size=30).map("".join),
                   min_size=1, max_size=4),
    ngram_range=st.sampled_from([(1, 1), (1, 3), (2, 5), (3, 3)]),
)
def test_char_wb_equals_scikit_learn_on_any_text(texts, ngram_range):
    """Words at and around the length above which a word's n-grams are not kept for the next
    time (20), Unicode spaces; each text twice, the second time from the kept n-grams."""
    mine = Analyzer(analyzer="char_wb", ngram_range=ngram_range)
    oracle = CountVectorizer(analyzer="char_wb", ngram_range=ngram_range).build_analyzer()
    for text in texts + texts:
        assert mine(text) == oracle(text)


@pytest.mark.parametrize("given_text, message", [
    (["where is my parcel", "refund please"], "not a list; call it once per document"),
    (b"where is my parcel", "not bytes; decode bytes first"),
    (None, "not NoneType"),
])
@pytest.mark.parametrize("settings", [{}, {"lowercase": False}, {"analyzer": "char_wb"}], ids=["words", "case", "char_wb"])
def test_analyzer_refuses_what_is_not_one_document(given_text, message, settings):
    """A list of documents, bytes or None got AttributeError from deep inside (or, with case
    kept, the regex's own complaint); the error now says what an Analyzer takes."""
    with pytest.raises(TypeError, match=f"Analyzer takes one document as str, {message}"):
        Analyzer(**settings)(given_text)


@pytest.mark.parametrize("bounds, shown", [("1,2", "'1,2'"), ((1.5, 2), "(1.5, 2)"), ((1,), "(1,)"),
                                             ((True, 2), "(True, 2)"), (2, "2")])
@pytest.mark.parametrize("option", ["ngram_range", "char_ngrams"])
def test_an_ngram_range_that_is_not_two_whole_numbers_is_refused(bounds, shown, option):
    """ngram_range="1,2", as a command line writes it, failed with "too many values to unpack",
    and (1.5, 2) ran silently as (1, 2). Both now say what a range is."""
    what = "n-gram range" if option == "ngram_range" else "character n-gram range"
    with pytest.raises(DataError, match=f"^bad {what} {re.escape(shown)}: need two whole numbers, \\(MIN, MAX\\)$"):
        Analyzer(**{option: bounds})
    assert getattr(Analyzer(**{option: [2, np.int64(3)]}), option) == (2, 3)


def test_word_and_char_ngrams_together_equal_scikit_learn_feature_union(mixed_documents):
    """--char-ngrams: the counts are scikit-learn's word CountVectorizer and char_wb
    CountVectorizer side by side (a FeatureUnion), with the character n-grams in brackets."""
    from sklearn.pipeline import make_union

    texts = [d.text for d in mixed_documents[::2]]
    analyzer = Analyzer(ngram_range=(1, 2), char_ngrams=(2, 4))
    vocabulary = GrowingVocabulary()
    matrix = count_features([analyzer(t) for t in texts], vocabulary)
    union = make_union(CountVectorizer(ngram_range=(1, 2)), CountVectorizer(analyzer="char_wb", ngram_range=(2, 4)))
    expected = union.fit_transform(texts)
    words, chars = (vectorizer.get_feature_names_out().tolist() for _, vectorizer in union.transformer_list)
    assert len(vocabulary) == len(words) + len(chars)  # no character n-gram is taken for a word
    order = np.array([vocabulary[term] for term in words + [f"[{gram}]" for gram in chars]])
    assert (matrix.to_scipy()[:, order] != expected).nnz == 0
    with pytest.raises(DataError, match="use them with the word analyzer"):
        Analyzer(analyzer="char_wb", char_ngrams=(2, 3))


def test_counts_equal_count_vectorizer(mixed_documents):
    texts = [d.text for d in mixed_documents]
    analyzer = Analyzer(ngram_range=(1, 2))
    vocabulary = GrowingVocabulary()
    matrix = count_features([analyzer(t) for t in texts], vocabulary)
    oracle = CountVectorizer(ngram_range=(1, 2)).fit(texts)
    expected = oracle.transform(texts)
    order = np.array([vocabulary[term] for term in oracle.get_feature_names_out()])
    assert (matrix.to_scipy()[:, order] != expected).nnz == 0
    # a fixed vocabulary (a plain dict) ignores unseen features
    again = count_features([analyzer(t) for t in texts[:5] + ["zzqx qqzx"]], dict(vocabulary))
    assert again.shape == (6, len(vocabulary)) and again.indptr[-1] == again.indptr[-2]


def test_pruning_equals_count_vectorizer(mixed_documents):
    texts = [d.text for d in mixed_documents]
    counts = ClassCounts()
    counts.add([Analyzer()(t) for t in texts], [d.label for d in mixed_documents])
    frozen = counts.finalized()
    for min_df, max_df in [(2, 1.0), (0.01, 0.5), (3, 40)]:
        kept = frozen.keep_terms(min_df, max_df)
        oracle = CountVectorizer(min_df=min_df, max_df=max_df).fit(texts)
        assert [frozen.terms[i] for i in kept] == oracle.get_feature_names_out().tolist()
    assert len(frozen.keep_terms(min_df=0.99)) == 0  # train says so (test_cli); a search scores it
    n_docs = len(texts)
    assert len(frozen.keep_terms(min_df=n_docs + 1)) == 0  # more than there are: none, as in scikit-learn
    assert len(frozen.keep_terms(min_df=n_docs + 1, max_df=n_docs + 5)) == 0  # refuses only for max_df's sake
    with pytest.raises(DataError, match="max_df keeps fewer documents than min_df"):
        frozen.keep_terms(min_df=5, max_df=3)
    every = CountVectorizer().fit(texts)
    assert frozen.terms == every.get_feature_names_out().tolist()
    assert frozen.documents_per_term().tolist() == (every.transform(texts) > 0).sum(axis=0).A1.tolist()
    top = frozen.keep_terms(max_features=50)
    frequency = frozen.term_counts.sum(axis=0)
    assert len(top) == 50 and frequency[top].min() >= np.sort(frequency)[-50]


@settings(max_examples=50, deadline=None)
@given(
    docs=st.lists(
        st.tuples(st.lists(st.sampled_from("ab bc cd de ef fg".split()), max_size=6), st.sampled_from("xyz")),
        min_size=2, max_size=20,
    ),
    cut=st.integers(0, 20),
)
def test_merged_counts_equal_one_run(docs, cut):
    features, labels = [list(f) for f, _ in docs], [label for _, label in docs]
    cut = min(cut, len(docs))
    whole, first, second = ClassCounts(), ClassCounts(), ClassCounts()
    whole.add(features, labels)
    first.add(features[:cut], labels[:cut])
    second.add(features[cut:], labels[cut:])
    merged, expected = first.finalized().merge(second.finalized()), whole.finalized()
    assert merged.terms == expected.terms and merged.classes == expected.classes
    for name in ("term_counts", "doc_freq", "class_docs"):
        np.testing.assert_array_equal(getattr(merged, name), getattr(expected, name))


@pytest.mark.parametrize("tf, doc_norm", [("raw", None), ("log", "l2")])
def test_batches_folded_into_the_totals_equal_one_batch(mixed_documents, tf, doc_norm):
    """Batch sums are held apart and added to the totals now and then; with a tiny threshold
    that happens after nearly every batch, and the sums are the same, bit for bit."""
    analyzer = Analyzer(ngram_range=(1, 2))
    features, labels = [analyzer(d.text) for d in mixed_documents], [d.label for d in mixed_documents]
    whole, batched = ClassCounts(tf=tf, doc_norm=doc_norm), ClassCounts(tf=tf, doc_norm=doc_norm)
    batched.FOLD_ENTRIES = 500
    whole.add(features, labels)
    for start in range(0, len(features), 97):
        batched.add(features[start:start + 97], labels[start:start + 97])
    assert batched._totals[0].size > 0  # folded mid-stream
    expected, counted = whole.finalized(), batched.finalized()
    assert counted.terms == expected.terms and counted.classes == expected.classes
    np.testing.assert_array_equal(counted.class_docs, expected.class_docs)
    for name in expected.values:
        np.testing.assert_array_equal(counted.dense(name), expected.dense(name))


@settings(max_examples=200, deadline=None)
@given(indices=st.lists(st.integers(0, 999), max_size=300), spare=st.integers(0, 5000))
def test_used_columns_are_numpys_unique_by_mask_or_sort(indices, spare):
    """Few indices among many columns (sorted) or many among few (a mask): np.unique's
    columns and inverse either way."""
    indices = np.array(indices, dtype=np.int64)
    columns, inverse = matrices.used_columns(indices, max(indices, default=-1) + 1 + spare)
    expected, expected_inverse = np.unique(indices, return_inverse=True)
    assert columns.tolist() == expected.tolist() and inverse.tolist() == expected_inverse.tolist()


def test_count_matrix_accepts_dense_and_sparse():
    dense = np.array([[0, 2, 0], [1, 0, 3]])
    for given_matrix in (dense, dense.tolist(), CountMatrix.coerce(dense).to_scipy()):
        matrix = CountMatrix.coerce(given_matrix)
        np.testing.assert_array_equal(matrix.to_scipy().toarray(), dense)
    weights = np.array([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]])
    np.testing.assert_allclose(CountMatrix.coerce(dense).dot_by_feature(weights.T), dense @ weights.T)
    with pytest.raises(TypeError, match="got a string"):
        CountMatrix.coerce("text")


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 5)), max_size=8), max_size=30),
       block=st.integers(1, 12), k=st.integers(1, 4))
def test_dot_equals_dense_product_across_blocks_and_empty_rows(rows, block, k):
    dense = np.zeros((len(rows), 7))
    for i, entries in enumerate(rows):
        for column, count in entries:
            dense[i, column] = count
    weights = np.random.default_rng(len(rows)).normal(size=(k, 7))
    for compiled in {matrices.sparsedot, None}:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(matrices, "sparsedot", compiled)
            patch.setattr(matrices, "DOT_BLOCK", block)  # blocks of a few values: many block edges
            product = CountMatrix.coerce(dense).dot_by_feature(weights.T)
        np.testing.assert_allclose(product, dense @ weights.T, atol=1e-12)


@needs_compiled(matrices.sparsedot, "sparse product")
@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(st.tuples(st.integers(0, 9), st.sampled_from([1.0, 2.0, 0.5, -1.0, 3e-300])),
                              max_size=8), max_size=30),
       weights=st.lists(st.sampled_from([-1.5, -0.0, 0.0, 2.25, 1e300, 0.1, -7.0]), min_size=30, max_size=30),
       width=st.integers(1, 12), k=st.integers(1, 3))
def test_a_product_by_blocks_of_columns_is_the_whole_product_to_the_bit(rows, weights, width, k):
    """The search scores each setting a block of weight rows at a time; every document's sums
    must be the bits dot_by_feature gives, signed zeros included (a document's first product
    is taken as it is, not added to 0.0), whatever blocks and empty documents fall where."""
    dense = np.zeros((len(rows), 10))
    for i, entries in enumerate(rows):
        for column, value in entries:
            dense[i, column] = value
    matrix = CountMatrix.coerce(dense)
    by_feature = np.array(weights[:10 * k]).reshape(10, k)
    blocks = ColumnBlocks.of(matrix, width)
    product = blocks.dot(matrix.data[blocks.order],
                         (by_feature[start:start + width] for start in range(0, 10, width)), k)
    expected = matrix.dot_by_feature(by_feature)
    assert product.shape == expected.shape
    np.testing.assert_array_equal(product.view(np.int64), expected.view(np.int64))


@needs_compiled(matrices.sparsedot, "sparse product")
def test_a_matrix_whose_rows_are_out_of_column_order_is_not_taken_by_blocks():
    """By blocks, a row's values would be added in column order, not in theirs: other bits."""
    matrix = CountMatrix(np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([1.0, 2.0, 3.0]), 3)
    assert ColumnBlocks.of(matrix, 2) is not None
    swapped = CountMatrix(np.array([0, 2, 3]), np.array([2, 0, 1]), np.array([2.0, 1.0, 3.0]), 3)
    assert ColumnBlocks.of(swapped, 2) is None
    assert ColumnBlocks.of(swapped.in_column_order(), 2) is not None


@needs_compiled(matrices.sparsedot, "sparse product")
def test_the_compiled_product_checks_what_it_reads():
    """Called with a column outside the weights, or rows past the values, it raises, not reads."""
    matrix = CountMatrix.coerce(np.array([[0, 2, 0], [1, 0, 3]]))
    weights, out = np.ones((3, 2)), np.zeros((2, 2))
    matrices.sparsedot.dot(matrix.indptr, matrix.indices, matrix.data, weights, 2, out)
    assert out.tolist() == [[2.0, 2.0], [4.0, 4.0]]
    with pytest.raises(IndexError, match="column 2, outside 2 features"):
        matrices.sparsedot.dot(matrix.indptr, matrix.indices, matrix.data, weights[:2], 2, out)
    with pytest.raises(ValueError, match="wrong size"):
        matrices.sparsedot.dot(matrix.indptr + 1, matrix.indices, matrix.data, weights, 2, out)
    with pytest.raises(ValueError, match="wrong size"):
        matrices.sparsedot.dot(matrix.indptr, matrix.indices, matrix.data, weights, 2, out[:1])
    runs = [np.array(a, dtype=np.int64) for a in ([0, 1, 1], [0, 1, 2], [1, 2, 3])]
    started = np.zeros(2, dtype=np.uint8)
    matrices.sparsedot.dot_runs(*runs, matrix.indices, matrix.data, weights, 2, out, started)
    assert out.tolist() == [[2.0, 2.0], [4.0, 4.0]] and started.tolist() == [1, 1]
    for bad_runs, bad_weights in [((runs[0] + 1, *runs[1:]), weights),  # a document past out
                                  ((runs[0], runs[1], runs[2] + 1), weights),  # a run past the values
                                  (runs, weights[:2])]:  # column 2 outside two weight rows
        with pytest.raises(ValueError, match="out of range"):
            matrices.sparsedot.dot_runs(*bad_runs, matrix.indices, matrix.data, bad_weights, 2, out, started)


def test_stop_words_from_a_file(tmp_path):
    path = tmp_path / "stop.txt"
    path.write_text("the\n\nand\n")
    assert load_stop_words(str(path)) == {"the", "and"}
    assert "the" in load_stop_words("english")
    with pytest.raises(DataError, match="cannot read stop-word file"):
        load_stop_words(str(tmp_path / "missing.txt"))


def test_a_stop_word_file_is_read_as_the_text_is(tmp_path):
    """Words written capitalised ("The") never met the lowercased tokens, so they stayed in the
    model without a word; a file not in UTF-8 ended in a UnicodeDecodeError traceback."""
    from nbtext.model import Model

    from .conftest import TICKETS, run

    path = tmp_path / "stop.txt"
    path.write_text("The\nAND\nMy\n")
    run(["train", TICKETS / "train", "--stop-words", path, "-o", tmp_path / "m"])
    words = {word for term in Model.load(tmp_path / "m").terms for word in term.split(" ")}
    assert not {"the", "and", "my"} & words and {"invoice", "parcel"} <= words
    run(["train", TICKETS / "train", "--stop-words", path, "--no-lowercase", "-o", tmp_path / "cased"])
    words = {word for term in Model.load(tmp_path / "cased").terms for word in term.split(" ")}
    assert not {"The", "My"} & words and {"the", "my"} <= words  # as written, where case is kept
    path.write_bytes("der\ndie\nf\u00fcr\n".encode("latin-1"))
    error = run(["train", TICKETS / "train", "--stop-words", path, "-o", tmp_path / "m"], expect=1).stderr
    assert error == (f"Error: stop-word file {path}: not UTF-8 (byte 0xfc at 9); convert it first: iconv -f LATIN1 "
                     "-t UTF-8\n")
    error = run(["train", TICKETS / "train", "--stop-words", "English", "-o", tmp_path / "m"], expect=1).stderr
    assert error.endswith("cannot read stop-word file English: No such file or directory; scikit-learn's list is "
                          "written english\n")


def test_stop_words_of_other_languages_by_name_or_code(tmp_path):
    """A kept list by the language's name or ISO code; a name that is neither a file nor a
    language names the languages known; a file of a language's name is the file."""
    from nbtext.model import Model

    from .conftest import run

    german = load_stop_words("german")
    assert {"und", "der", "die", "nicht"} <= german and load_stop_words("de") == german
    assert load_stop_words("en") == load_stop_words("english") == ENGLISH_STOP_WORDS  # one English list
    assert {"et", "le", "les"} <= load_stop_words("french")
    data = tmp_path / "de.tsv"
    data.write_text("rechnung\tDie Rechnung ist nicht bezahlt und der Betrag fehlt\n"
                    "versand\tDas Paket ist nicht angekommen und die Sendung fehlt\n")
    run(["train", data, "--stop-words", "german", "--ngram-range", "1,1", "-o", tmp_path / "m"])
    assert set(Model.load(tmp_path / "m").terms) == {"rechnung", "bezahlt", "betrag", "fehlt", "paket", "angekommen",
                                                      "sendung"}
    error = run(["train", data, "--stop-words", "klingon", "-o", tmp_path / "m"], expect=1).stderr
    assert error.startswith("Error: cannot read stop-word file klingon: No such file or directory; the languages "
                            "known by name: english, arabic, bulgarian, catalan, ")
    assert ", german, " in error and "english, english" not in error
    error = run(["train", data, "--stop-words", "German", "-o", tmp_path / "m"], expect=1).stderr
    assert error.endswith("; the list of that language is written german\n")
    (tmp_path / "german").write_text("rechnung\n")
    assert load_stop_words(str(tmp_path / "german")) == {"rechnung"}


def test_packed_terms_are_searched_without_unpacking():
    from nbtext.terms import PackedTerms, pack_terms

    terms = sorted({"b", "ab", "abc", "zz", "é", "éa", "日本", "a b", "x" * 300})
    packed = PackedTerms(pack_terms(terms), len(terms))
    for i, term in enumerate(terms):
        assert packed.index_of(term) == i
    for absent in ("", "a", "abd", "zzz", "日", "\uffff"):
        assert packed.index_of(absent) == -1
    assert packed._terms is None  # never unpacked
    assert list(packed) == terms and packed.index_of("zz") == terms.index("zz")


def test_a_term_with_a_newline_is_refused_when_packed():
    from nbtext.terms import PackedTerms, pack_terms

    assert list(PackedTerms(pack_terms(["ant", "bee cat"]), 2)) == ["ant", "bee cat"]
    with pytest.raises(ValueError, match="newline"):
        pack_terms(["ant", "bee\ncat"])


def test_marks_keep_each_emoji_sequence_one_token():
    """A thumb with its skin tone, a family joined by zero-width joiners, two flags, a heart in
    emoji presentation, a keycap and England's flag (tags): each one token, as it reads."""
    england = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    text = f"Great \U0001f44d\U0001f3fd family \U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f1e9\U0001f1ea" \
           f"\U0001f1eb\U0001f1f7 love \u2764\ufe0f press 1\ufe0f\u20e3 {england} \u2122 $5!!"
    assert Analyzer(tokens="marks")(text) == [
        "great", "\U0001f44d\U0001f3fd", "family", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f1e9\U0001f1ea",
        "\U0001f1eb\U0001f1f7", "love", "\u2764\ufe0f", "press", "1\ufe0f\u20e3", england, "\u2122", "$", "5", "!", "!"]


_EMOJI_CHARACTERS = re.compile(r"[\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9\u21aa\u231a\u231b\u2328"
                               r"\u23cf\u23e9-\u23f3\u23f8-\u23fa\u24c2\u25aa\u25ab\u25b6\u25c0\u25fb-\u25fe\u2600-\u27bf"
                               r"\u2934\u2935\u2b05-\u2b07\u2b1b\u2b1c\u2b50\u2b55\u3030\u303d\u3297\u3299\ufe0f\u20e3"
                               r"\u200d\U0001f000-\U0001faff\U000e0020-\U000e007f]")


@settings(max_examples=300, deadline=None)
@given(text=st.text())
def test_marks_read_text_without_emoji_as_before(text):
    from nbtext.analysis import MARKS_BY_CHARACTER, marks

    plain = _EMOJI_CHARACTERS.sub("", text)
    assert marks(plain) == MARKS_BY_CHARACTER.findall(plain)


def test_a_marks_model_trained_before_emoji_sequences_reads_as_it_was_trained(tmp_path):
    """Its analyzer says marks and nothing of emoji sequences: it loads as the hidden kind that
    reads character by character, as it was trained, and is written back so."""
    from nbtext.analysis import MARKS_BY_CHARACTER_KIND
    from nbtext.model import Model

    from .conftest import TICKETS, run

    run(["train", TICKETS / "train", "--tokens", "marks", "--ngram-range", "1,1", "-o", tmp_path / "m"])
    model = Model.load(tmp_path / "m")
    assert model.analyzer.to_dict()["emoji_sequences"] is True
    before = {key: value for key, value in model.analyzer.to_dict().items() if key != "emoji_sequences"}
    old = Analyzer.from_dict(before)
    assert old.tokens == MARKS_BY_CHARACTER_KIND
    assert old("ok \U0001f44d\U0001f3fd") == ["ok", "\U0001f44d", "\U0001f3fd"]
    assert old.to_dict() == before
    assert Analyzer.from_dict(model.analyzer.to_dict())("ok \U0001f44d\U0001f3fd") == ["ok", "\U0001f44d\U0001f3fd"]


def test_cjk_runs_are_read_in_overlapping_pairs():
    """Chinese, Japanese and Korean write no spaces between words: a run of their characters
    gives its pairs, as Lucene's CJK analyzer does; the rest of the text is read as before."""
    read = Analyzer(tokens="all-words")
    assert read("東京都に行く") == ["東京", "京都", "都に", "に行", "行く"]
    assert read("한국어 사전") == ["한국", "국어", "사전"]
    assert read("Python中文, 中 and ﾃｽﾄ") == ["python", "中文", "中", "and", "ﾃｽ", "ｽﾄ"]
    assert read("テスト・データ") == ["テス", "スト", "デー", "ータ"]  # the middle dot is no letter
    assert read("from_王小明 subject") == ["from_王小明", "subject"]  # a header's token is one name
    assert Analyzer()("中 文字") == ["文字"]  # words drops a lone character, as it drops "a"
    assert Analyzer(tokens="marks")("買う！") == ["買う", "！"]
    assert Analyzer(ngram_range=(2, 2))("東京都") == ["東京 京都"]
    assert Analyzer(cjk_bigrams=False)("東京都に行く x") == ["東京都に行く"]


@settings(max_examples=300, deadline=None)
@given(text=st.text())
def test_text_without_cjk_is_read_as_before(text):
    plain = re.sub("[\u1100-\u11ff\u3005-\u3007\u3021-\u3029\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
                   "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uffdc\U00020000-\U0003134f]", "", text)
    for tokens in ("words", "all-words", "joined", "marks"):
        assert Analyzer(tokens=tokens)(plain) == Analyzer(tokens=tokens, cjk_bigrams=False)(plain)


def test_a_model_trained_before_cjk_pairs_reads_runs_whole(tmp_path):
    """Its analyzer says nothing of CJK pairs: it reads each run whole, as it was trained."""
    from nbtext.model import Model

    from .conftest import TICKETS, run

    run(["train", TICKETS / "train", "--ngram-range", "1,1", "-o", tmp_path / "m"])
    settings = Model.load(tmp_path / "m").analyzer.to_dict()
    assert settings["cjk_bigrams"] is True
    old = Analyzer.from_dict({key: value for key, value in settings.items() if key != "cjk_bigrams"})
    assert old.cjk_bigrams is False and old("東京都 ok") == ["東京都", "ok"]
    assert Analyzer.from_dict(settings)("東京都 ok") == ["東京", "京都", "ok"]


def test_chinese_spam_is_read_in_pairs_that_recur():
    """SpamAssassin's Chinese and Korean spam (gb2312, big5, ks_c_5601): read whole, its runs
    are sentences, nearly all seen once; read in pairs, its words recur across messages."""
    cjk = re.compile("[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
    mail = [d.text for d in LabelledCorpus([str(corpus_path("spamassassin-2003"))], input_format="email")
            if len(cjk.findall(d.text)) >= 10]
    assert len(mail) >= 15

    def recurring(analyzer: Analyzer) -> tuple[int, int]:
        seen = [{t for t in analyzer(text) if cjk.search(t)} for text in mail]
        everywhere = [t for tokens in seen for t in tokens]
        return len(everywhere), sum(everywhere.count(t) > 1 for t in set(everywhere))

    pairs, runs = recurring(Analyzer(tokens="all-words")), recurring(Analyzer(tokens="all-words", cjk_bigrams=False))
    assert pairs[1] > 300 and pairs[1] > 5 * runs[1]  # 378 distinct tokens in two messages or more, against 53
    assert {"網路", "電話", "公司"} <= {t for text in mail for t in Analyzer()(text)}

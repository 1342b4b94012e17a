"""The bundle a user saves: analyzer settings, per-class counts, NB settings and a summary.

The file holds plain data and numpy arrays only (no pickled classes), so loading it needs to
import nothing but numpy's array machinery, and a file that asks for anything else is refused
before it can run code. The NB core is rebuilt from the counts on load, so a model file is
also mergeable with another one.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import os
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import modelfile
from ._version import __version__
from .analysis import TOKEN_PATTERNS, Analyzer
from .calibration import platt_scaled, tempered
from .checks import array_of, check_settings, check_summary, checked, indices_within, smoothing
from .combining import CHI_SQUARE, chi_square_evidence, chi_square_log_proba
from .cores import available_cores
from .counting import FrozenCounts, weigh_rows
from .errors import DataError, ModelError, NbtextError
from .limits import MAX_ALPHA
from .matrices import ColumnMatrix, CountMatrix
from .classifier import logsumexp
from .naive_bayes import VARIANTS, NaiveBayes
from .terms import PackedTerms, count_features, pack_terms, sorted_position
from .vectorizing import AnyTable, TokenClash, fixed_table, supports

if TYPE_CHECKING:  # a model with columns imports them when loaded: a text model's predict never does
    from .tabular import ColumnScorer, ColumnSums, Values

FORMAT = "nbtext-model"
#: 2: the file holds a checksum of everything else in it (``modelfile.checksum``). Files of
#: format 1, which hold none, are read as they were. 3: it may hold numeric and categorical
#: columns (``tabular.ColumnSums``); a model without them is still written in format 2, which
#: older nbtext reads.
FORMAT_VERSION = 3
#: Characters of text a scoring thread gets at least: below that, starting it costs more
#: than it saves.
THREAD_CHARACTERS = 1 << 16


class Model:
    """A trained text classifier: analyzer + vocabulary + Naive Bayes core + summary.

    Parameters
    ----------
    analyzer : Analyzer
        How text becomes features.
    counts : FrozenCounts
        Per-class sums over every term seen in training (before pruning, so that models can
        be merged and pruned again).
    settings : dict
        ``variant``, ``alpha``, ``fit_prior``, ``norm`` (Complement only), ``idf`` (weigh
        terms by inverse document frequency), ``min_df``, ``max_df``, ``max_features``, for a
        spam filter ``spam`` (see ``spam.SpamFilter``), and for a calibrated model
        ``calibration`` (its ``temperature``, see ``calibration.train_calibrated``). How
        documents were weighted before summing (``tf``, ``doc_norm``) belongs to ``counts``.
    summary : dict
        What the user should know about the training run (plain data).
    """

    #: Chosen by measurement on every shared corpus (benchmarks/defaults.py; docs/accuracy.md):
    #: Complement NB, alpha 0.2, over log(1 + tf) word uni- and bigrams, with neither length
    #: norm nor IDF (they cost up to 2 points on short texts), every term kept.
    DEFAULT_SETTINGS: dict[str, Any] = {
        "variant": "complement", "alpha": 0.2, "fit_prior": True, "norm": False,
        "idf": False, "min_df": 1, "max_df": 1.0, "max_features": None, "spam": None,
        "calibration": None,
    }

    def __init__(
        self,
        analyzer: Analyzer,
        counts: FrozenCounts,
        settings: dict[str, Any] | None = None,
        summary: dict[str, Any] | None = None,
        *,
        kept: np.ndarray | None = None,
        terms: Sequence[str] | None = None,
        statistic: ColumnMatrix | None = None,
        idf: np.ndarray | None = None,
        columns: ColumnSums | None = None,
    ) -> None:
        unknown = set(settings or {}) - set(self.DEFAULT_SETTINGS)
        if unknown:
            raise ValueError(_unknown_settings(sorted(unknown), self.DEFAULT_SETTINGS))
        self.analyzer = analyzer
        self.counts = counts
        #: What the model learnt of a table's numeric and categorical columns, or None.
        self.columns = None if columns is None else columns.aligned(counts.classes)
        self.settings = {**self.DEFAULT_SETTINGS, **(settings or {})}
        self.summary = summary or {}
        #: Sorted digests (``text_digest``) of the texts trained on, one a document, repeats kept;
        #: None where not known (a library caller's documents, a file from before they were kept).
        #: eval tells by them which of its documents the model was trained on.
        self.texts: np.ndarray | None = None
        #: The file the model was loaded from (messages name it), or None.
        self.source: str | None = None
        s = self.settings
        if s["variant"] not in VARIANTS:
            raise ModelError(f"unknown variant {s['variant']!r}; use one of {sorted(VARIANTS)}")
        # The cores take scikit-learn's alpha, 0 included; a model's smoothing is above 0 (at 0 a
        # word one class never had rules it out) and bounded (limits.MAX_ALPHA says why).
        if not smoothing(s["alpha"]):
            raise ModelError(f"`alpha` must be a number above 0 and at most {MAX_ALPHA:g}, got {s['alpha']!r}")
        if kept is None:
            kept = counts.keep_terms(s["min_df"], s["max_df"], s["max_features"])
        self._kept = kept
        self._terms = terms
        # Bernoulli NB models presence; the others take the (transformed) sums.
        self._weigh = s["variant"] != "bernoulli" and (counts.tf != "raw" or counts.doc_norm or s["idf"])
        if statistic is None:
            if s["idf"] and s["variant"] != "bernoulli":
                idf = counts.idf()[kept]
            name = "doc_freq" if s["variant"] == "bernoulli" else counts.statistic_name()
            statistic = counts.columns(name, kept, idf)
        self._idf = idf
        self._statistic = statistic
        params = {"alpha": s["alpha"], "fit_prior": s["fit_prior"]}
        if s["variant"] == "complement":
            params["norm"] = s["norm"]
        self.core: NaiveBayes = VARIANTS[s["variant"]](**params).fit_counts(
            statistic, counts.class_docs, classes=np.array(counts.classes, dtype=object)
        )
        self._vocabulary: dict[str, int] | None = None
        self._looked_up = 0
        self._word_table: AnyTable | None = None
        self._table_possible = supports(analyzer)
        self._characters_read = 0
        #: Threads that score a large input, its numpy work running side by side (None: one
        #: per core). Set it to 1 where processes already share the cores.
        self.threads: int | None = None

    @classmethod
    def columns_key(cls, settings: dict[str, Any]) -> tuple:
        """What of ``settings`` decides a model's columns, their sums and how a document's counts
        are weighed before scoring: pruning, Bernoulli NB or not, and IDF. Models of the same
        counts whose settings have the same key can share them (``alike``)."""
        s = {**cls.DEFAULT_SETTINGS, **settings}
        bernoulli = s["variant"] == "bernoulli"
        return s["min_df"], s["max_df"], s["max_features"], bernoulli, bool(s["idf"]) and not bernoulli

    def alike(self, settings: dict[str, Any]) -> Model:
        """A model of the same counts with ``settings``, whose ``columns_key`` must be this
        one's: it shares this model's kept terms, sums and IDF, and ``restrict`` gives the same
        for both, so that a search builds them once for the alphas and variants it tries."""
        if self.columns_key(settings) != self.columns_key(self.settings):
            raise ValueError("settings that prune, weigh or count otherwise make other columns")
        return Model(self.analyzer, self.counts, settings, kept=self._kept, terms=self._terms,
                     statistic=self._statistic, idf=self._idf, columns=self.columns)

    @property
    def terms(self) -> Sequence[str]:
        """The model's terms, one a column, in sorted order. Made from the counts' terms when
        first asked for: a search scores its models by column and never needs them (a list of
        a million terms costs 50 ms)."""
        if self._terms is None:
            every = self.counts.terms
            self._terms = every if len(self._kept) == len(every) else [every[i] for i in self._kept]
        return self._terms

    @property
    def vocabulary(self) -> dict[str, int]:
        """Term -> column; built on first use (a fresh process classifying one short document
        looks its few words up in the sorted term list instead)."""
        if self._vocabulary is None:
            self._vocabulary = dict(zip(self.terms, range(len(self.terms))))
        return self._vocabulary

    @property
    def classes(self) -> list[str]:
        return list(self.counts.classes)

    def vectorize(self, texts: Iterable[str]) -> CountMatrix:
        """Documents x vocabulary counts for ``texts`` (unknown features are ignored)."""
        texts = _texts(texts)
        return self._counted(self._table_for(texts), texts)

    def _counted(self, table: AnyTable | None, texts: Sequence[str]) -> CountMatrix:
        """``vectorize``, by the word ``table`` where there is one and it can count ``texts``."""
        if table is not None:
            try:
                return self._weighed(table.count(texts))
            except TokenClash:  # two of the batch's words share a hash: count them the plain way
                pass
        features = [self.analyzer(text) for text in texts]
        if table is None and self._vocabulary is None and self._looked_up + sum(map(len, features)) >= self._dict_mark:
            # Where the dict of every term would be built, the word table is built instead: it
            # costs about as much and counts the rest of the stream faster. Building both made
            # 100 news posts as slow to classify as 7,500 (half a second and 160 MB for the dict).
            table = self._built_table()
            if table is not None:
                return self._counted(table, texts)
        return self._weighed(self._looked_up_counts(features))

    def _table_for(self, texts: Sequence[str]) -> AnyTable | None:
        """The word table, built once a stream has read a sixteenth as many characters as there
        are terms (before that, a short document is looked up word by word for less than the
        table costs to build)."""
        if self._word_table is None:
            self._characters_read += sum(map(len, texts))
            if self._characters_read >= len(self.terms) // 16:
                self._built_table()
        return self._word_table

    def _built_table(self) -> AnyTable | None:
        """The word table, built now if it is not yet and can be."""
        if self._word_table is None and self._table_possible:
            try:
                self._word_table = fixed_table(self.analyzer, self.terms)
            except TokenClash:  # two of the model's words share a hash: count them the plain way
                self._table_possible = False
        return self._word_table

    def vectorize_features(self, features: Sequence[Sequence[str]]) -> CountMatrix:
        """Documents x vocabulary (transformed) counts of already analyzed documents."""
        return self._weighed(self._looked_up_counts(features))

    @property
    def _dict_mark(self) -> int:
        """How many features looked up (since loading) pay for building the dict of every term."""
        # A binary search per feature (about 15 microseconds in Python) beats hashing every term
        # (half a second for a million) while the features looked up so far are fewer than
        # terms / 64: one short document; a stream of batches soon pays for the dict.
        return len(self.terms) // 64

    def _looked_up_counts(self, features: Sequence[Sequence[str]]) -> CountMatrix:
        """Counts of ``features``, each looked up among the terms by binary search or in the dict."""
        self._looked_up += sum(map(len, features))
        if self._vocabulary is None and self._looked_up < self._dict_mark:
            return count_features(features, _SortedLookup(self.terms), n_known=len(self.terms))
        return count_features(features, self.vocabulary)

    def restrict(self, matrix: CountMatrix) -> CountMatrix:
        """Documents counted over every term of ``self.counts`` (``count_features`` against
        those terms) -> this model's columns, weighted: what ``vectorize_features`` gives for
        them, with no string looked up, so that one count serves every setting a search tries."""
        column = np.full(len(self.counts.terms), -1, dtype=np.int64)
        column[self._kept] = np.arange(len(self._kept))
        return self._weighed(matrix.remapped(column, len(self._kept)))

    def _weighed(self, matrix: CountMatrix) -> CountMatrix:
        if not self._weigh:
            return matrix
        return weigh_rows(matrix, tf=self.counts.tf, doc_norm=self.counts.doc_norm, column_weights=self._idf)

    def predict_log_proba(self, texts: Iterable[str], values: Sequence[Values | None] | None = None) -> np.ndarray:
        """Log-probability of each class (in ``classes`` order) for each text; tempered when
        the model was trained with ``--calibrate``, and for a spam filter, its calibrated
        spam score (``SpamFilter.calibrated``). For a model with numeric or categorical
        columns, ``values`` holds each text's (``Document.values``; a column without a value,
        or no values at all, is left out: summed out, as Naive Bayes allows)."""
        texts = _texts(texts)
        table = self._table_for(texts)
        threads, blocks = self._thread_blocks(texts) if table is not None else (1, [texts])
        score = functools.partial(self._scored, table)
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor  # here: 6 ms a one-document predict does not use

            with ThreadPoolExecutor(threads) as pool:
                log_proba = np.concatenate(list(pool.map(score, blocks)))
        else:
            log_proba = score(texts)
        return self._calibrated(self._with_columns(log_proba, values))

    def _with_columns(self, log_proba: np.ndarray, values: Sequence[Values | None] | None) -> np.ndarray:
        """The text core's ``log_proba`` with the columns' log-likelihoods added (``tabular``'s
        formula): its joint log-likelihood up to a constant for each document, which the
        normalising takes out. Complement NB's text scores hold no prior, so the model's is
        added, once; the other cores' hold it."""
        if self.columns is None:
            return log_proba
        if values is not None and len(values) != len(log_proba):
            raise ValueError(f"{len(values)} rows of values for {len(log_proba)} texts")
        return self.with_column_scores(log_proba, self._column_scorer.joint(values, len(log_proba)))

    def with_column_scores(self, log_proba: np.ndarray, column_jll: np.ndarray) -> np.ndarray:
        """The text core's ``log_proba`` joined with columns' log-likelihoods (documents x
        classes, no prior: ``tabular.ColumnScorer.joint``), normalised: ``_with_columns``, for
        columns scored apart (a search scores each fold's once for all its settings)."""
        jll = log_proba + column_jll + self._prior_with_columns()
        return jll - logsumexp(jll)[:, None]

    def _prior_with_columns(self) -> np.ndarray | float:
        """The prior joining columns adds: Complement NB's text scores hold none, the others' do."""
        if self.settings["variant"] == "complement" and len(self.classes) > 1:
            return self.core.class_log_prior_
        return 0.0

    @functools.cached_property
    def _column_scorer(self) -> ColumnScorer:
        from .tabular import ColumnScorer

        assert self.columns is not None
        return ColumnScorer(self.columns)

    def values_of(self, documents: Sequence[Any]) -> list[Values | None] | None:
        """The ``values`` of ``documents`` to score them by; None for a model without columns."""
        return None if self.columns is None else [doc.values for doc in documents]

    def unseen_values(self, values: Sequence[Values | None]) -> Counter[str]:
        """How many of ``values``' categories each categorical column never had in training."""
        return Counter() if self.columns is None else self._column_scorer.unseen(values)

    def _calibrated(self, log_proba: np.ndarray) -> np.ndarray:
        """The core's ``log_proba`` as the model answers: tempered, or a filter's spam score."""
        if self.settings["calibration"]:
            log_proba = tempered(log_proba, self.settings["calibration"]["temperature"])
        spam = self.settings["spam"]
        if spam:  # a filter's calibrated spam score (spam.SpamFilter), the other classes sharing the rest
            log_proba = platt_scaled(log_proba, self.classes.index(spam["label"]), spam["slope"], spam["intercept"])
        return log_proba

    def predict_proba(self, texts: Iterable[str], values: Sequence[Values | None] | None = None) -> np.ndarray:
        """Probability of each class (in ``classes`` order) for each text: the figures
        ``nbtext predict --proba`` prints, ``exp`` of ``predict_log_proba``."""
        return np.exp(self.predict_log_proba(texts, values))

    def scored_as_empty(self, log_proba: np.ndarray) -> np.ndarray:
        """Which rows of ``log_proba`` (from ``predict_log_proba``) are the model's answer to an
        empty document: the texts in which it found no word it knows. Their answer is the class
        priors (or, with Complement NB, even odds), not evidence."""
        return (log_proba == self.empty_log_proba).all(axis=1)

    @property
    def empty_answer(self) -> str:
        """What the read report says the model answers an empty document, or one with no word
        it knows: its core's answer, or for a spam filter, the calibrated score it gives it
        (not even odds) and the class that score makes it."""
        spam = self.settings["spam"]
        if not spam:
            return self.core.empty_answer
        row = self.empty_log_proba
        score = float(np.exp(row[self.classes.index(spam["label"])]))
        return f"no words to go by: scored {score:.6f}, {self.classes[int(np.argmax(row))]}"

    @functools.cached_property
    def empty_log_proba(self) -> np.ndarray:
        """The model's answer to an empty document (one row of ``predict_log_proba``)."""
        return self.predict_log_proba([""])[0]

    def _scored(self, table: AnyTable | None, texts: Sequence[str]) -> np.ndarray:
        return self.answer_counts(self._counted(table, texts))

    def answer_counts(self, matrix: CountMatrix) -> np.ndarray:
        """The core's log-probabilities of documents counted over the model's columns
        (``restrict``'s); a filter that combines by chi-square gives its score to the spam class."""
        log_proba = self.core.predict_log_proba(matrix)
        if (column := self._chi_square_column) is not None:
            return chi_square_log_proba(log_proba, matrix, self._doc_freq, self.counts.class_docs, column)
        return log_proba

    @property
    def _chi_square_column(self) -> int | None:
        """The spam class's column where the model is a filter that combines by chi-square, else None."""
        spam = self.settings["spam"]
        return self.classes.index(spam["label"]) if spam and spam.get("combining") == CHI_SQUARE else None

    @functools.cached_property
    def _doc_freq(self) -> ColumnMatrix:
        """How many training documents of each class hold each column's term: made once, not each batch."""
        return self.counts.columns("doc_freq", self._kept)

    def _thread_blocks(self, texts: Sequence[str]) -> tuple[int, list[Sequence[str]]]:
        """How many threads score ``texts`` (counted by the word table), and the blocks they
        share: four per thread, of about equal characters (so that no thread waits long for
        another), each of at least THREAD_CHARACTERS. The table's counting is numpy work on
        long arrays, which lets other threads run; the plain path would hold the interpreter
        lock, so it is never split."""
        if len(texts) < 2 or self.threads == 1:
            return 1, [texts]
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        if lengths.sum() < 2 * THREAD_CHARACTERS:
            return 1, [texts]
        threads = available_cores() if self.threads is None else self.threads
        n = int(min(4 * threads, lengths.sum() // THREAD_CHARACTERS))
        ends = np.cumsum(lengths)
        cuts = [0, *np.searchsorted(ends, ends[-1] * np.arange(1, n) / n).tolist(), len(texts)]
        return min(threads, n), [texts[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]

    def predict(self, texts: Iterable[str], values: Sequence[Values | None] | None = None) -> list[str]:
        """The most probable label of each text (and its ``values``, for a model with columns)."""
        return [self.classes[i] for i in np.argmax(self.predict_log_proba(texts, values), axis=1)]

    def top_words(self, k: int = 20, labels: Sequence[str] | None = None) -> dict[str, list[tuple[str, float]]]:
        """For each class (of ``labels``, where given), the ``k`` words that raise it most, with
        the variant's score (see ``NaiveBayes.top_features``).

        A DataError for a label that is no class of the model (naming the likeliest one meant),
        and a ModelError for a model that hashes its features: it keeps no words to show.

        >>> import nbtext
        >>> model = nbtext.train([nbtext.Document("cheap pills", "spam", "1"),
        ...                       nbtext.Document("lunch at noon", "ham", "2")])
        >>> [word for word, _ in model.top_words(2, ["spam"])["spam"]]
        ['cheap', 'cheap pills']
        """
        if self.analyzer.hash_features is not None and self.summary.get("terms_seen", 1):
            raise ModelError(f"{self.source or 'the model'} hashes its features into "
                             f"{self.analyzer.hash_features:,} buckets (`hash_features`): it keeps no words, so "
                             "none can be shown. Train without `hash_features` to inspect words.")
        unknown = sorted(set(labels or ()) - set(self.classes))
        if unknown:
            close = difflib.get_close_matches(unknown[0], self.classes, n=1)
            meant = f" (did you mean {close[0]}?)" if close else ""
            raise DataError(f"no class {', '.join(unknown)} in the model{meant}; it has: {', '.join(self.classes)}")
        return {
            label: [(self.terms[i], float(score)) for i, score in zip(*best)]
            for label, best in zip(self.classes, self.core.top_features(k))
            if not labels or label in labels
        }

    def linear_form(self) -> dict[str, Any]:
        """The model as a linear one, with all it takes to use it without nbtext (what ``nbtext
        export`` writes): a document's joint log-likelihood of class c is ``W[c] . x + b[c]``,
        plus its columns' log-likelihoods for a model with columns, normalised over the classes.

        ``x`` is over ``terms``: each term's count in the document's features (``analyzer``),
        then ``tf`` (``log``: log(1 + count); ``binary``: 1 where present), then ``doc_norm``
        (``l2``: divided by the row's Euclidean norm), then times ``idf`` where it is given;
        ``presence`` (Bernoulli NB): 1 where present, untransformed. ``calibration`` is a
        temperature the normalised scores are divided by (and normalised again), ``spam`` a
        filter's Platt scaling of its spam class's log-odds; both keep the best class.

        Examples
        --------
        >>> import nbtext
        >>> model = nbtext.train([nbtext.Document("cheap pills", "spam", "1"),
        ...                       nbtext.Document("lunch at noon", "ham", "2")], settings={"variant": "multinomial"})
        >>> form = model.linear_form()
        >>> x = np.zeros(len(form["terms"]))
        >>> x[form["terms"].index("cheap")] = np.log1p(1)  # tf log
        >>> jll = form["weights"] @ x + form["bias"]
        >>> bool(np.allclose(jll - np.logaddexp.reduce(jll), model.predict_log_proba(["cheap"])[0]))
        True
        """
        if self.analyzer.hash_features is not None:
            raise ModelError(f"{self.source or 'the model'} hashes its features into buckets (`hash_features`): it "
                             "keeps no words to export. Train without `hash_features` to export it.")
        spam = self.settings["spam"]
        if self._chi_square_column is not None:  # not a sum of weights: no linear form holds it
            raise ModelError(f"{self.source or 'the model'} combines its words by chi-square (`combining`), which a "
                             "linear model cannot give. Train the filter with naive Bayes' combining to export it.")
        weights, bias = self.core.linear_form()
        if self.columns is not None:
            bias = bias + self._prior_with_columns()
        presence = self.settings["variant"] == "bernoulli"
        form: dict[str, Any] = {
            "classes": self.classes, "terms": list(self.terms), "weights": weights, "bias": bias,
            "analyzer": self.analyzer.to_dict(), "presence": presence,
            "token_pattern": TOKEN_PATTERNS.get(self.analyzer.tokens) if self.analyzer.analyzer == "word" else None,
            "tf": None if presence else self.counts.tf, "doc_norm": None if presence else self.counts.doc_norm,
            "idf": None if presence or self._idf is None else np.asarray(self._idf, dtype=np.float64),
            "calibration": (self.settings["calibration"] or {}).get("temperature"),
            "spam": None if not spam else {key: spam[key] for key in ("label", "slope", "intercept", "spam_cutoff",
                                                                        "ham_cutoff")},
            "columns": None,
        }
        if self.columns is not None:
            form["columns"] = self._column_scorer.linear_parts()
        return form

    def column_profile(self, k: int = 5, labels: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
        """For a model with numeric or categorical columns, for each class (of ``labels``, where
        given): each numeric column's mean and standard deviation, and each categorical column's
        ``k`` values that raise the class most, with by how much (``ColumnScorer.profile``);
        empty for a model without columns."""
        if self.columns is None:
            return {}
        return {label: part for label, part in self._column_scorer.profile(k).items() if not labels or label in labels}

    def explain(self, texts: Iterable[str], k: int = 10, *, log_proba: np.ndarray | None = None,
                against: Sequence[str] | None = None, values: Sequence[Values | None] | None = None
                ) -> list[Explanation]:
        """Why each text got its label: the ``k`` features of the text that raise the label
        most over the runner-up, with by how much, most first (what ``predict --explain``
        prints). A feature's weight is its weighed count times the difference of the two
        classes' weights, in nats; every feature's, with the log-odds of an empty text, add
        up to the model's log-odds of the two classes. A hashed model names a bucket by the
        text's own features in it. In a filter that combines by chi-square, a word weighs the
        log-odds of its spamicity where it is evidence, 0 elsewhere (``combining``).

        Parameters
        ----------
        texts : iterable of str
            The documents.
        k : int
            Features per text at most.
        log_proba : array, optional
            The texts' ``predict_log_proba``, where it was computed already: the label and the
            runner-up are its two best classes.
        against : sequence of str, optional
            A class for each text to weigh the label against instead of the runner-up (its
            true class, where the label is wrong).
        values : sequence of mappings, optional
            Each text's numeric and categorical values, for a model with columns: every column a
            text has a value in is weighed beside its ``k`` words, named ``column=value``.

        Returns
        -------
        list of Explanation
            One a text: ``(label, against, terms)``, ``terms`` a list of (feature, weight).

        Examples
        --------
        >>> import nbtext
        >>> docs = [nbtext.Document("free cash now", "spam", "1"), nbtext.Document("see you at lunch", "ham", "2")]
        >>> label, against, terms = nbtext.train(docs).explain(["free lunch now"])[0]
        >>> label, against, [(term, round(weight, 4)) for term, weight in terms]
        ('spam', 'ham', [('free', 1.1843), ('now', 1.1843), ('lunch', -0.8902)])
        """
        texts = _texts(texts)
        if len(self.classes) < 2:
            raise ValueError("a model of one class has no runner-up to weigh its label against")
        counts = self.vectorize(texts)
        if log_proba is None:  # from the same counts, not counted again
            log_proba = self._calibrated(self._with_columns(self.answer_counts(counts), values))
        order = np.argsort(-log_proba, axis=1, kind="stable")
        if against is not None:
            column = {label: i for i, label in enumerate(self.classes)}
            unknown = [label for label in against if label not in column]
            if unknown or len(against) != len(texts):
                raise ValueError(f"no class {unknown[0]!r} in the model" if unknown else
                                 f"{len(against)} classes to weigh against for {len(texts)} texts")
            order[:, 1] = [column[label] for label in against]
        if (spam_column := self._chi_square_column) is not None:  # the words of chi-square evidence, as they weigh
            weighed = chi_square_evidence(counts, self._doc_freq, self.counts.class_docs, spam_column, order[:, 0],
                                          order[:, 1])
        else:
            weighed = self.core.contributions(counts, order[:, 0], order[:, 1])
        explained = []
        for d, text in enumerate(texts):
            part = slice(weighed.indptr[d], weighed.indptr[d + 1])
            columns, weights = weighed.indices[part], weighed.data[part]
            best = np.lexsort((columns, -weights))[:k]  # ties by column: the same order in any batch
            names = self.analyzer.bucket_members(text) if self.analyzer.hash_features is not None else None
            terms = [self.terms[j] if names is None else " | ".join(names[self.terms[j]]) for j in columns[best]]
            found = list(zip(terms, weights[best].tolist()))
            if self.columns is not None and values is not None:  # every column beside the k words, by weight
                found += [(name, float(scores[order[d, 0]] - scores[order[d, 1]]))
                          for name, scores in self._column_scorer.per_column(values[d])]
                found.sort(key=lambda term: -term[1])
            explained.append(Explanation(self.classes[order[d, 0]], self.classes[order[d, 1]], found))
        return explained

    # --- persistence ---------------------------------------------------------------------

    def to_payload(self) -> dict[str, Any]:
        """The model as a model file holds it: plain data and arrays, and their checksum last."""
        payload = self._content()
        payload["checksum"] = f"{modelfile.checksum(payload):08x}"  # of one width: the file's size is the data's
        return payload

    def _content(self) -> dict[str, Any]:
        packed = pack_terms(self.terms)
        packed_ends = PackedTerms(packed, len(self.terms)).ends()
        packed_ends = packed_ends.astype(np.int32 if len(packed) < 2**31 else np.int64)
        return _one_of_each_string({
            "format": FORMAT,
            "format_version": 2 if self.columns is None else FORMAT_VERSION,
            "nbtext_version": __version__,
            "analyzer": self.analyzer.to_dict(),
            "settings": dict(self.settings),
            "counts": self.counts.to_dict(),
            # What pruning kept, so that loading need not unpack every term seen, with where each
            # kept term ends, so that looking a word up needs no pass over them all.
            "kept": {"index": self._kept.astype(np.int64), "terms": packed, "term_ends": packed_ends,
                     "statistic": self._statistic.to_dict(), "idf": self._idf},
            "summary": self.summary,
            **({} if self.texts is None else {"texts": self.texts}),
            **({} if self.columns is None else {"columns": self.columns.to_dict()}),
        })

    def save(self, path: str | os.PathLike) -> None:
        """Write the model atomically, under the model's lock (``modelfile.save``): a crash never
        leaves a half-written file at ``path``, and a file replaced keeps its mode."""
        modelfile.save(self.to_payload(), os.fspath(path))

    @classmethod
    def load(cls, path: str | os.PathLike) -> Model:
        """Read a model file; refuse files that would run code, explain broken ones in one line."""
        payload = modelfile.load(os.fspath(path))
        model = cls.from_payload(payload, os.fspath(path))
        model.source = os.fspath(path)
        return model

    @classmethod
    def with_file_facts(cls, path: str | os.PathLike) -> tuple[Model, dict[str, Any]]:
        """The model at ``path``, and what its file says of it (what ``nbtext info`` shows beside
        the model): its size in bytes, and the nbtext version and model format that wrote it."""
        payload = modelfile.load(os.fspath(path))
        model = cls.from_payload(payload, os.fspath(path))
        model.source = os.fspath(path)
        return model, {"bytes": os.path.getsize(path), "nbtext_version": payload.get("nbtext_version"),
                       "format_version": payload.get("format_version")}

    @classmethod
    def from_payload(cls, payload: Any, source: str = "model") -> Model:
        """The model a model file's ``payload`` holds; a ModelError, in one line, where it is no
        model, a newer format's, or damaged: a checksum that does not match (a flipped bit), or
        parts not of the shapes, types, lengths and ranges nbtext writes."""
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise ModelError(f"{source}: not an nbtext model file")
        version = payload.get("format_version")
        if type(version) is not int or version > FORMAT_VERSION:
            raise ModelError(
                f"{source}: made by nbtext {payload.get('nbtext_version')} in model format {version}; "
                f"this nbtext {__version__} reads format {FORMAT_VERSION} or older: upgrade nbtext"
            )
        if version < 2 and "statistic" not in (payload.get("kept") or {}):  # the first day's layouts
            raise ModelError(f"{source}: written by an early build of nbtext, in a layout this nbtext "
                             f"{__version__} does not read: train the model again")
        try:
            if version >= 2:
                content = {key: value for key, value in payload.items() if key != "checksum"}
                if payload.get("checksum") != f"{modelfile.checksum(content):08x}":
                    raise ValueError("its checksum does not match what it holds: bytes of the file have changed "
                                     "since nbtext wrote it")
            return cls._of_checked(payload)
        except (KeyError, TypeError, ValueError, IndexError, NbtextError) as error:
            what = str(error) if isinstance(error, (ValueError, NbtextError)) else f"{type(error).__name__}: {error}"
            raise ModelError(f"{source}: damaged nbtext model ({what}); train it again, or restore it from a "
                             "copy") from None

    @classmethod
    def _of_checked(cls, payload: dict[str, Any]) -> Model:
        """The model of ``payload``, each part checked as it is read (``checked``'s ValueError)."""
        checked(set(payload) >= _PAYLOAD_KEYS and set(payload) <= _PAYLOAD_KEYS | {"texts", "checksum", "columns"},
                "the file", f"the parts {sorted(_PAYLOAD_KEYS)}")
        counts = FrozenCounts.from_dict(payload["counts"])
        kept = payload["kept"]
        checked(isinstance(kept, dict) and set(kept) <= {"index", "terms", "term_ends", "statistic", "idf"}
                and {"index", "terms", "statistic", "idf"} <= set(kept), "kept",
                "index, terms, term_ends, statistic and idf")
        index = array_of(kept["index"], "kept.index", np.int64)
        indices_within(index, len(counts.terms), "kept.index")
        checked(bool(np.all(np.diff(index) > 0)), "kept.index", "in order")
        statistic = ColumnMatrix.from_dict(kept["statistic"], "kept.statistic")
        checked(statistic.shape == (len(counts.classes), len(index)), "kept.statistic",
                f"a {len(counts.classes)} x {len(index)} matrix")
        idf = kept["idf"]
        if idf is not None:
            checked(bool(np.all(array_of(idf, "kept.idf", np.float64, len(index)) > 0)), "kept.idf", "positive")
        check_settings(payload["settings"], counts.classes, float(counts.class_docs.sum()) if len(index) else None)
        check_summary(payload["summary"])
        columns = None
        if payload.get("columns") is not None:
            from .tabular import ColumnSums

            columns = ColumnSums.from_dict(payload["columns"])
        model = cls(Analyzer.from_dict(payload["analyzer"]), counts, payload["settings"], payload["summary"],
                    kept=index, terms=PackedTerms.stored(kept["terms"], len(index), kept.get("term_ends"),
                                                         "kept.terms"),
                    statistic=statistic, idf=idf, columns=columns)
        model.texts = _texts_stored(payload.get("texts"))
        return model


#: The parts every model file has.
_PAYLOAD_KEYS = {"format", "format_version", "nbtext_version", "analyzer", "settings", "counts", "kept", "summary"}


def _unknown_settings(unknown: list[str], known: Iterable[str]) -> str:
    """What to say of settings a Model does not have: its own, and where the others belong."""
    message = f"unknown model settings {unknown}; use {sorted(known)}"
    analyzer_keys = {f.name for f in dataclasses.fields(Analyzer)}
    for key in unknown:
        if key in analyzer_keys:
            message += f"; {key} is the analyzer's: train(..., analyzer=Analyzer({key}=...))"
        elif key in ("tf", "doc_norm"):  # how each document's counts are weighed
            message += f"; {key} is train's own: train(..., {key}=...)"
    return message


def _texts_stored(texts: Any) -> np.ndarray | None:
    """A model file's digests of the texts it was trained on; a ValueError where they are not
    what a model writes."""
    if texts is not None and not (isinstance(texts, np.ndarray) and texts.dtype == np.uint64 and texts.ndim == 1):
        raise ValueError("texts: not an array of 64-bit digests")
    return texts


def trained_texts(digests: Sequence[int] | np.ndarray | array) -> np.ndarray:
    """``Model.texts`` of documents with these ``text_digest``s: a list, an array, or a read
    report's array of them (copied whole, not one number at a time)."""
    return np.sort(np.array(digests, dtype=np.uint64))


def with_texts(texts: np.ndarray | None, digests: Sequence[int] | np.ndarray | array, *,
               remove: bool = False) -> np.ndarray | None:
    """``Model.texts`` with the documents of these digests added, or taken out (one each, as
    their counts are); None stays None: what the model was trained on before is not known."""
    if texts is None:
        return None
    change = trained_texts(digests)
    if not remove:
        return trained_texts(np.concatenate([texts, change]))
    values, counts = np.unique(texts, return_counts=True)
    taken, times = np.unique(change, return_counts=True)
    at = np.searchsorted(values, taken)
    held = at < len(values)
    held[held] = values[at[held]] == taken[held]
    counts[at[held]] -= np.minimum(times[held], counts[at[held]])
    return np.repeat(values, counts)


def _one_of_each_string(value: Any, strings: dict[str, str] | None = None) -> Any:
    """``value``'s dicts, lists and tuples rebuilt with each set of equal strings as one object.
    A pickle writes an object it has written before as a reference to it, so a label typed as
    ``--spam-label spam``, another object than the ``spam`` read from a folder's name, made the
    same model other bytes (numpy arrays are kept as they are)."""
    strings = {} if strings is None else strings
    if type(value) is str:
        return strings.setdefault(value, value)
    if type(value) is dict:
        return {_one_of_each_string(key, strings): _one_of_each_string(item, strings) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_one_of_each_string(item, strings) for item in value)
    return value


def _texts(texts: Iterable[str]) -> Sequence[str]:
    """``texts`` as a list or tuple (a generator is read once, here, so nothing is lost to the
    checks), with a TypeError for one string given where a list of documents belongs, or for a
    document that is not a string (None, a number, undecoded bytes)."""
    if isinstance(texts, str):
        raise TypeError("texts must be a list of documents, not one string")
    texts = texts if isinstance(texts, (list, tuple)) else list(texts)
    if not all(isinstance(text, str) for text in texts):
        i, text = next((i, text) for i, text in enumerate(texts) if not isinstance(text, str))
        fix = "; decode bytes first" if isinstance(text, (bytes, bytearray)) else ""
        raise TypeError(f"texts[{i}] is {type(text).__name__}, not a string{fix}")
    return texts


class Explanation(NamedTuple):
    """Why ``Model.explain`` gave a text its label."""

    label: str
    #: The runner-up: the class the terms' weights are measured against.
    against: str
    #: The text's features that raise ``label`` most over ``against``, with by how much.
    terms: list[tuple[str, float]]


class _SortedLookup:
    """``dict.get`` over sorted terms by binary search, for a handful of lookups."""

    def __init__(self, terms: Sequence[str]) -> None:
        self.terms = terms

    def get(self, term: str, default: int = -1) -> int:
        return sorted_position(self.terms, term, default)

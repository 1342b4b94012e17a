"""Training: a model from a stream of labelled documents, with a held-out part or a fitted
temperature where asked; a model updated with more documents, or merged from models of parts.

Only the per-class counts are kept, never the documents, so memory grows with the vocabulary
and not with the corpus (held-out training and calibration hold them, to score them again).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .analysis import CJK_RUN, Analyzer
from .batches import (
    BATCH_SIZE,
    batched,
    count_batches,
    labelled,
    read_ahead,
    workers_start_after,
)
from .calibration import fit_temperature, log_loss, reliability, tempered
from .cores import available_cores
from .counting import DF_CONFLICT, FrozenCounts
from .errors import DataError, OptionsError
from .folds import held_out, labelled_for_folds, out_of_fold
from .metrics import evaluate, seen_by_text
from .model import Model, trained_texts, with_texts
from .modelfile import locked
from .parallel import count_in_processes, read_all
from .phrasing import plural
from .readers import Document, Reading
from .readers.corpus import LabelledCorpus
from .readers.document import document_digest, labels_of
from .tabular import ColumnSums, describe
from .terms import PackedTerms


def count_all(documents: Iterable[Document], analyzer: Analyzer, *, tf: str, doc_norm: str | None,
              jobs: int | None = 1) -> FrozenCounts:
    """The counts of the labelled ``documents``: the same, bit for bit, however many processes
    count them.

    ``jobs`` > 1 starts that many - 1 worker processes after the first batch, which count
    beside this one; ``None`` means one per core, started once more than
    ``workers_start_after(analyzer)`` bytes have come. When ``documents`` is a corpus's
    Reading, the workers read the folders' files themselves, and parse the messages of mbox
    files and maildirs.
    """
    if jobs == 1 or (jobs is None and available_cores() == 1):
        return count_batches(read_ahead(labelled(batch, None) for batch in batched(documents)), analyzer, tf=tf,
                             doc_norm=doc_norm)
    if isinstance(documents, Reading):
        batches, report = documents.batches(BATCH_SIZE), documents.report
    else:
        batches, report = batched(documents), None
    return count_in_processes(batches, analyzer, tf=tf, doc_norm=doc_norm, jobs=jobs or available_cores(),
                              report=report, start_after=workers_start_after(analyzer) if jobs is None else 0)


#: The analyzer and document transforms of nbtext's defaults (see Model.DEFAULT_SETTINGS).
DEFAULT_ANALYZER = Analyzer(ngram_range=(1, 2), tokens="all-words")
DEFAULT_TF, DEFAULT_DOC_NORM = "log", None


def default_tokens(analyzer: str) -> str:
    """The tokens nbtext's defaults give ``analyzer``: the defaults' own for words; for
    character n-grams, which find no words and refuse other tokens, the Analyzer's."""
    return DEFAULT_ANALYZER.tokens if analyzer == "word" else Analyzer.tokens


def check_pruning(min_df: int | float | None, max_df: int | float | None) -> None:
    """An OptionsError where ``max_df`` keeps fewer documents than ``min_df`` asks for whatever
    the data: both counts, or both shares. Known before the data is read, so said before."""
    if min_df is not None and max_df is not None and isinstance(min_df, int) == isinstance(max_df, int) \
            and max_df < min_df:
        raise OptionsError(DF_CONFLICT)


def train(
    documents: Iterable[Document],
    *,
    analyzer: Analyzer | None = None,
    tf: str = DEFAULT_TF,
    doc_norm: str | None = DEFAULT_DOC_NORM,
    settings: dict[str, Any] | None = None,
    summary: dict[str, Any] | None = None,
    jobs: int | None = 1,
    numeric_columns: Sequence[str] = (),
    categorical_columns: Sequence[str] = (),
) -> Model:
    """A Model trained on labelled ``documents``.

    ``tf`` and ``doc_norm`` say how each document's counts are transformed before they are
    summed per class (see ``counting.weigh_rows``); ``settings`` are the Model's. ``jobs``
    processes count (see ``count_all``; None: one per core, for large data).
    ``numeric_columns`` and ``categorical_columns`` name the documents' ``values`` the model
    learns beside their words (a corpus read with such columns names its own), as Gaussian and
    Categorical Naive Bayes features (``tabular``).

    Examples
    --------
    >>> docs = [Document("cheap pills now", "spam", "a"), Document("lunch at noon?", "ham", "b"),
    ...         Document("cheap cheap offer", "spam", "c"), Document("notes from lunch", "ham", "d")]
    >>> model = train(docs)
    >>> model.predict(["a cheap offer", "lunch notes"])
    ['spam', 'ham']
    >>> model.summary["documents_per_class"]
    {'ham': 2, 'spam': 2}
    """
    analyzer = analyzer or DEFAULT_ANALYZER
    names = value_columns(documents, numeric_columns, categorical_columns)
    documents, read_whole, read_from = _reading(documents)
    values = ValueSums(*names)
    counts = count_all(values.taken_from(documents), analyzer, tf=tf, doc_norm=doc_norm, jobs=jobs)
    model = assembled(counts, values.sums, analyzer=analyzer, settings=settings,
                      summary={**read_from, **(summary or {})}, names=names, texts=read_whole())
    several = documents.report.repeated()[1] if isinstance(documents, Reading) else 0
    if several:  # what info says, and the way predict gives such a model's labels
        model.summary["several_labels"] = several
    return model


def assembled(counts: FrozenCounts, columns: ColumnSums | None, *, analyzer: Analyzer,
              settings: dict[str, Any] | None, summary: dict[str, Any], names: tuple[Sequence[str], Sequence[str]],
              texts: np.ndarray) -> Model:
    """The model of counted documents: their counts, the sums of their ``names`` columns
    (numeric, categorical), what the model records of where they came from, and their texts'
    digests; a DataError where they are fewer than two classes."""
    if not counts.classes:
        raise DataError("no documents to train on")
    if len(counts.classes) < 2:
        raise DataError(f"only one class ({counts.classes[0]!r}) in the training data; need at least two")
    model = finished(Model(analyzer, counts, settings, _used_columns(summary, *names), columns=columns))
    model.texts = texts
    return model


def _reading(documents: Iterable[Document]) -> tuple[Iterable[Document], Callable[[], np.ndarray], dict[str, Any]]:
    """The documents to count; what, once they are counted, checks that a corpus's every DATA
    gave a document (``LabelledCorpus.check_all_read``) and gives the digests of their texts
    (``Model.texts``), which a corpus's report takes as it reads (its worker processes' too),
    and which are made here for other documents as they pass; and what a model records of where
    the documents came from (a corpus's ``summary``; nothing for others)."""
    if isinstance(documents, LabelledCorpus):
        documents = documents.read()
    if isinstance(documents, Reading):
        reading = documents

        def read_whole() -> np.ndarray:
            reading.corpus.check_all_read()  # before a model is made: it would lack a DATA named
            return trained_texts(reading.report.texts)

        return reading, read_whole, reading.corpus.summary
    digests = array("Q")

    def digested() -> Iterator[Document]:
        for doc in documents:
            if isinstance(doc, Document):  # else labels_of says what is wrong with it
                digests.append(document_digest(doc))
            yield doc

    return digested(), lambda: trained_texts(digests), {}


def value_columns(documents: Iterable[Document], numeric: Sequence[str],
                  categorical: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The numeric and categorical columns to learn: those named, else those a corpus reads."""
    if not (numeric or categorical) and isinstance(documents, (LabelledCorpus, Reading)):
        corpus = documents if isinstance(documents, LabelledCorpus) else documents.corpus
        if corpus.columns is not None:
            return corpus.columns.numeric, corpus.columns.categorical
    return tuple(numeric), tuple(categorical)


def _used_columns(summary: dict[str, Any], numeric: Sequence[str], categorical: Sequence[str]) -> dict[str, Any]:
    """``summary`` with the numeric and categorical columns the model learns, where the corpus
    read others (a search's setting may leave some out): what reads its new tables."""
    columns = summary.get("columns")
    if not columns or (list(numeric), list(categorical)) == (columns.get("numeric", []),
                                                               columns.get("categorical", [])):
        return summary
    kept = {key: value for key, value in columns.items() if key not in ("numeric", "categorical", "text_optional")}
    if numeric or categorical:
        kept.update(numeric=list(numeric), categorical=list(categorical),
                    text_optional=columns.get("text_optional", False))
    return {**summary, "columns": kept}


class ValueSums:
    """The ``ColumnSums`` of documents' values, taken as the documents pass on to be counted:
    ``sums`` once they have (None where no column is named)."""

    def __init__(self, numeric: Sequence[str], categorical: Sequence[str]) -> None:
        self.numeric, self.categorical = tuple(numeric), tuple(categorical)
        self.sums: ColumnSums | None = None

    def taken_from(self, documents: Iterable[Document]) -> Iterable[Document]:
        if not (self.numeric or self.categorical):
            return documents
        return self._passing(documents)

    def _passing(self, documents: Iterable[Document]) -> Iterator[Document]:
        for batch in batched(documents):
            labelled_ones = [doc for doc in batch if isinstance(doc, Document) and doc.label is not None]
            part = ColumnSums.of([str(doc.label) for doc in labelled_ones], [doc.values for doc in labelled_ones],
                                 self.numeric, self.categorical)
            self.sums = part if self.sums is None else self.sums.merge(part)
            yield from batch


def held_documents(documents: Iterable[Document], jobs: int | None = None) -> tuple[list[Document], dict[str, Any]]:
    """Every document, held in memory (``parallel.read_all``: a corpus's read by ``jobs``
    processes where that pays), and what a model records of where they came from (a corpus's
    ``summary``; nothing for other documents)."""
    if isinstance(documents, LabelledCorpus):
        documents = documents.read()
    summary = documents.corpus.summary if isinstance(documents, Reading) else {}
    return read_all(documents, jobs), summary


def digests_of(documents: Iterable[Document]) -> np.ndarray:
    """``Model.texts`` of a model trained on ``documents`` (held in memory): their texts' digests."""
    return trained_texts([document_digest(doc) for doc in documents])


def held_already(model: Model, digests: Iterable[int] | np.ndarray) -> int:
    """How many of the documents of these text digests ``model`` was trained on already (the
    same text), by the digests it keeps; 0 where it keeps none (a file from before them)."""
    digests = np.asarray(list(digests) if not isinstance(digests, np.ndarray) else digests, dtype=np.uint64)
    if model.texts is None or not len(digests):
        return 0
    return int(np.isin(digests, model.texts).sum())


def train_held_out(documents: Iterable[Document], *, fraction: float, seed: int = 0,
                   analyzer: Analyzer | None = None, tf: str = DEFAULT_TF, doc_norm: str | None = DEFAULT_DOC_NORM,
                   settings: dict[str, Any] | None = None, summary: dict[str, Any] | None = None,
                   numeric_columns: Sequence[str] = (),
                   categorical_columns: Sequence[str] = ()) -> tuple[Model, dict[str, Any]]:
    """A model of all but a stratified ``fraction`` of ``documents``, and its evaluation on that
    part (``metrics.evaluate``, with how many held-out texts the model was trained on a copy of,
    and the accuracy on the others). The model's summary keeps the held-out score, and the
    classes too small for their share to round to a document.

    Examples
    --------
    >>> docs = [Document(f"cheap pills {i}", "spam", f"s{i}") for i in range(5)]
    >>> docs += [Document(f"lunch at noon {i}", "ham", f"h{i}") for i in range(5)]
    >>> model, report = train_held_out(docs, fraction=0.2)
    >>> report["n_documents"], model.summary["documents"], model.summary["held_out"]["accuracy"]
    (2, 8, 1.0)
    """
    numeric, categorical = value_columns(documents, numeric_columns, categorical_columns)
    documents, read_from = held_documents(documents)
    summary = {**read_from, **(summary or {})}
    mask = held_out(labels_of(documents), fraction, seed)
    kept = [doc for doc, out in zip(documents, mask) if not out]
    test = [doc for doc, out in zip(documents, mask) if out]
    model = train(kept, analyzer=analyzer, settings=settings, summary=summary, tf=tf, doc_norm=doc_norm,
                  numeric_columns=numeric, categorical_columns=categorical)
    y_true, log_proba = labels_of(test), model.predict_log_proba([doc.text for doc in test], model.values_of(test))
    report = evaluate(y_true, log_proba, model.classes)
    # A held-out document with a copy among the kept ones scores as one the model learnt by heart.
    digests = np.array([document_digest(doc) for doc in test], dtype=np.uint64)
    report.update(seen_by_text(y_true, log_proba, model.classes, digests, model.texts))
    tested = {doc.label for doc in test}
    untested = {label: n for label, n in sorted(Counter(doc.label for doc in documents).items())
                if label not in tested}
    model.summary["held_out"] = {"fraction": fraction, "seed": seed, "accuracy": report["accuracy"],
                                 "macro_f1": report["macro_f1"], "n_documents": report["n_documents"],
                                 "untested": untested, "seen_in_training": report["seen_in_training"],
                                 "unseen_accuracy": report["unseen_accuracy"]}
    return model, report


def finished(model: Model) -> Model:
    """``model`` with its summary; a DataError where it has no term to go by, which would
    classify every document by the class priors alone. The summary holds no time, so that the
    same documents always give the same model bytes."""
    counts = model.counts
    documents = int(counts.class_docs.sum())
    if len(model.terms) == 0 and (model.columns is None or len(counts.terms)):  # a table's columns without text
        if len(counts.terms):
            df = counts.documents_per_term()
            terms = f"{len(df):,} {plural(len(df), 'term')}"
            raise DataError(f"no terms remain after pruning: the {terms} read are each in {int(df.min()):,} to "
                            f"{int(df.max()):,} of the {documents:,} {plural(documents, 'document')}; "
                            "lower `min_df` or raise `max_df`")
        raise DataError(f"no words to learn from in the {documents:,} {plural(documents, 'document')} read")
    model.summary = {
        **model.summary,
        "documents": documents,
        "documents_per_class": {c: int(n) for c, n in zip(counts.classes, counts.class_docs)},
        "vocabulary_size": len(model.terms),
        "terms_seen": len(counts.terms),
    }
    return model


def update(model: Model, documents: Iterable[Document], *, settings: dict[str, Any] | None = None,
           remove: bool = False, jobs: int | None = 1) -> Model:
    """``model`` with ``documents`` added: equal to training on the old and new data at once.

    New words grow the vocabulary; pruning (``min_df`` ...) is redone over all the counts.
    With ``remove`` the documents, added before, are taken out again exactly (see
    ``FrozenCounts.subtract``); a DataError where that would take every document of a class.
    """
    change = counts_for(model, documents, jobs=jobs, remove=remove)
    return with_counts(model, change, settings=settings, remove=remove)


class Counted(NamedTuple):
    """Documents counted as a model counts them: their words' counts, and their columns' sums
    where the model has columns."""

    counts: FrozenCounts
    columns: ColumnSums | None


def counts_for(model: Model, documents: Iterable[Document], *, jobs: int | None = 1,
               remove: bool = False) -> Counted:
    """The counts of ``documents`` as ``model`` counts them (its analyzer, weighting and
    columns): what ``with_counts`` adds to it, or to the model as it is by then (a file another
    writer changed meanwhile), so that a long read holds no lock. A DataError where there are
    none: a wrong folder in a nightly job must not pass as an update."""
    values = ValueSums(*((model.columns.numeric, model.columns.categorical) if model.columns else ((), ())))
    change = count_all(values.taken_from(documents), model.analyzer, tf=model.counts.tf,
                       doc_norm=model.counts.doc_norm, jobs=jobs)
    if not change.classes:
        raise DataError(f"no documents to {'remove' if remove else 'add'}; the model is unchanged")
    return Counted(change, values.sums)


def with_counts(model: Model, change: Counted, *, settings: dict[str, Any] | None = None,
                remove: bool = False) -> Model:
    """``model`` with the counts ``change`` (``counts_for``) added, or with ``remove`` taken out."""
    words, column_change = change
    if (words.tf, words.doc_norm) != (model.counts.tf, model.counts.doc_norm):
        raise DataError("the documents were counted otherwise than the model counts them: count them with "
                        "counts_for(model, documents)")
    counts = model.counts.subtract(words) if remove else model.counts.merge(words)
    columns = model.columns
    if columns is not None and column_change is not None:
        columns = columns.subtract(column_change) if remove else columns.merge(column_change)
    emptied = sorted(set(model.counts.classes) - set(counts.classes))
    if emptied:  # a filter without its spam class, or a model of one class, could not classify
        named = ", ".join(map(repr, emptied))
        raise DataError(f"unlearning these would leave no documents in {plural(len(emptied), 'class')}"
                        f" {named}; the model is unchanged")
    return _rebuild(model, counts, settings, columns)


@dataclass
class Update:
    """What ``update_file`` did: the model it wrote, the model the documents were added to (the
    file as it was under the lock), and how many of the documents that one held already."""

    model: Model
    before: Model
    repeats: int


def update_file(path: str, documents: Iterable[Document], *, base: Model | None = None, output: str | None = None,
                settings: dict[str, Any] | None = None, jobs: int | None = 1) -> Update:
    """Add labelled ``documents`` to the model file at ``path`` and write the result to
    ``output`` (``path`` itself by default), as ``train --update`` does.

    The documents are counted first, as ``base`` counts them (the file as loaded before them,
    which gives how to read them: its analyzer, columns and input format); then, under the
    model's lock, they are added to the file as it is by then, which a ``learn`` may have changed
    meanwhile, and the result written atomically. So a long read holds no lock, and no other
    writer's change is lost. ``settings`` given replace the model's (new pruning, say).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.joblib")
    >>> train([Document("cheap pills", "spam", "1"), Document("lunch at noon", "ham", "2")]).save(path)
    >>> update_file(path, [Document("cheap cash", "spam", "3")]).model.summary["documents"]
    3
    """
    output = output or path
    base = base or Model.load(path)
    documents, texts, read_from = _reading(documents)
    change = counts_for(base, documents, jobs=jobs)
    added = texts()
    with contextlib.ExitStack() as held:
        current = base
        if os.path.realpath(output) == os.path.realpath(path):
            held.enter_context(locked(path))
            current = Model.load(path)
        model = with_counts(current, change, settings=settings)
        model.summary["inputs"] = model.summary.get("inputs", []) + read_from.get("inputs", [])
        model.texts = with_texts(current.texts, added)
        model.save(output)
    return Update(model, current, held_already(current, added))


@dataclass
class Merged:
    """What ``merge_files`` made, and what to say of it: the classes some models lack (with the
    paths of those that have them), the DATA two models were both trained on (two paths), and the
    models trained with other settings than the merged model has (path, theirs, the merged one's)."""

    model: Model
    models: list[Model]
    only_in: list[tuple[tuple[str, ...], list[str]]]
    trained_twice: list[tuple[str, str, str]]
    other_settings: list[tuple[str, dict[str, Any], dict[str, Any]]]


def merge_files(paths: Sequence[str], output: str, *, settings: dict[str, Any] | None = None) -> Merged:
    """The models at ``paths`` merged (``merge``) and written to ``output``, under its lock (it
    may be one of them, which a ``learn`` must not change meanwhile); with what to say of the
    merge: what ``Merged`` holds, each told, not refused (a folder filled afresh each day is
    merge's use, and a Multinomial part merged into a Complement one adds up fine).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> parts = [os.path.join(folder, name) for name in ("a.joblib", "b.joblib")]
    >>> train([Document("cheap pills", "spam", "1"), Document("lunch at noon", "ham", "2")]).save(parts[0])
    >>> train([Document("cheap cash", "spam", "3"), Document("a late bus", "bus", "4")]).save(parts[1])
    >>> merged = merge_files(parts, os.path.join(folder, "all.joblib"))
    >>> merged.model.summary["documents"], [labels for _, labels in merged.only_in]  # each in one part only
    (4, [['ham'], ['bus']])
    """
    with locked(output):
        models = [Model.load(path) for path in paths]
        merged = merge(models, settings=settings)
        merged.save(output)
    only_in: dict[tuple[str, ...], list[str]] = {}
    for label in merged.classes:  # a class folder named Spam/ in one part and spam/ in another, say
        holders = tuple(path for path, model in zip(paths, models) if label in model.classes)
        if len(holders) < len(paths):
            only_in.setdefault(holders, []).append(label)
    ordered = sorted(only_in.items(), key=lambda group: [list(paths).index(path) for path in group[0]])
    trained_on: dict[str, str] = {}
    twice = []
    for path, model in zip(paths, models):
        for data in model.summary.get("inputs", []):
            if data in trained_on and data != "-":
                twice.append((path, trained_on[data], data))
            trained_on.setdefault(data, path)
    # The first model's settings are the merged model's, but for the pruning given to merge.
    chosen = {key: value for key, value in models[0].settings.items()
              if key not in ("spam", "calibration") and key not in (settings or {})}
    other = []
    for path, model in zip(paths[1:], models[1:]):
        differ = [key for key, value in chosen.items() if model.settings[key] != value]
        if differ:
            other.append((path, {key: model.settings[key] for key in differ}, {key: chosen[key] for key in differ}))
    return Merged(merged, models, ordered, twice, other)


def merge(models: list[Model], *, settings: dict[str, Any] | None = None) -> Model:
    """One model from several trained on separate data with the same analyzer.

    Counts are added, then pruned with the first model's settings (or ``settings``), so the
    vocabulary is the same however the data were split.
    """
    first, *rest = models
    analyzer = _merged_analyzer(models)
    counts, columns = first.counts, first.columns
    for other in rest:
        if (columns is None) != (other.columns is None) or (columns and other.columns
                                                            and not columns.same_columns(other.columns)):
            raise DataError(f"cannot merge models of other columns: {describe(columns)} against "
                            f"{describe(other.columns)}")
        if columns is not None and other.columns is not None:
            columns = columns.merge(other.columns)
        counts = counts.merge(other.counts)
    merged = _rebuild(first, counts, settings, columns, analyzer=analyzer)
    # Trained on every part's data; a held-out or tuned score was one part's, not the whole's.
    merged.summary["inputs"] = list(dict.fromkeys(data for model in models for data in model.summary.get("inputs", [])))
    for key in ("held_out", "tuned"):
        merged.summary.pop(key, None)
    several = max(model.summary.get("several_labels", 0) for model in models)  # at least so many: texts may repeat
    if several:
        merged.summary["several_labels"] = several
    learned: Counter[str] = Counter()
    for model in models:
        learned.update(model.summary.get("learned", {}))
    if any(learned.values()):
        merged.summary["learned"] = {label: n for label, n in learned.items() if n}
    texts = [model.texts for model in models]
    if all(part is not None for part in texts):
        merged.texts = trained_texts(np.concatenate(texts))
    return merged


def _merged_analyzer(models: list[Model]) -> Analyzer:
    """The analyzer the ``models`` share; a DataError naming what differs where they do not. A
    model trained before CJK runs were read in pairs reads them whole: merged with one that
    reads pairs, where neither ever saw a CJK character (their counts are what either reading
    gives), the merged model reads pairs."""
    analyzer = models[0].analyzer
    for other in models[1:]:
        pairs = dataclasses.replace(analyzer, cjk_bigrams=True)
        if other.analyzer != analyzer and dataclasses.replace(other.analyzer, cjk_bigrams=True) == pairs and not any(
                CJK_RUN.search(_joined(model.counts.terms)) for model in models):
            analyzer = pairs
        elif other.analyzer != analyzer:
            mine, theirs = analyzer.to_dict(), other.analyzer.to_dict()
            differ = "; ".join(f"{key} {mine.get(key)} vs {theirs.get(key)}"
                               for key in sorted(mine.keys() | theirs.keys()) if mine.get(key) != theirs.get(key))
            raise DataError(f"cannot merge models whose analyzers differ: {differ}")
    return analyzer


def _joined(terms: Sequence[str]) -> str:
    """Every term, one a line, in one string (a model's packed terms without a string each)."""
    return terms.blob.tobytes().decode("utf-8", "surrogatepass") if isinstance(terms, PackedTerms) else "\n".join(terms)


def _rebuild(model: Model, counts: FrozenCounts, settings: dict[str, Any] | None,
             columns: ColumnSums | None, *, analyzer: Analyzer | None = None) -> Model:
    # The training time an older file stored would be stale: files store none now.
    summary = {key: value for key, value in model.summary.items() if key != "seconds"}
    merged = Model(analyzer or model.analyzer, counts, {**model.settings, **(settings or {})}, summary,
                   columns=columns)
    return finished(merged)


def train_calibrated(documents: Iterable[Document], *, analyzer: Analyzer, tf: str, doc_norm: str | None,
                     settings: dict[str, Any] | None = None, summary: dict[str, Any] | None = None,
                     folds: int = 5, seed: int = 0) -> Model:
    """A model trained on labelled ``documents`` (held in memory) with a temperature fitted on
    out-of-fold predictions of stratified ``folds``-fold cross-validation.

    Its counts equal ``training.train``'s on the same documents; its predictions are the same,
    its probabilities tempered. The out-of-fold log loss and ECE before and after are kept.

    Examples
    --------
    >>> docs = [Document(f"cheap pills {i}", "spam", f"s{i}") for i in range(5)]
    >>> docs += [Document(f"lunch at noon {i}", "ham", f"h{i}") for i in range(5)]
    >>> model = train_calibrated(docs, analyzer=DEFAULT_ANALYZER, tf="log", doc_norm=None)
    >>> model.predict(["cheap pills"]), sorted(model.settings["calibration"])
    (['spam'], ['ece', 'folds', 'log_loss', 'seed', 'temperature'])
    """
    documents, read_from = held_documents(documents)
    summary = {**read_from, **(summary or {})}
    documents, labels, classes = labelled_for_folds(documents, folds, "`calibrate`")
    counts, log_proba = out_of_fold(documents, labels, analyzer, tf=tf, doc_norm=doc_norm,
                                    settings=settings, folds=folds, seed=seed)
    number = {label: i for i, label in enumerate(classes)}
    truth = np.array([number[label] for label in labels])
    temperature = fit_temperature(log_proba, truth)
    calibrated = tempered(log_proba, temperature)
    calibration = {
        "temperature": temperature, "folds": folds, "seed": seed,
        "log_loss": {"before": log_loss(log_proba, truth), "after": log_loss(calibrated, truth)},
        "ece": {"before": reliability(log_proba, truth)["ece"], "after": reliability(calibrated, truth)["ece"]},
    }
    model = finished(Model(analyzer, counts, {**(settings or {}), "calibration": calibration}, summary))
    model.texts = digests_of(documents)
    return model

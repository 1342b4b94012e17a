"""The counting loop that training and worker processes share: documents in batches, each read
(where it came unread) and counted against one growing vocabulary, the next batches' tokens found
meanwhile by a second thread; and when worker processes are worth starting."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence

from .analysis import Analyzer
from .cores import run_ahead
from .counting import ClassCounts, FrozenCounts
from .readers.corpus import UNREAD, FileBatch, MailBatch
from .readers.document import Document, labels_of
from .readers.report import ReadReport
from .vectorizing.vectorizer import Vectorizer, supports

BATCH_SIZE = 1000


_Batch = tuple[list[str], list[str]]


#: With ``jobs=None``, worker processes join in only past this many bytes of documents, where
#: the word path counts: below it one process, with its reading and token-finding threads, is as
#: fast or faster, since starting workers and merging their counts costs more than it saves
#: (measured in benchmarks/speed.py).
PROCESSES_AFTER_BYTES = 64 << 20


def workers_start_after(analyzer: Analyzer) -> int:
    """Bytes of documents after which worker processes join in by default: PROCESSES_AFTER_BYTES
    where the word path counts (in C, beside threads that read and find tokens; hashed or not),
    none where the analyzer takes the plain path (a Python string per feature, on one core:
    character n-grams where the compiled scanner was not built), which workers pay for from the
    first batch (measured when word trigrams took that path: 20news trained with --ngram-range
    1,3 in 14.5 to 15.0 s with two processes against 16.5 to 16.9 s with one)."""
    return PROCESSES_AFTER_BYTES if supports(analyzer) else 0


def batched(documents: Iterable[Document]) -> Iterator[list[Document]]:
    stream = iter(documents)
    return iter(lambda: list(itertools.islice(stream, BATCH_SIZE)), [])


def labelled(batch: list[Document] | FileBatch | MailBatch, report: ReadReport | None) -> _Batch:
    """The (texts, labels) of a batch, reading a FileBatch's files or parsing a MailBatch's
    messages into ``report``; a DataError for a document without a label."""
    if isinstance(batch, UNREAD):
        assert report is not None, "an unread batch is read into a report"
        batch = list(batch.read(report))
    labels = labels_of(batch)
    return [doc.text for doc in batch], labels


def read_ahead(batches: Iterable[_Batch], ahead: int = 2) -> Iterator[_Batch]:
    """``batches`` in order, read by a second thread up to ``ahead`` batches before they are
    asked for, so that reading files overlaps counting. A reader's error is raised here, in
    place of the batch it was reading."""
    stream = iter(batches)
    for _, read in run_ahead(itertools.repeat(stream), lambda stream: next(stream, None), ahead):
        if (batch := read.result()) is None:
            return
        yield batch


def count_batches(batches: Iterable[tuple[Sequence[str], Sequence[str]]], analyzer: Analyzer, *, tf: str,
                  doc_norm: str | None, ahead: bool = True) -> FrozenCounts:
    """The counts of ``batches`` of (texts, labels), in this process; with ``ahead``, a second
    thread finds the next batches' tokens meanwhile."""
    vectorize = Vectorizer(analyzer)
    counts = ClassCounts(tf=tf, doc_norm=doc_norm, vocabulary=vectorize.vocabulary)
    for matrix, labels in vectorize.counted(batches, ahead=ahead):
        counts.add_counts(matrix, labels)
    return counts.finalized()

"""Training and batch scoring on a Dask cluster (the optional extra ``nbtext[dask]``).

Naive Bayes statistics are sums, so each worker reads and counts its shard of the document
files and the client adds the shards' counts up. The sums are exact (``counting.on_grid``) and
merged counts are kept in sorted order, so the model equals local training bit for bit,
whatever the sharding and whichever worker finishes first. A shard's task is pure: when a
worker dies, Dask runs the task again elsewhere and its counts are still added exactly once.

Workers read the paths themselves, so every worker must see DATA at the same path (a shared
filesystem); a worker that cannot read a file fails the run with the path and the worker named.
"""

from __future__ import annotations

import copy
import itertools
import socket
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from .analysis import Analyzer
from .counting import FrozenCounts
from .errors import DataError, NbtextError
from .limits import MAX_DOCUMENT_BYTES, MAX_PROCESSES
from .model import Model, trained_texts
from .readers import Document, FileBatch, LabelledCorpus, ReadReport, note_unread
from .readers.files import GONE, UNREADABLE, not_found
from .readers.folders import Entry, list_folder
from .training import count_all, finished

#: What predict makes of one batch of documents (its output lines, and what it noticed).
Answers = TypeVar("Answers")

#: Bytes of documents per training shard: big enough to amortise a task, small enough that a
#: lost worker costs little.
SHARD_BYTES = 8 * 2**20
#: Files per scoring task, and how many tasks may be in flight per worker.
PREDICT_FILES = 512
IN_FLIGHT_PER_WORKER = 3


def connect(address: str):
    """A ``distributed.Client``: ``local[:N]`` starts a LocalCluster of N worker processes
    (default: one per core), anything else is a scheduler address such as tcp://host:8786."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise NbtextError("`dask` needs Dask distributed: pip install 'nbtext[dask]'") from None
    if address == "local" or address.startswith("local:"):
        _, _, count = address.partition(":")
        try:
            workers = int(count) if count else None
        except ValueError:
            raise DataError(f"`dask` {address}: expected local or local:N, e.g. local:2") from None
        if workers is not None and not 1 <= workers <= MAX_PROCESSES:
            raise DataError(f"`dask` {address}: a local cluster of 1 to {MAX_PROCESSES} worker processes")
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster)
    try:
        return Client(address, timeout="10s")
    except OSError as error:
        raise DataError(f"`dask` {address}: cannot reach the scheduler ({error})") from None
    except (ValueError, TypeError) as error:  # "missing port number in address", an unknown protocol
        raise DataError(f"`dask` {address}: not a scheduler address ({error}); expected one such as "
                        "tcp://HOST:8786, or local[:N]") from None


def shard_entries(entries: Sequence[Entry], shard_bytes: int = SHARD_BYTES) -> list[list[Entry]]:
    """Consecutive runs of document files of about ``shard_bytes`` each.

    >>> [len(s) for s in shard_entries([("a", "x", 5), ("b", "x", 5), ("c", "y", 5)], shard_bytes=10)]
    [2, 1]
    """
    shards: list[list[Entry]] = []
    current: list[Entry] = []
    size = 0
    for entry in entries:
        current.append(entry)
        size += entry[2]
        if size >= shard_bytes:
            shards.append(current)
            current, size = [], 0
    if current:
        shards.append(current)
    return shards


def count_shard(entries: list[Entry], mail: bool, encoding: str, analyzer: dict[str, Any], tf: str,
                doc_norm: str | None, limit: int | None = MAX_DOCUMENT_BYTES) -> tuple[FrozenCounts, ReadReport]:
    """On a worker: read and count one shard of labelled document files."""
    analyze = Analyzer.from_dict(analyzer)
    documents, report = _read_on_worker(entries, mail, encoding, analyze.headers, limit)
    return count_all(documents, analyze, tf=tf, doc_norm=doc_norm), report


def _read_on_worker(entries: list[Entry], mail: bool, encoding: str, headers: Sequence[str],
                    limit: int | None) -> tuple[list[Document], ReadReport]:
    """The documents of some files, read by this worker; a file it cannot see is a DataError:
    where a single machine skips and counts a file gone since it was listed, a worker that
    cannot read the listed files most likely does not see the client's filesystem, and
    skipping would train on whatever part it does see."""
    report = ReadReport()
    documents = list(FileBatch(entries, mail, encoding, tuple(headers), limit).read(report))
    for reason, paths in report.skipped.items():
        if reason == GONE or reason.startswith(UNREADABLE):
            raise DataError(f"worker {socket.gethostname()} cannot read {paths[0]}: {reason} "
                            "(every worker must see the files at the same path)")
    return documents, report


def plan_training(corpus: LabelledCorpus) -> tuple[list[Entry], bool]:
    """The document files of a corpus and whether they are mail; DataError for other formats."""
    entries: list[Entry] = []
    kinds = set()
    for path, fmt, listed in corpus.plan:
        if fmt not in ("folder", "email"):
            email = "; `input_format` email reads each message of its mbox files" if fmt == "mbox" else ""
            raise DataError(f"{path}: `dask` reads folder-per-class data (DIR/LABEL/FILE, plain or mail); "
                            f"this is {fmt or 'a line file'}{email}")
        kinds.add(fmt)
        entries += listed
    if len(kinds) > 1:
        raise DataError("`dask`: DATA mixes plain folders and mail folders; give one kind")
    return entries, kinds == {"email"}


def train_on_cluster(
    client,
    corpus: LabelledCorpus,
    *,
    analyzer: Analyzer,
    tf: str,
    doc_norm: str | None,
    settings: dict[str, Any] | None = None,
    summary: dict[str, Any] | None = None,
    shard_bytes: int = SHARD_BYTES,
    on_shard: Callable[[int], None] | None = None,
) -> Model:
    """A model trained on ``corpus`` by the workers of ``client``; pruning after the merge. It
    equals ``training.train``'s on the same corpus, and records the corpus as it does.

    ``on_shard`` is called with the bytes of each shard as its counts arrive.
    """
    from distributed import as_completed

    entries, mail = plan_training(corpus)
    shards = shard_entries(entries, shard_bytes)
    if not shards:
        raise DataError("no documents to train on")
    futures = {
        client.submit(count_shard, shard, mail, corpus.encoding, analyzer.to_dict(), tf, doc_norm, corpus.limit,
                      pure=False): sum(e[2] for e in shard)
        for shard in shards
    }
    total: FrozenCounts | None = None
    for future in as_completed(futures):
        counts, report = future.result()
        total = counts if total is None else total.merge(counts)
        corpus.report.update(report)
        if on_shard is not None:
            on_shard(futures[future])
        future.release()
    assert total is not None  # there was a shard
    corpus.check_all_read()
    if len(total.classes) < 2:
        raise DataError(f"only one class ({total.classes[0]!r}) in the training data; need at least two")
    model = finished(Model(analyzer, total, settings, {**corpus.summary, **(summary or {})}))
    model.texts = trained_texts(corpus.report.texts)
    return model


def score_files(model: Model, entries: list[Entry], mail: bool, encoding: str,
                format_batch: Callable[[Model, list[Document]], Answers],
                limit: int | None = MAX_DOCUMENT_BYTES) -> tuple[Answers, ReadReport]:
    """On a worker: read one batch of files and return predict's answers for them (what
    ``format_batch`` makes of them) and what was read."""
    batch, report = _read_on_worker(entries, mail, encoding, model.analyzer.headers, limit)
    return format_batch(model, batch), report


def predict_on_cluster(client, model: Model, paths: Sequence[str], report: ReadReport, *, mail: bool, encoding: str,
                       format_batch: Callable[[Model, list[Document]], Answers],
                       limit: int | None = MAX_DOCUMENT_BYTES) -> Iterator[Answers]:
    """predict's answers for the files under ``paths`` (what ``format_batch`` makes of each
    batch), in input order, block by block as the workers finish them. The model is sent to
    every worker; Dask's memory manager may drop a worker's copy later, and the worker then
    fetches it from another one that may be scoring with it (which is safe: see
    ``NaiveBayes.__getstate__``)."""
    entries: list[Entry] = []
    inputs = []
    for path in paths:
        if path == "-":
            raise DataError("`dask` scores files and folders; stdin is read here, without `dask`")
        if not os.path.exists(path):
            raise not_found(path)
        listed = list_folder(path, report, labelled=False) if os.path.isdir(path) else [(path, None, 0)]
        inputs.append((path, [entry[0] for entry in listed]))
        entries += listed
    model = copy.copy(model)
    model.threads = 1  # each worker process (or thread) takes a share of the cores already
    shared = client.scatter(model, broadcast=True)
    batches = (entries[i:i + PREDICT_FILES] for i in range(0, len(entries), PREDICT_FILES))

    def submit(n: int) -> list:
        return [client.submit(score_files, shared, batch, mail, encoding, format_batch, limit, pure=False)
                for batch in itertools.islice(batches, n)]

    pending = submit(IN_FLIGHT_PER_WORKER * max(1, len(client.scheduler_info().get("workers", {}))))
    while pending:
        future = pending.pop(0)
        answers, part = future.result()
        report.update(part)
        future.release()
        pending += submit(1)
        yield answers
    note_unread(inputs, report)

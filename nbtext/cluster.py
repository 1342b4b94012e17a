"""Training and batch scoring on a Dask cluster (the optional extra ``nbtext[dask]``).

Naive Bayes statistics are sums. The data is cut into parts: a folder's document files in
shards, a line file or table in byte ranges (``readers.blocks``). Each worker reads and counts
its parts, and the workers add the parts' counts up in a tree (a Dask bag's reduction), so the
client receives one result however many parts there are. The sums are exact
(``counting.on_grid``) and merged counts are kept in sorted order, so the model equals local
training bit for bit, whatever the parts and whichever worker finishes first; the Gaussian
sums of numeric columns merge to rounding. Every task is pure: when a worker dies, counting or
merging, Dask runs its tasks again elsewhere and each part is still counted once.

Workers read the paths themselves, so every worker must see DATA at the same path (a shared
filesystem), or DATA is a URL (``s3://``) that each reads; a worker that cannot read a file
fails the run with the path and the worker named.
"""

from __future__ import annotations

import copy
import itertools
import os
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple, TypeVar, Union

from .analysis import Analyzer
from .counting import FrozenCounts
from .errors import DataError, NbtextError
from .limits import MAX_DOCUMENT_BYTES, MAX_PROCESSES
from .model import Model, trained_texts
from .readers import Document, FileBatch, LabelledCorpus, ReadReport, note_unread
from .readers.blocks import BLOCK_BYTES, Block, LineFile, blocks_of, byte_ranges, line_file, scan
from .readers.files import GONE, UNREADABLE, is_pipe, not_found
from .readers.folders import Entry, list_folder
from .readers.tables import Columns
from .readers.unlabelled import row_format, rows_of
from .tabular import ColumnSums
from .training import ValueSums, assembled, count_all, value_columns

#: What predict makes of one batch of documents (its output lines, and what it noticed).
Answers = TypeVar("Answers")

#: Bytes of documents per training shard: big enough to amortise a task, small enough that a
#: lost worker costs little.
SHARD_BYTES = 8 * 2**20
#: Files, or bytes of a table, per scoring task, and how many tasks may be in flight per worker.
PREDICT_FILES = 512
PREDICT_BLOCK_BYTES = 4 * 2**20
IN_FLIGHT_PER_WORKER = 3
#: How many parts' counts a node of the merge tree adds up: the tree is log8(parts) deep.
MERGE_FAN_IN = 8


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


#: A part of the data that one task reads: document files, or a byte range of a line file.
Part = Union[FileBatch, Block]


class Counted(NamedTuple):
    """What the workers make of some parts: the counts of their documents, the sums of their
    numeric and categorical columns (None without columns), and what was read."""

    counts: FrozenCounts
    columns: ColumnSums | None
    report: ReadReport


def count_part(part: Part, analyzer: dict[str, Any], tf: str, doc_norm: str | None,
               names: tuple[Sequence[str], Sequence[str]]) -> Counted:
    """On a worker: read and count one part of the labelled documents."""
    documents, report = _read_here(part)
    values = ValueSums(*names)
    counts = count_all(values.taken_from(documents), Analyzer.from_dict(analyzer), tf=tf, doc_norm=doc_norm)
    return Counted(counts, values.sums, report)


def merged(parts: Iterable[Counted]) -> Counted:
    """Several parts' counts as one: on a worker, a node of the tree that adds them all up."""
    first, *rest = parts
    if not rest:  # a leaf of the tree: one part, as it is
        return first
    columns, report = None, ReadReport()
    for part in (first, *rest):
        if part.columns is not None:
            columns = part.columns if columns is None else columns.merge(part.columns)
        report.update(part.report)
    return Counted(first.counts.merge(*(part.counts for part in rest)), columns, report)


def _read_here(part: Part) -> tuple[list[Document], ReadReport]:
    """The documents of a part, read by this worker; a file it cannot see is a DataError:
    where a single machine skips and counts a file gone since it was listed, a worker that
    cannot read the listed files most likely does not see the client's filesystem, and
    skipping would train on whatever part it does see."""
    report = ReadReport()
    documents = list(part.read(report))
    for reason, paths in report.skipped.items():
        if reason == GONE or reason.startswith(UNREADABLE):
            raise DataError(f"worker {socket.gethostname()} cannot read {paths[0]}: {reason} "
                            "(every worker must see the files at the same path)")
    return documents, report


def training_parts(client, corpus: LabelledCorpus, headers: Sequence[str], *, shard_bytes: int = SHARD_BYTES,
                   block_bytes: int = BLOCK_BYTES) -> list[Part]:
    """The parts of a corpus, in order: its folders' files in shards of about ``shard_bytes``, its
    line files and tables in byte ranges of ``block_bytes``; a DataError for what cannot be
    read in parts (stdin, a pipe, mbox files, maildirs, a list of files)."""
    parts: list[Part | LineFile] = []
    for (path, fmt, listed), size in zip(corpus.plan, corpus.sizes):
        if fmt in ("folder", "email"):
            parts += [FileBatch(shard, fmt == "email", corpus.encoding, tuple(headers), corpus.limit)
                      for shard in shard_entries(listed, shard_bytes)]
        elif fmt in ("mbox", "maildir", "manifest") or path == "-" or is_pipe(path):
            email = "; `input_format` email reads each message of its mbox files" if fmt == "mbox" else ""
            what = "stdin" if path == "-" else "a pipe" if is_pipe(path) else f"{fmt}{email}"
            raise DataError(f"{path}: `dask` reads folders of class folders (plain or mail), line files and tables "
                            f"in parts; this is {what}")
        else:
            parts.append(line_file(path, fmt, encoding=corpus.encoding, columns=corpus.columns, limit=corpus.limit,
                                   size=size))
    return _split(client, parts, block_bytes)


def _split(client, parts: Sequence[Part | LineFile], block_bytes: int) -> list[Part]:
    """``parts`` with each LineFile in its byte ranges, which the workers scan first."""
    ranges = {i: byte_ranges(part, block_bytes) for i, part in enumerate(parts) if isinstance(part, LineFile)}
    to_scan = [(parts[i], start, end) for i, spans in ranges.items() if len(spans) > 1 for start, end in spans]
    scanned = iter(client.gather(client.map(scan, *zip(*to_scan), pure=False)) if to_scan else [])
    split: list[Part] = []
    for i, part in enumerate(parts):
        if not isinstance(part, LineFile):
            split.append(part)
        elif len(ranges[i]) == 1:
            split += blocks_of(part, ranges[i], [(0, 0)])
        else:
            split += blocks_of(part, ranges[i], [next(scanned) for _ in ranges[i]])
    return split


def count_on_cluster(client, parts: Sequence[Part], *, analyzer: Analyzer, tf: str, doc_norm: str | None,
                     names: tuple[Sequence[str], Sequence[str]] = ((), ()),
                     on_part: Callable[[int], None] | None = None) -> Counted:
    """The counts of ``parts``, each counted by a worker and added up on the workers in a tree
    of ``MERGE_FAN_IN`` branches (a Dask bag's reduction): the client receives one merged
    result whatever the number of parts. ``on_part`` is called with each part's bytes once it
    is counted (its result stays on the worker)."""
    import dask.bag
    from distributed import as_completed, futures_of

    counted = client.persist(dask.bag.from_sequence(parts, npartitions=len(parts))
                             .map(count_part, analyzer.to_dict(), tf, doc_norm, names))
    total = client.compute(counted.reduction(merged, merged, split_every=MERGE_FAN_IN))
    if on_part is not None:
        for future in as_completed(futures_of(counted)):
            on_part(parts[future.key[1]].size)
    return total.result()


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
    block_bytes: int = BLOCK_BYTES,
    on_shard: Callable[[int], None] | None = None,
) -> Model:
    """A model trained on ``corpus`` by the workers of ``client``, the columns it reads too;
    pruning after the merge. It equals ``training.train``'s on the same corpus, and records the
    corpus as it does.

    ``on_shard`` is called with the bytes of each part as it is counted.
    """
    parts = training_parts(client, corpus, analyzer.headers, shard_bytes=shard_bytes, block_bytes=block_bytes)
    if not parts:
        raise DataError("no documents to train on")
    names = value_columns(corpus, (), ())
    total = count_on_cluster(client, parts, analyzer=analyzer, tf=tf, doc_norm=doc_norm, names=names,
                             on_part=on_shard)
    corpus.report.update(total.report)
    corpus.check_all_read()
    return assembled(total.counts, total.columns, analyzer=analyzer, settings=settings,
                     summary={**corpus.summary, **(summary or {})}, names=names,
                     texts=trained_texts(corpus.report.texts))


def score_part(model: Model, part: Part,
               format_batch: Callable[[Model, list[Document]], Answers]) -> tuple[Answers, ReadReport]:
    """On a worker: read one part and return predict's answers for its documents (what
    ``format_batch`` makes of them) and what was read."""
    batch, report = _read_here(part)
    return format_batch(model, batch), report


def predict_on_cluster(client, model: Model, paths: Sequence[str], report: ReadReport, *, mail: bool, encoding: str,
                       format_batch: Callable[[Model, list[Document]], Answers],
                       limit: int | None = MAX_DOCUMENT_BYTES, columns: Columns | None = None,
                       input_format: str | None = None, block_bytes: int = PREDICT_BLOCK_BYTES) -> Iterator[Answers]:
    """predict's answers for the files under ``paths`` (what ``format_batch`` makes of each
    part), in input order, part by part as the workers finish them; with ``columns``, for the
    rows of tables and JSONL files, read in byte ranges. The model is sent to every worker;
    Dask's memory manager may drop a worker's copy later, and the worker then fetches it from
    another one that may be scoring with it (which is safe: see ``NaiveBayes.__getstate__``)."""
    parts: list[Part | LineFile] = []
    inputs = []
    for path in paths:
        if path == "-":
            raise DataError("`dask` scores files and folders; stdin is read here, without `dask`")
        if columns is not None:
            fmt = row_format(path, input_format)
            parts.append(line_file(path, fmt, encoding=encoding, columns=rows_of(columns), limit=limit))
            continue
        if not os.path.exists(path):
            raise not_found(path)
        listed: list[Entry] = list_folder(path, report, labelled=False) if os.path.isdir(path) else [(path, None, 0)]
        inputs.append((path, [entry[0] for entry in listed]))
        parts += [FileBatch(listed[i:i + PREDICT_FILES], mail, encoding, model.analyzer.headers, limit)
                  for i in range(0, len(listed), PREDICT_FILES)]
    model = copy.copy(model)
    model.threads = 1  # each worker process (or thread) takes a share of the cores already
    shared = client.scatter(model, broadcast=True)
    to_score = iter(_split(client, parts, block_bytes))

    def submit(n: int) -> list:
        return [client.submit(score_part, shared, part, format_batch, pure=False)
                for part in itertools.islice(to_score, n)]

    pending = submit(IN_FLIGHT_PER_WORKER * max(1, len(client.scheduler_info().get("workers", {}))))
    while pending:
        future = pending.pop(0)
        answers, part = future.result()
        report.update(part)
        future.release()
        pending += submit(1)
        yield answers
    note_unread(inputs, report)

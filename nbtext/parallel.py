"""Every core: worker processes analyze and count (or score) batches of documents while this
process reads them; a folder's files the counting workers read themselves. Counts are added up
at the end; scored batches come back in input order.

Workers start by forkserver (spawn where there is none), so a script that calls this must
guard its entry point with ``if __name__ == "__main__":``, as multiprocessing requires.
Each worker keeps its own per-class sums over the batches it happens to take. The sums are
exact (``counting.on_grid``) and merged counts are kept in sorted order, so the result equals
counting in one process bit for bit, however the batches fell.
"""

from __future__ import annotations

import functools
import multiprocessing
import queue
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any

from .analysis import Analyzer
from .batches import (
    BATCH_SIZE,
    PROCESSES_AFTER_BYTES,
    count_batches,
    labelled,
    read_ahead,
)
from .cores import available_cores
from .counting import FrozenCounts
from .errors import NbtextError
from .readers import (
    UNREAD,
    Document,
    FileBatch,
    MailBatch,
    Reading,
    ReadReport,
    documents_of,
)

#: Batches waiting per worker: enough to keep every worker busy, few enough that memory stays
#: flat when reading is faster than counting.
QUEUED_PER_WORKER = 2
#: Seconds between checks that the workers are still alive while waiting on them.
POLL_SECONDS = 1.0


def count_in_processes(batches: Iterable[list[Document] | FileBatch | MailBatch], analyzer: Analyzer, *,
                       tf: str, doc_norm: str | None, jobs: int, report: ReadReport | None = None,
                       start_after: int = 0) -> FrozenCounts:
    """The counts of ``batches`` of labelled documents, counted by this process and ``jobs`` - 1
    worker processes, which start once more than ``start_after`` bytes of documents have come
    (never for a single batch).

    A batch goes to the workers while their queue has room and is counted here otherwise, so
    this process counts while they start and whenever they are busy. A FileBatch's files are
    read, and a MailBatch's messages parsed, by whoever counts it; what was seen is added to
    ``report`` in the order of the batches, as if this process had read them all.
    """
    pool: _Pool | None = None
    work = functools.partial(_count_batches, analyzer=analyzer.to_dict(), tf=tf, doc_norm=doc_norm)

    def not_taken() -> Iterator[tuple[int, Any]]:
        nonlocal pool
        seen = 0
        task: tuple[int, Any]
        for number, batch in enumerate(batches):
            if isinstance(batch, UNREAD):
                task, size = (number, batch), batch.size
            else:
                texts, labels = labelled(batch, None)
                task, size = (number, (texts, labels)), sum(map(len, texts))
            if pool is None and seen > start_after:
                pool = _Pool(work, jobs - 1, "count")
            if pool is None or not pool.offer(task):
                yield task
            seen += size

    reports: list[tuple[int, ReadReport]] = []
    try:
        merged = count_batches(read_ahead(_read_tasks(not_taken(), reports)), analyzer, tf=tf, doc_norm=doc_norm)
        if pool is not None:
            for _ in pool.workers:
                pool.put(None)
            for _ in pool.workers:
                counts, their_reports = pool.get()
                merged = merged.merge(counts)
                reports += their_reports
            pool.join()
    finally:
        if pool is not None:
            pool.stop()
    if report is not None:
        for _, part in sorted(reports, key=lambda numbered: numbered[0]):
            report.update(part)
    return merged


def read_all(documents: Iterable[Document], jobs: int | None = None) -> list[Document]:
    """Every document of ``documents``, held in memory (to cross-validate or hold some out).

    Where they are a corpus's ``Reading`` and every DATA is a folder of files, the files are
    read, and their mail parsed (most of the work), by ``jobs`` processes; where every DATA is
    mbox files or maildirs, the messages are read here and parsed there. By default that is
    every core once the corpus is ``PROCESSES_AFTER_BYTES`` or more; else, and for other data,
    all is done here. A corpus's DATA that gave no document is then an error
    (``LabelledCorpus.check_all_read``).
    """
    if not isinstance(documents, Reading):
        return list(documents)
    corpus = documents.corpus
    if jobs is None:
        jobs = available_cores() if (corpus.total_bytes or 0) > PROCESSES_AFTER_BYTES else 1
    if jobs == 1 or not corpus.read_apart:
        held = list(documents)
    else:
        held = read_in_processes(documents.batches(BATCH_SIZE), jobs, corpus.report)
    corpus.check_all_read()
    return held


def read_in_processes(batches: Iterable[list[Document] | FileBatch | MailBatch], jobs: int,
                      report: ReadReport) -> list[Document]:
    """Every document of ``batches`` in order, each FileBatch's files read (and their mail
    parsed), or each MailBatch's messages parsed, by one of ``jobs`` worker processes; what
    each reader saw is added to ``report`` in the order of the batches, as if this process had
    read them all."""
    documents: list[Document] = []
    for read, seen in map_in_processes(_read_batch, _nothing, ((batch,) for batch in batches), jobs):
        documents += read
        report.update(seen)
    return documents


def _read_batch(_state: None,
                batch: list[Document] | FileBatch | MailBatch) -> tuple[list[Document], ReadReport]:
    return documents_of(batch)


def _nothing() -> None:
    """The state of a worker that needs none."""


def map_in_processes(function: Callable[..., Any], setup: Callable[[], Any], items: Iterable[tuple],
                     jobs: int) -> Generator[Any, None, None]:
    """``function(state, *item)`` for every item, in item order, by ``jobs`` worker processes
    that each make their ``state = setup()`` once (load a model, say). Each result is yielded as
    soon as it and every one before it are done, so output streams; a bounded number of items
    is in flight, so memory stays flat on an endless input. An NbtextError from ``items`` (bad
    input) is raised once the results of the items before it have been yielded."""
    pool = _Pool(functools.partial(_map_items, function=function, setup=setup), jobs, "work")
    in_flight, done, sent, returned = (QUEUED_PER_WORKER + 1) * jobs, {}, 0, 0
    input_error: NbtextError | None = None

    def finished(block: bool) -> Iterator[Any]:
        """The results ready in order: waiting for the next one if ``block``, else only those in."""
        nonlocal returned
        while returned < sent:
            if returned not in done:
                if block:
                    number, result = pool.get()
                else:
                    try:
                        number, result = _unpack(*pool.results.get_nowait())
                    except queue.Empty:
                        return
                done[number] = result
                continue
            yield done.pop(returned)
            returned += 1
            block = block and sent - returned >= in_flight

    try:
        try:
            for item in items:
                pool.put((sent, item))
                sent += 1
                yield from finished(block=sent - returned >= in_flight)
        except NbtextError as error:
            input_error = error
        for _ in pool.workers:
            pool.put(None)
        while returned < sent:
            yield from finished(block=True)
        pool.join()
    finally:
        pool.stop()
    if input_error is not None:
        raise input_error


class _Pool:
    """``jobs`` worker processes serving ``work`` (see ``_serve``), with their task and result
    queues. A second thread starts them: a worker takes a few tenths of a second to start (the
    forkserver's own start and imports), which this process spends reading the first tasks."""

    def __init__(self, work: Callable[[Iterator[Any]], Iterable[Any]], jobs: int, role: str) -> None:
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        context: Any = multiprocessing.get_context(method)  # typeshed's BaseContext lacks Process
        if context.get_start_method() == "forkserver":
            context.set_forkserver_preload([__name__])
        self.tasks = context.Queue(maxsize=QUEUED_PER_WORKER * jobs)
        self.results = context.Queue()
        self.workers = [context.Process(target=_serve, args=(self.tasks, self.results, work), daemon=True,
                                        name=f"nbtext-{role}-{i}") for i in range(jobs)]
        self.start_error: BaseException | None = None
        self._starter = threading.Thread(target=self._start, name=f"nbtext-{role}-start")
        self._starter.start()

    def _start(self) -> None:
        try:
            for worker in self.workers:
                worker.start()
        except BaseException as error:  # raised in this process's thread by the next check
            self.start_error = error

    def put(self, item: Any) -> None:
        while True:
            try:
                self.tasks.put(item, timeout=POLL_SECONDS)
                return
            except queue.Full:  # while there is work to hand out, no worker may have stopped
                self._check(stopped=lambda code: code is not None)

    def offer(self, item: Any) -> bool:
        """Queue ``item`` if there is room now; False while every worker has work waiting."""
        try:
            self.tasks.put_nowait(item)
            return True
        except queue.Full:
            self._check(stopped=lambda code: code is not None)
            return False

    def get(self) -> Any:
        while True:
            try:
                kind, payload = self.results.get(timeout=POLL_SECONDS)
            except queue.Empty:  # a worker that has sent all it had stops with 0
                self._check(stopped=lambda code: code not in (None, 0))
                continue
            return _unpack(kind, payload)

    def join(self) -> None:
        self._starter.join()
        for worker in self.workers:
            worker.join()

    def stop(self) -> None:
        """End the workers, and let this process exit without flushing tasks nobody will take
        (the queue's feeder thread would otherwise wait on a full pipe forever, after ``| head``,
        say)."""
        self._starter.join()
        self.tasks.cancel_join_thread()
        for worker in self.workers:
            if worker.is_alive():
                worker.terminate()

    def _check(self, stopped: Callable[[int | None], bool]) -> None:
        """An error for workers that could not start, or for a worker that stopped early: the
        error it sent, or how it ended."""
        if self.start_error is not None:
            raise NbtextError(f"could not start worker processes: {self.start_error}")
        for worker in self.workers:
            if stopped(worker.exitcode):
                try:
                    kind, payload = self.results.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    raise NbtextError(f"worker process {worker.name} stopped with exit code {worker.exitcode} "
                                      "(killed for lack of memory? try fewer `jobs`)") from None
                raise NbtextError(f"a worker process failed: {payload}" if kind == "error" else
                                  f"worker process {worker.name} stopped before its work was done")


def _serve(tasks, results, work: Callable[[Iterator[Any]], Iterable[Any]]) -> None:
    """A worker: send each result of ``work`` over the tasks it takes until told to stop; an
    error goes to the parent, which names it in its own."""
    try:
        for result in work(iter(tasks.get, None)):
            results.put(("result", result))
    except KeyboardInterrupt:
        pass
    except BaseException as error:
        results.put(("error", f"{type(error).__name__}: {error}"))


def _count_batches(tasks: Iterator[Any], analyzer: dict[str, Any], tf: str, doc_norm: str | None) -> list:
    """Counting work: the counts of every batch taken, sent once at the end, sorted, so that
    merging them is linear, with a report of each unread batch read. Each process has its core:
    no second thread finds tokens ahead."""
    reports: list[tuple[int, ReadReport]] = []
    counts = count_batches(_read_tasks(tasks, reports), Analyzer.from_dict(analyzer), tf=tf, doc_norm=doc_norm,
                           ahead=False)
    return [(counts, reports)]


def _read_tasks(tasks: Iterable[tuple[int, Any]], reports: list[tuple[int, ReadReport]]) -> Iterator[Any]:
    """The (texts, labels) of numbered batches, reading a FileBatch's files or parsing a
    MailBatch's messages; its report goes to ``reports`` with its number."""
    for number, batch in tasks:
        if isinstance(batch, UNREAD):
            reports.append((number, ReadReport()))
            batch = labelled(batch, reports[-1][1])
        yield batch


def _map_items(items: Iterator[Any], function: Callable[..., Any], setup: Callable[[], Any]) -> Iterator[Any]:
    """Mapping work: ``function(state, *item)`` for each numbered item, sent as it is done."""
    state = setup()
    for number, item in items:
        yield number, function(state, *item)


def _unpack(kind: str, payload: Any) -> Any:
    if kind == "error":
        raise NbtextError(f"a worker process failed: {payload}")
    return payload

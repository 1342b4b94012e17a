"""Counting on every core: worker processes analyze and count batches of documents while this
process reads them, and their counts are added up at the end.

Workers start by forkserver (spawn where there is none), so a script that calls this must
guard its entry point with ``if __name__ == "__main__":``, as multiprocessing requires.
Each worker keeps its own per-class sums over the batches it happens to take. The sums are
exact (``counting.on_grid``) and merged counts are kept in sorted order, so the result equals
counting in one process bit for bit, however the batches fell.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from collections.abc import Iterable, Sequence
from typing import Any

from .analysis import Analyzer
from .counting import FrozenCounts
from .errors import NbtextError
from .training import count_batches

#: Batches waiting per worker: enough to keep every worker busy, few enough that memory stays
#: flat when reading is faster than counting.
QUEUED_PER_WORKER = 2
#: Seconds between checks that the workers are still alive while waiting on them.
POLL_SECONDS = 1.0


def default_jobs() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def count_in_processes(batches: Iterable[tuple[Sequence[str], Sequence[str]]], analyzer: Analyzer, *, tf: str,
                       doc_norm: str | None, jobs: int) -> FrozenCounts:
    """The counts of ``batches`` of (texts, labels), counted by ``jobs`` worker processes."""
    context = multiprocessing.get_context("forkserver" if "forkserver" in multiprocessing.get_all_start_methods()
                                          else "spawn")
    if context.get_start_method() == "forkserver":
        context.set_forkserver_preload([__name__])
    tasks = context.Queue(maxsize=QUEUED_PER_WORKER * jobs)
    results = context.Queue()
    workers = [context.Process(target=_count_batches, args=(tasks, results, analyzer.to_dict(), tf, doc_norm),
                               daemon=True, name=f"nbtext-count-{i}") for i in range(jobs)]
    for worker in workers:
        worker.start()
    try:
        for batch in batches:
            _put(tasks, batch, workers, results)
        for _ in workers:
            _put(tasks, None, workers, results)
        merged = None
        for _ in workers:
            counts = _get(results, workers)
            merged = counts if merged is None else merged.merge(counts)
        for worker in workers:
            worker.join()
        return merged
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()


def _count_batches(tasks, results, analyzer: dict[str, Any], tf: str, doc_norm: str | None) -> None:
    """A worker: count every batch it takes until told to stop, then send its counts."""
    try:
        counts = count_batches(iter(tasks.get, None), Analyzer.from_dict(analyzer), tf=tf, doc_norm=doc_norm)
        results.put(("counts", counts))
    except KeyboardInterrupt:
        pass
    except BaseException as error:  # sent to the parent, which names it in its error
        results.put(("error", f"{type(error).__name__}: {error}"))


def _put(tasks, item, workers, results) -> None:
    while True:
        try:
            tasks.put(item, timeout=POLL_SECONDS)
            return
        except queue.Full:  # while there is work to hand out, no worker may have stopped
            _check(workers, results, stopped=lambda code: code is not None)


def _get(results, workers) -> FrozenCounts:
    while True:
        try:
            kind, payload = results.get(timeout=POLL_SECONDS)
        except queue.Empty:  # a worker that sent its counts stops with 0
            _check(workers, results, stopped=lambda code: code not in (None, 0))
            continue
        if kind == "error":
            raise NbtextError(f"a counting process failed: {payload}")
        return payload


def _check(workers, results, stopped) -> None:
    """An error for a worker that stopped early: the one it sent, or how it ended."""
    for worker in workers:
        if stopped(worker.exitcode):
            try:
                kind, payload = results.get(timeout=POLL_SECONDS)
            except queue.Empty:
                raise NbtextError(f"counting process {worker.name} stopped with exit code {worker.exitcode} "
                                  "(killed for lack of memory? try fewer --jobs)") from None
            raise NbtextError(f"a counting process failed: {payload}" if kind == "error" else
                              f"counting process {worker.name} stopped before its work was done")

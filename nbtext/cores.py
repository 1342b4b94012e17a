"""Cores and threads: how many cores this process may use (the default for ``--jobs`` and for
scoring threads), and work run ahead in a second thread.

Apart from ``parallel`` so that scoring in threads does not import multiprocessing.
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # scoring imports this module: concurrent.futures only when work runs ahead
    from concurrent.futures import Future

Item = TypeVar("Item")
Result = TypeVar("Result")


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def run_ahead(items: Iterable[Item], work: Callable[[Item], Result], ahead: int,
              ) -> Iterator[tuple[Item, Future[Result]]]:
    """Each item, in order, with the future of ``work(item)``. One thread does the work, in
    item order, up to ``ahead`` items beyond the one the caller has, so that it overlaps what
    the caller does meanwhile; an error in ``work`` is raised by that item's ``result()``.
    Stopping early waits for the work already started."""
    from concurrent.futures import ThreadPoolExecutor  # here: 6 ms of start-up that scoring one document skips

    pending: collections.deque = collections.deque()
    with ThreadPoolExecutor(1) as pool:
        for item in items:
            pending.append((item, pool.submit(work, item)))
            if len(pending) > ahead:
                yield pending.popleft()
        while pending:
            yield pending.popleft()

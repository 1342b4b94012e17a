"""How many cores this process may use: the default for ``--jobs`` and for scoring threads.

Apart from ``parallel`` so that scoring in threads does not import multiprocessing.
"""

from __future__ import annotations

import os


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1

"""The compiled word scanner (``nbtext/_wordscan.c``), or None where nbtext was installed without a
C compiler: numpy then does its work, with the same counts, more slowly. Read as
``scanner.wordscan`` where it is used, so that a test can take it away."""

from __future__ import annotations

try:
    from .. import _wordscan as wordscan  # type: ignore[attr-defined]  # compiled, with no types for mypy to find
except ImportError:  # built without a C compiler: numpy finds a fixed table's words too
    wordscan = None

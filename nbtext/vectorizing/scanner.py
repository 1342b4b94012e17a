"""The compiled word scanner (``nbtext/_wordscan.c``), or None where nbtext was installed without a
C compiler: numpy then does its work, with the same counts, more slowly. Read as
``scanner.wordscan`` where it is used, so that a test can take it away."""

from __future__ import annotations

try:
    import nbtext._wordscan as wordscan  # compiled from its .c file beside it
except ImportError:  # built without a C compiler: numpy finds a fixed table's words too
    wordscan = None

"""nbtext's exceptions and the exit-code policy, in one place.

The library raises these; the command layer turns them into one line on stderr and the exit
code below. Anything that is not an ``NbtextError`` is a bug and keeps its traceback.
"""

from __future__ import annotations

#: The command succeeded.
EXIT_OK = 0
#: Bad input data or a bad model file: one clear line on stderr, no traceback.
EXIT_DATA_ERROR = 1
#: The command line itself was wrong (click's own convention).
EXIT_USAGE_ERROR = 2
#: The reader of our output went away (``nbtext predict ... | head -1``); like any Unix tool
#: killed by SIGPIPE, we stop quietly with 128 + 13.
EXIT_BROKEN_PIPE = 141
#: ``nbtext filter`` follows bogofilter: 0 spam, 1 ham, 2 unsure, and 3 for any error.
EXIT_FILTER_ERROR = 3


class NbtextError(Exception):
    """Base of every error nbtext reports to a user; the message says what to do."""


class DataError(NbtextError):
    """Input documents could not be read or make no sense for the command."""


class NotLearnedError(DataError):
    """Documents to take out of counts were never put in: their counts are not there."""


class ModelError(NbtextError):
    """A model file is missing, truncated, foreign or from an incompatible version."""


class UnsafeModelError(ModelError):
    """A model file asks to import code while loading; it is refused unread."""


class NotFittedError(NbtextError, ValueError, AttributeError):
    """An estimator was used before ``fit``."""

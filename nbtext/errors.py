"""nbtext's exceptions and the exit-code policy, in one place.

The library raises these; the command layer turns them into one line on stderr and the exit
code below. Anything that is not an ``NbtextError`` is a bug and keeps its traceback.

A message names the parameter it is about between backquotes: ``DataError("`test_size` must be
between 0 and 1")``. Read from Python it says ``test_size must be between 0 and 1``; the command
line says the option that sets it instead (``--test-split must be between 0 and 1``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: The command succeeded.
EXIT_OK = 0
#: Bad input data or a bad model file: one clear line on stderr, no traceback. Also an input
#: named on the command line that gave no document (a file skipped), once every other input
#: has been answered, and output that could not be written.
EXIT_DATA_ERROR = 1
#: The command line itself was wrong (click's own convention).
EXIT_USAGE_ERROR = 2
#: The reader of our output went away (``nbtext predict ... | head -1``); like any Unix tool
#: killed by SIGPIPE, we stop quietly with 128 + 13.
EXIT_BROKEN_PIPE = 141
#: ``nbtext filter`` follows bogofilter: 0 spam, 1 ham, 2 unsure, and 3 for any error.
EXIT_FILTER_ERROR = 3
#: ``predict --threshold`` answered every document, and some ``unsure``: a status of its own,
#: apart from the usage errors' 2 and the data errors' 1, for a script to route those.
EXIT_SOME_UNSURE = 4

#: How a message marks the name of a parameter.
_PARAMETER = re.compile(r"`(\w+)`")


def spoken(message: str, name_of: Callable[[str], str] | None = None) -> str:
    """``message`` with each parameter it marks named as ``name_of`` names it (an option's
    flag), or as itself.

    >>> spoken("`min_df` is above `max_df`"), spoken("`min_df`", lambda name: "--min-df")
    ('min_df is above max_df', '--min-df')
    """
    if name_of is None:
        return _PARAMETER.sub(r"\1", message)
    return _PARAMETER.sub(lambda found: name_of(found[1]), message)


class NbtextError(Exception):
    """Base of every error nbtext reports to a user; the message says what to do."""

    def __str__(self) -> str:
        return spoken(super().__str__())

    def spoken(self, name_of: Callable[[str], str]) -> str:
        """The message with each parameter named as ``name_of`` names it (an option's flag)."""
        return spoken(super().__str__(), name_of)


class DataError(NbtextError):
    """Input documents could not be read or make no sense for the command."""


class OptionsError(NbtextError):
    """Parameters that do not go together, or do not apply to the data given (``headers`` for
    documents that are no mail); the command line reports it as a usage error (exit status 2)."""


class NotLearnedError(DataError):
    """Documents to take out of counts were never put in: their counts are not there."""


class ModelError(NbtextError):
    """A model file is missing, truncated, foreign or from an incompatible version."""


class UnsafeModelError(ModelError):
    """A model file asks to import code while loading; it is refused unread."""


class NotFittedError(NbtextError, ValueError, AttributeError):
    """An estimator was used before ``fit``."""

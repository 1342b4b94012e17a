"""The command line's names for the library's parameters: a library message names a parameter
between backquotes (``errors.spoken``), and the command line says the option that sets it."""

from __future__ import annotations

from ..errors import spoken

#: The options that set a library parameter of another name than the option's.
_FLAGS = {"fraction": "--test-split", "max_document_bytes": "--max-document-size", "k": "--cv",
          "folds": "--cv", "label": "--spam-label", "address": "--dask"}


def flag_of(parameter: str) -> str:
    """The option of the command line that sets the library's ``parameter``: ``min_df`` is
    ``--min-df``.

    >>> flag_of("min_df"), flag_of("fraction")
    ('--min-df', '--test-split')
    """
    return _FLAGS.get(parameter, "--" + parameter.replace("_", "-"))


def as_flags(message: str) -> str:
    """A library message as the command line says it: each parameter named by its option."""
    return spoken(message, flag_of)


"""The exception and warning classes scikit-learn's users catch, raised by nbtext's estimators.

Importing this imports scikit-learn, about half a second: the estimators import it only where
they raise or warn, never on the way to an answer.
"""

from __future__ import annotations

from sklearn.exceptions import DataConversionWarning as DataConversionWarning
from sklearn.exceptions import NotFittedError as SklearnNotFittedError

from .errors import NotFittedError as NbtextNotFittedError


class NotFittedError(NbtextNotFittedError, SklearnNotFittedError):
    """An estimator used before ``fit``: ``except`` catches it as nbtext's or scikit-learn's.

    >>> import sklearn.exceptions, nbtext.errors
    >>> [issubclass(NotFittedError, kind) for kind in (sklearn.exceptions.NotFittedError, nbtext.errors.NotFittedError)]
    [True, True]
    """

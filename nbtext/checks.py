"""What the parts of a model file must be: each check raises a ValueError in one line that names
the part and says what it is not (``Model.load`` turns it into "damaged nbtext model")."""

from __future__ import annotations

from typing import Any

import numpy as np


def checked(holds: bool, name: str, expected: str) -> None:
    """A ValueError where ``holds`` is false: part ``name`` of a model file is not ``expected``."""
    if not holds:
        raise ValueError(f"{name} is not {expected}")


def array_of(value: Any, name: str, dtype: Any, length: int | None = None) -> np.ndarray:
    """``value``, where it is a one-dimensional array of ``dtype`` (or one of several) and, if
    given, ``length``; else a ValueError naming ``name``."""
    dtypes = dtype if isinstance(dtype, tuple) else (dtype,)
    kinds = " or ".join(np.dtype(d).name for d in dtypes)
    # in either byte order: a model written on a big-endian machine holds its arrays so
    checked(isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.newbyteorder("=") in dtypes, name,
            f"a one-dimensional array of {kinds}")
    if length is not None:
        checked(len(value) == length, name, f"of length {length} (it has {len(value)})")
    return value


def indices_within(indices: np.ndarray, size: int, name: str) -> None:
    """A ValueError where ``indices`` (named ``name``) are not all positions of ``size`` things."""
    if len(indices):
        checked(int(indices.min()) >= 0 and int(indices.max()) < size, name, f"indices from 0 to {size - 1}")


def counts_in(values: np.ndarray, name: str) -> None:
    """A ValueError where ``values`` (named ``name``) are not what sums of documents give:
    finite and not negative."""
    checked(bool(np.isfinite(values).all()) and (not len(values) or float(values.min()) >= 0), name,
            "finite sums, none negative")

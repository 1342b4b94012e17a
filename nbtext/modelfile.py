"""Reading a model file without importing joblib, and without running code from the file.

Model files are written by ``joblib.dump`` (uncompressed): a pickle stream in which each numpy
array is a small ``joblib.numpy_pickle.NumpyArrayWrapper`` object, whose fields (dtype, shape,
order) are followed in the file by one padding-length byte, that many padding bytes, and then
the array's raw bytes. Reading that layout here costs a few lines; importing joblib to read it
costs about 0.1 s of every ``nbtext predict`` start (its package import pulls in its process
pools), which is a third of a one-document run.

The file is memory-mapped and every array is a read-only view into it: pages are read only
when touched, and predicting a few documents touches few of them.
"""

from __future__ import annotations

import math
import mmap
import pickle
from typing import Any

import numpy as np

from .errors import ModelError, UnsafeModelError

#: The only globals a model file may name: the array header joblib writes, and numpy's dtype
#: and ndarray (which appear inside the header's fields).
_ARRAY_HEADER = ("joblib.numpy_pickle", "NumpyArrayWrapper")
_NUMPY_GLOBALS = {("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): np.dtype}


class _ArrayHeader:
    """Takes the place of joblib's wrapper while unpickling: pickle fills in its fields."""


class _Reader(pickle._Unpickler):
    """Python's own unpickler, which reads the file no further than each opcode (the C one reads
    ahead), so the array bytes that follow a header are found at the file's current position."""

    dispatch = pickle._Unpickler.dispatch.copy()

    def __init__(self, data: mmap.mmap, path: str) -> None:
        super().__init__(data)
        self.data = data
        self.path = path

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == _ARRAY_HEADER:
            return _ArrayHeader
        if (module, name) in _NUMPY_GLOBALS:
            return _NUMPY_GLOBALS[module, name]
        raise UnsafeModelError(
            f"{self.path}: refused: loading it would import {module}.{name}; nbtext model "
            "files hold only plain data and arrays, so this file was not made by nbtext "
            "and could run code"
        )

    def load_build(self) -> None:
        pickle._Unpickler.load_build(self)
        if isinstance(self.stack[-1], _ArrayHeader):
            self.stack[-1] = self._array(vars(self.stack[-1]))

    dispatch[pickle.BUILD[0]] = load_build

    def _array(self, fields: dict[str, Any]) -> np.ndarray:
        dtype, shape, order = fields.get("dtype"), fields.get("shape"), fields.get("order", "C")
        if not isinstance(dtype, np.dtype) or dtype.hasobject or fields.get("subclass") is not np.ndarray:
            # joblib stores such arrays as a nested, unrestricted pickle.
            raise UnsafeModelError(f"{self.path}: refused: the file holds an array of Python objects")
        offset = self.data.tell()
        if fields.get("numpy_array_alignment_bytes") is not None:  # absent before joblib 1.2
            offset += 1 + self.data[offset]
        array = np.frombuffer(self.data, dtype=dtype, count=math.prod(shape), offset=offset)
        self.data.seek(offset + array.nbytes)
        if order == "F":
            return array.reshape(shape[::-1]).T
        return array.reshape(shape)


def load(path: str) -> Any:
    """The payload of the model file at ``path``; ModelError, in one line, if it is not one."""
    try:
        with open(path, "rb") as handle:
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        return _Reader(data, path).load()
    except FileNotFoundError:
        raise ModelError(f"{path}: no such model file") from None
    except IsADirectoryError:
        raise ModelError(f"{path}: is a folder, not a model file") from None
    except UnsafeModelError:
        raise
    except Exception as error:  # an empty, truncated or foreign file fails in many ways inside pickle
        raise ModelError(f"{path}: not an nbtext model file, or truncated ({type(error).__name__})") from None

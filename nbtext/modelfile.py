"""Reading and writing model files without importing joblib, and reading them without running
code from the file.

Model files are written by ``joblib.dump`` (uncompressed): a pickle stream in which each numpy
array is a small ``joblib.numpy_pickle.NumpyArrayWrapper`` object, whose fields (dtype, shape,
order) are followed in the file by one padding-length byte, that many padding bytes, and then
the array's raw bytes. Reading that layout here costs a few lines; importing joblib to read it
costs about 0.1 s of every ``nbtext predict`` start (its package import pulls in its process
pools), which is a third of a one-document run.

The file is memory-mapped and every array is a read-only view into it: pages are read only
when touched, and predicting a few documents touches few of them.

``dump`` writes that layout too, byte for byte what ``joblib.dump`` writes (a test holds them
equal), so that ``joblib.load`` reads every model file; importing joblib only to write it
cost ``nbtext train`` 0.1 to 0.2 s.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import math
import mmap
import os
import pickle
import re
import stat
import struct
import threading
import zlib
from collections.abc import Iterator
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
    # copyreg's extension codes stand for globals: once any unpickler in the process has looked
    # one up, it is taken from copyreg's cache without find_class, past the allow-list. A model
    # file names its few globals by name.
    del dispatch[pickle.EXT1[0]], dispatch[pickle.EXT2[0]], dispatch[pickle.EXT4[0]]

    def _array(self, fields: dict[str, Any]) -> np.ndarray:
        dtype, order = fields.get("dtype"), fields.get("order", "C")
        shape: Any = fields.get("shape")  # a tuple of ints; anything else fails below as a broken file
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


#: joblib aligns each array's bytes in the file to this many bytes.
ARRAY_ALIGNMENT = 16


class _ArrayWrapper:
    """Pickled in place of an array, as joblib's wrapper (see _Writer.save_global)."""

    def __init__(self, array: np.ndarray, dtype: np.dtype) -> None:
        # joblib's fields in joblib's order, which is the order the pickle holds them in.
        self.subclass, self.shape = np.ndarray, array.shape
        self.order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
        self.dtype = dtype
        self.allow_mmap = True  # arrays of objects, which joblib would not map, are refused
        self.numpy_array_alignment_bytes = ARRAY_ALIGNMENT


class _Writer(pickle._Pickler):
    """Python's own pickler (its frames can be ended before raw bytes are written), with each
    numpy array written as joblib writes it: its wrapper, then padding and the array's bytes.
    The protocol is Python's default, 4 or newer, as joblib's is."""

    def __init__(self, handle) -> None:
        super().__init__(handle, protocol=pickle.DEFAULT_PROTOCOL)
        self.handle = handle
        # The first of each set of equal dtypes. The pickle writes an object it has written before
        # as a reference to it, and arrays made here share numpy's one float64, where arrays sent
        # from a Dask worker each bring their own: the same model would be other bytes.
        self.dtypes: dict[np.dtype, np.dtype] = {}

    def save(self, obj: Any, save_persistent_id: bool = True) -> None:
        if type(obj) is not np.ndarray:
            return super().save(obj, save_persistent_id)
        if obj.dtype.hasobject:
            raise TypeError("a model file holds no arrays of Python objects")
        wrapper = _ArrayWrapper(obj, self.dtypes.setdefault(obj.dtype, obj.dtype))
        super().save(wrapper)
        self.framer.commit_frame(force=True)  # the wrapper before the raw bytes that follow it
        padding = ARRAY_ALIGNMENT - (self.handle.tell() + 1) % ARRAY_ALIGNMENT
        self.handle.write(bytes([padding]) + b"\xff" * padding)
        self.handle.write(np.ascontiguousarray(obj.T if wrapper.order == "F" else obj))

    def save_global(self, obj: Any, name: str | None = None) -> None:
        if obj is not _ArrayWrapper:
            return super().save_global(obj, name)
        # The name joblib's reader (and ours) look for; naming it needs no import of joblib.
        module, name = _ARRAY_HEADER
        self.save(module)
        self.save(name)
        self.write(pickle.STACK_GLOBAL)
        self.memoize(obj)


def dump(payload: Any, handle) -> None:
    """Write ``payload`` to the binary file ``handle`` as ``joblib.dump`` would."""
    _Writer(handle).dump(payload)


def load(path: str) -> Any:
    """The payload of the model file at ``path``; ModelError, in one line, if it is not one."""
    head = None  # a pipe's first bytes, which cannot be read from it again
    try:
        with open(path, "rb") as handle:
            if stat.S_ISFIFO(os.fstat(handle.fileno()).st_mode):  # <(zcat m.joblib.gz), which maps to nothing
                whole = handle.read()
                head = whole[:_HEAD]
                data = _in_memory(whole)
            else:
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        return _Reader(data, path).load()
    except FileNotFoundError:
        raise ModelError(f"{path}: no such model file") from None
    except IsADirectoryError:
        raise folder_given(path) from None
    except UnsafeModelError:
        raise
    except Exception as error:  # an empty, truncated or foreign file fails in many ways inside pickle
        what = _no_pickle(path, head) or f"not an nbtext model file, or truncated ({type(error).__name__})"
        raise ModelError(f"{path}: {what}") from None


def _in_memory(data: bytes) -> mmap.mmap:
    """``data`` in an anonymous mapping, read as a file's mapping is; no bytes is an error, as
    mapping an empty file is."""
    if not data:
        raise ValueError("nothing to map")
    mapped = mmap.mmap(-1, len(data))
    mapped.write(data)
    mapped.seek(0)
    return mapped


#: The hint for a document or folder given where the model goes.
_MODEL_FIRST = "the model file comes first, then the documents"


def folder_given(path: str, model_first: str = _MODEL_FIRST) -> ModelError:
    """The error for a folder given where the model file goes: most often the arguments
    swapped, which ``model_first`` says how to give."""
    return ModelError(f"{path}: is a folder, not a model file ({model_first})")


#: How much of a file tells whether it is text.
_HEAD = 512


def _no_pickle(path: str, head: bytes | None = None) -> str | None:
    """What a file that failed to load as a model is, where its first bytes show it is no pickle
    at all (a model file starts as a pickle does, with 0x80 and the protocol): empty, or text,
    most often a document given where the model goes (``nbtext predict doc.txt model.joblib``).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt") as handle:
    ...     _ = handle.write("Where is my parcel?\\n" * 50), handle.flush()
    ...     print(_no_pickle(handle.name))
    text, not an nbtext model file (the model file comes first, then the documents)
    """
    if head is None:
        try:
            with open(path, "rb") as handle:
                head = handle.read(_HEAD)
        except OSError:
            return None
    if not head:
        return "an empty file, not an nbtext model file"
    if head.startswith(b"\x80"):
        return None
    try:  # a character cut at the end of the head is no sign of binary
        codecs.getincrementaldecoder("utf-8")().decode(head, final=len(head) < _HEAD)
    except UnicodeDecodeError:
        return "not an nbtext model file (a model file is a pickle; this is none)"
    return f"text, not an nbtext model file ({_MODEL_FIRST})"



# --- writing a model file in place ---------------------------------------------------------


def unsafe_output(path: str) -> str | None:
    """Why a command must not write a file (a model, a report) at ``path``, or None: it is a
    character device (a terminal, /dev/null), or the very file this process's stdout or stderr
    write to (``-o /dev/stdout >> log`` replaced the log with the model). A path that names
    nothing yet is a new file, and safe."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if stat.S_ISCHR(info.st_mode):
        return "a character device (a terminal, /dev/null, a serial line), not a file to write"
    for number, name in ((1, "stdout"), (2, "stderr")):
        try:
            stream = os.fstat(number)
        except OSError:  # closed
            continue
        if (stream.st_dev, stream.st_ino) == (info.st_dev, info.st_ino):
            return (f"the file {name} goes to, which this command writes to as well: the two would be written "
                    "over each other; name a file of its own")
    return None


#: Lock files this process holds, by thread, with how many times each is held: a save inside a
#: read-modify-write (``learn``) takes the lock its caller holds already. ``flock`` locks belong
#: to an open file, so a second open and lock in the same process would wait for itself.
_HELD: dict[tuple[str, int], int] = {}


def lock_path(path: str) -> str:
    """The hidden lock file of the model file ``path``: beside the file a link points to, so
    that writing through the link and through the file exclude each other."""
    folder, name = os.path.split(os.path.realpath(path))
    return os.path.join(folder, f".{name}.lock")


@contextlib.contextmanager
def locked(path: str) -> Iterator[None]:
    """Hold the exclusive lock of the model file ``path`` (``.MODEL.lock`` beside it, hidden, so
    that a model kept in a mail folder it sorts gives no empty message to answer): every writer
    of a model takes it, and a read, change and write back (``learn``, ``train --update``) holds
    it throughout, so that two of them never lose each other's change. Held again by the same
    thread, it is the same lock.

    The lock file is removed as the lock is let go, so that none stays beside every model
    saved. A process that waited on it then finds it gone from its path, and locks the file
    there anew: a lock is held only on the file that the path names."""
    lock = lock_path(path)
    key = (lock, threading.get_ident())
    if key in _HELD:
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    while True:
        try:
            handle = open(lock, "a+b")
        except OSError as error:
            raise ModelError(f"{path}: cannot take the model's lock, {lock} ({error.strerror or error}): the "
                             "model's folder must be writable for nbtext to write the model there") from None
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            if os.path.samestat(os.fstat(handle.fileno()), os.stat(lock)):
                break
        except FileNotFoundError:  # its holder removed it as it let go
            pass
        handle.close()
    _HELD[key] = 1
    try:
        yield
    finally:
        del _HELD[key]
        with contextlib.suppress(OSError):  # removed while held: a waiter then sees it gone, and starts again
            os.unlink(lock)
        handle.close()  # which lets the lock go


def save(payload: Any, path: str) -> None:
    """Write ``payload`` to the model file ``path`` atomically, under its lock: a crash never
    leaves a half-written file there. A link is followed: the file it points to is replaced,
    and the link kept. A file replaced keeps its mode, and its owner and group where this
    process may give them (a filter kept 0600 stays so); a new one is made as the umask says.
    A temporary file that a writer killed mid-save left (``.MODEL.XXXXXXXX.tmp``) is removed:
    under the lock, no other writer has one."""
    import tempfile  # here, not at the top: 5 ms of every cold start that only loads

    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    tmp = None
    try:
        with locked(path):
            _remove_stale_temporaries(folder, name)
            try:
                replaced: os.stat_result | None = os.stat(target)
            except FileNotFoundError:
                replaced = None
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            with os.fdopen(fd, "wb") as handle:
                dump(payload, handle)
                handle.flush()
                os.fsync(handle.fileno())
            if replaced is None:
                os.chmod(tmp, 0o666 & ~_umask())
            else:
                os.chmod(tmp, stat.S_IMODE(replaced.st_mode))
                if (replaced.st_uid, replaced.st_gid) != (os.getuid(), os.getgid()):
                    with contextlib.suppress(OSError):  # not ours to give: the file becomes this user's
                        os.chown(tmp, replaced.st_uid, replaced.st_gid)
            os.replace(tmp, target)
            tmp = None
    except BaseException as error:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(error, OSError):  # no such folder, no permission, a full disk
            raise ModelError(f"{path}: cannot write the model ({error.strerror or error})") from None
        raise


def _remove_stale_temporaries(folder: str, name: str) -> None:
    """Remove the temporary files of saves of the model ``name`` in ``folder`` that never
    finished (``kill -9``, a power cut), as ``save`` names them; called under the model's lock."""
    pattern = re.compile(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp")
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --- the checksum of a payload -------------------------------------------------------------


def checksum(payload: Any) -> int:
    """The CRC-32 of everything ``payload`` holds: each array's type, shape and bytes, and each
    plain value, in the order the file holds them, so that a flipped bit anywhere in a model
    file changes it (a flip in an array's bytes loads fine, and changed answers silently).

    >>> import numpy as np
    >>> one = {"alpha": 0.2, "counts": np.array([1.0, 2.0])}
    >>> checksum(one) == checksum({"alpha": 0.2, "counts": np.array([1.0, 2.0])})
    True
    >>> checksum(one) == checksum({"alpha": 0.2, "counts": np.array([1.0, 2.5])})
    False
    """
    return _crc(payload, 0)


def _crc(value: Any, crc: int) -> int:
    """``crc`` carried on over ``value`` (see ``checksum``); a TypeError for a value that no
    model file holds."""
    kind = type(value)
    if kind is np.ndarray:
        crc = zlib.crc32(f"a{value.dtype.str}{value.shape}".encode(), crc)
        return zlib.crc32(np.ascontiguousarray(value), crc)
    if kind is dict:
        crc = zlib.crc32(b"{", crc)
        for key, item in value.items():
            crc = _crc(item, _crc(key, crc))
        return zlib.crc32(b"}", crc)
    if kind is list or kind is tuple:
        crc = zlib.crc32(b"[" if kind is list else b"(", crc)
        for item in value:
            crc = _crc(item, crc)
        return zlib.crc32(b"]", crc)
    if kind is str:
        return zlib.crc32(b"s%d:" % len(value) + value.encode("utf-8", "surrogatepass"), crc)
    if kind is bool or value is None:
        return zlib.crc32({True: b"T", False: b"F", None: b"N"}[value], crc)
    if kind is int:
        return zlib.crc32(b"i%d;" % value, crc)
    if kind is float:
        return zlib.crc32(b"f" + struct.pack("<d", value), crc)
    raise TypeError(f"a model file holds no {kind.__name__}")

"""One listed file: its bytes, read by bare system calls and no further than the cap on one
document, or the reason it is skipped (gone, unreadable, no text)."""

from __future__ import annotations

import os
import stat
import sys
from typing import Any, BinaryIO

from ..errors import DataError
from .decoding import WIDE_HEAD
from .filekinds import decompressed, file_not_text
from .report import ReadReport, TooLarge

#: A listed file gone when it is read: a mail client or delivery agent moved it meanwhile
#: (maildir's new/ to cur/), or it was deleted.
GONE = "gone before it was read (moved or deleted meanwhile)"


#: A link whose target cannot be looked at: missing, or a loop of links.
BROKEN_LINK = "broken link or unreadable"


#: The start of the reason for a listed file that cannot be read; the system's reason follows.
UNREADABLE = "unreadable ("


def not_found(path: str) -> DataError:
    """The error for a path given to be read that names nothing there: none, or a link to
    nothing that can be read."""
    if os.path.islink(path):
        return DataError(f"{path}: a link to nothing that can be read (its target is missing, or it loops)")
    return DataError(f"{path}: no such file or folder")


def is_url(path: str) -> bool:
    """Whether ``path`` names a file through a protocol (``s3://bucket/key``, ``file:///data``)
    rather than on this machine's file system.

    >>> is_url("s3://corpora/news.tsv"), is_url("news.tsv"), is_url("C:/news.tsv")
    (True, False, False)
    """
    scheme, sep, _ = path.partition("://")
    return bool(sep) and len(scheme) > 1 and scheme.replace("+", "").replace("-", "").isalnum()


def url_file_system(url: str) -> tuple[Any, str]:
    """The fsspec file system that reads ``url``, and the path within it; a DataError naming
    the package to install where fsspec, or the protocol's own package, is missing."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise DataError(f"{url}: reading URLs needs fsspec: pip install 'nbtext[cloud]'") from None
    try:
        return url_to_fs(url)
    except ImportError as error:  # fsspec names the package: "Install s3fs to access S3"
        raise DataError(f"{url}: {error}") from None
    except ValueError as error:  # "Protocol not known: foo"
        raise DataError(f"{url}: {error}") from None


def open_binary(path: str, buffering: int = -1) -> BinaryIO:
    """``path`` opened for reading bytes: a file here, or one a URL names (``url_file_system``).
    A URL's file that is not there is a DataError, as ``not_found`` says of a path."""
    if not is_url(path):
        return open(path, "rb", buffering=buffering)
    fs, inner = url_file_system(path)
    try:
        return fs.open(inner, "rb")
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None


def file_size(path: str) -> int:
    """The bytes of the file ``path`` names, here or at a URL."""
    if not is_url(path):
        return os.path.getsize(path)
    fs, inner = url_file_system(path)
    try:
        return int(fs.size(inner))
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None


def is_pipe(path: str) -> bool:
    """Whether ``path`` is a pipe, named (mkfifo) or bash's ``<(...)`` (/dev/fd/N): what it
    holds can be read once only, from its start, so nothing may look at that first."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def is_folder(entry: os.DirEntry[str]) -> bool:
    """Whether a listing's ``entry`` is a folder or a link to one. A link that cannot be
    followed is not: one that loops (to itself, or to a link back to it) raises where a
    missing target gives False, and is then skipped as a broken link, as one is."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def read_listed(path: str, size: int | None, report: ReadReport, *, mail: bool = False,
                limit: int | None = None) -> bytes | None:
    """The bytes of a file that a listing found, or None where it has gone since or cannot be
    read, skipped and counted: a live mail folder changes under a nightly job, and one message
    lost to a rename must not stop the answers for all the others. So is a file that starts
    as no text does (an image, a PDF, a compressed file, a model): read as text, it would be
    noise; and one of more than ``limit`` bytes (``MAX_DOCUMENT_BYTES``), of which no more is
    read than that. A ``mail`` file compressed with gzip, bzip2 or xz gives the message it
    holds: a mail server (Dovecot) may keep every message so, where decompressing them would
    break its mail store."""
    try:
        raw = read_bytes(path, size, limit)
        kind = file_not_text(raw[:WIDE_HEAD], path)
        if kind is not None and mail and (inner := decompressed(raw, limit)) is not None:
            raw, kind = inner, file_not_text(inner[:WIDE_HEAD], path)
    except FileNotFoundError:
        report.skip(BROKEN_LINK if os.path.islink(path) else GONE, path)
        return None
    except TooLarge as error:
        report.skip(error.reason, path)
        return None
    except OSError as error:
        report.skip(f"{UNREADABLE}{error.strerror or error})", path)
        return None
    if kind is not None:
        report.skip(f"not text ({kind})", path)
        return None
    return raw


def read_bytes(path: str, size: int | None = None, limit: int | None = None) -> bytes:
    """The whole of a file, by bare system calls: half the cost of ``open(path, "rb").read()``
    per file, which counts in folders of many small documents. ``size`` (as listed; when it is
    not known, 0 or None, as the file says now) is read in one call; a file that has grown is
    read on to its end. Past ``limit`` bytes, a TooLarge error, with no more than that read:
    a device such as /dev/zero has no end."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        size = size or os.fstat(fd).st_size
        most = None if limit is None else limit + 1
        parts = [os.read(fd, size + 1 if most is None else min(size + 1, most))]
        total = len(parts[0])
        while parts[-1]:
            if most is not None and total >= most:
                raise TooLarge(limit)
            step = max(size, 1 << 16)
            parts.append(os.read(fd, step if most is None else min(step, most - total)))
            total += len(parts[-1])
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 2 else b"".join(parts)


def standard_input() -> BinaryIO:
    """stdin, as bytes; a DataError where it is closed (a job started with ``<&-``)."""
    if sys.stdin is None:
        raise DataError("stdin is closed, so there is nothing to read from it: give files or folders, or pipe "
                        "documents in")
    return sys.stdin.buffer

"""Mailboxes: mbox files (split as they stream, at From lines that end in an mbox date), maildirs,
and folders of message files; messages marked deleted by their mail client are skipped and counted."""

from __future__ import annotations

import codecs
import importlib
import io
import itertools
import mmap
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import BinaryIO, NamedTuple, Protocol

from .decoding import WIDE_HEAD, marked_encoding, narrowed, narrows
from .document import Document
from .filekinds import DECOMPRESSING, compression, not_text
from .files import is_folder, read_listed
from .mail import PLIST, RawMessage, parse_messages
from .report import ReadReport, too_large

#: An mbox's separator line: ``From``, then anything (the sender: ``-`` from Thunderbird, ``ann
#: at example.com`` in Mailman's archives, ``x@[10.0.0.1] [ufa]`` from a broken relay), then the
#: date the message was stored, which ends the line: weekday, month, day, time, year, with a
#: zone after the time (Google Takeout's ``+0000``) or after the year, and UUCP's ``remote from
#: HOST`` last. A paragraph of a message that begins "From what I saw on Mon Sep 9" does not end
#: so. The date is looked for at the line's end, so a line of any length is matched in one pass.
_WEEKDAY = rb"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"


_MONTH = rb"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"


_ZONE = rb"(?:[+-]\d{4}|[A-Z]{1,5}(?:[+-]\d{1,4})?)"


FROM_LINE = re.compile(rb"From (?:[^\r\n]*[ \t])?" + _WEEKDAY + rb",? +" + _MONTH + rb" +\d{1,2},? +\d{1,2}:\d\d"
                       rb"(?::\d\d)?(?: +" + _ZONE + rb")? +\d{4}(?: +" + _ZONE + rb")?(?: remote from \S+)?"
                       rb"[ \t]*(?:\r?\n|\r|\Z)")


def holds_mbox_messages(data: bytes | mmap.mmap) -> bool:
    """Whether a file's bytes are an mbox of several messages: a ``From `` separator line first
    (after a byte order mark, if the file was saved with one), and one after a blank line
    further on (CRLF lines too, as a mailbox written on Windows has).

    >>> holds_mbox_messages(b"From a@b.org Thu Sep 26 11:11:54 2002\\nSubject: 1\\n\\nhi\\n\\n"
    ...                     b"From c@d.org Thu Sep 26 11:12:01 2002\\nSubject: 2\\n\\nho\\n")
    True
    >>> holds_mbox_messages(b"From a@b.org Thu Sep 26 11:11:54 2002\\nSubject: 1\\n\\n"
    ...                     b"From what I saw on Mon 7 Oct at 9:30, it works.\\n")
    False
    """
    if narrows(data[:WIDE_HEAD]):  # saved with a mark, or in UTF-16: looked for in the text it holds
        data = narrowed(bytes(data))[0]
    if FROM_LINE.match(data) is None:
        return False
    for gap in (b"\n\nFrom ", b"\n\r\nFrom "):
        found = data.find(gap)
        while found >= 0:
            if FROM_LINE.match(data, found + len(gap) - 5):
                return True
            found = data.find(gap, found + 1)
    return False


#: Headers that a kept message has, as a mail system stores it or a mail client saves it.
_KEPT_HEADERS = frozenset({b"from", b"to", b"date", b"received", b"return-path", b"delivered-to", b"message-id",
                           b"mime-version"})


#: Of those, the ones that only mail sent through a mail system has: a Usenet post (From,
#: Subject, Organization) or a document with a Subject line of its own (Enron's) has none.
_SENT_HEADERS = frozenset({b"received", b"return-path", b"delivered-to", b"message-id", b"mime-version"})


_HEADER_NAME = re.compile(rb"([!-9;-~]+)[ \t]*:")


#: How much of a file tells that it is a message: its header block, or enough of it to name
#: the headers looked for (SpamAssassin's blocks run to 4.7 KB, their first Received line first).
_MESSAGE_HEAD = 1 << 12


def is_stored_message(data: bytes) -> bool:
    """Whether a file's bytes are a mail message as mail systems store one: an mbox ``From ``
    line first, or a header block that names two of the headers a kept message has, one of
    them one that only sent mail has (Received, Message-ID, MIME-Version...).

    >>> is_stored_message(b"Message-ID: <1@b.org>\\nFrom: a@b.org\\nSubject: lunch\\n\\nnoon?\\n")
    True
    >>> is_stored_message(b"Subject: meeting moved\\nsee you at noon\\nFrom: ann\\nMessage-ID: <1@b.org>\\n")
    False
    """
    head = data[:_MESSAGE_HEAD]
    if narrows(head[:WIDE_HEAD]):
        head = narrowed(head)[0]
    if FROM_LINE.match(head):
        return True
    names = set()
    start = 0
    while start < len(head):  # line by line, up to the blank line that ends the headers
        end = head.find(b"\n", start)
        end = len(head) if end < 0 else end
        if not head[start:end].strip():
            break
        if head[start:start + 1] not in (b" ", b"\t"):  # else a header's folded line
            named = _HEADER_NAME.match(head, start, end)
            if named is None:
                return False
            names.add(named[1].lower())
        start = end + 1
    return len(names & _KEPT_HEADERS) >= 2 and not names.isdisjoint(_SENT_HEADERS)


PROPERTY_LIST = "no mail (a property list, as Apple Mail keeps beside its messages)"


def read_message_files(entries: Iterable[tuple[str, str | None, int]], report: ReadReport, headers: Sequence[str],
                       progress: Callable[[int], None] | None = None, limit: int | None = None,
                       ) -> Iterator[Document]:
    """One Document per message file of ``entries`` (path, label, size), in order."""
    return parse_messages(message_files(entries, report, progress, limit), report, headers)


def message_files(entries: Iterable[tuple[str, str | None, int]], report: ReadReport,
                  progress: Callable[[int], None] | None = None, limit: int | None = None) -> Iterator[RawMessage]:
    """The message files of ``entries`` (path, label, size) read, in order; those that cannot
    be, are no text or are larger than ``limit`` bytes are skipped and counted in ``report``. A
    file that is an mbox of several messages (an inbox exported beside message files) gives
    each message, ``PATH:INDEX``: read as one message, the rest would be the first one's body."""
    for path, label, size in entries:
        raw = read_listed(path, size, report, mail=True, limit=limit)
        if raw is not None and PLIST.match(raw):  # Apple Mail's Info.plist, beside a mailbox's messages
            report.skip(PROPERTY_LIST, path)
        elif raw is not None and holds_mbox_messages(raw):
            yield from mbox_bytes_messages(raw, label, report, path, limit=limit)  # split as read: the file may go
        elif raw is not None:
            yield raw, path, label, None
        if progress is not None:
            progress(size)


def mbox_messages(path: str, label: str | None, report: ReadReport, progress: Callable[[int], None] | None = None,
                  name: str | None = None, limit: int | None = None) -> Iterator[RawMessage]:
    """The messages of an mbox file, ``PATH:INDEX`` (from 1; ``NAME:INDEX`` where the file holds
    what came from elsewhere), read as a stream: a message at a time is held, and none larger
    than ``limit`` bytes (it is skipped and counted), however large the file."""
    with open(path, "rb") as handle:
        head = handle.read(WIDE_HEAD)
        handle.seek(0)
        tool = compression(head)
        if tool in DECOMPRESSING:  # inbox.mbox.gz, which Dovecot reads too: its messages, if it holds any
            unpacked = _unpacked_head(path, tool)
            if unpacked is not None and _opens_mbox(unpacked[:_MBOX_HEAD]):
                with importlib.import_module(DECOMPRESSING[tool]).open(handle) as stream:
                    yield from mbox_stream_messages(stream, unpacked, label, report, name or path, progress, limit)
                return
        yield from mbox_stream_messages(handle, head, label, report, name or path, progress, limit)


def _unpacked_head(path: str, tool: str) -> bytes | None:
    """The first ``WIDE_HEAD`` bytes that the compressed file ``path`` holds, or None where they
    cannot be had (cut short, corrupt)."""
    import lzma  # here: for compressed mailboxes only (read by DECOMPRESSING's names)
    import zlib

    try:
        with importlib.import_module(DECOMPRESSING[tool]).open(path) as stream:
            return stream.read(WIDE_HEAD)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError):
        return None


def mbox_bytes_messages(raw: bytes, label: str | None, report: ReadReport, name: str,
                        progress: Callable[[int], None] | None = None, limit: int | None = None,
                        ) -> Iterator[RawMessage]:
    """The messages of an mbox held in memory (a file listed as a message), ``NAME:INDEX``,
    split as a file's are."""
    yield from mbox_stream_messages(io.BytesIO(raw), raw[:WIDE_HEAD], label, report, name, progress, limit)


def mbox_stream_messages(stream: BinaryIO, head: bytes, label: str | None, report: ReadReport, name: str,
                         progress: Callable[[int], None] | None, limit: int | None) -> Iterator[RawMessage]:
    """The messages of the mbox ``stream``, whose first bytes are ``head``. One saved by a
    Windows tool in UTF-16 or UTF-32 (PowerShell's ``>``) is read as the UTF-8 it holds, as it
    goes; invalid bytes there become U+FFFD, and the messages that hold one are counted as
    replaced (and so is one that held U+FFFD already: it was garbled before). Notepad's mark
    for UTF-8 is passed over."""
    wide = marked_encoding(head, "utf-8")
    start = narrowed(head[:WIDE_HEAD])[0]
    if wide is None:
        if head.startswith(codecs.BOM_UTF8):
            stream.read(len(codecs.BOM_UTF8))
        yield from _box_messages(stream, start, label, report, name, progress, None, limit)
        return
    text = _Narrowed(stream, wide)
    try:
        yield from _box_messages(text, start, label, report, name, progress, wide, limit)
    finally:
        text.release()


class _Narrowed(io.RawIOBase):
    """A UTF-16 or UTF-32 stream read as UTF-8 lines, each read once, as split_mbox reads them:
    ``readline(size)`` gives at most about ``size`` bytes of one line."""

    def __init__(self, stream: BinaryIO, encoding: str) -> None:
        # Lines end at LF alone, as a byte stream's do; bytes not valid in the encoding are U+FFFD.
        self._text = io.TextIOWrapper(stream, encoding=encoding, errors="replace", newline="\n")

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> bytes:
        return self._text.readline(-1 if size is None or size < 0 else max(size // 4, 1)).encode("utf-8",
                                                                                              "surrogatepass")

    def release(self) -> None:
        """Let go of the stream, which its opener closes."""
        self._text.detach()


class Lines(Protocol):
    """What an mbox is read from: a binary file, or a stream of its lines as UTF-8 (``_Narrowed``)."""

    def readline(self, size: int = -1, /) -> bytes: ...


def _box_messages(stream: Lines, start: bytes, label: str | None, report: ReadReport, name: str,
                  progress: Callable[[int], None] | None, invalid_in: str | None,
                  limit: int | None = None) -> Iterator[RawMessage]:
    """The messages of an mbox ``stream``, those marked deleted, or larger than ``limit`` bytes,
    skipped and counted, and the lines starting "From " that are no separator counted (each is a
    message to Python's mailbox). A compressed file cut short ends with the messages before."""
    import lzma
    import zlib

    if not _opens_mbox(start):  # a plain file read as an mbox would lose what comes before a "From " line
        kind = not_text(start)  # a compressed mbox (inbox.mbox.gz) is named as the folder reader names it
        report.skip(f"not text ({kind})" if kind else "not an mbox: it does not start with a 'From ' line"
                    if start else "empty mbox", name)
        return
    messages = split_mbox(stream, limit)
    for index in itertools.count(1):
        source = f"{name}:{index}"
        try:
            message = next(messages, None)
        except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as error:
            report.skip(f"unreadable from here on ({error})", source)
            return
        if message is None:
            return
        report.from_lines += [source] * message.from_lines
        if message.raw is None:
            report.skip(too_large(limit), source)
        elif marked_deleted(message.raw):
            report.skip(DELETED, source)
        else:
            yield message.raw, source, label, invalid_in if invalid_in and _REPLACEMENT in message.raw else None
        if progress is not None:
            progress(message.size)


class MboxMessage(NamedTuple):
    """One message of an mbox, without its From line and the blank line that ends it (None
    where it is larger than the cap on one document), its size in bytes, and how many of its
    lines start "From " though they are no separator (an mbox reader that splits at every
    such line, as Python's mailbox does, reads that many messages more)."""

    raw: bytes | None
    size: int
    from_lines: int = 0


def split_mbox(stream: Lines, limit: int | None = None) -> Iterator[MboxMessage]:
    r"""The messages of an mbox ``stream`` (a binary file, or ``io.BytesIO``); no more than
    ``limit`` bytes of a message are held, and one larger is given as None.

    A message ends at a From line that ends in an mbox date (weekday, month, day, time, year,
    and a zone where it has one), whatever names the sender, as every mbox writer puts there;
    not at a paragraph beginning "From" that its writer did not quote as ">From": that line is
    counted. Where the first From line has no such date, every From line ends a message, as
    in Python's mailbox.

    >>> [(message.raw, message.from_lines) for message in split_mbox(io.BytesIO(
    ...     b"From a@b.org Thu Sep 26 11:11:54 2002\n\nFrom what I saw, hi.\n\n"
    ...     b"From x@[10.1.1.1] [ufa]  Thu Sep 26 11:12:01 2002\nSubject: 2\n"))]
    [(b'\nFrom what I saw, hi.\n', 1), (b'Subject: 2\n', 0)]
    >>> [message.raw for message in split_mbox(io.BytesIO(b"From a\nSubject: one too long\n\nFrom b\nSubject: 2\n"),
    ...                                         limit=12)]
    [None, b'Subject: 2\n']
    """
    first = stream.readline(_LINE_PIECE)
    dated = FROM_LINE.match(first) is not None
    at_start = first.endswith(b"\n") or _rest_of_line(stream)
    message: list[bytes] = []
    size = unsplit = 0
    while piece := stream.readline(_LINE_PIECE):
        if at_start and piece.startswith(b"From "):
            if not dated or FROM_LINE.match(piece):
                yield _message(message, size, unsplit, limit)
                message, size, unsplit = [], 0, 0
                at_start = piece.endswith(b"\n") or _rest_of_line(stream)
                continue
            unsplit += 1
        size += len(piece)
        if limit is None or size <= limit + 2:  # a blank line that ends it, CR LF at most, is no part of it
            message.append(piece)
        else:
            message.clear()
        at_start = piece.endswith(b"\n")
    yield _message(message, size, unsplit, limit)


def _message(lines: list[bytes], size: int, from_lines: int, limit: int | None) -> MboxMessage:
    """The MboxMessage of a message's ``lines``, ``size`` bytes in all (more than are held, where
    they were let go past ``limit``)."""
    raw = _without_gap(lines)
    if limit is not None and (size > limit + 2 or len(raw) > limit):
        return MboxMessage(None, size, from_lines)
    return MboxMessage(raw, size, from_lines)


#: How much of a line an mbox is read in at a time: a line with no end (a base64 attachment
#: without line breaks, or no mbox at all) costs no more than this beyond its message. A From
#: line's date is looked for in its first piece.
_LINE_PIECE = 1 << 20


def _rest_of_line(stream: Lines) -> bool:
    """Read past the rest of a From line longer than ``_LINE_PIECE``; True: a line starts next."""
    while piece := stream.readline(_LINE_PIECE):
        if piece.endswith(b"\n"):
            break
    return True


def _without_gap(lines: list[bytes]) -> bytes:
    """A message's lines joined, without the blank line that parts it from the next."""
    return b"".join(lines[:-1] if lines and lines[-1] in (b"\n", b"\r\n") else lines)


#: U+FFFD in UTF-8: what a byte that did not decode became.
_REPLACEMENT = "\ufffd".encode()


#: How much of a file tells whether it opens as an mbox: "From ", after a byte order mark if it
#: has one, in UTF-32 at the widest.
_MBOX_HEAD = 4 * len("\ufeffFrom ")


def _opens_mbox(head: bytes) -> bool:
    return narrowed(head)[0].startswith(b"From ")


#: Why a message in an mbox or maildir is no document: its mail client marked it deleted. It
#: stays in the file until the client compacts the folder (Thunderbird) or expunges it (an IMAP
#: server, mutt), and moving a message to another folder leaves it so: read, the spam a user
#: moved out of the inbox would be learned as ham, and as spam in the folder it went to.
DELETED = "marked deleted in their mailbox, which keeps them until the mail client compacts or expunges it"


#: The end of a message's header: its first blank line.
_HEADER_END = re.compile(rb"\r?\n\r?\n")


#: The status headers that mark a message in an mbox deleted: Thunderbird's X-Mozilla-Status,
#: four hex digits of flags, 0x0008 among them; X-Status holding D, as Dovecot and UW IMAP
#: write it and mutt and Python's mailbox read it.
_STATUS = re.compile(rb"^(?:X-Mozilla-Status:[ \t]*([0-9A-Fa-f]{4})|X-Status:[ \t]*([A-Z]*))[ \t]*\r?$",
                     re.MULTILINE | re.IGNORECASE)


#: A maildir file name whose flags (after ``:2,``) hold T, trashed: IMAP's \Deleted, as Dovecot
#: and mutt keep it until the folder is expunged. Lower-case letters are keywords, not flags.
_TRASHED = re.compile(r"[:;!]2,[A-Z]*T[A-Za-z]*$")


def marked_deleted(raw: bytes) -> bool:
    """Whether a message of an mbox carries its mail client's mark for deleted.

    >>> [marked_deleted(head + b"\\n\\nX-Status: D\\n") for head in
    ...  (b"X-Mozilla-Status: 0009", b"X-Mozilla-Status: 0001", b"Status: RO\\nX-Status: AD", b"X-Status: A")]
    [True, False, True, False]
    """
    end = _HEADER_END.search(raw)
    for mozilla, flags in _STATUS.findall(raw[:end.start()] if end else raw):
        if (mozilla and int(mozilla, 16) & 0x0008) or b"D" in flags:
            return True
    return False


def maildir_messages(path: str, label: str | None, report: ReadReport,
                     progress: Callable[[int], None] | None = None, limit: int | None = None,
                     ) -> Iterator[RawMessage]:
    """The messages in ``cur/`` and ``new/`` of a maildir, in file-name order, each named by
    its file's path: a message of a maildir is a file, which ``mv`` files and ``nbtext learn``
    reads by that name (an mbox's messages are named ``PATH:INDEX``, having none). A message
    larger than ``limit`` bytes is skipped and counted."""
    files = sorted(
        os.path.join(path, sub, name) for sub in ("cur", "new") if os.path.isdir(os.path.join(path, sub))
        for name in os.listdir(os.path.join(path, sub)) if not name.startswith(".")
    )
    files.sort(key=os.path.basename)
    for file in files:
        if _TRASHED.search(os.path.basename(file)):
            report.skip(DELETED, file)
            continue
        raw = read_listed(file, None, report, mail=True, limit=limit)
        if raw is not None:
            if holds_mbox_messages(raw):  # a maildir holds a message a file: read as asked, and noted
                report.mboxes_read_whole.append(file)
            yield raw, file, label, None
            if progress is not None:
                progress(len(raw))


def is_maildir(path: str) -> bool:
    """A folder with ``cur/``, ``new/`` and ``tmp/``; or one copied by git, or out of a zip,
    which keep no empty folder: ``cur/`` or ``new/`` with no folder beside them but ``tmp/``
    and hidden ones (Maildir++'s ``.Junk``), holding a file named as a maildir names them, its
    delivery time first (``1600000000.M1P1.mailhost:2,S``)."""
    present = [sub for sub in _MAILDIR_FOLDERS if os.path.isdir(os.path.join(path, sub))]
    if len(present) == len(_MAILDIR_FOLDERS):
        return True
    if "cur" not in present and "new" not in present:
        return False
    try:
        with os.scandir(path) as entries:
            if any(not e.name.startswith(".") and e.name not in _MAILDIR_FOLDERS and is_folder(e) for e in entries):
                return False
        for sub in present:
            with os.scandir(os.path.join(path, sub)) as entries:
                first = next((e.name for e in entries if not e.name.startswith(".")), None)
            if first is not None:
                return _MAILDIR_NAME.match(first) is not None
    except OSError:
        return False
    return False


_MAILDIR_FOLDERS = ("cur", "new", "tmp")


#: How a maildir names a message's file: the time it was delivered, then what makes it unique.
_MAILDIR_NAME = re.compile(r"\d{9,}\.")


def is_mbox(path: str) -> bool:
    """A file that starts with an mbox ``From `` line and holds more than one message (a lone
    message with a ``From `` line, as many mail stores keep them, reads the same as mail).
    Its lines may end in CRLF, as a mailbox written on Windows does, and it may be saved with a
    byte order mark, in UTF-8, UTF-16 or UTF-32, as Windows editors and PowerShell save text."""
    try:
        with open(path, "rb") as handle:
            if not _opens_mbox(handle.read(_MBOX_HEAD)):
                return False
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return holds_mbox_messages(data)
    except (OSError, ValueError):
        return False

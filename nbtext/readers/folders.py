"""Folders of documents: one file is one document, and the first-level subfolder is its label."""

from __future__ import annotations

import mmap
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator

from ..errors import DataError
from .report import (WIDE_HEAD, Document, ReadReport, TooLarge, decode_file, decompressed, file_not_text, narrowed,
                     narrows)

#: (path, label or None, size in bytes) of one document file.
Entry = tuple[str, "str | None", int]


# Why an entry is skipped, as the read report says it.
#: A file directly in DATA, and the layout that fixes it.
OUTSIDE_CLASS_FOLDERS = "not inside a class folder (DATA holds one folder per class: DATA/LABEL/FILE)"
#: A link to a folder read under another path.
READ_ELSEWHERE = "link to a folder read elsewhere (not read twice)"
#: A listed file gone when it is read: a mail client or delivery agent moved it meanwhile
#: (maildir's new/ to cur/), or it was deleted.
GONE = "gone before it was read (moved or deleted meanwhile)"
#: A link whose target cannot be looked at: missing, or a loop of links.
BROKEN_LINK = "broken link or unreadable"
#: The start of the reason for a listed file that cannot be read; the system's reason follows.
UNREADABLE = "unreadable ("
#: A first-level folder in which no document was found: its label gets no documents from it.
NO_DOCUMENTS = "class folder holding no documents"
#: A DATA folder with nothing in it, as a path mistyped into a fresh folder gives.
EMPTY_DATA = "empty folder (DATA holds one folder per class: DATA/LABEL/FILE)"


def list_folder(root: str, report: ReadReport, *, labelled: bool) -> list[Entry]:
    """Every document file below ``root`` in a stable order; the rest is counted in ``report``.

    Hidden entries and non-regular files are skipped and counted. With ``labelled`` a file's
    label is its first-level subfolder, so files lying directly in ``root`` have none and are
    skipped and counted too. Folders come in name order, each one's files before its
    subfolders'. Links to folders are followed after the rest of the tree is listed, so that
    every folder is read once, under its own path where the tree holds it: a link to a folder
    read elsewhere (another class's, or one above it, which would loop) is skipped and counted.
    A class folder in which no document was found is counted too, so that a class does not go
    missing unsaid.
    """
    walk = _Walk(report, labelled)
    walk.enter(root, None, unreadable="unreadable folder")
    while walk.links:  # breadth by breadth: links met inside linked folders come after
        links, walk.links = walk.links, []
        for path, label in links:
            walk.enter(path, label, unreadable=BROKEN_LINK)
    if walk.class_folders:
        found = {label for _, label, _ in walk.entries}
        for path, label in walk.class_folders:
            if label not in found and path in walk.listed:  # one not listed is counted already
                report.skip(NO_DOCUMENTS, path)
    elif labelled and not walk.entries and root in walk.listed:  # else "no documents" would come unexplained
        with os.scandir(root) as listing:
            if next(listing, None) is None:
                report.skip(EMPTY_DATA, root)
    return walk.entries


class _Walk:
    """One listing: the entries so far, the folders read (device, inode) and the paths of those
    listed, the links to folders met but not yet followed, with the label their files would
    take, and the class folders (path, label) met."""

    def __init__(self, report: ReadReport, labelled: bool) -> None:
        self.report, self.labelled = report, labelled
        self.entries: list[Entry] = []
        self.seen: set[tuple[int, int]] = set()
        self.listed: set[str] = set()
        self.links: list[tuple[str, str | None]] = []
        self.class_folders: list[tuple[str, str]] = []

    def enter(self, folder: str, label: str | None, *, unreadable: str) -> None:
        """List ``folder`` unless a folder read already is the same one (skipped and counted);
        one that cannot be looked at is skipped and counted as ``unreadable``."""
        try:
            info = os.stat(folder)
        except OSError:
            self.report.skip(unreadable, folder)
            return
        identity = (info.st_dev, info.st_ino)
        if identity in self.seen:
            self.report.skip(READ_ELSEWHERE, folder)
            return
        self.seen.add(identity)
        self._list(folder, label)

    def _list(self, folder: str, label: str | None) -> None:
        """Append ``folder``'s document files to the entries, then its subfolders'. The kind of
        each entry comes from the folder listing itself; only a document file costs a ``stat``
        (its size), and a folder one more (its identity)."""
        report = self.report
        try:
            with os.scandir(folder) as listing:
                children = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            report.skip("unreadable folder", str(error.filename))
            return
        self.listed.add(folder)
        folders: list[os.DirEntry[str]] = []
        files: list[os.DirEntry[str]] = []
        for child in children:
            (folders if is_folder(child) else files).append(child)
        subfolders = []
        for child in folders:
            if child.name.startswith("."):
                report.skip("hidden", child.path)
                continue
            if self.labelled and label is None:
                self.class_folders.append((child.path, child.name))
            if child.is_symlink():
                self.links.append((child.path, label or child.name))
            else:
                subfolders.append(child)
        for child in files:
            if child.name.startswith("."):
                report.skip("hidden", child.path)
                continue
            try:
                info = child.stat()
            except OSError:
                report.skip(BROKEN_LINK, child.path)
                continue
            if not stat.S_ISREG(info.st_mode):
                report.skip("not a regular file", child.path)
            elif self.labelled and label is None:
                report.skip(OUTSIDE_CLASS_FOLDERS, child.path)
            else:
                self.entries.append((child.path, label if self.labelled else None, info.st_size))
        for child in subfolders:
            self.enter(child.path, label or child.name, unreadable="unreadable folder")


def not_found(path: str) -> DataError:
    """The error for a path given to be read that names nothing there: none, or a link to
    nothing that can be read."""
    if os.path.islink(path):
        return DataError(f"{path}: a link to nothing that can be read (its target is missing, or it loops)")
    return DataError(f"{path}: no such file or folder")


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


def read_files(
    entries: Iterable[Entry],
    report: ReadReport,
    *,
    encoding: str,
    progress: Callable[[int], None] | None = None,
    limit: int | None = None,
) -> Iterator[Document]:
    """One Document per file, decoded with ``encoding`` (invalid bytes replaced and counted);
    a file of more than ``limit`` bytes is skipped and counted.
    A file that is an mbox of several messages is one document too, as asked, noted in ``report``,
    and so is a labelled file that is a stored mail message, where the first of its class in
    ``entries`` is one (what train, eval and tune read: a class of mail is mail throughout, and
    a corpus of other text costs a look a class)."""
    mail_classes: dict[str, bool] = {}
    for path, label, size in entries:
        raw = read_listed(path, size, report, limit=limit)
        if raw is not None:
            if holds_mbox_messages(raw):
                report.mboxes_read_whole.append(path)
            elif label is not None and mail_classes.get(label, True):  # its class's first file, or a class of mail
                stored = is_stored_message(raw)
                mail_classes.setdefault(label, stored)
                if stored:
                    report.mail_read_as_text.append(path)
            text, replaced, marked, page = decode_file(raw, encoding)
            yield report.add(Document(text, label, path), replaced=replaced, marked=marked, page=page)
        if progress is not None:
            progress(size if raw is None else len(raw))


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

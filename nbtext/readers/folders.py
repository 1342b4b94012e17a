"""Folders of documents: one file is one document, and the first-level subfolder is its label."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator

from .decoding import decode_file
from .document import Document
from .files import BROKEN_LINK, is_folder, read_listed
from .mailboxes import holds_mbox_messages, is_stored_message
from .report import ReadReport

#: (path, label or None, size in bytes) of one document file.
Entry = tuple[str, "str | None", int]


# Why an entry is skipped, as the read report says it.
#: A file directly in DATA, and the layout that fixes it.
OUTSIDE_CLASS_FOLDERS = "not inside a class folder (DATA holds one folder per class: DATA/LABEL/FILE)"
#: A link to a folder read under another path.
READ_ELSEWHERE = "link to a folder read elsewhere (not read twice)"
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



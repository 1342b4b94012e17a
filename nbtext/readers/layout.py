"""How a DATA folder is laid out: mailboxes or maildirs per class, and what a folder that gave no
document seems to be instead (a class's own folder, a corpus's parts, a table given as a folder),
with what to give."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from ..errors import DataError
from .filekinds import not_text
from .files import is_folder
from .folders import Entry
from .lines import LINE_FORMATS, sniff
from .mailboxes import is_maildir, is_mbox
from .tables import DELIMITERS

NO_MAILDIR = "class folder holding no maildir (without `input_format` maildir, its files are read as mail)"


#: How labelled maildirs are given: a maildir's messages have no class, and its cur/ and new/ are none.
MAILDIR_PER_CLASS = ("give a folder with a maildir per class (DATA/ham, DATA/spam; links will do: "
                     "ln -s ~/Maildir/.Junk DATA/spam)")


def mailbox_format(entries: list[Entry]) -> str | None:
    """How to read listed files where some class's largest file is an mbox of several messages
    (mailboxes exported one per class): ``mbox`` where every file is one, or empty (a mail
    client exports an empty folder as an empty file), else ``email``, so that a stray note or a
    class of message files is read beside the mboxes' messages, not the mboxes as one document
    each. ``email`` also where some file is named as a message is (``.eml``, as mail clients save
    one, or Apple Mail's ``.emlx``). None for anything
    else: a corpus of plain files costs one file's head a class."""
    if any(file.lower().endswith((".eml", ".emlx")) for file, _, _ in entries):  # a message a file
        return "email"
    largest: dict[str | None, tuple[str, int]] = {}
    for file, label, size in entries:
        if size > largest.get(label, ("", 0))[1]:
            largest[label] = (file, size)
    boxes = {file for file, _ in largest.values() if is_mbox(file)}
    if not boxes:
        return None
    return "mbox" if all(size == 0 or file in boxes or is_mbox(file) for file, _, size in entries) else "email"


def folder_format(root: str) -> str:
    """``maildir`` when a class folder is a maildir or directly holds one, else ``folder``.

    Only two levels are looked at, so telling a plain corpus from mail does not walk its whole
    tree before it is read (``--input-format maildir`` finds maildirs at any depth).
    """
    for label in subfolders(root):
        if is_maildir(label) or any(is_maildir(child) for child in subfolders(label)):
            return "maildir"
    return "folder"


def layout_hints(folders: Sequence[str]) -> list[str]:
    """What each DATA folder of ``folders``, which gave no document, seems to be instead, and
    what to give: a folder of files of labelled documents (``sms/`` for
    ``sms/SMSSpamCollection``), whose files are given themselves; a maildir's ``cur/``; or a
    class's own folder (``spam/``), whose parent holds the class folders, one line for the
    folders of one parent. Nothing for a folder that is none of these, or that holds a folder
    (an empty class's, said already).
    """
    hints: list[str] = []
    class_folders: dict[str, tuple[list[str], list[str]]] = {}  # parent: its folders, the DATA among them
    for root in folders:
        files = _files_only(root)
        if not files:
            continue
        parent = os.path.normpath(os.path.join(root, os.pardir))
        if parent == os.curdir or parent.startswith(os.pardir):  # "." would read as a full stop
            parent = os.path.abspath(parent)
        if is_maildir(parent):  # its cur/ or new/
            hints.append(f"{root} is a folder of the maildir {parent}, whose messages have no class: "
                         f"{MAILDIR_PER_CLASS}")
            continue
        kinds = [SUFFIXES.get(suffix(file)) or _sniffed(file) for file in files[:_TABLES_HINTED]]
        if len(files) <= _TABLES_HINTED and all(kinds):
            shown = ", ".join(sorted({kind for kind in kinds if kind}))
            hints.append(f"{files[0]} holds labelled documents ({shown}): give the file itself as DATA"
                         if len(files) == 1 else
                         f"the {len(files)} files of {root} hold labelled documents ({shown}): give the files "
                         "themselves as DATA")
        elif parent in class_folders:
            class_folders[parent][1].append(root)
        elif not os.path.samefile(parent, root):  # the root of the filesystem has no folder above
            class_folders[parent] = (sorted(map(os.path.basename, subfolders(parent))), [root])
    for parent, (classes, roots) in class_folders.items():
        if len(classes) < 2:  # a folder of files in a folder of its own: no class folders to point to
            continue
        named = _named(classes)
        who = (f"{roots[0]} holds files and no folder, as one class's folder does" if len(roots) == 1 else
               f"{', '.join(roots[:-1])} and {roots[-1]} hold files and no folder, as class folders do")
        hints.append(f"{who}: give the folder above, {parent}, which holds a folder per class ({named})")
    return hints


def _named(names: Sequence[str]) -> str:
    """The first ``_CLASSES_HINTED`` of ``names``, and how many more."""
    named = ", ".join(names[:_CLASSES_HINTED])
    return named + (f" and {len(names) - _CLASSES_HINTED:,} more" if len(names) > _CLASSES_HINTED else "")


def parts_hint(root: str, entries: Sequence[Entry]) -> str | None:
    """What to give instead where DATA ``root`` is a corpus's folder one level too high: its
    class folders are named as parts are (train and test; part1, part2; enron1..enron6), hold
    no document of their own, and hold mostly the same folders (20news-bydate/train/alt.atheism
    and 20news-bydate/test/alt.atheism), which are the classes. A root that holds one folder
    only (lingspam/bare/part1/spam) is looked at below it. None where ``root`` is no such folder.
    Only the listed ``entries`` are looked at: the check reads nothing more.
    """
    prefix = os.path.join(root, "")
    rows = [path[len(prefix):].split(os.sep, 3) for path, _, _ in entries if path.startswith(prefix)]
    while rows and len({row[0] for row in rows}) == 1 and all(len(row) > 2 for row in rows):
        prefix = os.path.join(prefix, rows[0][0], "")
        rows = [row[1:] for row in rows]
    if not rows or any(len(row) < 3 for row in rows):
        return None
    inside: dict[str, set[str]] = {}
    for row in rows:
        inside.setdefault(row[0], set()).add(row[1])
    parts = sorted(inside, key=_natural)
    shared = set.intersection(*inside.values())
    if len(parts) < 2 or len(shared) < 2 or 2 * len(shared) < len(set.union(*inside.values())) \
            or not _part_names(parts):
        return None
    where = prefix.rstrip(os.sep)
    told = (f"the folders of {where} ({_named(parts)}) were read as classes, but look" if where == root.rstrip(os.sep)
            else f"the documents of {root} are all in {where}, whose folders ({_named(parts)}) look")
    example = next((part for part in parts if part.lower() in ("train", "training")), parts[0])
    return (f"{told} like parts of one corpus: each holds the same folders ({_named(sorted(shared, key=_natural))}) "
            f"and no documents of its own. Give a part as DATA, or several ({os.path.join(where, example)}), whose "
            "folders are the classes")


#: Folder names that say a corpus is split, not what class a document is.
_SPLIT_NAMES = {"train", "training", "test", "testing", "dev", "devel", "val", "valid", "validation", "eval",
                "heldout", "holdout"}


def _part_names(names: Sequence[str]) -> bool:
    """Whether ``names`` are those of parts: split names (train, test), or one stem numbered
    (part1, part2; enron1..enron6; fold-0; 2003, 2004)."""
    if all(name.lower() in _SPLIT_NAMES for name in names):
        return True
    stems = {re.sub(r"[-_ ]?\d+$", "", name) for name in names}
    return len(stems) == 1 and all(re.search(r"\d$", name) for name in names)


def _natural(name: str) -> list:
    """A sort key that puts part2 before part10."""
    return [int(piece) if piece.isdigit() else piece for piece in re.split(r"(\d+)", name)]


def _files_only(folder: str) -> list[str]:
    """The non-hidden entries of ``folder``, in name order, where none is a folder; else, or
    where it cannot be listed (said already, as an unreadable folder), none."""
    try:
        with os.scandir(folder) as listing:
            children = [entry for entry in listing if not entry.name.startswith(".")]
    except OSError:
        return []
    return [] if any(is_folder(entry) for entry in children) else sorted(entry.path for entry in children)


#: How many files a folder may hold and still be hinted to be tables given by their folder.
_TABLES_HINTED = 10


#: How many class folders a hint names.
_CLASSES_HINTED = 6


#: How much of a file, and how many of its first lines, tell that it is labelled lines for a hint.
_SNIFFED_HINT = 1 << 16


_SNIFFED_LINES = 20


def _sniffed(path: str) -> str | None:
    """The labelled line format that a regular file's first lines all look like, as reading it
    as DATA would tell its first one, or None. Two lines at least, so that a class's document
    whose first line holds a tab is not taken for a table (a pipe is not opened: that would
    wait for a writer)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFFED_HINT)
            whole = not handle.read(1)
    except OSError:
        return None
    if not_text(head[:512]) is not None:
        return None
    lines = [line for line in head.splitlines(keepends=True) if line.strip()]
    if lines and not whole and not lines[-1].endswith(b"\n"):  # cut short by the read
        lines.pop()
    kinds = {sniff(line) for line in lines[:_SNIFFED_LINES]}
    return kinds.pop() if len(lines) >= 2 and len(kinds) == 1 else None


def subfolders(path: str) -> list[str]:
    """The non-hidden folders directly in ``path`` (from directory entries, no stat each)."""
    with os.scandir(path) as entries:
        return [e.path for e in entries if is_folder(e) and not e.name.startswith(".")]


def labelled_maildirs(root: str) -> list[tuple[str, str]]:
    """(maildir, label) for every maildir at or below ``root/<label>/``, in sorted order."""
    boxes = []
    for label in sorted(os.listdir(root)):
        top = os.path.join(root, label)
        if label.startswith(".") or not os.path.isdir(top):
            continue
        for dirpath, dirnames, _ in os.walk(top):
            dirnames.sort()
            if is_maildir(dirpath):
                boxes.append((dirpath, label))
                dirnames[:] = []
    return boxes


SUFFIXES = {".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".ft": "fasttext", ".csv": "csv"}


#: The files whose columns or fields --text-column and the like read, by name.
COLUMN_SUFFIXES = (*DELIMITERS, ".jsonl", ".ndjson")


#: Of those, the ones read by named columns or fields even without the options (a .tsv is
#: LABEL<TAB>TEXT lines unless they are given).
RECORD_SUFFIXES = (".csv", ".jsonl", ".ndjson")


def not_a_table(path: str, options: str, *, formats: str = "", kind: str = "") -> DataError:
    """The error for column ``options`` (as the user names them) given for ``path``: stdin, or
    a file or folder that is ``kind`` and not one of the ``formats`` they read."""
    if path == "-":
        return DataError(f"{options} read tables and JSONL files by name, not stdin: save the table to a file "
                         "first (e.g. > data.tsv)")
    return DataError(f"{path}: {options} read tables and JSONL files ({formats}); this is {kind}")


def read_by_name(path: str, fmt: str | None) -> DataError:
    """The error for a pipe given to be read as a format that reads a file or folder by name,
    or as a table by its columns (which looks at its header first)."""
    reader = (f"a {fmt} table read by its columns" if fmt in ("csv", "tsv") else f"`input_format` {fmt}")
    return DataError(f"{path}: a pipe, which can be read once only, from its start; {reader} reads a file or "
                     f"folder by name: save it to one first (a pipe takes lines: {', '.join(LINE_FORMATS)})")


def suffix(path: str) -> str:
    """A file name's extension, lower-cased: how its format is told."""
    return os.path.splitext(path)[1].lower()


def table_kind(path: str) -> str | None:
    """``records`` for a file read by named columns or fields (CSV, JSONL), ``table`` for one
    read so only with column options (TSV), None for any other path."""
    ending = suffix(path)
    return "records" if ending in RECORD_SUFFIXES else "table" if ending in COLUMN_SUFFIXES else None

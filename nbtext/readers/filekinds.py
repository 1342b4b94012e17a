"""What a file is when it is no text: images, PDFs, office documents, archives, compressed files,
pickles; named with the command that gets their text, so that the read report can say why a
file was skipped and what to do."""

from __future__ import annotations

import importlib
import io
import os
import re
import shlex
import struct
from typing import NamedTuple

from ..errors import DataError
from ..phrasing import plural
from .decoding import WIDE_HEAD, narrows
from .report import TooLarge

#: How compressed files start (no text does), their tool, and the command that writes one's
#: text to stdout.
_COMPRESSED = ((re.compile(rb"\x1f\x8b"), "gzip", "zcat"), (re.compile(rb"BZh[1-9]1AY&SY"), "bzip2", "bzcat"),
               (re.compile(rb"\xfd7zXZ\x00"), "xz", "xzcat"), (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd", "zstdcat"),
               (re.compile(rb"PK\x03\x04"), "zip", "unzip -p"))


#: How other files that are no text start: read as text, they would give a class noise words.
#: Thunderbird's index of a folder (Mork, in Inbox.msf beside the Inbox mbox) is text of a kind,
#: but no mail: copied with the mailboxes, it was read as a message of tokens and row numbers.
#: So is RTF (TextEdit's and WordPad's own format), whose words came with its markup's: fonttbl,
#: froman, fcharset0, par.
_BINARY = ((rb"\x89PNG\r\n\x1a\n", "a PNG image"), (rb"\xff\xd8\xff", "a JPEG image"), (rb"GIF8[79]a", "a GIF image"),
           (rb"%PDF-", "a PDF document; pdftotext converts it to text"),
           (rb"\{\\rtf", "an RTF document; pandoc -t plain converts it to text"),
           (rb"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Office document or Thumbs.db"),  # OLD_OFFICE
           (rb"\x80[\x02-\x05]", "a Python pickle, as an nbtext model file is"),
           (rb"// <!-- <mdb:mor", "Thunderbird's index of a mail folder, an .msf file"))


#: Any other file whose start has NUL bytes side by side, and is no UTF-16 or UTF-32.
BINARY = "binary data: NUL bytes side by side, as no text has"


#: Both, as one pattern with a group each: one match per file, whichever it is.
_NOT_TEXT = re.compile(b"|".join(b"(%s)" % pattern for pattern in [*(pattern for pattern, _ in _BINARY),
                                                                    *(magic.pattern for magic, _, _ in _COMPRESSED)]))


_NOT_TEXT_KINDS = [*(kind for _, kind in _BINARY),
                   *(f"{tool}-compressed; {command} writes its text" for _, tool, command in _COMPRESSED)]


def not_text(head: bytes) -> str | None:
    """What a file is whose first bytes are ``head`` (its first ``WIDE_HEAD``, or as many as
    there are), where they show it is no text: an image, a PDF, an old Office document, a
    compressed file, a tar archive, or a pickle (an nbtext model); or any other binary file
    (a program, a database, a font, a sound), which has NUL bytes side by side, as no text
    but UTF-16 or UTF-32 has. A lone NUL is text's still: 44 of Enron's spams have some,
    never two side by side; and so is text that NULs end, as a file cut short by a crash
    is padded (a file that starts with them is none).

    >>> not_text(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00"), not_text(b"\\x1f\\x8b\\x08"), not_text(b"Subject: PNG")
    ('a PNG image', 'gzip-compressed; zcat writes its text', None)
    >>> not_text(b"SQLite format 3\\x00\\x10\\x00\\x00\\x01"), not_text("caf\u00e9".encode("utf-16-le"))
    ('binary data: NUL bytes side by side, as no text has', None)
    >>> not_text(b"lunch at noon?\\n" + bytes(100)), not_text(bytes(100))
    (None, 'binary data: NUL bytes side by side, as no text has')
    """
    found = _NOT_TEXT.match(head)
    if found is None:
        if head[257:262] == b"ustar":  # a tar header's magic
            return "a tar archive; tar xf unpacks it"
        pair = head.find(b"\0\0", 0, WIDE_HEAD)
        if pair < 0 or (pair and not head[pair:WIDE_HEAD].strip(b"\0")):  # text, or text padded with NULs
            return None
        return None if narrows(head[:WIDE_HEAD]) else BINARY
    assert found.lastindex is not None  # each alternative is a group of its own
    return _NOT_TEXT_KINDS[found.lastindex - 1]


def file_not_text(head: bytes, path: str) -> str | None:
    """What the file ``path`` is, whose first bytes are ``head``, where it is no text, as
    ``not_text`` says; a compressed archive of files is named as one, with the command that
    unpacks it (zcat would write a tar archive), and so is an office document or e-book, with
    the command that converts it (each is a zip archive), and an old one (``by_name``)."""
    kind = not_text(head)
    if kind is not None and (packed := packed_as(path, head)) is not None:
        return _with_fix(packed.what, packed.fix)
    return by_name(kind, path)


#: What ``not_text`` calls the files of Office 97-2003, and Windows's thumbnail caches: one
#: file format, whose kinds the name tells apart.
OLD_OFFICE = "an old Office document or Thumbs.db"


def by_name(kind: str | None, path: str) -> str | None:
    """``kind``, as ``not_text`` gives it, told more closely by the file name ``path`` where
    that can: an Office 97-2003 file by its extension, with the command that converts it.

    >>> by_name(OLD_OFFICE, "q3/report.DOC")
    "a Word 97-2003 document; libreoffice --headless --convert-to 'txt:Text (encoded):UTF8' converts it to text"
    >>> by_name(OLD_OFFICE, "Thumbs.db") == OLD_OFFICE, by_name("a PNG image", "scan.doc")
    (True, 'a PNG image')
    """
    if kind != OLD_OFFICE:
        return kind
    return _with_fix(*_OLD_OFFICE_KINDS.get(os.path.splitext(path)[1].lower(), (kind, "")))


def _with_fix(what: str, fix: str) -> str:
    """What a file is, and how to get its text where there is a way: a skipped file's reason."""
    return f"{what}; {fix}" if fix else what


def check_not_compressed(head: bytes, source: str) -> None:
    """A DataError for a file (or stdin) whose first bytes ``head`` are a compressed file's,
    which would be read as text and fail on its first line, or train on noise.

    >>> check_not_compressed(b"\\x1f\\x8b\\x08\\x08", "a.gz")
    Traceback (most recent call last):
    nbtext.errors.DataError: a.gz: gzip-compressed, not text; decompress it first (zcat a.gz writes its text)
    """
    for magic, tool, command in _COMPRESSED:
        if magic.match(head):
            if source == "<stdin>" and (office := streamed_office(head)) is not None:
                raise DataError(f"{source}: {office.what}, not text; {office.piped}")
            packed = None if source == "<stdin>" else packed_as(source, head)
            if packed is not None:
                raise DataError(f"{source}: {packed.what}, not text: {packed.fix_given(source)}")
            fix = (f"decompress it in the pipe: {command} FILE | nbtext ..." if source == "<stdin>" else
                   f"decompress it first ({command} {shlex.quote(source)} writes its text)")
            raise DataError(f"{source}: {tool}-compressed, not text; {fix}")


class Packed(NamedTuple):
    """A file that holds more than one text, or text in another format's markup: what it is,
    how to get text from it where it is one file of a folder (``fix``, "" if there is no one
    way), and ``given``, the same where it is given as DATA (``{file}`` its path, ``{base}``
    that without its extension, ``{stem}`` the file's name without it); ``piped``, where it
    comes on stdin, for an office document or e-book."""

    what: str
    fix: str
    given: str
    piped: str = ""

    def fix_given(self, path: str) -> str:
        base = os.path.splitext(path)[0]
        return self.given.format(file=shlex.quote(path), base=shlex.quote(base),
                                 stem=shlex.quote(os.path.basename(base)))


def packed_as(path: str, head: bytes) -> Packed | None:
    """What the file ``path``, whose first bytes are ``head``, is, and how to get its text,
    where it is a compressed archive of files, as corpora come (``20news-bydate.tar.gz``),
    not one compressed text: a zip of more than one file or of a folder, or a tar archive
    under gzip, bzip2 or xz (a tar header names ``ustar`` at byte 257; GNU and BSD tar tell
    the compression themselves); or an office document or e-book, zips of XML too."""
    import zipfile  # here: 6 ms, for a file that starts as a zip only

    tool = compression(head)
    try:
        if tool == "zip":
            with zipfile.ZipFile(path) as archive:
                members = archive.infolist()
                office = _office_kind(archive)
            if office is not None:
                return office
            if len(members) < 2:  # one compressed file, which unzip -p writes
                return None
            files = sum(not member.is_dir() for member in members)
            return _archive(f"a zip archive of {files:,} {plural(files, 'file')}", "unzip")
        if tool not in DECOMPRESSING:
            return None
        with importlib.import_module(DECOMPRESSING[tool]).open(path) as stream:
            start = stream.read(512)
        if start[257:262] != b"ustar":
            return None
        return _archive(f"a tar archive, {tool}-compressed", "tar xf")
    # Cut short, or not what its start says; or a member zipfile cannot read (encrypted, or an
    # unknown compression).
    except (OSError, EOFError, ValueError, RuntimeError, NotImplementedError, zipfile.BadZipFile):
        return None


def _archive(what: str, unpack: str) -> Packed:
    """An archive of files, which the command ``unpack`` unpacks."""
    return Packed(what, f"{unpack} unpacks it", f"unpack it ({unpack} {{file}}) and give the folder it makes as DATA")


#: How to get the text of an office document or e-book: as a folder's file, and given as DATA;
#: on stdin, pandoc reads it too, told its format.
_DOCUMENT = ("pandoc -t plain converts it to text", "convert it first (pandoc -t plain {file} -o {base}.txt)")


def _piped_document(pandoc_format: str) -> str:
    return f"convert it in the pipe: ... | pandoc -f {pandoc_format} -t plain | nbtext ..."


#: LibreOffice writes CSV in the locale's character set unless told UTF-8 (76; 44 and 34: comma and quote).
_TO_CSV = "libreoffice --headless --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76'"


_SHEET = (f"{_TO_CSV} saves it as CSV",
          f"save it as CSV ({_TO_CSV} {{file}} writes {{stem}}.csv, of its first sheet) and give that as DATA",
          f"save it to a file, and that as CSV: {_TO_CSV} FILE")  # LibreOffice reads no pipe


_SLIDES = ("", "export its text first", "export its text first")


#: Office 97-2003 files by their extension, and how to get their text (LibreOffice writes text
#: in the locale's character set unless told UTF-8, as it writes CSV).
_OLD_OFFICE_KINDS = {
    ".doc": ("a Word 97-2003 document", "libreoffice --headless --convert-to 'txt:Text (encoded):UTF8' converts it "
                                        "to text"),
    ".xls": ("an Excel 97-2003 workbook", _SHEET[0]),
    ".ppt": ("a PowerPoint 97-2003 presentation", _SLIDES[0]),
}


#: Office Open XML files by the part that only their kind has, OpenDocument files and EPUB
#: books by the media type their first member, ``mimetype``, holds.
_OFFICE_PARTS = {"word/document.xml": Packed("a Word document", *_DOCUMENT, _piped_document("docx")),
                 "xl/workbook.xml": Packed("an Excel workbook", *_SHEET),
                 "ppt/presentation.xml": Packed("a PowerPoint presentation", *_SLIDES)}


_MEDIA_TYPES = {b"application/vnd.oasis.opendocument.text": Packed("an OpenDocument text", *_DOCUMENT,
                                                                   _piped_document("odt")),
                b"application/vnd.oasis.opendocument.spreadsheet": Packed("an OpenDocument spreadsheet", *_SHEET),
                b"application/vnd.oasis.opendocument.presentation": Packed("an OpenDocument presentation", *_SLIDES),
                b"application/epub+zip": Packed("an EPUB book", *_DOCUMENT, _piped_document("epub"))}


#: How much of a stream's start is looked at for an office document's members.
STREAM_HEAD = 1 << 16


#: In a stream, which cannot be opened as a zip, an office document shows in its members'
#: headers, whose names are not compressed: an OpenDocument file's or an EPUB book's first,
#: ``mimetype``, is followed by its media type, stored as it is; an Office Open XML file's
#: members are in a folder of its kind's (ZIP's local file header: 30 bytes, then the name).
_STREAMED_PART = re.compile(rb"PK\x03\x04.{26}(word|xl|ppt)/", re.DOTALL)


_PART_FOLDERS = {folder.split("/")[0].encode(): kind for folder, kind in _OFFICE_PARTS.items()}


def streamed_office(head: bytes) -> Packed | None:
    """The office document or e-book a stream is, from its first bytes ``head`` (as many as
    are at hand: the part that tells a Word document is some hundred bytes in), if it is one.

    >>> sizes = (20).to_bytes(4, "little") * 2 + (8).to_bytes(2, "little") + bytes(2)
    >>> streamed_office(b"PK\\x03\\x04" + bytes(14) + sizes + b"mimetypeapplication/epub+zipPK").what
    'an EPUB book'
    >>> streamed_office(b"PK\\x03\\x04" + bytes(26) + b"notes.txt") is None
    True
    """
    if not head.startswith(b"PK\x03\x04"):
        return None
    if head[30:38] == b"mimetype":  # stored: its size, then its name's length and an extra field's
        size, _, _, extra = struct.unpack_from("<IIHH", head, 18)
        return _MEDIA_TYPES.get(head[38 + extra:38 + extra + size].strip())
    part = _STREAMED_PART.search(head, 0, STREAM_HEAD)
    return None if part is None else _PART_FOLDERS[part.group(1)]


def stream_not_text(head: bytes) -> str | None:
    """What a stream (stdin, a named pipe) is whose first bytes are ``head``, where it is no
    text, as ``not_text`` says; an office document or e-book is named, with how to get its
    text in a pipe."""
    office = streamed_office(head)
    return not_text(head) if office is None else _with_fix(office.what, office.piped)


def _office_kind(archive) -> Packed | None:
    """The office document or e-book the zip ``archive`` is, if it is one."""
    names = set(archive.namelist())
    found = next((kind for part, kind in _OFFICE_PARTS.items() if part in names), None)
    if found is None and "mimetype" in names:
        with archive.open("mimetype") as member:  # a few bytes: a media type, not a member made to be large
            found = _MEDIA_TYPES.get(member.read(100).strip())
    return found


#: The standard library's modules that read compressed files (zstd's came only in Python 3.14).
DECOMPRESSING = {"gzip": "gzip", "bzip2": "bz2", "xz": "lzma"}


def compression(head: bytes) -> str | None:
    """The tool that compressed the file whose first bytes are ``head`` (gzip, bzip2, xz, zstd
    or zip), or None where it is not compressed."""
    return next((tool for magic, tool, _ in _COMPRESSED if magic.match(head)), None)


def decompressed(raw: bytes, limit: int | None = None) -> bytes | None:
    """What ``raw`` holds, where it is one file compressed with gzip, bzip2 or xz: Dovecot keeps
    a maildir's messages so when its compression plugin is on, and tells them by their first
    bytes, whatever their names. None where ``raw`` is no such file, is cut short or corrupt,
    or holds a tar archive (several files, which ``packed_as`` names). Past ``limit`` bytes,
    a TooLarge error, with no more than that unpacked: a few KB can unpack to terabytes.

    >>> import gzip, lzma
    >>> decompressed(gzip.compress(b"Subject: hi")), decompressed(lzma.compress(b"a") + lzma.compress(b"b"))
    (b'Subject: hi', b'ab')
    >>> decompressed(b"Subject: hi"), decompressed(gzip.compress(b"Subject: hi")[:-4])
    (None, None)
    >>> decompressed(gzip.compress(bytes(10**6)), limit=1000)
    Traceback (most recent call last):
    nbtext.readers.report.TooLarge: 1000
    """
    tool = compression(raw)
    if tool not in DECOMPRESSING:
        return None
    import lzma  # here: every message filter reads is looked at, and nearly none is compressed
    import zlib

    try:
        with importlib.import_module(DECOMPRESSING[tool]).open(io.BytesIO(raw)) as stream:
            inner: bytes = stream.read(-1 if limit is None else limit + 1)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError):
        return None
    if limit is not None and len(inner) > limit:
        raise TooLarge(limit)
    return None if inner[257:262] == b"ustar" else inner

"""Mail: RFC 822 messages (one per file, in an mbox, or in a maildir) turned into document text.

The Subject and every text part make the document; HTML parts become text (tags, scripts and
styles dropped, entities decoded); each part is decoded by its declared charset, with a
fallback when the charset is wrong or unknown; attachments are skipped and counted.
Malformed MIME never stops a run: the message is read as well as it can be and counted.
"""

from __future__ import annotations

import codecs
import functools
import importlib
import io
import itertools
import mmap
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple, Protocol, cast

# email and html.parser are imported where used: together they cost a fresh
# `nbtext predict` on plain text about 30 ms it does not need.
if TYPE_CHECKING:
    import email.message

from .folders import FROM_LINE, holds_mbox_messages, is_folder, read_listed
from .html import html_charset, html_to_text
from .report import (DECOMPRESSING, WIDE_HEAD, Document, ReadReport, compression, decode_part, marked_encoding,
                     narrowed, not_text, too_large)

#: Headers whose tokens help tell spam from ham, and why (shown in the help of --headers).
USEFUL_HEADERS = {
    "subject": "the strongest single header: spam subjects reuse a small, loud vocabulary",
    "from": "sender domains and display names recur across a spam campaign",
    "to": "spam often goes to many or made-up recipients, ham to you by name",
    "reply-to": "spam replies are routed to throwaway domains",
    "x-mailer": "bulk-mailing software names itself here",
    "content-type": "multipart/alternative HTML mail and odd charsets are far commoner in spam",
}
#: Headers read as tokens by default when the input is mail: with them, SpamAssassin (5-fold)
#: scored 0.9977 against 0.9943 without and 0.9960 for the raw text (benchmarks/accuracy.py --mail).
DEFAULT_MAIL_HEADERS = ("from", "to", "reply-to", "x-mailer", "content-type")


def header_names(value: str | None) -> tuple[str, ...] | None:
    """The headers a ``--headers`` value names: None when it was not given (mail then gets
    DEFAULT_MAIL_HEADERS), no headers for ``none``.

    >>> header_names(" Subject, from"), header_names("none"), header_names(None)
    (('subject', 'from'), (), None)
    """
    if value is None:
        return None
    if value.strip().lower() == "none":
        return ()
    return tuple(name.strip().lower() for name in value.split(",") if name.strip())


def mail_headers(given: Sequence[str] | None, is_mail: bool) -> tuple[str, ...]:
    """The headers whose words become tokens: those ``--headers`` gave, else
    DEFAULT_MAIL_HEADERS for mail and none for other text.

    >>> mail_headers(None, True) == DEFAULT_MAIL_HEADERS, mail_headers(None, False), mail_headers((), True)
    (True, (), ())
    """
    if given is not None:
        return tuple(given)
    return DEFAULT_MAIL_HEADERS if is_mail else ()


_HEADER_TOKEN = re.compile(r"\w+")
#: Headers of which every message, stored or sent, has one at least. Input with none of them
#: is text, not mail: "Note: the meeting moved" is its first line, not a header to drop.
_MAIL_HEADERS = frozenset({"from", "to", "cc", "subject", "date", "received", "message-id", "mime-version",
                           "content-type", "return-path", "sender", "reply-to", "delivered-to", "newsgroups"})


@dataclass
class MailText:
    """What one message yields: its text and what happened while reading it."""

    text: str
    #: Bytes not valid in the charset a part or header declares were replaced.
    replaced: bool
    attachments: int
    malformed: bool
    message_id: str | None
    #: The encoding a byte order mark chose (UTF-16, UTF-32) where the message's bytes were not
    #: all valid in it, and were replaced before the charsets were read.
    marked: str | None = None


def message_text(raw: bytes, headers: Sequence[str] = ()) -> MailText:
    """Subject, text parts and (for ``headers``) prefixed header tokens of one raw message.

    Examples
    --------
    >>> raw = (b"Subject: =?iso-8859-1?q?Caf=E9?= offer\\nFrom: Ann <ann@example.com>\\n"
    ...        b"Content-Type: text/html; charset=iso-8859-1\\n\\n<p>Cr&egrave;me <b>br\\xfbl\\xe9e</b></p>"
    ...        b"<script>x()</script>")
    >>> mail = message_text(raw, headers=["from"])
    >>> print(mail.text)
    Subject: Café offer
    Crème brûlée
    from_ann from_ann_example_com from_com from_example from_example_com

    Text with no mail header, as typed to a filter, is read whole, as a plain file is:

    >>> message_text(b"URGENT: claim your prize\\nCall now\\n").text
    'URGENT: claim your prize\\nCall now\\n'
    """
    import email
    import email.parser
    import email.policy

    raw, invalid_in = narrowed(raw)
    raw = apple_message(raw)
    try:
        message = email.message_from_bytes(raw, policy=email.policy.compat32)
        if not any(name.lower() in _MAIL_HEADERS for name in message.keys()):  # typed or piped text
            text, replaced = decode_part(raw, None)
            return MailText(text, replaced, 0, False, None, invalid_in)
        parts, replaced, attachments, malformed, body_charset = _body(message)
    except RecursionError:  # parts nested deeper than the parser recurses: a hostile message, read flat
        message = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(raw, headersonly=True)
        body = str(message.get_payload()).encode("ascii", "surrogateescape")  # the bytes as they came
        text, replaced = decode_part(body, None)
        parts, attachments, malformed, body_charset = [text], 0, True, None
    subject, lossy = _header_text(message.get("Subject", ""), body_charset)
    # Kept as a "Subject:" line, even when empty: the word pair it makes with the first word
    # marks replies and forwards (subject re, subject fwd) and empty subjects (subject, then the
    # body's first word), and Subject-only stores read as they do as text.
    parts.insert(0, f"Subject: {subject}" if "Subject" in message else "")
    replaced |= lossy
    tokens = [token for name in headers for token in header_tokens(name, message.get_all(name) or [], body_charset)]
    if tokens:
        parts.append(" ".join(tokens))
    message_id = message.get("Message-ID")
    return MailText("\n".join(p for p in parts if p), replaced, attachments, malformed,
                    str(message_id).strip() if message_id else None, invalid_in)


#: How Apple Mail's .emlx file starts: the message's length in bytes, alone on its line.
_EMLX_LENGTH = re.compile(rb"[ \t]*(\d{1,12})[ \t]*\r?\n")
#: What follows the message in an .emlx file: a property list of Apple Mail's own (its flags);
#: as a file of its own (Info.plist in each of Mail's mailbox folders), it is no message.
_PLIST = re.compile(rb"\s*(?:<\?xml[^>]*>\s*)?<(?:!DOCTYPE plist|plist)\b")
PROPERTY_LIST = "no mail (a property list, as Apple Mail keeps beside its messages)"


def apple_message(raw: bytes) -> bytes:
    """The message an Apple Mail .emlx file holds, between the line that gives its length and
    the property list after it; any other message as it is. Read whole, the length was a word of
    its text and the property list's tags, flags and dates many more, and since the length line
    is no header, the headers and the MIME-encoded body were read as plain text.

    >>> apple_message(b"12\\nSubject: hi\\n<?xml version=\\"1.0\\"?><plist/>"), apple_message(b"12\\nSubject: hi\\n")
    (b'Subject: hi\\n', b'12\\nSubject: hi\\n')
    """
    length = _EMLX_LENGTH.match(raw)
    if length is None:
        return raw
    end = length.end() + int(length.group(1))
    return raw[length.end():end] if _PLIST.match(raw, end) else raw


def _body(message: email.message.Message) -> tuple[list[str], bool, int, bool, str | None]:
    """The texts of a parsed message's text parts, whether bytes were replaced, how many
    attachments were left out, whether the MIME was broken, and the charset its body declares."""
    malformed = _broken(message)
    attachments = 0
    body_charset = next((c for c in message.get_charsets() if c), None)
    replaced = False
    parts = []
    for part in message.walk():
        if part.is_multipart():
            if part.get_content_type() == "message/rfc822":  # a forwarded message: its Subject is its text too
                subjects, lossy = _forwarded_subjects(part, body_charset)
                parts.extend(subjects)
                replaced |= lossy
            continue
        maintype = part.get_content_maintype()
        # A multipart whose boundary never comes is left whole by the parser: read as the text
        # it is, as mail clients and SpamAssassin read it, not dropped as a part with no text.
        unsplit = maintype == "multipart"
        # A text part with a file name is a file sent beside the message (a patch, a log), but
        # the message's own body is its text whatever name a mailer gave it ("filename.html").
        attached = maintype != "text" or (part.get_filename() is not None and part is not message)
        if attached and not unsplit:
            malformed |= _broken(part)
            attachments += 1
            continue
        try:
            decoded = part.get_payload(decode=True)  # bytes, or None: never a Message outside multiparts
            payload = decoded if isinstance(decoded, bytes) else b""
        except Exception:  # a broken transfer encoding: keep what is there
            malformed = True
            payload = str(part.get_payload()).encode("utf-8", "replace")
        malformed |= _broken(part)  # decoding adds its own defects: base64 with bytes that are not base64
        html = part.get_content_subtype() == "html" or (unsplit and _HTML_TAG.search(payload) is not None)
        charset = part.get_content_charset() or (html_charset(payload) if html else None)
        body_charset = body_charset or charset  # raw 8-bit in the Subject is most likely in it too
        text, lossy = decode_part(payload, charset)
        replaced |= lossy
        parts.append(html_to_text(text) if html else text)
    return parts, replaced, attachments, malformed, body_charset


def _forwarded_subjects(part: email.message.Message, charset: str | None) -> tuple[list[str], bool]:
    """The Subject lines of the messages a message/rfc822 part holds, as mail clients show them,
    and whether bytes were replaced in them. Raw 8-bit is read in the charset each message's
    body declares, else in the outer one's."""
    inners = cast("list[email.message.Message]", part.get_payload())  # is_multipart(): a list of messages
    read = [_header_text(inner["Subject"], next((c for c in inner.get_charsets() if c), charset))
            for inner in inners if "Subject" in inner]
    return [f"Subject: {subject}" for subject, _ in read], any(lossy for _, lossy in read)


#: The tags that show a multipart left whole holds an HTML page, to be read as one.
_HTML_TAG = re.compile(rb"<(?:html|body)\b", re.IGNORECASE)


def _broken(part: email.message.Message) -> bool:
    """Whether the parser found real MIME damage; a missing blank line after the headers (the
    Enron corpus's "Subject: ...", then the body) is read correctly and not counted."""
    import email.errors

    return any(not isinstance(d, email.errors.MissingHeaderBodySeparatorDefect) for d in part.defects)


def header_tokens(name: str, values: Sequence[object], charset: str | None = None) -> list[str]:
    """Header words prefixed with the header's name: ``subject_free``, ``from_example_com``.

    Address headers also give each address's domain and the whole address as single tokens.
    Raw 8-bit bytes in a header (which the parser keeps as surrogates) are decoded with
    ``charset``, the message's own, as the Subject line is: a latin-1 "René" read as UTF-8
    would give ``from_ren``.

    >>> header_tokens("from", ["Ren\\udce9 <r@x.fr>"], "iso-8859-1")
    ['from_fr', 'from_r', 'from_r_x_fr', 'from_rené', 'from_x', 'from_x_fr']
    """
    prefix = name.lower().replace("-", "_") + "_"
    tokens: list[str] = []
    for value in values:
        text, _ = _header_text(value, charset)  # header tokens are extra evidence; the Subject counts replacements
        tokens += [prefix + word.lower() for word in _HEADER_TOKEN.findall(text)]
        if name.lower() in ("from", "to", "cc", "reply-to", "sender"):
            for _, address in _lenient_addresses()([text]):
                if "@" in address:
                    domain = address.rsplit("@", 1)[1].lower()
                    tokens.append(prefix + "_".join(_HEADER_TOKEN.findall(domain)))
                    tokens.append(prefix + "_".join(_HEADER_TOKEN.findall(address.lower())))
    return sorted(set(tokens))


@functools.cache
def _lenient_addresses() -> Callable[[list[str]], list[tuple[str, str]]]:
    """``email.utils.getaddresses``, parsing as leniently on every Python (asked once).

    Python 3.13, and the security releases of 3.10 to 3.12 since September 2024, reject a
    malformed header whole by default (``('', '')``); the lenient parser they keep reads
    ``To: <C:`Bulk.Adz...@dogma.slashnull.org>`` as older Pythons do. Malformed addresses
    are common in spam and tell it apart, and a model must see the same tokens in a message
    on whichever Python trains it or scores it.
    """
    import email.utils

    try:
        email.utils.getaddresses([], strict=False)
    except TypeError:  # a Python from before the strict parser: it parses leniently anyway
        return email.utils.getaddresses
    return functools.partial(email.utils.getaddresses, strict=False)


def _header_text(value: Any, charset: str | None = None) -> tuple[str, bool]:
    """A header as text, RFC 2047 encoded words decoded; raw 8-bit bytes (which the parser
    keeps as surrogates or "unknown-8bit") decoded with ``charset``, the message's own, as
    mail clients do. The flag says bytes were replaced."""
    import email.header

    lossy = False
    if isinstance(value, str) and any("\udc80" <= ch <= "\udcff" for ch in value):
        value, lossy = decode_part(value.encode("ascii", "surrogateescape"), charset)
    try:
        chunks = email.header.decode_header(value)
    except Exception:
        return str(value), lossy
    out = []
    for chunk, chunk_charset in chunks:
        if isinstance(chunk, bytes):
            chunk, replaced = decode_part(chunk, charset if chunk_charset in (None, "unknown-8bit") else chunk_charset)
            lossy |= replaced
        out.append(chunk)
    return "".join(out).replace("\r", " ").replace("\n", " ").strip(), lossy


# --- reading mail into Documents -----------------------------------------------------------


def read_message(raw: bytes, source: str, label: str | None, report: ReadReport,
                 headers: Sequence[str], invalid_in: str | None = None) -> Document:
    """One Document from one raw message, with what happened counted in ``report``.
    ``invalid_in`` is the encoding the message's bytes were not all valid in before it came
    here: an mbox's UTF-16, decoded whole before it was split."""
    mail = message_text(raw, headers)
    report.messages += 1
    if mail.attachments:
        report.attachments += mail.attachments
    if mail.malformed:
        report.malformed.append(source)
    marked = mail.marked or invalid_in
    return report.add(Document(mail.text, label, source, mail.message_id),
                      replaced=mail.replaced or marked is not None, marked=marked)


#: A message read but not parsed yet: its bytes, its source, its label, and the encoding its
#: bytes were not all valid in before it came (``read_message``'s ``invalid_in``). Reading is
#: cheap and done in order; parsing is most of the work, so worker processes can take it.
RawMessage = tuple[bytes, str, str | None, str | None]


def parse_messages(messages: Iterable[RawMessage], report: ReadReport, headers: Sequence[str]) -> Iterator[Document]:
    """The Documents of messages read but not parsed yet, in order (``read_message``)."""
    for raw, source, label, invalid_in in messages:
        yield read_message(raw, source, label, report, headers, invalid_in)


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
        if raw is not None and _PLIST.match(raw):  # Apple Mail's Info.plist, beside a mailbox's messages
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
    import lzma
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


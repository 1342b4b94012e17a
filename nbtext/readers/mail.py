"""Mail: RFC 822 messages (one per file, in an mbox, or in a maildir) turned into document text.

The Subject and every text part make the document; HTML parts become text (tags, scripts and
styles dropped, entities decoded); each part is decoded by its declared charset, with a
fallback when the charset is wrong or unknown, and in a guessed one where it declares none
and is not UTF-8; attachments are skipped and counted.
Malformed MIME never stops a run: the message is read as well as it can be and counted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, cast

# email and html.parser are imported where used: together they cost a fresh
# `nbtext predict` on plain text about 30 ms it does not need.
if TYPE_CHECKING:
    import email.message

from .decoding import decode_part, narrowed, undeclared_charset
from .document import Document
from .html import html_charset, html_to_text
from .report import ReadReport

#: Headers whose tokens help tell spam from ham, and why (shown in the help of --headers).
USEFUL_HEADERS = {
    "subject": "the strongest single header: spam subjects reuse a small, loud vocabulary",
    "from": "sender domains and display names recur across a spam campaign",
    "to": "spam often goes to many or made-up recipients, ham to you by name",
    "reply-to": "spam replies are routed to throwaway domains",
    "x-mailer": "bulk-mailing software names itself here",
    "content-type": "multipart/alternative HTML mail and odd charsets are far commoner in spam",
    "html-links": "not a header: the hosts HTML parts link to or load images from (html_links_example_com)",
}
#: Not a header: asked for among them (``--headers ...,html-links``), the URLs an HTML part
#: links to or loads images from, as tokens (``link_tokens``).
HTML_LINKS = "html-links"
#: Headers read as tokens by default when the input is mail, and the links of HTML parts: with
#: the links, a filter caught more SpamAssassin spam over time and as much in shuffled folds,
#: losing no ham, and mail read so scored above the raw text (docs/accuracy.md, "Links in HTML
#: mail" and "Mail read as mail").
DEFAULT_MAIL_HEADERS = ("from", "to", "reply-to", "x-mailer", "content-type", HTML_LINKS)


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
    #: 8-bit text in a part or the Subject, in no declared charset, was not UTF-8: read in a
    #: guessed one (``decoding.undeclared_charset``).
    guessed: bool = False


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
    import email  # the email package here, in each function: 25 ms that reading no mail skips
    import email.parser
    import email.policy

    raw, invalid_in = narrowed(raw)
    raw = apple_message(raw)
    try:
        message = email.message_from_bytes(raw, policy=email.policy.compat32)
        if not any(name.lower() in _MAIL_HEADERS for name in message.keys()):  # typed or piped text
            text, replaced = decode_part(raw, None)
            return MailText(text, replaced, 0, False, None, invalid_in)
        body = _body(message, HTML_LINKS in headers)
    except RecursionError:  # parts nested deeper than the parser recurses: a hostile message, read flat
        message = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(raw, headersonly=True)
        raw_body = str(message.get_payload()).encode("ascii", "surrogateescape")  # the bytes as they came
        text, replaced = decode_part(raw_body, None)
        body = _Body([text], replaced, 0, True, None, [], False)
    parts, replaced, body_charset, guessed = body.parts, body.replaced, body.charset, body.guessed
    if body_charset is None and (subject_charset := _raw_charset(message.get("Subject", ""))) is not None:
        body_charset, guessed = subject_charset, True  # raw 8-bit in a Subject over an ASCII body
    subject, lossy = _header_text(message.get("Subject", ""), body_charset)
    # Kept as a "Subject:" line, even when empty: the word pair it makes with the first word
    # marks replies and forwards (subject re, subject fwd) and empty subjects (subject, then the
    # body's first word), and Subject-only stores read as they do as text.
    parts.insert(0, f"Subject: {subject}" if "Subject" in message else "")
    replaced |= lossy
    tokens = [token for name in headers if name != HTML_LINKS
              for token in header_tokens(name, message.get_all(name) or [], body_charset)]
    if HTML_LINKS in headers:
        tokens += link_tokens(body.urls)
    if tokens:
        parts.append(" ".join(tokens))
    message_id = message.get("Message-ID")
    return MailText("\n".join(p for p in parts if p), replaced, body.attachments, body.malformed,
                    str(message_id).strip() if message_id else None, invalid_in, guessed)


#: How Apple Mail's .emlx file starts: the message's length in bytes, alone on its line.
_EMLX_LENGTH = re.compile(rb"[ \t]*(\d{1,12})[ \t]*\r?\n")


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
    return raw[length.end():end] if PLIST.match(raw, end) else raw


class _Body(NamedTuple):
    """What a message's body gives: its text parts' texts, and how they were read."""

    parts: list[str]
    #: Bytes not valid in a part's charset were replaced.
    replaced: bool
    #: Non-text parts left out.
    attachments: int
    #: The MIME structure was broken.
    malformed: bool
    #: The charset the body declares, or was read in: raw 8-bit in the Subject is read in it too.
    charset: str | None
    #: The URLs its HTML parts link to or load from, where asked for.
    urls: list[str]
    #: A part that declares no charset and is not UTF-8 was read in a guessed one.
    guessed: bool


def _body(message: email.message.Message, links: bool) -> _Body:
    """The texts of a parsed message's text parts and how they were read; the URLs of its HTML
    parts where ``links`` asks for them."""
    malformed = _broken(message)
    attachments = 0
    body_charset = next((c for c in message.get_charsets() if c), None)
    replaced = guessed = False
    parts: list[str] = []
    urls: list[str] = []
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
        if charset is None and (charset := undeclared_charset(payload)) is not None:
            guessed = True
        body_charset = body_charset or charset  # raw 8-bit in the Subject is most likely in it too
        text, lossy = decode_part(payload, charset)
        replaced |= lossy
        parts.append(html_to_text(text, links=urls if links else None) if html else text)
    return _Body(parts, replaced, attachments, malformed, body_charset, urls, guessed)


def link_tokens(urls: Sequence[str]) -> list[str]:
    """``HTML_LINKS``' tokens of the URLs a message's HTML links to or loads from: of each
    absolute one, the words after its scheme (host, path, query) and its host whole, lowercased
    and prefixed as a header's words are. bogofilter reads links so; the words of the path
    caught 2 points more of SpamAssassin's newest spam than the hosts alone (docs: accuracy).

    >>> link_tokens(["HTTP://img.CDN.net:80/a.gif", "mailto:ann@example.com", "/local"])
    ['html_links_80', 'html_links_a', 'html_links_cdn', 'html_links_gif', 'html_links_img', 'html_links_img_cdn_net', \
'html_links_net']
    """
    from urllib.parse import urlsplit

    prefix = HTML_LINKS.replace("-", "_") + "_"
    tokens: set[str] = set()
    for url in urls:
        try:
            parts = urlsplit(url.strip())
            host = parts.hostname
        except ValueError:  # a malformed IPv6 address, say
            continue
        if not parts.netloc:  # mailto:, a link within the site
            continue
        # urlsplit drops the tabs and line breaks a browser drops: a long link wrapped in the HTML
        after_scheme = " ".join((parts.netloc, parts.path, parts.query, parts.fragment))
        tokens.update(prefix + word.lower() for word in _HEADER_TOKEN.findall(after_scheme))
        if host:
            tokens.add(prefix + "_".join(_HEADER_TOKEN.findall(host)))
    return sorted(tokens)


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


def _raw_bytes(value: str) -> bytes | None:
    """A header's bytes as they came, where the parser kept raw 8-bit ones as surrogates; else None."""
    if any("\udc80" <= ch <= "\udcff" for ch in value):
        return value.encode("ascii", "surrogateescape")
    return None


def _raw_charset(value: Any) -> str | None:
    """The charset to read a header's raw 8-bit bytes in where nothing declares one
    (``undeclared_charset``): None where it has none, or they are UTF-8. The parser keeps
    them as surrogates, or as a Header's "unknown-8bit" chunks."""
    import email.header

    if isinstance(value, str):
        raw = _raw_bytes(value) or b""
    else:
        try:
            chunks = email.header.decode_header(value)
        except Exception:
            return None
        raw = b"".join(chunk for chunk, charset in chunks
                       if isinstance(chunk, bytes) and charset in (None, "unknown-8bit"))
    return undeclared_charset(raw)


def _header_text(value: Any, charset: str | None = None) -> tuple[str, bool]:
    """A header as text, RFC 2047 encoded words decoded; raw 8-bit bytes (which the parser
    keeps as surrogates or "unknown-8bit") decoded with ``charset``, the message's own, as
    mail clients do. The flag says bytes were replaced."""
    import email.header

    lossy = False
    if isinstance(value, str) and (raw := _raw_bytes(value)) is not None:
        value, lossy = decode_part(raw, charset)
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
    if mail.guessed:
        report.guessed.append(source)
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


#: What follows the message in an .emlx file: a property list of Apple Mail's own (its flags);
#: as a file of its own (Info.plist in each of Mail's mailbox folders), it is no message.
PLIST = re.compile(rb"\s*(?:<\?xml[^>]*>\s*)?<(?:!DOCTYPE plist|plist)\b")

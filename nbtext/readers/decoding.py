"""Bytes to text: byte order marks, UTF-16 and UTF-32 told by their NULs, mail's charsets widened
to what mail really uses, invalid bytes replaced and flagged so that the report can count them."""

from __future__ import annotations

import codecs
import re

from ..errors import DataError
from .html import html_charset, html_to_text, is_page

#: UTF-8's names: check_encoding gives the first, and callers may write either.
_UTF8 = ("utf-8", "utf8")


def without_bom(raw: bytes, encoding: str) -> bytes:
    """``raw`` without the UTF-8 byte order mark that Excel's "CSV UTF-8" and Notepad put
    at the start of a file."""
    return raw.removeprefix(codecs.BOM_UTF8) if encoding in _UTF8 else raw


#: The byte order marks of the wide encodings, UTF-32's first: UTF-32 LE's starts with UTF-16 LE's.
_WIDE_MARKS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
               (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


_ANY_WIDE_MARK = tuple(mark for mark, _ in _WIDE_MARKS)


def narrows(head: bytes) -> bool:
    """Whether ``narrowed`` changes text starting with ``head`` (its first ``WIDE_HEAD``
    bytes, or as many as there are): it opens with UTF-8's mark (Notepad's) or a wide one, or
    it is UTF-16 or UTF-32 without one.

    >>> [narrows(head) for head in (codecs.BOM_UTF8 + b"From ", "x".encode("utf-16"), "From ".encode("utf-16-le"),
    ...                            b"From ")]
    [True, True, True, False]
    """
    return head.startswith((codecs.BOM_UTF8, *_ANY_WIDE_MARK)) or unmarked_wide(head) is not None


def marked_order(head: bytes) -> str | None:
    """The wide codec with its byte order (``utf-16-le``) that the mark ``head`` starts with
    says, or None: what writes text back in the order it came.

    >>> marked_order(codecs.BOM_UTF16_BE + "note".encode("utf-16-be")), marked_order(b"note")
    ('utf-16-be', None)
    """
    return next((codec for mark, codec in _WIDE_MARKS if head.startswith(mark)), None)


def wide_encoding(head: bytes, encoding: str) -> str | None:
    """``utf-16`` or ``utf-32`` (or a variant) when a file in ``encoding`` that starts with
    ``head`` is in one of them: it was asked for, or a UTF-8 reading meets its byte order mark
    (Notepad's "Unicode"), which no UTF-8 text starts with. None otherwise.

    >>> wide_encoding("note".encode("utf-16"), "utf-8"), wide_encoding(b"note", "utf-8")
    ('utf-16', None)
    """
    if encoding.startswith(("utf-16", "utf-32")):
        return encoding
    if encoding not in _UTF8:
        return None
    ordered = marked_order(head)
    return ordered[:len("utf-16")] if ordered else unmarked_wide(head)


#: How much of a file's start tells, by where its NUL bytes fall, that it is UTF-16 or UTF-32
#: saved without a byte order mark.
WIDE_HEAD = 512


def unmarked_wide(head: bytes) -> str | None:
    r"""The wide codec, with its byte order, that text starting with ``head`` is in though it
    has no byte order mark (Python's ``encoding="utf-16-le"``, SQL Server's ``bcp -w``), told
    by where its NUL bytes fall: Latin text in UTF-16 LE is each letter then a NUL. No UTF-8
    text holds NULs; read as UTF-8, it came apart into letters, with nothing replaced.

    >>> [unmarked_wide("hi there".encode(codec)) for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")]
    ['utf-16-le', 'utf-16-be', 'utf-32-le', 'utf-32-be']
    >>> unmarked_wide("hi there".encode("utf-8")), unmarked_wide(b"a stray\x00NUL")
    (None, None)
    """
    head = head[:WIDE_HEAD]
    if len(head) < 4 or head.find(b"\x00") < 0:
        return None

    def nul_share(start: int, step: int) -> float:
        column = head[start::step]
        return column.count(0) / len(column)

    if len(head) >= 8:  # a letter's code point is below 2**16: its two high bytes are NUL
        if nul_share(2, 4) == nul_share(3, 4) == 1 and nul_share(0, 4) < 0.5:
            return "utf-32-le"
        if nul_share(0, 4) == nul_share(1, 4) == 1 and nul_share(3, 4) < 0.5:
            return "utf-32-be"
    even, odd = nul_share(0, 2), nul_share(1, 2)  # some CJK letters have a NUL byte too (U+4E00)
    if odd >= 0.25 and even <= odd / 4:
        return "utf-16-le"
    if even >= 0.25 and odd <= even / 4:
        return "utf-16-be"
    return None


def marked_encoding(head: bytes, encoding: str) -> str | None:
    """The encoding that the byte order mark a file starts with (``head``) chooses over the
    ``encoding`` asked for: UTF-16 or UTF-32 read as UTF-8. None where the mark agrees or
    there is none."""
    wide = wide_encoding(head, encoding)
    return wide if wide != encoding else None


def narrowed(raw: bytes) -> tuple[bytes, str | None]:
    """Mail saved by a Windows tool as UTF-16 or UTF-32 (PowerShell's ``>``) or with UTF-8's
    mark (Notepad), as the 8-bit bytes mail is made of, without the mark, which would hide a
    message's first header or an mbox's first From line; and the encoding its bytes were not
    all valid in, where some were replaced (by U+FFFD) on the way.

    >>> narrowed("\\ufeffSubject: hi\\n".encode("utf-16-le")), narrowed(b"\\xef\\xbb\\xbfSubject: hi\\n")
    ((b'Subject: hi\\n', None), (b'Subject: hi\\n', None))
    >>> narrowed(b"\\xff\\xfeh\\x00\\x00\\xdci\\x00")  # a lone half of a surrogate pair
    (b'h\\xef\\xbf\\xbdi', 'utf-16')
    """
    wide = marked_encoding(raw[:WIDE_HEAD], "utf-8")
    if wide is None:
        return without_bom(raw, "utf-8"), None
    text, replaced = decode(raw, wide)
    return text.encode("utf-8"), wide if replaced else None


def text_encoding(encoding: str, head: bytes, source: str) -> str:
    """The codec to open a file as text with, given its first bytes: for UTF-8, UTF-16 or
    UTF-32 where the file starts with their mark, else utf-8-sig, which drops a UTF-8 mark.
    Read as a stream, UTF-16 or UTF-32 of unnamed byte order needs the mark: a DataError
    names the way out where there is none."""
    codec = wide_encoding(head, encoding) or ("utf-8-sig" if encoding in _UTF8 else encoding)
    name = codecs.lookup(codec).name
    if name in ("utf-16", "utf-32") and not (marked_order(head) or "").startswith(name):
        raise DataError(f"{source}: {codec.upper()} with no byte order mark at its start; give the order: "
                        f"`encoding` {codec}-le (as Windows writes it) or {codec}-be")
    return codec


def _escape_bytes(error: UnicodeError) -> tuple[str, int]:
    """surrogateescape for every byte. Where a codec's invalid stretch holds a byte below 0x80
    (UTF-16 cut short, ISO-2022), surrogateescape gives up and the read would stop there."""
    assert isinstance(error, UnicodeDecodeError)
    return "".join(chr(0xDC00 + byte) for byte in error.object[error.start:error.end]), error.end


#: The error handler of text read in a stream, whose invalid bytes are marked U+DC00-U+DCFF
#: to be replaced, and counted, document by document.
ESCAPE_BYTES = "nbtext-escape"


codecs.register_error(ESCAPE_BYTES, _escape_bytes)


def unescape(value: str, encoding: str) -> tuple[str, bool]:
    """``value`` with its escaped bytes (``ESCAPE_BYTES``, surrogateescape) and any other lone
    surrogate (a JSON ``\\udce9``) replaced by U+FFFD; the flag says there were some."""
    if not _SURROGATES.search(value):
        return value, False
    try:  # the bytes decoded again, so that the replacement is what decoding with "replace" gives
        return value.encode(encoding, "surrogateescape").decode(encoding, "replace"), True
    except UnicodeError:  # a byte below 0x80 among them, a codec that cannot write them back (UTF-16), a JSON \ud800
        return _SURROGATES.sub("\ufffd", value), True


_SURROGATES = re.compile("[\ud800-\udfff]+")


def decode_file(raw: bytes, encoding: str) -> tuple[str, bool, str | None, bool]:
    """Decode a whole file as ``decode`` does, in UTF-16 or UTF-32 where it is read as UTF-8
    and starts with their byte order mark, or has none and its NULs say so (``unmarked_wide``);
    the third value names that encoding (else None). The headers ``nbtext filter --passthrough``
    adds to a message are left out (``_OWN_HEADERS``). A web page is the text it shows, and the
    fourth value says it was one: its tags, scripts and styles were words of every page alike.
    A page not valid UTF-8 is read by the charset its ``<meta>`` tag names, where it names one,
    as browsers read it (widened as mail's charsets are: ISO-8859-1 as Windows-1252)."""
    marked = (marked_encoding(raw[:WIDE_HEAD], encoding)  # two C calls a file, mostly
              if raw.startswith(_ANY_WIDE_MARK) or raw.find(b"\x00", 0, WIDE_HEAD) >= 0 else None)
    text, replaced = decode(raw, marked or encoding)
    if _OWN_PREFIX in text:
        text = _OWN_HEADERS.sub("", text)
    page = is_page(text)
    if page and replaced and marked is None and encoding in _UTF8 and (declared := html_charset(raw)):
        text, replaced = decode_part(raw, declared)  # a page saved in the charset it names, as browsers read it
    return html_to_text(text, title=True) if page else text, replaced, marked, page


#: The headers ``nbtext filter --passthrough`` adds: the verdict, and with ``--explain`` the
#: words. Named here, where they are dropped again, so that the two cannot drift apart.
_OWN_PREFIX = "X-Nbtext-"


STATUS_HEADER = _OWN_PREFIX + "Status"


WORDS_HEADER = _OWN_PREFIX + "Words"


#: Those headers with their line ends (the words folded). Mail read as a plain file is words,
#: headers and all, and a filter trained on delivered mail learned its own verdicts: "status
#: spam" and "spam score" were among the ten words that most raised spam, over SpamAssassin's
#: held-out messages.
_OWN_HEADERS = re.compile(rf"^{STATUS_HEADER}:.*(?:\n|$)|^{WORDS_HEADER}:.*(?:\n|$)(?:[ \t].*(?:\n|$))*",
                          re.MULTILINE)


def decode(raw: bytes, encoding: str) -> tuple[str, bool]:
    """Decode ``raw``; invalid bytes become U+FFFD and the flag says it happened."""
    raw = without_bom(raw, encoding)
    try:
        return raw.decode(encoding), False
    except UnicodeDecodeError:
        return raw.decode(encoding, "replace"), True


#: Charsets that mail declares for text written in a superset (Windows code pages, GBK).
_WIDER = {"gb2312": "gb18030", "gbk": "gb18030", "iso-8859-1": "cp1252", "us-ascii": "cp1252",
          "ks_c_5601-1987": "cp949", "euc-kr": "cp949", "big5": "big5hkscs"}


#: The scripts whose letters make a detector's guess worth more than Windows-1252's: a part
#: in one of them read as Windows-1252 is letters of no language (Shift JIS as "‚à‚à‚ª").
_SCRIPTS = frozenset({"CJK Unified Ideographs", "Hiragana", "Katakana", "Hangul Syllables", "Cyrillic",
                      "Greek and Coptic", "Thai", "Arabic", "Hebrew"})

_EIGHT_BIT_RUNS = re.compile(rb"[\x80-\xff]+")


def undeclared_charset(payload: bytes) -> str | None:
    """The charset to read a mail part in that declares none: None where it is ASCII or UTF-8
    (read as plain files are). Otherwise charset-normalizer's guess where the text it gives
    is in a script other than Latin (Chinese, Japanese, Korean, Cyrillic, Greek...), else
    Windows-1252: Western mail without a charset is mostly in it, and on a few 8-bit bytes
    the detector cannot tell it from the other Latin code pages (it names cp1250, cp775 or
    cp850 for an English text whose only 8-bit byte is a curly quote).

    The detector is asked only where most 8-bit bytes stand in runs of four or more, as the
    words of those scripts do (two Chinese characters, a Russian word of four letters). Latin
    words spell an accent or two between ASCII letters, and on those few bytes the detector's
    releases each read some spam as Chinese or Cyrillic, and differently ("valíum" as "val癈m",
    "irán" as "ir嫕").

    >>> undeclared_charset("café crème".encode("cp1252")), undeclared_charset("café".encode())
    ('cp1252', None)
    >>> undeclared_charset("ロリータビデオの専門店です。ご覧ください".encode("shift_jis"))
    'cp932'
    """
    if payload.isascii():
        return None
    try:
        payload.decode("utf-8")
        return None
    except UnicodeDecodeError:
        pass
    runs = [len(run) for run in _EIGHT_BIT_RUNS.findall(payload)]
    if 2 * sum(length for length in runs if length >= 4) < sum(runs):
        return "cp1252"
    from charset_normalizer import from_bytes  # 30 ms to import: only for the parts that need it

    best = from_bytes(payload).best()
    return best.encoding if best is not None and _SCRIPTS.intersection(best.alphabets) else "cp1252"


def decode_part(payload: bytes, charset: str | None) -> tuple[str, bool]:
    """Decode a part by its declared charset, widened to the superset mail really uses; when
    that fails, UTF-8, then Windows-1252 with replacement. A part that declares no charset is
    read as plain files are: UTF-8, invalid bytes replaced. The flag says replacement happened.

    >>> decode_part(b"caf\\xe9", "iso-8859-1"), decode_part(b"caf\\xe9", None)
    (('café', False), ('caf\ufffd', True))
    """
    if not charset:
        return decode(payload, "utf-8")
    name = charset.strip().strip('"').lower()
    for encoding in (_WIDER.get(name, name), "utf-8", "cp1252"):
        try:
            codecs.lookup(encoding)
            return payload.decode(encoding), False
        except (LookupError, ValueError):  # unknown, not a text codec, bytes it cannot take, a NUL in the name
            continue
    return payload.decode("cp1252", "replace"), True


def check_encoding(encoding: str) -> str:
    """The codec's canonical name, or a DataError naming an unknown encoding, or one that is no
    text encoding: Python's codecs include rot13, which turns text into text, and base64, hex,
    zlib, bz2 and uu, which turn bytes into bytes; no document is read with them.

    >>> check_encoding("Latin-1")
    'iso8859-1'
    >>> check_encoding("base64")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    nbtext.errors.DataError: base64 is no text encoding (it turns bytes into other bytes, or text into ...
    """
    try:
        name = codecs.lookup(encoding).name
        b"abcd".decode(name, "replace")  # only a text encoding decodes bytes to text (not b"": that is no work)
    except LookupError as error:
        if "not a text encoding" not in str(error):
            raise DataError(f"unknown encoding {encoding!r}; try utf-8, latin-1 or cp1252") from None
        raise DataError(f"{encoding} is no text encoding (it turns bytes into other bytes, or text into other "
                        "text); try utf-8, latin-1 or cp1252") from None
    except UnicodeError:  # the "undefined" codec, which refuses every byte
        raise DataError(f"{encoding} decodes nothing; try utf-8, latin-1 or cp1252") from None
    return name

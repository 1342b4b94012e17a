"""The headers ``nbtext filter --passthrough`` adds to a message (X-Nbtext-Status, X-Nbtext-Words),
written at the end of its header block, in its own line ends and encoding."""

from __future__ import annotations

import codecs
import re

from .model import Explanation
from .readers.decoding import STATUS_HEADER, WORDS_HEADER, marked_order, unmarked_wide
from .spam import VERDICTS


def status_header(verdict: int, score: float) -> str:
    """The header ``filter --passthrough`` adds, e.g. ``X-Nbtext-Status: Spam, score=0.987100``."""
    return f"{STATUS_HEADER}: {VERDICTS[verdict]}, score={score:.6f}"


def words_header(explanation: Explanation) -> str:
    """The header ``filter --passthrough --explain`` adds: a ``Model.explain`` explanation's
    words and weights, folded as mail headers are, and in RFC 2047 encoded words where a word
    is not ASCII.

    >>> from nbtext.model import Explanation
    >>> print(words_header(Explanation("spam", "ham", [("claim", 4.0083), ("prize", 3.7818)])))
    X-Nbtext-Words: claim 4.008, prize 3.782
    >>> print(words_header(Explanation("spam", "ham", [("café", 1.5)])))
    X-Nbtext-Words: =?utf-8?b?Y2Fmw6kgMS41MDA=?=
    """
    from email.header import Header  # here: 4 ms, for --explain with --passthrough only

    value = ", ".join(f"{term} {weight:.3f}" for term, weight in explanation.terms)
    folded = Header(value, charset=None if value.isascii() else "utf-8", header_name=WORDS_HEADER)
    return f"{WORDS_HEADER}: {folded.encode(linesep=chr(10))}".rstrip()


_HEADER_LINE = re.compile(rb"[!-9;-~]+:|[ \t]")


#: A message's first line ending, which its added lines take: CRLF, LF, or CR alone, as
#: Python's mail parser reads them.
_LINE_END = re.compile(rb"\r\n?|\n")


def insert_header(raw: bytes, header: str) -> bytes:
    r"""``raw`` with ``header`` added as the last line of its header block (a folded header,
    its lines joined by ``\n``, as the last lines).

    The block ends at the first line that is neither a header field nor its continuation
    (normally the blank line; some real mail, e.g. Enron's, goes straight on to the body).
    Every original byte is kept; the new line ends as the message's first line does, and is
    written in UTF-16 or UTF-32 where the message is, as its byte order mark tells, or where
    it has none, its NUL bytes.

    >>> insert_header(b"Subject: hi\r\nTo: me\r\n\r\nbody\r\n", "X-A: 1")
    b'Subject: hi\r\nTo: me\r\nX-A: 1\r\n\r\nbody\r\n'
    >>> insert_header(b"Subject: no blank line\nbody text\n", "X-A: 1")
    b'Subject: no blank line\nX-A: 1\nbody text\n'
    >>> insert_header(b"Subject: no body", "X-A: 1")
    b'Subject: no body\nX-A: 1\n'
    >>> insert_header(b"Subject: hi\rTo: me\r\rbody\r", "X-A: 1")
    b'Subject: hi\rTo: me\rX-A: 1\r\rbody\r'
    >>> insert_header("\ufeffSubject: hi\n\nbody\n".encode("utf-16-be"), "X-A: 1").decode("utf-16")
    'Subject: hi\nX-A: 1\n\nbody\n'
    >>> insert_header("Subject: hi\n\nbody\n".encode("utf-16-le"), "X-A: 1").decode("utf-16-le")
    'Subject: hi\nX-A: 1\n\nbody\n'
    """
    wide = marked_order(raw[:4]) or unmarked_wide(raw)
    if wide is not None:  # saved by a Windows tool (PowerShell's >): the line is added in the message's encoding
        try:
            text, rest = raw.decode(wide), b""
        except UnicodeDecodeError as error:  # bytes after the error are kept as they are
            text, rest = raw[:error.start].decode(wide), raw[error.start:]
        return insert_header(text.encode("utf-8"), header).decode("utf-8").encode(wide) + rest
    first_end = _LINE_END.search(raw)
    eol = first_end.group() if first_end else b"\n"
    last = eol[-1:]  # the byte that ends a line: LF, or CR alone where lines end so (Mac OS 9)
    line = header.encode("ascii").replace(b"\n", eol) + eol
    start = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0  # Notepad's mark stays first
    position = start
    if raw.startswith(b"From ", start):  # an mbox "From " line comes before the header fields
        position = first_end.end() if first_end else len(raw)
    while position < len(raw):
        end = raw.find(last, position)
        end = len(raw) if end < 0 else end + 1
        if not _HEADER_LINE.match(raw, position) or (position == start and raw[position:position + 1] in b" \t"):
            return raw[:position] + line + raw[position:]
        position = end
    return raw + line if raw.endswith(last) or not raw else raw + eol + line

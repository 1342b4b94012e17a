"""HTML as the text it shows: a mail's HTML part, or a web page saved as a document file."""

from __future__ import annotations

import functools
import re

#: How a web page starts: its doctype or its html tag, after an XML declaration or comments.
_PAGE = re.compile(r"\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)[\s>]",
                   re.IGNORECASE | re.DOTALL)


def is_page(text: str) -> bool:
    """Whether a document's text is a web page: it starts as one does.

    >>> is_page("<!DOCTYPE html>\\n<html>"), is_page("<html lang=en>"), is_page("Use <html> tags")
    (True, True, False)
    """
    return _PAGE.match(text, 0, 4096) is not None


#: An HTML page's own charset, in a meta tag near its start (where browsers look, the first 1,024 bytes).
_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def html_charset(payload: bytes) -> str | None:
    """The charset HTML names for itself in a ``<meta>`` tag, in its first kilobyte, as HTML
    says it must: mail clients honour it, as browsers do, when a part's MIME header names none
    (spam written in GB2312 or Windows-1251 often says so only there), and so does a saved page.

    >>> html_charset(b"<html><head><meta http-equiv=Content-Type content='text/html; charset=gb2312'>")
    'gb2312'
    """
    found = _META_CHARSET.search(payload, 0, 1024)
    return found.group(1).decode("ascii") if found else None


@functools.cache
def _html_parser_class() -> type:
    """The HTML-to-text parser class, defined on first use (html.parser is imported lazily)."""
    from html.parser import HTMLParser

    class TextOfHTML(HTMLParser):
        breaks = {"p", "br", "div", "tr", "li", "h1", "h2", "h3", "h4", "table", "td", "th"}

        def __init__(self, skip: frozenset[str], links: list[str] | None) -> None:
            super().__init__(convert_charrefs=True)
            self.skip = skip
            self.chunks: list[str] = []
            self.skipping = 0
            self.links = links

        def handle_starttag(self, tag: str, attrs) -> None:
            if self.links is not None:
                self.links += [value for name, value in attrs if name in _LINK_ATTRIBUTES and value]
            if tag in self.skip:
                self.skipping += 1
            elif tag in self.breaks:
                self.chunks.append("\n")

        def handle_endtag(self, tag: str) -> None:
            if tag in self.skip and self.skipping:
                self.skipping -= 1

        def handle_data(self, data: str) -> None:
            if not self.skipping:
                self.chunks.append(data)

    return TextOfHTML


#: What a mail's HTML part shows: not its head, whose title a mail client does not show.
_MAIL_SKIPS = frozenset({"script", "style", "head", "title"})
#: What a web page shows, its title (in the browser's tab) among it.
_PAGE_SKIPS = frozenset({"script", "style"})


#: The attributes whose values are where HTML links to, or loads from: a link's, an image's,
#: a form's, a page's background.
_LINK_ATTRIBUTES = frozenset({"href", "src", "action", "background"})


def html_to_text(html: str, *, title: bool = False, links: list[str] | None = None) -> str:
    """The visible text of HTML: tags dropped, entities decoded, scripts and styles removed,
    and the head with its title unless ``title`` (a web page's title is what its tab shows;
    a mail client shows none). Where a ``links`` list is given, the values of the attributes
    that link or load (``href``, ``src``, ``action``, ``background``) are added to it, which the
    text drops.

    >>> html_to_text("<style>p{}</style><p>Fish &amp; chips</p><p>&pound;5</p>")
    'Fish & chips\\n£5'
    >>> html_to_text("<head><title>Menu</title></head><p>Fish</p>", title=True)
    'Menu\\nFish'
    """
    parser = _html_parser_class()(_PAGE_SKIPS if title else _MAIL_SKIPS, links)
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # HTMLParser is lenient; anything it still rejects is kept as text
        return html
    lines = (" ".join(line.split()) for line in "".join(parser.chunks).splitlines())
    return "\n".join(line for line in lines if line)

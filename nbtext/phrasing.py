"""How nbtext phrases counts and sizes in its messages: "1 document", "2 classes", "64 MiB"."""

from __future__ import annotations


def size_text(n: int) -> str:
    """``n`` bytes, as a person reads a size.

    >>> size_text(64 << 20), size_text(1536), size_text(100), size_text(3 << 40)
    ('64 MiB', '1.5 KiB', '100 bytes', '3 TiB')
    """
    for unit, power in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << power:
            return f"{n / (1 << power):.4g} {unit}"
    return f"{n:,} {plural(n, 'byte')}"


def plural(n: int, noun: str) -> str:
    """``noun`` as it follows the number ``n``: ``document`` for 1, else ``documents``.

    >>> plural(1, "class"), plural(2, "class"), plural(0, "message")
    ('class', 'classes', 'messages')
    """
    return noun if n == 1 else noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")

"""nbtext's version, apart from the package face so that any module can name it without importing the
public API (pyproject.toml reads it from here)."""

__version__ = "0.2.0"

"""nbtext's one compiled part, the word scanner (nbtext/_wordscan.c). It is optional: where it
cannot be built (no C compiler), nbtext installs without it and finds words with numpy, with
the same results, more slowly. Everything else about the package is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("nbtext._wordscan", ["nbtext/_wordscan.c"], optional=True)])

"""nbtext's compiled parts: the word scanner (nbtext/_wordscan.c) and the sparse-times-dense
product that scores documents (nbtext/_sparsedot.c). Both are optional: where they cannot be
built (no C compiler), nbtext installs without them and does the same work with numpy, with
the same counts and the same scores to rounding, more slowly. Everything else about the
package is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("nbtext._wordscan", ["nbtext/_wordscan.c"], optional=True),
    Extension("nbtext._sparsedot", ["nbtext/_sparsedot.c"], optional=True),
])

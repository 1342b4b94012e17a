"""nbtext: Naive Bayes text classification, as a library and a command-line tool.

The public API is imported lazily, so that ``nbtext predict`` starts without paying for what
it does not use.

>>> import nbtext
>>> docs = [nbtext.Document("free cash", "spam", "1"), nbtext.Document("see you", "ham", "2")]
>>> model = nbtext.train(docs)
>>> model.predict(["cash for free"])
['spam']
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the lazy names below are, for a user's type checker and editor ("X as X": exported)
    from .analysis import Analyzer as Analyzer
    from .column_nb import CategoricalNB as CategoricalNB
    from .column_nb import GaussianNB as GaussianNB
    from .counting import ClassCounts as ClassCounts
    from .counting import FrozenCounts as FrozenCounts
    from .errors import DataError as DataError
    from .errors import ModelError as ModelError
    from .errors import NbtextError as NbtextError
    from .errors import NotFittedError as NotFittedError
    from .errors import NotLearnedError as NotLearnedError
    from .errors import UnsafeModelError as UnsafeModelError
    from .matrices import CountMatrix as CountMatrix
    from .metrics import evaluate as evaluate
    from .model import Explanation as Explanation
    from .model import Model as Model
    from .naive_bayes import BernoulliNB as BernoulliNB
    from .naive_bayes import ComplementNB as ComplementNB
    from .naive_bayes import MultinomialNB as MultinomialNB
    from .naive_bayes import NaiveBayes as NaiveBayes
    from .readers import Document as Document
    from .readers import LabelledCorpus as LabelledCorpus
    from .training import train as train

from ._version import __version__ as __version__

_API = {
    "Analyzer": "analysis",
    "ClassCounts": "counting",
    "CountMatrix": "matrices",
    "FrozenCounts": "counting",
    "NaiveBayes": "naive_bayes",
    "MultinomialNB": "naive_bayes",
    "BernoulliNB": "naive_bayes",
    "ComplementNB": "naive_bayes",
    "GaussianNB": "column_nb",
    "CategoricalNB": "column_nb",
    "Model": "model",
    "Explanation": "model",
    "Document": "readers",
    "LabelledCorpus": "readers",
    "train": "training",
    "evaluate": "metrics",
    "NbtextError": "errors",
    "DataError": "errors",
    "NotLearnedError": "errors",
    "ModelError": "errors",
    "UnsafeModelError": "errors",
    "NotFittedError": "errors",
}

__all__ = sorted(_API)


if not TYPE_CHECKING:  # a type checker reads the imports above: to it, a name outside them is an error

    def __getattr__(name: str) -> Any:
        if name in _API:
            return getattr(importlib.import_module(f".{_API[name]}", __name__), name)
        raise AttributeError(f"module 'nbtext' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The API and the module's own dunders: not the names imported to serve them, which
    tab completion would otherwise offer as nbtext's (``nbtext.Any``, ``nbtext.importlib``)."""
    return sorted([*(name for name in globals() if name.startswith("__")), *_API])

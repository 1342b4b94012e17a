"""A model as a linear one, in files any language reads: JSON, numpy's npz, or CSV.

A Naive Bayes document score is linear in the document's (weighed) term counts: the joint
log-likelihood of class c is W[c] . x + b[c] (``Model.linear_form``). Exported, the model runs
wherever a dot product does: a SQL query over a table of weights, a JavaScript function, a mail
server's plugin.

- ``json``: one object, every part of ``Model.linear_form`` (arrays as lists), with
  ``format`` ``nbtext-linear`` and its version.
- ``npz``: ``weights``, ``bias``, ``terms``, ``classes`` and ``idf`` as arrays, and every other
  part as the JSON text ``meta``.
- ``csv``: the weights alone, a row per term (``term``, then a column per class), the first
  row the bias, its term empty (no term is empty). Its settings (how text becomes x) are the
  JSON export's; a model with numeric or categorical columns exports to JSON or npz.
"""

from __future__ import annotations

import csv
import io
import json
from typing import IO, Any

import numpy as np

from ._version import __version__
from .analysis import CJK_RUN
from .errors import DataError
from .model import Model

FORMAT = "nbtext-linear"
FORMAT_VERSION = 1
FORMATS = ("json", "npz", "csv")
#: The parts npz keeps as arrays; the others go in its ``meta``.
_NPZ_ARRAYS = ("weights", "bias", "terms", "classes", "idf")


def exported(model: Model) -> dict[str, Any]:
    """``model.linear_form()`` as plain data (lists, not arrays), with the format named."""
    return {**_described(model), **_plain(model.linear_form())}


def _described(model: Model) -> dict[str, Any]:
    """The format, and the pattern of the CJK runs whose pairs of characters are tokens (None
    where the model reads them whole), which ``linear_form`` leaves to the analyzer."""
    pairs = model.analyzer.analyzer == "word" and model.analyzer.cjk_bigrams
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "nbtext_version": __version__,
            "cjk_run_pattern": CJK_RUN.pattern if pairs else None}


def write_export(model: Model, out: IO[Any], fmt: str) -> None:
    """Write ``model`` as a linear model to ``out`` (text for json and csv, bytes for npz).

    Examples
    --------
    >>> import io, nbtext
    >>> model = nbtext.train([nbtext.Document("cheap pills", "spam", "1"),
    ...                       nbtext.Document("lunch at noon", "ham", "2")])
    >>> out = io.StringIO()
    >>> write_export(model, out, "csv")
    >>> out.getvalue().splitlines()[:2]
    ['term,ham,spam', ',0.0,0.0']
    """
    if fmt not in FORMATS:
        raise DataError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "csv" and model.columns is not None:
        raise DataError("the model has numeric or categorical columns, which a CSV of weights cannot hold: export "
                        "it as json or npz")
    form = model.linear_form()
    if fmt == "json":
        json.dump(exported(model), out)
        out.write("\n")
    elif fmt == "csv":
        writer = csv.writer(out)
        writer.writerow(["term", *form["classes"]])
        writer.writerow(["", *map(repr, form["bias"].tolist())])
        weights = form["weights"]
        for j, term in enumerate(form["terms"]):
            writer.writerow([term, *map(repr, weights[:, j].tolist())])
    else:
        meta = {key: value for key, value in form.items() if key not in _NPZ_ARRAYS}
        arrays = {"weights": form["weights"], "bias": form["bias"], "terms": np.array(form["terms"], dtype=str),
                  "classes": np.array(form["classes"], dtype=str),
                  "idf": form["idf"] if form["idf"] is not None else np.zeros(0)}
        buffer = io.BytesIO()
        np.savez_compressed(buffer, meta=np.array(json.dumps({**_described(model), **_plain(meta)})), **arrays)
        out.write(buffer.getvalue())


def _plain(value: Any) -> Any:
    """``value`` with arrays as lists, for JSON."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value

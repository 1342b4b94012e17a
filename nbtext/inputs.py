"""Reading new documents the way a model's were read: a model records the format of its DATA
and the columns of its tables (``LabelledCorpus.summary``), and eval, predict, filter, learn and
``train --update`` read what they are given by them, unless told otherwise.

And the corpus train reads: mail gets the default header tokens, however it was found to be mail.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .analysis import Analyzer
from .errors import DataError, OptionsError
from .limits import MAX_DOCUMENT_BYTES
from .model import Model
from .readers import LINE_FORMATS, MAIL_FORMATS, Columns, LabelledCorpus, table_kind
from .readers.mail import mail_headers


def trained_format(model: Model) -> str | None:
    """How to read new documents for ``model``: ``email`` when it was trained on mail (mbox
    files and maildirs are recognised anyway), else by their own form."""
    return "email" if model.summary.get("input_format") in MAIL_FORMATS else None


def remembered_format(model: Model, paths: Sequence[str], given: str | None = None) -> str | None:
    """The input format labelled ``paths`` are read in: the one ``given``, else the one ``model``
    was trained on. Mail is read by name, so with a model trained on mail, stdin (``-``) needs
    its line format given."""
    trained = model.summary.get("input_format")
    if given is None and trained in MAIL_FORMATS and "-" in paths:
        raise DataError(f"{model.source or 'the model'} was trained on mail, which is read by name (DIR/<label>/ "
                        f"folders), not from stdin: give `input_format` {'|'.join(LINE_FORMATS)} to read labelled "
                        "lines from stdin")
    return given or trained


def remembered_columns(model: Model, paths: Sequence[str], given: Columns | None = None) -> Columns | None:
    """The columns ``given``, or where none were, those ``model`` was trained with, if every one
    of ``paths`` is a CSV or JSONL file, to read the same way; else None (the formats' own)."""
    trained = model.summary.get("columns")
    if given is not None and trained and trained.get("numeric", []) + trained.get("categorical", []) \
            and not given.values:  # a model's numbers and categories are read wherever its text is
        return dataclasses.replace(given, numeric=tuple(trained["numeric"]), categorical=tuple(trained["categorical"]),
                                   text_optional=trained["text_optional"])
    if given is not None or not trained or not paths or not all(table_kind(path) == "records" for path in paths):
        return given
    return Columns(trained["text"], trained["label"], trained["id"], numeric=tuple(trained.get("numeric", ())),
                   categorical=tuple(trained.get("categorical", ())), text_optional=trained.get("text_optional", False),
                   label_separator=trained.get("label_separator"))


def corpus_for(model: Model, paths: Sequence[str], *, input_format: str | None = None,
               columns: Columns | None = None, encoding: str = "utf-8",
               max_document_bytes: int | None = MAX_DOCUMENT_BYTES) -> LabelledCorpus:
    """Labelled ``paths`` read for ``model`` (to evaluate it, or add them to it): in the format
    and by the columns it was trained on unless others are given, with its mail headers.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from nbtext.training import train
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "train.csv").write_text("kind,body\\nspam,cheap pills\\nham,lunch at noon\\n")
    >>> _ = (folder / "test.csv").write_text("kind,body\\nspam,cheap cash\\n")
    >>> model = train(LabelledCorpus([str(folder / "train.csv")], columns=Columns("body", "kind")))
    >>> [(doc.label, doc.text) for doc in corpus_for(model, [str(folder / "test.csv")])]
    [('spam', 'cheap cash')]
    """
    columns = remembered_columns(model, paths, columns)
    return LabelledCorpus(paths, input_format=remembered_format(model, paths, input_format), encoding=encoding,
                          max_document_bytes=max_document_bytes, headers=model.analyzer.headers, columns=columns)


def training_corpus(paths: Sequence[str], analyzer: Analyzer, *, headers: Sequence[str] | None = None,
                    input_format: str | None = None, columns: Columns | None = None, encoding: str = "utf-8",
                    max_document_bytes: int | None = MAX_DOCUMENT_BYTES) -> tuple[LabelledCorpus, Analyzer]:
    """The corpus of ``paths`` to train on, and ``analyzer`` as it must read it: mail (by
    ``input_format``, or mbox files and maildirs found as such) adds the words of ``headers``
    as tokens, by default the ones that did best on SpamAssassin (``DEFAULT_MAIL_HEADERS``),
    the same whichever way it was found to be mail; other documents have no headers.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> box = pathlib.Path(tempfile.mkdtemp())
    >>> for label in ("spam", "ham"):
    ...     (box / label).mkdir()
    ...     _ = (box / label / "1.eml").write_text(f"From: a@{label}.example\\nSubject: hi\\n\\nhello\\n")
    >>> corpus, analyzer = training_corpus([str(box)], Analyzer(), input_format="email")
    >>> analyzer.headers
    ('from', 'to', 'reply-to', 'x-mailer', 'content-type', 'html-links')
    """
    corpus = LabelledCorpus(paths, input_format=input_format, encoding=encoding,
                            max_document_bytes=max_document_bytes, headers=headers or analyzer.headers,
                            columns=columns)
    if headers and not corpus.is_mail:  # plain text has no headers: they would be quietly unused
        raise OptionsError("`headers` adds the words of mail headers: read DATA as mail (`input_format` email, "
                           "mbox or maildir)")
    chosen = mail_headers(headers, corpus.is_mail)
    if chosen != analyzer.headers:
        analyzer = dataclasses.replace(analyzer, headers=chosen)
        corpus.headers = chosen
    return corpus, analyzer

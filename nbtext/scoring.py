"""Scoring a stream of documents with a model, answers in input order: in this process, or by
worker processes that each load the model from its file (its pages shared), block by block.

What each batch's answer is (predict's lines, filter's verdicts) is the caller's function, run
where the batch is scored; this module scores a batch (``scored``) and keeps the order.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from .errors import NbtextError
from .model import Explanation, Model
from .readers import Document, MailBatch, ReadReport, documents_of
from .readers.document import without_known_words
from .readers.files import is_pipe

#: What the caller makes of a batch (its output lines, and what was read).
Answer = TypeVar("Answer")
#: Documents per block handed to a scoring process: enough that sending it costs little.
BLOCK_DOCUMENTS = 1000


@dataclass
class Scored:
    """A batch of documents scored: each document, its class log-probabilities (``Model.
    predict_log_proba``), the ``k`` best classes of each, best first, and where asked for, why
    each got its label; and what reading the batch saw (mail parsed here, documents in which the
    model knows no word)."""

    documents: list[Document]
    log_proba: np.ndarray
    best: np.ndarray
    why: list[Explanation] | None
    seen: ReadReport


def scored(model: Model, batch: list[Document] | MailBatch, *, k: int = 1, explain: int | None = None) -> Scored:
    """``batch`` (documents, or a MailBatch, parsed here) scored by ``model``: what ``Scored``
    holds; with ``explain``, the words of each document that most raise its label over the
    runner-up (``Model.explain``).

    >>> from nbtext.training import train
    >>> model = train([Document("cheap pills", "spam", "1"), Document("lunch at noon", "ham", "2")])
    >>> done = scored(model, [Document("cheap pills at noon", None, "a")], k=2)
    >>> [[model.classes[i] for i in row] for row in done.best]
    [['spam', 'ham']]
    """
    documents, seen = documents_of(batch)
    if not documents:
        return Scored([], np.zeros((0, len(model.classes))), np.zeros((0, k), dtype=np.int64), None, seen)
    texts = [doc.text for doc in documents]
    values = model.values_of(documents)
    log_proba = model.predict_log_proba(texts, values)
    best = np.argsort(-log_proba, axis=1, kind="stable")[:, :k]
    why = model.explain(texts, explain, log_proba=log_proba, values=values) if explain else None
    seen.no_known_word = without_known_words(documents, model.scored_as_empty(log_proba))
    if values is not None:
        seen.unseen_values.update(model.unseen_values(values))
    return Scored(documents, log_proba, best, why, seen)


def in_order(batches: Iterable[tuple[list[Document] | MailBatch, bool]],
             answer: Callable[[Any, list[Document] | MailBatch, bool], Answer], *, model: Model, model_path: str,
             jobs: int = 1, state_of: Callable[[Model], Any] | None = None) -> Generator[Answer, None, None]:
    """``answer(state, batch, from_stdin)`` for each of ``batches`` (``readers.iter_unlabelled``'s),
    in their order, where ``state`` is ``state_of(model)`` (the model itself by default).

    With ``jobs`` > 1, worker processes do it, in blocks of ``BLOCK_DOCUMENTS``: each loads the
    model from ``model_path`` (its memory-mapped pages shared; a model read from a pipe is saved
    to a temporary file first) and scores in one thread, the processes sharing the cores. An
    answer comes as soon as it and every one before it are done, so output streams; closing
    the iterator stops the workers. ``answer`` and ``state_of`` must be module-level functions
    (or partials of them) for the workers to run them.
    """
    state_of = state_of or _itself
    if jobs <= 1:
        state = state_of(model)
        for batch, from_stdin in batches:
            yield answer(state, batch, from_stdin)
        return
    from .parallel import (
        map_in_processes,  # here: 6 ms of start-up a one-document predict does not need
    )

    with path_for_workers(model, model_path) as path:
        yield from map_in_processes(answer, functools.partial(_worker_state, path, state_of),
                                    blocks(batches, BLOCK_DOCUMENTS), jobs)


def _itself(model: Model) -> Model:
    return model


def _worker_state(path: str, state_of: Callable[[Model], Any]) -> Any:
    """A worker's state: the model loaded from ``path``, scoring in one thread (the processes share the cores)."""
    model = Model.load(path)
    model.threads = 1
    return state_of(model)


@contextlib.contextmanager
def path_for_workers(model: Model, model_path: str) -> Iterator[str]:
    """Where worker processes load ``model`` from: its file, or for a model that came through a
    pipe (read once, by a number only this process has), a copy in a temporary folder."""
    if not is_pipe(model_path):
        yield os.path.abspath(model_path)
        return
    import tempfile  # here: 5 ms of start-up, for a model that came through a pipe only

    with tempfile.TemporaryDirectory(prefix="nbtext-") as folder:
        model.save(os.path.join(folder, "model.joblib"))
        yield os.path.join(folder, "model.joblib")


def blocks(batches: Iterable[tuple[Any, bool]], size: int) -> Iterator[tuple[Any, bool]]:
    """The same documents as ``batches`` of (documents or MailBatch, from_stdin), in blocks of
    at least ``size`` documents (or what is left), never mixing stdin lines with files, nor
    mail to parse with documents read. An input error comes after the block read before it."""
    block: list = []
    kind: tuple = ()  # (from_stdin, the MailBatch's headers or None) of the block

    def made() -> tuple[Any, bool]:
        from_stdin, headers = kind
        return (block if headers is None else MailBatch(block, headers)), from_stdin

    try:
        for batch, from_stdin in batches:
            mail = isinstance(batch, MailBatch)
            if block and kind != (from_stdin, batch.headers if mail else None):
                yield made()
                block = []
            block += batch.messages if mail else batch
            kind = (from_stdin, batch.headers if mail else None)
            if len(block) >= size:
                yield made()
                block = []
    except NbtextError:
        if block:
            yield made()
        raise
    if block:
        yield made()

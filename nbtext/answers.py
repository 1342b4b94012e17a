"""The lines predict, filter and ``eval --errors`` write, one a document: TSV (each field on
one line and in one column, see ``render.tsv_field``) or JSON lines. A batch's lines are made
where it is scored, in a worker process too, so that only text comes back.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from .filtering import judge_batch
from .model import Explanation, Model
from .readers import Document, MailBatch, ReadReport
from .render import tsv_field
from .scoring import scored
from .spam import VERDICTS, SpamFilter

if TYPE_CHECKING:  # predict loads no evaluation, and the training it imports
    from .evaluation import WrongAnswer

#: predict's answer where no label is as probable as ``--threshold``: the document is left to a
#: person (the word filter gives a message it cannot call spam or ham).
UNSURE = "unsure"

#: A surrogate escape: a byte of a file name that is not valid UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")


def identity(doc: Document) -> str:
    """A document's name in the output: its path (a maildir's message's too), and for a message
    in an mbox ``PATH:INDEX`` followed by its Message-ID where it has one."""
    if doc.message_id and ":" in doc.source and not os.path.exists(doc.source):
        return f"{doc.source} {doc.message_id}"
    return doc.source


def explained_fields(explanation: Explanation) -> list[str]:
    """An explanation's words and weights as TSV fields: WORD, WEIGHT, WORD, WEIGHT..."""
    return [field for term, weight in explanation.terms for field in (tsv_field(term), f"{weight:.6f}")]


def predicted_lines(model: Model, batch: list[Document] | MailBatch, from_stdin: bool, *, k: int, proba: bool,
                    fmt: str, explain: int | None = None, threshold: float | None = None) -> tuple[str, ReadReport]:
    """predict's lines for one batch of documents (or a MailBatch, parsed here): the ``k`` best
    labels, with their probabilities where ``proba``, and the ``explain`` words that most raise
    the label over the runner-up, as ``tsv`` or ``jsonl``; and what was seen (the documents in
    which the model knows no word, what was parsed). With ``threshold``, only the labels at
    least that probable are given, and a document with none is answered ``UNSURE`` (null in
    JSON), with the best label's probability where ``proba``."""
    done = scored(model, batch, k=k, explain=explain)
    if not done.documents:
        return "", done.seen
    classes = model.classes if fmt == "jsonl" else [tsv_field(label) for label in model.classes]
    why = done.why
    lines = []
    for d, (doc, row, order) in enumerate(zip(done.documents, done.log_proba, done.best)):
        top: list[tuple[str | None, float]] = [(classes[i], float(np.exp(row[i]))) for i in order]
        if threshold is not None:
            sure = [(label, p) for label, p in top if p >= threshold]
            if not sure:
                done.seen.unsure.append(doc.source)
            top = sure or [(None, top[0][1])]
        if fmt == "jsonl":
            record: dict[str, Any] = {"line": int(doc.source.rsplit(":", 1)[1])} if from_stdin else {"path": doc.source}
            if doc.message_id:
                record["message_id"] = doc.message_id
            record["label"] = top[0][0]
            if proba:
                record["proba"] = top[0][1]
            if k > 1:
                record["top"] = [{"label": c, "proba": p} if proba else {"label": c} for c, p in top]
            if why:
                record["against"] = why[d].against
                record["explain"] = [{"term": term, "weight": weight} for term, weight in why[d].terms]
            line = json.dumps(record, ensure_ascii=False)
            if not line.isascii() and _SURROGATE.search(line):  # a name not valid UTF-8: JSON escapes it
                line = json.dumps(record)
            lines.append(line)
        else:
            fields = [] if from_stdin else [tsv_field(identity(doc))]
            for label, p in top:
                fields += [label or UNSURE, f"{p:.6f}"] if proba else [label or UNSURE]
            if why:
                fields += [tsv_field(why[d].against), *explained_fields(why[d])]
            lines.append("\t".join(fields))
    return "\n".join(lines) + "\n", done.seen


def verdict_lines(state: tuple[Model, SpamFilter], batch: list[Document] | MailBatch, from_stdin: bool, *,
                  explain: int | None = None) -> tuple[str, ReadReport]:
    """filter's lines for one batch of messages (or a MailBatch, parsed here), IDENTITY<TAB>VERDICT
    <TAB>SCORE and the words that explain it; and what was seen."""
    judged = judge_batch(state, batch, explain=explain)
    why = judged.why
    return "".join("\t".join([tsv_field(identity(doc)), VERDICTS[v], f"{s:.6f}",
                              *(explained_fields(why[d]) if why else [])]) + "\n"
                   for d, (doc, v, s) in enumerate(zip(judged.documents, judged.verdicts, judged.scores))), judged.seen


def verdict_line(source: str, verdict: int, score: float, why: Explanation | None) -> str:
    """filter's line for one message: VERDICT<TAB>SCORE, after the path where it is a file's."""
    fields = [] if source == "-" else [tsv_field(source)]
    return "\t".join([*fields, VERDICTS[verdict], f"{score:.6f}", *(explained_fields(why) if why else [])])


def wrong_lines(wrong: Iterable[WrongAnswer]) -> list[str]:
    """``eval --errors`` lines: NAME, TRUE, PREDICTED, the probability of each (empty where the
    model has no class TRUE), then the words that most raise PREDICTED over TRUE."""
    return ["\t".join([*map(tsv_field, [identity(answer.document), answer.document.label or "", answer.predicted]),
                       f"{answer.p_predicted:.6f}", "" if answer.p_true is None else f"{answer.p_true:.6f}",
                       *(explained_fields(answer.why) if answer.why is not None else [])]) + "\n"
            for answer in wrong]


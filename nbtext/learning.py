"""Teaching a spam filter from corrections, as ``nbtext learn`` does: messages added to the
filter's counts as spam or ham, or taken out again exactly, the model file rewritten under its
lock so that several learners at once lose no update.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import DataError, ModelError, NotLearnedError
from .inputs import trained_format
from .limits import MAX_DOCUMENT_BYTES
from .model import Model, with_texts
from .modelfile import folder_given, locked
from .readers import Document, ReadReport, iter_unlabelled
from .readers.document import document_digest
from .readers.files import is_pipe
from .spam import SpamFilter
from .training import held_already, update

#: The kinds of messages learn is given, each of which is learned as the filter's class for it.
KINDS = ("spam", "ham")


@dataclass
class Learned:
    """What ``learn`` did: the model it wrote (None where there was nothing to learn, and the
    file is unchanged), the class each kind of message was learned as, how many of each kind,
    and how many of the messages the model held already (the same text: learned twice, they
    count twice)."""

    model: Model | None
    labels: dict[str, str]
    counts: dict[str, int]
    repeats: int


def learn(model_path: str, messages: Mapping[str, Sequence[str]], *, unlearn: bool = False,
          report: ReadReport | None = None, max_document_bytes: int = MAX_DOCUMENT_BYTES) -> Learned:
    """Add the messages at the paths of ``messages`` (by kind: ``{"spam": [...], "ham": [...]}``;
    a message file, an mbox, a maildir or a folder of message files) to the filter model at
    ``model_path`` as its spam class or its ham class, or with ``unlearn`` take them out again
    exactly; the file is rewritten atomically under its lock.

    The messages are read under the lock, as the model is then: a learner that ran meanwhile
    loses nothing. ``report`` (a new one by default) takes what was read. A path whose every
    entry was skipped is an error and nothing is learned; paths with no message in them (a quiet
    night's ``.Junk/new``) leave the file as it is. The model keeps how many messages of each
    class were learned (``summary["learned"]``, net of those unlearned).

    Examples
    --------
    >>> import tempfile, os
    >>> from nbtext.spam_training import train_filter
    >>> from nbtext.training import DEFAULT_ANALYZER
    >>> docs = [Document(f"cheap pills {i}", "spam", f"s{i}") for i in range(10)]
    >>> docs += [Document(f"lunch at noon {i}", "ham", f"h{i}") for i in range(10)]
    >>> folder = tempfile.mkdtemp()
    >>> path, missed = os.path.join(folder, "filter.joblib"), os.path.join(folder, "missed.eml")
    >>> train_filter(docs, analyzer=DEFAULT_ANALYZER).save(path)
    >>> with open(missed, "w") as out:
    ...     _ = out.write("Subject: offer\\n\\ncheap watches")
    >>> learned = learn(path, {"spam": [missed]})
    >>> learned.counts, Model.load(path).summary["learned"]
    ({'spam': 1}, {'spam': 1})
    """
    if is_pipe(model_path):
        raise ModelError(f"{model_path}: a pipe; learn rewrites the model it teaches, so it takes the model file")
    if os.path.isdir(model_path):  # checked here, as the lock is taken before the model is loaded
        raise folder_given(model_path, "the model file comes first, then `spam`|`ham` PATH...")
    if not os.path.isfile(model_path):
        raise ModelError(f"{model_path}: no such model file")
    unknown = sorted(set(messages) - set(KINDS))
    if unknown:
        raise ValueError(f"messages are {' or '.join(KINDS)}, not {unknown[0]!r}")
    report = report if report is not None else ReadReport()
    with locked(model_path):
        model = Model.load(model_path)
        spam_filter = SpamFilter.of(model)
        # the ham class only where ham is given: a filter with several other classes learns spam too
        labels = {kind: spam_filter.label if kind == "spam" else spam_filter.ham_label(model.classes)
                  for kind in messages}
        documents: list[Document] = []
        for kind, paths in messages.items():
            for batch, _ in iter_unlabelled(paths, report, input_format=trained_format(model),
                                            headers=model.analyzer.headers, max_document_bytes=max_document_bytes):
                assert isinstance(batch, list)  # mail comes parsed, as unparsed_mail is not asked
                documents += [dataclasses.replace(doc, label=labels[kind]) for doc in batch]
        report.check_all_read()  # nothing learned: a path named that gave no message is a slip to mend first
        counts = {kind: sum(doc.label == labels[kind] for doc in documents) for kind in messages}
        if not documents:  # a quiet night: a nightly job that learns it must not fail for that
            return Learned(None, labels, counts, 0)
        try:
            updated = update(model, documents, remove=unlearn)
        except NotLearnedError as error:  # said of documents; the likely slip is the kind they were given as
            given = " and ".join(f"`{kind}`" for kind in messages)
            raise DataError(f"{error}: the messages were not all learned as given ({given}); unlearn each as "
                            "the kind it was learned as") from None
        _count_learned(updated.summary, [labels[kind] for kind in messages], documents, unlearn)
        digests = [document_digest(doc) for doc in documents]
        updated.texts = with_texts(model.texts, digests, remove=unlearn)
        repeats = 0 if unlearn else held_already(model, digests)
        updated.save(model_path)
    return Learned(updated, labels, counts, repeats)


def _count_learned(summary: dict[str, Any], labels: list[str], documents: list[Document], unlearn: bool) -> None:
    """Keep in a filter's ``summary`` how many messages of each label learn has added, net of
    those unlearned, for nbtext info to tell from the data it was trained on; unlearning all
    of them leaves the file as it was."""
    learned = dict(summary.get("learned", {}))
    for label in labels:
        change = sum(doc.label == label for doc in documents)
        learned[label] = learned.get(label, 0) + (-change if unlearn else change)
    summary.pop("learned", None)
    if any(learned.values()):
        summary["learned"] = {label: n for label, n in learned.items() if n}

"""Do columns beside the text help? Mail as a table: its text, and its size, links, hour and mailer.

    python benchmarks/mail_columns.py                        # SpamAssassin and the six Enron sets
    python benchmarks/mail_columns.py --corpora spamassassin-2003 --keep tables/   # keep the CSVs

Each corpus's mail is written as one CSV (to a scratch folder; nothing is copied into the
project): ``text`` is the message as nbtext reads mail (subject and body, decoded), and the
columns come from the raw message: ``log_size`` (log10 of its bytes) and ``log_links``
(log(1 + the http(s) URLs in it)) as numbers; ``hour`` (of its Date header, 0-23) and
``mailer`` (the first word of X-Mailer or User-Agent, lowercased) as categories. A message
without a Date or a mailer header has that cell empty. Enron's files hold only a Subject line
and the body, so the Enron tables have the two numeric columns alone.

Protocol: 5-fold stratified cross-validation, seed 0 (benchmarks/protocols.py's for these
corpora), on the table's rows. Per fold, nbtext's defaults are trained on the text alone, on
the text with the columns, and on the columns alone; each column is the accuracy over the
folds' test rows, with spam-filter figures at the default 0.5 answer: ham lost (ham called
spam, of all ham) and spam caught. The paired table sets text + columns beside text alone,
row by row, with McNemar's exact p (benchmarks/accuracy.py).
"""

from __future__ import annotations

import argparse
import csv
import email.utils
import math
import re
import sys
import tempfile
import time
from email.parser import BytesHeaderParser
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.accuracy import mcnemar_p  # noqa: E402
from benchmarks.protocols import corpus_root  # noqa: E402
from nbtext.readers import Columns, Document, LabelledCorpus  # noqa: E402
from nbtext.training import train  # noqa: E402

CORPORA = ["spamassassin-2003", *(f"enron{i}" for i in range(1, 7))]
NUMERIC = ("log_size", "log_links")
CATEGORICAL = ("hour", "mailer")
_URL = re.compile(rb"https?://", re.IGNORECASE)
_HEADERS = BytesHeaderParser()


def mail_features(raw: bytes) -> dict[str, str]:
    """A raw message's columns, as a CSV holds them ('' where the message has none)."""
    headers = _HEADERS.parsebytes(raw)
    hour = ""
    try:
        when = email.utils.parsedate_tz(str(headers.get("Date", "")))
    except (TypeError, ValueError):
        when = None
    if when is not None and when[3] is not None and 0 <= when[3] <= 23:
        hour = str(when[3])
    mailer = str(headers.get("X-Mailer") or headers.get("User-Agent") or "").strip()
    return {"log_size": f"{math.log10(max(len(raw), 1)):.6f}",
            "log_links": f"{math.log1p(len(_URL.findall(raw))):.6f}",
            "hour": hour, "mailer": mailer.split()[0].lower() if mailer else ""}


def write_table(name: str, dest: Path) -> Path:
    """Corpus ``name`` as one CSV at ``dest``: label, text and the columns, a row per message."""
    root = corpus_root("enron-spam") / name if name.startswith("enron") else corpus_root(name)
    mail = not name.startswith("enron")
    documents = LabelledCorpus([str(root)], input_format="email" if mail else None)
    with open(dest, "w", newline="", encoding="utf-8", errors="surrogateescape") as handle:
        writer = csv.writer(handle)
        writer.writerow(["label", "text", *NUMERIC, *(CATEGORICAL if mail else ())])
        for doc in documents:
            features = mail_features(Path(doc.source).read_bytes())
            writer.writerow([doc.label, doc.text, *(features[c] for c in NUMERIC),
                             *((features[c] for c in CATEGORICAL) if mail else ())])
    return dest


def read_rows(table: Path, numeric: tuple[str, ...], categorical: tuple[str, ...]) -> list[Document]:
    return list(LabelledCorpus([str(table)], columns=Columns(numeric=numeric, categorical=categorical,
                                                             text_optional=True)))


def stratified_folds(labels: list[str], k: int = 5, seed: int = 0) -> np.ndarray:
    """The fold of each row: each class's rows shuffled with ``seed`` and dealt round."""
    rng = np.random.default_rng(seed)
    fold = np.empty(len(labels), dtype=np.int64)
    for label in sorted(set(labels)):
        rows = np.flatnonzero(np.array(labels) == label)
        fold[rng.permutation(rows)] = np.arange(len(rows)) % k
    return fold


def correct(train_docs: list[Document], test_docs: list[Document], *, text: bool, columns: tuple[str, ...],
            variant: str = "complement") -> tuple[np.ndarray, np.ndarray]:
    """Whether each test row is classified right, and what it was called."""
    numeric = tuple(c for c in columns if c in NUMERIC)
    categorical = tuple(c for c in columns if c in CATEGORICAL)
    strip = (lambda doc: Document(doc.text if text else "", doc.label, doc.source, values=doc.values))
    model = train([strip(doc) for doc in train_docs], numeric_columns=numeric, categorical_columns=categorical,
                  settings={"variant": variant})
    values = [doc.values for doc in test_docs] if columns else None
    predicted = np.array(model.predict([doc.text if text else "" for doc in test_docs], values))
    return predicted == np.array([doc.label for doc in test_docs]), predicted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--keep", type=Path, help="Write the tables here (default: a scratch folder).")
    args = parser.parse_args()
    scratch = tempfile.TemporaryDirectory(prefix="nbtext-mail-columns-")
    folder = args.keep or Path(scratch.name)
    folder.mkdir(parents=True, exist_ok=True)
    print("| corpus | rows | columns | text | text + columns | text + columns (multinomial) | columns alone | "
          "ham lost: text / + columns | spam caught: text / + columns | only text right | only + columns right | "
          "McNemar p |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.corpora.split(","):
        started = time.perf_counter()
        table = write_table(name, folder / f"{name}.csv")
        columns = NUMERIC + (CATEGORICAL if name.startswith("spam") else ())
        rows = read_rows(table, NUMERIC, tuple(c for c in columns if c in CATEGORICAL))
        labels = [doc.label for doc in rows]
        fold = stratified_folds(labels)
        right = {key: np.zeros(len(rows), dtype=bool) for key in ("text", "mixed", "multinomial", "columns")}
        called = {key: np.empty(len(rows), dtype=object) for key in right}
        for f in range(5):
            train_docs = [doc for doc, g in zip(rows, fold) if g != f]
            test_at = np.flatnonzero(fold == f)
            test_docs = [rows[i] for i in test_at]
            for key, how in (("text", {"text": True, "columns": ()}), ("mixed", {"text": True, "columns": columns}),
                             ("multinomial", {"text": True, "columns": columns, "variant": "multinomial"}),
                             ("columns", {"text": False, "columns": columns})):
                right[key][test_at], called[key][test_at] = correct(train_docs, test_docs, **how)
        truth = np.array(labels)
        ham, spam = truth == "ham", truth == "spam"

        def lost(key: str) -> str:
            return f"{(called[key][ham] == 'spam').mean():.2%}"

        def caught(key: str) -> str:
            return f"{(called[key][spam] == 'spam').mean():.2%}"

        only_text = int((right["text"] & ~right["mixed"]).sum())
        only_mixed = int((right["mixed"] & ~right["text"]).sum())
        print(f"| {name} | {len(rows):,} | {', '.join(columns)} | {right['text'].mean():.4f} | "
              f"{right['mixed'].mean():.4f} | {right['multinomial'].mean():.4f} | {right['columns'].mean():.4f} | "
              f"{lost('text')} / {lost('mixed')} | {caught('text')} / {caught('mixed')} | {only_text} | {only_mixed} | "
              f"{mcnemar_p(only_text, only_mixed):.3g} |", flush=True)
        print(f"{name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()

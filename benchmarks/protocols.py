"""The evaluation protocol of each shared corpus, as train/test folds nbtext can read.

Published splits where they exist (20news-bydate, Reuters ModApte R8/R52, Ling-spam's ten
parts, SMS spam's first 30%), stated ones elsewhere (see PROTOCOLS). A fold is written to a
scratch folder as symbolic links in folder-per-class layout (or TSV for the SMS lines), so
the CLI reads the corpus files themselves; nothing is copied into the project.
"""

from __future__ import annotations

import datetime
import os
import random
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"

PROTOCOLS = {
    "20news-bydate": "train/test (published)",
    "R8": "ModApte train/test (published)",
    "R52": "ModApte train/test (published)",
    "sms-spam": "first 30% of lines train, rest test (Almeida et al. 2011)",
    "spamassassin-2003": "5-fold stratified, seed 0",
    "enron1": "5-fold stratified, seed 0", "enron2": "5-fold stratified, seed 0",
    "enron3": "5-fold stratified, seed 0", "enron4": "5-fold stratified, seed 0",
    "enron5": "5-fold stratified, seed 0", "enron6": "5-fold stratified, seed 0",
    "lingspam": "10 folds over the published parts",
    "movie-review-polarity": "10 folds by the first digit of cvNNN",
    "rt-polarity": "10-fold stratified, seed 0",
}

#: (label, file path) for a document file, (label, line bytes) for a line of the SMS corpus.
Item = tuple[str, "Path | bytes"]


@dataclass
class Fold:
    train: list[Item]
    test: list[Item]

    def write(self, dest: Path) -> tuple[Path, Path]:
        """Lay the fold out under ``dest``; returns the train and test DATA arguments."""
        return _write(self.train, dest / "train"), _write(self.test, dest / "test")


def corpus_root(name: str) -> Path:
    """Unpack a shared corpus through its ``get`` script and return its folder."""
    done = subprocess.run([str(SHARED / "get"), name], check=True, capture_output=True, text=True)
    return Path(done.stdout.strip())


def folds(name: str, *, limit: int | None = None) -> Iterator[Fold]:
    """The folds of corpus ``name`` (a key of PROTOCOLS), at most ``limit`` of them."""
    for number, fold in enumerate(_folds(name)):
        if limit is not None and number >= limit:
            return
        yield fold


def _folds(name: str) -> Iterator[Fold]:
    if name == "20news-bydate":
        root = corpus_root(name)
        yield Fold(_files(root / "train"), _files(root / "test"))
    elif name in ("R8", "R52"):
        root = corpus_root("reuters21578") / name
        yield Fold(_files(root / "train"), _files(root / "test"))
    elif name == "sms-spam":
        lines = (corpus_root(name) / "SMSSpamCollection").read_bytes().splitlines()
        items = [(label.decode(), text) for label, _, text in (line.partition(b"\t") for line in lines)]
        cut = int(len(items) * 0.3)
        yield Fold(items[:cut], items[cut:])
    elif name == "lingspam":
        parts = [_files(corpus_root(name) / "bare" / f"part{i}") for i in range(1, 11)]
        for i, test in enumerate(parts):
            yield Fold([item for j, part in enumerate(parts) if j != i for item in part], test)
    elif name == "movie-review-polarity":
        items = _files(corpus_root(name))
        for digit in "0123456789":
            yield Fold([it for it in items if it[1].name[2] != digit], [it for it in items if it[1].name[2] == digit])
    elif name in ("spamassassin-2003", "rt-polarity") or name.startswith("enron"):
        root = corpus_root("enron-spam") / name if name.startswith("enron") else corpus_root(name)
        yield from _stratified(_files(root), k=5 if name != "rt-polarity" else 10, seed=0)
    else:
        raise KeyError(f"no protocol for {name!r}; known: {sorted(PROTOCOLS)}")


def _files(root: Path) -> list[Item]:
    """(label, path) of every file under root/<label>/, in sorted order."""
    return [(label.name, path) for label in sorted(root.iterdir()) if label.is_dir()
            for path in sorted(p for p in label.rglob("*") if p.is_file())]


def _stratified(items: list[Item], *, k: int, seed: int) -> Iterator[Fold]:
    """k folds with each class spread evenly, shuffled with ``seed``."""
    rng = random.Random(seed)
    fold_of: dict[int, int] = {}
    for label in sorted({label for label, _ in items}):
        members = [i for i, (lab, _) in enumerate(items) if lab == label]
        rng.shuffle(members)
        fold_of.update({index: n % k for n, index in enumerate(members)})
    for f in range(k):
        yield Fold([it for i, it in enumerate(items) if fold_of[i] != f],
                   [it for i, it in enumerate(items) if fold_of[i] == f])


def _write(items: list[Item], dest: Path) -> Path:
    if items and isinstance(items[0][1], bytes):
        dest = dest.with_suffix(".tsv")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(b"".join(label.encode() + b"\t" + text + b"\n" for label, text in items))
        return dest
    for n, (label, path) in enumerate(items):
        folder = dest / label
        folder.mkdir(parents=True, exist_ok=True)
        os.symlink(path, folder / f"{n:06d}-{path.name}")
    return dest


#: The corpora whose messages have dates, and how the temporal protocol orders them.
TEMPORAL = {
    "spamassassin-2003": "oldest 80% by Date header train, newest 20% test",
    **{f"enron{i}": "oldest 80% by the file name's date train, newest 20% test" for i in range(1, 7)},
}
_ENRON_DATE = re.compile(r"^\d+\.(\d{4}-\d{2}-\d{2})\.")


def temporal_fold(name: str, train_share: float = 0.8) -> tuple[Fold, str]:
    """The temporal split of corpus ``name`` (a key of TEMPORAL): of each class, the oldest
    ``train_share`` of its messages by date to train on and the newest to test (ties in file
    name order), as Metsis et al. kept Enron's ham and spam each in its own order (the two
    come from different years); and a line saying each test part's dates, and how many
    messages had no date (trained on: they are not known to be newer)."""
    root = corpus_root("enron-spam") / name if name.startswith("enron") else corpus_root(name)
    earliest = datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
    train: list[Item] = []
    test: list[Item] = []
    said, undated = [], 0
    by_class: dict[str, list[tuple[datetime.datetime | None, Path]]] = {}
    for label, path in _files(root):
        by_class.setdefault(label, []).append((_date(path, name), path))
    for label, dated in sorted(by_class.items()):
        undated += sum(date is None for date, _ in dated)
        dated.sort(key=lambda item: (item[0] or earliest, item[1].name))
        cut = int(len(dated) * train_share)
        train += [(label, path) for _, path in dated[:cut]]
        test += [(label, path) for _, path in dated[cut:]]
        first = dated[cut][0]
        said.append(f"{label} {len(dated) - cut:,} dated {first:%Y-%m-%d} on")
    return Fold(train, test), "test " + ", ".join(said) + (f"; {undated} undated, trained on" if undated else "")


def _date(path: Path, name: str) -> datetime.datetime | None:
    """A message's date: the Enron file name's (these sets were kept in order by it), or a
    SpamAssassin message's Date header; None where there is none to read."""
    if name.startswith("enron"):
        found = _ENRON_DATE.match(path.name)
        return datetime.datetime.fromisoformat(found.group(1)).replace(tzinfo=datetime.timezone.utc) if found else None
    import email.parser
    import email.utils

    with open(path, "rb") as handle:
        headers = email.parser.BytesHeaderParser().parse(handle)
    try:
        date = email.utils.parsedate_to_datetime(str(headers.get("Date", "")))
    except (TypeError, ValueError):
        return None
    return date if date.tzinfo is not None else date.replace(tzinfo=datetime.timezone.utc)

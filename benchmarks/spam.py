"""nbtext's spam filter next to bogofilter, on the same messages, under each corpus's protocol.

    python benchmarks/spam.py                          # every corpus below
    python benchmarks/spam.py --corpora enron1 --folds 1
    python benchmarks/spam.py --temporal               # older mail trains, newer tests
    python benchmarks/spam.py --temporal --combining nb,chi-square   # both ways of scoring

With --incremental (a temporal split too), each tool walks the test mail in date order,
each class's messages in their own order and the two interleaved evenly (Enron's ham and spam
are years apart), judges each message, and learns the ones it got wrong or left unsure before
the next: train-on-error, as users run `nbtext learn` and `bogofilter -s`/`-n` on corrections.
The figures are the verdicts given before any learning of that message.

With --temporal, each corpus whose messages have dates (SpamAssassin by its Date headers, the
six Enron sets by the dates in their file names) is split by time: the oldest 80% of each
class trains, the newest 20% tests, as a filter trained on last year's mail judges this
year's. Shuffled folds mix the months, and flatter a filter whose mail drifts.

Both tools are trained on the same training messages and tested on the same held-out ones,
each with its default cut-offs; "unsure" counts as "not spam" in the spam recall, as a user's
inbox would see it. nbtext is trained as `nbtext train` trains a filter (5-fold calibration of
its cut-offs on the training part only); bogofilter (Debian package bogofilter) registers the
training messages with -s/-n and classifies with -B. Times: training, and classification per
message in one batch; then one message in a fresh process (the procmail case), median of 20,
with nbtext's bytecode written first, as installing it writes it.

With --headers, nbtext reads mail with those headers (nbtext train --headers), e.g. without
the links of HTML parts: --headers from,to,reply-to,x-mailer,content-type. With
--plain-defaults, nbtext's filter is trained with the defaults nbtext gives plain text rather
than a filter's; with --set KEY=VALUE, one of its settings differs from those defaults
(alpha=0.5). With --combining nb,chi-square, nbtext runs twice, its filter scoring by the
naive Bayes posterior and by Robinson's chi-square (``nbtext.combining``), each a row.

The last columns compare the rankings rather than the cut-offs: the spam recall a tool's
own scores give at the best cut-off that loses no more ham than nbtext lost, then than
bogofilter lost, pooled over the folds. That cut-off is chosen in hindsight, on the test labels,
so no tool could have used it; both tools get it, so a column compares like with like, and it
says whether a miss is the cut-off a tool chose or the order in which it scores messages.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import write_bytecode_as_installed  # noqa: E402
from benchmarks.protocols import PROTOCOLS, TEMPORAL, folds, temporal_fold  # noqa: E402
from nbtext.analysis import Analyzer  # noqa: E402
from nbtext.combining import COMBINING, NB  # noqa: E402
from nbtext.model import Model  # noqa: E402
from nbtext.readers import LabelledCorpus, ReadReport  # noqa: E402
from nbtext.readers.mail import DEFAULT_MAIL_HEADERS, header_names  # noqa: E402
from nbtext.readers.unlabelled import iter_unlabelled  # noqa: E402
from nbtext.spam import DEFAULT_FP_TARGET, EXIT_SPAM, EXIT_UNSURE, SpamFilter  # noqa: E402
from nbtext.spam_training import FILTER_TOKENS, train_filter  # noqa: E402
from nbtext.training import DEFAULT_ANALYZER, DEFAULT_DOC_NORM, DEFAULT_TF, update  # noqa: E402

CORPORA = ["spamassassin-2003", "enron1", "enron2", "enron3", "enron4", "enron5", "enron6", "lingspam", "sms-spam"]
#: bogofilter's figures measured for the issue (ham false positives, spam recall, unsure).
BOGOFILTER_ISSUE = {
    "spamassassin-2003": "0.00% / 73.8% / 140 of 3,000",
    "enron1": "0.00% / 75.3% / 109 of 1,035 (80/20 split)",
    "lingspam": "0.00% / 36.7% / 29 of 291 (part 10)",
    "sms-spam": "0.65% / 57.8% / 463 of 3,902",
}


#: The headers nbtext reads mail with: train's defaults, or those --headers names.
HEADERS = DEFAULT_MAIL_HEADERS
#: Whether nbtext trains with the plain-text defaults rather than a filter's (--plain-defaults).
PLAIN_DEFAULTS = False
#: Settings and analyzer fields --set changes from those defaults (alpha=0.5, ngram_range=[1,1]).
CHANGED: dict[str, Any] = {}


@dataclasses.dataclass
class Tally:
    """One tool's times over a corpus's folds, and each fold's test messages: whether spam,
    the verdict, the score."""
    train_seconds: float = 0.0
    classify_seconds: float = 0.0
    folds: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = dataclasses.field(default_factory=list)

    def add(self, is_spam: np.ndarray, verdicts: np.ndarray, scores: np.ndarray) -> None:
        self.folds.append((is_spam, verdicts, scores))
        self.__dict__.pop("pooled", None)  # joined again when next asked for

    @functools.cached_property
    def pooled(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every fold's messages as one: whether spam, the verdicts, the scores."""
        return tuple(np.concatenate(column) for column in zip(*self.folds))

    @property
    def ham_lost(self) -> int:
        is_spam, verdicts, _ = self.pooled
        return int((verdicts[~is_spam] == EXIT_SPAM).sum())

    def recall_losing_at_most(self, lost: int) -> float:
        """Spam recall at the best cut-off on the pooled scores that loses at most ``lost`` ham."""
        is_spam, _, scores = self.pooled
        ham = np.sort(scores[~is_spam])[::-1]
        if lost >= ham.size:
            return 1.0
        return float(np.mean(scores[is_spam] > ham[lost]))  # ties with a lost ham message are lost too

    def row(self, losses: list[int]) -> str:
        is_spam, verdicts, _ = self.pooled
        n, ham, spam = is_spam.size, int((~is_spam).sum()), int(is_spam.sum())
        caught, unsure = int((verdicts[is_spam] == EXIT_SPAM).sum()), int((verdicts == EXIT_UNSURE).sum())
        ham_lost = self.ham_lost
        return (f"{ham_lost / ham:.2%} ({ham_lost} of {ham:,}) | {caught / spam:.1%} | "
                f"{unsure:,} of {n:,} | {self.train_seconds:.1f} | {1000 * self.classify_seconds / n:.2f} | "
                + " | ".join(f"{self.recall_losing_at_most(lost):.1%}" for lost in losses))


def read(arg: Path, mail: bool):
    if mail:
        return list(LabelledCorpus([str(arg)], input_format="email", headers=HEADERS))
    return list(LabelledCorpus([str(arg)]))


def train_nbtext(train_docs, mail: bool, fp_target: float, combining: str):
    """The filter `nbtext train` makes of ``train_docs``: with a filter's defaults, or with
    --plain-defaults the plain-text ones (one-letter words too, no unit length, no IDF)."""
    headers = HEADERS if mail else ()
    fields = {field.name for field in dataclasses.fields(Analyzer)}
    analyzed = {key: tuple(value) if isinstance(value, list) else value for key, value in CHANGED.items()
                if key in fields}
    settings = {key: value for key, value in CHANGED.items() if key not in fields}
    if PLAIN_DEFAULTS:
        plain = {key: Model.DEFAULT_SETTINGS[key] for key in ("alpha", "idf", "min_df")}
        return train_filter(train_docs, analyzer=dataclasses.replace(DEFAULT_ANALYZER, headers=headers, **analyzed),
                            tf=DEFAULT_TF, doc_norm=DEFAULT_DOC_NORM, settings={**plain, **settings},
                            fp_target=fp_target, combining=combining)
    analyzer = dataclasses.replace(DEFAULT_ANALYZER, tokens=FILTER_TOKENS, headers=headers, **analyzed)
    return train_filter(train_docs, analyzer=analyzer, settings=settings, fp_target=fp_target, combining=combining)


def run_nbtext(train_arg: Path, test_arg: Path, mail: bool, tally: Tally, fp_target: float, combining: str) -> None:
    train_docs, test_docs = read(train_arg, mail), read(test_arg, mail)
    started = time.perf_counter()
    model = train_nbtext(train_docs, mail, fp_target, combining)
    tally.train_seconds += time.perf_counter() - started
    spam_filter = SpamFilter.of(model)
    started = time.perf_counter()
    scores = spam_filter.scores(model, [d.text for d in test_docs])
    verdicts = spam_filter.verdicts(scores)
    tally.classify_seconds += time.perf_counter() - started
    tally.add(np.array([d.label == "spam" for d in test_docs]), verdicts, scores)


def walk_order(test: list) -> list:
    """The test messages in the order mail arrives: each class's in its date order (as
    ``temporal_fold`` lists them), the classes interleaved evenly by their positions."""
    by_class: dict[str, list] = {}
    for item in test:
        by_class.setdefault(item[0], []).append(item)
    keyed = [((i + 0.5) / len(items), label, item) for label, items in by_class.items() for i, item in enumerate(items)]
    return [item for _, _, item in sorted(keyed, key=lambda key: key[:2])]


def incremental_nbtext(fold, train_arg: Path, tally: Tally, fp_target: float, combining: str) -> int:
    """nbtext's verdicts on the test mail walked in order, learning each error or unsure
    message (``training.update``, what `nbtext learn` does) before the next; how many it learnt."""
    train_docs = read(train_arg, True)
    started = time.perf_counter()
    model = train_nbtext(train_docs, True, fp_target, combining)
    tally.train_seconds += time.perf_counter() - started
    spam_filter = SpamFilter.of(model)
    learnt, verdicts, scores, is_spam = 0, [], [], []
    started = time.perf_counter()
    for label, path in walk_order(fold.test):
        report = ReadReport()
        [(batch, _)] = iter_unlabelled([str(path)], report, input_format="email", headers=HEADERS)
        doc = dataclasses.replace(batch[0], label=label)
        score = spam_filter.scores(model, [doc.text])[0]
        verdict = int(spam_filter.verdicts(np.array([score]))[0])
        verdicts.append(verdict), scores.append(score), is_spam.append(label == "spam")
        if verdict == EXIT_UNSURE or (verdict == EXIT_SPAM) != (label == "spam"):
            model = update(model, [doc])
            learnt += 1
    tally.classify_seconds += time.perf_counter() - started
    tally.add(np.array(is_spam), np.array(verdicts), np.array(scores))
    return learnt


def incremental_bogofilter(fold, scratch: Path, tally: Tally) -> int:
    """bogofilter's verdicts on the test mail walked in order, registering each error or unsure
    message (-s or -n) before the next; how many it registered."""
    wordlist = scratch / "bogofilter-incremental"
    wordlist.mkdir()
    started = time.perf_counter()
    for flag, want in (("-s", True), ("-n", False)):
        files = [str(p) for label, p in fold.train if (label == "spam") == want]
        for start in range(0, len(files), 2000):
            subprocess.run(["bogofilter", "-d", str(wordlist), flag, "-B", *files[start:start + 2000]], check=True)
    tally.train_seconds += time.perf_counter() - started
    learnt, verdicts, scores, is_spam = 0, [], [], []
    started = time.perf_counter()
    for label, path in walk_order(fold.test):
        [(_, line)] = _bogofilter_lines(wordlist, "-TT", [str(path)])
        score = float(line)
        [(_, letter)] = _bogofilter_lines(wordlist, "-T", [str(path)])
        verdict = {"S": 0, "H": 1, "U": 2}[letter]
        verdicts.append(verdict), scores.append(score), is_spam.append(label == "spam")
        if verdict == EXIT_UNSURE or (verdict == EXIT_SPAM) != (label == "spam"):
            subprocess.run(["bogofilter", "-d", str(wordlist), "-s" if label == "spam" else "-n", "-I", str(path)],
                           check=True)
            learnt += 1
    tally.classify_seconds += time.perf_counter() - started
    tally.add(np.array(is_spam), np.array(verdicts), np.array(scores))
    return learnt


def message_files(items, dest: Path) -> list[tuple[str, Path]]:
    """(label, file) of each item; SMS lines are written out as one file each."""
    if items and isinstance(items[0][1], bytes):
        dest.mkdir(parents=True)
        out = []
        for n, (label, text) in enumerate(items):
            path = dest / f"{n:06d}"
            path.write_bytes(text + b"\n")
            out.append((label, path))
        return out
    return list(items)


def run_bogofilter(fold, scratch: Path, tally: Tally) -> None:
    wordlist = scratch / "bogofilter"
    wordlist.mkdir()
    train = message_files(fold.train, scratch / "bf-train")
    test = message_files(fold.test, scratch / "bf-test")
    started = time.perf_counter()
    for flag, want in (("-s", True), ("-n", False)):
        files = [str(p) for label, p in train if (label == "spam") == want]
        for start in range(0, len(files), 2000):
            subprocess.run(["bogofilter", "-d", str(wordlist), flag, "-B", *files[start:start + 2000]], check=True)
    tally.train_seconds += time.perf_counter() - started
    started = time.perf_counter()
    verdict_of = {}
    for chunk in _chunks(test):
        for path, letter in _bogofilter_lines(wordlist, "-T", chunk):
            verdict_of[path] = {"S": 0, "H": 1, "U": 2}[letter]
    tally.classify_seconds += time.perf_counter() - started
    # -T rounds the score to a few digits; -TT (untimed) gives all 16, for the ranking column.
    score_of = {path: float(score)
                for chunk in _chunks(test) for path, score in _bogofilter_lines(wordlist, "-TT", chunk)}
    tally.add(np.array([label == "spam" for label, _ in test]), np.array([verdict_of[str(p)] for _, p in test]),
              np.array([score_of[str(p)] for _, p in test]))


def _chunks(items: list[tuple[str, Path]], size: int = 2000) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield [str(path) for _, path in items[start:start + size]]


def _bogofilter_lines(wordlist: Path, terse: str, files: list[str]) -> Iterator[tuple[str, str]]:
    """(file, verdict letter) of each line ``bogofilter -T`` prints; (file, score) for ``-TT``."""
    done = subprocess.run(["bogofilter", "-d", str(wordlist), terse, "-B", *files], capture_output=True, text=True)
    for line in done.stdout.splitlines():
        fields = line.rsplit(" ", 2 if terse == "-T" else 1)
        yield fields[0], fields[1]


def fresh_process_medians(corpus: str) -> tuple[float, float]:
    """Median seconds of one message classified in a fresh process: nbtext filter, bogofilter."""
    fold = next(folds(corpus))
    write_bytecode_as_installed()
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        train_arg, _ = fold.write(scratch)
        model = scratch / "filter.joblib"
        subprocess.run([sys.executable, "-m", "nbtext", "train", "--input-format", "email", str(train_arg),
                        "-o", str(model)], check=True, capture_output=True)
        wordlist = scratch / "bf"
        wordlist.mkdir()
        for label in ("spam", "ham"):
            subprocess.run(["bogofilter", "-d", str(wordlist), "-s" if label == "spam" else "-n", "-B",
                            str(train_arg / label)], check=True)
        message = fold.test[0][1]
        nbtext = str(Path(sys.executable).with_name("nbtext"))
        medians = []
        for command in ([nbtext, "filter", "-q", str(model), str(message)],
                        ["bogofilter", "-d", str(wordlist), "-I", str(message)]):
            times = []
            for _ in range(20):
                started = time.perf_counter()
                subprocess.run(command, capture_output=True)
                times.append(time.perf_counter() - started)
            medians.append(statistics.median(times))
    return medians[0], medians[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", default=",".join(CORPORA), help="comma-separated names")
    parser.add_argument("--folds", type=int, help="use at most this many folds per corpus")
    parser.add_argument("--fp-target", type=float, default=DEFAULT_FP_TARGET, help="nbtext train --fp-target")
    parser.add_argument("--no-fresh", action="store_true", help="skip the fresh-process timing")
    parser.add_argument("--temporal", action="store_true", help="split each dated corpus by time, not in folds")
    parser.add_argument("--incremental", action="store_true", help="the temporal split, walked in order, learning "
                        "each error")
    parser.add_argument("--combining", default=NB, help=f"nbtext train --combining; several, comma-separated, are "
                        f"run side by side (e.g. {','.join(COMBINING)})")
    parser.add_argument("--headers", default=",".join(DEFAULT_MAIL_HEADERS), help="nbtext train --headers")
    parser.add_argument("--plain-defaults", action="store_true", help="nbtext's filter trained with the plain-text "
                        "defaults rather than a filter's")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="change one of nbtext's "
                        "settings or analyzer fields from the defaults, the value in JSON (alpha=0.5, idf=false, "
                        "ngram_range=[1,1]); repeatable")
    args = parser.parse_args()
    for change in args.set:
        key, _, value = change.partition("=")
        try:
            CHANGED[key] = json.loads(value)
        except json.JSONDecodeError:
            CHANGED[key] = value  # a word: variant=multinomial
    global HEADERS, PLAIN_DEFAULTS
    HEADERS, PLAIN_DEFAULTS = header_names(args.headers), args.plain_defaults
    args.temporal = args.temporal or args.incremental
    combinings = args.combining.split(",")
    if args.temporal and args.corpora == ",".join(CORPORA):
        args.corpora = ",".join(TEMPORAL)
    if shutil.which("bogofilter") is None:
        sys.exit("bogofilter is not installed (Debian: apt-get install bogofilter)")
    tools = [f"nbtext{'' if combining == NB else f' ({combining})'}" for combining in combinings]
    print("| corpus, protocol | tool | ham false positives | spam recall | unsure | training s | ms per message | "
          + " | ".join(f"hindsight recall, {tool}'s ham lost" for tool in [*tools, "bogofilter"]) + " |")
    print("|---|---|---|---|---|---|---|" + "---|" * (len(tools) + 1))
    for name in args.corpora.split(","):
        mail = name != "sms-spam"
        tallies = {**{tool: Tally() for tool in tools}, "bogofilter": Tally()}
        protocol = PROTOCOLS[name]
        if args.temporal:
            fold, said = temporal_fold(name)
            protocol = f"{TEMPORAL[name]} ({said})"
        for fold in [fold] if args.temporal else folds(name, limit=args.folds):
            with tempfile.TemporaryDirectory() as scratch:
                scratch = Path(scratch)
                train_arg, test_arg = fold.write(scratch)
                if args.incremental:
                    learnt = [incremental_nbtext(fold, train_arg, tallies[tool], args.fp_target, combining)
                              for tool, combining in zip(tools, combinings)]
                    learnt.append(incremental_bogofilter(fold, scratch, tallies["bogofilter"]))
                    protocol = f"{protocol}; learnt on error: " + ", ".join(
                        f"{tool} {n:,}" for tool, n in zip([*tools, "bogofilter"], learnt))
                    continue
                for tool, combining in zip(tools, combinings):
                    run_nbtext(train_arg, test_arg, mail, tallies[tool], args.fp_target, combining)
                run_bogofilter(fold, scratch, tallies["bogofilter"])
        losses = [tally.ham_lost for tally in tallies.values()]
        for tool, tally in tallies.items():
            print(f"| {name}, {protocol} | {tool} | {tally.row(losses)} |", flush=True)
    if not args.no_fresh:
        nbtext_s, bogofilter_s = fresh_process_medians("spamassassin-2003")
        print(f"\none message in a fresh process (spamassassin-2003 model), median of 20: "
              f"nbtext filter {nbtext_s * 1000:.0f} ms, bogofilter {bogofilter_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()

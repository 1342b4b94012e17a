"""Speed of nbtext next to the scikit-learn pipeline a user would otherwise write, in one run.

    python benchmarks/speed.py [--runs 5] [--cold-runs 20]
                               [--train-only | --default-model-only | --char-only | --hashed-only
                                | --trigrams-only | --mail-only | --in-memory-only | --few-only]

Training (read + tokenize + count + fit) on 20news-bydate/train and on all of enron-spam:
nbtext with the options that build scikit-learn's exact model (as it comes, with --jobs all
cores, and with --jobs 1), CountVectorizer()+MultinomialNB() and
HashingVectorizer(alternate_sign=False)+MultinomialNB(); the feature counts are checked equal.
nbtext's default model (word uni- and bigrams, one-letter words kept) on 20news, next to
CountVectorizer(ngram_range=(1, 2))+ComplementNB(alpha=0.2) given the same token pattern, and
the same with --tokens words (the pipeline's own pattern) and --tokens joined. Character n-grams
(--analyzer char_wb --ngram-range 2,4) on 20news next to the same pipeline's, and beside the
default model's words (--char-ngrams 2,4) next to the union of the two. The default model's
features hashed into 2**20 buckets next to HashingVectorizer's. Word uni- to trigrams
(--ngram-range 1,3) next to CountVectorizer(ngram_range=(1, 3)) given the same tokens.
Prediction throughput on 20news-bydate/test in memory (median of --runs), as it is and with
typographic quotes and dashes (every document non-ASCII), and on a --stream-mb stream of its
documents on stdin (nbtext on all cores and with --jobs 1). Cold start of one short document in a fresh
process, next to `python -c pass`, `import numpy` and a joblib'd scikit-learn pipeline, and of
1 to 1,000 posts given as files, the default model next to the nearest joblib'd pipeline.
Prediction on mail, all of enron-spam as message files and as one mbox, in one process and
with --jobs on every core, and a spam filter trained on it as message files and as one mbox
a class, the same two ways (--train-only: the first training table alone; --mail-only: those
tables alone; --in-memory-only: the in-memory prediction table alone; --few-only: the table of
a few posts alone; --char-only, --hashed-only and --trigrams-only: those training rows alone).
Medians and ratios; peak RSS of each process with its workers. Every measurement runs in its
own process, with nbtext's bytecode written first, as installing it writes it.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import joblib

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import write_bytecode_as_installed  # noqa: E402
from benchmarks.protocols import corpus_root  # noqa: E402
from nbtext.cores import available_cores  # noqa: E402
from nbtext.model import Model  # noqa: E402
from nbtext.readers import LabelledCorpus  # noqa: E402

#: nbtext's training configurations, in their columns' order: as it comes (every core, once the
#: data are large enough to pay for starting workers), --jobs all cores, --jobs 1.
JOBS = (None, available_cores(), 1)

#: nbtext options that give exactly CountVectorizer() + MultinomialNB().
SKLEARN_EQUIVALENT = ["--variant", "multinomial", "--alpha", "1", "--ngram-range", "1,1", "--tokens", "words",
                      "--no-cjk-bigrams", "--min-df", "1", "--tf", "raw", "--doc-norm", "none", "--no-idf"]

_SKLEARN_TRAIN = r"""
import sys, time, json, os
from nbtext.analysis import JOINED  # the --tokens joined pattern, for the pipeline's: not timed
start = time.perf_counter()
from nbtext.readers import LabelledCorpus
docs = [d for root in sys.argv[2:] for d in LabelledCorpus([root])]
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
from sklearn.naive_bayes import ComplementNB, MultinomialNB
from sklearn.pipeline import make_pipeline, make_union
vec = {"count": CountVectorizer(), "hashing": HashingVectorizer(alternate_sign=False, norm=None),
       "all-words": CountVectorizer(ngram_range=(1, 2), token_pattern=r"(?u)\b\w+\b"),
       "words": CountVectorizer(ngram_range=(1, 2)),
       "joined": CountVectorizer(ngram_range=(1, 2), token_pattern=JOINED.pattern),
       "trigrams": CountVectorizer(ngram_range=(1, 3), token_pattern=r"(?u)\b\w+\b"),
       "char_wb": CountVectorizer(analyzer="char_wb", ngram_range=(2, 4)),
       "hashed": HashingVectorizer(ngram_range=(1, 2), token_pattern=r"(?u)\b\w+\b", n_features=2**20,
                                   alternate_sign=False, norm=None),
       "beside": make_union(CountVectorizer(ngram_range=(1, 2), token_pattern=r"(?u)\b\w+\b"),
                            CountVectorizer(analyzer="char_wb", ngram_range=(2, 4)))}[sys.argv[1]]
nb = (MultinomialNB() if sys.argv[1] in ("count", "hashing") else ComplementNB(alpha=0.2))
pipe = make_pipeline(vec, nb).fit([d.text for d in docs], [d.label for d in docs])
seconds = time.perf_counter() - start
import joblib
joblib.dump(pipe, os.environ["OUT"])
nb = pipe[-1]
print(json.dumps({"seconds": seconds, "per_class": nb.feature_count_.sum(axis=1).tolist(), "classes": list(nb.classes_)}))
"""

_PREDICT = r"""
import sys, time, json
from nbtext.readers import LabelledCorpus
if sys.argv[1] == "nbtext":
    from nbtext.model import Model
    model = Model.load(sys.argv[2])
else:
    import joblib
    model = joblib.load(sys.argv[2])
docs = list(LabelledCorpus([sys.argv[3]]))
texts = [d.text for d in docs]
if sys.argv[4:] == ["typographic"]:  # as a word processor types it: every document non-ASCII
    texts = [t.replace("--", "\u2014").replace("'", "\u2019").replace('"', "\u201d") for t in texts]
    assert sum(not t.isascii() for t in texts) > 0.9 * len(texts)  # 6,885 of 7,532
start = time.perf_counter()
model.predict(texts)
print(json.dumps({"seconds": time.perf_counter() - start, "n": len(docs)}))
"""

_SKLEARN_STREAM = r"""
import sys, itertools, joblib
pipe = joblib.load(sys.argv[1])
while batch := list(itertools.islice(sys.stdin, 1000)):
    sys.stdout.write("".join(label + "\n" for label in pipe.predict(batch)))
"""

#: The joblib'd pipeline classifying the files it is given, in a fresh process (one for the cold start).
_SKLEARN_FILES = r"""
import sys, joblib
pipe = joblib.load(sys.argv[1])
texts = [open(path, encoding="utf-8", errors="replace").read() for path in sys.argv[2:]]
print("\n".join(f"{path}\t{label}" for path, label in zip(sys.argv[2:], pipe.predict(texts))))
"""

#: How many posts the few-posts table gives each command: from the cold start's one, past where
#: prediction stops looking words up one by one (a sixteenth as many characters as terms).
FEW = (1, 10, 30, 100, 300, 1000)

def child(args: list[str], env: dict | None = None) -> tuple[str, float, float]:
    """Run a process; its stdout, wall seconds and peak RSS in MB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env={**os.environ, **(env or {})})
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{done.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return done.stdout, seconds, max(peak, before) / 1024


def peak_rss(args: list[str], env: dict | None = None) -> tuple[str, float, float]:
    """Like child, but measure this process's own peak with /usr/bin/time when available."""
    if os.path.exists("/usr/bin/time"):
        with tempfile.NamedTemporaryFile("r") as report:
            out, seconds, _ = child(["/usr/bin/time", "-f", "%M", "-o", report.name, *args], env)
            return out, seconds, int(report.read().split()[-1]) / 1024
    return child(args, env)


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants, in MB (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo += children.get(current, [])
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def run_sampled(args: list[str], env: dict | None = None, stdin=None) -> tuple[str, float, float]:
    """Run a command; its stdout, wall seconds and the peak RSS of its process tree in MB,
    sampled every 0.1 s (nbtext's worker processes count too)."""
    started = time.perf_counter()
    process = subprocess.Popen(args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, **(env or {})})
    peak = 0.0

    def sample() -> None:
        nonlocal peak
        while process.poll() is None:
            peak = max(peak, tree_rss_mb(process.pid))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out, errors = process.communicate()
    seconds = time.perf_counter() - started
    sampler.join()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{errors}")
    return out, seconds, peak


def alternating(commands: dict[Any, tuple[list[str], dict | None]], runs: int, measure=run_sampled) -> dict:
    """Run every command ``runs`` times, one of each in turn, so that a slow spell of this
    shared machine falls on all of them alike, not on whichever ran then: for each key, the
    median seconds, the largest peak RSS and the last run's output.

    Each round runs them in a new order (seeded), and every run's writes reach the disk
    before the next starts (untimed). Without that, the run after scikit-learn's
    HashingVectorizer pipeline, which saves a 335 MB file, was measured 0.3-0.4 s slower on
    20news: its ``fsync`` of the model file waited for that file's write-back."""
    done: dict = {key: [] for key in commands}
    order = random.Random(0)
    for _ in range(runs):
        for key in order.sample(list(commands), len(commands)):
            args, env = commands[key]
            done[key].append(measure(args, env))
            os.sync()
    return {key: (statistics.median(r[1] for r in results), max(r[2] for r in results), results[-1][0])
            for key, results in done.items()}


def nbtext_train_commands(roots: list[Path], out: Path, options: list[str]) -> dict:
    """``nbtext train`` in each configuration of JOBS, keyed by it, for ``alternating``."""
    base = [sys.executable, "-m", "nbtext", "train", *map(str, roots), "-o", str(out), *options]
    return {jobs: (base + ([] if jobs is None else ["--jobs", str(jobs)]), None) for jobs in JOBS}


def cell(timing: tuple[float, float, str]) -> str:
    """One run's table cell: median seconds and peak RSS."""
    return f"{timing[0]:.2f} s, {timing[1]:.0f} MB"


def train_ratios(sk_seconds: float, timings: dict) -> str:
    """scikit-learn's time over each of nbtext's three training configurations, in their order."""
    return ", ".join(f"{sk_seconds / timings[jobs][0]:.1f}x" for jobs in JOBS)


def default_model_table(news: Path, scratch: Path, columns: str, runs: int) -> Path:
    """Print the table of nbtext's default model next to the nearest pipeline (raw counts where
    nbtext takes log(1 + tf)), with the default tokens, and with --tokens words and joined; the
    default model's path."""
    print(f"\n| default model (word uni+bigrams, every term) | {columns} "
          "| CountVectorizer(ngram_range=(1, 2))+ComplementNB | ratio (each nbtext column) |")
    print("|---|---|---|---|---|---|")
    for kind, options, label in (("all-words", [], ""), ("words", ["--tokens", "words"], ", --tokens words"),
                                 ("joined", ["--tokens", "joined"], ", --tokens joined")):
        training_row(news, scratch, runs, kind, options, f"20news train{label}")
    return scratch / "all-words.joblib"


def training_row(news: Path, scratch: Path, runs: int, kind: str, options: list[str], label: str) -> None:
    """Print one row: nbtext trained on 20news with ``options`` (each configuration of JOBS)
    and the pipeline ``kind`` of _SKLEARN_TRAIN, in turn; their vocabularies checked equal."""
    model = scratch / f"{kind}.joblib"
    commands = nbtext_train_commands([news / "train"], model, options)
    commands["sklearn"] = ([sys.executable, "-c", _SKLEARN_TRAIN, kind, str(news / "train")],
                           {"OUT": str(scratch / f"{kind}-sklearn.joblib")})
    timings = alternating(commands, runs)
    sklearn = timings["sklearn"]
    vectorizer, nb = joblib.load(scratch / f"{kind}-sklearn.joblib")
    if hasattr(vectorizer, "n_features"):  # hashed, each by its own hash: the same counts in all, by class
        totals = Model.load(model).counts.dense("term_counts").sum(axis=1)
        assert totals.tolist() == nb.feature_count_.sum(axis=1).tolist(), f"{kind}: counts differ"
    else:
        parts = [part for _, part in getattr(vectorizer, "transformer_list", [(None, vectorizer)])]
        assert len(Model.load(model).terms) == sum(len(p.vocabulary_) for p in parts), f"{kind}: vocabularies differ"
    print(f"| {label}: wall time (median of {runs}), peak RSS | "
          + " | ".join(cell(timings[jobs]) for jobs in JOBS)
          + f" | {cell(sklearn)} | {train_ratios(sklearn[0], timings)} |", flush=True)


def char_table(news: Path, scratch: Path, columns: str, runs: int) -> None:
    """Print the table of character n-grams, 2 to 4, nbtext's other options as they come:
    alone (``--analyzer char_wb``) next to the same pipeline's vectorizer, and beside the
    default model's words (``--char-ngrams 2,4``) next to the union of the two vectorizers;
    the vocabularies checked equal."""
    print(f"\n| character n-grams, 2 to 4 | {columns} | scikit-learn: CountVectorizer(analyzer='char_wb', "
          "ngram_range=(2, 4)), alone or in a FeatureUnion with the words', +ComplementNB "
          "| ratio (each nbtext column) |")
    print("|---|---|---|---|---|---|")
    for kind, options, label in (("char_wb", ["--analyzer", "char_wb", "--ngram-range", "2,4"], "char_wb"),
                                 ("beside", ["--char-ngrams", "2,4"], "beside words (--char-ngrams)")):
        training_row(news, scratch, runs, kind, options, f"20news train, {label}")


def hashed_table(news: Path, scratch: Path, columns: str, runs: int) -> None:
    """Print the row of the default model's features hashed into 2**20 buckets, next to
    scikit-learn's HashingVectorizer given the same n-grams, tokens and buckets; the counts
    checked equal class by class."""
    print(f"\n| word uni+bigrams hashed into 2**20 buckets | {columns} | HashingVectorizer(ngram_range=(1, 2), "
          "n_features=2**20)+ComplementNB | ratio (each nbtext column) |")
    print("|---|---|---|---|---|---|")
    training_row(news, scratch, runs, "hashed", ["--hash-features", "2**20"], "20news train, --hash-features 2**20")


def trigram_table(news: Path, scratch: Path, columns: str, runs: int) -> None:
    """Print the row of word uni- to trigrams, nbtext's other options as they come, next to the
    pipeline's vectorizer with the same n-grams and tokens; the vocabularies checked equal."""
    print(f"\n| word uni- to trigrams | {columns} | CountVectorizer(ngram_range=(1, 3))+ComplementNB "
          "| ratio (each nbtext column) |")
    print("|---|---|---|---|---|---|")
    training_row(news, scratch, runs, "trigrams", ["--ngram-range", "1,3"], "20news train, --ngram-range 1,3")


def mail_table(enron: Path, scratch: Path, runs: int) -> None:
    """Print the table of predict on mail: all of enron-spam (33,716 messages) as message
    files and as one mbox, scored by a filter trained on enron1, in one process and with
    --jobs on every core (whose workers parse the mail too); documents/s and the ratio."""
    import mailbox

    model = scratch / "enron1-filter.joblib"
    child([sys.executable, "-m", "nbtext", "train", str(enron / "enron1"), "--input-format", "email", "-o", str(model)])
    files = sorted(path for path in enron.glob("enron*/*/*") if path.is_file())
    box = mailbox.mbox(scratch / "enron.mbox")
    for label in ("ham", "spam"):
        (scratch / "boxes" / label).mkdir(parents=True)
    by_class = {label: mailbox.mbox(scratch / "boxes" / label / "inbox.mbox") for label in ("ham", "spam")}
    for path in files:
        box.add(path.read_bytes())
        by_class[path.parent.name].add(path.read_bytes())
        link = scratch / "files" / path.parent.name / f"{path.parent.parent.name}-{path.name}"
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(path)
    for opened in (box, *by_class.values()):
        opened.close()
    cores = available_cores()
    print(f"\n| predict on mail (a filter; median of {runs}) | documents/s, --jobs 1 | documents/s, --jobs {cores} "
          f"| ratio | peak RSS, --jobs 1 / --jobs {cores} |")
    print("|---|---|---|---|---|")
    for label, source in (("enron-spam, 33,716 message files", [str(enron), "--input-format", "email"]),
                          ("the same as one mbox", [str(scratch / "enron.mbox")])):
        base = [sys.executable, "-m", "nbtext", "predict", str(model), *source]
        timings = alternating({jobs: (base + ["--jobs", str(jobs)], None) for jobs in (1, cores)}, runs)
        answers = {jobs: timings[jobs][2] for jobs in (1, cores)}
        assert answers[1] == answers[cores] and answers[1].count("\n") == len(files), f"{label}: answers differ"
        rate = {jobs: len(files) / timings[jobs][0] for jobs in (1, cores)}
        print(f"| {label} | {rate[1]:,.0f} | {rate[cores]:,.0f} | {rate[cores] / rate[1]:.1f}x | "
              f"{timings[1][1]:.0f} MB / {timings[cores][1]:.0f} MB |", flush=True)
    (scratch / "enron.mbox").unlink()
    print(f"\n| train a filter on mail (median of {runs}) | seconds, --jobs 1 | seconds, --jobs {cores} | ratio "
          f"| peak RSS, --jobs 1 / --jobs {cores} |")
    print("|---|---|---|---|---|")
    for label, layout, options in (("enron-spam, 33,716 message files in ham/ and spam/", "files",
                                    ["--input-format", "email"]),
                                   ("the same as one mbox a class", "boxes", [])):
        out = {jobs: scratch / f"{layout}-{jobs}.joblib" for jobs in (1, cores)}
        timings = alternating({jobs: ([sys.executable, "-m", "nbtext", "train", str(scratch / layout), *options, "-o",
                                       str(out[jobs]), "--jobs", str(jobs)], None) for jobs in (1, cores)}, runs)
        one, many = (pickle.dumps(Model.load(out[jobs]).counts.to_dict()) for jobs in (1, cores))
        assert one == many, f"{label}: the models' counts differ"
        print(f"| {label} | {timings[1][0]:.1f} | {timings[cores][0]:.1f} | "
              f"{timings[1][0] / timings[cores][0]:.2f}x | {timings[1][1]:.0f} MB / {timings[cores][1]:.0f} MB |",
              flush=True)


def in_memory_table(news: Path, ours: Path, theirs: Path, runs: int) -> None:
    """Prediction in memory on 20news test, as it is and in typographic punctuation: nbtext's
    sklearn-equivalent model ``ours`` next to the pipeline ``theirs``, alternating."""
    print("\n| prediction | nbtext | scikit-learn pipeline | ratio |")
    print("|---|---|---|---|")
    for text, how in (("", []), (", typographic quotes and dashes (’ ” —)", ["typographic"])):
        rates: dict[str, list[float]] = {"nbtext": [], "sklearn": []}
        for _ in range(runs):
            for tool, model_path in (("nbtext", ours), ("sklearn", theirs)):
                run = json.loads(child([sys.executable, "-c", _PREDICT, tool, str(model_path), str(news / "test"),
                                        *how])[0])
                rates[tool].append(run["n"] / run["seconds"])
        rate = {tool: statistics.median(values) for tool, values in rates.items()}
        nb_rate, sk_rate = rate["nbtext"], rate["sklearn"]
        print(f"| 20news test{text}, in memory: documents/s (median of {runs} fresh processes) | {nb_rate:,.0f} "
              f"| {sk_rate:,.0f} | {nb_rate / sk_rate:.1f}x |", flush=True)


def few_table(news: Path, ours: Path, theirs: Path, runs: int) -> None:
    """A few posts of 20news test, given as files, classified in a fresh process: nbtext's default
    model ``ours`` next to the nearest pipeline ``theirs``, joblib'd (CountVectorizer(ngram_range=(1,
    2)) given the same tokens, ComplementNB alpha 0.2), both trained on 20news train, alternating."""
    posts = sorted(map(str, (news / "test").glob("*/*")))
    random.Random(0).shuffle(posts)
    print(f"\n| posts of 20news test as files, fresh process (median of {runs}) | nbtext predict, default model "
          "| joblib'd CountVectorizer(ngram_range=(1, 2))+ComplementNB | ratio |")
    print("|---|---|---|---|")
    for n in FEW:
        commands = {"nbtext": ([sys.executable, "-m", "nbtext", "predict", str(ours), *posts[:n]], None),
                    "sklearn": ([sys.executable, "-c", _SKLEARN_FILES, str(theirs), *posts[:n]], None)}
        timings = alternating(commands, runs, peak_rss)
        for tool, (_, _, out) in timings.items():
            assert out.count("\n") == n, f"{tool} printed {out.count(chr(10))} lines for {n} posts"
        nb_sec, sk_sec = timings["nbtext"][0], timings["sklearn"][0]
        print(f"| {n:,} | {cell(timings['nbtext'])} | {cell(timings['sklearn'])} | {sk_sec / nb_sec:.1f}x |",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold-runs", type=int, default=20)
    parser.add_argument("--stream-mb", type=int, default=1024, help="size of the stdin stream to predict")
    parser.add_argument("--default-model-only", action="store_true", help="only the default model's table")
    parser.add_argument("--mail-only", action="store_true", help="only the table of predict on mail")
    parser.add_argument("--char-only", action="store_true", help="only the table of character n-grams")
    parser.add_argument("--hashed-only", action="store_true", help="only the row of hashed features")
    parser.add_argument("--trigrams-only", action="store_true", help="only the row of word uni- to trigrams")
    parser.add_argument("--few-only", action="store_true",
                        help="only the table of a few posts classified in a fresh process")
    parser.add_argument("--train-only", action="store_true",
                        help="only the first table: training scikit-learn's model on 20news and enron-spam")
    parser.add_argument("--in-memory-only", action="store_true",
                        help="only the table of prediction in memory (the two models trained once, untimed)")
    args = parser.parse_args()
    py = sys.executable
    write_bytecode_as_installed()
    news = corpus_root("20news-bydate")
    enron = corpus_root("enron-spam")
    scratch = Path(tempfile.mkdtemp())
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    columns = f"nbtext (default) | nbtext --jobs {available_cores()} | nbtext --jobs 1"
    if args.default_model_only:
        default_model_table(news, scratch, columns, args.runs)
        return
    if args.mail_only:
        mail_table(enron, scratch, args.runs)
        return
    if args.char_only:
        char_table(news, scratch, columns, args.runs)
        return
    if args.hashed_only:
        hashed_table(news, scratch, columns, args.runs)
        return
    if args.trigrams_only:
        trigram_table(news, scratch, columns, args.runs)
        return
    if args.few_only:  # the default model and its pipeline, as default_model_table trains them (untimed)
        ours, theirs = scratch / "all-words.joblib", scratch / "all-words-sklearn.joblib"
        child([py, "-m", "nbtext", "train", str(news / "train"), "-o", str(ours)])
        child([py, "-c", _SKLEARN_TRAIN, "all-words", str(news / "train")], {"OUT": str(theirs)})
        few_table(news, ours, theirs, args.runs)
        return
    if args.in_memory_only:
        ours, theirs = scratch / "ours.joblib", scratch / "theirs.joblib"
        child([py, "-m", "nbtext", "train", str(news / "train"), "-o", str(ours), *SKLEARN_EQUIVALENT])
        child([py, "-c", _SKLEARN_TRAIN, "count", str(news / "train")], {"OUT": str(theirs)})
        in_memory_table(news, ours, theirs, args.runs)
        return
    print(f"| task | {columns} | CountVectorizer+MNB | ratio (each nbtext column) | HashingVectorizer+MNB "
          "| ratio (default) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, roots in (("20news train", [news / "train"]),
                        ("enron-spam all", [enron / f"enron{i}" for i in range(1, 7)])):
        ours = scratch / f"{name}.joblib"
        commands = nbtext_train_commands(roots, ours, SKLEARN_EQUIVALENT)
        for kind in ("count", "hashing"):
            commands[kind] = ([py, "-c", _SKLEARN_TRAIN, kind, *map(str, roots)],
                              {"OUT": str(scratch / f"{name}-{kind}.joblib")})
        timings = alternating(commands, args.runs)
        cells = [cell(timings[jobs]) for jobs in JOBS]
        info = json.loads(timings["count"][2].splitlines()[-1])
        model = Model.load(ours)
        assert model.classes == info["classes"], "classes differ"
        assert model.core.feature_count_.sum(axis=1).tolist() == info["per_class"], "feature counts differ"
        for kind in ("count", "hashing"):
            sk_sec = timings[kind][0]
            ratios = train_ratios(sk_sec, timings) if kind == "count" else f"{sk_sec / timings[None][0]:.1f}x"
            cells += [cell(timings[kind]), ratios]
        print(f"| {name}: wall time (median of {args.runs}), peak RSS | " + " | ".join(cells) + " |", flush=True)
    if args.train_only:
        return

    default_model = default_model_table(news, scratch, columns, args.runs)
    char_table(news, scratch, columns, args.runs)
    hashed_table(news, scratch, columns, args.runs)
    trigram_table(news, scratch, columns, args.runs)

    ours, theirs = scratch / "20news train.joblib", scratch / "20news train-count.joblib"
    in_memory_table(news, ours, theirs, args.runs)
    stream, lines = scratch / "stream.txt", 0
    texts = [" ".join(d.text.split()) + "\n" for d in LabelledCorpus([str(news / "test")])]
    with open(stream, "w", encoding="utf-8") as handle:
        while handle.tell() < args.stream_mb * 2**20:
            handle.writelines(texts)
            lines += len(texts)
    rates = {}
    cores = available_cores()
    for tool, command in ((f"nbtext --jobs {cores}", [py, "-m", "nbtext", "predict", str(ours), "-", "--jobs", str(cores)]),
                          ("nbtext --jobs 1", [py, "-m", "nbtext", "predict", str(ours), "-"]),
                          ("sklearn", [py, "-c", _SKLEARN_STREAM, str(theirs)])):
        with open(stream, "rb") as source:
            out, seconds, rss = run_sampled(command, stdin=source)
        assert out.count("\n") == lines, f"{tool} printed {out.count(chr(10))} lines for {lines}"
        rates[tool] = (lines / seconds, rss)
    size = f"{stream.stat().st_size / 2**20:,.0f} MB on stdin ({lines:,} lines)"
    for tool in [name for name in rates if name != "sklearn"]:
        print(f"| {size}, {tool}: documents/s, peak RSS | {rates[tool][0]:,.0f}, {rates[tool][1]:.0f} MB | "
              f"{rates['sklearn'][0]:,.0f}, {rates['sklearn'][1]:.0f} MB | {rates[tool][0] / rates['sklearn'][0]:.1f}x |",
              flush=True)
    stream.unlink()

    one = scratch / "one.txt"
    one.write_text("The shuttle launch was delayed again; NASA blamed the weather.\n")
    cold = {
        "python -c pass": [py, "-c", "pass"],
        "python -c 'import numpy' (the floor for a numpy program)": [py, "-c", "import numpy"],
        "nbtext predict, sklearn-equivalent model": [py, "-m", "nbtext", "predict", str(ours), str(one)],
        "nbtext predict, default model": [py, "-m", "nbtext", "predict", str(default_model), str(one)],
        "joblib'd sklearn pipeline": [py, "-c", _SKLEARN_FILES, str(theirs), str(one)],
    }
    print(f"\n| one short document, fresh process (median of {args.cold_runs}) | seconds | peak RSS |")
    print("|---|---|---|")
    timings = alternating({label: (command, None) for label, command in cold.items()}, args.cold_runs, peak_rss)
    for label, (seconds, rss, _) in timings.items():
        print(f"| {label} | {seconds:.3f} | {rss:.0f} MB |", flush=True)
    few_table(news, default_model, scratch / "all-words-sklearn.joblib", args.runs)
    mail_table(enron, scratch, args.runs)


if __name__ == "__main__":
    main()

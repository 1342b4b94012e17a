"""Tables, JSONL fields and manifests, through the CLI, on real SMS messages."""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbtext.errors import DataError
from nbtext.readers import Columns, LabelledCorpus

from .conftest import TICKETS, corpus_path, run


@pytest.fixture(scope="module")
def sms_rows():
    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_text("utf-8").splitlines()
    return [line.split("\t", 1) for line in lines]


@pytest.fixture(scope="module")
def sms_csv(sms_rows, tmp_path_factory):
    """The SMS corpus as a CSV with a header, quoted fields and a multi-line message."""
    path = tmp_path_factory.mktemp("csv") / "sms.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "category", "body"])
        for n, (label, text) in enumerate(sms_rows):
            writer.writerow([f"m{n}", label, text.replace(" ", "\n", 1) if n == 3 else text])
    return path


def test_csv_columns_train_eval_predict(sms_csv, sms_rows, tmp_path):
    columns = ["--text-column", "body", "--label-column", "category"]
    result = run(["train", sms_csv, *columns, "-o", tmp_path / "m"])
    assert result.stderr.startswith("read 5,574 documents\n")
    report = json.loads(run(["eval", tmp_path / "m", sms_csv, *columns, "--format", "json"]).stdout)
    assert report["n_documents"] == 5574 and report["accuracy"] > 0.98
    out = run(["predict", tmp_path / "m", sms_csv, "--text-column", "body", "--id-column", "id"]).stdout
    lines = out.splitlines()
    assert len(lines) == 5574 and lines[0].split("\t")[0] == "m0" and lines[-1].startswith("m5573\t")
    docs = list(LabelledCorpus([str(sms_csv)], columns=Columns("body", "category")))
    assert docs[3].text == sms_rows[3][1].replace(" ", "\n", 1)  # the embedded newline survived


def test_a_model_trained_on_columns_reads_new_tables_by_them(sms_csv, tmp_path, tickets_model):
    """Trained on a table's body and category columns, eval and predict of the same kind of
    table needed the options again: eval stopped at "no column 'text'", and predict read the
    whole table as one document and printed one line. The model now keeps the column names
    for new CSV and JSONL files; a table given to a model trained on folders is still one
    document, and predict says how to classify its rows."""
    run(["train", sms_csv, "--text-column", "body", "--label-column", "category", "--id-column", "id",
         "-o", tmp_path / "m"])
    report = json.loads(run(["eval", tmp_path / "m", sms_csv, "--format", "json"]).stdout)
    assert report["n_documents"] == 5574 and report["accuracy"] > 0.98
    lines = run(["predict", tmp_path / "m", sms_csv]).stdout.splitlines()
    assert len(lines) == 5574 and lines[0].split("\t")[0] == "m0" and lines[-1].startswith("m5573\t")
    assert run(["eval", tmp_path / "m", TICKETS / "test"]).stderr.startswith("read 120 documents\n")  # folders
    updated = run(["train", "--update", tmp_path / "m", sms_csv, "-o", tmp_path / "twice"])  # as the model read it
    assert updated.stderr.startswith("read 5,574 documents\n") and "ham      9,654" in updated.stderr
    run(["tune", sms_csv, "--text-column", "body", "--label-column", "category", "--id-column", "id",
         "--grid", '{"alpha": [0.1, 1]}', "-o", tmp_path / "tuned"])
    assert run(["predict", tmp_path / "tuned", sms_csv]).stdout.splitlines()[-1].startswith("m5573\t")  # as train's
    whole = run(["predict", tickets_model, sms_csv])
    assert len(whole.stdout.splitlines()) == 1 and whole.stdout.startswith(f"{sms_csv}\t")
    assert whole.stderr.startswith(f"{sms_csv}: read as one document, as any file is; --text-column NAME classifies "
                                   "its rows one by one\n")


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_a_table_saved_by_excel_is_read_without_its_byte_order_mark(sms_rows, tmp_path, encoding):
    """Excel's "CSV UTF-8" starts the file with a byte order mark, which stuck to the first
    column's name: `--id-column id` failed with "no column 'id'; the header has: id, ...".
    Its "Unicode" tables are UTF-16, marked too, and read as such."""
    path = tmp_path / "excel.csv"
    with open(path, "w", newline="", encoding=encoding) as handle:  # CRLF rows, as Excel writes them
        writer = csv.writer(handle)
        writer.writerow(["id", "label", "text"])
        writer.writerows([f"m{n}", label, text] for n, (label, text) in enumerate(sms_rows))
    assert path.read_bytes().startswith("id,label,text\r\n".encode(encoding))  # the mark, then the header
    docs = list(LabelledCorpus([str(path)], columns=Columns(id="id")))
    assert [(d.source, d.label, d.text) for d in docs] == [(f"m{n}", *row) for n, row in enumerate(sms_rows)]
    run(["train", path, "-o", tmp_path / "m"])
    lines = run(["predict", tmp_path / "m", path, "--text-column", "text", "--id-column", "id"]).stdout.splitlines()
    assert [line.split("\t")[0] for line in lines] == [f"m{n}" for n in range(len(sms_rows))]


def test_a_semicolon_csv_as_excel_writes_it_in_europe_is_read_by_its_semicolons(sms_rows, tmp_path):
    """Where the decimal mark is a comma, Excel's "CSV" is split by semicolons. Such a table
    stopped with "no column 'text'; the header has: id;label;text"; a header with semicolons
    and no comma now reads the file by semicolons, quoted texts with commas and semicolons
    in them whole."""
    path = tmp_path / "excel.csv"
    with open(path, "w", newline="", encoding="utf-8-sig") as handle:
        writer = csv.writer(handle, delimiter=";")
        writer.writerow(["id", "label", "text"])
        writer.writerows([f"m{n}", label, text] for n, (label, text) in enumerate(sms_rows))
    assert sum(";" in text for _, text in sms_rows) > 20 and sum("," in text for _, text in sms_rows) > 500
    docs = list(LabelledCorpus([str(path)], columns=Columns(id="id")))
    assert [(d.source, d.label, d.text) for d in docs] == [(f"m{n}", *row) for n, row in enumerate(sms_rows)]
    run(["train", path, "--id-column", "id", "-o", tmp_path / "m"])
    lines = run(["predict", tmp_path / "m", path]).stdout.splitlines()
    assert [line.split("\t")[0] for line in lines] == [f"m{n}" for n in range(len(sms_rows))]
    (tmp_path / "broken.csv").write_text('label;text\nham;"see you; at noon"\nham;see you; at noon\n')
    error = run(["train", tmp_path / "broken.csv", "-o", tmp_path / "b"], expect=1).stderr
    assert error.endswith(f"Error: {tmp_path / 'broken.csv'}:3: 3 fields where the header has 2 (label, text): a "
                          "field holding a semicolon must be in double quotes\n")


def test_utf16_without_a_byte_order_mark_asks_for_the_order(sms_rows, tmp_path):
    """`--encoding utf-16` on a table with no byte order mark (many exporters write UTF-16LE
    without one) ended in a UnicodeError traceback: Python reads a UTF-16 stream only from its
    mark. The error now names the encodings that say the order, and they read every row."""
    path = tmp_path / "nomark.csv"
    with open(path, "w", newline="", encoding="utf-16-le") as handle:
        writer = csv.writer(handle)
        writer.writerow(["label", "text"])
        writer.writerows(sms_rows)
    error = run(["train", path, "--encoding", "utf-16", "-o", tmp_path / "m"], expect=1).stderr
    assert error == (f"Error: {path}: UTF-16 with no byte order mark at its start; give the order: --encoding "
                     "utf-16-le (as Windows writes it) or utf-16-be\n")
    docs = list(LabelledCorpus([str(path)], encoding="utf-16-le"))
    assert [(d.label, d.text) for d in docs] == [tuple(row) for row in sms_rows]


def test_a_utf16_table_with_invalid_bytes_is_reported_in_utf16(sms_rows, tmp_path):
    """The read report said "bytes not valid utf-8" of a table read as UTF-16 by its mark."""
    path = tmp_path / "excel.tsv"
    rows = "".join(f"{label}\t{text}\n" for label, text in sms_rows[:3])
    broken = "\ud800".encode("utf-16-le", "surrogatepass")  # half a surrogate pair, alone
    path.write_bytes(("label\ttext\n" + rows).encode("utf-16") + "ham\tsee ".encode("utf-16-le") + broken
                     + " you\n".encode("utf-16-le"))
    result = run(["train", path, "--text-column", "text", "-o", tmp_path / "m"])
    assert result.stderr.startswith("read 4 documents\n1 decoded with replacement (bytes not valid utf-16)\n")
    docs = list(LabelledCorpus([str(path)], columns=Columns()))
    assert [(d.label, d.text) for d in docs] == [*map(tuple, sms_rows[:3]), ("ham", "see \ufffd you")]


def test_a_missing_column_names_the_option_that_sets_it(tmp_path):
    """A table whose columns are not text and label stopped with "no column 'text'", which did
    not say that the name is an option's default; the error now names the option."""
    (tmp_path / "t.csv").write_text("body,category\nwhere is my parcel,shipping\n")
    error = run(["train", tmp_path / "t.csv", "-o", tmp_path / "m"], expect=1).stderr
    assert error.endswith(f"Error: {tmp_path / 't.csv'}: no column 'text' (set by --text-column); the header has: "
                          "body, category\n")
    error = run(["train", tmp_path / "t.csv", "--text-column", "body", "-o", tmp_path / "m"], expect=1).stderr
    assert error.endswith("no column 'label' (set by --label-column); the header has: body, category\n")
    (tmp_path / "t.jsonl").write_text('{"body": "where is my parcel", "label": "shipping"}\n')
    error = run(["train", tmp_path / "t.jsonl", "--label-field", "label", "-o", tmp_path / "m"], expect=1).stderr
    assert error.endswith(f"Error: {tmp_path / 't.jsonl'}:1: no 'text' field (set by --text-field)\n")


def test_a_table_split_by_the_other_delimiter_says_so(tmp_path):
    """The SMS corpus (header-less TSV) read with --input-format csv stopped with "the header
    has: " and a whole message with a tab in it; the error now cuts the names short and says
    the file is tab-separated. A comma-separated .tsv is told the other way round."""
    sms = corpus_path("sms-spam") / "SMSSpamCollection"
    error = run(["train", sms, "--input-format", "csv", "-o", tmp_path / "m"], expect=1).stderr
    assert error == (f"Error: {sms}: no column 'text' (set by --text-column); the header has: ham\\tGo until "
                     "jurong point,  crazy.. Available only in bugis n gr...; its first line has tabs: --input-format "
                     "tsv reads a tab-separated file\n")
    (tmp_path / "t.tsv").write_text("label,text\nshipping,where is my parcel\n")
    error = run(["train", tmp_path / "t.tsv", "--text-column", "text", "-o", tmp_path / "m"], expect=1).stderr
    assert error.endswith("the header has: label,text; its first line has commas and no tab: --input-format csv "
                          "reads a comma-separated file\n")


def test_header_names_are_matched_without_spaces_and_must_be_unique(sms_rows, tmp_path):
    """A header typed by hand as "label, text" stopped with "no column 'text'; the header has:
    label,  text", the space invisible in the message. A name in two columns was read from the
    last without a word. Names are now matched without the spaces around them, and a name in
    two columns is an error."""
    def quoted(field: str) -> str:
        return '"' + field.replace('"', '""') + '"'

    typed = tmp_path / "typed.csv"
    typed.write_text("label, text\n" + "".join(f"{label},{quoted(text)}\n" for label, text in sms_rows[:300]))
    assert [(d.label, d.text) for d in LabelledCorpus([str(typed)])] == [tuple(row) for row in sms_rows[:300]]
    twice = tmp_path / "twice.csv"
    twice.write_text("text,label,text \n" + "".join(f"{quoted(text)},{label},\n" for label, text in sms_rows[:300]))
    error = run(["train", twice, "-o", tmp_path / "m"], expect=1).stderr
    assert error == f"Error: {twice}: the header names 'text' in 2 columns (1, 3): which one to read is not clear\n"


def test_missing_labels_stop_or_are_counted(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('text,label\n"fine, quoted",ham\n"no label here",\n"win ""cash"" now",spam\n')
    result = run(["train", path, "-o", tmp_path / "m"], expect=1)
    assert result.stderr == f"Error: {path}:3: no label in 'label' (or pass --skip-unlabelled)\n"
    result = run(["train", path, "-o", tmp_path / "m", "--skip-unlabelled", "--min-df", "1"])
    assert result.stderr.startswith("read 2 documents\n1 skipped: no label\n")
    docs = list(LabelledCorpus([str(path)], columns=Columns(skip_unlabelled=True)))
    assert [d.text for d in docs] == ["fine, quoted", 'win "cash" now']


def test_a_comma_or_a_quote_that_breaks_a_csv_row_is_an_error_not_a_lost_text(sms_rows, tmp_path, tickets_model):
    """A CSV written by hand, without quoting a message that holds a comma, was read as far as
    the comma: the rest of the text was dropped without a word. A quoted field that never
    closes ran to the end of the file, every later row becoming part of one document. Both
    now stop at the row, on the real SMS messages."""
    first_comma = next(n for n, (_, text) in enumerate(sms_rows) if "," in text)
    naive = tmp_path / "naive.csv"
    naive.write_text("label,text\n" + "".join(f"{label},{text}\n" for label, text in sms_rows), encoding="utf-8")
    fields = 2 + sms_rows[first_comma][1].count(",")
    error = run(["train", naive, "-o", tmp_path / "m"], expect=1).stderr
    assert error == (f"Error: {naive}:{first_comma + 2}: {fields} fields where the header has 2 (label, text): "
                     "a field holding a comma must be in double quotes\n")

    def quoted(field: str) -> str:
        return '"' + field.replace('"', '""') + '"'

    rows = [f"{label},{quoted(text)}\r\n" for label, text in sms_rows]
    unclosed = tmp_path / "unclosed.csv"
    unclosed.write_text("label,text\r\n" + "".join(rows[:40]) + rows[40][:-3] + "\r\n" + "".join(rows[41:]),
                        encoding="utf-8", newline="")  # a closing quote left out: the next opening one closes it
    error = run(["train", unclosed, "-o", tmp_path / "m"], expect=1).stderr
    assert error == (f"Error: {unclosed}:42: 4 fields where the header has 2 (label, text): the row runs on to line "
                     '43: check its quotes (one inside a quoted field is written twice: "")\n')
    unclosed.write_text("label,text\r\n" + "".join(rows[:-1]) + rows[-1][:-3] + "\r\n", encoding="utf-8",
                        newline="")  # the last row's: nothing closes it
    error = run(["train", unclosed, "-o", tmp_path / "m"], expect=1).stderr
    assert error == (f"Error: {unclosed}:{len(rows) + 1}: the double quote that opens a field in this row never "
                     'closes, so the rest of the file would be one field (a quote inside a quoted field is written '
                     'twice: "")\n')
    answers = run(["predict", tickets_model, unclosed, "--text-column", "text"], expect=1)
    assert len(answers.stdout.splitlines()) == len(rows) - 1  # the rows before it are answered
    assert answers.stderr.endswith(f"Error: {unclosed}:{len(rows) + 1}: the double quote that opens a field in this "
                                   "row never closes, so the rest of the file would be one field (a quote inside a "
                                   'quoted field is written twice: "")\n')


_LABEL = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\0"), min_size=1, max_size=8).filter(
    lambda s: s.strip() == s and s)
_TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\0"), max_size=30)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(_LABEL, _TEXT), min_size=1, max_size=12))
def test_any_table_csv_writes_is_read_back_exactly(tmp_path_factory, rows):
    """Whatever the texts hold (commas, quotes, line breaks of every kind), a table written by
    Python's csv module is read back row for row, text for text."""
    path = tmp_path_factory.mktemp("written") / "t.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["label", "text"])
        writer.writerows(rows)
    assert [(d.label, d.text) for d in LabelledCorpus([str(path)])] == rows


_TSV_TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\0\t\r\n"), max_size=30)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(_LABEL.filter(lambda s: not {"\t", "\r", "\n"} & set(s)), _TSV_TEXT),
                     min_size=1, max_size=12))
def test_any_tsv_table_is_read_as_written(tmp_path_factory, rows):
    """A TSV's texts, quotes and all, come back as written, by its columns or as label<TAB>text lines."""
    path = tmp_path_factory.mktemp("written") / "t.tsv"
    path.write_text("label\ttext\n" + "".join(f"{label}\t{text}\n" for label, text in rows), encoding="utf-8")
    assert [(d.label, d.text) for d in LabelledCorpus([str(path)], columns=Columns())] == rows
    assert [(d.label, d.text) for d in LabelledCorpus([str(path)])] == rows


def test_a_tsv_table_is_read_as_written_like_a_tsv_without_a_header(sms_rows, tmp_path):
    """The SMS file with a header row, read by its columns, went through CSV quoting: 536 of
    its 5,574 texts lost their quotes or took in the next lines, and two messages went missing
    inside others. TSV has no quoting; it is now read as the same file without a header is."""
    table = tmp_path / "sms.tsv"
    table.write_text("label\ttext\n" + "".join(f"{label}\t{text}\n" for label, text in sms_rows), encoding="utf-8")
    by_columns = [(d.label, d.text) for d in LabelledCorpus([str(table)], columns=Columns())]
    assert by_columns == [tuple(row) for row in sms_rows]
    assert by_columns == [(d.label, d.text) for d in LabelledCorpus([str(table)])]  # the header skipped
    assert sum(text.startswith('"') for _, text in by_columns) == 54

    written = tmp_path / "written.tsv"  # as csv.writer (or pandas) writes a TSV: a line break in quotes
    with open(written, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(["label", "text"])
        writer.writerows((label, text.replace(" ", "\n", 1) if n == 5 else text) for n, (label, text)
                         in enumerate(sms_rows))
    error = run(["train", written, "--text-column", "text", "-o", tmp_path / "m"], expect=1).stderr
    assert error == (f"Error: {written}:8: 1 field where the header has 2 (label, text): a line break in a text "
                     "splits it, as TSV is read as written; for fields in double quotes, as CSV writes them, read "
                     "it with --input-format csv\n")
    result = run(["train", written, "--input-format", "csv", "-o", tmp_path / "m"])
    assert result.stderr.startswith("read 5,574 documents\n")
    docs = list(LabelledCorpus([str(written)], input_format="csv"))
    assert docs[5].text == sms_rows[5][1].replace(" ", "\n", 1) and docs[-1].text == sms_rows[-1][1]
    answers = run(["predict", tmp_path / "m", written, "--input-format", "csv", "--text-column", "text"]).stdout
    assert answers.splitlines()[6].startswith(f"{written}:9\t")  # the row before ran over two lines
    assert len(answers.splitlines()) == 5574
    error = run(["predict", tmp_path / "m", written, "--input-format", "csv"], expect=1).stderr
    assert error.endswith("Error: --input-format csv reads the rows of a table: name its text column with "
                          "--text-column\n")


def test_a_100_mb_field(tmp_path):
    """A field may be as long as the cap on one document allows (64 MiB unless raised); a row
    past it is an error at its line, no more of it read."""
    path = tmp_path / "big.tsv"
    big = "spam " * 20_000_000
    path.write_text(f"label\ttext\nham\tshort one\nspam\t{big}\n")
    docs = list(LabelledCorpus([str(path)], columns=Columns(), max_document_bytes=128 << 20))
    assert [len(d.text) for d in docs] == [9, 100_000_000]
    with pytest.raises(DataError, match=f"{path}:3: a row of more than 64 MiB, the most one document may be"):
        list(LabelledCorpus([str(path)], columns=Columns()))


def test_jsonl_dotted_fields(tmp_path):
    path = tmp_path / "d.jsonl"
    records = [{"meta": {"y": "spam"}, "body": {"text": "win cash"}, "id": 7},
               {"meta": {"y": "ham"}, "body": {"text": "lunch at noon"}, "id": 8}]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    docs = list(LabelledCorpus([str(path)], columns=Columns("body.text", "meta.y", "id")))
    assert [(d.label, d.text, d.source) for d in docs] == [("spam", "win cash", "7"), ("ham", "lunch at noon", "8")]


@pytest.mark.parametrize(("lines", "args", "error"), [
    # Each said only 'expected an object with "label" and "text"'.
    ('{"category": "spam", "body": "win cash"}', [], 'expected an object with "label" and "text"; it has "category", '
     '"body": name its fields with --text-field and --label-field'),
    ('[{"label": "spam", "text": "win cash"}]', ["--input-format", "jsonl"], 'expected an object with "label" and '
     "\"text\"; the line is a list: write a JSON array's records one a line (jq -c '.[]') to read them as JSONL"),
    ('"win cash"', [], 'expected an object with "label" and "text"; the line is a string'),
    # This said "no label in 'label'", as of a record whose label is null.
    ('{"category": "spam", "body": "win cash"}', ["--text-field", "body"],
     "no 'label' field (set by --label-field; or pass --skip-unlabelled)"),
])
def test_a_jsonl_line_that_is_no_labelled_record_says_what_it_holds(tmp_path, lines, args, error):
    (tmp_path / "t.jsonl").write_text(lines + "\n")
    result = run(["train", tmp_path / "t.jsonl", *args, "-o", tmp_path / "m"], expect=1)
    assert result.stderr == f"Error: {tmp_path / 't.jsonl'}:1: {error}\n"


def test_a_json_array_file_says_how_to_read_it(tmp_path):
    (tmp_path / "t.json").write_text('[{"label": "spam", "text": "win cash"}]')
    result = run(["train", tmp_path / "t.json", "-o", tmp_path / "m"], expect=1)
    assert result.stderr == (f"Error: {tmp_path / 't.json'}: cannot tell the format from the name or the first line; "
                             "set --input-format (folder, tsv, jsonl or fasttext); write a JSON array's records one a "
                             "line (jq -c '.[]') to read them as JSONL\n")


@pytest.mark.parametrize(("record", "error"), [
    ({"label": "spam", "text": ["win", "cash"]}, "'text' is a list; the text must be a string"),
    ({"label": "spam", "text": None}, "'text' is null; the text must be a string"),
    ({"label": [["spam"], "ham"], "text": "win cash"}, "'label' is a list; it must be a string or a number"),
])
def test_a_json_field_of_the_wrong_kind_is_refused_as_without_field_options(tmp_path, record, error):
    """With --label-field, a list of labels became one class named "['spam', 'ham']", and a
    list or null text was read as its Python spelling ("['win', 'cash']", or the error "no
    'text' field" for a field that is there), where the same file read without the options is
    refused. Both readers now refuse it, naming the field."""
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps({"label": "ham", "text": "lunch at noon"}) + "\n")
    stderr = run(["train", path, "--label-field", "label", "-o", tmp_path / "m"], expect=1).stderr
    assert stderr == f"Error: {path}:1: {error}\n"
    run(["train", path, "-o", tmp_path / "m"], expect=1)  # the reader without field options refuses it too
    path.write_text('{"label": 7, "text": "win cash", "id": 12}\n{"label": null, "text": "lunch"}\n')
    docs = list(LabelledCorpus([str(path)], columns=Columns(id="id", skip_unlabelled=True)))
    assert [(d.label, d.text, d.source) for d in docs] == [("7", "win cash", "12")]


def test_a_json_true_or_false_label_is_spelled_as_json_spells_it(sms_rows, tmp_path):
    """SMS spam as JSONL records with a boolean field, `{"spam": true, ...}`, as a database
    export writes one. Both JSONL readers named the classes True and False, Python's spelling,
    so predict answered `True` to a pipeline that compares the answer with the data's `true`
    (`jq 'select(.spam == true)'`). The classes are `true` and `false` now, as the lines
    spell them; numbers keep the spelling they had ("7", "2.5")."""
    path = tmp_path / "sms.jsonl"
    path.write_text("".join(json.dumps({"message": text, "spam": label == "spam", "id": n}) + "\n"
                            for n, (label, text) in enumerate(sms_rows[:1000])))
    run(["train", path, "--text-field", "message", "--label-field", "spam", "--id-field", "id", "-o", tmp_path / "m"])
    answers = run(["predict", tmp_path / "m", path, "--text-field", "message", "--id-field", "id"]).stdout.splitlines()
    truth = ["true" if label == "spam" else "false" for label, _ in sms_rows[:1000]]
    assert [line.split("\t")[0] for line in answers] == [str(n) for n in range(1000)]
    assert {line.split("\t")[1] for line in answers} == {"true", "false"}
    assert sum(line.split("\t")[1] == t for line, t in zip(answers, truth)) > 990  # on its own training texts
    assert run(["info", tmp_path / "m"]).stdout.splitlines()[1:3] == [
        f"  false {truth.count('false'):>9,}", f"  true {truth.count('true'):>10,}"]
    lines = tmp_path / "plain.jsonl"
    lines.write_text('{"label": true, "text": "win cash now"}\n{"label": false, "text": "lunch at noon"}\n'
                     '{"label": 2.5, "text": "half past two"}\n')
    assert [d.label for d in LabelledCorpus([str(lines)])] == ["true", "false", "2.5"]


def test_manifest_points_to_files(tmp_path):
    manifest = tmp_path / "list.txt"
    train = TICKETS / "train"
    manifest.write_text(f"{train / 'billing' / '000.txt'}\tbilling\n{train / 'shipping' / '000.txt'}\tshipping\n\n",
                        encoding="utf-8-sig")  # as Notepad saves it: the mark must not join the first path
    corpus = LabelledCorpus([str(manifest)], input_format="manifest")
    assert [(d.label, d.source) for d in corpus] == [("billing", str(train / "billing" / "000.txt")),
                                                     ("shipping", str(train / "shipping" / "000.txt"))]
    assert corpus.report.skipped == {"blank line": [f"{manifest}:3"]}


def test_a_utf16_table_cut_short_is_read_to_its_end_with_the_cut_replaced(sms_rows, tmp_path):
    """A table saved as Excel's "Unicode" (UTF-16) and cut off mid-character, an odd byte at
    its end, stopped train with a UnicodeDecodeError traceback: surrogateescape, which kept
    invalid bytes for counting, cannot keep a byte below 0x80. Every row is read now, the
    last with the cut replaced and counted."""
    path = tmp_path / "cut.csv"
    with open(path, "w", newline="", encoding="utf-16") as handle:
        writer = csv.writer(handle)
        writer.writerow(["label", "text"])
        writer.writerows(sms_rows[:200])
    path.write_bytes(path.read_bytes()[:-3])  # the last row's line end gone, and half a character
    corpus = LabelledCorpus([str(path)], columns=Columns())
    docs = list(corpus)
    assert [(d.label, d.text) for d in docs[:-1]] == [tuple(row) for row in sms_rows[:199]]
    assert docs[-1].text == sms_rows[199][1] + "\ufffd"  # half of the CR
    assert corpus.report.replaced == [f"{path}:201"]
    assert run(["train", path, "-o", tmp_path / "m"]).stderr.startswith(
        "read 200 documents\n1 decoded with replacement")


def test_json_escapes_of_lone_surrogates_are_replaced_by_both_jsonl_readers(sms_rows, tmp_path):
    """JSON can escape what no decoding gives, a lone surrogate ("\\udce9"). Read without field
    options, it stayed in the text uncounted; read by --text-field, it was replaced and counted.
    Both readers now give the same texts, replaced the same way, and count them."""
    path = tmp_path / "d.jsonl"
    texts = [sms_rows[0][1] + " \ud800", "café".encode().decode("ascii", "surrogateescape"),
             sms_rows[1][1] + " \udce9 end"]  # UTF-8 read as ASCII with surrogateescape
    path.write_text("".join(json.dumps({"label": "ham", "text": t}) + "\n" for t in texts))
    assert "\\udcc3\\udca9" in path.read_text()
    expected = [sms_rows[0][1] + " \ufffd", "café", sms_rows[1][1] + " \ufffd end"]
    for columns in (None, Columns()):
        corpus = LabelledCorpus([str(path)], columns=columns)
        assert [d.text for d in corpus] == expected
        assert corpus.report.replaced == [f"{path}:{n}" for n in (1, 2, 3)]


def test_a_manifest_naming_no_possible_file_is_an_error_naming_the_line(tmp_path):
    """A NUL in a manifest's path (a binary file given as the manifest) ended train in a
    ValueError traceback from os.open."""
    manifest = tmp_path / "list.txt"
    manifest.write_bytes(f"{TICKETS / 'train' / 'billing' / '000.txt'}\tbilling\nsome\0thing\tshipping\n".encode())
    error = run(["train", manifest, "--input-format", "manifest", "-o", tmp_path / "m"], expect=1).stderr
    assert error == f"Error: {manifest}:2: 'some\\x00thing' cannot be a file name\n"


def test_a_nul_byte_in_a_table_is_kept_on_every_python(sms_rows, tmp_path):
    """Python 3.10's csv module stops at a NUL ("line contains NUL", a traceback from train);
    3.11's reads it. The SMS messages with a NUL inside a quoted, multi-line field and in a
    plain one: every row read, every text exactly as written."""
    rows = [(label, text) for label, text in sms_rows[:50]]
    rows[3] = (rows[3][0], "free\x00 entry\nline two")
    rows[7] = (rows[7][0], rows[7][1] + "\x00")
    path = tmp_path / "nul.csv"  # written by hand: 3.10's csv writer refuses a NUL too
    def quoted(field: str) -> str:
        return '"' + field.replace('"', '""') + '"'

    path.write_text("label,text\r\n" + "".join(f"{quoted(label)},{quoted(text)}\r\n" for label, text in rows),
                    encoding="utf-8", newline="")
    corpus = LabelledCorpus([str(path)])
    assert [(doc.label, doc.text) for doc in corpus] == rows
    assert corpus.report.replaced == []


def test_columns_are_refused_where_no_table_is_read(tmp_path, tickets_model):
    """--text-column on stdin ended train in a FileNotFoundError for '-' (and predict, with
    --input-format csv), and predict read each line of the piped CSV, header too, as a
    document; on a file that is no table predict read it whole as one document. Each now says
    where columns are read."""
    table = "text,label\nwhere is my parcel,shipping\n"
    error = run(["train", "-", "--input-format", "tsv", "--text-column", "text", "-o", tmp_path / "m"],
                input=table, expect=1).stderr
    assert error.endswith("Error: --text-column, --label-column, --id-column and --skip-unlabelled read tables "
                          "and JSONL files by name, not stdin: save the table to a file first (e.g. > data.tsv)\n")
    for asked in ([], ["--input-format", "csv"]):  # with csv asked for, predict opened a file named '-'
        error = run(["predict", tickets_model, "--text-column", "text", *asked], input=table, expect=1).stderr
        assert error.endswith("Error: --text-column and --id-column read tables and JSONL files by name, not "
                              "stdin: save the table to a file first (e.g. > data.tsv)\n")
    notes = tmp_path / "notes.txt"
    notes.write_text(table)
    error = run(["predict", tickets_model, notes, "--text-column", "text"], expect=1).stderr
    assert error.endswith(f"Error: {notes}: --text-column and --id-column read tables and JSONL files "
                          "(.csv, .tsv, .tab, .jsonl, .ndjson); this is none of them\n")
    # train read a folder or a file of another format as ever, the column options quietly unused
    for data, kind in [(TICKETS / "train", "a folder"), (notes, "none of them")]:
        error = run(["train", data, "--text-column", "text", "-o", tmp_path / "m"], expect=1).stderr
        assert error.endswith(f"Error: {data}: --text-column, --label-column, --id-column and --skip-unlabelled read "
                              "tables and JSONL files (.csv, .tsv, .tab, .jsonl, .ndjson, or --input-format csv, tsv or "
                              f"jsonl); this is {kind}\n")
    (tmp_path / "notes.tab").write_text(table.replace(",", "\t") + "my invoice is wrong\tbilling\n")
    trained = run(["train", tmp_path / "notes.tab", "--text-column", "text", "-o", tmp_path / "m"])  # as predict
    assert trained.stderr.startswith("read 2 documents\n")  # reads it: by name, the header row its columns
    (tmp_path / "table.csv").write_text(table)
    assert run(["predict", tickets_model, tmp_path / "table.csv", "--text-column", "text"]).stdout == \
        f"{tmp_path / 'table.csv'}:2\tshipping\n"

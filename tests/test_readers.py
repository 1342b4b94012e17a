"""Readers take messy real input, lose nothing, and say what they skipped or replaced."""

from __future__ import annotations

import io
import json
import os
import re
import threading

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from nbtext.errors import DataError
from nbtext.readers import Columns, LabelledCorpus, ReadReport, iter_unlabelled
from nbtext.readers.lines import iter_line_batches
from nbtext.readers.decoding import unmarked_wide
from nbtext.readers.filekinds import not_text

from .conftest import REPO, SHARED_GET, TICKETS, corpus_path, in_bash, run


def test_folder_per_class_skips_and_counts_what_is_not_a_document(tmp_path, tickets_model):
    for label in ("ham", "spam"):
        (tmp_path / label / "deep").mkdir(parents=True)
        (tmp_path / label / "1.txt").write_text(f"a {label} message")
        (tmp_path / label / "deep" / "2.txt").write_text("nested")
    (tmp_path / "ham" / ".DS_Store").write_bytes(b"\0")
    (tmp_path / ".git").mkdir()
    (tmp_path / "README").write_text("not in a class folder")
    os.mkfifo(tmp_path / "spam" / "fifo")
    os.symlink(tmp_path / "ham", tmp_path / "spam" / "link-to-ham")
    os.symlink(tmp_path / "nowhere", tmp_path / "spam" / "broken")
    # Links that loop, which raise where a broken one does not: once a traceback.
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    os.symlink(tmp_path / "ham" / "y", tmp_path / "ham" / "x")
    os.symlink(tmp_path / "ham" / "x", tmp_path / "ham" / "y")
    corpus = LabelledCorpus([str(tmp_path)])
    docs = list(corpus)
    assert [(os.path.relpath(d.source, tmp_path), d.label) for d in docs] == [
        ("ham/1.txt", "ham"), ("ham/deep/2.txt", "ham"), ("spam/1.txt", "spam"), ("spam/deep/2.txt", "spam"),
    ]
    skipped = {why: sorted(os.path.relpath(p, tmp_path) for p in paths) for why, paths in corpus.report.skipped.items()}
    assert skipped == {
        "hidden": [".git", "ham/.DS_Store"],
        "not inside a class folder (DATA holds one folder per class: DATA/LABEL/FILE)": ["README"],
        "not a regular file": ["spam/fifo"],
        "link to a folder read elsewhere (not read twice)": ["spam/link-to-ham"],
        "broken link or unreadable": ["ham/x", "ham/y", "loop", "spam/broken"],
    }
    predicted = run(["predict", tickets_model, tmp_path / "ham"]).stdout
    assert predicted.count("\n") == 2 and "ham/1.txt\t" in predicted
    for link in ("loop", "spam/broken"):  # given by name: not "no such file or folder"
        refused = run(["predict", tickets_model, tmp_path / link], expect=1).stderr
        assert refused == (f"Error: {tmp_path / link}: a link to nothing that can be read "
                           "(its target is missing, or it loops)\n")
    # A maildir's listing is its names: a broken link there was "gone before it was read".
    for sub in ("cur", "new", "tmp"):
        (tmp_path / "box" / sub).mkdir(parents=True)
    (tmp_path / "box" / "cur" / "1").write_text("Subject: refund\n\nmy invoice is wrong\n")
    os.symlink(tmp_path / "nowhere", tmp_path / "box" / "new" / "2")
    read = run(["predict", tickets_model, tmp_path / "box", "--input-format", "maildir"])
    assert read.stdout.count("\n") == 1 and "1 skipped: broken link or unreadable\n" in read.stderr


def _png() -> bytes:
    """A real 1x1 PNG image, chunk by chunk."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0\xff\x00\x00")) + chunk(b"IEND", b""))


def test_files_that_are_no_text_are_skipped_and_counted(tmp_path, tickets_model):
    """An image, a PDF or a compressed file among the documents was read as text, and gave
    its class a few hundred noise words (reported only as "decoded with replacement"). They
    are skipped and counted now, found by their first bytes; a text with NUL bytes in it
    (44 Enron spams end in them) is still a document."""
    import gzip
    import shutil

    for label in ("billing", "shipping"):
        shutil.copytree(TICKETS / "train" / label, tmp_path / "data" / label)
    (tmp_path / "data" / "billing" / "scan.png").write_bytes(_png())
    (tmp_path / "data" / "billing" / "old.txt.gz").write_bytes(gzip.compress((TICKETS / "train" / "billing" /
                                                                               "000.txt").read_bytes()))
    (tmp_path / "data" / "shipping" / "label.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
    nul_spam = corpus_path("enron-spam") / "enron3" / "spam" / "4271.2005-05-02.BG.spam.txt"
    assert b"\0" in nul_spam.read_bytes()
    shutil.copy(nul_spam, tmp_path / "data" / "shipping" / "nul.txt")
    result = run(["train", tmp_path / "data", "-o", tmp_path / "m", "-v"])
    data = tmp_path / "data"
    assert result.stderr.startswith(
        "read 163 documents\n"  # 81 + 81 tickets and the spam with NULs
        f"1 decoded with replacement (bytes not valid utf-8)\n  {data / 'billing' / '080.txt'}\n"
        f"1 empty (kept: they still count for the class priors)\n  {data / 'shipping' / '080.txt'}\n"
        f"1 skipped: not text (a PDF document; pdftotext converts it to text)\n  {data / 'shipping' / 'label.pdf'}\n"
        f"1 skipped: not text (a PNG image)\n  {data / 'billing' / 'scan.png'}\n"
        f"1 skipped: not text (gzip-compressed; zcat writes its text)\n  {data / 'billing' / 'old.txt.gz'}\n")
    # named, it is no document to answer for: the others are answered, then the error (exit 1)
    named = run(["predict", tickets_model, data / "billing" / "scan.png", data / "shipping" / "nul.txt"], expect=1)
    assert named.stdout == f"{data / 'shipping' / 'nul.txt'}\tbilling\n"
    assert named.stderr == ("read 1 document\n1 skipped: not text (a PNG image)\n"
                            f"Error: {data / 'billing' / 'scan.png'} gave no document: skipped, not text (a PNG image)\n")
    listed = tmp_path / "list.txt"
    listed.write_text(f"{data / 'billing' / '000.txt'}\tbilling\n{data / 'billing' / 'scan.png'}\tbilling\n")
    error = run(["train", "--input-format", "manifest", listed, "-o", tmp_path / "l"], expect=1).stderr
    assert error.endswith(f"Error: {listed}:2: {data / 'billing' / 'scan.png'} is not text (a PNG image)\n")


def test_other_binary_files_are_skipped_by_their_nul_bytes(tickets_model, tmp_path):
    """A program, a database or a sound in a class folder was read as text, its bytes
    decoded with replacement, and gave its class words such as "elf" and "sqlite";
    piped into predict, a PDF was three lines, each given a label. Their NUL bytes side by
    side, which no text has but UTF-16's, now say they are no text; a lone NUL does not
    (Enron's spams keep theirs), nor do the NULs that pad a text a crash cut short, nor does
    UTF-16 without a mark, which is read as text."""
    import contextlib
    import shutil
    import sqlite3
    import wave

    data = tmp_path / "data"
    shutil.copytree(TICKETS / "train" / "billing", data / "billing")
    shutil.copy(shutil.which("ls") or "/bin/ls", data / "billing" / "ls")
    with contextlib.closing(sqlite3.connect(data / "billing" / "notes.db")) as db:
        db.execute("create table notes (text)")
        db.execute("insert into notes values ('refund my invoice')")
        db.commit()
    with wave.open(str(data / "billing" / "call.wav"), "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        sound.writeframes(bytes(range(256)) * 32)
    (data / "shipping").mkdir()
    nul_spams = [path for path in sorted((corpus_path("enron-spam") / "enron3" / "spam").iterdir())
                 if b"\0" in path.read_bytes()]
    for path in nul_spams:
        shutil.copy(path, data / "shipping" / path.name)
    (data / "shipping" / "wide.txt").write_bytes("my parcel never arrived".encode("utf-16-le"))
    (data / "shipping" / "padded.txt").write_bytes(b"where is my parcel?\n" + bytes(4096))  # as a crash leaves it
    result = run(["train", data, "-o", tmp_path / "m", "-v"])
    binary = "binary data: NUL bytes side by side, as no text has"
    assert f"\n3 skipped: not text ({binary})\n  {data / 'billing' / 'call.wav'}\n  {data / 'billing' / 'ls'}\n" \
           f"  {data / 'billing' / 'notes.db'}\n" in result.stderr
    assert result.stderr.startswith(f"read {81 + len(nul_spams) + 2} documents\n")
    assert len(nul_spams) == 11
    pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n"
    for piped, kind in ((pdf, "a PDF document; pdftotext converts it to text"),
                        ((data / "billing" / "ls").read_bytes(), binary)):
        refused = run(["predict", tickets_model], input=piped, expect=1)
        assert (refused.stdout, refused.stderr) == ("", f"Error: <stdin>: not text ({kind}), so no lines of text "
                                                        "to classify\n")


def test_a_model_file_given_as_data_is_named_for_what_it_is(tickets_model, tmp_path):
    """`nbtext eval m.joblib m.joblib`, or train given the model where its data go, read the
    pickle as a TSV, since its first line held a tab: "read 1 document", then "m.joblib:2: no
    TAB in line". A file whose start shows it is no text is now refused as such."""
    said = f"Error: {tickets_model}: not text (a Python pickle, as an nbtext model file is), so not labelled documents\n"
    assert run(["eval", tickets_model, tickets_model], expect=1).stderr == said
    assert run(["train", tickets_model, "-o", tmp_path / "m.joblib"], expect=1).stderr == said


def test_a_file_of_one_endless_line_is_refused_without_being_read_whole(tmp_path):
    """A line file's format is told by its first line, which was read whole to tell it: a
    disk image given as data (4 GB of zeros, no line break) took 6.4 GB of memory and 22 s to
    say that it could not tell, and ran out of memory under a 2 GB limit. Only the first
    megabyte is read now, and its zeros say that it is no text."""
    import resource
    import subprocess
    import sys

    image = tmp_path / "disk.img"
    with open(image, "wb") as handle:
        handle.truncate(4 << 30)  # sparse: no disk used
    limit = 2 << 30

    def at_most_2_gb() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run([sys.executable, "-m", "nbtext", "train", str(image), "-o", str(tmp_path / "m")],
                          capture_output=True, text=True, preexec_fn=at_most_2_gb, timeout=120)
    assert (done.returncode, done.stderr) == (1, f"Error: {image}: not text (binary data: NUL bytes side by side, "
                                                 "as no text has), so not labelled documents\n")


@pytest.mark.parametrize("first, second", [
    (b"billing\t%s\n", b"shipping\twhere is my parcel\n"),
    (b'{"label": "billing", "text": "%s"}\n', b'{"label": "shipping", "text": "where is my parcel"}\n'),
    (b"__label__billing %s\n", b"__label__shipping where is my parcel\n"),
], ids=["tsv", "jsonl", "fasttext"])
def test_a_first_line_longer_than_its_telling_start_is_one_document(tmp_path, first, second):
    """The format is told from the first line's first megabyte; the rest of a longer first
    line is the same document, not a second one, in a file and on stdin."""
    data = tmp_path / "data"
    data.write_bytes(first % (b"refund " * 300_000).strip() + second)  # a first line of 2.1 MB
    for source, stdin in (([str(data)], None), (["-"], io.BytesIO(data.read_bytes()))):
        docs = list(LabelledCorpus(source, stdin=stdin))
        assert [(d.label, d.text.split()) for d in docs] == [("billing", ["refund"] * 300_000),
                                                             ("shipping", ["where", "is", "my", "parcel"])]


def test_a_model_file_among_the_documents_is_skipped(tmp_path, tickets_model):
    """`nbtext predict m.joblib .` in the folder the model was kept in read the model as one
    more document, and a model copied into a class folder was trained on: its pickled
    vocabulary gave the class 1,779 noise words (920 terms became 2,699). `train -o` refuses
    to write into a class folder, but `cp` does not. A pickle is skipped now, as an image is,
    and said so."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(TICKETS / "train", data)
    clean = run(["train", data, "-o", tmp_path / "clean.joblib"]).stderr
    shutil.copy(tickets_model, data / "billing" / "tickets.joblib")
    skipped = "1 skipped: not text (a Python pickle, as an nbtext model file is)\n"
    trained = run(["train", data, "-o", tmp_path / "m.joblib"]).stderr
    assert "vocabulary: 920 terms (of 920 seen)\n" in clean
    assert skipped in trained
    took = re.compile(r" in \d+\.\ds ")  # of a busy machine: 0.0s once, 0.1s the next time
    assert took.sub(" ", trained.replace(skipped, "").replace("m.joblib", "clean.joblib")) == took.sub(" ", clean)
    predicted = run(["predict", data / "billing" / "tickets.joblib", data / "billing"])
    documents = sorted(str(path) for path in (data / "billing").glob("*.txt"))
    assert sorted(line.split("\t")[0] for line in predicted.stdout.splitlines()) == documents
    assert predicted.stderr == f"read 81 documents\n1 decoded with replacement (bytes not valid utf-8)\n{skipped}"


def test_a_class_folder_without_documents_is_counted(tmp_path, tickets_model):
    """`mkdir data/neutral` before its files are copied in: training went on with the other
    classes and never said that one was missing. A folder whose only file is hidden is such a
    folder too; a link already counted as read elsewhere is not counted twice."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(TICKETS / "train" / "billing", data / "billing")
    shutil.copytree(TICKETS / "train" / "shipping", data / "shipping")
    (data / "neutral").mkdir()
    (data / "notes").mkdir()
    (data / "notes" / ".DS_Store").write_bytes(b"\0")
    os.symlink(data / "billing", data / "invoices")
    corpus = LabelledCorpus([str(data)])
    assert len(list(corpus)) == 162 and corpus.report.labels == {"billing": 81, "shipping": 81}
    skipped = {why: sorted(os.path.relpath(p, data) for p in paths) for why, paths in corpus.report.skipped.items()}
    assert skipped == {
        "class folder holding no documents": ["neutral", "notes"],
        "hidden": ["notes/.DS_Store"],
        "link to a folder read elsewhere (not read twice)": ["invoices"],
    }
    result = run(["eval", tickets_model, data, "-v"])
    assert "2 skipped: class folder holding no documents\n" f"  {data / 'neutral'}\n  {data / 'notes'}\n" in result.stderr


def test_a_class_whose_every_file_is_skipped_is_named(tmp_path, tickets_model):
    """Tickets saved as Word documents and PDFs into `technical/`: each was skipped and counted
    as not text, and the model was trained on the other classes, with nothing to say that a
    class had gone, or with only "only one class ('billing')" to puzzle over."""
    import gzip
    import shutil

    data = tmp_path / "data"
    shutil.copytree(TICKETS / "train" / "billing", data / "billing")
    shutil.copytree(TICKETS / "train" / "shipping", data / "shipping")
    (data / "technical").mkdir()
    for name in ("ticket.docx", "ticket.pdf"):
        shutil.copy(OFFICE / name, data / "technical" / name)
    first = sorted((TICKETS / "train" / "technical").iterdir())[0]
    (data / "technical" / "ticket.txt.gz").write_bytes(gzip.compress(first.read_bytes()))
    corpus = LabelledCorpus([str(data)])
    assert len(list(corpus)) == 162
    said = corpus.report.lines()
    assert said[-1] == "1 class whose folder gave no document: technical"
    assert sum(int(line.split()[0]) for line in said if " skipped: not text " in line) == 3
    result = run(["eval", tickets_model, data])  # the model knows technical; the data gave none of it
    assert "1 class whose folder gave no document: technical\n" in result.stderr
    shutil.rmtree(data / "shipping")
    refused = run(["train", data, "-o", tmp_path / "m.joblib"], expect=1).stderr
    assert refused.endswith("1 class whose folder gave no document: technical\n"
                            "Error: only one class ('billing') in the training data; need at least two\n")
    # Classes that gave documents, and a folder found empty (said as such), are not named again.
    (data / "technical" / "ticket.txt").write_bytes(first.read_bytes())
    (data / "neutral").mkdir()
    trained = run(["train", data, "-o", tmp_path / "m.joblib"]).stderr
    assert "gave no document" not in trained and "1 skipped: class folder holding no documents\n" in trained
    # A maildir with no message yet, as a new Junk folder, is such a class too.
    boxes = tmp_path / "mail"
    for label in ("ham", "spam"):
        for part in ("cur", "new", "tmp"):
            (boxes / label / part).mkdir(parents=True)
    (boxes / "ham" / "cur" / "1600000000.M1P1.host:2,S").write_bytes(b"Subject: lunch\n\nat noon?\n")
    assert run(["train", boxes, "-o", tmp_path / "m.joblib"], expect=1).stderr.endswith(
        "1 class whose folder gave no document: spam\n"
        "Error: only one class ('ham') in the training data; need at least two\n")


def test_class_folders_may_be_links_and_every_folder_is_read_once(tmp_path):
    """`ln -s ~/Maildir/.Junk/cur data/spam` is a common way to lay out training data: such
    links are read, with the link's name as the label. A link to a folder the tree holds
    anyway (another class's, the tree itself: a loop) or that another link reached first is
    skipped and counted, so no document is read twice or under a second label."""
    import shutil

    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(TICKETS / "train" / "billing", elsewhere / "billing")
    shutil.copytree(TICKETS / "train" / "shipping", elsewhere / "shipping")
    data = tmp_path / "data"
    (data / "technical").mkdir(parents=True)
    shutil.copy(TICKETS / "train" / "technical" / "000.txt", data / "technical")
    os.symlink(elsewhere / "billing", data / "billing")
    os.symlink(elsewhere / "shipping", data / "shipping")
    os.symlink(elsewhere / "shipping", data / "technical" / "same-again")  # reached first by data/shipping
    os.symlink(data, data / "technical" / "loop")
    os.symlink(data / "billing", data / "technical" / "into-billing")
    corpus = LabelledCorpus([str(data)])
    docs = list(corpus)
    assert corpus.report.labels == {"billing": 81, "shipping": 81, "technical": 1}
    assert len({doc.source for doc in docs}) == len(docs) == 163
    assert docs[0].source == str(data / "technical" / "000.txt")  # the tree first, then its links
    assert sorted(os.path.relpath(p, data) for p in corpus.report.skipped["link to a folder read elsewhere (not "
                                                                           "read twice)"]) == [
        "technical/into-billing", "technical/loop", "technical/same-again"]
    assert set(corpus.report.skipped) == {"link to a folder read elsewhere (not read twice)"}


def test_a_file_gone_or_unreadable_after_listing_is_skipped_and_counted(tmp_path):
    """A live mail folder changes under a nightly job: a message deleted, or moved by a mail
    client, after the folder was listed stopped the whole run with a FileNotFoundError."""
    import shutil

    shutil.copytree(TICKETS / "test", tmp_path / "data")
    corpus = LabelledCorpus([str(tmp_path / "data")])  # listed here
    gone, odd = tmp_path / "data" / "billing" / "005.txt", tmp_path / "data" / "shipping" / "007.txt"
    gone.unlink()
    odd.unlink()
    odd.mkdir()  # a folder where a file was listed: reading it fails
    docs = list(corpus)
    assert len(docs) == 118 and str(gone) not in {doc.source for doc in docs}
    assert corpus.report.skipped == {"gone before it was read (moved or deleted meanwhile)": [str(gone)],
                                     "unreadable (Is a directory)": [str(odd)]}


def test_a_maildir_message_a_mail_client_moves_while_it_is_read(tmp_path):
    import mailbox

    from nbtext.readers.mail import parse_messages
    from nbtext.readers.mailboxes import maildir_messages

    box = mailbox.Maildir(tmp_path / "inbox")
    for n in range(5):
        box.add(f"Subject: message {n}\n\nbody {n}\n".encode())
    new = sorted((tmp_path / "inbox" / "new").iterdir(), key=lambda path: path.name)  # the reading order
    expected = [path.read_text().split("\n")[0] for path in new[:3] + new[4:]]
    report = ReadReport()
    documents = parse_messages(maildir_messages(str(tmp_path / "inbox"), None, report), report, headers=())
    read = [next(documents)]  # the maildir listed, its first message read
    os.rename(new[3], tmp_path / "inbox" / "cur" / (new[3].name + ":2,S"))  # seen by the user meanwhile
    read += list(documents)
    assert [doc.text.split("\n")[0] for doc in read] == expected and len(expected) == 4
    assert report.skipped == {"gone before it was read (moved or deleted meanwhile)": [str(new[3])]}


def test_invalid_bytes_are_replaced_and_reported():
    corpus = LabelledCorpus([str(TICKETS / "train")])
    docs = {d.source: d for d in corpus}
    latin1 = str(TICKETS / "train" / "billing" / "080.txt")
    assert "pay\ufffd 100" in docs[latin1].text
    assert corpus.report.replaced == [latin1]
    assert corpus.report.empty == [str(TICKETS / "train" / "shipping" / "080.txt")]
    assert corpus.report.lines() == [
        "read 243 documents",
        "1 decoded with replacement (bytes not valid utf-8)",
        "1 empty (kept: they still count for the class priors)",
    ]
    assert "payé 100" in {d.source: d for d in LabelledCorpus([str(TICKETS / "train")], encoding="latin-1")}[latin1].text


def test_data_in_an_8_bit_encoding_is_told_the_option_that_reads_it(tmp_path):
    """rt-polarity's sentences are Windows-1252, as is a CSV Excel saves on Windows: read as
    UTF-8, each of its 229 sentences with an accent or a dash lost that word (44 "clich\ufffd")
    with only "229 decoded with replacement (bytes not valid utf-8)" to say so. Where nearly
    every document past ASCII needed replacement, the report now names the option, which
    reads them whole; a UTF-8 corpus with characters past ASCII (SMS spam's 483) has none."""
    rt = corpus_path("rt-polarity")
    hint = ("every document with a byte past ASCII is among them: the data are likely 8-bit text, not utf-8 "
            "(encoding cp1252, as Windows and Excel save it, or latin-1 reads it)")
    read = LabelledCorpus([str(rt)])
    docs = list(read)
    assert read.report.lines()[1:3] == ["229 decoded with replacement (bytes not valid utf-8)", hint]
    assert sum("clich\ufffd" in d.text for d in docs) == 44
    trained = run(["train", rt, "-o", tmp_path / "m", "-v"]).stderr.splitlines()
    said = hint.replace("(encoding", "(--encoding")  # the command line names the option
    assert trained[1:4] == ["229 decoded with replacement (bytes not valid utf-8)", said, f"  {rt / 'neg' / '00027.txt'}"]
    read = LabelledCorpus([str(rt)], encoding="cp1252")
    texts = [d.text for d in read]
    assert sum("clich\u00e9" in text for text in texts) == 43 and read.report.replaced == []  # and one clich\u00ea
    assert not any("\ufffd" in text for text in texts) and read.report.lines() == ["read 10,662 documents"] + [
        line for line in read.report.lines() if "text of one read before" in line]
    sms = LabelledCorpus([str(corpus_path("sms-spam") / "SMSSpamCollection")])
    assert sum(not d.text.isascii() for d in sms) == 483 and sms.report.lines() == ["read 5,574 documents"] + [
        line for line in sms.report.lines()[1:] if "text of one read before" in line]
    # a few replaced among many in UTF-8 past ASCII, or fewer than five in all, say nothing more
    for utf8, latin1 in ((20, 6), (0, 4)):
        lines = tmp_path / f"{utf8}.tsv"
        lines.write_bytes(b"".join(b"ham\tcaf\xc3\xa9 %d\n" % n for n in range(utf8)) +
                          b"".join(b"spam\tcaf\xe9 %d\n" % n for n in range(latin1)))
        read = LabelledCorpus([str(lines)])
        list(read)
        assert read.report.lines()[1:] == [f"{latin1} decoded with replacement (bytes not valid utf-8)"]


@pytest.mark.parametrize("name, content, fmt", [
    ("data.tsv", b"spam\tWin cash\r\nham\tSee you at noon\n\nham\t\xe9t\xe9 \n", "tsv"),
    ("data.jsonl", b'{"label": "spam", "text": "Win cash"}\n{"label": "ham", "text": "See you at noon"}\n\n'
                   b'{"label": "ham", "text": "\xe9t\xe9 "}\n', "jsonl"),
    ("data.txt", b"__label__spam Win cash\n__label__ham See you at noon\n\n__label__ham \xe9t\xe9 \n", "fasttext"),
])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["", "with a byte order mark"])
def test_line_formats(tmp_path, name, content, fmt, bom):
    path = tmp_path / name
    path.write_bytes(bom + content)
    for stated in (None, fmt):  # detected from the name or first line, or given
        corpus = LabelledCorpus([str(path)], input_format=stated)
        docs = list(corpus)
        assert [(d.label, d.text) for d in docs] == [("spam", "Win cash"), ("ham", "See you at noon"), ("ham", "\ufffdt\ufffd ")]
        assert [d.source for d in docs] == [f"{path}:1", f"{path}:2", f"{path}:4"]
        assert corpus.report.skipped == {"blank line": [f"{path}:3"]}
        assert corpus.report.replaced == [f"{path}:4"]


def test_lines_ended_by_carriage_returns_alone_are_read_as_lines(tmp_path):
    """Classic Mac OS ended lines with CR alone, and Excel for Mac's "Tab delimited Text (Mac)"
    still does. Split at LF, the SMS corpus saved so was one line: `nbtext train` stopped
    with "only one class ('ham')", having read one document of 5,574 (its text the rest of
    the file); JSONL stopped at its first line's "Extra data"; and predict gave the lines piped
    to it one answer. Each line is a document now, the same as with LF: the same model, the
    same answers from a real pipe, and the same score from eval."""
    sms = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes()
    lf, cr = tmp_path / "lf.tsv", tmp_path / "cr.tsv"
    lf.write_bytes(sms)
    cr.write_bytes(sms.replace(b"\n", b"\r"))
    read = {path: LabelledCorpus([str(path)]) for path in (lf, cr)}
    assert [(d.label, d.text) for d in read[cr]] == [(d.label, d.text) for d in read[lf]]
    assert read[cr].report.documents == 5574 and read[cr].report.skipped == {}
    for path in (lf, cr):
        run(["train", path, "-o", tmp_path / f"{path.stem}.joblib"])
    info = [run(["info", tmp_path / f"{end}.joblib"]).stdout.replace(f"{end}.", "") for end in ("lf", "cr")]
    assert info[0] == info[1] and "\nvocabulary: 51,710 terms" in info[0]
    texts = b"".join(line.split(b"\t", 1)[1] + b"\n" for line in sms.splitlines()[:2000])
    (tmp_path / "lf.txt").write_bytes(texts)
    (tmp_path / "cr.txt").write_bytes(texts.replace(b"\n", b"\r"))
    answers = {end: in_bash(f"cat {tmp_path / end}.txt | nbtext predict {tmp_path / 'lf.joblib'}").stdout
               for end in ("lf", "cr")}
    assert answers["cr"] == answers["lf"] and answers["lf"].count("\n") == 2000
    scored = [run(["eval", tmp_path / "lf.joblib", "-", "--format", "json"], input=sms.replace(b"\n", end)).stdout
              for end in (b"\n", b"\r")]
    assert json.loads(scored[1])["n_documents"] == 5574 and scored[0] == scored[1]
    records = b"".join(json.dumps({"id": n, "body": {"text": t}, "y": y}).encode() + b"\r"
                       for n, (y, t) in enumerate(line.decode().split("\t", 1) for line in sms.splitlines()[:50]))
    (tmp_path / "cr.jsonl").write_bytes(records)
    fields = LabelledCorpus([str(tmp_path / "cr.jsonl")], columns=Columns("body.text", "y", "id"))
    assert [(d.label, d.text) for d in fields] == [(d.label, d.text) for d in read[lf]][:50]


@pytest.mark.parametrize("content, message", [
    (b"spam\tok\nno tab here\n", r"data.tsv:2: no TAB in line; expected LABEL<TAB>TEXT"),
    (b"\tno label\n", r"data.tsv:1: empty label"),
])
def test_bad_lines_name_file_and_line(tmp_path, content, message):
    (tmp_path / "data.tsv").write_bytes(content)
    with pytest.raises(DataError, match=message):
        list(LabelledCorpus([str(tmp_path / "data.tsv")]))


def test_fasttext_words_end_at_any_white_space_and_a_line_may_have_several_labels(tmp_path):
    """fastText splits words at tabs too: '__label__spam<TAB>Win' was read as the label
    'spam<TAB>Win'. Its multi-label lines (the cooking.stackexchange tutorial's) are one copy
    of the text a label, each from the same line; a label word with nothing after the prefix
    is an empty label, refused by line."""
    path = tmp_path / "data.txt"
    path.write_bytes(b"__label__spam\tWin cash\n \t__label__ham\v\tSee you\n__label__ham noon\n")
    assert [(d.label, d.text) for d in LabelledCorpus([str(path)])] == [
        ("spam", "Win cash"), ("ham", "See you"), ("ham", "noon")]
    path.write_bytes(b"__label__ham fine\n__label__sauce __label__cheese How much starch?\n")
    assert [(d.label, d.text, d.source) for d in LabelledCorpus([str(path)])] == [
        ("ham", "fine", f"{path}:1"), ("sauce", "How much starch?", f"{path}:2"),
        ("cheese", "How much starch?", f"{path}:2")]
    path.write_bytes(b"__label__ham the __label__ prefix, quoted: __label__x\n")  # a label word anywhere
    with pytest.raises(DataError, match=r"data.txt:1: empty label$"):
        list(LabelledCorpus([str(path)]))


def test_a_tsv_header_row_is_not_a_document(tmp_path):
    """pandas and spreadsheets write 'label<TAB>text' first: it trained a class 'label' of one
    document. It is skipped and counted; 'text<TAB>label' means the columns are the other way
    round, which the line format would misread row by row, so it stops with the fix."""
    path = tmp_path / "data.tsv"
    path.write_bytes(b"Label\tText\nspam\tWin cash\nham\tSee you\n")
    corpus = LabelledCorpus([str(path)])
    assert [(d.label, d.text) for d in corpus] == [("spam", "Win cash"), ("ham", "See you")]
    assert corpus.report.skipped == {"header row": [f"{path}:1"]}
    path.write_bytes(b"text\tlabel\nWin cash\tspam\n")
    with pytest.raises(DataError, match=r"data.tsv:1: a header 'text<TAB>label': these rows put the text first; read "
                                        r"them as a table, with text_column text and label_column label"):
        list(LabelledCorpus([str(path)]))
    assert [(d.label, d.text) for d in LabelledCorpus([str(path)], columns=Columns("text", "label"))] == [
        ("spam", "Win cash")]


@pytest.mark.parametrize(("name", "compress", "stream"), [
    ("sms.tsv.gz", "gzip", "zcat"), ("sms.tsv", "gzip", "zcat"),  # a name need not say it
    ("sms.csv.bz2", "bzip2", "bzcat"), ("sms.jsonl", "xz", "xzcat"), ("sms.csv", "xz", "xzcat")])
def test_a_compressed_file_says_to_decompress_it(tmp_path, tickets_model, name, compress, stream):
    """A gzipped TSV stopped with "cannot tell the format from the name or the first line",
    or with --input-format tsv with "no TAB in line"; named .csv, its compressed bytes were
    read as a header row. The error now names the compression and the command that writes the
    text, which, put in a pipe, trains on every message."""
    import bz2
    import gzip
    import lzma
    import shlex
    import shutil
    import subprocess
    import sys

    if shutil.which(stream) is None:
        pytest.skip(f"needs {stream}")
    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes()
    path = tmp_path / name
    path.write_bytes({"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[compress](lines))
    fix = f"decompress it first ({stream} {path} writes its text)"
    args = ["--text-column", "v2"] if ".csv" in name or ".jsonl" in name else []
    error = run(["train", path, *args, "-o", tmp_path / "m"], expect=1).stderr
    assert error == f"Error: {path}: {compress}-compressed, not text; {fix}\n"
    piped = run(["predict", tickets_model, "-"], input=path.read_bytes(), expect=1).stderr
    assert piped == (f"Error: <stdin>: {compress}-compressed, not text; decompress it in the pipe: {stream} FILE | "
                     "nbtext ...\n")
    trained = subprocess.run(f"{stream} {shlex.quote(str(path))} | {sys.executable} -m nbtext train - -o "
                             f"{shlex.quote(str(tmp_path / 'm'))}", shell=True, capture_output=True, text=True)
    assert trained.returncode == 0 and trained.stderr.startswith("read 5,574 documents\n")


def test_an_archive_of_a_corpus_says_to_unpack_it(tmp_path):
    """Corpora come as archives (the shared ones as NAME.tar.gz), and `nbtext train
    lingspam.tar.gz` said to decompress it with zcat, which writes the tar archive, no text;
    a zip of a folder was told to `unzip -p`, which writes its files end to end. An archive of
    files now says so, and how to unpack it; one compressed file is still told to decompress."""
    import tarfile
    import zipfile

    corpus_path("lingspam")  # skips where ../shared is absent
    shared = SHARED_GET.parent / "lingspam.tar.gz"
    error = run(["train", shared, "-o", tmp_path / "m"], expect=1).stderr
    assert error == (f"Error: {shared}: a tar archive, gzip-compressed, not text: unpack it (tar xf {shared}) and "
                     "give the folder it makes as DATA\n")
    (tmp_path / "data" / "spam").mkdir(parents=True)  # and where a class folder holds one
    (tmp_path / "data" / "ham").symlink_to(TICKETS / "train" / "billing")
    (tmp_path / "data" / "spam" / "lingspam.tar.gz").symlink_to(shared)
    (tmp_path / "data" / "spam" / "1.txt").write_text("win a prize now")
    trained = run(["train", tmp_path / "data", "-o", tmp_path / "m"]).stderr
    assert "\n1 skipped: not text (a tar archive, gzip-compressed; tar xf unpacks it)\n" in trained
    with zipfile.ZipFile(tmp_path / "tickets.zip", "w") as archive:
        for path in sorted((TICKETS / "train").rglob("*.txt")):
            archive.write(path, path.relative_to(TICKETS))
    error = run(["eval", "--cv", "2", tmp_path / "tickets.zip"], expect=1).stderr
    assert error == (f"Error: {tmp_path / 'tickets.zip'}: a zip archive of 243 files, not text: unpack it (unzip "
                     f"{tmp_path / 'tickets.zip'}) and give the folder it makes as DATA\n")
    with tarfile.open(tmp_path / "tickets.tar", "w") as archive:
        archive.add(TICKETS / "train", "train")
    error = run(["train", tmp_path / "tickets.tar", "-o", tmp_path / "m"], expect=1).stderr
    assert error == f"Error: {tmp_path / 'tickets.tar'}: not text (a tar archive; tar xf unpacks it), so not labelled " \
                    "documents\n"
    unpacked = in_bash(f"tar xf {tmp_path / 'tickets.tar'} && nbtext train train -o m", cwd=tmp_path)  # as told
    assert unpacked.returncode == 0 and unpacked.stderr.startswith("read 243 documents\n")


#: The office documents, e-book and PDF tests/golden/office/make.sh wrote with pandoc and LibreOffice.
OFFICE = REPO / "tests" / "golden" / "office"
#: What nbtext says each is, and how to get its text, given as DATA.
GIVEN_OFFICE = {
    "ticket.docx": "a Word document, not text: convert it first (pandoc -t plain ticket.docx -o ticket.txt)",
    "ticket.odt": "an OpenDocument text, not text: convert it first (pandoc -t plain ticket.odt -o ticket.txt)",
    "ticket.epub": "an EPUB book, not text: convert it first (pandoc -t plain ticket.epub -o ticket.txt)",
    "ticket.pptx": "a PowerPoint presentation, not text: export its text first",
    **{f"tickets.{kind}": f"{what}, not text: save it as CSV (libreoffice --headless --convert-to 'csv:Text - txt - "
                          f"csv (StarCalc):44,34,76' tickets.{kind} writes tickets.csv, of its first sheet) and give "
                          "that as DATA" for kind, what in (("xlsx", "an Excel workbook"),
                                                            ("ods", "an OpenDocument spreadsheet"))},
}


def test_office_documents_are_named_with_the_command_that_gives_their_text(tmp_path, monkeypatch):
    """A Word document, a workbook or an e-book is a zip archive of XML, and nbtext said to
    unzip one and give the folder it makes, which holds no text but markup. Each is now
    named, given as DATA or met in a class folder (skipped and counted), with the command
    that gives its text, or its table as CSV, and so are a PDF, an RTF file and the Office
    97-2003 formats (these by their extension); where pandoc, LibreOffice and pdftotext are
    here, that command, run as given, makes a file nbtext reads."""
    import shutil

    monkeypatch.chdir(tmp_path)  # each file named as a user in its folder names it
    for name, said in GIVEN_OFFICE.items():
        shutil.copy(OFFICE / name, name)
        assert run(["train", name, "-o", "m"], expect=1).stderr == f"Error: {name}: {said}\n"
    (tmp_path / "data" / "billing").mkdir(parents=True)
    (tmp_path / "data" / "shipping").symlink_to(TICKETS / "train" / "shipping")
    for name in [*GIVEN_OFFICE, "ticket.pdf", "ticket.rtf", "ticket.doc", "tickets.xls"]:
        (tmp_path / "data" / "billing" / name).symlink_to(OFFICE / name)
    (tmp_path / "data" / "billing" / "1.txt").write_text("my invoice is wrong")
    said = run(["train", tmp_path / "data", "-o", tmp_path / "m"]).stderr.splitlines()
    assert said[0] == "read 82 documents"
    skipped = [line for line in said if "skipped" in line]
    assert skipped == [
        "1 skipped: not text (a PDF document; pdftotext converts it to text)",
        "1 skipped: not text (a PowerPoint presentation)",
        "1 skipped: not text (a Word 97-2003 document; libreoffice --headless --convert-to 'txt:Text "
        "(encoded):UTF8' converts it to text)",
        "1 skipped: not text (a Word document; pandoc -t plain converts it to text)",
        "1 skipped: not text (an EPUB book; pandoc -t plain converts it to text)",
        "1 skipped: not text (an Excel 97-2003 workbook; libreoffice --headless --convert-to 'csv:Text "
        "- txt - csv (StarCalc):44,34,76' saves it as CSV)",
        "1 skipped: not text (an Excel workbook; libreoffice --headless --convert-to 'csv:Text - txt - "
        "csv (StarCalc):44,34,76' saves it as CSV)",
        "1 skipped: not text (an OpenDocument spreadsheet; libreoffice --headless --convert-to 'csv:Text "
        "- txt - csv (StarCalc):44,34,76' saves it as CSV)",
        "1 skipped: not text (an OpenDocument text; pandoc -t plain converts it to text)",
        "1 skipped: not text (an RTF document; pandoc -t plain converts it to text)"]
    for name, said in GIVEN_OFFICE.items():
        tool = "pandoc" if "pandoc" in said else "libreoffice" if "libreoffice" in said else None
        if tool is None or shutil.which(tool) is None:
            continue
        command = said.split("(", 1)[1].split(" writes ")[0].removesuffix(")")  # as a user would copy it
        made = tmp_path / ("tickets.csv" if tool == "libreoffice" else "ticket.txt")
        made.unlink(missing_ok=True)
        assert in_bash(command, cwd=tmp_path).returncode == 0 and made.exists(), command
        if tool == "pandoc":
            assert made.read_text().endswith("Refund\n\nMy invoice is wrong and I was charged twice.\n")
            continue
        read = run(["train", made, "-o", "m"]).stderr.splitlines()
        assert read[0] == "read 2 documents" and read[1].startswith("trained complement Naive Bayes on 2 documents")
    if shutil.which("pandoc"):
        rtf = in_bash("pandoc -t plain ticket.rtf", cwd=tmp_path / "data" / "billing")
        assert "My invoice is wrong and I was charged twice." in rtf.stdout
    if shutil.which("libreoffice"):  # each in a folder of its own: the text files take the documents' names
        for name, line, made, text in (("ticket.doc", 2, "ticket.txt", "My invoice is wrong and I was charged twice."),
                                       ("tickets.xls", 5, "tickets.csv", "my invoice is wrong,billing")):
            fix = skipped[line]
            (tmp_path / name).mkdir()
            (tmp_path / name / name).symlink_to(OFFICE / name)
            command = fix.split("; ", 1)[1].removesuffix(" converts it to text)").removesuffix(" saves it as CSV)")
            assert in_bash(f"{command} {name}", cwd=tmp_path / name).returncode == 0, command
            assert text in (tmp_path / name / made).read_text(encoding="utf-8-sig")
    if shutil.which("pdftotext"):
        assert in_bash("pdftotext ticket.pdf", cwd=tmp_path / "data" / "billing").returncode == 0
        assert "My invoice is wrong and I was charged twice." in (tmp_path / "data" / "billing" / "ticket.txt").read_text()


#: What nbtext says of each office document or e-book piped to it, and how to get its text there.
PIPED_OFFICE = {
    "ticket.docx": "a Word document, not text; convert it in the pipe: ... | pandoc -f docx -t plain | nbtext ...",
    "ticket.odt": "an OpenDocument text, not text; convert it in the pipe: ... | pandoc -f odt -t plain | nbtext ...",
    "ticket.epub": "an EPUB book, not text; convert it in the pipe: ... | pandoc -f epub -t plain | nbtext ...",
    "ticket.pptx": "a PowerPoint presentation, not text; export its text first",
    **{f"tickets.{kind}": f"{what}, not text; save it to a file, and that as CSV: libreoffice --headless "
                          "--convert-to 'csv:Text - txt - csv (StarCalc):44,34,76' FILE"
       for kind, what in (("xlsx", "an Excel workbook"), ("ods", "an OpenDocument spreadsheet"))},
}


def test_office_documents_piped_in_are_named_with_the_pipe_that_gives_their_text(tmp_path, tickets_model):
    """A Word document or an e-book piped to nbtext was told to be unzipped (unzip -p gives
    its XML), as a pipe cannot be opened as a zip to tell it from a zip of one text. Its
    members' names, at the start of the stream, tell it: each is named, for stdin's lines, a
    message and training lines alike, with the pipe that gives its text, which pandoc reads;
    where pandoc is here, that pipe classifies the document's sentence as its class."""
    import shutil
    import zipfile

    for name, said in PIPED_OFFICE.items():
        for command in (f"predict {tickets_model}", f"train - -o {tmp_path / 'm'}", f"eval {tickets_model} -"):
            done = in_bash(f"cat {OFFICE / name} | nbtext {command}")
            assert (done.returncode, done.stderr) == (1, f"Error: <stdin>: {said}\n"), command
        for command in (f"predict {tickets_model} --input-format email", f"filter {tickets_model}"):
            done = in_bash(f"cat {OFFICE / name} | nbtext {command}")
            kind, fix = said.split(", not text; ")
            whole = "classify" if command.startswith("predict") else "filter"
            assert done.stderr == f"Error: <stdin>: not text ({kind}; {fix}), so no message to {whole}\n"
    with zipfile.ZipFile(tmp_path / "note.zip", "w", zipfile.ZIP_DEFLATED) as archive:  # a zip of one text
        archive.write(TICKETS / "test" / "billing" / "001.txt", "note.txt")
    zipped = in_bash(f"nbtext predict {tickets_model} < {tmp_path / 'note.zip'}")
    assert zipped.stderr.endswith("zip-compressed, not text; decompress it in the pipe: unzip -p FILE | nbtext ...\n")
    if shutil.which("pandoc"):
        for name in ("ticket.docx", "ticket.odt", "ticket.epub"):
            pandoc_format = PIPED_OFFICE[name].split("-f ")[1].split()[0]
            done = in_bash(f"cat {OFFICE / name} | pandoc -f {pandoc_format} -t plain | nbtext predict {tickets_model}")
            assert done.stdout.splitlines()[-1] == "billing", name  # My invoice is wrong and I was charged twice.


def test_bad_json_and_unknown_formats(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"label": "x", "text": "ok"}\n{"label": "x", "text": \n')
    with pytest.raises(DataError, match=r"a.jsonl:2: not valid JSON"):
        list(LabelledCorpus([str(tmp_path / "a.jsonl")]))
    (tmp_path / "b.jsonl").write_text('{"text": "no label"}\n')
    with pytest.raises(DataError, match=r'b.jsonl:1: expected an object with "label" and "text"'):
        list(LabelledCorpus([str(tmp_path / "b.jsonl")]))
    (tmp_path / "notes").write_text("just prose\n")
    with pytest.raises(DataError, match="cannot tell the format .* set input_format"):
        list(LabelledCorpus([str(tmp_path / "notes")]))
    with pytest.raises(DataError, match="missing: no such file or folder"):
        LabelledCorpus([str(tmp_path / "missing")])
    with pytest.raises(DataError, match="unknown encoding 'klingon'"):
        LabelledCorpus([str(tmp_path)], encoding="klingon")


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
def test_a_document_saved_as_unicode_by_notepad_is_read_as_such(tmp_path, encoding):
    """A file that starts with a UTF-16 or UTF-32 byte order mark was read as UTF-8, with NULs
    between the letters and its mark replaced; every tenth ticket is saved so here."""
    import shutil

    shutil.copytree(TICKETS / "test", tmp_path / "test")
    saved = sorted((tmp_path / "test").glob("*/*.txt"))[::10]
    originals = {}
    for path in saved:
        text = path.read_bytes().decode("utf-8", "replace")
        originals[str(path)] = text
        path.write_bytes("\ufeff".encode(encoding) + text.encode(encoding))
    corpus = LabelledCorpus([str(tmp_path / "test")])
    docs = {d.source: d.text for d in corpus}
    assert len(docs) == 120 and {source: docs[source] for source in originals} == originals
    assert not set(originals) & set(corpus.report.replaced)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_document_in_utf_16_or_32_without_a_mark_is_read_as_such(tmp_path, encoding):
    """A movie review saved in UTF-16 or UTF-32 with no byte order mark (Python's
    ``encoding="utf-16-le"`` writes none) was read as UTF-8: NULs are valid there, so it came
    apart into its letters, one token each, and nothing was counted. Its NULs now tell the
    encoding, as its mark would; every fifth review is saved so here."""
    reviews = corpus_path("movie-review-polarity")
    texts = {}
    for label in ("neg", "pos"):
        (tmp_path / label).mkdir()
        for n, path in enumerate(sorted((reviews / label).iterdir())[:100]):
            saved = tmp_path / label / path.name
            texts[str(saved)] = path.read_text("utf-8")
            saved.write_text(texts[str(saved)], encoding if n % 5 == 0 else "utf-8")
    corpus = LabelledCorpus([str(tmp_path)])
    assert {d.source: d.text for d in corpus} == texts
    assert corpus.report.documents == 200 and not corpus.report.replaced


def test_web_pages_are_read_as_the_text_they_show(tmp_path):
    """A folder of saved web pages was read as markup: trained on the HTML of SpamAssassin's
    messages, saved as pages, the words that most raised spam were "font color", "helvetica"
    and "sans serif", the same in every page of a mailer. A file that starts as a web page does
    is now the text it shows, its title among it, as a mail's HTML part is read; and counted."""
    import email

    from nbtext.readers.html import is_page

    spamassassin = corpus_path("spamassassin-2003")
    for label in ("spam", "ham"):
        (tmp_path / "pages" / label).mkdir(parents=True)
        for path in sorted((spamassassin / label).iterdir()):
            html = next((part.get_payload(decode=True) or b"" for part in email.message_from_bytes(
                path.read_bytes()).walk() if part.get_content_type() == "text/html"), b"")
            if is_page(html.decode("latin-1")):
                (tmp_path / "pages" / label / f"{path.name}.html").write_bytes(html)
    pages = len(list((tmp_path / "pages").glob("*/*.html")))
    assert pages == 214
    trained = run(["train", tmp_path / "pages", "-o", tmp_path / "m.joblib"]).stderr
    assert f"\n{pages} read as web pages: the text they show, without their tags, scripts and styles\n" in trained
    # 36 pages are not valid UTF-8; 30 of them name their charset in a <meta> tag, and are read
    # by it, as a browser reads them: the spams in Big5 are Chinese, not U+FFFD and ASCII.
    assert trained.startswith("read 214 documents\n6 decoded with replacement (bytes not valid utf-8)\n")
    chinese = [d.text for d in LabelledCorpus([str(tmp_path / "pages")]) if re.search("[\u4e00-\u9fff]{20}", d.text)]
    assert len(chinese) == 4 and not any("\ufffd" in text for text in chinese)
    top = run(["inspect-top-words", tmp_path / "m.joblib", "--class", "spam", "--top", "20"]).stdout.splitlines()
    markup = {"font", "color", "helvetica", "arial", "serif", "td", "nbsp", "href", "gif", "src", "bgcolor", "face"}
    assert [line.split("\t")[2] for line in top if set(line.split("\t")[2].split()) & markup] == []
    assert "click here" in [line.split("\t")[2] for line in top]
    # the title is shown text; a document that only mentions a tag is not a page
    (tmp_path / "few" / "a").mkdir(parents=True)
    (tmp_path / "few" / "a" / "page.htm").write_text("<!DOCTYPE html>\n<html><head><title>Cheap flights</title>"
                                                     "<script>var x = 1;</script></head><body><p>Fly &amp; save"
                                                     "</p></body></html>\n")
    (tmp_path / "few" / "a" / "note.txt").write_text("Use <html> to open a page & </html> to end it\n")
    assert [d.text for d in LabelledCorpus([str(tmp_path / "few")])] == [
        "Use <html> to open a page & </html> to end it\n", "Cheap flights\nFly & save"]


def test_the_report_names_the_encoding_a_byte_order_mark_chose(tmp_path):
    """A file in UTF-16 by its mark, with a character cut in two, was counted as "bytes not
    valid utf-8", the encoding it was not read in."""
    import shutil

    shutil.copytree(TICKETS / "test", tmp_path / "test")
    billing = sorted((tmp_path / "test" / "billing").glob("*.txt"))
    text = billing[0].read_text("utf-8")
    billing[0].write_bytes(text.encode("utf-16") + "\U0001f600".encode("utf-16-le")[:2])  # half an emoji
    stderr = run(["train", tmp_path / "test", "-o", tmp_path / "m"]).stderr
    assert stderr.startswith("read 120 documents\n1 decoded with replacement (bytes not valid utf-16)\n")
    billing[1].write_bytes(billing[1].read_bytes() + b"\xe9t\xe9")  # latin-1
    stderr = run(["train", tmp_path / "test", "-o", tmp_path / "m"]).stderr
    assert stderr.startswith("read 120 documents\n2 decoded with replacement (bytes not valid utf-8, or utf-16)\n")
    docs = {d.source: d.text for d in LabelledCorpus([str(tmp_path / "test")])}
    assert docs[str(billing[0])] == text + "\ufffd"


@pytest.mark.parametrize("name, encoding, lines", [
    ("data.tsv", "utf-16-le", "spam\tWin cash\nham\tSee you at noon\n"),
    ("data.jsonl", "utf-16-be", '{"label": "spam", "text": "Win cash"}\n'),
    ("list.txt", "utf-32-le", "a.txt\tspam\n"),
])
def test_a_line_format_in_utf_16_or_32_is_refused_with_the_conversion(tmp_path, name, encoding, lines):
    """Lines are split as bytes, at a newline byte that UTF-16 and UTF-32 put inside characters."""
    path = tmp_path / name
    path.write_bytes(("\ufeff" + lines).encode(encoding))
    wide = encoding[:6].upper()
    message = (f"{path}: {wide} text, which line formats cannot split into lines; "
               f"convert it first: iconv -f {wide} -t UTF-8")
    fmt = "manifest" if name == "list.txt" else None
    with pytest.raises(DataError) as error:
        list(LabelledCorpus([str(path)], input_format=fmt))
    assert str(error.value) == message


def test_utf_16_on_stdin_is_refused_with_the_conversion():
    import io

    lines = iter_unlabelled(["-"], ReadReport(), stdin=io.BytesIO("win cash\nlunch?\n".encode("utf-16")))
    with pytest.raises(DataError, match="^<stdin>: UTF-16 text, .* iconv -f UTF-16 -t UTF-8$"):
        next(lines)


def test_stdin_is_sniffed():
    import io

    corpus = LabelledCorpus(["-"], stdin=io.BytesIO(b"__label__a hello\n__label__b bye\n"))
    assert [(d.label, d.text, d.source) for d in corpus] == [("a", "hello", "<stdin>:1"), ("b", "bye", "<stdin>:2")]


@pytest.mark.corpus
def test_a_pipe_given_as_data_is_read_once_as_stdin_is(tmp_path):
    """bash's <(...) and a named pipe (mkfifo) can be read once only. Their start was read to
    see whether they were an mbox, and then again from where that left off: eval and train
    said "cannot tell the format" of SMS spam's lines, or that there were no documents, and a
    named pipe hung, opened a second time with no one writing to it."""
    sms = corpus_path("sms-spam") / "SMSSpamCollection"
    from_file = in_bash(f"nbtext eval --cv 3 {sms}")
    assert from_file.returncode == 0 and from_file.stdout.startswith("accuracy 0.98")
    piped = in_bash(f"nbtext eval --cv 3 <(cat {sms})")
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, from_file.stdout, from_file.stderr)
    fifo = tmp_path / "lines"
    os.mkfifo(fifo)
    named = in_bash(f"cat {sms} > {fifo} & nbtext eval --cv 3 {fifo}")  # fails by timeout if it hangs
    assert (named.returncode, named.stdout, named.stderr) == (0, from_file.stdout, from_file.stderr)
    trained = in_bash(f"nbtext train <(head -100 {sms}) -o {tmp_path / 'm.joblib'}")
    assert trained.returncode == 0 and trained.stderr.startswith("read 100 documents\n")
    # predict takes a path as one document, a pipe's too
    answer = in_bash(f"nbtext predict {tmp_path / 'm.joblib'} <(echo 'WINNER!! claim your prize now')")
    assert re.fullmatch(r"/dev/fd/\d+\tspam\n", answer.stdout), answer.stderr
    table = in_bash(f"nbtext train <(cat {sms}) --input-format csv --text-column text -o {tmp_path / 't.joblib'}")
    assert table.returncode == 1
    refused = (r"Error: /dev/fd/\d+: a pipe, which can be read once only, from its start; a csv table read by its "
               r"columns reads a file or folder by name: save it to one first \(a pipe takes lines: tsv, jsonl, "
               r"fasttext\)\n")
    assert re.fullmatch(refused, table.stderr)
    rows = in_bash(f"nbtext predict {tmp_path / 'm.joblib'} --input-format csv --text-column text <(cat {sms})")
    assert rows.returncode == 1 and re.fullmatch(refused, rows.stderr)


def test_line_batches_stream_from_a_real_pipe():
    """The first complete line is handed out before the writer has finished."""
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb", buffering=0)
    writer = os.fdopen(write_fd, "wb", buffering=0)
    batches = iter_line_batches(reader)
    writer.write(b"first line\r\nsecond ")
    assert next(batches) == [b"first line"]  # would block forever if it waited for EOF
    threading.Thread(target=lambda: (writer.write(b"half\n" + b"x" * 300_000 + b"\nlast"), writer.close())).start()
    rest = [line for batch in batches for line in batch]
    reader.close()
    assert rest == [b"second half", b"x" * 300_000, b"last"]


def test_line_batches_grow_while_the_pipe_is_full():
    """Lines that are all waiting come in batches of up to 1,000, not one small batch per read."""
    lines = [b"line %d of the stream" % i for i in range(2400)]
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"\n".join(lines))  # about 50 kB: all of it waits in the pipe
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as reader:
        batches = list(iter_line_batches(reader, chunk_size=4096))
    assert [line for batch in batches for line in batch] == lines
    assert len(batches[0]) >= 1000 > 4096 // len(lines[0])


def test_unlabelled_inputs_keep_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "2.txt").write_text("two")
    (tmp_path / "b" / "1.txt").write_text("one")
    (tmp_path / "a.txt").write_text("a")
    report = ReadReport()
    batches = list(iter_unlabelled([str(tmp_path / "a.txt"), str(tmp_path / "b")], report))
    assert [(os.path.basename(d.source), d.text) for batch, _ in batches for d in batch] == [
        ("a.txt", "a"), ("1.txt", "one"), ("2.txt", "two")]
    assert report.documents == 3


def test_files_named_in_a_row_share_batches_in_order(tmp_path):
    """`nbtext predict m inbox/*` names every file: those read the same way in a row are batched
    together, as a folder's files are, not one batch each (1,000 posts of 20news took 2.4 s
    against 0.8 s), still in the order given; a path that names nothing stops the run after the
    answers of the files before it."""
    tickets = sorted(str(path) for path in (TICKETS / "test").glob("*/*"))
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "1.txt").write_text("one")
    (tmp_path / "box.mbox").write_text("From a@b.org  Thu Sep 26 11:11:54 2002\nSubject: one\n\nbody\n\n"
                                       "From c@d.org  Thu Sep 26 11:12:54 2002\nSubject: two\n\nmore\n")
    paths = [*tickets[:100], str(tmp_path / "folder"), str(tmp_path / "box.mbox"), *tickets[100:]]
    report = ReadReport()
    batches = list(iter_unlabelled(paths, report))
    assert [(len(batch), from_stdin) for batch, from_stdin in batches] == [(101, False), (2, False), (20, False)]
    sources = [d.source for batch, _ in batches for d in batch]
    assert sources == [*tickets[:100], str(tmp_path / "folder" / "1.txt"), f"{tmp_path / 'box.mbox'}:1",
                       f"{tmp_path / 'box.mbox'}:2", *tickets[100:]]
    assert report.documents == 123 == len(tickets) + 3

    batches = iter_unlabelled([*tickets[:3], str(tmp_path / "missing.txt"), tickets[3]], ReadReport())
    assert [d.source for d in next(batches)[0]] == tickets[:3]
    with pytest.raises(DataError, match="missing.txt: no such file or folder"):
        next(batches)


@pytest.mark.parametrize("name, expected", [
    ("20news-bydate", {"train": 11314, "test": 7532}),
    ("spamassassin-2003", {".": 3000}),
    ("enron-spam", {f"enron{i}": n for i, n in enumerate([5172, 5857, 5512, 6000, 5175, 6000], 1)}),
    ("lingspam", {f"bare/part{i}": 289 for i in range(1, 10)} | {"bare/part5": 290, "bare/part10": 291}),
    ("reuters21578", {"R8/train": 5485, "R8/test": 2189, "R52/train": 6532, "R52/test": 2568}),
    ("movie-review-polarity", {".": 2000}),
    ("rt-polarity", {".": 10662}),
])
def test_every_shared_corpus_reads_completely(name, expected):
    """Every document of every corpus is read, none skipped, whatever its bytes."""
    root = corpus_path(name)
    for part, count in expected.items():
        corpus = LabelledCorpus([str(root / part)])
        assert sum(1 for _ in corpus) == count == corpus.report.documents
        assert corpus.report.skipped == {}


def test_a_file_that_changed_since_it_was_listed_is_read_as_it_is_now(tmp_path):
    """Files are read by their listed size in one system call; one that grew or shrank after
    the listing still comes whole, and a maildir message (no listed size) too."""
    from nbtext.readers.files import read_bytes

    (tmp_path / "ham").mkdir()
    for name in ("grows", "shrinks", "empty"):
        (tmp_path / "ham" / name).write_bytes(b"x" * 1000 if name == "shrinks" else b"lunch at noon")
    (tmp_path / "ham" / "empty").write_bytes(b"")
    corpus = LabelledCorpus([str(tmp_path)])
    grown = b"lunch at noon" + b" and later" * 20_000
    (tmp_path / "ham" / "grows").write_bytes(grown)
    (tmp_path / "ham" / "shrinks").write_bytes(b"short")
    assert {os.path.basename(d.source): d.text for d in corpus} == {
        "empty": "", "grows": grown.decode(), "shrinks": "short"}
    assert read_bytes(str(tmp_path / "ham" / "grows")) == grown


def test_batches_hand_out_folders_unread_and_the_rest_read_in_order(tmp_path):
    """A Reading taken as batches (for worker processes) holds the same documents, in the same
    order and with the same report, as one iterated document by document: a folder's files
    come as FileBatch, to be read by whoever counts them; a line file comes read."""
    from nbtext.readers import FileBatch

    (tmp_path / "more.tsv").write_text("billing\tcharged twice\nshipping\twhere is it\n")
    paths = [str(TICKETS / "train"), str(tmp_path / "more.tsv")]
    one_by_one = LabelledCorpus(paths)
    expected = [(d.label, d.text, d.source) for d in one_by_one.read()]
    corpus = LabelledCorpus(paths)
    reading, got, kinds, seen = corpus.read(progress=lambda n: seen.append(n)), [], [], []
    for batch in reading.batches(100):
        kinds.append(type(batch).__name__)
        got += batch.read(corpus.report) if isinstance(batch, FileBatch) else batch
    assert [(d.label, d.text, d.source) for d in got] == expected
    assert kinds == ["FileBatch", "FileBatch", "FileBatch", "list"] and len(expected) == 245
    assert corpus.report == one_by_one.report
    assert sum(seen) == corpus.total_bytes
    with pytest.raises(ValueError, match="taken as batches already"):
        next(reading)


#: Pieces of the line and table formats, and of their encodings, that hypothesis joins into files.
_LINE_PIECES = [b"\t", b"\n", b"\r\n", b"\r", b"__label__", b"{", b"}", b'"label"', b'"text"', b":", b",", b'"',
                b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\xe9", b"spam", b" ", b"\\ud800", b"[", b"null", b"1",
                b"label\ttext\n", b"text,label\n"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.one_of(st.sampled_from(_LINE_PIECES), st.binary(max_size=3)), max_size=30),
       fmt=st.sampled_from([None, "tsv", "jsonl", "fasttext", "csv", "manifest"]),
       suffix=st.sampled_from([".tsv", ".jsonl", ".ft", ".csv", ".txt"]),
       encoding=st.sampled_from(["utf-8", "utf-8", "utf-16", "utf-32", "iso-2022-jp", "shift_jis"]))
@example(pieces=[b"\xff\xfe", b"\t"], fmt=None, suffix=".csv", encoding="utf-8")
@example(pieces=[b"\x00", b"\t", b"__label__"], fmt="manifest", suffix=".tsv", encoding="utf-8")
@example(pieces=[b"\t", b"\t"], fmt=None, suffix=".csv", encoding="utf-16")
@example(pieces=[b"\xff\xfe", b"\t", b"\t"], fmt=None, suffix=".csv", encoding="utf-32")
@example(pieces=[b"\x1f\x8b"], fmt=None, suffix=".tsv", encoding="utf-8")
@example(pieces=[b"a\x00", b"b\x00", b"\t\x00"], fmt=None, suffix=".tsv", encoding="utf-8")
@example(pieces=[b"\t\t\x00\t\t\xff\xfe\r\n"], fmt=None, suffix=".tsv", encoding="utf-8")  # wide without its CRLF
@example(pieces=[b"\n", b"\x00\x00", b"label\ttext\n"], fmt=None, suffix=".tsv", encoding="utf-8")  # NULs past line 1
@example(pieces=[b"\x00\x01\x01", b"\t", b"\t", b"\t", b"\t", b"\n", b"\t"], fmt=None, suffix=".tsv", encoding="utf-8")
def test_any_bytes_in_a_line_or_table_file_are_read_or_refused_by_line(tmp_path, pieces, fmt, suffix, encoding):
    """Whatever bytes a labelled file holds, in whatever encoding it is said to be, reading it
    gives documents or a DataError naming the file, never another exception (hypothesis found
    a UTF-16 table cut short, UTF-16 or UTF-32 asked for without a byte order mark, and a NUL
    in a manifest's path). Read from a pipe, every line is one document to classify, unless the
    stream is refused as compressed (the test did not allow that until hypothesis drew gzip's
    first two bytes) or as no text (two NULs side by side in its first 512 bytes, as binary
    files have, and as a file is judged: not in its first line alone, since a stream's start
    is looked at across lines to tell an office document)."""
    data = b"".join(pieces)
    path = tmp_path / f"data{suffix}"
    path.write_bytes(data)
    try:
        list(LabelledCorpus([str(path)], input_format=fmt, encoding=encoding))
    except DataError as error:
        assert str(path) in str(error) or "--" in str(error)
    report = ReadReport()
    batches = iter_unlabelled(["-"], report, stdin=io.BytesIO(data), encoding=encoding)
    if b"\n" not in data and b"\r" in data.rstrip(b"\r"):  # lines ended by CR alone, as classic Mac OS ends them
        data = data.replace(b"\r", b"\n")
    try:
        lines = sum(len(batch) for batch, _ in batches)
    except DataError as error:
        if "-compressed, not text; decompress it in the pipe" in str(error):  # gzip's first bytes, say
            assert data.startswith((b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd", b"PK\x03\x04"))
            return
        # The stream's start as the reader looks at it, as a file's: the lines of its first read
        # (here all of it), ended ones only if any are, their ends as \n.
        lines = data.split(b"\n")
        head = b"\n".join(line.removesuffix(b"\r") for line in lines[:-1] or lines)
        if "so no lines of text to classify" in str(error):  # a PDF's first bytes, or NULs side by side
            assert not_text(head) is not None
            return
        # UTF-16 or UTF-32 on stdin, which cannot be split into lines, told by a mark or NULs
        assert encoding.startswith("utf-16") or encoding.startswith("utf-32") or data.startswith(
            (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")) or unmarked_wide(head)
        return
    assert lines == len(data.split(b"\n")) - (not data or data.endswith(b"\n"))


"""Mail is read as mail: charsets honoured, HTML flattened, attachments counted; mbox and
maildir give exactly what the folder of message files gives."""

from __future__ import annotations

import codecs
import email
import email.policy
import gzip
import json
import mailbox
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nbtext.cli.flags import flag_of
from nbtext.analysis import Analyzer
from nbtext.model import Model
from nbtext.readers import LabelledCorpus, ReadReport, iter_unlabelled
from nbtext.readers.mail import DEFAULT_MAIL_HEADERS, message_text
from nbtext.readers.mailboxes import mbox_messages

from .conftest import TICKETS, corpus_path, in_bash, run


#: Pieces of MIME that hypothesis joins into messages, broken ones most of all.
_MIME_PIECES = [b"Subject: ", b"From: ", b"To: ", b"Content-Type: ", b"Content-Transfer-Encoding: ", b"=?", b"?=",
                b"?B?", b"?Q?", b"utf-7", b"gb2312", b"unknown-8bit", b"\x00", b"\"", b"<", b">", b"@", b",", b";",
                b"\n", b"\r\n", b"\n ", b"multipart/alternative; boundary=b\n", b"--b\n", b"--b--\n",
                b"text/html", b"text/plain; charset=", b"message/rfc822\n", b"base64", b"quoted-printable",
                b"x-uuencode", b"Zm9v", b"=E9", b"\xe9", b"\xff", b"<meta charset=", b"&#0;", b"&#xD800;", b"<style>"]


@pytest.fixture(scope="module")
def spamassassin():
    return corpus_path("spamassassin-2003")


@pytest.fixture(scope="module")
def as_mail(spamassassin):
    corpus = LabelledCorpus([str(spamassassin)], input_format="email")
    return {doc.source.rsplit("/", 1)[1]: doc for doc in corpus}, corpus.report


def test_spamassassin_yields_every_message_with_charsets_honoured(as_mail, spamassassin):
    docs, report = as_mail
    assert len(docs) == report.documents == 3000
    assert Counter(doc.label for doc in docs.values()) == {"ham": 2500, "spam": 500}
    assert report.skipped == {}
    # not UTF-8 on disk: each decoded by its declared charset
    assert "您好" in docs["spam.00397.1a99f98a5b996f99f3661e9609782932"].text                # gb2312
    assert docs["spam.00035.7ce3307b56dd90453027a6630179282e"].text.startswith("Subject: [광고]")  # ks_c_5601
    assert "烏鴉" in docs["spam.00252.7e355e0c5fd1de609684544262435579"].text                # big5
    assert "Michèl wrote" in docs["easy_ham.01307.4b06bdd9604366d63b4106aa8c715c06"].text    # iso-8859-1
    # HTML whose MIME header names no charset, but whose <meta> does, as mail clients read it;
    # raw 8-bit in the Subject read by the same charset
    assert "中山市欧威照明器材厂" in docs["spam.00321.22ec127de780c31da00ae5e1c1aa32e4"].text     # gb2312
    turkish = "spam.00336.92409253178027f58e2c072a7e82791e"                                       # windows-1254
    assert docs[turkish].text.startswith("Subject: Yeni sürümde\n") and "virüs kontrolünden" in docs[turkish].text
    assert not {f"{spamassassin}/spam/{name}" for name in ("spam.00321.22ec127de780c31da00ae5e1c1aa32e4", turkish)} \
        & set(report.replaced)
    assert len(report.replaced) == 1
    assert report.attachments > 0
    assert report.lines()[0] == "read 3,000 documents"
    # each part is decoded by its own charset: "not valid utf-8", as it said, was not what happened
    assert report.lines()[1] == "1 decoded with replacement (bytes not valid in the charsets their messages declare)"
    assert report.lines()[2] == ("50 messages read in a guessed charset (8-bit text in no declared charset, not "
                                 "UTF-8: read as Windows-1252, or in the script a detector finds)")


def test_a_part_that_declares_no_charset_is_read_in_the_one_a_detector_finds(as_mail):
    """50 SpamAssassin messages have 8-bit text, in a part or the Subject, that names no charset
    and is not UTF-8. Read as UTF-8, each had bytes replaced, and four Japanese spams in Shift
    JIS were nothing but U+FFFD. A detector now tells their script, and Western mail is read
    as Windows-1252, whichever Latin code page the detector would name: 49 are read whole, and
    the one left replaced (bytes Windows-1252 does not define) is counted so."""
    docs, report = as_mail
    guessed = {os.path.basename(source) for source in report.guessed}
    assert len(guessed) == 50
    for name in ("spam.00263.13fc73e09ae15e0023bdb13d0a010f2d", "spam.00320.20dcbb5b047b8e2f212ee78267ee27ad",
                 "spam.00323.9e36bf05304c99f2133a4c03c49533a9", "spam.00324.6f320a8c6b5f8e4bc47d475b3d4e86ef"):
        assert name in guessed and "ロリータビデオ（ＤＶＤ）専門" in docs[name].text, name  # Shift JIS
    assert "純商業辦公室出租" in docs["spam.00243.c6e70273fe1cf9e56e26bb6bbeef415d"].text      # Big5
    assert "world’s largest e-mail service" in docs["easy_ham.00114.240461056916c0cdd555ba9d2bc9e63e"].text
    assert "The £130million Airbus" in docs["easy_ham.01794.e322c3e66406d3a985a61aba25902c5b"].text
    assert "fiancés, both now authors" in docs["easy_ham.02445.c8fd8c92ab5a91bbf5e94e5277a47863"].text
    replaced = {os.path.basename(source) for source in report.replaced}
    assert [name for name in guessed - replaced if "\ufffd" in docs[name].text] == []


@pytest.mark.parametrize(("name", "words"), [
    ("enron-spam/enron3/spam/3517.2005-03-13.BG.spam.txt", "Subject: order xäñäx - no prëscrîptiòn required\n"),
    ("enron-spam/enron6/spam/0664.2004-09-18.BG.spam.txt", "delivery on xanax , valíum and more"),
    ("enron-spam/enron6/spam/3880.2005-03-13.BG.spam.txt", "Subject: ixnepeinsve xàñ @ x\n"),
    ("enron-spam/enron5/spam/3772.2005-07-07.SA_and_HP.spam.txt", "como le irán las vacaciones"),
    ("spamassassin-2003/spam/spam.00313.fab744bfd5a128fca39b69df9811c086", "Subject: [WM] özür dileriz\n"),
])
def test_a_few_accents_in_latin_words_are_not_taken_for_another_script(name, words):
    """Spam spells its words with accents to pass word filters, and Spanish and Turkish mail
    has a few: 8-bit bytes, one or two at a time, in no declared charset. charset-normalizer
    read some of them as Chinese, each release different ones ("x蓴艀 - no pr极cr䖝ti姍" in
    3.5.2, "ir嫕" and "[WM] 驆僡" in 3.5.3). Such text is read as Windows-1252 without asking."""
    corpus, path = name.split("/", 1)
    mail = message_text((corpus_path(corpus) / path).read_bytes(), DEFAULT_MAIL_HEADERS)
    assert mail.guessed and not mail.replaced
    assert words in mail.text


def test_a_text_part_whose_base64_is_cut_short_is_counted_as_malformed(as_mail, spamassassin):
    """The defects Python's mail parser finds while decoding a part (base64 cut short) were not
    looked at, as the part was checked before it was decoded: this spam, whose text part's
    base64 ends mid-group, was read without a word. It is read as before, and counted."""
    docs, report = as_mail
    name = "spam.00313.fab744bfd5a128fca39b69df9811c086"
    assert f"{spamassassin}/spam/{name}" in report.malformed and len(report.malformed) == 28
    assert docs[name].text.endswith("webmake-talk mailing listwebmake-talk@lists.sourceforge.nethttps://"
                                    "lists.sourceforge.net/lists/listinfo/webmake-talk")


def test_a_multipart_whose_boundary_never_comes_is_read_whole(as_mail, spamassassin):
    """This spam declares a boundary its body misspells, so the parser leaves the body whole,
    as one part of type multipart: it was dropped as a part with no text, and the message was
    read as its Subject alone. It is now read as text (its HTML as HTML), and counted."""
    docs, report = as_mail
    name = "spam.00467.5b733c506b7165424a0d4a298e67970f"
    assert f"{spamassassin}/spam/{name}" in report.malformed
    lines = docs[name].text.splitlines()
    assert lines[:2] == ["Subject: Printer Cartridges as low as $1.21 each!", "This is a multipart MIME message."]
    assert lines.count("Incredible Deals on Inkjet Cartridges!") == 2  # its text part and its HTML part
    assert not re.search(r"<(html|body|font|div)\b", docs[name].text, re.I)
    no_boundary = message_text(b"Subject: s\nContent-Type: multipart/mixed\n\n1 < 2 is not a tag\n")
    assert (no_boundary.text, no_boundary.malformed) == ("Subject: s\n1 < 2 is not a tag\n", True)


def test_a_body_named_as_a_file_is_read_and_attached_text_files_are_not(as_mail, spamassassin):
    """This spam's only part, its body, carries a file name ("filename.html"): it was skipped
    as an attachment and the message read as its Subject alone. A text file sent beside a
    message, as the patch in this ham is, is still left out and counted."""
    docs, report = as_mail
    spam = docs["spam.00036.256602e2cb5a5b373bdd1fb631d9f452"].text
    assert spam.startswith("Subject: Re: Your bank account\nDear\nFriend,\n") and "EASY MONEY!!" in spam
    ham = docs["easy_ham.00986.93b7eb74f26330872be1d58ec9d2b64c"].text
    assert "But there's one reference of $L left." in ham and "FtocUnmarkInner" not in ham
    assert report.attachments == 88
    assert "88 mail attachments skipped (attached files, not the message's text)" in report.lines()


def test_a_forwarded_message_is_read_with_its_subject(as_mail):
    """A message forwarded inside another (message/rfc822) shows its Subject in mail clients:
    its body was read but its Subject was not, so this ham lost the words of the post it forwards."""
    docs, _ = as_mail
    ham = docs["easy_ham.01294.8c242aa8998042dd666b7f9db56a6a3e"].text
    assert ham.startswith("Subject: Fw: some (null) eyecandy packages\n")
    assert "Subject some (null) eyecandy packages\n\nSubject: some (null) eyecandy packages\nI make these" in ham
    bounce = docs["easy_ham.01542.ed72bf2cd81ccd4c076533fb0af004e5"].text
    assert "banned or potentially offensive text.\n\n\nSubject: Re: [SAtalk] spamd error messages\n" in bounce
    latin1 = message_text(b"Subject: Fwd\nContent-Type: message/rfc822\n\nSubject: caf\xe9\n\nbody\n")
    assert (latin1.text, latin1.replaced) == ("Subject: Fwd\nSubject: caf\ufffd\nbody\n", True)
    declared = message_text(b"Subject: Fwd\nContent-Type: message/rfc822\n\nSubject: caf\xe9\n"
                            b"Content-Type: text/plain; charset=iso-8859-1\n\nbody\n")
    assert (declared.text, declared.replaced) == ("Subject: Fwd\nSubject: café\nbody\n", False)


def test_text_with_no_mail_header_is_read_whole(mail_filter):
    """Read as mail, 62 SMS messages lost words or all of their text: "URGENT!: Your Mobile
    No. was awarded..." and "K:)k:)good:)study well." parse as a header line, so a filter
    given one on stdin, as a user tries a filter out, scored an empty message. Input with no
    header that mail has is now read whole, as a plain file is."""
    from nbtext.readers.decoding import decode

    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes().splitlines()
    texts = [line.split(b"\t", 1)[1] for line in lines]
    assert len(texts) == 5574
    assert [message_text(raw).text for raw in texts] == [decode(raw, "utf-8")[0] for raw in texts]
    urgent = next(raw for raw in texts if raw.startswith(b"URGENT!: Your Mobile No. was awarded"))
    empty = run(["filter", mail_filter], input=b"", expect=None).stdout
    assert run(["filter", mail_filter], input=urgent, expect=None).stdout != empty


def test_a_charset_name_with_a_nul_falls_back_as_an_unknown_one(spamassassin, tmp_path):
    """A NUL in a part's charset name made the codec lookup raise ValueError, and train died
    with a traceback on the message. It now falls back as for any unknown charset."""
    raw = (spamassassin / "ham" / "easy_ham.01307.4b06bdd9604366d63b4106aa8c715c06").read_bytes()
    assert b"charset=ISO-8859-1\n" in raw
    (tmp_path / "ham").mkdir()
    (tmp_path / "ham" / "1.eml").write_bytes(raw.replace(b"charset=ISO-8859-1\n", b"charset=ISO-8859-1\0\n"))
    docs = list(LabelledCorpus([str(tmp_path)], input_format="email"))
    assert len(docs) == 1 and "Michèl wrote" in docs[0].text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_MIME_PIECES), st.binary(max_size=4)), max_size=40))
def test_any_bytes_are_read_as_a_message_without_an_error(pieces):
    """Mail is messy: whatever bytes a message file holds, reading it gives a text, never an
    exception (hypothesis over pieces of MIME: charsets, encodings, boundaries, encoded words)."""
    mail = message_text(b"".join(pieces), ("subject", "from", "to", "reply-to", "x-mailer", "content-type"))
    assert isinstance(mail.text, str) and not any("\udc80" <= ch <= "\udcff" for ch in mail.text)


_MBOX_PIECES = [b"From ", b"From a@b.org Thu Sep 26 11:11:54 2002", b">From ", b"Subject: ", b"\n", b"\r\n", b"\n\n",
                b"hi", b" ", b"Mon", b"9:30", b"\r", b"\x00"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.one_of(st.sampled_from(_MBOX_PIECES), st.binary(max_size=3)), max_size=20),
                min_size=1, max_size=5))
def test_an_mbox_python_writes_splits_into_the_messages_python_reads(tmp_path_factory, messages):
    """nbtext splits an mbox itself, only at a From line with a date; an mbox that Python's
    mailbox wrote (which quotes a body's "From " as ">From ") gives the messages Python's
    mailbox reads back from it, but for the blank line that ends the last one."""
    from nbtext.readers.mailboxes import split_mbox

    # Python's writer leaves a "From " after a lone CR unquoted, and writes the CR as a newline
    assume(not any(re.search(rb"\r(?!\n)", b"".join(pieces)) for pieces in messages))
    path = tmp_path_factory.mktemp("box") / "inbox.mbox"
    box = mailbox.mbox(path)
    for pieces in messages:
        box.add(mailbox.mboxMessage(b"Subject: x\n\n" + b"".join(pieces)))
    box.close()
    box = mailbox.mbox(path, create=False)
    theirs = [box.get_bytes(key) for key in box.iterkeys()]
    box.close()
    with open(path, "rb") as handle:
        ours = [message.raw for message in split_mbox(handle)]
    assert ours[:-1] == theirs[:-1] and theirs[-1] in (ours[-1], ours[-1] + b"\n")


#: How mbox writers date a From line: asctime, a zone after the time (Google Takeout) or after
#: the year, Thunderbird's "-" for the sender, UUCP's "remote from".
_MBOX_DATES = ["{wd} {mon} {day:2d} {hh:02d}:{mm:02d}:{ss:02d} {year}", "{wd} {mon} {day:02d} {hh:02d}:{mm:02d}:{ss:02d} +0000 {year}",
               "{wd} {mon} {day} {hh:02d}:{mm:02d}:{ss:02d} {year} -0700", "{wd} {mon} {day:2d} {hh:02d}:{mm:02d} {year} EDT",
               "{wd} {mon} {day:2d} {hh:02d}:{mm:02d}:{ss:02d} {year} remote from uunet"]
#: Senders as they come, a space, brackets and "at" among them.
_SENDERS = ["a@b.org", "-", "MAILER-DAEMON", "zvfjenphuq@[1086695621] [ufa]", "barry at python.org", "",
            "\"Ann Lee\" <ann@x.org>", "x@y Mon"]
_BODY_LINES = ["hello", "", "From what I saw on Mon Sep 9 at 9:30, it works.", "From here on", ">From quoted",
               "From scott Fri Apr 23 16:31:21 1993", "From the Boston Globe, Thursday April 22 1993", "Subject: x"]


@st.composite
def _mbox_message(draw) -> bytes:
    """One message of a hand-written mbox: a From line with or without a date, and body lines,
    some of which start "From " unquoted, as a shell loop or a newsreader writes them."""
    sender = draw(st.one_of(st.sampled_from(_SENDERS), st.text(st.characters(min_codepoint=32, max_codepoint=126),
                                                                 max_size=12)))
    dated = draw(st.booleans()) or draw(st.booleans())
    date = draw(st.sampled_from(_MBOX_DATES)).format(
        wd=draw(st.sampled_from(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])),
        mon=draw(st.sampled_from(["Jan", "Feb", "Aug", "Dec"])), day=draw(st.integers(1, 31)),
        hh=draw(st.integers(0, 23)), mm=draw(st.integers(0, 59)), ss=draw(st.integers(0, 59)),
        year=draw(st.integers(1990, 2030)))
    body = draw(st.lists(st.one_of(st.sampled_from(_BODY_LINES), st.text(st.characters(min_codepoint=32,
                                                                                    max_codepoint=126), max_size=20)),
                         max_size=6))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [f"From {sender} {date}" if dated else f"From {sender}", "Subject: hi", "", *body, ""]
    return eol.join(lines).encode() + eol.encode()


@settings(max_examples=300, deadline=None)
@given(st.lists(_mbox_message(), min_size=1, max_size=6))
def test_an_mbox_gives_pythons_messages_or_says_where_it_differs(tmp_path_factory, messages):
    """Python's mailbox starts a message at every line that starts "From "; nbtext only where
    the line ends in an mbox date, whatever names the sender (an envelope line with a space in
    its sender, "x@[10.1.1.1] [ufa]", was merged into the message before it, uncounted). The
    lines that start "From " without one are kept in their message, and each is counted: the
    messages read and those lines add up to the messages Python reads."""
    path = tmp_path_factory.mktemp("box") / "hand.mbox"
    path.write_bytes(b"".join(messages))
    box = mailbox.mbox(path, create=False)
    theirs = len(box)
    box.close()
    report = ReadReport()
    ours = list(mbox_messages(str(path), None, report))
    assert len(ours) + len(report.from_lines) == theirs
    assert len(report.from_lines) == 0 or (f"{len(report.from_lines):,} line" in "\n".join(report.lines()))


@pytest.mark.parametrize("name", ["spamassassin-2003", "lingspam", "enron-spam"])
def test_a_mail_corpus_written_into_an_mbox_by_python_reads_back_whole(name, tmp_path):
    """Every message of the shared mail corpora, written into one mbox by Python's mailbox (which
    quotes a body's "From " lines), comes back: as many messages as Python's mailbox reads, one a
    file, none skipped, with no "From " line left over."""
    root = corpus_path(name)
    files = sorted(path for path in root.rglob("*") if path.is_file() and not path.name.startswith("."))
    path = tmp_path / "all.mbox"
    box = mailbox.mbox(path)
    for file in files:
        box.add(file.read_bytes())
    box.close()
    box = mailbox.mbox(path, create=False)
    theirs = len(box)
    box.close()
    report = ReadReport()
    ours = list(mbox_messages(str(path), None, report))
    assert len(ours) == theirs == len(files) and report.from_lines == [] and report.skipped == {}


def test_mail_headers_and_html_are_not_tokens(as_mail, spamassassin):
    docs, _ = as_mail
    html_spam = [d for d in docs.values() if d.label == "spam" and "Content-Type: text/html" in
                 (spamassassin / "spam" / d.source.rsplit("/", 1)[1]).read_text("latin-1")]
    assert len(html_spam) > 50
    for doc in html_spam:
        assert not re.search(r"<(html|body|font|td)\b", doc.text, re.I), doc.source
        assert "Received: from" not in doc.text and "Return-Path:" not in doc.text


def test_headers_option_adds_prefixed_tokens(spamassassin):
    corpus = LabelledCorpus([str(spamassassin)], input_format="email", headers=["subject", "from"])
    doc = next(iter(corpus))
    assert doc.text.splitlines()[-1].split()[:1] and all(
        token.startswith(("subject_", "from_")) for token in doc.text.splitlines()[-1].split())


def _links(raw: bytes) -> list[str]:
    """The URLs a message's HTML parts link to or load from, by Python's email and html
    packages: the oracle of ``--headers html-links``."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Links(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.extend(value for name, value in attrs if name in ("href", "src", "action", "background") and value)

    for part in email.message_from_bytes(raw, policy=email.policy.compat32).walk():
        if part.get_content_type() == "text/html" and not part.get_filename():
            payload = part.get_payload(decode=True) or b""
            charset = part.get_content_charset() or "utf-8"
            try:
                text = payload.decode(charset, "replace")
            except LookupError:
                text = payload.decode("utf-8", "replace")
            Links().feed(text)
    return found


def test_html_links_are_the_words_of_the_urls_html_parts_link_to(spamassassin):
    """--headers html-links: every SpamAssassin message's tokens of it are the words of the
    absolute URLs its HTML parts link to or load images from, and each one's host whole, as
    Python's own parsers find them. Spam links far more often than ham."""
    from urllib.parse import urlsplit

    corpus = LabelledCorpus([str(spamassassin)], input_format="email", headers=["html-links"])
    linking = {"spam": 0, "ham": 0}
    for doc in corpus:
        expected = set()
        for url in _links((spamassassin / doc.label / doc.source.rsplit("/", 1)[1]).read_bytes()):
            try:
                parts = urlsplit(url.strip())
                host = parts.hostname
            except ValueError:
                continue
            if parts.netloc:
                after_scheme = "".join((f"//{parts.netloc}", parts.path, f"?{parts.query}", f"#{parts.fragment}"))
                expected |= {"html_links_" + word.lower() for word in re.findall(r"\w+", after_scheme)}
                expected |= {"html_links_" + "_".join(re.findall(r"\w+", host))} if host else set()
        last = doc.text.splitlines()[-1].split() if expected else []
        assert set(last) == expected, doc.source
        linking[doc.label] += bool(expected)
    assert linking == {"spam": 232, "ham": 5}  # of 500 and 2,500


def test_header_tokens_read_raw_8bit_as_the_subject_line_reads_it(spamassassin):
    """Raw 8-bit bytes in a header are decoded with the message's charset for its tokens too.
    Read as UTF-8 they were replaced, and split the word: the Turkish spam whose Subject line
    reads "Yeni sürümde" gave subject_s, subject_r and subject_mde."""
    corpus = LabelledCorpus([str(spamassassin)], input_format="email", headers=["subject"])
    raw_8bit = {path.name for path in spamassassin.rglob("*") if path.is_file()
                and re.search(rb"(?im)^subject:[^\n]*[\x80-\xff]", path.read_bytes().split(b"\n\n", 1)[0])}
    assert len(raw_8bit) == 16
    checked = 0
    for doc in corpus:
        if doc.source.rsplit("/", 1)[1] not in raw_8bit:
            continue
        subject = doc.text.splitlines()[0].removeprefix("Subject: ")
        tokens = {token for token in doc.text.splitlines()[-1].split() if token.startswith("subject_")}
        assert tokens == {f"subject_{word.lower()}" for word in re.findall(r"\w+", subject)}, doc.source
        checked += 1
    assert checked == 16


def test_a_malformed_address_gives_its_tokens_on_every_python(spamassassin):
    """Python 3.13 (and 3.10 to 3.12's security releases since 2024) parse an address header
    strictly by default and give nothing for a malformed one. Eleven SpamAssassin spams lost
    address tokens there, so a model scored them otherwise than on the Python it was trained
    on: a "`Bulk.Adz" file name for an address, an undisclosed-recipients group, and a sender
    with two @ once its encoded word is decoded (joko@rs.128.ne.jp@FreeBSD.ORG)."""
    corpus = LabelledCorpus([str(spamassassin)], input_format="email", headers=["from", "to"])
    tokens = {doc.source.rsplit("/", 1)[1].split(".")[1]: doc.text.splitlines()[-1] for doc in corpus
              if doc.label == "spam"}
    assert tokens["00296"].split(" to_")[1:] == [
        "adzmtghugebreast0010", "bulk", "bulk_adzmtghugebreast0010_txt_dogma_slashnull_org", "c", "dogma",
        "dogma_slashnull_org", "org", "slashnull", "txt"]
    assert tokens["00096"].split(" to_")[1:] == ["org", "recipient", "spamassassin", "spamassassin_taint_org",
                                                  "taint", "undisclosed"]
    assert tokens["00263"].split(" to_")[0] == ("from_128 from_freebsd from_freebsd_org from_joko from_jp from_ne "
                                                "from_org from_rs")
    bulk = sorted(number for number, line in tokens.items() if re.search(r"\bto_bulk_adz\w+_txt_", line))
    assert bulk == ["00296", "00297", "00351", "00368", "00373"]


def test_enron_crlf_mail_is_read_as_mail():
    root = corpus_path("enron-spam") / "enron1"
    corpus = LabelledCorpus([str(root)], input_format="email")
    docs = list(corpus)
    assert len(docs) == 5172
    # one message has a bare ":" line in its header block; it is read anyway, and counted
    assert corpus.report.malformed == [str(root / "ham" / "0486.2000-02-24.farmer.ham.txt")]
    broken = next(d for d in docs if d.source.endswith("0486.2000-02-24.farmer.ham.txt"))
    assert "baxter / whalley meeting has been changed" in broken.text
    first = next(d for d in docs if d.source.endswith("0002.1999-12-13.farmer.ham.txt"))
    assert first.text.startswith("Subject: vastar resources , inc .\ngary , production from the high island")


@pytest.mark.parametrize("name", ["enron1", "enron2"])
def test_enron_read_as_mail_has_the_words_it_has_as_text(name):
    """Enron files are a Subject line and a body with no declared charset: read as mail, a file
    whose bytes are UTF-8 gives exactly the tokens it gives as plain text (an empty Subject
    still makes "subject"). One whose body or Subject is not is read in a guessed charset and
    counted (German spam's "für", once "f" and "r"; "les élections" in a French Subject over
    an ASCII body). No file is replaced or guessed unseen."""
    root = str(corpus_path("enron-spam") / name)
    text_corpus, mail_corpus = LabelledCorpus([root]), LabelledCorpus([root], input_format="email")
    analyzer = Analyzer(ngram_range=(1, 2))
    pairs = list(zip(text_corpus, mail_corpus, strict=True))
    invalid = set(text_corpus.report.replaced)
    assert [analyzer(t.text) for t, _ in pairs if t.source not in invalid] == \
        [analyzer(m.text) for _, m in pairs if m.source not in invalid]
    assert set(mail_corpus.report.guessed) | set(mail_corpus.report.replaced) == invalid
    if name == "enron1":
        empty_subject = next(m for _, m in pairs if m.source.endswith("0103.2003-12-29.GP.spam.txt"))
        assert empty_subject.text.startswith("Subject: \nholiday specials on : didrex")
        assert (len(invalid), len(mail_corpus.report.guessed), len(mail_corpus.report.replaced)) == (15, 15, 4)
    else:
        assert (len(invalid), len(mail_corpus.report.guessed), len(mail_corpus.report.replaced)) == (129, 129, 0)
        german = next(m for _, m in pairs if m.source.endswith("0096.2002-02-20.SA_and_HP.spam.txt"))
        assert {"erhälst", "für", "schluß"} <= set(analyzer(german.text))
        french = next(m for _, m in pairs if m.source.endswith("0118.2002-04-24.SA_and_HP.spam.txt"))
        assert french.text.startswith("Subject: le dernier sondage avant les élections presidentielles 2002 !\n")


@pytest.fixture(scope="module")
def mail_filter(mail_layouts, tmp_path_factory):
    """The filter `nbtext train` makes of the 300 messages, trained once for the tests that
    only read it."""
    model = tmp_path_factory.mktemp("filter") / "m.joblib"
    run(["train", mail_layouts / "folder", "--input-format", "email", "-o", model])
    return model


def _plain(raw: bytes) -> bool:
    """No body line an mbox would have to escape (mbox writers turn "From " into ">From ")."""
    return not re.search(rb"\n>*From ", raw.split(b"\n", 1)[1] if raw.startswith(b"From ") else raw)


@pytest.fixture(scope="module")
def mail_layouts(spamassassin, tmp_path_factory):
    """The same 300 messages as a folder of files, as mbox files and as maildirs."""
    root = tmp_path_factory.mktemp("mail")
    for label in ("ham", "spam"):
        files = [p for p in sorted((spamassassin / label).iterdir()) if _plain(p.read_bytes())][:150]
        (root / "folder" / label).mkdir(parents=True)
        (root / "mbox" / label).mkdir(parents=True)
        (root / "maildir").mkdir(exist_ok=True)
        box = mailbox.mbox(root / "mbox" / label / "inbox.mbox")
        maildir = mailbox.Maildir(root / "maildir" / label)
        for path in files:
            raw = path.read_bytes()
            (root / "folder" / label / path.name).write_bytes(raw)
            box.add(raw)
            maildir.add(raw)
        box.close()
    return root


def test_message_files_read_as_mbox_are_skipped_whole_and_counted(mail_layouts, tmp_path):
    """`--input-format mbox` on a folder of message files read each file as an mbox: a file
    with no "From " line gave nothing, without a word ("no documents to train on" for all of
    enron1), and one whose body has a line starting "From " gave a message made of what
    follows that line, its headers and the text before it lost. A file that does not start
    as an mbox does is now skipped whole, and counted. `predict --input-format maildir` on a
    folder that is no maildir printed nothing and exited 0."""
    enron1 = corpus_path("enron-spam") / "enron1"
    corpus = LabelledCorpus([str(enron1)], input_format="mbox")
    assert list(corpus) == []
    assert {reason: len(paths) for reason, paths in corpus.report.skipped.items()} == {
        "not an mbox: it does not start with a 'From ' line": 5172}
    message = sorted((enron1 / "ham").iterdir())[0]
    (tmp_path / "ham").mkdir()
    (tmp_path / "ham" / "note.eml").write_bytes(message.read_bytes() + b"\nFrom the desk of the trading team\n")
    error = run(["train", tmp_path, "--input-format", "mbox", "-o", tmp_path / "m"], expect=1).stderr
    assert error == ("read 0 documents\n1 skipped: not an mbox: it does not start with a 'From ' line\n"
                     "Error: no documents to train on\n")
    # a compressed mbox is read as the messages it holds, as Dovecot reads one; a compressed message is none
    (tmp_path / "ham" / "note.eml").unlink()
    (tmp_path / "ham" / "inbox.mbox.gz").write_bytes(gzip.compress((mail_layouts / "mbox" / "ham" / "inbox.mbox").read_bytes()))
    (tmp_path / "ham" / "note.eml.gz").write_bytes(gzip.compress(message.read_bytes()))
    packed = LabelledCorpus([str(tmp_path)], input_format="mbox")
    plain = LabelledCorpus([str(mail_layouts / "mbox")], input_format="mbox")
    assert [d.text for d in packed] == [d.text for d in plain if d.label == "ham"] and packed.report.documents == 150
    assert packed.report.skipped == {"not text (gzip-compressed; zcat writes its text)": [
        str(tmp_path / "ham" / "note.eml.gz")]}
    run(["train", enron1, "--input-format", "email", "-o", tmp_path / "m"])
    error = run(["predict", tmp_path / "m", enron1 / "ham", "--input-format", "maildir"], expect=1).stderr
    assert error.endswith(f"Error: {enron1 / 'ham'}: not a maildir (it has no cur/, new/ and tmp/)\n")


def test_mbox_files_read_whole_are_said_to_hold_several_messages(mail_layouts):
    """A folder of mbox files read as plain files (`--input-format folder`) makes each mbox of
    150 messages one document, as asked, and the report says so and names the parameter that
    reads each message (the command line, its option)."""
    corpus = LabelledCorpus([str(mail_layouts / "mbox")], input_format="folder")
    assert len(list(corpus)) == 2
    boxes = [str(mail_layouts / "mbox" / label / "inbox.mbox") for label in ("ham", "spam")]
    assert corpus.report.mboxes_read_whole == boxes
    said = "2 read whole, each one document, though they hold several mbox messages ({} mbox reads each message)"
    assert said.format("input_format") in corpus.report.lines()
    assert said.format("--input-format") in corpus.report.lines(name_of=flag_of)
    single = LabelledCorpus([str(mail_layouts / "folder")], input_format="folder")  # a From line each
    assert len(list(single)) == 300 and single.report.mboxes_read_whole == []


def test_message_files_read_as_plain_text_are_said_to_be_mail(spamassassin, mail_layouts, tmp_path):
    """SpamAssassin keeps a message a file, with no suffix: read as plain text, as a folder is
    untold, its headers and base64 were words, the model was no spam filter, and nothing said
    why until filter refused it. The read report now says so; filter's refusal names the
    option; and a folder of .eml files, as mail clients save messages, is read as mail untold."""
    plain = run(["train", spamassassin, "-o", tmp_path / "plain"]).stderr
    assert ("\n3,000 mail messages read as plain text, their headers and MIME encoding as words: --input-format "
            "email reads mail as mail (and training on mail with a spam class makes a spam filter)\n") in plain
    refused = run(["filter", tmp_path / "plain", mail_layouts / "folder" / "spam"], expect=3).stderr
    assert ("this model is not a spam filter: nbtext train makes one of mail with a spam class (mbox files, "
            "maildirs and .eml files are read as mail; other message files with --input-format email)") in refused
    assert "mail messages" not in run(["eval", "--cv", "2", spamassassin, "--input-format", "email"]).stderr
    # Messages among other documents are not said to be mail: 40 spams beside 81 tickets.
    (tmp_path / "mixed" / "spam").mkdir(parents=True)
    (tmp_path / "mixed" / "ham").symlink_to(TICKETS / "train" / "billing")
    for path in sorted((mail_layouts / "folder" / "spam").iterdir())[:40]:
        (tmp_path / "mixed" / "spam" / path.name).symlink_to(path)
    mixed = LabelledCorpus([str(tmp_path / "mixed")])
    assert len(list(mixed)) == 121 and len(mixed.report.mail_read_as_text) == 40
    assert not any("mail messages" in line for line in mixed.report.lines())
    # Nor are 20news's posts, of which 24 in train/ have headers as mail has, but no group's first.
    news = LabelledCorpus([str(corpus_path("20news-bydate") / "train")])
    assert len(list(news)) == 11_314 and news.report.mail_read_as_text == []
    # Saved as .eml files, the same messages are read as mail, and make a filter.
    for label in ("ham", "spam"):
        (tmp_path / "eml" / label).mkdir(parents=True)
        for path in (mail_layouts / "folder" / label).iterdir():
            (tmp_path / "eml" / label / f"{path.name}.eml").symlink_to(path)
    by_suffix = LabelledCorpus([str(tmp_path / "eml")])
    by_option = LabelledCorpus([str(mail_layouts / "folder")], input_format="email")
    assert sorted((d.label, d.text) for d in by_suffix) == sorted((d.label, d.text) for d in by_option)
    assert by_suffix.is_mail and len(by_option.report.texts) == 300
    run(["train", tmp_path / "eml", "-o", tmp_path / "filter"])
    spam = min((tmp_path / "eml" / "spam").iterdir())
    assert run(["filter", tmp_path / "filter", spam], expect=None).stdout.split("\t")[:2] == [str(spam), "Spam"]


@pytest.mark.parametrize("input_format", [None, "email"])
def test_mbox_files_in_class_folders_are_read_message_by_message(mail_layouts, input_format, tmp_path):
    """Mailboxes exported one per class (ham/inbox.mbox, spam/inbox.mbox) trained a model of
    two documents: with no option, each mbox was read as one plain document, and with
    `--input-format email` as one message whose body held the other 149. A folder whose files
    are all mboxes is now read as mail, message by message, and so is an mbox among message
    files read as mail."""
    by_box = LabelledCorpus([str(mail_layouts / "mbox")], input_format=input_format)
    by_file = LabelledCorpus([str(mail_layouts / "folder")], input_format="email")
    assert sorted((d.label, d.text) for d in by_box) == sorted((d.label, d.text) for d in by_file)
    assert by_box.is_mail and by_box.report.documents == 300 and by_box.report.mboxes_read_whole == []
    box = mail_layouts / "mbox" / "spam" / "inbox.mbox"
    assert [d.source for d in by_box][150:152] == [f"{box}:1", f"{box}:2"]
    # train makes the spam filter it makes of the message files; predict reads a folder the same way
    summary = run(["train", mail_layouts / "mbox", "-o", tmp_path / "m"]).stderr
    assert summary.startswith("read 300 documents\n") and "spam filter ('spam' is spam)" in summary
    answers = run(["predict", tmp_path / "m", mail_layouts / "mbox" / "spam"]).stdout.splitlines()
    assert len(answers) == 150 and answers[0].startswith(f"{box}:1 <")  # and its Message-ID


def test_a_class_that_is_no_maildir_beside_one_that_is_is_read_as_mail(mail_layouts, tmp_path):
    """An inbox maildir for ham beside spam exported as spam/spam.mbox: the maildir was found,
    the spam folder, which holds none, was passed over without a word, and train stopped at
    "only one class" (with a third class, a model would have been saved without spam). Found
    by looking, such a class folder is read as mail; asked for maildirs, it is skipped and
    counted."""
    shutil.copytree(mail_layouts / "maildir" / "ham", tmp_path / "data" / "ham")
    shutil.copytree(mail_layouts / "mbox" / "spam", tmp_path / "data" / "spam")
    mixed = LabelledCorpus([str(tmp_path / "data")])
    by_file = LabelledCorpus([str(mail_layouts / "folder")], input_format="email")
    assert sorted((d.label, d.text) for d in mixed) == sorted((d.label, d.text) for d in by_file)
    assert mixed.is_mail and mixed.report.documents == 300
    assert "spam filter ('spam' is spam)" in run(["train", tmp_path / "data", "-o", tmp_path / "m"]).stderr
    error = run(["train", tmp_path / "data", "--input-format", "maildir", "-o", tmp_path / "m"], expect=1).stderr
    assert ("1 skipped: class folder holding no maildir (without --input-format maildir, its files are read as "
            "mail)\n") in error and error.endswith("Error: only one class ('ham') in the training data; need at "
                                                   "least two\n")


def test_an_empty_mailbox_exported_beside_the_others_keeps_them_mail(mail_layouts, tmp_path):
    """A mail client exports an empty folder as an empty file: beside it, the mboxes are still
    read message by message, and the empty one is counted."""
    shutil.copytree(mail_layouts / "mbox", tmp_path / "data")
    (tmp_path / "data" / "spam" / "trash.mbox").write_bytes(b"")
    corpus = LabelledCorpus([str(tmp_path / "data")])
    assert len(list(corpus)) == 300 and corpus.is_mail
    assert corpus.report.skipped == {"empty mbox": [str(tmp_path / "data" / "spam" / "trash.mbox")]}


def test_one_mbox_to_train_on_is_told_to_come_in_class_folders(mail_layouts, tmp_path):
    """`nbtext train inbox.mbox` said it could not tell the format and named the line formats."""
    box = mail_layouts / "mbox" / "spam" / "inbox.mbox"
    error = run(["train", box, "-o", tmp_path / "m"], expect=1).stderr
    assert error == (f"Error: {box}: an mbox, whose messages have no class; give a folder of one folder per class "
                     "(DATA/spam/spam.mbox, DATA/ham/inbox.mbox)\n")


def test_a_maildir_copied_by_git_is_read_as_a_maildir(mail_layouts, mail_filter, tmp_path):
    """git keeps no empty folder, nor does a zip of files: maildirs copied so have lost their
    empty tmp/, and cur/ too where every message is new. They were read as folders of plain
    files, headers as words, and training on them made no spam filter. A folder holding cur/
    or new/ alone, with files named as maildirs name them, is a maildir now; a plain corpus's
    folder named new/ is not one."""
    git = ["git", "-c", "user.name=nbtext", "-c", "user.email=nbtext@example.org", "-c", "init.defaultBranch=main"]
    shutil.copytree(mail_layouts / "maildir", tmp_path / "repo")
    for step in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "mail"]):
        subprocess.run([*git, *step], cwd=tmp_path / "repo", check=True)
    subprocess.run([*git, "clone", "-q", tmp_path / "repo", tmp_path / "copy"], check=True)
    assert sorted(path.name for path in (tmp_path / "copy" / "spam").iterdir()) == ["new"]
    copied = LabelledCorpus([str(tmp_path / "copy")])
    original = LabelledCorpus([str(mail_layouts / "maildir")])
    assert [(d.label, d.text) for d in copied] == [(d.label, d.text) for d in original]
    assert copied.report.documents == copied.report.messages == 300
    trained = run(["train", tmp_path / "copy", "-o", tmp_path / "m.joblib"]).stderr
    assert "\nspam filter ('spam' is spam): spam cut-off " in trained
    answers = run(["predict", mail_filter, tmp_path / "copy" / "ham"]).stdout
    assert answers == run(["predict", mail_filter, mail_layouts / "maildir" / "ham"]).stdout.replace(
        str(mail_layouts / "maildir"), str(tmp_path / "copy"))
    # a folder of reviews with a subfolder new/ is no maildir: its files are read as they are
    (tmp_path / "reviews" / "pos" / "new").mkdir(parents=True)
    (tmp_path / "reviews" / "neg").mkdir()
    reviews = corpus_path("movie-review-polarity")
    for label in ("pos", "neg"):
        for path in sorted((reviews / label).iterdir())[:5]:
            shutil.copyfile(path, tmp_path / "reviews" / label / ("new" if label == "pos" else "") / path.name)
    read = LabelledCorpus([str(tmp_path / "reviews")])
    assert [d.text for d in read] == [path.read_text() for label in ("neg", "pos")
                                      for path in sorted((reviews / label).iterdir())[:5]]
    assert read.report.messages == 0


def test_one_maildir_to_train_on_is_told_to_come_in_class_folders(mail_layouts, tmp_path):
    """`nbtext train ~/Maildir` made a model of two classes, cur and new; its cur/ read nothing
    and the hint pointed to the maildir, as if it held class folders."""
    box = mail_layouts / "maildir" / "ham"
    advice = ("give a folder with a maildir per class (DATA/ham, DATA/spam; links will do: ln -s ~/Maildir/.Junk "
              "DATA/spam)")
    for options in ([], ["--input-format", "email"], ["--input-format", "maildir"]):
        error = run(["train", *options, box, "-o", tmp_path / "m"], expect=1).stderr
        assert error == f"Error: {box}: a maildir, whose messages have no class; {advice}\n"
    error = run(["eval", "--cv", "2", box / "new"], expect=1).stderr.splitlines()
    assert error[-2:] == [f"{box / 'new'} is a folder of the maildir {box}, whose messages have no class: {advice}",
                          "Error: no documents to cross-validate"]
    # As the advice says: links to the maildirs, one a class.
    (tmp_path / "data").mkdir()
    for label in ("ham", "spam"):
        (tmp_path / "data" / label).symlink_to(mail_layouts / "maildir" / label)
    assert "\n  ham        150\n  spam       150\n" in run(["train", tmp_path / "data", "-o", tmp_path / "m"]).stderr


def test_a_stray_file_or_a_class_of_message_files_beside_mailboxes_is_read_as_mail(mail_layouts, tmp_path):
    """A note beside the exported mailboxes made the folder plain text, each mbox one
    document (a model of 3 documents, with only a note in the read report); so did a class
    kept as message files beside spam/spam.mbox. Where some class's largest file is an mbox,
    the folder is now mail: the mboxes give their messages, the other files are messages."""
    shutil.copytree(mail_layouts / "mbox", tmp_path / "data")
    (tmp_path / "data" / "ham" / "note.txt").write_text("lunch at noon\n")
    corpus = LabelledCorpus([str(tmp_path / "data")])
    documents = list(corpus)
    assert len(documents) == 301 and corpus.is_mail and corpus.report.mboxes_read_whole == []
    assert [d.text for d in documents if d.source.endswith("note.txt")] == ["lunch at noon\n"]
    shutil.rmtree(tmp_path / "data" / "ham")
    shutil.copytree(mail_layouts / "folder" / "ham", tmp_path / "data" / "ham")
    mixed = LabelledCorpus([str(tmp_path / "data")])
    by_file = LabelledCorpus([str(mail_layouts / "folder")], input_format="email")
    assert sorted((d.label, d.text) for d in mixed) == sorted((d.label, d.text) for d in by_file)


@pytest.mark.parametrize("layout", ["mbox", "maildir"])
def test_mbox_and_maildir_equal_the_folder(mail_layouts, layout, mail_filter):
    folder = LabelledCorpus([str(mail_layouts / "folder")], input_format="email")
    other = LabelledCorpus([str(mail_layouts / layout)], input_format=None if layout == "maildir" else layout)
    assert sorted((d.label, d.text) for d in folder) == sorted((d.label, d.text) for d in other)
    assert other.report.documents == 300
    # the same predictions, message by message
    by_file = run(["predict", mail_filter, mail_layouts / "folder", "--format", "jsonl"]).stdout
    box_paths = [mail_layouts / layout / label / ("inbox.mbox" if layout == "mbox" else "") for label in ("ham", "spam")]
    by_box = run(["predict", mail_filter, *box_paths, "--format", "jsonl"]).stdout
    def labels_by_id(output: str) -> Counter:
        return Counter((r.get("message_id"), r["label"]) for r in map(json.loads, output.splitlines()))

    assert labels_by_id(by_file) == labels_by_id(by_box)
    first = json.loads(by_box.splitlines()[0])
    assert first["message_id"].startswith("<")
    if layout == "mbox":  # an mbox's message by its place in the file
        assert first["path"] == f"{box_paths[0]}:1"
    else:  # a maildir's by its file, first of the names in cur/ and new/: what mv and learn take
        names = sorted(path.name for sub in ("cur", "new") for path in (box_paths[0] / sub).iterdir())
        assert first["path"] in (str(box_paths[0] / sub / names[0]) for sub in ("cur", "new"))
        assert os.path.isfile(first["path"])


def test_a_maildir_s_messages_are_named_by_their_files_which_mv_and_learn_take(mail_layouts, mail_filter, tmp_path):
    """`nbtext filter filter.joblib ~/Maildir` named each message `Maildir:3 <Message-ID>`,
    which neither mv nor nbtext learn takes, so a Spam line could not be acted on. A maildir's
    message is a file, and is named by its path now: the spams the filter finds in a maildir
    of SpamAssassin's spam are learned as spam and moved to Junk, by the filter's own lines."""
    shutil.copytree(mail_layouts / "maildir" / "spam", tmp_path / "Maildir")
    for sub in ("cur", "new", "tmp"):
        (tmp_path / "Maildir" / ".Junk" / sub).mkdir(parents=True)
    shutil.copy(mail_filter, tmp_path / "m.joblib")
    lines = run(["filter", mail_filter, tmp_path / "Maildir"]).stdout.splitlines()
    files = sorted((tmp_path / "Maildir" / "new").iterdir(), key=lambda path: path.name)
    assert [line.split("\t")[0] for line in lines] == [str(path) for path in files] and len(files) == 150
    spam = [line.split("\t")[0] for line in lines if line.split("\t")[1] == "Spam"]
    assert len(spam) > 100
    moved = in_bash("mapfile -t spam < <(nbtext filter m.joblib Maildir | awk -F'\\t' '$2 == \"Spam\" {print $1}') && "
                    'nbtext learn m.joblib --spam "${spam[@]}" && mv "${spam[@]}" Maildir/.Junk/new/', cwd=tmp_path)
    assert moved.returncode == 0, moved.stderr
    junk = sorted(path.name for path in (tmp_path / "Maildir" / ".Junk" / "new").iterdir())
    assert junk == sorted(os.path.basename(path) for path in spam)
    assert len(list((tmp_path / "Maildir" / "new").iterdir())) == 150 - len(spam)
    learned = run(["info", tmp_path / "m.joblib"]).stdout
    assert f"+{len(spam)} spam" in learned


def test_messages_a_mail_server_keeps_compressed_are_read_as_the_messages_they_hold(mail_layouts, mail_filter,
                                                                                  tmp_path):
    """Dovecot, with its compression plugin on, keeps each message of a maildir gzipped (or in
    bzip2 or xz), and tells them by their first bytes. nbtext skipped every one as "not text",
    so a nightly filter over such a maildir filed nothing and a filter trained on it learned
    nothing. Each is read now as the message it holds: the same texts, answers and verdicts
    as the uncompressed maildir's, in one process or two, and for one message given alone; a
    compressed mbox gives its messages. A tar archive among them is still named and skipped,
    and so is a compressed file of plain text in a folder that is not mail, which its user
    can decompress."""
    import bz2
    import lzma

    compressors = [gzip.compress, bz2.compress, lzma.compress]
    shutil.copytree(mail_layouts / "maildir", tmp_path / "data")
    messages = sorted((tmp_path / "data").glob("*/new/*"))
    for n, path in enumerate(messages):
        path.write_bytes(compressors[n % 3](path.read_bytes()))
    assert [path.read_bytes()[:2] for path in messages[:3]] == [b"\x1f\x8b", b"BZ", b"\xfd7"]
    compressed = LabelledCorpus([str(tmp_path / "data")])
    plain = LabelledCorpus([str(mail_layouts / "maildir")])
    assert [(d.label, d.text) for d in compressed] == [(d.label, d.text) for d in plain]
    assert compressed.report.skipped == {} and compressed.report.documents == 300
    inbox = tmp_path / "data" / "ham"
    tarred = inbox / "new" / "1600000000.M1P1.mailhost"
    subprocess.run(["tar", "czf", tarred, "-C", mail_layouts / "folder" / "ham", "."], check=True)
    skipped = "1 skipped: not text (a tar archive, gzip-compressed; tar xf unpacks it)\n"
    for jobs in ("1", "2"):
        for command in ("predict", "filter"):
            answers = run([command, mail_filter, inbox, "--jobs", jobs])
            expected = run([command, mail_filter, mail_layouts / "maildir" / "ham"])
            assert answers.stdout == expected.stdout.replace(str(mail_layouts / "maildir"), str(tmp_path / "data"))
            assert skipped in answers.stderr and answers.stderr.replace(skipped, "") == expected.stderr
    one = messages[-1]
    assert run(["filter", mail_filter, one], expect=None).stdout == run(
        ["filter", mail_filter, mail_layouts / "maildir" / "spam" / "new" / one.name], expect=None).stdout.replace(
        str(mail_layouts / "maildir" / "spam"), str(tmp_path / "data" / "spam"))
    # a compressed mbox given to the filter gives a line a message, as the mbox does, not one verdict for all
    box = tmp_path / "inbox.mbox.gz"
    box.write_bytes(gzip.compress((mail_layouts / "mbox" / "spam" / "inbox.mbox").read_bytes()))
    verdicts = run(["filter", mail_filter, box]).stdout
    assert verdicts == run(["filter", mail_filter, mail_layouts / "mbox" / "spam" / "inbox.mbox"]).stdout.replace(
        str(mail_layouts / "mbox" / "spam" / "inbox.mbox"), str(box)) and verdicts.count("\n") == 150
    tarred.unlink()  # the filter trained on the compressed maildirs is the one trained on the plain ones
    for data, model in ((tmp_path / "data", "m.joblib"), (mail_layouts / "maildir", "plain.joblib")):
        assert "\nspam filter ('spam' is spam): spam cut-off " in run(["train", data, "-o", tmp_path / model]).stderr
    scored = [run(["filter", tmp_path / model, mail_layouts / "folder" / "spam"]).stdout
              for model in ("m.joblib", "plain.joblib")]
    assert scored[0] == scored[1] and scored[0].count("\tSpam\t") > 50
    # plain text compressed in a folder of plain text is still the user's to decompress
    (tmp_path / "notes" / "a").mkdir(parents=True)
    (tmp_path / "notes" / "a" / "old.txt.gz").write_bytes(gzip.compress(b"lunch at noon\n"))
    read = LabelledCorpus([str(tmp_path / "notes")])
    assert list(read) == [] and list(read.report.skipped) == ["not text (gzip-compressed; zcat writes its text)"]


def _after_moving_spam(mail_layouts, root, store: str, moved: int = 5):
    """ham/ and spam/ as a mail client leaves them once its user has moved ``moved`` spams from
    the inbox to Junk: the inbox keeps each, marked deleted, until it is compacted or expunged,
    and Junk holds the copy. ``store``: how the client keeps its folders. Thunderbird writes
    mbox files with no suffix, each message's flags in X-Mozilla-Status (0x0008 is deleted);
    Dovecot's and UW IMAP's mbox mark it with D in X-Status; a maildir with T among the flags
    that end its file's name. Returns the inbox's path."""
    ham = [p.read_bytes() for p in sorted((mail_layouts / "folder" / "ham").iterdir())]
    spam = [p.read_bytes() for p in sorted((mail_layouts / "folder" / "spam").iterdir())]
    inbox = [(raw, False) for raw in ham[:75]] + [(raw, True) for raw in spam[:moved]] + [(raw, False) for raw in ham[75:]]
    boxes = {"ham": inbox, "spam": [(raw, False) for raw in spam]}
    names = {"ham": "Inbox", "spam": "Junk"}
    for label, messages in boxes.items():
        (root / label).mkdir(parents=True)
        if store == "maildir":
            for sub in ("cur", "new", "tmp"):
                (root / label / names[label] / sub).mkdir(parents=True)
            for n, (raw, deleted) in enumerate(messages):
                name = f"{1_600_000_000 + n}.M{n}P1.mailhost:2,{'ST' if deleted else 'S'}"
                (root / label / names[label] / "cur" / name).write_bytes(raw)
            continue
        with open(root / label / names[label], "wb") as box:
            for raw, deleted in messages:
                body = raw.split(b"\n", 1)[1] if raw.startswith(b"From ") else raw
                status = ({True: b"X-Mozilla-Status: 0009", False: b"X-Mozilla-Status: 0001"}[deleted]
                          + b"\nX-Mozilla-Status2: 00000000\n" if store == "thunderbird"
                          else b"Status: RO\nX-Status: " + (b"D" if deleted else b"") + b"\n")
                ending = b"\n" if body.endswith(b"\n") else b"\n\n"  # a blank line before the next
                box.write(b"From - Thu Sep 26 11:11:54 2002\n" + status + body + ending)
    return root / "ham" / names["ham"]


@pytest.mark.parametrize("store", ["thunderbird", "x-status", "maildir"])
def test_a_message_marked_deleted_in_its_mailbox_is_skipped_and_counted(mail_layouts, mail_filter, tmp_path, store):
    """A mail client that moves a message out of an mbox or maildir copies it to the other
    folder and marks it deleted where it was, until the folder is compacted or expunged. Read
    as they were, the five spams a user moved from the inbox to Junk trained the filter as ham
    as well as spam. A message so marked is now skipped and counted: the 300 messages read
    are those the folders of message files hold, once each, with their labels."""
    inbox = _after_moving_spam(mail_layouts, tmp_path / "data", store)
    corpus = LabelledCorpus([str(tmp_path / "data")])
    by_file = LabelledCorpus([str(mail_layouts / "folder")], input_format="email")
    assert sorted((d.label, d.text) for d in corpus) == sorted((d.label, d.text) for d in by_file)
    reason = "marked deleted in their mailbox, which keeps them until the mail client compacts or expunges it"

    def name(n: int) -> str:  # the nth message of the inbox (the first is 1): its place, or a maildir's its file
        if store != "maildir":
            return f"{inbox}:{n}"
        return str(inbox / "cur" / f"{1_600_000_000 + n - 1}.M{n - 1}P1.mailhost:2,{'ST' if 76 <= n <= 80 else 'S'}")

    assert corpus.report.skipped == {reason: [name(n) for n in range(76, 81)]}
    summary = run(["train", tmp_path / "data", "-o", tmp_path / "m", "--verbose"]).stderr
    assert summary.startswith("read 300 documents\n") and f"\n5 skipped: {reason}\n  {name(76)}\n" in summary
    assert "  ham        150\n  spam       150\n" in summary
    # predict and filter answer the messages the client shows, and say what they passed over
    answers = run(["predict", mail_filter, inbox])
    assert len(answers.stdout.splitlines()) == 150
    assert answers.stdout.splitlines()[75].startswith(name(81) + (" <" if store != "maildir" else "\t"))
    assert f"\n5 skipped: {reason}\n" in answers.stderr
    assert len(run(["filter", mail_filter, inbox]).stdout.splitlines()) == 150


def test_a_thunderbird_folder_index_beside_its_mailbox_is_skipped(mail_layouts, tmp_path):
    """Thunderbird keeps an index beside each mbox (Inbox.msf, in Mork). Copied with the
    mailboxes, it was read as a message: a ham of hex row numbers and column names."""
    inbox = _after_moving_spam(mail_layouts, tmp_path / "data", "thunderbird", moved=0)
    index = inbox.with_name("Inbox.msf")
    index.write_bytes(b'// <!-- <mdb:mork:z v="1.4"/> -->\n< <(a=c)> // (f=iso-8859-1)\n'
                      b'  (B8=ns:msg:db:row:scope:msgs:all)(B9=subject)(BA=sender)(BB=message-id)>\n'
                      b'<(80=Re: patch)(81=ann@example.com)(82=<1@example.com>)>\n'
                      b'{1:^80 {(k^B8:c)(s=9)} [1(^B9^80)(^BA^81)(^BB^82)]}\n')
    corpus = LabelledCorpus([str(tmp_path / "data")])
    by_file = LabelledCorpus([str(mail_layouts / "folder")], input_format="email")
    assert sorted((d.label, d.text) for d in corpus) == sorted((d.label, d.text) for d in by_file)
    assert corpus.report.skipped == {"not text (Thunderbird's index of a mail folder, an .msf file)": [str(index)]}


#: What follows the message in an Apple Mail .emlx file: its own record of the message's flags.
_EMLX_PLIST = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
               b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
               b'<plist version="1.0">\n<dict>\n\t<key>date-received</key>\n\t<integer>1033036314</integer>\n'
               b'\t<key>flags</key>\n\t<integer>8590195713</integer>\n\t<key>remote-id</key>\n\t<string>4412</string>\n'
               b'</dict>\n</plist>\n')


def test_apple_mail_messages_are_read_as_the_messages_they_hold(mail_layouts, mail_filter, tmp_path):
    """Apple Mail keeps each message in an .emlx file: a line giving its length, the message,
    then a property list. Read as mail, the length line is no header, so the whole file was
    read as plain text: headers and base64 as words, the property list's tags and numbers too.
    The message is now read, and a folder holding .emlx files is read as mail without the option.
    The Info.plist in each of Mail's mailbox folders was read as a message; it is skipped."""
    emlx = {}
    for label, mailbox_name in (("ham", "INBOX.mbox"), ("spam", "Junk.mbox")):
        messages = tmp_path / "data" / label / mailbox_name / "0F2B9C3E-5D1A" / "Data" / "Messages"
        messages.mkdir(parents=True)
        for n, path in enumerate(sorted((mail_layouts / "folder" / label).iterdir()), 4401):
            raw = path.read_bytes()
            message = raw.split(b"\n", 1)[1] if raw.startswith(b"From ") else raw  # no mbox From line in Mail's store
            (messages / f"{n}.emlx").write_bytes(b"%d\n" % len(message) + message + _EMLX_PLIST)
            emlx[path] = messages / f"{n}.emlx"
        # and Mail's record of the mailbox, beside its messages: no mail
        (tmp_path / "data" / label / mailbox_name / "Info.plist").write_bytes(
            _EMLX_PLIST.replace(b"date-received", b"MailboxName").replace(b"1033036314", mailbox_name.encode()))
    corpus = LabelledCorpus([str(tmp_path / "data")])
    by_file = LabelledCorpus([str(mail_layouts / "folder")], input_format="email")
    assert sorted((d.label, d.text) for d in corpus) == sorted((d.label, d.text) for d in by_file)
    assert corpus.is_mail and corpus.report.skipped == {
        "no mail (a property list, as Apple Mail keeps beside its messages)":
            [str(tmp_path / "data" / label / box / "Info.plist") for label, box in (("ham", "INBOX.mbox"), ("spam", "Junk.mbox"))]}
    # one message given to predict, or to filter on stdin, is answered as the message file is
    spams = sorted((mail_layouts / "folder" / "spam").iterdir())[:20]
    def answers(paths) -> list[str]:
        return [line.split("\t", 1)[1] for line in run(["predict", mail_filter, *paths, "--proba"]).stdout.splitlines()]

    assert answers(emlx[p] for p in spams) == answers(spams) and len(answers(spams)) == 20
    verdicts = [run(["filter", mail_filter], input=emlx[p].read_bytes(), expect=None).stdout for p in spams[:3]]
    assert verdicts == [run(["filter", mail_filter], input=p.read_bytes(), expect=None).stdout for p in spams[:3]]


@pytest.mark.parametrize("written", ["crlf", "utf-8 marked", "utf-16", "utf-16-le"])
def test_an_mbox_written_on_windows_is_read_message_by_message(mail_layouts, mail_filter, tmp_path, written):
    """CRLF line ends: predict and filter took the 150 messages for one, since the check for
    a second message looked for LF LF From only. Saved by an editor that puts UTF-8's mark
    first (Notepad), or as UTF-16 (PowerShell's >): the mark hid the first From line, so the
    mbox was read as one message, without a word said, and read as an mbox it was skipped whole.
    So was UTF-16 without a mark (utf-16-le), whose NULs now tell it."""
    lf = mail_layouts / "mbox" / "spam" / "inbox.mbox"
    box = tmp_path / "spam" / "inbox.mbox"
    box.parent.mkdir()
    box.write_bytes({"crlf": lf.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"),
                     "utf-8 marked": codecs.BOM_UTF8 + lf.read_bytes(),
                     "utf-16": lf.read_bytes().decode("latin-1").encode("utf-16"),
                     "utf-16-le": lf.read_bytes().decode("latin-1").encode("utf-16-le")}[written])

    def answers(path) -> list[tuple[str, str]]:
        output = run(["predict", mail_filter, path, "--format", "jsonl"]).stdout
        return [(record["message_id"], record["label"]) for record in map(json.loads, output.splitlines())]

    # UTF-16 from text read as Latin-1, as a tool that does not know the charsets writes it:
    # the same messages, but words in other charsets are not the same words
    same = (lambda pairs: [message_id for message_id, _ in pairs]) if written.startswith("utf-16") else list
    expected = answers(lf)
    assert len(expected) == 150 and same(answers(box)) == same(expected)
    verdicts = run(["filter", mail_filter, box]).stdout.splitlines()
    assert [line.split("\t")[0] for line in verdicts] == [f"{box}:{i} {message_id}"
                                                          for i, (message_id, _) in enumerate(expected, 1)]
    piped = run(["predict", mail_filter, "--format", "jsonl"], input=box.read_bytes()).stdout.splitlines()
    assert same([(record["message_id"], record["label"]) for record in map(json.loads, piped)]) == same(expected)
    labelled = LabelledCorpus([str(tmp_path)], input_format="mbox")
    assert [doc.source.replace(str(box), "box") for doc in labelled] == [f"box:{i}" for i in range(1, 151)]
    if not written.startswith("utf-16"):  # every message, its words as LF's
        assert [doc.text.split() for doc in labelled] == [doc.text.split() for doc in LabelledCorpus(
            [str(lf.parent.parent)], input_format="mbox") if doc.label == "spam"]


def test_a_broken_utf16_mbox_names_the_message_it_garbled(mail_layouts, mail_filter, tmp_path):
    """An mbox saved as UTF-16 is decoded whole before it is split, so a byte that did not
    decode became U+FFFD in some message, and no message was counted as replaced: the read
    said nothing. Now the message that holds it is named, by path and on stdin, and the
    report says which encoding its bytes were not valid in, as for a single message file."""
    lf = mail_layouts / "mbox" / "spam" / "inbox.mbox"
    wide = lf.read_bytes().decode("latin-1").encode("utf-16")
    seventh = wide.find("\n\nFrom ".encode("utf-16-le"), 0)
    for _ in range(6):  # the blank line after the 7th message's From line and headers
        seventh = wide.find("\n\nFrom ".encode("utf-16-le"), seventh + 2)
    body = wide.find("\n\n".encode("utf-16-le"), seventh + 4) + 4
    box, clean = tmp_path / "inbox.mbox", tmp_path / "clean.mbox"
    box.write_bytes(wide[:body] + "\udc00".encode("utf-16-le", "surrogatepass") + wide[body:])  # half a pair
    clean.write_bytes(wide)
    said = "1 decoded with replacement (bytes not valid utf-16)\n"
    report = run(["predict", mail_filter, clean]).stderr  # malformed MIME, but nothing replaced
    assert report.startswith("read 150 documents\n") and "replacement" not in report
    assert run(["predict", mail_filter, box]).stderr == report.replace("documents\n", f"documents\n{said}", 1)
    by_path = run(["predict", mail_filter, box, "-v"])
    assert len(by_path.stdout.splitlines()) == 150
    assert by_path.stderr.startswith(f"read 150 documents\n{said}  {box}:8\n")
    piped = run(["predict", mail_filter, "-v"], input=box.read_bytes())
    assert piped.stderr.startswith(f"read 150 documents\n{said}  <stdin>:8\n")
    message = tmp_path / "one.eml"  # the 8th message alone, as PowerShell saves one
    start = wide.find("\n".encode("utf-16-le"), seventh + 4) + 2
    message.write_bytes(codecs.BOM_UTF16_LE + box.read_bytes()[start:body + 2 + 400])
    assert run(["predict", mail_filter, message]).stderr == f"read 1 document\n{said}"


def test_predict_jobs_parse_mail_in_the_workers_as_one_process_does(spamassassin, mail_layouts, mail_filter,
                                                                    tmp_path):
    """With --jobs, every message was parsed in the main process, which is most of the work of
    reading mail, and only the scoring went to the workers: on all of enron-spam, --jobs 2
    took 3.7 s where one process took 5.3 s. The workers now parse the mail they score.
    Every answer, and every line of the read report, each replaced, malformed or garbled
    message named in order (-v), is as one process gives: for a folder of message files,
    a maildir, an mbox, an mbox garbled in UTF-16, an mbox on stdin, and message files read
    as plain text around an mbox (where the mail is parsed here, in input order with the
    plain files). The same holds for nbtext filter, which now takes --jobs for its batch form."""
    box = mail_layouts / "mbox" / "spam" / "inbox.mbox"
    wide = box.read_bytes().decode("latin-1").encode("utf-16")
    half = len(wide) // 2 & ~1  # a character's start: half a surrogate pair there is no UTF-16
    garbled = tmp_path / "garbled.mbox"
    garbled.write_bytes(wide[:half] + "\udc00".encode("utf-16-le", "surrogatepass") + wide[half:])
    ham = sorted((mail_layouts / "folder" / "ham").iterdir())
    before, after = tmp_path / "before.txt", tmp_path / "after.txt"  # plain files with bytes not valid UTF-8
    before.write_bytes("Fenêtre cassée\n".encode("latin-1"))
    after.write_bytes("Crème brûlée\n".encode("latin-1"))
    sources = {"folder": [spamassassin, "--input-format", "email"], "maildir": [mail_layouts / "maildir" / "ham"],
               "mbox": [box], "garbled": [garbled], "stdin": [],
               "mixed": ["--input-format", "folder", *ham, before, garbled, after]}
    for name, source in sources.items():
        one, two = (run(["predict", mail_filter, *source, "-v", "--proba", "--jobs", jobs],
                        input=box.read_bytes() if name == "stdin" else None) for jobs in ("1", "2"))
        assert (two.stdout, two.stderr) == (one.stdout, one.stderr), name
        assert two.stdout.count("\n") == {"folder": 3000, "maildir": 150, "mixed": 302}.get(name, 150), name
        if name == "mixed":  # the replaced named in input order, the plain files' and the mail's
            assert re.search(rf"\n  {re.escape(str(before))}\n  {re.escape(str(garbled))}:\d+\n  "
                             rf"{re.escape(str(after))}\n", two.stderr), two.stderr
        if name in ("folder", "maildir", "mbox", "garbled"):  # nbtext filter's batch form, new --jobs and all
            one, two = (run(["filter", mail_filter, source[0], "-v", "--jobs", jobs]) for jobs in ("1", "2"))
            assert (two.stdout, two.stderr) == (one.stdout, one.stderr), name
            verdicts = Counter(line.split("\t")[1] for line in two.stdout.splitlines())
            assert sum(verdicts.values()) == (3000 if name == "folder" else 150)
            assert verdicts.most_common(1)[0][0] == ("Ham" if name in ("folder", "maildir") else "Spam"), name
    folder = run(["predict", mail_filter, spamassassin, "--input-format", "email", "--jobs", "2"]).stderr
    assert folder == ("read 3,000 documents\n1 decoded with replacement (bytes not valid in the charsets their "
                      "messages declare)\n50 messages read in a guessed charset (8-bit text in no declared charset, "
                      "not UTF-8: read as Windows-1252, or in the script a detector finds)\n"
                      "28 messages with malformed MIME (read as well as they could be)\n"
                      "88 mail attachments skipped (attached files, not the message's text)\n")
    assert "\n1 decoded with replacement (bytes not valid utf-16)\n" in run(
        ["predict", mail_filter, garbled, "--jobs", "2"]).stderr


def test_an_mbox_piped_to_predict_is_read_message_by_message(mail_layouts, mail_filter, tmp_path):
    """`cat box.mbox | nbtext predict MODEL` read the 150 messages as one, the first one's
    headers over all the bodies, and printed one answer; `nbtext learn MODEL --spam -`
    learned them as one spam. stdin is now read as the file is. nbtext filter gives stdin
    one verdict, its exit status, so it refuses an mbox there."""
    box = mail_layouts / "mbox" / "spam" / "inbox.mbox"
    by_path = run(["predict", mail_filter, box]).stdout.splitlines()
    with box.open("rb") as stdin:  # a real file descriptor on stdin, as the shell gives it
        piped = subprocess.run([sys.executable, "-m", "nbtext", "predict", str(mail_filter)], stdin=stdin,
                               capture_output=True, text=True)
    assert piped.returncode == 0 and len(by_path) == 150
    assert piped.stdout.splitlines() == [line.replace(str(box), "<stdin>", 1) for line in by_path]
    refused = run(["filter", mail_filter], input=box.read_bytes(), expect=3)
    assert refused.stdout == "" and refused.stderr == (
        "Error: stdin holds several mbox messages, and the filter gives stdin one verdict: give the mbox as a "
        "file (nbtext filter MODEL BOX.mbox) for a line each\n")
    passed = run(["filter", "--passthrough", mail_filter], input=box.read_bytes(), expect=3)
    assert passed.stdout_bytes == box.read_bytes()  # nothing lost on the way through
    model = tmp_path / "m.joblib"  # learn rewrites the model it teaches: a copy
    shutil.copyfile(mail_filter, model)
    learned = run(["learn", model, "--spam", "-"], input=box.read_bytes()).stderr  # was "learned 1 spam"
    assert learned.startswith("read 150 documents\n") and f"\nlearned 150 spam -> {model} (" in learned


def test_mail_through_a_pipe_path_is_read_as_on_stdin(mail_layouts, mail_filter, tmp_path):
    """bash's <(...) names a pipe (/dev/fd/N), which can be read once only. filter, predict
    and learn said it was "a link to nothing that can be read". Each now reads it as stdin:
    one message (filter's verdict its exit status, as for a file), or an mbox's each."""
    message = next((mail_layouts / "folder" / "spam").iterdir())
    by_file = run(["filter", mail_filter, message], expect=None)
    assert by_file.exit_code in (0, 1, 2)
    piped = in_bash(f"nbtext filter {mail_filter} <(cat {message})")
    assert piped.returncode == by_file.exit_code, piped.stderr
    assert re.sub(r"^/dev/fd/\d+\t", "", piped.stdout) == by_file.stdout.split("\t", 1)[1]
    box = mail_layouts / "mbox" / "spam" / "inbox.mbox"
    by_path = run(["predict", mail_filter, box]).stdout.splitlines()
    answers = in_bash(f"nbtext predict {mail_filter} <(cat {box})")
    assert answers.returncode == 0 and len(by_path) == 150
    assert [re.sub(r"^/dev/fd/\d+", "BOX", line) for line in answers.stdout.splitlines()] == [
        line.replace(str(box), "BOX", 1) for line in by_path]
    lines = run(["filter", mail_filter, box]).stdout
    shared = in_bash(f"nbtext filter <(cat {mail_filter}) {box} --jobs 2")  # the model through a pipe, to workers
    assert shared.returncode == 0 and shared.stdout == lines, shared.stderr
    refused = in_bash(f"nbtext filter {mail_filter} <(cat {box})")
    assert refused.returncode == 3 and re.fullmatch(
        r"Error: /dev/fd/(\d+) holds several mbox messages, and the filter gives /dev/fd/\1 one verdict: give the "
        r"mbox as a file \(nbtext filter MODEL BOX.mbox\) for a line each\n", refused.stderr)
    model = tmp_path / "m.joblib"  # learn rewrites the model it teaches: a copy
    shutil.copyfile(mail_filter, model)
    ham = next((mail_layouts / "folder" / "ham").iterdir())
    learned = in_bash(f"nbtext learn {model} --spam <(cat {box}) --ham <(cat {ham})")
    assert learned.returncode == 0 and f"\nlearned 150 spam, 1 ham -> {model} (" in learned.stderr, learned.stderr


def test_a_message_with_a_from_paragraph_is_one_message(mail_layouts, mail_filter, tmp_path):
    """A lone message that starts with an mbox From line, as mail stores keep them, and has a
    paragraph beginning "From" (199 of the 20news posts do) was split in two there, as an mbox
    of two messages: predict gave a file two answers, and filter called it a batch and exited
    0, spam to a procmail rule. A "From " line now separates messages only where it has a
    date with a weekday and a time, as every mbox writer puts there."""
    model = mail_filter
    message = next((mail_layouts / "folder" / "ham").iterdir()).read_bytes()
    assert message.startswith(b"From ")
    message += b"\nFrom what I saw on Monday, it works.\n"
    (tmp_path / "one.eml").write_bytes(message)
    assert len(run(["predict", model, tmp_path / "one.eml"]).stdout.splitlines()) == 1
    verdict = run(["filter", model, tmp_path / "one.eml"], expect=None)
    assert verdict.exit_code in (0, 1, 2) and verdict.stdout.startswith(f"{tmp_path / 'one.eml'}\t")
    assert len(run(["predict", model], input=message).stdout.splitlines()) == 1


def test_an_mbox_keeps_whole_the_messages_with_a_from_paragraph(tmp_path):
    """An mbox whose writer did not quote body lines beginning "From " as ">From " (a shell
    loop's `echo From ...; cat`, a newsreader's saved articles) was split at each of them, as
    Python's mailbox splits: 131 20news posts with such a paragraph ("From what I saw of the
    videotape") were read as 267 messages, the pieces after the first with no headers. A message
    now ends only at a From line that ends in an mbox date, as the first one does; posts that
    quote a whole mail's envelope ("From scott Fri Apr 23 16:31:21 1993") are left out here,
    since mutt and Python's mailbox split those too."""
    news = corpus_path("20news-bydate") / "train"
    posts = [path for path in sorted(news.glob("*/*")) if re.search(rb"^From ", path.read_bytes(), re.MULTILINE)
             and not re.search(rb"^From \S+ +(Mon|Tue|Wed|Thu|Fri|Sat|Sun) .*\d:\d\d", path.read_bytes(), re.MULTILINE)]
    assert len(posts) == 131
    for path in posts:
        (tmp_path / "posts" / path.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, tmp_path / "posts" / path.parent.name / path.name)
    (tmp_path / "box" / "news").mkdir(parents=True)
    with open(tmp_path / "box" / "news" / "saved.mbox", "wb") as box:
        for path in posts:
            box.write(b"From news@example.org Mon Apr 26 10:00:00 1993\n" + path.read_bytes() + b"\n")
    as_files = LabelledCorpus([str(tmp_path / "posts")], input_format="email")
    as_mbox = LabelledCorpus([str(tmp_path / "box")])
    assert [doc.text for doc in as_mbox] == [doc.text for doc in as_files]
    assert as_mbox.report.documents == len(posts)
    # and the same read from a pipe
    run(["train", tmp_path / "posts", "--input-format", "email", "-o", tmp_path / "m.joblib"])
    with open(tmp_path / "box" / "news" / "saved.mbox", "rb") as piped:
        answers = run(["predict", tmp_path / "m.joblib", "-"], input=piped.read()).stdout.splitlines()
    assert len(answers) == len(posts)


def test_a_mailing_list_archive_is_read_message_by_message(mail_layouts, mail_filter, tmp_path):
    """Mailman's archives (pipermail's 2002-September.txt, one a month) are mboxes whose From
    lines hide the sender's address as "barry at python.org". Such a line was not taken for an
    mbox's, so a month was one document: a class of a few documents, and predict gave a month
    one answer. They are now read message by message, as any mbox is."""
    ham = sorted((mail_layouts / "folder" / "ham").iterdir())[:40]
    months = {"python-dev": ham[:20], "exmh-users": ham[20:]}
    for list_name, paths in months.items():
        (tmp_path / "lists" / list_name).mkdir(parents=True)
        (tmp_path / "files" / list_name).mkdir(parents=True)
        with open(tmp_path / "lists" / list_name / "2002-September.txt", "wb") as archive:
            for n, path in enumerate(paths):
                message = path.read_bytes().split(b"\n", 1)[1]  # its own From line, replaced by Mailman's
                archive.write(b"From user%d at example.org  Thu Sep 26 11:%02d:54 2002\n" % (n, n) + message
                              + (b"\n" if message.endswith(b"\n") else b"\n\n"))
                (tmp_path / "files" / list_name / path.name).write_bytes(message)
    by_month = LabelledCorpus([str(tmp_path / "lists")])
    by_file = LabelledCorpus([str(tmp_path / "files")], input_format="email")
    assert sorted((d.label, d.text) for d in by_month) == sorted((d.label, d.text) for d in by_file)
    assert by_month.is_mail and by_month.report.documents == 40 and by_month.report.skipped == {}
    archive = tmp_path / "lists" / "python-dev" / "2002-September.txt"
    answers = run(["predict", mail_filter, archive]).stdout.splitlines()
    assert [line.split(" ")[0] for line in answers] == [f"{archive}:{n}" for n in range(1, 21)]


def test_tune_on_mail_uses_the_header_tokens_train_uses(mail_layouts, tmp_path):
    """tune scores mail as train reads it: with the default header tokens. The tuned model,
    trained on the same settings, equals train's model without the filter's calibration (tune
    gives a plain model)."""
    import json

    from nbtext.readers.mail import DEFAULT_MAIL_HEADERS
    from nbtext.spam_training import FILTER_SETTINGS, FILTER_TOKENS, FILTER_WEIGHTING

    from .test_training import assert_same_model

    # a spam filter's defaults, its tokens too (a grid leaves out what is a plain model's default): this mail has
    # a spam class
    grid = json.dumps({"variant": ["complement"], "ngram_range": [[1, 2]], "tokens": [FILTER_TOKENS],
                       **{key: [value] for key, value in {**FILTER_SETTINGS, **FILTER_WEIGHTING}.items()}})
    run(["tune", mail_layouts / "folder", "--input-format", "email", "-o", tmp_path / "tuned", "--grid", grid])
    run(["train", mail_layouts / "folder", "--input-format", "email", "-o", tmp_path / "trained"])
    tuned, trained = Model.load(tmp_path / "tuned"), Model.load(tmp_path / "trained")
    assert tuned.analyzer.headers == tuple(DEFAULT_MAIL_HEADERS)
    assert any(term.startswith("from_") for term in tuned.terms)
    assert tuned.settings["spam"] is None and trained.settings["spam"]["label"] == "spam"
    assert_same_model(tuned, _naive_bayes_of(trained))


@pytest.mark.parametrize("grid", ['{"alpha": [0.1, 1]}', '{"variant": ["multinomial"], "tf": ["log"], "idf": [true]}'])
def test_tune_on_mail_with_a_spam_class_says_how_to_train_its_filter(mail_layouts, tmp_path, grid):
    """tune makes a plain model, which nbtext filter refuses ("train it on data with a spam
    class", which the user had done). tune now says so, with the train command that makes a
    filter of the same settings, every one spelled out: where the grid is silent, a filter's
    defaults are not the search's. That command gives the tuned model, plus a calibration."""
    import shlex

    from .test_training import assert_same_model

    data = mail_layouts / "folder"
    lines = run(["tune", data, "--input-format", "email", "-o", tmp_path / "tuned", "--grid", grid]).stderr.splitlines()
    said = f"{tmp_path / 'tuned'} is a plain model, not a spam filter (no calibration, no cut-offs); for nbtext " \
           "filter, train one with these settings: nbtext train DATA --input-format email --analyzer word "
    assert lines[-1].startswith(said) and lines[-1].endswith(" -o filter.joblib")
    command = shlex.split(lines[-1].split(": ", 1)[1].replace("DATA", str(data)))
    run([*command[1:-1], tmp_path / "filter"])
    tuned, spam_filter = Model.load(tmp_path / "tuned"), Model.load(tmp_path / "filter")
    assert spam_filter.settings["spam"]["label"] == "spam"
    assert_same_model(tuned, _naive_bayes_of(spam_filter))
    refused = run(["filter", tmp_path / "tuned", next((data / "spam").iterdir())], expect=3).stderr
    assert refused.endswith("(tuned and calibrated models are plain ones)\n")


def _naive_bayes_of(spam_filter: Model) -> Model:
    """A filter's Naive Bayes model alone, without the calibration its out-of-fold scores fit:
    the same messages in another order fall in other folds, so calibrate a little differently."""
    return Model(spam_filter.analyzer, spam_filter.counts, {**spam_filter.settings, "spam": None})


def test_a_filter_keeps_the_tokens_its_defaults_were_measured_with(mail_layouts, tmp_path):
    """A filter (mail with a spam class) reads runs of two or more letters unless --tokens says
    otherwise: its settings and cut-offs were measured with them, where plain models keep
    one-letter words by default."""
    run(["train", mail_layouts / "folder", "--input-format", "email", "-o", tmp_path / "filter"])
    run(["train", mail_layouts / "folder", "--input-format", "email", "-o", tmp_path / "told", "--tokens", "all-words"])
    run(["train", mail_layouts / "folder", "--input-format", "email", "-o", tmp_path / "plain", "--calibrate"])
    spam_filter, told, plain = (Model.load(tmp_path / name) for name in ("filter", "told", "plain"))
    assert spam_filter.settings["spam"] and told.settings["spam"] and plain.settings["spam"] is None
    assert (spam_filter.analyzer.tokens, told.analyzer.tokens, plain.analyzer.tokens) == ("words", "all-words",
                                                                                           "all-words")
    assert "i" in told.terms and "i" not in spam_filter.terms


def test_mail_found_by_looking_gets_the_same_header_tokens(mail_layouts, tmp_path):
    """Maildirs recognised without --input-format are read with the default header tokens, as
    --input-format email reads the same messages (they used to get none)."""
    from nbtext.readers.mail import DEFAULT_MAIL_HEADERS

    from .test_training import assert_same_model

    run(["train", mail_layouts / "maildir", "-o", tmp_path / "found", "--spam-label", "spam"])
    run(["train", mail_layouts / "folder", "--input-format", "email", "-o", tmp_path / "told", "--spam-label", "spam"])
    found, told = Model.load(tmp_path / "found"), Model.load(tmp_path / "told")
    assert found.analyzer.headers == told.analyzer.headers == tuple(DEFAULT_MAIL_HEADERS)
    assert_same_model(_naive_bayes_of(found), _naive_bayes_of(told))  # a maildir's order is its file names'
    run(["train", mail_layouts / "maildir", "-o", tmp_path / "plain", "--headers", "none"])
    assert Model.load(tmp_path / "plain").analyzer.headers == ()


def test_headers_asked_of_plain_text_are_an_error(mail_layouts, tmp_path):
    """The same messages as a plain folder have no headers to read: --headers trained as if it
    were not there (the model even kept the names), where it now says how to read mail."""
    args = ["train", mail_layouts / "folder", "--headers", "subject", "-o", tmp_path / "m"]
    error = run(args, expect=2).stderr
    assert error.endswith("Error: --headers adds the words of mail headers: read DATA as mail (--input-format email, "
                          "mbox or maildir)\n")
    run([*args, "--input-format", "email"])
    assert Model.load(tmp_path / "m").analyzer.headers == ("subject",)


def test_cpythons_own_email_test_messages_are_each_read_or_skipped_with_a_reason(mail_filter):
    """CPython's tests of its email package keep a folder of hostile messages (broken MIME, odd
    charsets, nested and malformed parts) and the images and sounds they attach: a set no one
    here wrote. Every file of it is read as a message, or skipped with the reason, and the
    commands that read mail answer for every message, with no traceback."""
    folder = Path(sysconfig.get_paths()["stdlib"]) / "test" / "test_email" / "data"
    if not folder.is_dir():
        pytest.skip(f"this Python has no {folder} (some distributions leave the test package out)")
    files = sorted(str(path) for path in folder.iterdir() if path.is_file() and not path.name.startswith("."))
    report = ReadReport()
    documents = [doc for batch, _ in iter_unlabelled([str(folder)], report, input_format="email") for doc in batch]
    skipped = {source: reason for reason, sources in report.skipped.items() for source in sources}
    read = {doc.source.rsplit(":", 1)[0] if doc.source not in files else doc.source for doc in documents}
    assert sorted(read | set(skipped)) == files and not read & set(skipped)
    assert sum(name.endswith(".txt") for name in read) == sum(name.endswith(".txt") for name in files)
    assert all(reason.startswith("not text") for reason in skipped.values()), skipped
    for command in (["predict", mail_filter, folder, "--input-format", "email"], ["filter", mail_filter, folder]):
        result = run(command)
        assert len(result.stdout.splitlines()) == len(documents), command[0]

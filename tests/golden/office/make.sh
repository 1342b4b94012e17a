#!/usr/bin/env bash
# How the documents beside this script were written: by the programs users write them with,
# pandoc 2.17 and LibreOffice 7.4 (Debian 12's), on 2026-12-04, from one support ticket and a
# two-row table of the shipped corpus's kind. tests/test_readers.py checks that nbtext names
# each (the newer formats are zip archives, once told to be unzipped) and, where pandoc,
# LibreOffice and pdftotext are installed, that the command nbtext gives turns it into text it
# reads.
#
# Run from this folder: bash make.sh (needs pandoc, and LibreOffice's Writer and Calc)
set -euo pipefail
printf '# Refund\n\nMy invoice is wrong and I was charged twice.\n' >ticket.md
for kind in docx odt epub pptx; do
    pandoc --metadata title=Refund ticket.md -o "ticket.$kind"
done
libreoffice --headless --convert-to pdf ticket.odt >/dev/null
libreoffice --headless --convert-to rtf ticket.odt >/dev/null
libreoffice --headless --convert-to doc ticket.odt >/dev/null
printf 'text,label\n"my invoice is wrong",billing\n"the parcel never arrived",shipping\n' >tickets.csv
libreoffice --headless --convert-to xlsx tickets.csv >/dev/null
libreoffice --headless --convert-to ods tickets.csv >/dev/null
libreoffice --headless --convert-to xls tickets.csv >/dev/null
rm ticket.md tickets.csv

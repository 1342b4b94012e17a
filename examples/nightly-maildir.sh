#!/bin/sh
# Nightly batch job: move the spam among a maildir's messages into its .Junk folder (Maildir++).
#
#   sh examples/nightly-maildir.sh MODEL MAILDIR
#   NBTEXT_JOBS=4 sh examples/nightly-maildir.sh MODEL MAILDIR    # filter in 4 processes
#
# A crontab line for it, at 3:15 each night. cron looks for programs in /usr/bin and /bin
# alone: put the folder `command -v nbtext` names before them ($HOME/.local/bin is where
# `pip install --user` puts nbtext), or the job stops at once and files nothing.
#   15 3 * * *  PATH="$HOME/.local/bin:$PATH" sh /path/to/nightly-maildir.sh ~/.nbtext/filter.joblib ~/Maildir
#
# `nbtext filter MODEL FOLDER` prints PATH<TAB>VERDICT<TAB>SCORE for each message file as it
# goes; only Spam is moved, Ham and Unsure stay where they are. A message is moved with mv,
# never copied and deleted, so nothing is lost if the job stops half-way.
#
# Only a message delivered since the last run began is moved: one that was here then was left
# where it is by that run, or was put back by the user after a run filed it in Junk, and it
# stays. A message keeps its file's time when it is moved: mv keeps it, and so does an IMAP
# server that keeps mail in maildirs (Dovecot), for which that time is the message's arrival.
# MAILDIR/.nbtext-stamp keeps the time the last run began; the first run moves every spam.
set -eu
model=$1
maildir=$2
tab=$(printf '\t')
stamp=$maildir/.nbtext-stamp
trap 'rm -f "$maildir/.nbtext-verdicts" "$stamp.next"' EXIT
touch "$stamp.next"
for sub in cur new tmp; do
    mkdir -p "$maildir/.Junk/$sub"
done
for sub in new cur; do
    [ -n "$(ls -A "$maildir/$sub")" ] || continue
    nbtext filter "$model" "$maildir/$sub" --jobs "${NBTEXT_JOBS:-1}" > "$maildir/.nbtext-verdicts"
    while IFS="$tab" read -r path verdict score; do
        if [ "$verdict" = Spam ]; then
            # The name as nbtext wrote it, a backslash, tab, newline or carriage return escaped
            # (\\, \t, \n, \r), back to the file's own: the maildir convention writes a host
            # named a/b as a\057b in its messages' names. The dot keeps a trailing newline.
            path=$(printf '%b.' "$path")
            path=${path%.}
            if [ -e "$stamp" ] && [ -n "$(find "$path" -prune ! -newer "$stamp" 2>/dev/null)" ]; then
                continue  # here when the last run began: the user's to keep
            fi
            # A mail client moves a message it shows from new/ to cur/, renamed with its
            # flags: one it moved since nbtext read it stays, and is filed when cur/ is. A
            # message still there that mv cannot move is an error: mv says why, again.
            if ! mv "$path" "$maildir/.Junk/$sub/" 2>/dev/null; then
                [ ! -e "$path" ] || mv "$path" "$maildir/.Junk/$sub/"
                echo "nightly-maildir.sh: $path went before it could be moved (a mail client read it?); it stays" >&2
            fi
        fi
    done < "$maildir/.nbtext-verdicts"
done
mv "$stamp.next" "$stamp"

#!/usr/bin/env bash
# make-git-repo.sh DIR: create a fresh, deterministic Git repository in DIR for
# mcp-server-git to serve.
#
# Same input, same repository, on any machine: branch `main`, two commits with
# a fixed author and committer (name, email, date and timezone), fixed file
# contents, and the host's and user's git configuration ignored (no
# commit.gpgsign, hooks, templates or init.defaultBranch of theirs), so both
# commit ids are always the same (see README.md). The working tree is left
# clean.
#
# DIR must not exist yet, or be an empty directory.
set -euo pipefail

if [ "$#" -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
	echo "$0: $dir exists and is not empty" >&2
	exit 1
fi
mkdir -p "$dir"

# Only this script's settings count.
export GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_TEMPLATE_DIR
export LC_ALL=C TZ=UTC
export GIT_AUTHOR_NAME="mcpparity" GIT_AUTHOR_EMAIL="corpus@mcpparity.invalid"
export GIT_COMMITTER_NAME="mcpparity" GIT_COMMITTER_EMAIL="corpus@mcpparity.invalid"

g() { git -C "$dir" -c core.autocrlf=false -c core.fileMode=true -c commit.gpgSign=false "$@"; }

# An empty template directory: no sample hooks, no info/exclude.
git -c init.defaultBranch=main init --quiet --template= "$dir"

printf 'mcpparity corpus repository\n' > "$dir/README.md"
printf 'one\ntwo\n' > "$dir/numbers.txt"
g add README.md numbers.txt
GIT_AUTHOR_DATE="2026-01-01T00:00:00+00:00" GIT_COMMITTER_DATE="2026-01-01T00:00:00+00:00" \
	g commit --quiet -m "Initial commit"

printf 'one\ntwo\nthree\n' > "$dir/numbers.txt"
g add numbers.txt
GIT_AUTHOR_DATE="2026-01-02T12:00:00+00:00" GIT_COMMITTER_DATE="2026-01-02T12:00:00+00:00" \
	g commit --quiet -m "Add three"

g log --format='%H %s'

#!/usr/bin/env bash
# Judges the port's compiled-in mutants (mutants.json) by mcpparity check,
# one release build for all: each mutant is target.yaml run with
# MCPPARITY_MUTANT=<id> in its environment. A mutant is killed when check
# exits 1, and the kill is confirmed by its first failing scenario alone;
# a survivor marked "equivalent" in mutants.json is counted apart.
# This stands in for `mcpparity mutate --target-file` until the harness
# can select a mutant by environment (docs/ports.md, "Mutants").
#
# usage (from the repository root, bin/mcpparity and the port built):
#   ports/rust/mutants.sh [ID...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${MCPPARITY:-bin/mcpparity}
if [ $# -gt 0 ]; then ids=("$@"); else
	mapfile -t ids < <(sed -n 's/^ *"id": "\(RS-[^"]*\)",$/\1/p' "$here/mutants.json")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
killed=0 survived=0 equivalent=0 errors=0
for id in "${ids[@]}"; do
	file="$tmp/$id.yaml"
	sed "s|{dir}|$here|g" "$here/target.yaml" >"$file"
	printf '\nenv:\n  MCPPARITY_MUTANT: "%s"\n' "$id" >>"$file"
	rc=0
	"$bin" check --target-file "$file" --failfast --json "$tmp/$id.json" >"$tmp/$id.out" 2>&1 || rc=$?
	scenario=$(sed -n 's/^fail  *\([^ ]*\).*/\1/p' "$tmp/$id.out" | head -1)
	if [ "$rc" = 1 ] && [ -n "$scenario" ]; then
		rc2=0
		"$bin" check --target-file "$file" --run "^$scenario\$" >"$tmp/$id.confirm" 2>&1 || rc2=$?
		if [ "$rc2" = 1 ]; then
			killed=$((killed + 1)); echo "killed    $id  by $scenario"
			continue
		fi
		errors=$((errors + 1)); echo "unconfirmed $id  ($scenario alone: exit $rc2)"
	elif [ "$rc" = 0 ] && grep -A4 "\"id\": \"$id\"" "$here/mutants.json" | grep -q '"equivalent"'; then
		equivalent=$((equivalent + 1)); echo "equivalent $id  (mutants.json says why)"
	elif [ "$rc" = 0 ]; then
		survived=$((survived + 1)); echo "SURVIVED  $id"
	else
		errors=$((errors + 1)); echo "error     $id  (check exit $rc)"; tail -3 "$tmp/$id.out"
	fi
done
echo "${#ids[@]} mutants: $killed killed, $survived survived, $equivalent equivalent, $errors errors"
[ "$survived" = 0 ] && [ "$errors" = 0 ]

#!/usr/bin/env bash
# Judges the port's compiled-in mutants (mutants.json) by mcpparity check,
# one release build for all: each mutant is target.yaml run with
# MCPPARITY_MUTANT=<id> in its environment. A mutant is checked first with
# the scenarios that test its clause (docs/rules-coverage.md), then, when
# it survives them, with every scenario; it is killed when check exits 1,
# and the kill is confirmed by its first failing scenario alone. A survivor
# marked "equivalent" in mutants.json is counted apart; one marked
# "survives" is a survivor whose missing scenario mutants.json names. This stands in for
# `mcpparity mutate --target-file` until the harness can select a mutant
# by environment (docs/ports.md, "Mutants").
#
# usage (from the repository root, bin/mcpparity and the port built):
#   ports/rust/mutants.sh [ID...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${MCPPARITY:-bin/mcpparity}
coverage="$here/../../docs/rules-coverage.md"
if [ $# -gt 0 ]; then ids=("$@"); else
	mapfile -t ids < <(sed -n 's/^ *"id": "\(RS-[^"]*\)",$/\1/p' "$here/mutants.json")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# scenarios CLAUSE: the scenarios whose steps test the clause, as a --run
# expression.
scenarios() {
	grep "^| $1 |" "$coverage" | grep -o '`[0-9][^`]*`' | tr -d '`' | sort -u | paste -sd'|'
}

# judge ID FILE: killed (and the scenario), survived, or an error.
judge() {
	local id=$1 file=$2 run rc scenario
	run=$(scenarios "$(sed 's/^RS-\([A-Z][0-9]*\.[0-9]*\)-.*/\1/' <<<"$id")")
	for expr in "^($run)\$" ""; do
		rc=0
		"$bin" check --target-file "$file" --failfast ${expr:+--run "$expr"} >"$tmp/$id.out" 2>&1 || rc=$?
		[ "$rc" = 0 ] || break
	done
	scenario=$(sed -n 's/^fail  *\([^ ]*\).*/\1/p' "$tmp/$id.out" | head -1)
	if [ "$rc" = 1 ] && [ -n "$scenario" ]; then
		rc=0
		"$bin" check --target-file "$file" --run "^$scenario\$" >"$tmp/$id.confirm" 2>&1 || rc=$?
		[ "$rc" = 1 ] && echo "killed $scenario" || echo "unconfirmed $scenario alone: exit $rc"
	elif [ "$rc" = 0 ]; then
		echo survived
	else
		echo "error check exit $rc: $(tail -1 "$tmp/$id.out")"
	fi
}

killed=0 survived=0 equivalent=0 errors=0
for id in "${ids[@]}"; do
	file="$tmp/$id.yaml"
	sed "s|{dir}|$here|g" "$here/target.yaml" >"$file"
	printf '\nenv:\n  MCPPARITY_MUTANT: "%s"\n' "$id" >>"$file"
	verdict=$(judge "$id" "$file")
	case $verdict in
	killed*) killed=$((killed + 1)); echo "killed     $id  by ${verdict#killed }" ;;
	survived)
		if grep -A5 "\"id\": \"$id\"" "$here/mutants.json" | grep -q '"equivalent"'; then
			equivalent=$((equivalent + 1)); echo "equivalent $id  (mutants.json says why)"
		elif grep -A5 "\"id\": \"$id\"" "$here/mutants.json" | grep -q '"survives"'; then
			survived=$((survived + 1)); echo "SURVIVED   $id  (known: mutants.json names the missing scenario)"
		else
			survived=$((survived + 1)); echo "SURVIVED   $id"
		fi ;;
	*) errors=$((errors + 1)); echo "error      $id  ($verdict)" ;;
	esac
done
echo "${#ids[@]} mutants: $killed killed, $survived survived, $equivalent equivalent, $errors errors"
[ "$survived" = 0 ] && [ "$errors" = 0 ]

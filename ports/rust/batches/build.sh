#!/bin/sh
# Builds one mutant copy of the port for a fresh batch (target-batch.yaml);
# the working folder is the copy. Builds take turns in one work folder
# outside the copies ($TMPDIR/mcpparity-rust-batch), so that cargo's
# incremental build recompiles only what a mutant changed; the work
# folder's target/ starts as the port's batch profile (made once with
# `cargo build --profile batch` in ports/rust). The binary is copied into
# the copy's own target/batch/; the port's binaries stay untouched.
set -e
work=${TMPDIR:-/tmp}/mcpparity-rust-batch
mkdir -p "$work"
exec 9>"$work/lock"
flock 9
if [ -L target ]; then
	real=$(readlink target)
	rm target
	if [ ! -d "$work/target/batch" ]; then
		mkdir -p "$work/target"
		cp -a "$real/batch" "$work/target/batch"
	fi
fi
rm -rf "$work/crate"
mkdir "$work/crate"
cp -R Cargo.toml Cargo.lock src "$work/crate/" # fresh times: cargo always rebuilds, rustc reuses what did not change
(cd "$work/crate" && cargo build --profile batch --locked --offline --quiet --target-dir "$work/target")
mkdir -p target/batch
cp "$work/target/batch/mcpparity-rust" target/batch/

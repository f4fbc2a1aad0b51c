#!/usr/bin/env bash
# Issue 13, "measure both": a full restore of one state archive into an empty folder, every entry checked before
# anything is written (plan, verify, extract: what a restore into folders that hold files does) against each entry
# checked as it is written (what a restore into empty folders does: atomicity/FullRestoreChecks.java). Archive engine
# only, one JVM, the rounds alternating the order; a `sync` after each extraction is counted.
#
#   releng/bench/scale/atomicity.sh [--rounds N] [--work DIR] [--cold] [<archive.bsa>]
#
# --cold drops the page cache before each case (root only): the archive is then read from the disk, once by the
# extraction that checks as it writes, and by the verify before the other (the extraction then reads the cache).
# Without an archive: the state of `main` of the scale benchmark's workspace (/tmp/branchstate-scale, made by run.sh).
# Needs the archive bundle built (./launch ./mvnw -B -o package -DskipTests, or run.sh) and ~2x the state's data free.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
java_home=${BENCH_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
rounds=2
work=/tmp/branchstate-atomicity
archive=
cold=
while [ $# -gt 0 ]; do
	case "$1" in
		--rounds) rounds=$2; shift 2 ;;
		--work) work=$2; shift 2 ;;
		--cold) cold=cold; shift ;;
		-*) echo "usage: $0 [--rounds N] [--work DIR] [--cold] [<archive.bsa>]" >&2; exit 2 ;;
		*) archive=$1; shift ;;
	esac
done
if [ -z "$archive" ]; then
	scale=/tmp/branchstate-scale
	commit=$(git -C "$scale/repo" rev-parse main)
	archive=$(ls "$scale"/store/states/*/"$commit"-*.bsa 2>/dev/null | head -1)
	[ -n "$archive" ] || { echo "atomicity: no state of main in $scale/store (run releng/bench/scale/run.sh first)" >&2; exit 1; }
fi
jar=$(ls "$root"/bundles/dev.branchstate.archive/target/dev.branchstate.archive-*.jar | grep -v sources | head -1)
zstd=$(ls "$HOME"/.m2/repository/com/github/luben/zstd-jni/*/zstd-jni-*.jar | grep -v sources | tail -1)
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
"$java_home/bin/javac" -d "$classes" -cp "$jar" "$root/releng/bench/scale/atomicity/FullRestoreChecks.java"
mkdir -p "$work"
echo "archive: $archive ($(du -shL "$archive" | cut -f1) own file; $(nproc) cores)"
"$java_home/bin/java" -Xmx2g -cp "$classes:$jar:$zstd" FullRestoreChecks "$archive" "$work" "$rounds" $cold

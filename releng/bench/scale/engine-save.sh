#!/usr/bin/env bash
# Issue 13: where the save from scratch loses against `tar -c | zstd -3 -T2`. The archive engine alone writes the
# bin/ folders of the scale benchmark's repository several times in one JVM (engine/SaveRounds.java: the first round in
# a JVM that has not run that code yet, the later ones compiled), the peer before and after it, each after a `sync`.
#
#   releng/bench/scale/engine-save.sh [--rounds N] [--level L] [--work DIR] [<repository>]
#
# Without a repository: the scale benchmark's (/tmp/branchstate-scale/repo, made by run.sh), on whatever branch it is.
# Needs the archive bundle built (./launch ./mvnw -B -o package -DskipTests, or run.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
java_home=${BENCH_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
rounds=3
level=3
work=/tmp/branchstate-engine-save
repo=/tmp/branchstate-scale/repo
while [ $# -gt 0 ]; do
	case "$1" in
		--rounds) rounds=$2; shift 2 ;;
		--level) level=$2; shift 2 ;;
		--work) work=$2; shift 2 ;;
		-*) echo "usage: $0 [--rounds N] [--level L] [--work DIR] [<repository>]" >&2; exit 2 ;;
		*) repo=$1; shift ;;
	esac
done
[ -d "$repo" ] || { echo "engine-save: no repository at $repo (run releng/bench/scale/run.sh first)" >&2; exit 1; }
jar=$(ls "$root"/bundles/dev.branchstate.archive/target/dev.branchstate.archive-*.jar | grep -v sources | head -1)
zstd=$(ls "$HOME"/.m2/repository/com/github/luben/zstd-jni/*/zstd-jni-*.jar | grep -v sources | tail -1)
mkdir -p "$work"
classes=$(mktemp -d)
trap 'rm -rf "$classes" "$work/peer.tar.zst"' EXIT
"$java_home/bin/javac" -d "$classes" -cp "$jar" "$root/releng/bench/scale/engine/SaveRounds.java"
# a copy of the jar: a rebuild during the run does not change the measured code
cp "$jar" "$classes/archive.jar"
peer() {
	sync
	(cd "$repo" && /usr/bin/time -f "peer: tar -c | zstd -3 -T2: %e s, CPU %U + %S s" \
		bash -c 'tar -c p*/bin | zstd -3 -T2 -q -f -o '"$work/peer.tar.zst")
	echo "peer archive: $(($(stat -c %s "$work/peer.tar.zst") >> 20)) MB"
}
echo "repository: $repo ($(nproc) cores)"
peer
sync
"$java_home/bin/java" -cp "$classes:$classes/archive.jar:$zstd" SaveRounds "$repo" "$work/state.bsa" "$rounds" "$level" \
	2> >(grep -v '^WARNING' >&2)
peer

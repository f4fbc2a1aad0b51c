#!/usr/bin/env bash
# The heap an open state archive keeps per entry (issue 13, goal: <= 300 bytes): live heap after full GCs, before and
# after opening each archive given, in a fresh JVM each.
#
#   releng/bench/scale/heap.sh <archive.bsa>...   (e.g. the states of the scale benchmark: /tmp/branchstate-scale/store)
#   releng/bench/scale/heap.sh --entries <n>...   (archives of n entries named after the JDK's class files: heap/ManyEntries.java)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
java_home=${BENCH_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
jar=$(ls "$root"/bundles/dev.branchstate.archive/target/dev.branchstate.archive-*.jar | grep -v sources | head -1)
zstd=$(ls "$HOME"/.m2/repository/com/github/luben/zstd-jni/*/zstd-jni-*.jar | grep -v sources | tail -1)
out=$(mktemp -d)
"$java_home/bin/javac" -d "$out" -cp "$jar" "$root/releng/bench/scale/heap/HeapPerEntry.java" \
	"$root/releng/bench/scale/heap/ManyEntries.java"
archives=()
if [ "${1:-}" = --entries ]; then
	shift
	for n in "$@"; do
		"$java_home/bin/java" -Xmx4g -cp "$out:$jar:$zstd" ManyEntries "$out/entries-$n.bsa" "$n"
		archives+=("$out/entries-$n.bsa")
	done
else
	archives=("$@")
fi
for archive in "${archives[@]}"; do
	"$java_home/bin/java" -Xmx4g -cp "$out:$jar:$zstd" HeapPerEntry "$archive"
done
rm -rf "$out"

#!/usr/bin/env bash
# Benchmark of the state archive engine against tar|zstd, Info-ZIP, java.util.zip and Commons Compress.
# Usage: releng/bench/archive/bench.sh [--corpora jdk,m2,usrlib] [--tools ours,tar-zstd,infozip,jdkzip,commons]
#                                      [--workers N] [--cold jdk] [--no-build]
# Not part of the build: it takes minutes and several GB in $BENCH_WORK (default /tmp/branchstate-bench).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${BENCH_WORK:-/tmp/branchstate-bench}
JAVA_HOME=${BENCH_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
M2=${M2_REPO:-$HOME/.m2/repository}
BUILD=1
ARGS=()
for a in "$@"; do
  if [ "$a" = "--no-build" ]; then BUILD=0; else ARGS+=("$a"); fi
done
for tool in zstd tar zip unzip python3; do
  command -v $tool >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
if [ $BUILD = 1 ]; then
  (cd "$ROOT" && ./launch ./mvnw -B -o -q -pl releng/dev.branchstate.target,bundles/dev.branchstate.archive \
      package -DskipTests)
fi
JAR=$(ls "$ROOT"/bundles/dev.branchstate.archive/target/dev.branchstate.archive-*.jar | grep -v sources | head -1)
mkdir -p "$WORK"
cp "$JAR" "$WORK/dev.branchstate.archive.jar"   # a rebuild during the run does not change the measured code
CP="$WORK/dev.branchstate.archive.jar:$M2/com/github/luben/zstd-jni/1.5.7-28/zstd-jni-1.5.7-28.jar"
CP="$CP:$M2/org/apache/commons/commons-compress/1.28.0/commons-compress-1.28.0.jar"
CP="$CP:$M2/commons-io/commons-io/2.20.0/commons-io-2.20.0.jar"
CP="$CP:$M2/org/apache/commons/commons-lang3/3.18.0/commons-lang3-3.18.0.jar"
mkdir -p "$WORK/classes"
"$JAVA_HOME/bin/javac" -nowarn -d "$WORK/classes" -cp "$CP" "$HERE/src/ArchiveBench.java"
if [ ! -d "$WORK/corpus-jdk" ]; then
  "$JAVA_HOME/bin/jimage" extract --dir "$WORK/corpus-jdk" "$JAVA_HOME/lib/modules"
fi
exec python3 "$HERE/bench.py" --work "$WORK" --java "$JAVA_HOME/bin/java" --cp "$WORK/classes:$CP" "${ARGS[@]}"

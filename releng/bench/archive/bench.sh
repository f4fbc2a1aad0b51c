#!/usr/bin/env bash
# Benchmark of the state archive engine against tar|zstd, Info-ZIP, java.util.zip and Commons Compress.
# Usage: releng/bench/archive/bench.sh [--corpora jdk,m2,usrlib] [--tools ours,tar-zstd,infozip,jdkzip,commons]
#                                      [--workers N] [--cold jdk] [--cold-jvm] [--no-build]
#        releng/bench/archive/bench.sh --sweep [--corpora jdk,usrlib] [--settings "workers=2;level=1,workers=4"]
# Not part of the build: it takes minutes and several GB in $BENCH_WORK (default /tmp/branchstate-bench).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${BENCH_WORK:-/tmp/branchstate-bench}
JAVA_HOME=${BENCH_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
M2=${M2_REPO:-$HOME/.m2/repository}
BUILD=1
DRIVER=bench.py
ARGS=()
for a in "$@"; do
  case "$a" in
    --no-build) BUILD=0 ;;
    --sweep) DRIVER=sweep.py ;;   # option sweep (workers, level, chunk size) instead of the tool comparison
    *) ARGS+=("$a") ;;
  esac
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
# a copy named by content: a rebuild (or another run) during a run does not change the measured code
COPY="$WORK/dev.branchstate.archive-$(sha1sum "$JAR" | cut -c1-12).jar"
[ -f "$COPY" ] || { cp "$JAR" "$COPY.tmp" && mv "$COPY.tmp" "$COPY"; }
CP="$COPY:$M2/com/github/luben/zstd-jni/1.5.7-28/zstd-jni-1.5.7-28.jar"
CP="$CP:$M2/org/apache/commons/commons-compress/1.28.0/commons-compress-1.28.0.jar"
CP="$CP:$M2/commons-io/commons-io/2.20.0/commons-io-2.20.0.jar"
CP="$CP:$M2/org/apache/commons/commons-lang3/3.18.0/commons-lang3-3.18.0.jar"
CLASSES=$(mktemp -d "$WORK/classes-XXXXXX")
"$JAVA_HOME/bin/javac" -nowarn -d "$CLASSES" -cp "$CP" "$HERE/src/ArchiveBench.java"
if [ ! -d "$WORK/corpus-jdk" ]; then
  "$JAVA_HOME/bin/jimage" extract --dir "$WORK/corpus-jdk" "$JAVA_HOME/lib/modules"
fi
exec python3 "$HERE/$DRIVER" --work "$WORK" --java "$JAVA_HOME/bin/java" --cp "$CLASSES:$CP" "${ARGS[@]}"

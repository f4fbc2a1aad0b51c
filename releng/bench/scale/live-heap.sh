#!/usr/bin/env bash
# live-heap.sh <work folder> <application arguments>...: one headless IDE session on the scale benchmark's workspace
# (run.sh's work folder, its IDE installed there), taking a class histogram every 2 s (jcmd GC.class_histogram: a full
# collection first, so only live objects count); prints the most live heap seen and the session's result line, and
# leaves the top of that histogram in <work folder>/logs/live-heap.txt. Example, the memory goal of issue 13:
#   releng/bench/scale/live-heap.sh /tmp/branchstate-1m list repo
#   releng/bench/scale/live-heap.sh /tmp/branchstate-1m save repo
set -euo pipefail
work=$1
shift
bin=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin
cd "$work"
launcher=$(ls eclipse/plugins/org.eclipse.equinox.launcher_*.jar)
log=logs/live-heap.log
mkdir -p logs
"$bin/java" -Xmx4g -jar "$launcher" -nosplash -data workspace -pluginCustomization customization.ini \
	-application dev.branchstate.core.app "$@" > "$log" 2>&1 &
pid=$!
most=0
sleep 3
while kill -0 "$pid" 2>/dev/null; do
	histogram=$("$bin/jcmd" "$pid" GC.class_histogram 2>/dev/null || true)
	total=$(awk '/^Total/ {print $3}' <<<"$histogram")
	if [ -n "$total" ] && [ "$total" -gt "$most" ]; then
		most=$total
		head -30 <<<"$histogram" > logs/live-heap.txt
	fi
	sleep 2
done
wait "$pid" || { cat "$log" >&2; exit 1; }
echo "$*: most live heap $((most / 1048576)) MB; $(grep -E '^(restored|saved|[0-9]+ state)' "$log" | sed 's/archive=[^ ]*//' | head -3)"

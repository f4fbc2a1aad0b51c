#!/usr/bin/env bash
# Large-workspace benchmark (issue 13): Branchstate on a workspace of many projects whose derived data is gigabytes in
# hundreds of thousands of files, with tar | zstd as the peer figure of the same run.
#
#   ./launch releng/bench/scale/run.sh [--projects 40] [--files 5000] [--jar-mb 46] [--no-build] [--work DIR] [--memory]
#
# Default: 40 projects, each with 5,000 class files and ~46 MB of jars in bin/ (~200,000 files, ~3 GB), made by
# make_tree.py from real files (the JDK's classes, the jars of the local Maven repository and the classes in them).
# The repository (a .project and a tracked source per project, bin/ ignored) has branches b1, b5, b30 whose derived
# data differs from main's in 1%, 5%, 30% of the files. The IDE is the product with Branchstate installed from the
# update site; every case is one headless IDE session (`-application dev.branchstate.core.app`).
#
# Per case: the session's wall, CPU (user+system), bytes read and written (rchar/wchar of /proc/PID/io: every
# read and write call, cached or not, JVM start included), peak RSS (VmHWM), the most the heap held after a garbage
# collection (the JVM's GC log), and what Branchstate reports of its own
# work (the save's or the restore's milliseconds, files written). Peer: `tar -c | zstd -3 -T2` of the bin/ folders,
# and `zstd -d | tar -x` into empty folders. Needs ~15 GB free in the work folder.
# --memory: only the cases of the memory goal, for a workspace made larger with --files (25000: 1,000,000 files):
# import, save from scratch, full restore into empty folders, exact restore, and one session of two exact restores.
set -euo pipefail
main() {
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
projects=40 files=5000 jar_mb=46 build=1 work=${BENCH_WORK:-/tmp/branchstate-scale} memory=0
while [ $# -gt 0 ]; do
	case $1 in
	--projects) projects=$2; shift ;;
	--files) files=$2; shift ;;
	--jar-mb) jar_mb=$2; shift ;;
	--no-build) build=0 ;;
	--work) work=$2; shift ;;
	--memory) memory=1 ;;
	*) echo "scale: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
cd "$root"
source releng/lib/ide.sh
if [ $build = 1 ]; then
	echo "== building the update site and the IDE"
	./mvnw -B -q -DskipTests verify
fi
rm -rf "$work"
mkdir -p "$work/logs"
echo "== installing Branchstate into a fresh IDE in $work"
install_ide "$work" dev.branchstate.feature.feature.group
store=$work/store ws=$work/workspace repo=$work/repo
printf 'dev.branchstate.core/storeLocation=%s\ndev.branchstate.core/diskBudgetMB=100000\ndev.branchstate.core/autoSwitch=false\n' \
	"$store" > "$work/customization.ini"
IDE_ARGS="-pluginCustomization $work/customization.ini"
jvm=${BENCH_JVM:--Xmx4g}

echo "== the pool: the JDK's classes and the local Maven repository's jars"
"$JAVA_HOME/bin/jimage" extract --dir "$work/pool" "$JAVA_HOME/lib/modules"
tree() { # tree <variant> <from>
	python3 "$root/releng/bench/scale/make_tree.py" --pool "$work/pool" --m2 "$HOME/.m2/repository" --out "$repo" \
		--projects "$projects" --files "$files" --jar-mb "$jar_mb" --variant "$1" --from "$2"
}
echo "== the repository: $projects projects, branches main, b1, b5, b30"
mkdir -p "$repo"
git init -q -b main "$repo"
git -C "$repo" config user.name "Branchstate bench" && git -C "$repo" config user.email "bench@branchstate.invalid"
printf 'bin/\n' > "$repo/.gitignore"
for ((p = 0; p < projects; p++)); do
	d=$(printf '%s/p%02d' "$repo" "$p")
	mkdir -p "$d/src"
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<projectDescription><name>%s</name><comment></comment><projects></projects><buildSpec></buildSpec><natures></natures></projectDescription>\n' \
		"$(basename "$d")" > "$d/.project"
	echo "main" > "$d/src/version.txt"
done
git -C "$repo" add -A && git -C "$repo" commit -q -m main
for v in 1 5 30; do
	git -C "$repo" checkout -q -b "b$v" main
	for ((p = 0; p < projects; p++)); do echo "b$v" > "$(printf '%s/p%02d' "$repo" "$p")/src/version.txt"; done
	git -C "$repo" commit -q -am "b$v"
done
git -C "$repo" checkout -q main
t=$(date +%s%N)
tree 0 -1
echo "   made in $(( ($(date +%s%N) - t) / 1000000 )) ms"
echo "   $(find "$repo" -path '*/bin/*' -type f | wc -l) derived files, $(du -sm --apparent-size "$repo" | cut -f1) MB"

rows=()
# session <case> <app arguments>: one IDE session, measured; sets $out (its output)
session() {
	local name=$1 log=$work/logs/$1.log t0 pid io="" stat="" hwm="" wall
	shift
	sync # no write-back of an earlier step's files (the tree just made, an archive) during this one
	t0=$(date +%s%N)
	java $jvm -Xlog:gc:file="$work/logs/$name.gc.log" -jar "$launcher" -nosplash -data "$ws" $IDE_ARGS \
		-application dev.branchstate.core.app "$@" > "$log" 2>&1 &
	pid=$!
	local now
	while kill -0 "$pid" 2>/dev/null; do # (the last samples that a process, not its zombie, gave)
		now=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
		[ -z "$now" ] || { hwm=$now; io=$(cat "/proc/$pid/io" 2>/dev/null || echo "$io"); stat=$(cat "/proc/$pid/stat" 2>/dev/null || echo "$stat"); }
		sleep 0.05
	done
	wait "$pid" || { cat "$log" >&2; echo "scale: the session of $name failed" >&2; exit 1; }
	wall=$(( ($(date +%s%N) - t0) / 1000000 ))
	local rchar wchar cpu own written
	rchar=$(awk '/^rchar/ {print $2}' <<<"$io")
	wchar=$(awk '/^wchar/ {print $2}' <<<"$io")
	cpu=$(awk '{ sub(/^.*\) /, ""); print ($12 + $13) * 10 }' <<<"$stat") # utime + stime: ticks of 10 ms
	own=$(grep -o -E ' ms=[0-9]+' "$log" | tail -1 | cut -d= -f2 || true)
	written=$(grep -o -E ' written=[0-9]+' "$log" | tail -1 | cut -d= -f2 || true)
	# the most the heap held after a collection: what was live then, and garbage the collection had left
	heap=$(grep -o -E -- '->[0-9]+M' "$work/logs/$name.gc.log" | tr -d '>M-' | sort -n | tail -1 || true)
	out=$(cat "$log")
	rows+=("$(printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |' "$name" "$wall" "$cpu" "$((rchar / 1048576))" "$((wchar / 1048576))" \
		"$((hwm / 1024))" "${own:--}" "${written:--}" "${heap:--}")")
	echo "   $name: wall ${wall} ms, CPU ${cpu} ms, read $((rchar / 1048576)) MB, written $((wchar / 1048576)) MB, peak RSS $((hwm / 1024)) MB, heap after GC ${heap:--} MB; Branchstate ${own:--} ms, ${written:--} files written"
}
# peer <case> <shell command>: the same data moved by tar and zstd
peer() {
	local name=$1 t
	shift
	sync
	t=$( { /usr/bin/time -f '%e %U %S %M' bash -c "$*" > /dev/null; } 2>&1 | tail -1)
	read -r e u s m <<<"$t"
	rows+=("$(printf '| %s | %.0f | %.0f | | | %s | | | |' "$name" "$(echo "$e * 1000" | bc)" "$(echo "($u + $s) * 1000" | bc)" "$((m / 1024))")")
	echo "   $name: wall ${e} s, CPU $(echo "$u + $s" | bc) s"
}
# warm <app arguments>: one IDE session of several restores; a row for each restore after the first, whose code is
# then loaded and compiled, as in an IDE that has been running (its wall, CPU and bytes are the session's, not shown)
warm() {
	local log=$work/logs/warm.log commit line previous
	java $jvm -jar "$launcher" -nosplash -data "$ws" $IDE_ARGS -application dev.branchstate.core.app "$@" > "$log" 2>&1 \
		|| { cat "$log" >&2; echo "scale: the warm session failed" >&2; exit 1; }
	previous=""
	while read -r line; do
		commit=$(awk '{print $2}' <<<"$line")
		if [ -n "$previous" ]; then
			local name="warm: restore $(branch_of "$commit") after $(branch_of "$previous")"
			[ "$commit" != "$previous" ] || name="warm: exact restore of $(branch_of "$commit")"
			local own written
			own=$(grep -o -E ' ms=[0-9]+' <<<"$line" | cut -d= -f2)
			written=$(grep -o -E ' written=[0-9]+' <<<"$line" | cut -d= -f2)
			rows+=("$(printf '| %s | | | | | | %s | %s | |' "$name" "$own" "$written")")
			echo "   $name: Branchstate $own ms, $written files written"
		fi
		previous=$commit
	done < <(grep '^restored ' "$log")
}
branch_of() { git -C "$repo" for-each-ref --points-at "$1" --format='%(refname:short)' refs/heads | head -1; }
bins() { (cd "$repo" && ls -d p*/bin); }
ws_state() { git -C "$repo" rev-parse "$1"; }

echo "== import (Eclipse refreshes every file)"
session import import "$repo" --derived=bin
echo "== save from scratch (main)"
session save-scratch save "$repo"
if [ $memory = 0 ]; then
echo "== differential saves: b1, b5, b30 (each from the tree of the branch before)"
prev=0
for v in 1 5 30; do
	git -C "$repo" checkout -q "b$v"
	tree "$v" "$prev"
	session "save-after-$v%" save "$repo"
	prev=$v
done
fi
echo "== restores (HEAD main)"
git -C "$repo" checkout -q main
rm -rf "$repo"/p*/bin
session "restore-full-into-empty" restore "$repo" main
session "restore-exact" restore "$repo" main
if [ $memory = 1 ]; then
	warm restore "$repo" main main
	finish
	return
fi
for v in 1 5 30; do
	session "restore-b$v-$v%-differ" restore "$repo" "b$v"
	session "restore-main-back-$v%-differ" restore "$repo" main
done
echo "== restores in one session (an IDE that has restored before)"
warm restore "$repo" main main b1 main b5 main b30 main
echo "== peer: tar | zstd of the same bin/ folders"
peer "peer: tar -c, zstd -3 -T2 (save)" "cd '$repo' && tar -cf - $(bins | tr '\n' ' ') | zstd -q -3 -T2 -o '$work/peer.tar.zst'"
# into the same bin/ folders, just emptied, as the full restore's were: where a new file's inode goes, and how many
# inodes deleted in the last minutes its allocation steps over (ext4 without a journal, this machine's: most of an
# extraction's system time then), depend on the folder it is made in; an extraction elsewhere measured 2x faster
rm -rf "$repo"/p*/bin
peer "peer: zstd -d, tar -x (into empty)" "zstd -q -d -c '$work/peer.tar.zst' | tar -xf - -C '$repo'"
finish
}
finish() { # the table
echo
echo "## scale: $projects projects, $(find "$repo" -path '*/bin/*' -type f | wc -l) derived files, $(du -sm --apparent-size "$repo" | cut -f1) MB; $(nproc) cores"
echo "| case | wall ms | CPU ms | read MB | written MB | peak RSS MB | Branchstate ms | files written | heap after GC MB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo "states: $(find "$store" -name '*.bsa' | wc -l) archives, $(du -sm "$store" | cut -f1) MB$([ ! -f "$work/peer.tar.zst" ] \
	|| echo "; peer archive $(du -sm "$work/peer.tar.zst" | cut -f1) MB")"
}
main "$@"

#!/usr/bin/env bash
# The main job (./launch demo): builds Branchstate, installs it, Branchstate for Java (the JDT feature) and its Java
# index (the examples feature) from its update site into a fresh copy of the user's IDE with the IDE's own p2
# director, makes a demo Git repository from real sources (two releases of Apache Commons Lang from Maven Central,
# committed as two branches of one Java project, plus a third branch with one more commit; bin/ is git-ignored and
# built by JDT in the installed IDE), runs Branchstate on it, checks that every restore brings back byte for byte
# what JDT built for that branch, reports how that compares with a clean JDT build of the same sources (JDT's own
# incremental build writes a few class files otherwise), and measures the end-to-end branch switch the way releng/bench/e2e does (cases
# a-d, one table). With a display (DISPLAY set by you, not by ./launch's Xvfb) the IDE then opens on the demo
# workspace, the Branch States view showing the states; without one the scenario runs headless and prints what
# happened.
#
# Options: --no-build (reuse the last build), --headless (never open the IDE), --rounds N (runs of each measured
# case, the median is reported; default 3).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
demo=$root/work/demo
build=1 headless=0 rounds=3
while [ $# -gt 0 ]; do
	case $1 in
	--no-build) build=0 ;;
	--headless) headless=1 ;;
	--rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "demo: --rounds needs a number" >&2; exit 2; }; rounds=$2; shift ;;
	*) echo "demo: unknown option $1 (use --no-build, --headless, --rounds N)" >&2; exit 2 ;;
	esac
	shift
done
# ./launch runs us under xvfb-run when the user has no display: that is the headless case.
[ -n "${BRANCHSTATE_USER_DISPLAY:-}" ] || headless=1

step() { printf '\n== %s\n' "$*"; }
fail() { echo "demo: $*" >&2; exit 1; }

cd "$root"
source releng/lib/ide.sh
if [ $build = 1 ]; then
	step "Building the update site and the IDE (tests skipped; ./launch ./mvnw verify runs them)"
	./mvnw -B -q -DskipTests verify
fi
step "Installing Branchstate, Branchstate for Java and the Java index into a fresh IDE with its p2 director"
rm -rf "$demo"
install_ide "$demo" dev.branchstate.feature.feature.group,dev.branchstate.jdt.feature.feature.group,dev.branchstate.examples.feature.feature.group

step "Making the demo repository from real sources (Apache Commons Lang 3.17.0 and 3.18.0)"
repo=$demo/commons-lang
mkdir -p "$demo/jars"
for v in 3.17.0 3.18.0; do
	for c in sources; do
		./mvnw -B -q dependency:copy -Dartifact="org.apache.commons:commons-lang3:$v:jar${c:+:$c}" \
			-DoutputDirectory="$demo/jars" -Dmdep.overWriteIfNewer=true
	done
done
git init -q -b release-3.17 "$repo"
git -C "$repo" config user.name "Branchstate demo"
git -C "$repo" config user.email "demo@branchstate.invalid"
printf 'bin/\n' > "$repo/.gitignore"
unpack_release() { # version: its sources into src/ (tracked) of the Java project; bin/ is JDT's
	find "$repo" -mindepth 1 -maxdepth 1 ! -name .git ! -name .gitignore ! -name bin -exec rm -rf {} +
	mkdir -p "$repo/src"
	unzip -q -o "$demo/jars/commons-lang3-$1-sources.jar" -d "$repo/src" -x 'META-INF/*' 'module-info.java'
	java_project "$repo" commons-lang
}
unpack_release 3.17.0
git -C "$repo" add -A
git -C "$repo" commit -q -m "Apache Commons Lang 3.17.0 sources"
git -C "$repo" checkout -q -b release-3.18
unpack_release 3.18.0
git -C "$repo" add -A
git -C "$repo" commit -q -m "Apache Commons Lang 3.18.0 sources"
# release-3.18-plus (B' below) = release-3.18 + one commit: a method appended to three classes
git -C "$repo" checkout -q -b release-3.18-plus
probe_commit "$repo" src
git -C "$repo" checkout -q release-3.17
git -C "$repo" diff --quiet HEAD || { echo "demo: the working tree of release-3.17 is not clean" >&2; exit 1; }
echo "$(git -C "$repo" ls-files | wc -l) tracked files, branches: $(git -C "$repo" branch --format='%(refname:short)' | tr '\n' ' ')"
echo "release-3.17 -> release-3.18 changes $(git -C "$repo" diff --name-only release-3.17 release-3.18 | wc -l) files," \
	"release-3.18 -> release-3.18-plus $(git -C "$repo" diff --name-only release-3.18 release-3.18-plus | wc -l)"

step "Branchstate in the installed IDE"
ws=$demo/workspace
# No preference to set: Branchstate for Java takes the output folder (bin/) from the project's classpath.
app status > "$demo/logs/status.log" || { cat "$demo/logs/status.log" >&2; fail "status found a problem"; }
grep -E '^(bundle|extension-point|contribution dev.branchstate.core.contributors)' "$demo/logs/status.log"
grep -q 'contribution dev.branchstate.core.contributors contributor dev.branchstate.javaindex from dev.branchstate.javaindex' \
	"$demo/logs/status.log" || fail "the Java index is not registered as a contributor"
grep -q 'contribution dev.branchstate.core.contributors contributor dev.branchstate.jdt.buildstate from dev.branchstate.jdt' \
	"$demo/logs/status.log" || fail "Branchstate for Java is not registered as a contributor"
app import "$repo"

expected_classes() { # branch: prints the output folder of a clean JDT build of that branch's tree
	local expected=$demo/clean/$1
	if [ ! -d "$expected/bin" ]; then
		rm -rf "$expected"
		mkdir -p "$expected"
		git -C "$repo" archive "$1" | tar -x -C "$expected"
		java_project "$expected" "clean-$1"
		git -C "$expected" init -q && git -C "$expected" add -A \
			&& git -C "$expected" -c user.name=demo -c user.email=demo@branchstate.invalid commit -q -m clean
		eclipse -data "$demo/ws-clean" -application dev.branchstate.core.app import "$expected" > /dev/null 2>&1 \
			&& eclipse -data "$demo/ws-clean" -application dev.branchstate.core.app save "$expected" \
				> "$demo/logs/clean-$1.log" 2>&1 || { cat "$demo/logs/clean-$1.log" >&2; fail "the clean build of $1 failed"; }
	fi
	echo "$expected/bin"
}
differing() { # branch: how many class files of bin/ differ from a clean JDT build of it (missing or extra included)
	local expected
	expected=$(expected_classes "$1")
	{ diff -r -q "$expected" "$repo/bin" || true; } | wc -l
}
against_clean() { # branch: says how bin/ compares with a clean JDT build of that branch
	local n
	n=$(differing "$1")
	if [ "$n" = 0 ]; then
		echo "bin/ is byte-identical to a clean JDT build of $1 ($(find "$repo/bin" -type f | wc -l) files)"
	else
		{ diff -r -q "$(expected_classes "$1")" "$repo/bin" || true; } > "$demo/logs/against-clean-$1.log"
		echo "bin/ differs from a clean JDT build of $1 in $n class file(s), as JDT's own incremental build wrote them" \
			"(logs/against-clean-$1.log)"
	fi
}
keep_built() { # branch: a copy of bin/ as JDT built it and the state of the branch holds it
	rm -rf "$demo/built/$1"
	mkdir -p "$demo/built"
	cp -a "$repo/bin" "$demo/built/$1"
	against_clean "$1"
}
expect_restored() { # branch: bin/ must be byte-identical to what JDT built for that branch and its state holds
	if diff -r -q "$demo/built/$1" "$repo/bin" >/dev/null; then
		echo "bin/ is byte-identical to the build of $1 that its state holds ($(find "$repo/bin" -type f | wc -l) files)"
	else
		echo "demo: bin/ differs from the build of $1 that its state holds:" >&2
		diff -r -q "$demo/built/$1" "$repo/bin" | head >&2
		exit 1
	fi
	against_clean "$1"
}
untouched() { git -C "$repo" diff --quiet HEAD && echo "Git-tracked files untouched (git diff is empty)" || fail "git diff is not empty"; }

step "On release-3.17: Save State builds the project with JDT first (and the Java index indexes it), then saves"
app save "$repo"
keep_built release-3.17

step "Terminal checkout of release-3.18; Save State: JDT builds what changed, then the state is saved too"
git -C "$repo" checkout -q release-3.18
app save "$repo"
keep_built release-3.18
app list "$repo"

step "In-IDE checkout (JGit) of release-3.17: the state of release-3.17 restored, JDT handed it: nothing to compile"
app switch "$repo" release-3.17 | grep -v '^result '
expect_restored release-3.17
untouched

step "In-IDE checkout (JGit) of release-3.18: the same the other way"
app switch "$repo" release-3.18 | grep -v '^result '
expect_restored release-3.18
untouched
app verify "$repo"

step "The switch release-3.17 -> release-3.18 measured four ways, as releng/bench/e2e does ($rounds rounds)"
index=$ws/.metadata/.plugins/dev.branchstate.javaindex/index
[ -d "$index" ] || fail "no Java index in $index"
measure() { # case letter, round, table label, branch measured, then the switch command's arguments after the repo
	local id=$1 round=$2 label=$3 branch=$4
	shift 4
	run_switch "$demo/logs/case-$id-$round.log" "$repo" "$@"
	record "$id" "| $label | $total_ms | $checkout_ms | $((total_ms - checkout_ms)) | $restored_files | $(mb "$restored_bytes") | $(written_since "$repo/bin") | $(written_since "$index") | $saved_files | $(mb "$saved_bytes") | $(differing "$branch") |"
}
to_317() { # with Branchstate: saves the state being left, restores the one of release-3.17
	app switch "$repo" release-3.17 > "$demo/logs/to-3.17.log" \
		|| { cat "$demo/logs/to-3.17.log" >&2; fail "switch to release-3.17 failed"; }
}
# Each run is one IDE session of switches A→B→A→B (the JVM warm, as in an IDE that has been running), the last one
# measured, from A with A's bin/ and index. b, c and d go back to A with Branchstate, so that the session knows the
# state of A it restored is stored; a warms up without Branchstate; d deletes the stored states before its first and
# its last switch, so that its session re-indexes (warms the parser) as a's does.
for round in $(seq 1 "$rounds"); do
	printf 'round %s:' "$round"
	to_317
	measure a "$round" "a) A→B, Branchstate off (JDT and the index build what changed)" release-3.18 \
		--without-branchstate release-3.18 release-3.17 release-3.18
	to_317
	measure b "$round" "b) A→B, exact state of B restored and handed to JDT" release-3.18 \
		release-3.18 release-3.17 release-3.18
	to_317
	measure c "$round" "c) A→B' (B + 1 commit): state of B + replay of 3 files" release-3.18-plus \
		release-3.18-plus release-3.17 release-3.18-plus
	to_317
	measure d "$round" "d) A→B, no state of A or B (A saved on the way)" release-3.18 \
		--delete-states release-3.18 release-3.17 --delete-states release-3.18
	[ "$(grep '^result ' "$demo/logs/case-d-$round.log" | tail -1 | sed -E 's/.* saved_files=([0-9]+).*/\1/')" -gt 0 ] \
		|| fail "case d saved no state of release-3.17 (log: $demo/logs/case-d-$round.log)"
	echo
done
app save "$repo" > "$demo/logs/save-3.18.log"
untouched

declare -A wall
echo
[ "$rounds" = 1 ] && echo "One run per case." || echo "Median of $rounds runs per case (the row is the median run)."
echo
echo "| case | wall ms | checkout ms | after checkout ms | files restored | MB restored | bin/ files rewritten | index files rewritten | files saved | MB saved | class files ≠ clean build |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for id in a b c d; do
	line=$(median $id)
	wall[$id]=${line%%	*}
	echo "${line#*	}"
done
echo
echo "a/b = $(ratio "${wall[a]}" "${wall[b]}"), a/c = $(ratio "${wall[a]}" "${wall[c]}"), d/a = $(ratio "${wall[d]}" "${wall[a]}")"
echo "Wall time: from the checkout until the switch is handled, the project refreshed and built and the Java index idle;"
echo "each run is the last of three switches A→B→A→B in one session (warm JVM; d deletes the stored states before its"
echo "first and last switch). The states hold bin/ (built by JDT), JDT's builder state, the markers and the Java"
echo "index. Last column: class files of bin/ that differ from a clean JDT build of the branch. JDT's own incremental"
echo "build (case a, and any state saved from its output) leaves a few that a full build writes otherwise (generic"
echo "Signature attributes, e.g. concurrent/EventCountCircuitBreaker.class); the restores before the table are checked"
echo "byte for byte against what JDT built."
echo "Logs: ${demo#$root/}/logs/"
echo
app list "$repo" | tail -1
app verify "$repo" | tail -1

if [ $headless = 0 ]; then
	step "Opening the IDE on the demo workspace: the Branch States view lists the states (close the IDE to end the demo)"
	DISPLAY=$BRANCHSTATE_USER_DISPLAY eclipse -data "$ws"
fi

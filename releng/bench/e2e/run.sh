#!/usr/bin/env bash
# End-to-end branch-switch benchmark on real JDT builds (issue 10). Run it through the launcher, which picks a JDK 21+:
#
#   ./launch releng/bench/e2e/run.sh [--small | --plugins] [--no-build] [--rounds N] [--report]
#
# --small: guava only; --plugins: a committer's workspace instead, 40 Eclipse plug-in projects in the committers' IDE
# (plugins.sh); --rounds: IDE sessions per case, the median is reported (default 3); --no-build: reuse the built
# update site and IDE; --report: only print the table again from the logs of the last run.
# BENCH_WORK=/path (default /tmp/branchstate-e2e-jdt, with --plugins /tmp/branchstate-e2e-pde).
#
# 1. Installs Branchstate and Branchstate for Java from the built update site into a fresh copy of the IDE product
#    with its p2 director (as the demo does).
# 2. Builds a Git repository of three Java projects from real sources on Maven Central: guava, JGit and JDT Core,
#    the older release of each on branch A, the newer on B, B2 = B + one commit appending a method to three classes.
#    Each project's .classpath holds the JRE container and the jars its newer release depends on (Maven Central,
#    resolved with the Maven wrapper), the same on every branch; bin/ is git-ignored and built by JDT.
# 3. In the installed IDE (headless, JDT's builder trace on to count the units it compiles), imports the projects,
#    Save State on A and on B (JDT builds each first), then measures the switch A→B, one IDE session a run, from A:
#    a) Branchstate off: JDT builds what the checkout changed; b) the exact state of B restored and handed to JDT;
#    c) A→B2: the state of B (nearest ancestor) restored, JDT compiles what differs; d) no state stored (A saved on
#    the way); e) for reference, a clean full build of B (Project › Clean…). Prints the table and the ratios.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
small=0 plugins=0 build=1 rounds=3 report=0
while [ $# -gt 0 ]; do
	case $1 in
	--small) small=1 ;;
	--plugins) plugins=1 ;;
	--no-build) build=0 ;;
	--rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "bench: --rounds needs a number" >&2; exit 2; }; rounds=$2; shift ;;
	--report) report=1 ;;
	*) echo "usage: $0 [--small | --plugins] [--no-build] [--rounds N] [--report]" >&2; exit 2 ;;
	esac
	shift
done
work=${BENCH_WORK:-/tmp/branchstate-e2e-$([ $plugins = 1 ] && echo pde || echo jdt)}
step() { printf '\n== %s\n' "$*"; }
fail() { echo "bench: $*" >&2; exit 1; }
cd "$root"
source releng/lib/ide.sh
source releng/bench/e2e/plugins.sh

# project name, groupId:artifactId, release on A, release on B
libs=("guava com.google.guava:guava 33.3.1-jre 33.4.0-jre")
if [ $small = 0 ]; then
	libs+=("jgit org.eclipse.jgit:org.eclipse.jgit 7.1.0.202411261347-r 7.2.0.202503040940-r"
		"jdtcore org.eclipse.jdt:org.eclipse.jdt.core 3.46.0 3.47.0")
fi

run_cases() {
	if [ $build = 1 ]; then
		step "Building the update site and the IDE (tests skipped)"
		./mvnw -B -q -DskipTests verify
	fi
	step "Installing Branchstate and Branchstate for Java into a fresh IDE$([ $plugins = 0 ] || echo " (the committers' IDE: with PDE)")"
	rm -rf "$work/workspace" "$work/repo" "$work/logs" "$work/result.md"
	install_ide "$work" dev.branchstate.feature.feature.group,dev.branchstate.jdt.feature.feature.group \
		"$([ $plugins = 0 ] && echo dev.branchstate.ide || echo dev.branchstate.ide.pde)"
	repo=$work/repo
	git init -q -b A "$repo"
	git -C "$repo" config user.name bench
	git -C "$repo" config user.email bench@branchstate.invalid
	git -C "$repo" config core.autocrlf false
	if [ $plugins = 1 ]; then
		make_plugin_repository
	else
		make_library_repository
	fi
	git -C "$repo" checkout -q A
	echo "$(git -C "$repo" ls-files | wc -l) tracked files on A ($(git -C "$repo" ls-files '*.java' | wc -l) Java), on B" \
		"$(git -C "$repo" ls-tree -r --name-only B | wc -l) ($(git -C "$repo" ls-tree -r --name-only B | grep -c '\.java$')" \
		"Java); A→B changes $(git -C "$repo" diff --name-only A B | wc -l) files, B→B2 $(git -C "$repo" diff --name-only B B2 | wc -l)"

	step "Importing; Save State on A and on B (JDT builds each first)"
	ws=$work/workspace
	# JDT's builder trace (one "About to compile" line per unit it compiles), the platform's (the time of each
	# builder run) and Branchstate's timing (where each switch's, restore's and save's time went), with timestamps,
	# in the workspace's .metadata/trace.log
	cat > "$work/jdt.options" <<-EOO
	org.eclipse.jdt.core/debug=true
	org.eclipse.jdt.core/debug/builder=true
	org.eclipse.core.resources/debug=true
	org.eclipse.core.resources/build/invoking=true
	dev.branchstate.core/debug=true
	dev.branchstate.core/debug/timing=true
	dev.branchstate.core/debug/build=true
	EOO
	IDE_ARGS="-debug $work/jdt.options"
	IDE_JVM=${BENCH_JVM:--Xmx3g}
	if [ $plugins = 1 ]; then
		# the IDE's JDK only (as the plug-in run: no search for other JVMs at each start)
		echo 'org.eclipse.jdt.launching/detectVMsAtStartup=false' > "$work/customization.ini"
		IDE_ARGS+=" -pluginCustomization $work/customization.ini"
		IDE_JVM="${BENCH_JVM:--Xmx4g} -Declipse.trace.size.max=100000" # (KB: the trace file is not rolled over)
	fi
	app import "$repo" > "$work/logs/import.log" || { cat "$work/logs/import.log" >&2; fail "import failed"; }
	start=$(date +%s%N)
	app save "$repo" > "$work/logs/save-A.log" || { cat "$work/logs/save-A.log" >&2; fail "Save State on A failed"; }
	echo "A: built in full by JDT$([ $plugins = 0 ] || echo " and PDE") and saved in $(( ($(date +%s%N) - start) / 1000000 )) ms (a fresh IDE process)"
	git -C "$repo" checkout -q B
	app save "$repo" > "$work/logs/save-B.log" || { cat "$work/logs/save-B.log" >&2; fail "Save State on B failed"; }
	app list "$repo" | tail -3
	cat "$ws"/.metadata/trace.log* > "$work/logs/import-and-saves.trace" 2>/dev/null || true
	rm -f "$ws"/.metadata/trace.log*

	measure() { # case letter, round, then the switch command's arguments after the repository: one logged IDE session
		local id=$1 round=$2
		shift 2
		run_switch "$work/logs/case-$id-$round.log" "$repo" "$@"
		# the trace file and its backups (the platform rolls it over at 1 MB by default; builders() picks by time)
		cat "$ws"/.metadata/trace.log* > "$work/logs/case-$id-$round.trace" 2>/dev/null || true
		rm -f "$ws"/.metadata/trace.log*
		outputs > "$work/logs/case-$id-$round.outputs"
		printf ' %s %s ms' "$id" "$total_ms"
	}
	step "The switch A → B measured five ways ($rounds IDE sessions each)"
	# Each run is one IDE session that first switches to A with Branchstate (a restore: the JVM, JDT and Branchstate
	# warm, A's output and JDT state on disk), then makes the measured switch.
	for round in $(seq 1 "$rounds"); do
		printf 'round %s:' "$round"
		measure a "$round" --with-branchstate A --without-branchstate B
		measure b "$round" A B
		measure c "$round" A B2
		measure d "$round" A --delete-states B
		measure e "$round" A B --clean-build
		echo
	done
	save_ahead_cost
}

# save_ahead_cost: what one background save ahead costs after a typical edit. A method appended to one class of B,
# the build, then the save the IDE's save ahead makes (the same operation: a differential save of the whole state,
# the unchanged entries shared with the previous archive): its time and the bytes of the archive it writes.
save_ahead_cost() {
	step "What one save ahead costs: a method appended to one class of B, built, then saved (the IDE saves ahead so once a quiet minute at most)"
	local file line archive finals
	git -C "$repo" checkout -q B
	app save "$repo" > "$work/logs/save-ahead-base.log" || { cat "$work/logs/save-ahead-base.log" >&2; fail "saving B failed"; }
	# (a process substitution: grep finds nothing in some of xargs' batches, which a pipeline would take for a failure)
	mapfile -t finals < <(cd "$repo" && git ls-files '*.java' | xargs grep -l -E '^public final class ' | sort)
	file=${finals[0]:?no final class in the repository}
	awk '{ line[NR] = $0 } /}/ { last = NR }
		END { for (i = 1; i <= NR; i++) {
			if (i == last) { match(line[i], /}[^}]*$/)
				line[i] = substr(line[i], 1, RSTART - 1) "    private static int branchstateEdit() { return 7; }\n" substr(line[i], RSTART) }
			print line[i] } }' "$repo/$file" > "$repo/$file.new" && mv "$repo/$file.new" "$repo/$file"
	app build "$repo" > "$work/logs/save-ahead-build.log" || { cat "$work/logs/save-ahead-build.log" >&2; fail "the build failed"; }
	app save "$repo" > "$work/logs/save-ahead.log" || { cat "$work/logs/save-ahead.log" >&2; fail "the save failed"; }
	git -C "$repo" checkout -q -- .
	line=$(grep '^saved ' "$work/logs/save-ahead.log" | tail -1)
	archive=$(sed -n 's/.* archive=\([^ ]*\) .*/\1/p' <<<"$line")
	echo "one save ahead after editing $file: ${line##*ms=} ms; archive written $(mb "$(stat -c %s "$archive")") MB" \
		"(state $(mb "$(sed -n 's/.* data=\([0-9]*\) .*/\1/p' <<<"$line")") MB, its unchanged entries shared)" | tee "$work/save-ahead.txt"
}

# outputs: the SHA-1 of every file in the projects' output folders (bin/), sorted by path
outputs() { (cd "$repo" && find . -path '*/bin/*' -type f -print0 | sort -z | xargs -0 -r sha1sum); }

# make_plugin_repository: 40 plug-in projects of Eclipse bundles, A and B two releases (plugins.sh); B2 = B + a
# method appended to one class in three of them
make_plugin_repository() {
	step "Making the repository: ${#plugin_bundles[@]} Eclipse bundles as plug-in projects, each bundle's previous release on A, the IDE's on B"
	fetch_plugin_jars "$work/jars" || fail "the bundles' jars could not be resolved"
	commit_plugins "$repo" "$work/jars" A
	git -C "$repo" checkout -q -b B
	commit_plugins "$repo" "$work/jars" B
	git -C "$repo" checkout -q -b B2
	probe_commit "$repo" org.eclipse.ui.workbench org.eclipse.jdt.core org.eclipse.jface
}

# make_library_repository: the libraries' sources as Java projects, the older release on A, the newer on B; B2 = B +
# a method appended to a class of each
make_library_repository() {
	step "Making the repository: $(for l in "${libs[@]}"; do read -r n _ a b <<<"$l"; printf '%s %s → %s; ' "$n" "$a" "$b"; done)"
	mkdir -p "$work/jars" "$work/deps"
	declare -A classpath # project name -> its library jars
	for lib in "${libs[@]}"; do
		read -r name ga a b <<<"$lib"
		for v in "$a" "$b"; do
			./mvnw -B -q dependency:copy -Dartifact="$ga:$v:jar:sources" -DoutputDirectory="$work/jars" -Dmdep.overWriteReleases=false
		done
		# the libraries the newer release depends on (compile and runtime scope), resolved by Maven
		deps=$work/deps/$name
		mkdir -p "$deps"
		cat > "$deps/pom.xml" <<-EOP
		<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
		<groupId>bench</groupId><artifactId>$name-deps</artifactId><version>1</version>
		<dependencies><dependency><groupId>${ga%%:*}</groupId><artifactId>${ga#*:}</artifactId><version>$b</version></dependency></dependencies></project>
		EOP
		./mvnw -B -q -f "$deps/pom.xml" dependency:copy-dependencies -DoutputDirectory="$deps/jars" -DexcludeArtifactIds="${ga#*:}" \
			-DincludeScope=runtime > "$deps/resolve.log" 2>&1 || { cat "$deps/resolve.log" >&2; fail "resolving the libraries of $ga:$b failed"; }
		classpath[$name]=$(find "$deps/jars" -name '*.jar' | sort | tr '\n' ' ')
	done
	commit_release() { # branch (A or B): the sources of that release of every library, committed
		local lib name ga a b v
		for lib in "${libs[@]}"; do
			read -r name ga a b <<<"$lib"
			v=$a; [ "$1" = B ] && v=$b
			rm -rf "$repo/$name/src"
			mkdir -p "$repo/$name/src"
			unzip -q -o "$work/jars/${ga#*:}-$v-sources.jar" -d "$repo/$name/src" -x 'META-INF/*' '*module-info.java'
			# shellcheck disable=SC2086 # the jars, one argument each
			java_project "$repo/$name" "$name" ${classpath[$name]}
			printf 'bin/\n' > "$repo/$name/.gitignore"
		done
		git -C "$repo" add -A
		git -C "$repo" commit -q -m "$1"
	}
	commit_release A
	git -C "$repo" checkout -q -b B
	commit_release B
	git -C "$repo" checkout -q -b B2
	probe_commit "$repo" $(for lib in "${libs[@]}"; do read -r name _ <<<"$lib"; echo "$name"; done)
}

label() { # case letter: its row's label
	case $1 in
	a) echo "a) A→B, Branchstate off: JDT builds the change" ;;
	b) echo "b) A→B, exact state of B restored, handed to JDT" ;;
	c) echo "c) A→B2 (B + 1 commit): state of B + what differs" ;;
	d) echo "d) A→B, no state stored (A saved on the way)" ;;
	e) echo "e) clean full build of B, for reference" ;;
	esac
}
after_checkout() { # log: the lines of the measured switch (from its checkout; the clean build's from the session's last)
	awk '/^checkout / { n = 0; delete line } { line[++n] = $0 } END { for (i = 1; i <= n; i++) print line[i] }' "$1"
}
compiled() { # log: units JDT compiled in the measured switch, from its builder trace: the changed and added sources of
	# an incremental build and the dependents it adds in each round; a full build (FULL build) compiles every source
	# with several projects built in full (the plug-in workspace), the units of the incremental builds and the number
	# of projects built in full
	after_checkout "$1" | awk -v all="$sources" -v many="$plugins" '/^FULL build/ { n = all; full++ }
		/^Compile this (changed|added) source file|^  adding affected source file/ { n++; units++ }
		END { if (many == 1 && full > 0) print units + 0 " + " full " projects in full"; else print n + 0 }'
}
report() { # the table of the rounds' logs
	local id round log
	sources=$(git -C "$repo" ls-files '*.java' | wc -l)
	for round in $(seq 1 "$rounds"); do
		for id in a b c d e; do
			log=$work/logs/case-$id-$round.log
			[ -f "$log" ] || fail "no log $log: run the benchmark first"
			read_result "$log"
			local jdt_wrote=— restore_wrote=— # a full build does not trace its writes; e restores nothing it measures
			if [ $id != e ]; then
				jdt_wrote=$(after_checkout "$log" | grep -c -E '^Writing (changed|new) class file' || true)
				restore_wrote=$(after_checkout "$log" | sed -n -E 's/^restored .*\(([0-9]+) files written.*/\1/p' | tail -1)
			fi
			record "$id" "| $(label $id) | $total_ms | $((checkout_ms + handled_ms + build_ms)) | $checkout_ms | $((total_ms - checkout_ms)) | $handled_ms | $build_ms | $(compiled "$log") | $jdt_wrote | ${restore_wrote:-0} | $restored_files | $(mb "$restored_bytes") | $saved_files | $(mb "$saved_bytes") |" > /dev/null
		done
	done
	report_table
}

declare -A wall built after
report_table() {
	echo
	echo "Median of $rounds IDE sessions per case (the row is the median run); $(nproc) cores; JDK $(java -version 2>&1 | head -1)."
	echo
	echo "| case | wall ms | until built ms | checkout ms | after checkout ms | switch handled ms | build ms | units compiled by JDT | class files JDT wrote | files the restore wrote | files in the state | MB in the state | files saved | MB saved |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for id in a b c d e; do
		line=$(median $id)
		wall[$id]=${line%%	*}
		row=${line#*	}
		built[$id]=$(cut -d'|' -f4 <<<"$row" | tr -d ' ')
		after[$id]=$(cut -d'|' -f6 <<<"$row" | tr -d ' ')
		echo "$row"
	done
	echo
	for kind in wall built after; do
		declare -n t=$kind
		printf '%s: a/b = %s, a/c = %s, d/a = %s\n' "$(case $kind in wall) echo "On wall time" ;; built) echo "Until built" ;;
			after) echo "On wall time after the checkout" ;; esac)" "$(ratio "${t[a]}" "${t[b]}")" "$(ratio "${t[a]}" "${t[c]}")" \
			"$(ratio "${t[d]}" "${t[a]}")"
	done
	echo "Wall: from the JGit checkout until the switch is handled, the projects refreshed and built by JDT and the"
	echo "background jobs done — JDT's indexer (Java indexing) included (e: the clean and full build only). Until built:"
	echo "checkout, switch handled (save, restore), refresh and build. Units compiled: JDT's builder trace in the session."
	echo "Logs: $work/logs/"
	builder_costs
	same_outputs
}

# builders <trace> <from epoch ms>: "<builder> <ms> <runs>" per builder that ran since then, from the platform's
# build trace ("Builder finished: JavaBuilder(project; []) time: 361ms")
builders() {
	local from
	from="$(date -d "@$(($2 / 1000))" '+%Y-%m-%d %H:%M:%S').$(printf '%03d' $(($2 % 1000)))"
	[ -f "$1" ] || return 0
	awk -F' [|] ' -v from="$from" '$2 >= from && /Builder finished: / {
			match($0, /Builder finished: [A-Za-z]+/); name = substr($0, RSTART + 18, RLENGTH - 18)
			match($0, /time: [0-9]+ms/); ms[name] += substr($0, RSTART + 6, RLENGTH - 8); runs[name]++ }
		END { for (n in ms) print n, ms[n], runs[n] }' "$1" | sort
}

# builder_costs: per case, the time each builder took in the measured switch of the median run (from its checkout on)
builder_costs() {
	local id round log names=() name line
	declare -A cost
	for id in a b c d e; do
		for round in $(seq 1 "$rounds"); do
			log=$work/logs/case-$id-$round.log
			read_result "$log"
			[ "$total_ms" = "${wall[$id]}" ] || continue
			while read -r name ms n; do
				cost[$id.$name]="$ms ms ($n runs)"
				[[ " ${names[*]} " == *" $name "* ]] || names+=("$name")
			done < <(builders "$work/logs/case-$id-$round.trace" "$started_ms")
			break
		done
	done
	[ ${#names[@]} -gt 0 ] || return 0
	echo
	echo "What each builder took in the measured switch (the median run; from the platform's build trace):"
	echo
	line="| case |"; for name in "${names[@]}"; do line+=" $name |"; done; echo "$line"
	line="|---|"; for name in "${names[@]}"; do line+="---:|"; done; echo "$line"
	for id in a b c d e; do
		line="| $(label $id) |"; for name in "${names[@]}"; do line+=" ${cost[$id.$name]:-—} |"; done; echo "$line"
	done
}

# differing_files <list> <list>: how many paths differ (content, or present in one list only) between two lists of
# "<sha1>  <path>" lines
differing_files() {
	{ diff "$1" "$2" || true; } | { grep '^[<>]' || true; } | awk '{print $3}' | sort -u | wc -l
}

# same_outputs: in each round, the output folders after b (the exact state of B restored, then JDT's build) against
# those after e (a clean full build of B), file by file. Where they differ, b is compared with a too (JDT's own
# incremental build of B, without Branchstate): JDT's incremental build writes a few class files otherwise than a
# full build (attributes such as generic signatures), and a state saved from it holds them as JDT wrote them.
same_outputs() {
	local round differ own
	echo
	for round in $(seq 1 "$rounds"); do
		[ -f "$work/logs/case-b-$round.outputs" ] && [ -f "$work/logs/case-e-$round.outputs" ] || continue
		differ=$(differing_files "$work/logs/case-b-$round.outputs" "$work/logs/case-e-$round.outputs")
		if [ "$differ" = 0 ]; then
			echo "Round $round: the output folders after b equal those of e's clean full build ($(wc -l < "$work/logs/case-b-$round.outputs") files)."
		elif [ -f "$work/logs/case-a-$round.outputs" ] \
			&& own=$(differing_files "$work/logs/case-b-$round.outputs" "$work/logs/case-a-$round.outputs") \
			&& [ "$own" = 0 ]; then
			echo "Round $round: the output folders after b equal those of JDT's own incremental build (a), file for file;"
			echo "  both differ from e's clean full build in $differ class file(s) that JDT's incremental build writes otherwise"
			echo "  (logs/case-[abe]-$round.outputs)."
		else
			echo "Round $round: DIVERGENCE — $differ file(s) differ between b and e's clean build, and b differs from a too (logs/case-[abe]-$round.outputs)."
		fi
	done
}

main() {
	repo=$work/repo
	[ $report = 1 ] || run_cases
	report | tee "$work/result.md"
}
# on one line: bash has read all of it before it runs, so the script may be edited while it runs
main "$@"; exit

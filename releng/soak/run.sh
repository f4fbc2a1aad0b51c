#!/usr/bin/env bash
# Differential-correctness soak (issues 12 and 34): seeded random steps of real Git work on three real Java projects
# with project references (Commons Lang and two that read it) and a pair of plug-in projects (see "the repository"
# below) built by JDT and PDE in the committers' IDE with Branchstate, Branchstate for Java and the Java index
# installed from the update site; after every step
# the workspace's derived data (the output folder byte for byte, the problem markers, the Java index's dump) must
# equal a clean JDT build and a fresh index of the same working tree: JDT's batch compiler and the index's own parser in
# a plain JVM (SoakReference.java; --reference ide: an import and a build in a second workspace of the IDE;
# --check-reference: both, and they must be equal). Stops at the first divergence, printing the seed, the step and
# what differs; the summary says per step kind where the seconds went.
#
#   ./launch releng/soak/run.sh --steps N --seed S [--no-build] [--dir /tmp/soak-S] [--require-each]
#       [--reference batch|ide] [--check-reference] [--restart-every N] [--kinds k1,k2,...] [--each-kind]
#
# --require-each: fail unless the run killed the IDE, damaged an archive and filled the disk at least once each (the
# short run of the test command, tests/dev.branchstate.soak); the last steps of the run are the kinds still missing.
# --each-kind: the first steps take every step kind once and the first edits every kind of edit once (the test
# command's runs). --kinds: only these step kinds (a replay, a run aimed at some kinds). A command the IDE does not
# answer within SOAK_COMMAND_TIMEOUT seconds (default 600) stops the run as a hang, with the IDE's threads in the logs.
#
# The IDE is one long-lived session (the headless application's serve mode, driven through named pipes: see "The IDE
# session" below), started again after kills, for terminal checkouts made while it is closed and every
# --restart-every'th step (default 10).
# Steps: in-IDE checkout (headless switch, JGit), terminal checkout (git CLI, noticed by the running session's HEAD
# watch, or by the next start when the IDE is closed),
# new branch, a commit of an edit (add a method, add a file, delete an unreferenced file, change a method body, change
# a constant another project inlines, rename an upstream API method and back: breaks and fixes the downstream project,
# a library and a source folder off and on the build path in .classpath, a compiler setting in .settings, move a
# package, rename a file; in the plug-in pair a manifest change and a constant read through "Plug-in Dependencies"),
# an uncommitted edit, reset --hard, stash and pop, a fast-forward pull from a second clone,
# rebase, merge (fast-forward or a merge commit), cherry-pick and revert (each clean, or with conflicts resolved or
# aborted), bisect (start, verdicts, each checkout checked, reset), git worktree add (a commit and a checkout in the
# second work tree), git clean -fdx under the IDE (then Project > Clean), a state CI publishes to a remote store (S3Proxy)
# that the developer's merge fetches (a third of the time tampered with: it must be refused), Save State,
# Restore State of another stored commit, delete a stored state, damage a stored archive (flip bytes in the middle
# or truncate: verify must name it, the next restore must refuse it), kill -9 of the IDE during a switch, a save or
# a build (then start again), automatic switching off and on, a full disk during a save
# (the store is a 256 MB tmpfs the driver mounts; the step fills it up to a few hundred kB first: needs root).
# Invariants per step: Git's view of the work tree is exactly the driver's own edits (no tracked file written by
# Branchstate), verify finds every archive sound (except the one the driver damaged), the archives fit the disk
# budget (4 MiB: about three states of the three projects, so saves evict all along), no file under the store's
# states/ that the catalog does not name once the IDE sessions are over (after a kill: once it started again).
set -euo pipefail
main() {
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
steps=20 seed=1 build=1 dir= require_each=0 reference=batch restart_every=25 only_kinds= each_kind=0
while [ $# -gt 0 ]; do
	case $1 in
	--restart-every) restart_every=$2; shift ;;
	--kinds) only_kinds=$2; shift ;;
	--each-kind) each_kind=1 ;;
	--steps) steps=$2; shift ;;
	--seed) seed=$2; shift ;;
	--no-build) build=0 ;;
	--dir) dir=$2; shift ;;
	--require-each) require_each=1 ;;
	--reference) reference=$2; shift ;;
	--check-reference) reference=both ;;
	*) echo "soak: unknown option $1 (use --steps N, --seed S, --no-build, --dir D, --require-each, --reference batch|ide, --check-reference, --restart-every N, --kinds k1,k2,..., --each-kind)" >&2; exit 2 ;;
	esac
	shift
done
[[ $steps =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ && $restart_every =~ ^[1-9][0-9]*$ ]] || { echo "soak: --steps, --seed and --restart-every need numbers" >&2; exit 2; }
[[ $reference =~ ^(batch|ide|both)$ ]] || { echo "soak: --reference batch or ide" >&2; exit 2; }
dir=${dir:-/tmp/soak-$seed}
RANDOM=$seed # bash's generator: the same seed gives the same steps (as long as the outcomes are the same)

cd "$root"
source releng/lib/ide.sh
t_start=$(date +%s)
n_published=0 n_tampered=0 n_remote_restored=0 n_remote_refused=0 n_fetch_refused=0 # the remote step: states CI
# published, objects tampered with, published states in the local store after the merge, tampered archives refused by
# the switch or the prefetch, by the fetch asked for
n_kills=0 n_kill_attempts=0 n_damaged=0 n_full=0 n_divergences=0 n_tracked=0 n_leftovers=0 n_refused=0 n_clean=0 n_jdt=0 n_unbuilt=0 n_imports=0 n_projects_removed=0 n_import_removed=0
n_reference_checked=0 # clean references made both ways and found equal (--check-reference)
n_unread=0 # damage the restore did not need: not read, the restore went on
# the Java index's dumps of the steps' last sessions: compared, or not compared and why
n_dump_compared=0 n_dump_killed=0 n_dump_tree_changed=0 n_dump_no_session=0 n_dump_live=0
step_sessions=0 # the IDE sessions since the check's own
declare -A kill_points # where the kills landed: during the work, after it before the dump, during the dump, after it
step_no=0 step_name=setup n_terminal=0
logs=$dir/logs
say() { printf '%s\n' "$*"; }
# Where the seconds go, per step kind (the step function that ran: a step may fall back on another kind): the step's
# wall time (its Git work, its IDE sessions and the check after it), the IDE sessions started (the step's, the check's,
# the clean reference's) and their seconds. Times in microseconds ($EPOCHREALTIME), printed by the summary.
declare -A kind_n kind_us kind_ide_n kind_ide_us kind_clean_us
# the check's phases: their seconds over the run (a session start in a phase counts in it), in the order they run
check_phases=(build import dump clean_reference compare store)
declare -A phase_us
# check_phase <name>: the check's phase <name>, started at $phase_t, ended now (the next one starts)
check_phase() { local t; t=$(now_us); phase_us[$1]=$(( ${phase_us[$1]:-0} + t - phase_t )); phase_t=$t; }
ide_n=0 ide_us=0 clean_us=0 # of the step under way
now_us() { local t=$EPOCHREALTIME; echo $(( 10#${t/[.,]/} )); }
announce() { step_kind=${1:-${FUNCNAME[1]#step_}}; say "$step_no: $step_name"; } # [<kind>: the caller's by default]
# ide_started <start µs>: one more IDE session of the step under way, started at the given time and ended now
ide_started() { ide_n=$((ide_n + 1)); ide_us=$((ide_us + $(now_us) - $1)); }
timing_table() {
	local k
	printf '   %-18s %5s %8s %11s %10s %10s %9s\n' kind count mean_s ide_starts ide_s clean_ref_s other_s
	for k in "${!kind_n[@]}"; do
		awk -v k="$k" -v n="${kind_n[$k]}" -v t="${kind_us[$k]}" -v in_="${kind_ide_n[$k]}" -v iu="${kind_ide_us[$k]}" -v cu="${kind_clean_us[$k]}" \
			'BEGIN { printf "   %-18s %5d %8.1f %11.1f %10.1f %10.1f %9.1f\n", k, n, t / n / 1e6, in_ / n, iu / n / 1e6, cu / n / 1e6, (t - iu - cu) / n / 1e6 }'
	done | sort
	local n=0 t=0
	for k in "${!kind_n[@]}"; do n=$((n + kind_n[$k])); t=$((t + kind_us[$k])); done
	[ $n = 0 ] || awk -v n=$n -v t=$t 'BEGIN { printf "   %-18s %5d %8.1f\n", "all steps", n, t / n / 1e6 }'
	[ $n = 0 ] || for k in "${check_phases[@]}"; do printf '%s %s\n' "$k" "${phase_us[$k]:-0}"; done \
		| awk -v n=$((n + 1)) '{ line = line sprintf(" %s %.2f,", $1, $2 / n / 1e6); t += $2 } END { sub(/,$/, "", line)
			printf "   the check (in the steps above; mean s over %d checks):%s; %.2f in all\n", n, line, t / n / 1e6 }'
}
summary() {
	echo
	echo "== soak seed=$seed steps=$step_no/$steps kills=$n_kills (of $n_kill_attempts attempts) damaged=$n_damaged" \
		"(refused restores $n_refused) full_disks=$n_full divergences=$n_divergences tracked_written=$n_tracked" \
		"leftovers=$n_leftovers clean_builds=$n_clean ($reference, $n_reference_checked checked equal to an IDE clean build) jdt_failures=$n_jdt unbuildable_checks=$n_unbuilt project_imports=$n_imports project_removals=$n_projects_removed (closed ones removed by the import: $n_import_removed) wall=$(( $(date +%s) - t_start ))s"
	echo "   damage: $n_refused restores refused or not made, $n_unread that did not need the damaged entry (not read);" \
		"step sessions' index dumps at exit: $n_dump_compared compared, not compared: $n_dump_killed killed, $n_dump_tree_changed tree changed since;" \
		"the step's commands in the check's running session (its dump): $n_dump_live; no IDE command in the step: $n_dump_no_session"
	echo "   remote: $n_published states published by CI, $n_tampered of them tampered with: $n_remote_refused refused by the" \
		"switch or the prefetch, $n_fetch_refused by the fetch asked for (each naming the archive and its digest); of the" \
		"others, $n_remote_restored in the local store after the merge (fetched by the switch or prefetched)"
	echo "   IDE sessions: $n_sessions started ($n_restarts deliberate restarts, $n_kills after kills, the others after a terminal checkout while the IDE was closed or at the start)," \
		"$(awk -v n=$n_sessions -v t=$start_us 'BEGIN { printf "%.1f", n ? t / n / 1e6 : 0 }') s from the JVM's start to serving"
	echo "   per step kind (the step and its check; ide_s: the IDE sessions' seconds but the clean reference's; other_s: Git, the driver's checks):"
	timing_table
	local point
	for point in "${!kill_points[@]}"; do
		echo "   kills $point: ${kill_points[$point]}"
	done | sort
}
exec {driver_out}>&1 # (fail prints the summary there, also when called in a command whose output goes to a log)
fail() {
	exec 1>&"$driver_out"
	echo "soak: FAILED at seed=$seed step=$step_no ($step_name): $*" >&2
	summary
	echo "replay: ./launch releng/soak/run.sh --steps $step_no --seed $seed --no-build${only_kinds:+ --kinds $only_kinds}$([ $require_each = 0 ] || echo ' --require-each')$([ $each_kind = 0 ] || echo ' --each-kind'); logs in $logs"
	exit 1
}
# a command of the driver that fails (set -e) stops the run with the summary and the command, never silently (in
# functions too: errtrace; in the main shell only: a subshell's failure is its caller's to judge, as before)
set -E
trap 'rc=$?; if [ "$BASHPID" = "$$" ]; then trap - ERR; fail "the driver'"'"'s command failed with exit $rc (${BASH_SOURCE[0]##*/}:$LINENO, in ${FUNCNAME[0]:-main}): $BASH_COMMAND"; fi' ERR
# a run stopped by hand (kill, Ctrl-C) ends with the summary of the steps it took, as a failure (not a completed run)
trap 'if [ "$BASHPID" = "$$" ]; then trap - INT TERM ERR; fail "stopped by a signal after $((step_no - 1)) completed steps"; fi' INT TERM

if [ $build = 1 ]; then
	say "== building the update site and the IDE"
	./mvnw -B -q -DskipTests verify # (-DskipTests leaves out the soak module too)
fi
say "== installing Branchstate, Branchstate for Java and the Java index into a fresh IDE in $dir"
umount "$dir/store" 2>/dev/null || true
rm -rf "$dir"
mkdir -p "$logs"
# (the committers' IDE: the plug-in pair needs PDE's builders and "Plug-in Dependencies")
install_ide "$dir" dev.branchstate.feature.feature.group,dev.branchstate.jdt.feature.feature.group,dev.branchstate.examples.feature.feature.group \
	dev.branchstate.ide.pde
# the batch reference (clean_build): Maven Central's ecj of the installed IDE's JDT compiler (the same bundle,
# org.eclipse.jdt.core.compiler.batch, to the qualifier), SoakReference compiled against the installed plug-ins
jre_release=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release") # the JDK the IDE runs on: its JRE container
ide_ecj=$(ls "$dir"/eclipse/plugins/org.eclipse.jdt.core.compiler.batch_*.jar)
ecj_version=$(basename "$ide_ecj" | sed -E 's/^org\.eclipse\.jdt\.core\.compiler\.batch_([0-9]+\.[0-9]+\.[0-9]+)\..*/\1/')
ecj=$HOME/.m2/repository/org/eclipse/jdt/ecj/$ecj_version/ecj-$ecj_version.jar
[ -f "$ecj" ] || ./mvnw -B -q dependency:get -Dartifact="org.eclipse.jdt:ecj:$ecj_version" > "$logs/ecj-get.log" 2>&1 \
	|| { cat "$logs/ecj-get.log" >&2; echo "soak: could not get org.eclipse.jdt:ecj:$ecj_version" >&2; exit 1; }
bundle_version() { unzip -p "$1" META-INF/MANIFEST.MF | tr -d '\r' | sed -n 's/^Bundle-Version: //p'; }
[ "$(bundle_version "$ecj")" = "$(bundle_version "$ide_ecj")" ] \
	|| { echo "soak: ecj $ecj is $(bundle_version "$ecj"), the IDE's batch compiler $(bundle_version "$ide_ecj")" >&2; exit 1; }
reference_cp=$dir/reference:$ecj:$(ls "$dir"/eclipse/plugins/*.jar | grep -v -F "$ide_ecj" | tr '\n' ':')
javac -nowarn -d "$dir/reference" -cp "$reference_cp" "$root/releng/soak/SoakReference.java" "$root/releng/soak/SoakStore.java" \
	|| { echo "soak: releng/soak/SoakReference.java or SoakStore.java does not compile" >&2; exit 1; }
# store_tool verify|list: the headless verify and list commands' output for the soak's repository, by the installed
# Branchstate's own code in a plain JVM (releng/soak/SoakStore.java): they only read the store, no IDE start needed
# (one JVM for the run, started once the repository exists: SoakStore --serve, each answer read from the store afresh,
# ended by `end <exit code>`; it is used in subshells too, through the pipes the main shell opened)
store_pid=
store_start() {
	rm -f "$dir/store.in" "$dir/store.out"
	mkfifo "$dir/store.in" "$dir/store.out"
	java -Xmx512m --enable-native-access=ALL-UNNAMED -cp "$reference_cp" SoakStore --serve "$store" "$repo/.git" \
		< "$dir/store.in" > "$dir/store.out" 2>> "$logs/store-jvm.log" &
	store_pid=$!
	exec {store_in}> "$dir/store.in" {store_out}< "$dir/store.out"
}
store_tool() {
	local line rc=
	printf '%s\n' "$1" >&"$store_in"
	while IFS= read -r -u "$store_out" line; do
		if [[ $line == "end "* ]]; then rc=${line#end }; break; fi
		printf '%s\n' "$line"
	done
	[ -n "$rc" ] || { echo "soak: the store's JVM has ended (logs/store-jvm.log)" >&2; return 99; }
	return "$rc"
}
say "   clean references: $reference (ecj $(bundle_version "$ecj"), release $jre_release)"

# The store on a small file system of its own (a tmpfs: the full-disk step fills it), budget below its size.
store=$dir/store
mkdir -p "$store"
if mount -t tmpfs -o size=256m soak-store "$store" 2>/dev/null; then
	# at the end the store's files are listed in the logs (the tmpfs goes with the mount)
	# (nothing in it may fail: under set -e a failing command of an EXIT trap becomes the run's exit status)
	trap 'session_end_at_exit; { find "$store" -type f -printf "%s %p\n" > "$logs/store-at-exit.txt" 2>/dev/null || true; }; umount "$store" 2>/dev/null || true' EXIT
	tmpfs=1
else
	say "   (cannot mount a tmpfs: not root? the full-disk step is skipped)"
	trap session_end_at_exit EXIT
	tmpfs=0
fi
ws=$dir/workspace
restores=$ws/.metadata/.plugins/dev.branchstate.core/restores # the records of the restores writing (RestoreJournal)
auto=on
budget_mb=4 # about three states of the three projects (1.3 MB each): saves evict states all along
# Both workspaces: JDT Launching's search for other JVMs at start-up off. While it re-resolves the JRE container, a
# build that runs at the same time can fail in JDT's compiler (an NPE: module java.base not found, "Bug 529367"):
# seen twice at seed 11, step 1, in the Branchstate workspace, a race inside JDT that a clean workspace can meet too.
no_jvm_search='org.eclipse.jdt.launching/detectVMsAtStartup=false' # LaunchingPlugin.PREF_DETECT_VMS_AT_STARTUP
customize() { # the preferences the IDE starts with (default scope): the store, its budget, automatic switching
	printf 'dev.branchstate.core/storeLocation=%s\ndev.branchstate.core/diskBudgetMB=%s\ndev.branchstate.core/autoSwitch=%s\n%s\n%s\n' "$store" "$budget_mb" \
		"$([ $auto = on ] && echo true || echo false)" "$no_jvm_search" "${remote_prefs:-}" > "$dir/customization.ini"
}
customize
export IDE_ARGS="-pluginCustomization $dir/customization.ini"
# The work tree as Git sees it, and a fingerprint of the contents of every file Git sees (tracked or not ignored).
porcelain() { git -C "$repo" status --porcelain=v1 --untracked-files=all; }
fingerprint() {
	# (a tracked file deleted by the driver is listed by ls-files and left out of the sums)
	(cd "$repo" && git ls-files -z -co --exclude-standard | sort -z | { xargs -0 -r sha1sum 2>/dev/null || true; } | sha1sum | cut -c1-16)
}
# Every IDE session writes the Java index's dump when it exits normally (JavaIndexService, -D...dumpAtExit) into
# $dumps (each file written aside and renamed: complete or absent), and the driver records the tree it indexed
# ($dumps.tree) for a session that ended normally — told by its exit status, never by what it left: a session killed
# (status 128 + the signal) may have left any part of its exit's work. The check compares the step's last session's
# dump with a fresh index's when that session ended normally and the tree is still the same, and the dump of the
# check's own session always. (The check's session alone would not do: each start indexes every file whose hash
# changed, which hides what a switch restored.)
dumps=$dir/index-dump
eval "shared_$(declare -f app)"
app() {
	local rc=0 t0
	t0=$(now_us) step_sessions=$((step_sessions + 1))
	rm -rf "$dumps" "$dumps.tree"
	IDE_JVM="-Xmx2g -Ddev.branchstate.javaindex.dumpAtExit=$dumps" shared_app "$@" || rc=$?
	ide_started "$t0"
	session_ended "$rc" "$*"
	return $rc
}
# session_ended <exit status> <what>: records the tree the session's dump is of when the session ended normally
session_ended() {
	[ "$1" -lt 128 ] || return 0 # killed by a signal: its dump is never compared
	compgen -G "$dumps/*.dump" > /dev/null || fail "the IDE session ($2) exited with $1 without writing the Java index's dump"
	fingerprint > "$dumps.tree"
}

# The IDE session (issue 34): one long-lived IDE runs the headless application's `serve` mode, reading command lines
# from a named pipe and answering each with its output and an end line with its exit status (CommandServer); the
# steps and the checks send it their commands (ide), in the same running workspace, as a user works in one IDE. It is
# started again only after a kill (the kill steps kill it), for a terminal checkout while the IDE is closed (every
# second terminal checkout: the switch is then handled at start-up) and before every --restart-every'th step (a
# deliberate restart: its exit's dump of the Java index compared, the start's work on the store and on the restore
# journal checked by the check after it). The check asks it for the Java index's dump (`dump`: written as at exit).
# Every session runs with the restore's plan on the platform's trace (the damage step reads it; -debug with
# dev.branchstate.core/debug/restore: one line per entry a restore reads, in the workspace's .metadata/trace.log,
# removed at each check) and writes the index's dump when it exits normally ($dumps, as app's sessions).
serve_end='branchstate-serve: end exit=' # CommandServer.END
trace_options=$dir/restore-trace.options
printf 'dev.branchstate.core/debug=true\ndev.branchstate.core/debug/restore=true\n' > "$trace_options"
session_pid= session_no=0 step_cmds=0 step_killed=0 n_sessions=0 n_restarts=0 start_us=0
session_start() {
	local t0 line
	t0=$(now_us)
	session_no=$((session_no + 1)) n_sessions=$((n_sessions + 1)) step_sessions=$((step_sessions + 1))
	rm -rf "$dumps" "$dumps.tree"
	rm -f "$dir/ide.in" "$dir/ide.out"
	mkfifo "$dir/ide.in" "$dir/ide.out"
	java -Xmx2g -Ddev.branchstate.javaindex.dumpAtExit="$dumps" -jar "$launcher" -nosplash -data "$ws" $IDE_ARGS \
		-debug "$trace_options" -application dev.branchstate.core.app serve \
		< "$dir/ide.in" > "$dir/ide.out" 2>> "$logs/session-$session_no.err" &
	session_pid=$!
	exec {ide_in}> "$dir/ide.in" {ide_out}< "$dir/ide.out" # (in the order the session opens them)
	while IFS= read -r -u "$ide_out" line; do
		[ "$line" != serving ] || break
		printf '%s\n' "$line" >> "$logs/session-$session_no.err"
	done
	[ "$line" = serving ] || { fail "the IDE session $session_no did not start (logs/session-$session_no.err)"; }
	start_us=$((start_us + $(now_us) - t0))
	ide_started "$t0"
}
# reply <fd> <pid> <session> <command>: copies a session's answer to a command to standard output and sets reply_rc
# to its exit status (empty: the session ended). An answer that does not end within $command_timeout s is a hang: the
# session's threads are dumped into the logs and the run stops (the 1,000-step run at ab0ee61 waited 40 minutes at step
# 845 on a deadlock, found by hand).
command_timeout=${SOAK_COMMAND_TIMEOUT:-600}
reply() {
	local fd=$1 pid=$2 session=$3 command=$4 line left status t=$EPOCHREALTIME deadline
	deadline=$(( ${t%[.,]*} + command_timeout )) # (seconds; no $(now_us) per line: a fork each, 1 s for 500 lines)
	reply_rc=
	while :; do
		t=$EPOCHREALTIME left=$(( deadline - ${t%[.,]*} )) status=0
		if [ "$left" -gt 0 ]; then IFS= read -r -t "$left" -u "$fd" line || status=$?; else status=142; fi
		if [ "$status" -gt 128 ]; then
			"$JAVA_HOME/bin/jcmd" "$pid" Thread.print > "$logs/hang-step-$step_no.txt" 2>&1 || true
			fail "$session gave no answer to '$command' within $command_timeout s: a hang? (threads: logs/hang-step-$step_no.txt)"
		fi
		[ "$status" = 0 ] || return 0 # the session ended
		if [[ $line == "$serve_end"* ]]; then reply_rc=${line#"$serve_end"}; return 0; fi
		printf '%s\n' "$line"
	done
}
# ide <command> <arguments>...: runs a command in the IDE session (started when none runs), its output on standard
# output, its exit status returned; the session ending during the command stops the run
ide() {
	local t0 rc=
	[ -n "$session_pid" ] || session_start
	t0=$(now_us) step_cmds=$((step_cmds + 1))
	kill -0 "$session_pid" 2>/dev/null || fail "the IDE session $session_no has ended"
	(IFS=$'\t'; printf '%s\n' "$*") >&"$ide_in"
	reply "$ide_out" "$session_pid" "the IDE session $session_no" "$*"; rc=$reply_rc
	ide_us=$((ide_us + $(now_us) - t0))
	if [ -z "$rc" ]; then
		wait "$session_pid" || rc=$?
		session_pid=
		fail "the IDE session $session_no ended (exit ${rc:-0}) during '$*' (logs/session-$session_no.err)"
	fi
	return "$rc"
}
# session_stop: the IDE closed normally (exit: the workspace saved, the Java index's dump written)
session_stop() {
	[ -n "$session_pid" ] || return 0
	local t0 rc=0
	t0=$(now_us)
	kill -0 "$session_pid" 2>/dev/null || fail "the IDE session $session_no has ended (logs/session-$session_no.err)"
	printf 'exit\n' >&"$ide_in"
	cat <&"$ide_out" >> "$logs/session-$session_no.err"
	wait "$session_pid" || rc=$?
	exec {ide_in}>&- {ide_out}<&-
	session_pid=
	ide_us=$((ide_us + $(now_us) - t0))
	[ "$rc" = 0 ] || fail "the IDE session $session_no exited with $rc when closed"
	session_ended "$rc" "session $session_no"
}
# ci <command> <arguments>...: a command in CI's IDE session (CI's workspace over the second clone: the remote step),
# started when none runs and kept for the run, as the soak's own session (issue 34: an IDE start and JDT's start-up
# work per remote step were 10 of its 19 s); its output on standard output, its exit status returned
ci_pid=
ci() {
	local line rc=
	if [ -z "$ci_pid" ]; then
		rm -f "$dir/ci.in" "$dir/ci.out"
		mkfifo "$dir/ci.in" "$dir/ci.out"
		java -Xmx2g -jar "$launcher" -nosplash -data "$dir/ws-ci" -pluginCustomization "$dir/ci.ini" \
			-application dev.branchstate.core.app serve < "$dir/ci.in" > "$dir/ci.out" 2>> "$logs/ci-session.err" &
		ci_pid=$!
		exec {ci_in}> "$dir/ci.in" {ci_out}< "$dir/ci.out"
		while IFS= read -r -u "$ci_out" line && [ "$line" != serving ]; do printf '%s\n' "$line" >> "$logs/ci-session.err"; done
		[ "$line" = serving ] || fail "CI's IDE session did not start (logs/ci-session.err)"
	fi
	(IFS=$'\t'; printf '%s\n' "$*") >&"$ci_in"
	reply "$ci_out" "$ci_pid" "CI's IDE session" "$*"; rc=$reply_rc
	[ -n "$rc" ] || fail "CI's IDE session ended during '$*' (logs/ci-session.err)"
	return "$rc"
}
session_end_at_exit() { # (the run stopped: the session killed, the store's tmpfs can go)
	[ -z "${session_pid:-}" ] || { kill -9 "$session_pid" 2>/dev/null; wait "$session_pid" 2>/dev/null; } || true
	[ -z "${ci_pid:-}" ] || { kill -9 "$ci_pid" 2>/dev/null; wait "$ci_pid" 2>/dev/null; } || true
	[ -z "${store_pid:-}" ] || { kill "$store_pid" 2>/dev/null; wait "$store_pid" 2>/dev/null; } || true
	[ -z "${s3_pid:-}" ] || { kill "$s3_pid" 2>/dev/null; wait "$s3_pid" 2>/dev/null; } || true
}

say "== the repository: three Java projects with project references and a plug-in pair (JRE container, bin/ ignored)"
# - commons-lang: Apache Commons Lang 3.18.0 sources;
# - soak-api: reads commons-lang and exports it, exports a library (lib/soak-lib.jar), a second source folder (src2,
#   on and off the build path), a compile-time constant (Api.LEVEL) and a method (Api.name, renamed and back: an API
#   change that breaks soak-app and fixes it);
# - soak-app: reads soak-api only (commons-lang and the library through its exports), inlines Api.LEVEL, calls
#   Api.name, reads a library of its own (lib/extra.jar, on and off the build path), has an unused import whose
#   severity its .settings change (warning, error, ignore), a package that moves (soak.app, soak.moved);
# - the plug-in pair, built by JDT and PDE's manifest and schema builders: soak.plugin.api exports its package (and
#   stops exporting it, and exports it again: a manifest change), soak.plugin.app requires it (Require-Bundle: its
#   "Plug-in Dependencies"), inlines its constant Bundled.LEVEL and calls Bundled.name; when the package is not
#   exported those reads are access restrictions (errors)
repo=$dir/repo
jar=$HOME/.m2/repository/org/apache/commons/commons-lang3/3.18.0/commons-lang3-3.18.0-sources.jar
if [ ! -f "$jar" ]; then
	./mvnw -B -q dependency:copy -Dartifact=org.apache.commons:commons-lang3:3.18.0:jar:sources -DoutputDirectory="$dir"
	jar=$dir/commons-lang3-3.18.0-sources.jar
fi
git init -q -b main "$repo"
git -C "$repo" config user.name "Branchstate soak"
git -C "$repo" config user.email "soak@branchstate.invalid"
printf 'bin/\n' > "$repo/.gitignore"
mkdir -p "$repo/commons-lang/src"
unzip -q "$jar" -d "$repo/commons-lang/src" -x 'META-INF/*' 'module-info.java'
java_project "$repo/commons-lang" commons-lang
# library_jar <jar> <package> <class> <method>: a library of one class, compiled for Java 17
library_jar() {
	local tmp
	tmp=$(mktemp -d)
	mkdir -p "$tmp/src/$2" "$tmp/classes"
	printf 'package %s;\n\npublic final class %s {\n    public static String %s() { return "%s"; }\n}\n' "$2" "$3" "$4" "$3" > "$tmp/src/$2/$3.java"
	javac -nowarn --release 17 -d "$tmp/classes" "$tmp/src/$2/$3.java"
	mkdir -p "$(dirname "$1")"
	(cd "$tmp/classes" && jar --create --file "$1" --date=2026-01-01T00:00:00Z .)
	rm -rf "$tmp"
}
api=$repo/soak-api app_=$repo/soak-app
mkdir -p "$api/src/soak/api" "$api/src2/soak/api2" "$app_/src/soak/app" "$app_/.settings"
java_project "$api" soak-api
java_project "$app_" soak-app
library_jar "$api/lib/soak-lib.jar" soaklib Greeting hello
library_jar "$app_/lib/extra.jar" soakextra Extra extra
cat > "$api/.classpath" <<-'EOC'
<?xml version="1.0" encoding="UTF-8"?>
<classpath>
	<classpathentry kind="src" path="src"/>
	<classpathentry kind="src" path="src2"/>
	<classpathentry kind="con" path="org.eclipse.jdt.launching.JRE_CONTAINER"/>
	<classpathentry combineaccessrules="false" exported="true" kind="src" path="/commons-lang"/>
	<classpathentry exported="true" kind="lib" path="lib/soak-lib.jar"/>
	<classpathentry kind="output" path="bin"/>
</classpath>
EOC
cat > "$app_/.classpath" <<-'EOC'
<?xml version="1.0" encoding="UTF-8"?>
<classpath>
	<classpathentry kind="src" path="src"/>
	<classpathentry kind="con" path="org.eclipse.jdt.launching.JRE_CONTAINER"/>
	<classpathentry combineaccessrules="false" kind="src" path="/soak-api"/>
	<classpathentry kind="lib" path="lib/extra.jar"/>
	<classpathentry kind="output" path="bin"/>
</classpath>
EOC
cat > "$api/src/soak/api/Api.java" <<-'EOJ'
package soak.api;

import org.apache.commons.lang3.StringUtils;

/** The soak's upstream API: a constant that soak-app inlines, a method it calls. */
public final class Api {
    public static final int LEVEL = 1; // soak constant
    public static String name() { return StringUtils.capitalize("api"); } // soak api
}
EOJ
printf 'package soak.api2;\n\n/** In the source folder src2, on and off the build path. */\npublic final class Second {\n    public static int two() { return 2; }\n}\n' > "$api/src2/soak/api2/Second.java"
cat > "$app_/src/soak/app/App.java" <<-'EOJ'
package soak.app;

import java.util.List;

import org.apache.commons.lang3.StringUtils;

import soak.api.Api;
import soaklib.Greeting;

/** Reads soak-api: its constant (inlined), its method, and what it exports (commons-lang, its library). */
public final class App {
    static int level() {
        switch (Api.LEVEL) {
        case Api.LEVEL: return Api.LEVEL * 2;
        default: return 0;
        }
    }
    static String name() { return Api.name() + Greeting.hello() + StringUtils.EMPTY; }
}
EOJ
printf 'package soak.app;\n\n/** Reads the library lib/extra.jar, on and off the build path. */\nfinal class UsesExtra {\n    static String extra() { return soakextra.Extra.extra(); }\n}\n' > "$app_/src/soak/app/UsesExtra.java"
printf 'eclipse.preferences.version=1\norg.eclipse.jdt.core.compiler.problem.unusedImport=warning\n' > "$app_/.settings/org.eclipse.jdt.core.prefs"
plugin "$repo/plugin-api" soak.plugin.api 'Export-Package: soak.plugin.api
Automatic-Module-Name: soak.plugin.api'
plugin "$repo/plugin-app" soak.plugin.app 'Require-Bundle: soak.plugin.api
Automatic-Module-Name: soak.plugin.app'
mkdir -p "$repo/plugin-api/src/soak/plugin/api" "$repo/plugin-app/src/soak/plugin/app"
cat > "$repo/plugin-api/src/soak/plugin/api/Bundled.java" <<-'EOJ'
package soak.plugin.api;

/** The plug-in pair's upstream bundle: a constant soak.plugin.app inlines, a method it calls. */
public final class Bundled {
    public static final int LEVEL = 1; // soak plug-in constant
    public static String name() { return "bundled"; }
}
EOJ
cat > "$repo/plugin-app/src/soak/plugin/app/Reads.java" <<-'EOJ'
package soak.plugin.app;

import soak.plugin.api.Bundled;

/** Reads soak.plugin.api through "Plug-in Dependencies": its constant (inlined) and its method. */
public final class Reads {
    static int level() {
        switch (Bundled.LEVEL) {
        case Bundled.LEVEL: return Bundled.LEVEL + 1;
        default: return 0;
        }
    }
    static String name() { return Bundled.name(); }
}
EOJ
git -C "$repo" add -A
git -C "$repo" commit -q -m "Apache Commons Lang 3.18.0 sources, soak-api and soak-app, the plug-in pair"
say "$(git -C "$repo" ls-files | wc -l) tracked files in $(git -C "$repo" ls-files '*.project' | wc -l) projects"
store_start
app import "$repo" > "$logs/import.log" || { cat "$logs/import.log"; fail "import failed"; }
# a second clone, where "someone else" commits: the pull step fast-forwards from it
upstream=$dir/upstream
git clone -q "$repo" "$upstream"
git -C "$upstream" config user.name "Branchstate soak (second clone)"
git -C "$upstream" config user.email "soak2@branchstate.invalid"

# The remote state store (issue 34): S3Proxy (Maven Central's, as the core tests start it) on 127.0.0.1 with its
# filesystem backend, checking AWS Signature V4 with credentials made up for the run (AWS_ACCESS_KEY_ID and
# AWS_SECRET_ACCESS_KEY: the headless IDE's credentials), a signing key pair (the headless `remote-keys`), the public
# key pinned in the soak workspace's preferences. CI is a second workspace over the second clone ($upstream, the
# developer's remote `ci`): the remote step builds, saves and publishes a commit there (in CI's IDE session of the
# serve mode, kept for the run: ci), and the developer fetches and merges it, the soak session restoring the published state if that leaves less
# to redo.
say "== the remote store: S3Proxy on 127.0.0.1, a signing key, CI's workspace over the second clone"
s3jar=$HOME/.m2/repository/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar
[ -f "$s3jar" ] || ./mvnw -B -q dependency:get -Dartifact=org.gaul:s3proxy:4.1.0:jar:jar-with-dependencies > "$logs/s3proxy-get.log" 2>&1 \
	|| { cat "$logs/s3proxy-get.log" >&2; fail "could not get org.gaul:s3proxy:4.1.0"; }
s3data=$dir/s3data
mkdir -p "$s3data/states" # (the filesystem backend: a folder per bucket, a file per object)
s3port=
for port_try in $(seq $((20000 + seed % 5000)) $((20000 + seed % 5000 + 50))); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port_try") 2>/dev/null || { s3port=$port_try; break; }
done
[ -n "$s3port" ] || fail "no free port for S3Proxy"
export AWS_ACCESS_KEY_ID=soak$RANDOM AWS_SECRET_ACCESS_KEY=secret$RANDOM$RANDOM$RANDOM
printf 's3proxy.endpoint=http://127.0.0.1:%s\ns3proxy.authorization=aws-v2-or-v4\ns3proxy.identity=%s\ns3proxy.credential=%s\njclouds.provider=filesystem\njclouds.filesystem.basedir=%s\n' \
	"$s3port" "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" "$s3data" > "$dir/s3proxy.properties"
java -Xmx256m -jar "$s3jar" --properties "$dir/s3proxy.properties" > "$logs/s3proxy.log" 2>&1 &
s3_pid=$!
for _ in $(seq 600); do (exec 3<>"/dev/tcp/127.0.0.1/$s3port") 2>/dev/null && break; kill -0 $s3_pid 2>/dev/null || break; sleep 0.1; done
(exec 3<>"/dev/tcp/127.0.0.1/$s3port") 2>/dev/null || { cat "$logs/s3proxy.log" >&2; fail "S3Proxy did not start"; }
ws=$dir/ws-keys shared_app remote-keys "$dir/keys" > "$logs/remote-keys.log" || { cat "$logs/remote-keys.log" >&2; fail "remote-keys failed"; }
remote_prefs=$(printf 'dev.branchstate.core/remoteEndpoint=http://127.0.0.1:%s\ndev.branchstate.core/remoteBucket=states\ndev.branchstate.core/remotePathStyle=true\ndev.branchstate.core/%s' \
	"$s3port" "$(sed -n 's/^pin //p' "$logs/remote-keys.log")")
grep -q '^dev.branchstate.core/remotePublicKey=.' <<<"$remote_prefs" || fail "remote-keys printed no key to pin"
rm -rf "$dir/ws-keys"
customize
printf 'dev.branchstate.core/storeLocation=%s\ndev.branchstate.core/autoSwitch=false\n%s\n%s\n' "$dir/store-ci" "$remote_prefs" "$no_jvm_search" > "$dir/ci.ini"
IDE_ARGS="-pluginCustomization $dir/ci.ini" ws=$dir/ws-ci shared_app import "$upstream" > "$logs/ci-import.log" \
	|| { cat "$logs/ci-import.log" >&2; fail "CI's import failed"; }
git -C "$repo" remote add ci "$upstream"

# ------------------------------------------------------------------------------------------------ edits

soak_pkg=commons-lang/src/org/apache/commons/lang3/soak
n_edits=0
mapfile -t finals < <(cd "$repo" && git ls-files commons-lang/src | grep '\.java$' | xargs grep -l -E '^public final class ' | sort)
# Random choices are drawn in the main shell only ($((RANDOM % n)), never inside $(...): bash reseeds RANDOM in
# subshells), so that a seed replays the same steps.
# toggle_edit <file> <pattern> <sed script> <what it did> <sed script> <what it did>: an edit that takes something
# off when a line of the file (in the work tree) matches the pattern (the first script), else puts it on (the second)
toggle_edit() {
	if grep -q -e "$2" "$repo/$1"; then sed -i "$3" "$repo/$1"; edit=$4; else sed -i "$5" "$repo/$1"; edit=$6; fi
}
# A valid Java edit of the working tree; sets $edit to what it did.
java_edit() {
	local kind file n=$RANDOM soak_files
	mapfile -t soak_files < <(cd "$repo" && ls $soak_pkg/*.java 2>/dev/null || true)
	kind=$((RANDOM % 13))
	local each_edit=(0 1 10 3 4 5 6 7 8 9 2 11 12) # (--each-kind: every kind of edit first, each after what it needs)
	if [ $each_kind = 1 ] && [ $n_edits -lt ${#each_edit[@]} ]; then kind=${each_edit[n_edits]}; fi
	n_edits=$((n_edits + 1))
	if [[ $kind =~ ^(2|10)$ ]] && [ ${#soak_files[@]} = 0 ]; then kind=1; fi
	if [ "$kind" = 3 ] && [ ${#soak_files[@]} = 0 ] && ! grep -rqs 'soakValue' "$repo/commons-lang/src"; then kind=0; fi
	local api_java=soak-api/src/soak/api/Api.java app_pkg
	app_pkg=$(cd "$repo" && ls -d soak-app/src/soak/app soak-app/src/soak/moved 2>/dev/null || true)
	[ "$kind" != 9 ] || [ "$(wc -w <<<"$app_pkg")" = 1 ] || kind=4 # (both, after a merge: no move)
	case $kind in
	0) # add a method to a final class of the library
		file=${finals[$((RANDOM % ${#finals[@]}))]}
		awk -v n="$n" '{ line[NR] = $0 } /}/ { last = NR }
			END { for (i = 1; i <= NR; i++) {
				if (i == last) { match(line[i], /}[^}]*$/)
					line[i] = substr(line[i], 1, RSTART - 1) "    static int soakValue" n "() { return " n "; } // soak body\n" substr(line[i], RSTART) }
				print line[i] } }' "$repo/$file" > "$repo/$file.new" && mv "$repo/$file.new" "$repo/$file"
		edit="add method soakValue$n to $file" ;;
	1) # add a file (a warning now and then: an unused import gives a marker)
		mkdir -p "$repo/$soak_pkg"
		file=$soak_pkg/Soak$n.java
		{
			echo "package org.apache.commons.lang3.soak;"
			echo
			[ $(( n % 2 )) = 0 ] && echo "import java.util.List;" && echo
			echo "import org.apache.commons.lang3.StringUtils;"
			echo
			echo "/** Added by the soak. */"
			echo "public final class Soak$n {"
			echo "    public static String value() { return StringUtils.repeat('x', $(( n % 7 ))); } // soak body"
			echo "}"
		} > "$repo/$file"
		edit="add file $file" ;;
	2) # delete a file that nothing references (the soak's files reference only the library)
		file=${soak_files[$((RANDOM % ${#soak_files[@]}))]}
		rm "$repo/$file"
		edit="delete file $file" ;;
	3) # change a method body (one the soak added)
		file=$(cd "$repo" && grep -rl 'soak body' commons-lang/src | sort | shuf -n1 --random-source=<(yes $n))
		sed -i -E "/soak body/s/return (StringUtils.repeat\\('x', )?[0-9]+/return \\1$n/" "$repo/$file"
		edit="change a method body in $file" ;;
	4) # change the constant soak-app inlines (JDT must compile soak-app again)
		sed -i -E "s/LEVEL = [0-9]+/LEVEL = $((n % 1000))/" "$repo/$api_java"
		edit="change the constant Api.LEVEL to $((n % 1000)) in soak-api" ;;
	5) # an API change upstream: rename Api.name (soak-app's call breaks) or name it back (fixed)
		toggle_edit "$api_java" 'String name()' \
			's/String name()/String title()/' "rename Api.name to Api.title in soak-api (breaks soak-app)" \
			's/String title()/String name()/' "rename Api.title back to Api.name in soak-api (fixes soak-app)" ;;
	6) # .classpath: soak-app's library off the build path (UsesExtra breaks) or on again
		toggle_edit soak-app/.classpath 'lib/extra.jar' \
			'/lib\/extra.jar/d' "remove the library lib/extra.jar from soak-app's .classpath" \
			's|\(.*\)<classpathentry kind="output"|\1<classpathentry kind="lib" path="lib/extra.jar"/>\n&|' \
			"add the library lib/extra.jar to soak-app's .classpath" ;;
	7) # .classpath: soak-api's second source folder off the build path or on again
		toggle_edit soak-api/.classpath 'path="src2"' \
			'/path="src2"/d' "remove the source folder src2 from soak-api's .classpath" \
			's|\(.*\)<classpathentry kind="src" path="src"/>|&\n\1<classpathentry kind="src" path="src2"/>|' \
			"add the source folder src2 to soak-api's .classpath" ;;
	8) # a compiler setting in .settings: the unused import's severity (warning, error, ignore)
		local prefs=soak-app/.settings/org.eclipse.jdt.core.prefs severity next
		severity=$(sed -n 's/^org.eclipse.jdt.core.compiler.problem.unusedImport=//p' "$repo/$prefs")
		case $severity in warning) next=error ;; error) next=ignore ;; *) next=warning ;; esac
		sed -i "s/^org.eclipse.jdt.core.compiler.problem.unusedImport=.*/org.eclipse.jdt.core.compiler.problem.unusedImport=$next/" "$repo/$prefs"
		edit="soak-app's unused imports: $severity -> $next ($prefs)" ;;
	9) # move a package: soak-app's soak.app to soak.moved and back (nothing else references it)
		local to=soak-app/src/soak/moved from_pkg=soak.app to_pkg=soak.moved
		[ "$app_pkg" = "$to" ] && to=soak-app/src/soak/app from_pkg=soak.moved to_pkg=soak.app
		mv "$repo/$app_pkg" "$repo/$to"
		sed -i "s/^package $from_pkg;/package $to_pkg;/" "$repo/$to"/*.java
		edit="move the package $from_pkg to $to_pkg in soak-app" ;;
	10) # rename a file (its class with it)
		file=${soak_files[$((RANDOM % ${#soak_files[@]}))]}
		local old_class new_class
		old_class=$(basename "$file" .java) new_class=Soak${n}r
		[ ! -e "$repo/$soak_pkg/$new_class.java" ] || new_class=${new_class}r
		sed "s/\b$old_class\b/$new_class/g" "$repo/$file" > "$repo/$soak_pkg/$new_class.java"
		rm "$repo/$file"
		edit="rename $file to $new_class.java" ;;
	11) # the plug-in pair's manifest: soak.plugin.api stops exporting its package (PDE's access rules then forbid
		# soak.plugin.app's reads: errors) or exports it again
		toggle_edit plugin-api/META-INF/MANIFEST.MF '^Export-Package: ' \
			'/^Export-Package: /d' "soak.plugin.api stops exporting its package (its MANIFEST.MF): soak.plugin.app's reads forbidden" \
			's/^Automatic-Module-Name: /Export-Package: soak.plugin.api\n&/' "soak.plugin.api exports its package again (its MANIFEST.MF)" ;;
	12) # change the constant soak.plugin.app inlines (through "Plug-in Dependencies")
		sed -i -E "s/LEVEL = [0-9]+/LEVEL = $((n % 1000))/" "$repo/plugin-api/src/soak/plugin/api/Bundled.java"
		edit="change the constant Bundled.LEVEL to $((n % 1000)) in soak.plugin.api" ;;
	esac
}

# ------------------------------------------------------------------------------------------------ checks

expect_tree() { expected_porcelain=$(porcelain); expected_print=$(fingerprint); }

# clean_build: the clean reference of the working tree (tracked files as they are now plus untracked ones, copied to
# a scratch folder): bin/ of a clean JDT build, its problem markers, a fresh Java index's dump; cached by the tree's
# contents. Sets $clean to its folder (tree/bin/, problems.txt, index/). Made (--reference):
# - batch (the default): in one plain JVM by JDT's batch compiler (Maven Central's ecj of the IDE's own JDT version,
#   the same bundle org.eclipse.jdt.core.compiler.batch) with a clean workspace's options, and the Java index's own
#   parser for the dump (releng/soak/SoakReference.java); a few seconds, no IDE;
# - ide: by importing the copy into a second workspace of the installed IDE and building it there (two IDE sessions);
# - both (--check-reference): both, and the run stops unless they are equal byte for byte, marker for marker and
#   line for line (the batch reference is compared with the IDE's).
# empty_dirs: the work tree's empty folders (but the output folders' and Git's), sorted: Git keeps no folder, but JDT
# sees an empty source folder as there and a missing one as a build path error (an uncommitted package move, then
# `git clean -fdx`, leaves `src/` empty; a checkout then deletes it), so the clean reference's tree has them too
empty_dirs() { (cd "$repo" && find . -path ./.git -prune -o -type d -empty -not -name bin -not -path '*/bin/*' -print | sort); }
clean_build() { clean_build_start; clean_build_finish; }
# clean_build_start: sets $clean; when the tree's reference is not made yet, copies the tree and asks for it: the batch
# reference is made by its JVM while the driver goes on (the check asks before its build: ecj compiles on the second
# core while the IDE builds; the kill step before its wait), and clean_build_finish reads the answer. The references
# made both ways or by the IDE are made here. $clean_us counts the driver's seconds in both (the copy, the wait)
ref_pending= # (the key of the batch reference asked for and not read yet)
clean_build_start() {
	local key empties t0
	empties=$(empty_dirs)
	key=$(fingerprint)-$(sha1sum <<<"$empties" | cut -c1-8)
	[ "$ref_pending" != "$key" ] || { clean=$dir/clean/$key; return 0; }
	clean_build_finish # (another tree's reference asked for before: its answer read first)
	t0=$(now_us)
	clean=$dir/clean/$key
	[ -f "$clean/problems.txt" ] && return 0
	n_clean=$((n_clean + 1))
	local ide_us0=$ide_us sessions0=$step_sessions # (its IDE sessions count as starts, their seconds as the clean
	# reference's; they are not the step's)
	rm -rf "$clean"
	mkdir -p "$clean/tree"
	(cd "$repo" && git ls-files -z -co --exclude-standard | xargs -0 -r sh -c 'for f; do [ ! -e "$f" ] || printf "%s\0" "$f"; done' _ \
		| tar --null -T - -cf -) | tar -xf - -C "$clean/tree"
	(cd "$clean/tree" && xargs -r mkdir -p <<<"$empties")
	case $reference in
	batch) batch_reference_ask "$clean"; ref_pending=$key ;;
	ide) ide_reference "$clean" ;;
	both)
		ide_reference "$clean"
		rm -rf "$clean.batch" && mkdir -p "$clean.batch/tree"
		(cd "$clean/tree" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$clean.batch/tree"
		(cd "$clean.batch/tree" && xargs -r mkdir -p <<<"$empties")
		batch_reference_ask "$clean.batch"
		batch_reference_answer "$clean.batch"
		local d
		d=$( { diff <(manifest "$clean/tree") <(manifest "$clean.batch/tree") || true; diff "$clean/problems.txt" "$clean.batch/problems.txt" || true
			diff -r --label "IDE's fresh index" --label "batch reference's index" "$clean/index" "$clean.batch/index" || true; } )
		[ -z "$d" ] || { head -40 <<<"$d" >&2; fail "the batch reference differs from the IDE's clean build ($clean, $clean.batch)"; }
		n_reference_checked=$((n_reference_checked + 1))
		rm -rf "$clean.batch" ;;
	esac
	clean_us=$((clean_us + $(now_us) - t0)) ide_us=$ide_us0 step_sessions=$sessions0
}
# clean_build_finish: the batch reference asked for, once made (waits for it)
clean_build_finish() {
	[ -n "$ref_pending" ] || return 0
	local t0
	t0=$(now_us)
	batch_reference_answer "$dir/clean/$ref_pending"
	ref_pending=
	clean_us=$((clean_us + $(now_us) - t0))
}
# batch_reference_ask <folder> / batch_reference_answer <folder>: <folder>/tree/bin, problems.txt and index/ from JDT's
# batch compiler and the Java index's parser (SoakReference), in the run's one reference JVM (started at the first: it
# keeps the JIT's work and, per project, the clean builds it made, copied for a project whose inputs are the same);
# an answer is waited for however long it takes
batch_reference_ask() {
	if [ -z "${REF_PID:-}" ]; then
		coproc REF { exec java -Xmx1g -cp "$reference_cp" dev.branchstate.javaindex.internal.SoakReference --serve 2>> "$logs/reference-jvm.log"; }
	fi
	printf '%s\t%s\t%s\n' "$1/tree" "$1" "$jre_release" >&"${REF[1]}"
}
batch_reference_answer() {
	local answer
	read -r answer <&"${REF[0]}" || { cat "$logs/reference-jvm.log" >&2; fail "the batch reference's JVM ended"; }
	echo "$answer" > "$1/reference.log"
	[[ $answer == done* ]] || { cat "$1/reference-failure.txt" >&2 2>/dev/null; fail "the batch reference failed: $answer"; }
	[ -f "$1/index/commons-lang.dump" ] || fail "the batch reference wrote no dump of the Java index"
}
# ide_reference <folder>: the same from an IDE: the copy imported into a second workspace and built there
ide_reference() {
	local clean=$1
	rm -rf "$dir/ws-clean"
	git -C "$clean/tree" init -q && git -C "$clean/tree" add -A \
		&& git -C "$clean/tree" -c user.name=soak -c user.email=soak@branchstate.invalid commit -q -m clean
	# a workspace of its own, with automatic switching off and its own store: a plain IDE's clean build
	printf 'dev.branchstate.core/autoSwitch=false\ndev.branchstate.core/storeLocation=%s\n%s\n' "$dir/store-clean" "$no_jvm_search" > "$dir/clean.ini"
	local dumps=$clean/index # (app's dump of the Java index: a fresh one)
	IDE_ARGS="-pluginCustomization $dir/clean.ini" ws=$dir/ws-clean app import "$clean/tree" > "$clean/import.log" \
		&& IDE_ARGS="-pluginCustomization $dir/clean.ini" ws=$dir/ws-clean app build "$clean/tree" --problems > "$clean/build.log" \
		|| { cat "$clean/build.log" >&2; fail "the clean build failed"; }
	[ -f "$clean/index/commons-lang.dump" ] || fail "the clean build's session wrote no dump of the Java index"
	grep '^problem ' "$clean/build.log" > "$clean/problems.txt" || true
	rm -rf "$dir/ws-clean" "$dir/store-clean"
}

manifest() { # <folder>: "<sha1>  <relative path>" of every file in the output folder (bin/) of a project under it (a
	# folder with a .project: the git-ignored bin/ that a checkout leaves of a project it removed is no project's), sorted
	[ -d "$1" ] || return 0
	(cd "$1" && find . -path ./.git -prune -o -type f -path '*/bin/*' -print0 | sort -z | xargs -0 -r sha1sum) \
		| awk -v root="$1" '{ p = substr($0, 43); d = substr(p, 1, index(p, "/bin/") - 1); f = root "/" d "/.project"
			if ((getline line < f) >= 0) { print; close(f) } }'
}

# unbuildable <problems.txt>: the project folders whose build JDT refuses there ("The project cannot be built until
# build path errors are resolved"), a line each
unbuildable() {
	sed -n 's/^problem \([^:]*\):-1 error id=-1 org\.eclipse\.jdt\.core\.problem The project cannot be built until build path errors are resolved$/\1/p' "$1"
}

# jdt_failed: whether JDT's compiler failed in an IDE session since the last check, with the NullPointerException of
# its module lookup (module java.base not found: "Bug 529367" on standard error; eclipse-jdt/eclipse.jdt.core#284,
# open upstream). It strikes builds that run while JDT's own start-up jobs run, with or without Branchstate; the
# build is aborted, JDT drops its build state and the output stays as the failure left it (a full build's: empty),
# with "The project was not built since its build path is incomplete". The workspace log tells.
jdt_failed() {
	grep -q -F 'IModule.isAutomatic()" because "module" is null' "$ws/.metadata/.log" 2>/dev/null
}

# sync_projects: File > Import > Existing Projects, as a user does when a step brought a project the workspace lacks
# (the headless import; after the check's build, so that any switch has run). Branchstate's switch takes a project
# whose tracked .project a checkout under the running IDE removed out of the workspace itself (as EGit does); after a
# checkout while the IDE was closed, core.resources closed it at start-up, and the headless sessions handle no switch
# for such a move: the import removes it then (counted). Returns 0 when it imported or opened a project (the check
# builds again).
sync_projects() {
	ide import "$repo" > "$logs/import-$step_no.log" || { cat "$logs/import-$step_no.log" >&2; fail "the import command failed"; }
	if grep -q '^removed ' "$logs/import-$step_no.log"; then
		n_import_removed=$((n_import_removed + 1))
		say "   removed by the import (closed at start-up: its .project was gone): $(grep '^removed ' "$logs/import-$step_no.log" | awk '{print $2}' | paste -sd' ')"
	fi
	grep -q -E '^imported ([1-9]|.*opened [1-9])' "$logs/import-$step_no.log" || return 1
	n_imports=$((n_imports + 1))
	say "   imported as a user does: $(grep '^project ' "$logs/import-$step_no.log" | awk '{print $2}' | paste -sd' ') ($(tail -1 "$logs/import-$step_no.log"))"
}

# check: once the IDE is idle and built, the derived data equals a clean build; the invariants hold.
check() {
	local log=$logs/check-$step_no.log diffs now_porcelain now_print indexes=check
	# the dump of the step's last IDE session, when it ended normally and the tree is still the one it indexed
	rm -rf "$dir/index-step" "$dir/index-check"
	if [ -f "$dumps.tree" ] && [ "$(cat "$dumps.tree")" = "$(fingerprint)" ]; then
		mv "$dumps" "$dir/index-step"
		indexes="step's session and check"
		n_dump_compared=$((n_dump_compared + 1))
	elif [ -f "$dumps.tree" ]; then
		n_dump_tree_changed=$((n_dump_tree_changed + 1))
	elif [ $step_killed = 1 ]; then
		n_dump_killed=$((n_dump_killed + 1)) # (the step's last session was killed: its dump is not compared)
	elif [ -n "$session_pid" ] && [ $step_cmds -gt 0 ]; then
		n_dump_live=$((n_dump_live + 1)) # (the step's commands ran in the session the check runs in: its dump is the check's)
	else
		n_dump_no_session=$((n_dump_no_session + 1)) # (Git work only: the check's commands are the first after it)
	fi
	phase_t=$(now_us)
	clean_build_start # (the batch reference made while the IDE builds)
	check_phase clean_reference
	ide build "$repo" --problems > "$log" || { cat "$log" >&2; fail "the build command failed"; }
	check_phase build
	if sync_projects; then
		check_phase import
		ide build "$repo" --problems > "$log" || { cat "$log" >&2; fail "the build command failed"; }
		check_phase build
	else
		check_phase import
	fi
	if jdt_failed; then
		# not Branchstate's, and what a user meets then is JDT's error marker: they clean the project. The step is not
		# compared (counted as jdt_failures); Branchstate must not have saved what the failed build left (the next
		# steps would restore it: compared then)
		n_jdt=$((n_jdt + 1))
		say "   JDT's compiler failed in this step (module java.base not found: eclipse-jdt/eclipse.jdt.core#284); not compared: Project > Clean, as a user would"
		mv "$ws/.metadata/.log" "$logs/workspace-$step_no.log"
		ide switch "$repo" --clean-build > "$logs/clean-$step_no.log" || { cat "$logs/clean-$step_no.log" >&2; fail "the clean build failed"; }
		ide build "$repo" --problems > "$log" || { cat "$log" >&2; fail "the build command failed"; }
		! jdt_failed || fail "JDT's compiler failed again, in the clean build or the session after it"
	fi
	[ ! -f "$ws/.metadata/.log" ] || mv "$ws/.metadata/.log" "$logs/workspace-$step_no.log"
	grep '^problem ' "$log" > "$dir/problems.txt" || true
	now_porcelain=$(porcelain)
	now_print=$(fingerprint)
	if [ "$now_porcelain" != "$expected_porcelain" ] || [ "$now_print" != "$expected_print" ]; then
		n_tracked=$((n_tracked + 1))
		diff <(echo "$expected_porcelain") <(echo "$now_porcelain") >&2 || true
		fail "the work tree changed during the IDE session (git status or contents): a tracked or user file written"
	fi
	# the Java index's dump now, by the session itself (as at exit: once its work is done, each file renamed into place)
	check_phase build # (the JDT failure's clean build and the tree's checks with it)
	ide dump "$dir/index-check" > "$logs/dump-$step_no.log" || { cat "$logs/dump-$step_no.log" >&2; fail "the dump command failed"; }
	[ -f "$dir/index-check/commons-lang.dump" ] || fail "the dump command wrote no dump of the Java index"
	rm -rf "$dumps" "$dumps.tree" # (a dump at an earlier exit is compared now, never again)
	rm -f "$ws/.metadata/trace.log"
	step_sessions=0 step_cmds=0 step_killed=0
	check_phase dump
	clean_build_finish
	check_phase clean_reference
	# a project whose build path is broken in this tree (a source folder missing): JDT does not build it, and its
	# aborted build leaves the output folder as it was (a control workspace without Branchstate keeps the same class
	# files; step 278 of seed 11). That output is JDT's, not Branchstate's (Branchstate leaves such a project to its
	# builders): not compared, its markers are. Once its build path is whole again JDT builds it in full (the aborted
	# build cleared its last state: JavaBuilder.build), and the check compares it again
	local unbuilt unbuilt_re
	unbuilt=$(unbuildable "$clean/problems.txt")
	unbuilt_re='^$'
	if [ -n "$unbuilt" ]; then
		n_unbuilt=$((n_unbuilt + 1))
		unbuilt_re="  \\./($(paste -sd'|' <<<"$unbuilt"))/bin/"
		say "   $(paste -sd' ' <<<"$unbuilt"): build path broken in this tree, JDT does not build it; its bin/ is JDT's, not compared"
	fi
	# the files of bin/ (as JDT's own check does: an empty package folder that JDT's incremental build leaves when
	# the last file of a package goes is not a divergence), the problems, the Java index of the step's session and of
	# the check's
	diffs=$( { diff <(manifest "$clean/tree" | grep -Ev "$unbuilt_re") <(manifest "$repo" | grep -Ev "$unbuilt_re") || true
		diff "$clean/problems.txt" "$dir/problems.txt" || true
		[ ! -d "$dir/index-step" ] || diff -r --label "fresh index" --label "index at the end of the step's session" "$clean/index" "$dir/index-step" || true
		diff -r --label "fresh index" --label "index of the check's session" "$clean/index" "$dir/index-check" || true; } )
	if [ -n "$diffs" ]; then
		n_divergences=$((n_divergences + 1))
		echo "DIVERGENCE at seed=$seed step=$step_no ($step_name) on $(git -C "$repo" rev-parse --abbrev-ref HEAD)@$(git -C "$repo" rev-parse --short HEAD):" >&2
		head -40 <<<"$diffs" >&2
		echo "(clean build: $clean; session log: $log)" >&2
		fail "derived data differs from a clean build"
	fi
	check_phase compare
	# verify: every archive sound, but the one the driver damaged (deleted here)
	store_tool verify > "$logs/verify-$step_no.log" || true
	local corrupt
	corrupt=$(grep '^corrupt ' "$logs/verify-$step_no.log" | awk '{print $2}' || true)
	for c in $corrupt; do
		if [ "$c" = "${damaged:-}" ]; then
			ide delete "$repo" "$c" > /dev/null || fail "could not delete the damaged state $c"
			say "   deleted the damaged state ${c:0:10}"
		elif [ -n "${damaged_inode:-}" ] && shares_inode "$(awk -v c="$c" '$1 == "corrupt" && $2 == c {print $3}' "$logs/verify-$step_no.log" | sed 's/:$//')" "$damaged_inode"; then
			# a state that shares entries with the damaged one links its file: damaged with it
			ide delete "$repo" "$c" > /dev/null || fail "could not delete the state $c"
			say "   deleted the state ${c:0:10}, which links the damaged file"
		else
			cat "$logs/verify-$step_no.log" >&2
			fail "verify found an archive corrupt that the driver did not damage: $c"
		fi
	done
	damaged= damaged_inode=
	grep -q ' corrupt$' "$logs/verify-$step_no.log" || fail "verify printed no summary"
	# the disk budget: the archives of the catalog fit it, unless a single one is left (a save never evicts the state
	# it adds)
	local archives total
	archives=$(awk '/^(ok|corrupt) / {print $3}' "$logs/verify-$step_no.log" | sed 's/:$//')
	# on disk: every file under states/ once (an archive that shares a previous state's entries links its files)
	total=$(find "$store/states" -type f -printf '%i %s\n' | sort -u -k1,1 | awk '{t += $2} END {print t + 0}')
	if [ "$total" -gt $((budget_mb * 1024 * 1024)) ] && [ "$(grep -c . <<<"$archives")" -gt 1 ]; then
		# at once, what made it (an archive being written, a link left): every file with its inode, size and time,
		# and the IDE's threads
		find "$store/states" -type f -printf '%i %s %TT %p\n' | sort -k4 > "$logs/store-over-budget-$step_no.txt"
		[ -z "$session_pid" ] || "$JAVA_HOME/bin/jcmd" "$session_pid" Thread.print > "$logs/threads-over-budget-$step_no.txt" 2>&1 || true
		cat "$logs/verify-$step_no.log" "$logs/store-over-budget-$step_no.txt" >&2
		fail "the stored states take $total bytes, more than the disk budget of $budget_mb MiB"
	fi
	# a restore killed while writing: its record goes once the IDE has started again (its derived data removed and
	# rebuilt in full: compared with a clean build above)
	if compgen -G "$restores/*" > /dev/null; then
		ls -l "$restores" >&2
		fail "the record of an unfinished restore is left after the IDE started again"
	fi
	# leftovers: files under states/ that no catalog entry names (each counted once): what a killed save left (its
	# writer's temporary file, its hold on the archive's name, a complete archive not named yet) must be gone once
	# the IDE has started again
	local left
	left=$(find "$store/states" -type f | sort | comm -23 - <(archive_files < <(awk '/^(ok|corrupt) / {print $3}' "$logs/verify-$step_no.log" | sed 's/:$//') | sort) \
		| comm -23 - <(sort -u "$dir/leftovers.seen" 2>/dev/null) || true)
	if [ -n "$left" ]; then
		# the IDE session of the check started after any kill: what a killed save left must be gone by now
		n_leftovers=$((n_leftovers + $(wc -l <<<"$left")))
		echo "$left" >> "$dir/leftovers.seen"
		say "   LEFTOVER files in the store that the catalog does not name ($(wc -l <<<"$left")):"
		sed 's/^/     /' <<<"$left"
		fail "files left in the store after the IDE started again"
	fi
	check_phase store
	say "   ok: bin/ $(manifest "$repo" | wc -l) files = clean build, $(wc -l < "$dir/problems.txt") problems = clean build," \
		"Java index ($indexes) = fresh index ($(cat "$clean"/index/*.dump | grep -c '^[^ ]') units);" \
		"git status as the driver left it; $(tail -1 "$logs/verify-$step_no.log"), $((total / 1024)) kB <= budget"
}

# ------------------------------------------------------------------------------------------------ steps

branches() { git -C "$repo" branch --format='%(refname:short)'; }
current() { git -C "$repo" rev-parse --abbrev-ref HEAD; }
other_branch() { # sets $ob to a random branch other than the current one (empty when there is none)
	local bs
	mapfile -t bs < <(branches | grep -v -x "$(current)" || true)
	ob=
	[ ${#bs[@]} = 0 ] || ob=${bs[RANDOM % ${#bs[@]}]}
}
commit_pending() { # a checkout needs a clean tree: the driver commits its pending edits first
	if [ -n "$(porcelain)" ]; then
		git -C "$repo" add -A && git -C "$repo" commit -q -m "soak: pending edits before a checkout"
		say "   committed the pending edits first"
	fi
}
switch_args() { [ $auto = on ] && echo --with-branchstate || echo --without-branchstate; }
stored_states() { store_tool list | awk '/^state / {print $2}'; }
# the files of the archives named on standard input: each, and the links beside it to the files it continues when it
# shares a previous state's entries (<archive>.1, <archive>.2, …)
archive_files() { local a; while read -r a; do [ -n "$a" ] || continue; echo "$a"; ls -1d "$a".[0-9]* 2>/dev/null || true; done; }
# whether one of the files of archive $1 is the file whose inode is $2 (a link to it)
shares_inode() { [ -n "$1" ] && echo "$1" | archive_files | xargs -r stat -c %i | grep -qx "$2"; }

step_ide_checkout() {
	local b
	other_branch; b=$ob
	[ -n "$b" ] || { step_new_branch; return; }
	commit_pending
	step_name="in-IDE checkout of $b (automatic switching $auto)"
	announce
	ide_checkout_of "$b"
}
# ide_checkout_of <branch>: the headless switch (JGit) of the branch; a checkout from a clean tree leaves a clean tree:
# anything else was written by someone else
ide_checkout_of() {
	ide switch "$repo" "$1" "$(switch_args)" > "$logs/step-$step_no.log" || say "   the switch command exited with $?"
	grep -E '^(saved|restored|skipped|failed|checkout) ' "$logs/step-$step_no.log" | sed 's/^/   /' || true
	[ "$(current)" = "$1" ] || { cat "$logs/step-$step_no.log" >&2; fail "the checkout of $1 did not happen"; }
	expected_porcelain= expected_print=$(fingerprint)
}
step_terminal_checkout() {
	local b
	other_branch; b=$ob
	[ -n "$b" ] || { step_new_branch; return; }
	commit_pending
	n_terminal=$((n_terminal + 1))
	if [ $((n_terminal % 2)) = 0 ] || [ -z "$session_pid" ]; then
		# the IDE closed first: the switch is handled when it starts again (the check's start)
		step_name="terminal checkout of $b while the IDE is closed (automatic switching $auto)"
		announce
		session_stop
	else
		step_name="terminal checkout of $b while the IDE runs (automatic switching $auto)"
		announce
	fi
	terminal_checkout_of "$b"
}
# terminal_checkout_of <branch>: git checkout; a running session must notice it itself (its HEAD watch): await-switch
# asks for no check, it waits for the ends of the session's switch jobs until HEAD as it is now is handled (bounded:
# 5 minutes)
terminal_checkout_of() {
	git -C "$repo" checkout -q "$1"
	if [ -n "$session_pid" ]; then
		ide await-switch "$repo" > "$logs/step-$step_no.log" \
			|| { cat "$logs/step-$step_no.log" >&2; fail "the running IDE session did not handle the terminal checkout of $1 itself"; }
	fi
	expect_tree
}
step_new_branch() {
	local b=soak-$step_no
	step_name="new branch $b (git checkout -b)"
	announce
	git -C "$repo" checkout -q -b "$b"
	expect_tree
}
step_commit() {
	java_edit
	# (an edit that undoes an uncommitted one, a source folder put back on the build path, leaves nothing to commit:
	# seed 5, step 11; another edit then)
	while [ -z "$(porcelain)" ]; do java_edit; done
	git -C "$repo" add -A && git -C "$repo" commit -q -m "soak step $step_no: $edit"
	step_name="commit: $edit"
	announce
	expect_tree
}
step_uncommitted() {
	java_edit
	step_name="uncommitted: $edit"
	announce
	expect_tree
}
step_reset() {
	if [ -n "$(porcelain)" ]; then
		git -C "$repo" reset -q --hard && git -C "$repo" clean -q -fd -e bin
		step_name="git reset --hard (uncommitted edits dropped)"
	elif [ "$(git -C "$repo" rev-list --count HEAD)" -gt 1 ]; then
		git -C "$repo" reset -q --hard HEAD~1
		step_name="git reset --hard HEAD~1"
	else
		step_uncommitted; return
	fi
	announce
	expect_tree
}
step_stash() {
	[ -n "$(porcelain)" ] || { java_edit; say "   (an edit to stash: $edit)"; }
	step_name="git stash, IDE session, git stash pop"
	announce
	git -C "$repo" stash -q -u
	expect_tree
	check
	git -C "$repo" stash pop -q
	expect_tree
}
# upstream_edit <branch> <whose>: the second clone's branch brought to the developer's (fetched from it), an edit
# committed on top of it (sets $edit)
upstream_edit() {
	local here=$repo
	git -C "$upstream" fetch -q origin
	git -C "$upstream" checkout -q -B "$1" "origin/$1"
	repo=$upstream; java_edit; repo=$here
	git -C "$upstream" add -A && git -C "$upstream" commit -q -m "soak step $step_no, $2: $edit"
}
# a fast-forward pull of the current branch from the second clone, where an edit was committed on top of it
step_pull() {
	local b
	b=$(current)
	[ "$b" != HEAD ] || { step_commit; return; }
	commit_pending
	upstream_edit "$b" "second clone"
	step_name="git pull --ff-only of $b from a second clone: $edit"
	announce
	git -C "$repo" pull -q --ff-only "$upstream" "$b"
	expect_tree
}
# resolve_conflicts: every conflicted file as the commit being applied has it (deleted when it deletes it, or when the
# index has no version of it left: a rename/delete conflict), staged
# (the list read whole first, by a `git diff` that takes no optional lock: fed to the loop as it ran, `git diff` went on
# after its output to refresh the index under index.lock, and the loop's `git rm` met that lock: seed 11, step 579)
resolve_conflicts() {
	local f conflicted
	mapfile -t conflicted < <(git --no-optional-locks -C "$repo" diff --name-only --diff-filter=U)
	for f in "${conflicted[@]}"; do
		git -C "$repo" checkout -q --theirs -- "$f" 2>/dev/null && git -C "$repo" add -- "$f" || git -C "$repo" rm -q -f --ignore-unmatch -- "$f" > /dev/null
	done
}
# git_in_progress <operation>: what a rebase, merge, cherry-pick or revert left to do, resolved or aborted (a third of
# the time, or after 20 rounds of conflicts); sets $how
git_in_progress() {
	local op=$1 git_dir i=0
	git_dir=$(git -C "$repo" rev-parse --absolute-git-dir)
	in_progress() {
		case $op in
		rebase) [ -d "$git_dir/rebase-merge" ] || [ -d "$git_dir/rebase-apply" ] ;;
		merge) [ -f "$git_dir/MERGE_HEAD" ] ;;
		cherry-pick) [ -f "$git_dir/CHERRY_PICK_HEAD" ] ;;
		revert) [ -f "$git_dir/REVERT_HEAD" ] ;;
		esac
	}
	in_progress || { how=clean; return; }
	if [ $((RANDOM % 3)) = 0 ]; then
		git -C "$repo" "$op" --abort
		how="conflict, aborted"
		return
	fi
	how="conflicts resolved"
	while in_progress; do
		i=$((i + 1))
		if [ $i -gt 20 ]; then
			git -C "$repo" "$op" --abort
			how="conflicts, aborted after 20 rounds"
			return
		fi
		resolve_conflicts
		if [ $op = merge ]; then
			git -C "$repo" commit -q --no-edit >> "$logs/step-$step_no-git.log" 2>&1 || true
		elif ! GIT_EDITOR=true git -C "$repo" "$op" --continue >> "$logs/step-$step_no-git.log" 2>&1; then
			# (nothing left to commit once resolved: the commit is dropped)
			[ -n "$(git -C "$repo" diff --name-only --diff-filter=U)" ] || git -C "$repo" "$op" --skip >> "$logs/step-$step_no-git.log" 2>&1 || true
		fi
	done
}
# apply_git <operation> <step name> <arguments>...: git <operation> <arguments> (its output in the step's git log), what
# it leaves to do resolved or aborted (git_in_progress), the step named with how it went and announced as the calling
# step's kind
apply_git() {
	local op=$1 name=$2 how
	shift 2
	git -C "$repo" "$op" "$@" > "$logs/step-$step_no-git.log" 2>&1 || true
	git_in_progress "$op"
	step_name="$name ($how)"
	announce "${FUNCNAME[1]#step_}"
	expect_tree
}
# git rebase of the current branch onto another one (while the IDE runs: HEAD is detached while it replays)
step_rebase() {
	other_branch
	[ -n "$ob" ] && [ "$(current)" != HEAD ] || { step_new_branch; return; }
	commit_pending
	apply_git rebase "git rebase $ob" -q "$ob"
}
# git merge of another branch: a fast-forward when it can, else a merge commit
step_merge() {
	other_branch
	[ -n "$ob" ] && [ "$(current)" != HEAD ] || { step_new_branch; return; }
	commit_pending
	if git -C "$repo" merge-base --is-ancestor HEAD "$ob"; then
		apply_git merge "git merge $ob, a fast-forward" -q --ff-only "$ob"
	else
		apply_git merge "git merge $ob, a merge commit" -q --no-edit "$ob"
	fi
}
# git cherry-pick of a commit of another branch that the current one lacks
step_cherry_pick() {
	local cs=() c bs
	# a random branch among those with commits HEAD lacks (most branches of a long run are ancestors of HEAD)
	mapfile -t bs < <(git -C "$repo" branch --no-merged HEAD --format='%(refname:short)')
	[ ${#bs[@]} -gt 0 ] && ob=${bs[RANDOM % ${#bs[@]}]} \
		&& mapfile -t cs < <(git -C "$repo" rev-list --no-merges --max-count=20 "HEAD..$ob")
	[ ${#cs[@]} -gt 0 ] || { step_commit; return; }
	commit_pending
	c=${cs[RANDOM % ${#cs[@]}]}
	apply_git cherry-pick "git cherry-pick ${c:0:10} of $ob" "$c"
}
# git revert of one of the last commits
step_revert() {
	local c
	[ "$(git -C "$repo" rev-list --count --no-merges HEAD)" -gt 3 ] || { step_commit; return; }
	commit_pending
	c=$(git -C "$repo" rev-list --no-merges --max-count=3 HEAD | sed -n "$((1 + RANDOM % 3))p")
	apply_git revert "git revert ${c:0:10}" --no-edit "$c"
}
# git bisect: start between HEAD and an older commit, a few verdicts (each checkout compared with a clean build),
# reset
step_bisect() {
	local n good verdict i out
	commit_pending
	n=$(git -C "$repo" rev-list --count --first-parent HEAD)
	[ "$n" -ge 5 ] || { step_commit; return; }
	good=$(git -C "$repo" rev-parse "HEAD~$((3 + RANDOM % (n - 3 > 16 ? 16 : n - 3)))")
	step_name="git bisect start HEAD ${good:0:10}, verdicts, reset"
	announce
	git -C "$repo" bisect start HEAD "$good" > "$logs/step-$step_no-git.log" 2>&1
	for i in 1 2 3; do
		expect_tree
		check
		verdict=$([ $((RANDOM % 2)) = 0 ] && echo good || echo bad)
		out=$(git -C "$repo" bisect "$verdict" 2>&1) || true
		echo "$out" >> "$logs/step-$step_no-git.log"
		say "   git bisect $verdict: $(head -1 <<<"$out" | cut -c1-100)"
		! grep -q 'is the first bad commit' <<<"$out" || break
	done
	expect_tree
	check
	git -C "$repo" bisect reset >> "$logs/step-$step_no-git.log" 2>&1
	expect_tree
}
# git clean -fdx: the output folders (and untracked files) deleted under the running IDE, then Project > Clean, as a
# user does: JDT does not rebuild class files deleted by others (its option "Rebuild class files modified by others",
# JavaCore.CORE_JAVA_BUILD_RECREATE_MODIFIED_CLASS_FILES_IN_OUTPUT_FOLDER, is off by default: IncrementalImageBuilder
# ignores the output folder's delta), with or without Branchstate. What the check compares is what Branchstate did
# with the deleted output meanwhile and the states it saves and restores after it.
step_clean() {
	step_name="git clean -fdx (every bin/ deleted under the IDE), then Project > Clean"
	announce
	git -C "$repo" clean -q -fdx
	ide switch "$repo" --clean-build > "$logs/step-$step_no.log" || { cat "$logs/step-$step_no.log" >&2; fail "Project > Clean failed"; }
	expect_tree
}
# git worktree add: another branch checked out in a second work tree, a commit and a checkout there; the workspace's
# work tree must be left as it is
step_worktree() {
	local b wt=$dir/worktree here=$repo
	other_branch; b=$ob
	[ -n "$b" ] || { step_new_branch; return; }
	step_name="git worktree add of $b, a commit and a checkout in it, worktree remove"
	announce
	git -C "$repo" worktree add -q "$wt" "$b" 2> "$logs/step-$step_no-git.log"
	git -C "$wt" checkout -q -b "wt-$step_no"
	repo=$wt; java_edit; repo=$here
	git -C "$wt" add -A && git -C "$wt" commit -q -m "soak step $step_no, in a second work tree: $edit"
	git -C "$wt" checkout -q "$b"
	git -C "$repo" worktree remove --force "$wt"
	say "   in the worktree: $edit"
	expect_tree
}
# remote: CI publishes the next commit of the current branch (an edit committed in the second clone, built, saved and
# published in CI's workspace: one IDE session), a third of the time with the published archive then tampered with
# (8 bytes flipped in the middle of the object); the developer runs `git fetch ci` (the session may prefetch the state)
# and `git merge --ff-only`, and the running session handles the move within the branch (await-switch): it restores
# the published state when that leaves less to redo, and must refuse a tampered one (the check: equal to a clean
# build, every local archive sound)
step_remote() {
	local b out c tamper=$((RANDOM % 3 == 0)) object
	b=$(current)
	[ "$b" != HEAD ] || { step_commit; return; }
	commit_pending
	upstream_edit "$b" "CI's clone"
	c=$(git -C "$upstream" rev-parse HEAD)
	# (CI imports the projects of the tree first: a branch may add or remove one)
	{ ci import "$upstream" && ci build "$upstream" && ci save "$upstream" \
		&& ci publish "$upstream" "--signing-key=$dir/keys/branchstate-signing.pem"; } > "$logs/step-$step_no-ci.log" 2>&1 || true
	grep -q "^published $c " "$logs/step-$step_no-ci.log" || { tail -20 "$logs/step-$step_no-ci.log" >&2; fail "CI did not publish the state of $c"; }
	n_published=$((n_published + 1))
	if [ "$tamper" = 1 ]; then
		# the archive CI published for $c (archives/<commit>-<digest>.bsa; seed 13 step 66 found that "the largest of the
		# newest objects" could be another commit's archive, whose fetch then rightly succeeded)
		object=$(find "$s3data/states" -type f -path "*/archives/$c-*.bsa" | head -1)
		[ -n "$object" ] || fail "no published archive of $c to tamper with"
		local size
		size=$(stat -c %s "$object")
		printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$object" bs=1 seek=$((size / 2)) conv=notrunc status=none
		n_tampered=$((n_tampered + 1))
		step_name="remote: CI published ${c:0:10} on $b ($edit), its archive TAMPERED with (8 bytes at $((size / 2)) of $size), git fetch ci, git merge --ff-only"
	else
		step_name="remote: CI published ${c:0:10} on $b ($edit), git fetch ci, git merge --ff-only"
	fi
	announce
	git -C "$repo" fetch -q ci
	git -C "$repo" merge -q --ff-only "ci/$b"
	# (the session, started now when none runs, handles the merge itself: its watch, or its start)
	ide await-switch "$repo" > "$logs/step-$step_no.log" \
		|| { cat "$logs/step-$step_no.log" >&2; fail "the IDE session did not handle the merge of ci/$b itself"; }
	if [ "$tamper" = 1 ]; then
		# the switch fetches only when no local state is close enough, the prefetch only the branches it follows: when
		# either fetched the archive, the workspace log names it and why (the check moves the log away, so it holds
		# this step's entries); then a fetch asked for (the headless `fetch`, as CI's consumers and scripts do) must
		# refuse it, whatever the switch did
		local refusal='archive was changed, refused' asked=$logs/step-$step_no-fetch.log
		if grep -q "archives/$c-.*$refusal" "$ws/.metadata/.log" 2>/dev/null; then
			n_remote_refused=$((n_remote_refused + 1))
			say "   refused by the switch or the prefetch (the workspace log names the archive)"
		else
			say "   not fetched by the switch or the prefetch (a local state was close enough)"
		fi
		ide fetch "$repo" "$c" > "$asked" && { cat "$asked" >&2; fail "the fetch of the tampered state of $c succeeded"; }
		grep -q "archives/$c-[0-9a-f]*\.bsa: its SHA-256 is [0-9a-f]*, the signed manifest says [0-9a-f]*: the $refusal" "$asked" \
			|| { cat "$asked" >&2; fail "the fetch of the tampered state of $c failed without naming the archive and why"; }
		n_fetch_refused=$((n_fetch_refused + 1))
		say "   the fetch asked for refused it: $(grep -o "its SHA-256 is .*" "$asked" | head -1 | cut -c1-120)"
	elif stored_states | grep -q -x "$c"; then
		n_remote_restored=$((n_remote_restored + 1))
		say "   the published state of ${c:0:10} is in the local store"
	else
		say "   the published state of ${c:0:10} is not in the local store (not fetched: a local state left as little to redo)"
	fi
	expect_tree
}
# Restore State of another stored commit (an older one) onto the working tree as it is: its derived data comes
# back and the sources that differ are rebuilt
step_restore_older() {
	local cs c head
	head=$(git -C "$repo" rev-parse HEAD)
	mapfile -t cs < <(stored_states | grep -v -x "$head" || true)
	[ ${#cs[@]} -gt 0 ] || { step_save; return; }
	c=${cs[RANDOM % ${#cs[@]}]}
	step_name="Restore State of ${c:0:10} onto $(current)@${head:0:10}"
	announce
	ide restore "$repo" "$c" > "$logs/step-$step_no.log" || say "   the restore command exited with $?"
	grep -E '^(restored|branchstate:) ' "$logs/step-$step_no.log" | cut -c1-160 | sed 's/^/   /' || true
	expect_tree
}
step_save() {
	step_name="Save State"
	announce
	ide save "$repo" > "$logs/step-$step_no.log" || { cat "$logs/step-$step_no.log" >&2; fail "save failed"; }
	grep -E '^(saved|branchstate:) ' "$logs/step-$step_no.log" | cut -c1-90 | sed 's/^/   /' || true
	expect_tree
}
step_delete() {
	local c
	local cs
	mapfile -t cs < <(stored_states)
	c=
	[ ${#cs[@]} = 0 ] || c=${cs[RANDOM % ${#cs[@]}]}
	[ -n "$c" ] || { step_save; return; }
	step_name="delete the stored state ${c:0:10}"
	announce
	ide delete "$repo" "$c" > "$logs/step-$step_no.log" || fail "delete failed"
	expect_tree
}
# damage: the state of another branch's tip (or any state): flip bytes in the middle or truncate; verify must name
# it; then the branch is checked out in the IDE, its restore's plan on the platform's trace (-debug with the option
# dev.branchstate.core/debug/restore: every entry it reads, in the workspace's .metadata/trace.log). A restore checks
# everything it reads before it writes: damage it reads (an entry it must write, or the archive's central directory)
# refuses it with nothing written; damage in an entry the plan found identical on disk is not read, and the restore
# goes on (that entry is read, and refused, by whatever needs it later, and by verify). Either way the workspace must equal a clean build after it (the check).
step_damage() {
	local b c archive size how line damaged_entry reads
	commit_pending
	for b in $(branches | grep -v -x "$(current)"); do
		c=$(git -C "$repo" rev-parse "$b")
		stored_states | grep -q -x "$c" && break
		c=
	done
	[ -n "${c:-}" ] || { step_save; return; }
	archive=$(store_tool verify | awk -v c="$c" '$2 == c {print $3}')
	[ -f "$archive" ] || fail "no archive for state $c"
	size=$(stat -c %s "$archive")
	if [ $((RANDOM % 2)) = 0 ]; then
		printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$archive" bs=1 seek=$((size / 2)) conv=notrunc status=none
		how="8 bytes flipped at $((size / 2)) of $size"
	else
		truncate -s $((size * 2 / 3)) "$archive"
		how="truncated to $((size * 2 / 3)) of $size bytes"
	fi
	n_damaged=$((n_damaged + 1))
	damaged=$c damaged_inode=$(stat -c %i "$archive")
	step_name="damage the state of $b (${c:0:10}): $how, then in-IDE checkout of $b"
	announce
	ide verify "$repo" > "$logs/step-$step_no-verify.log" && fail "verify did not find the damaged archive"
	grep -q "^corrupt $c " "$logs/step-$step_no-verify.log" || fail "verify did not name the damaged archive"
	# the checks verify the store in a plain JVM (store_tool): here, with damage to find, it must say what the IDE's
	# headless verify says, line for line
	store_tool verify > "$logs/step-$step_no-verify-jvm.log" && fail "the plain JVM's verify did not find the damaged archive"
	diff <(grep -E '^(ok|corrupt) | corrupt$' "$logs/step-$step_no-verify.log") <(grep -E '^(ok|corrupt) | corrupt$' "$logs/step-$step_no-verify-jvm.log") >&2 \
		|| fail "the plain JVM's verify (releng/soak/SoakStore.java) differs from the IDE's verify"
	# the entry the damage is in, when verify names one (none: the central directory or the archive's end)
	damaged_entry=$(grep "^corrupt $c " "$logs/step-$step_no-verify.log" | sed -n "s/.*, entry '\([^']*\)'.*/\1/p" | head -1)
	local trace=$logs/step-$step_no-trace.log
	rm -f "$ws/.metadata/trace.log" # (the session traces every restore's plan: this switch's alone is kept; the
	# platform opens the trace file for each line)
	ide switch "$repo" "$b" --with-branchstate > "$logs/step-$step_no.log" || true
	mv "$ws/.metadata/trace.log" "$trace" 2>/dev/null || : > "$trace" # (the platform's trace file: no restore, no trace)
	grep -E '^(saved|restored|skipped|failed|checkout) ' "$logs/step-$step_no.log" | sed 's/^/   /' || true
	[ "$(current)" = "$b" ] || fail "the checkout of $b did not happen"
	reads=$(grep -o -E "restore plan of ${c}: reads [0-9]+ entries, [0-9]+ identical on disk" "$trace" | tail -1 || true)
	if grep -q "^restored ${c:0:10}" "$logs/step-$step_no.log"; then
		[ -n "$damaged_entry" ] || fail "the damaged state was restored (damage outside any entry: $how)"
		[ -n "$reads" ] || fail "the damaged state was restored, and its plan is not on the trace"
		if grep -q -F "restore reads $damaged_entry |" "$trace"; then
			fail "the damaged state was restored, and its plan reads the damaged entry $damaged_entry"
		fi
		say "   not needed: the damage is in $damaged_entry, which the plan found identical on disk (${reads#restore plan of $c: }): not read"
		n_unread=$((n_unread + 1))
	else
		if [ -n "$reads" ] && [ -n "$damaged_entry" ]; then
			grep -q -F "restore reads $damaged_entry |" "$trace" \
				&& say "   refused: the plan reads the damaged entry $damaged_entry (${reads#restore plan of $c: })" \
				|| say "   not restored: the plan does not read the damaged entry $damaged_entry; $(grep -E '^(failed|skipped) ' "$logs/step-$step_no.log" | tail -1 | cut -c1-160)"
		else
			say "   ${reads:+refused}${reads:-not restored, no plan made} (the damage: ${damaged_entry:-outside any entry}${reads:+; $reads})"
		fi
		n_refused=$((n_refused + 1))
	fi
	expected_porcelain= expected_print=$(fingerprint)
}
# kill -9 of the IDE session during a switch, a save or a build, at a random moment; then the IDE starts again (the
# check's session)
step_kill() {
	local b what delay log=$logs/step-$step_no.log kind=$((RANDOM % 3))
	if [ $kind = 0 ] && other_branch && b=$ob && [ -n "$b" ]; then
		commit_pending
		what="switch to $b"
		set -- switch "$repo" "$b" "$(switch_args)"
	elif [ $kind = 1 ]; then
		java_edit
		what="build after an edit ($edit)"
		set -- build "$repo"
	else
		what="save"
		set -- save "$repo"
	fi
	# the moment (in the running session, warm): a random time after the command was sent; or a random time after
	# the work began: a switch's restore on record (0-50 ms: it writes the derived data), else the checkout (its log
	# line) or the first archive file the save writes in the store (0-400 ms); or 0-300 ms after the work finished
	# (its end line) and the session was told to exit: the exit's work, the Java index's dump and the workspace's
	# save as the IDE shuts down
	local trigger=$((RANDOM % 3)) known rc=0 point reader
	case $trigger in
	0) delay=$((1500 + RANDOM % 9000)); delay=$((delay * 3 / 10)) ;; # (0.45-3.6 s: before issue 34's session, from the JVM's start)
	1) delay=$((RANDOM % 400)) ;;
	2) delay=$((RANDOM % 300)) ;;
	esac
	if [ $trigger = 1 ] && [[ $what == switch* ]]; then
		delay=$((delay / 8))
		step_name="kill -9 of the IDE ${delay} ms after the restore of a $what began writing (if it restores)"
	elif [ $trigger = 1 ]; then
		step_name="kill -9 of the IDE ${delay} ms after the $what began writing"
	elif [ $trigger = 2 ]; then
		step_name="kill -9 of the IDE ${delay} ms after the $what finished (while it exits)"
	else
		step_name="kill -9 of the IDE ${delay} ms into a $what"
	fi
	announce
	[ -n "$session_pid" ] || session_start
	known=$(find "$store/states" -type f | sort)
	rm -rf "$dumps" "$dumps.tree"
	local t0
	t0=$(now_us)
	n_kill_attempts=$((n_kill_attempts + 1)) step_cmds=$((step_cmds + 1))
	# the command's output copied to the step's log as it comes (the kill is timed by it); the copy ends with the session
	cat <&"$ide_out" > "$log" &
	reader=$!
	(IFS=$'\t'; printf '%s\n' "$*") >&"$ide_in"
	if [ $trigger != 0 ]; then
		local until=$((SECONDS + 120))
		while kill -0 "$session_pid" 2>/dev/null && [ $SECONDS -lt $until ]; do
			if [ $trigger = 2 ]; then
				if grep -q "^$serve_end" "$log"; then
					printf 'exit\n' >&"$ide_in"
					break
				fi
			elif grep -q "^$serve_end" "$log"; then
				break # (the work is over: the kill lands on the idle session)
			elif [[ $what == switch* ]]; then
				compgen -G "$restores/*.restoring" > /dev/null && break
			else
				grep -q '^checkout ' "$log" && break
				[ -n "$(find "$store/states" -type f | sort | comm -13 <(echo "$known") - | head -1)" ] && break
			fi
			sleep 0.01
		done
	fi
	sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
	kill -9 "$session_pid" 2>/dev/null || true
	# whether the kill landed is the session's exit status, not kill's (a session that has ended but is not waited
	# for yet can still be signalled)
	wait "$session_pid" 2>/dev/null || rc=$?
	wait "$reader" || true
	exec {ide_in}>&- {ide_out}<&-
	session_pid=
	ide_us=$((ide_us + $(now_us) - t0))
	if [ $rc = 137 ]; then
		n_kills=$((n_kills + 1)) step_killed=1
		# where it landed, for the counts only: a killed session's exit work is never compared
		if ! grep -q "^$serve_end" "$log"; then
			point="during the work"
		elif [ $trigger != 2 ]; then
			point="after the work, the session idle"
		elif compgen -G "$dumps/*.dump" > /dev/null; then
			point="after the Java index's dump (the workspace's save at shutdown)"
		elif compgen -G "$dumps/.*.dump.tmp" > /dev/null; then
			point="during the Java index's dump"
		else
			point="after the work, before the Java index's dump"
		fi
		kill_points[$point]=$(( ${kill_points[$point]:-0} + 1 ))
		say "   killed $point; last lines: $(grep -E '^(saved|restored|skipped|failed|checkout|switch|refresh|built)' "$log" | tail -2 | tr '\n' ';')"
	else
		say "   the session had ended before the kill (exit $rc)"
		session_ended "$rc" "$*"
	fi
	if [ -f "$repo/.git/index.lock" ]; then
		rm -f "$repo/.git/index.lock"
		say "   removed .git/index.lock left by the killed checkout"
	fi
	if [[ $what == switch* ]] && [ -n "$(porcelain)" ]; then
		# the checkout was cut short: the work tree is half of each branch; a user forces the checkout again
		git -C "$repo" reset -q --hard && git -C "$repo" clean -q -fd -e bin
		say "   the killed checkout left the work tree half done: git reset --hard"
	fi
	expect_tree # the check's session is the IDE started again
	# (the batch reference of the tree made during the wait below)
	[ $reference != batch ] || clean_build_start
	if [ $rc = 137 ]; then
		# the store leaves a writer's temporary file alone for 2 s after its last write (WriterTemporaryFile's
		# CREATION_GRACE: a file is created before its writer locks it), and so the archive it names: an IDE that
		# opens the store sooner after a kill keeps what the killed save left until its next start. The check's
		# session is started no sooner than that after the kill's last write, by the files' times, not a fixed wait
		# (until issue 34 the verify session's start, seconds later, removed what the check's start had kept)
		while [ -n "$(find "$store" -type f -newermt '-3 seconds' -print -quit)" ]; do sleep 0.2; done
	fi
}
# full disk: the store's file system filled to a few hundred kB (less than an archive) before a save or a switch
# that saves; the save must fail cleanly: no catalog entry for a partial archive, no file left behind, the
# workspace equal to a clean build; then the space is freed again.
# A branch that adds a whole project, and checkouts into it and out of it (issue 34). soak-extra reads soak-api (its
# constant inlined, its method: the API rename breaks it too). Into such a branch: the checkout, then File > Import >
# Existing Projects as a user does (the check's sync_projects, for any step that brings the project). Out of it: the
# checkout, after which Branchstate's switch takes the project out of the workspace (as EGit does after its checkouts;
# left in it, core.resources would write its .project back into the work tree), its git-ignored bin/ left on disk. When
# no branch has the project: a new branch that adds it; when every branch has it: a commit that removes it.
extra=soak-extra
extra_project() { # writes the project soak-extra into the work tree
	mkdir -p "$repo/$extra/src/soak/extra"
	java_project "$repo/$extra" $extra
	cat > "$repo/$extra/.classpath" <<-'EOC'
	<?xml version="1.0" encoding="UTF-8"?>
	<classpath>
		<classpathentry kind="src" path="src"/>
		<classpathentry kind="con" path="org.eclipse.jdt.launching.JRE_CONTAINER"/>
		<classpathentry combineaccessrules="false" kind="src" path="/soak-api"/>
		<classpathentry kind="output" path="bin"/>
	</classpath>
	EOC
	printf 'package soak.extra;\n\nimport soak.api.Api;\n\n/** A project that some branches add: reads soak-api. */\npublic final class Extra {\n    static final int TWICE = Api.LEVEL * 2;\n    static String name() { return Api.name(); }\n}\n' \
		> "$repo/$extra/src/soak/extra/Extra.java"
}
step_project() {
	local b x with=() without=() how
	commit_pending
	for x in $(branches); do
		[ "$x" != "$(current)" ] || continue
		if git -C "$repo" cat-file -e "$x:$extra/.project" 2>/dev/null; then with+=("$x"); else without+=("$x"); fi
	done
	if [ -f "$repo/$extra/.project" ]; then
		if [ ${#without[@]} = 0 ]; then
			step_name="a commit that removes the project $extra (git rm -r)"
			announce
			git -C "$repo" rm -q -r "$extra"
			git -C "$repo" commit -q -m "soak step $step_no: remove the project $extra"
			n_projects_removed=$((n_projects_removed + 1))
			expect_tree
			return
		fi
		b=${without[RANDOM % ${#without[@]}]}
		n_projects_removed=$((n_projects_removed + 1))
		how="without the project $extra"
	elif [ ${#with[@]} = 0 ]; then
		step_name="new branch extra-$step_no that adds the project $extra"
		announce
		git -C "$repo" checkout -q -b "extra-$step_no"
		extra_project
		git -C "$repo" add -A && git -C "$repo" commit -q -m "soak step $step_no: add the project $extra"
		expect_tree
		return
	else
		b=${with[RANDOM % ${#with[@]}]}
		how="with the project $extra"
	fi
	if [ $((RANDOM % 2)) = 0 ]; then
		step_name="in-IDE checkout of $b, $how (automatic switching $auto)"
		announce
		ide_checkout_of "$b"
	else
		step_name="terminal checkout of $b, $how (automatic switching $auto)"
		announce
		terminal_checkout_of "$b"
	fi
}
step_full_disk() {
	[ $tmpfs = 1 ] || { step_save; return; }
	local b keep avail log=$logs/step-$step_no.log what
	keep=$(( (RANDOM % 400) * 1024 ))
	avail=$(df --output=avail -B1 "$store" | tail -1)
	head -c $((avail > keep ? avail - keep : 0)) /dev/zero > "$store/filler" 2>/dev/null || true
	if [ $((RANDOM % 2)) = 0 ] && [ $auto = on ] && other_branch && b=$ob && [ -n "$b" ]; then
		commit_pending
		what="in-IDE checkout of $b (saves the state left)"
		step_name="full disk ($(df --output=avail -B1 "$store" | tail -1) bytes free) during an $what"
		announce
		ide switch "$repo" "$b" --with-branchstate > "$log" || say "   the switch command exited with $?"
		[ "$(current)" = "$b" ] || { cat "$log" >&2; fail "the checkout of $b did not happen"; }
		expected_porcelain= expected_print=$(fingerprint)
	else
		what="Save State"
		step_name="full disk ($(df --output=avail -B1 "$store" | tail -1) bytes free) during a $what"
		announce
		ide save "$repo" > "$log" && say "   saved (it fitted)" || say "   the save failed (exit $?)"
		expect_tree
	fi
	grep -E '^(saved|restored|skipped|failed|checkout|branchstate:) ' "$log" | cut -c1-160 | sed 's/^/   /' || true
	n_full=$((n_full + 1))
	rm -f "$store/filler"
}
step_toggle() {
	auto=$([ $auto = on ] && echo off || echo on)
	customize # (for the next starts; the workspace's preference, which the session sets, holds the same)
	step_name="automatic switching $auto"
	announce
	ide auto-switch "$auto" > "$logs/step-$step_no.log" || { cat "$logs/step-$step_no.log" >&2; fail "auto-switch failed"; }
	grep -q -x "automatic switching $auto" "$logs/step-$step_no.log" || fail "the session does not say automatic switching $auto"
	expect_tree
}

# the first check: the initial full build equals a clean build
expect_tree
say "0: initial build"
check
weights=(ide_checkout ide_checkout ide_checkout terminal_checkout terminal_checkout terminal_checkout new_branch new_branch
	commit commit commit commit uncommitted uncommitted reset stash pull save save restore_older delete damage damage kill
	kill kill toggle full_disk full_disk rebase merge cherry_pick revert bisect clean worktree remote project)
if [ -n "$only_kinds" ]; then # --kinds: only these (a step may still fall back on another kind when it cannot run)
	IFS=, read -r -a weights <<<"$only_kinds"
	for kind in "${weights[@]}"; do declare -F "step_$kind" > /dev/null || { echo "soak: no step kind $kind" >&2; exit 2; }; done
fi
# --require-each: once the steps left are at most three times the kinds still missing (a full disk, a kill that landed,
# a damaged archive), the next step is the first missing kind, so that any seed of a long enough run has each; a damage
# step needs another branch whose tip has a stored state, made first when there is none (a save, a new branch)
missing_kinds() {
	[ $tmpfs = 0 ] || [ $n_full != 0 ] || echo full_disk
	[ $n_kills != 0 ] || echo kill
	[ $n_damaged != 0 ] || echo damage
}
damage_possible() {
	local b states
	states=$(stored_states)
	for b in $(branches | grep -v -x "$(current)"); do
		grep -q -x "$(git -C "$repo" rev-parse "$b")" <<<"$states" && return 0
	done
	return 1
}
# --each-kind: the first steps take every step kind once, in an order where each finds what it needs (another branch,
# a stored state, commits to cherry-pick, revert and bisect), and the first edits every kind of edit once; then the
# steps are random (the short run of the test command: every kind in every run, whatever the seed)
first_kinds=()
# (with --kinds: every kind of edit first only)
[ $each_kind = 0 ] || [ -n "$only_kinds" ] || first_kinds=(new_branch commit commit commit commit ide_checkout commit save uncommitted stash terminal_checkout
	commit reset pull remote cherry_pick restore_older revert rebase merge bisect worktree clean project project toggle damage
	delete kill toggle full_disk)
for ((step_no = 1; step_no <= steps; step_no++)); do
	damaged=
	kind=${first_kinds[step_no - 1]:-}
	if [ $require_each = 1 ]; then
		mapfile -t missing < <(missing_kinds)
		if [ $((steps - step_no + 1)) -le $((3 * ${#missing[@]})) ]; then
			kind=${missing[0]}
			if [ "$kind" = damage ] && ! damage_possible; then
				kind=$(git -C "$repo" rev-parse HEAD | grep -q -x -F -f <(stored_states) && echo new_branch || echo save)
			fi
		fi
	fi
	local t_step
	t_step=$(now_us) ide_n=0 ide_us=0 clean_us=0 step_kind=
	if [ -n "$session_pid" ] && [ $((step_no % restart_every)) = 0 ]; then
		# a deliberate restart: the IDE closed before the step (its exit's dump compared when the tree is the same at
		# the check), started again by the step's first command or the check's
		session_stop
		n_restarts=$((n_restarts + 1))
		say "   (the IDE closed before step $step_no: a deliberate restart)"
	fi
	"step_${kind:-${weights[$((RANDOM % ${#weights[@]}))]}}"
	check
	step_kind=${step_kind:-unknown}
	kind_n[$step_kind]=$(( ${kind_n[$step_kind]:-0} + 1 ))
	kind_us[$step_kind]=$(( ${kind_us[$step_kind]:-0} + $(now_us) - t_step ))
	kind_ide_n[$step_kind]=$(( ${kind_ide_n[$step_kind]:-0} + ide_n ))
	kind_ide_us[$step_kind]=$(( ${kind_ide_us[$step_kind]:-0} + ide_us ))
	kind_clean_us[$step_kind]=$(( ${kind_clean_us[$step_kind]:-0} + clean_us ))
done
step_no=$steps
session_stop
if [ -n "$ci_pid" ]; then # (CI's session closed as the IDE closes; its exit status is CI's, not the check's)
	printf 'exit\n' >&"$ci_in"
	cat <&"$ci_out" >> "$logs/ci-session.err"
	wait "$ci_pid" || say "   (CI's IDE session exited with $? when closed: logs/ci-session.err)"
	ci_pid=
fi
summary
if [ $require_each = 1 ] && { [ $n_kills = 0 ] || [ $n_damaged = 0 ] || [ $n_full = 0 ]; }; then
	echo "soak: the run did not kill the IDE, damage an archive and fill the disk at least once each (--require-each)" >&2
	exit 1
fi
# --each-kind: every step kind ran (a step that fell back on another kind counts as that one)
local not_taken
not_taken=$(printf '%s\n' "${weights[@]}" | sort -u | while read -r k; do [ -n "${kind_n[$k]:-}" ] || echo "$k"; done)
if [ $each_kind = 1 ] && [ -z "$only_kinds" ] && [ -n "$not_taken" ]; then
	echo "soak: step kinds the run did not take (--each-kind): $(echo $not_taken)" >&2
	exit 1
fi
}
main "$@"; exit $? # (on the line main runs from: an edit of this file during a run cannot be read after it)

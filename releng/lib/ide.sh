# Shared by the demo (releng/demo/demo.sh), the end-to-end benchmark (releng/bench/e2e/run.sh), the plug-in run
# (releng/pde/run.sh) and the soak (releng/soak/run.sh), sourced after `set -euo pipefail` with $root set to the
# project root: a fresh IDE with Branchstate installed from its update site, its headless commands, Java and plug-in
# projects, and the measured branch switches with the same table columns and the median of rounds.

# install_ide <folder> <installable units, comma-separated> [<product>]: a fresh copy of the IDE product (Eclipse
# without Branchstate: dev.branchstate.ide, or dev.branchstate.ide.pde, the same with PDE) in <folder>/eclipse,
# Branchstate installed into it from the built update site with the IDE's own p2 director, as a user would. Sets
# $launcher; logs to <folder>/logs/install.log.
install_ide() {
	local dir=$1 ius=$2 site_zip product start
	site_zip=$(ls "$root"/releng/dev.branchstate.site/target/dev.branchstate.site-*.zip)
	product=$root/releng/dev.branchstate.ide/target/products/${3:-dev.branchstate.ide}/linux/gtk/x86_64
	rm -rf "$dir/eclipse" "$dir/director-ws"
	mkdir -p "$dir/logs"
	cp -r "$product" "$dir/eclipse"
	launcher=$(ls "$dir"/eclipse/plugins/org.eclipse.equinox.launcher_*.jar)
	start=$(date +%s%N)
	eclipse -application org.eclipse.equinox.p2.director -data "$dir/director-ws" \
		-repository "jar:file:$site_zip!/" -installIU "$ius" > "$dir/logs/install.log" 2>&1 \
		|| { cat "$dir/logs/install.log" >&2; echo "the p2 director failed" >&2; return 1; }
	grep -E '^(Installing|Operation completed)' "$dir/logs/install.log"
	echo "installed in $(( ($(date +%s%N) - start) / 1000000 )) ms"
}

# eclipse <arguments>: the installed IDE (JVM options from $IDE_JVM, default -Xmx2g)
eclipse() { java ${IDE_JVM:--Xmx2g} -jar "$launcher" -nosplash "$@"; }

# app <command> <arguments>: Branchstate's headless commands on the workspace $ws (BranchstateApplication)
app() {
	eclipse -data "$ws" ${IDE_ARGS:-} -application dev.branchstate.core.app "$@" 2>&1 \
		| grep -v -E '^(INFO: Registered provider|[A-Z][a-z]{2} [0-9]+, [0-9]{4} .*BaseActivator log)'
}

# java_project <folder> <name> [<library jar>...]: .project (Java nature and builder) and .classpath (src, the JRE
# container as the New Java Project wizard writes it — JDT Launching resolves it to the JDK the IDE runs on — the
# libraries, output bin)
java_project() {
	local dir=$1 name=$2 jar
	shift 2
	cat > "$dir/.project" <<-EOP
	<?xml version="1.0" encoding="UTF-8"?>
	<projectDescription><name>$name</name><comment></comment><projects></projects>
	<buildSpec><buildCommand><name>org.eclipse.jdt.core.javabuilder</name><arguments></arguments></buildCommand></buildSpec>
	<natures><nature>org.eclipse.jdt.core.javanature</nature></natures></projectDescription>
	EOP
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo '<classpath><classpathentry kind="src" path="src"/><classpathentry kind="con" path="org.eclipse.jdt.launching.JRE_CONTAINER"/>'
		for jar in "$@"; do
			echo "<classpathentry kind=\"lib\" path=\"$jar\"/>"
		done
		echo '<classpathentry kind="output" path="bin"/></classpath>'
	} > "$dir/.classpath"
}

# plugin_classpath <folder>: a plug-in project's .classpath as PDE's New Plug-in Project wizard writes it (the JRE,
# "Plug-in Dependencies", src, output bin)
plugin_classpath() {
	cat > "$1/.classpath" <<-'EOC'
	<?xml version="1.0" encoding="UTF-8"?>
	<classpath>
		<classpathentry kind="con" path="org.eclipse.jdt.launching.JRE_CONTAINER"/>
		<classpathentry kind="con" path="org.eclipse.pde.core.requiredPlugins"/>
		<classpathentry kind="src" path="src"/>
		<classpathentry kind="output" path="bin"/>
	</classpath>
	EOC
}

# plugin <folder> <symbolic name> <manifest headers> [api]: .project (Java and plug-in natures; JDT's, PDE's manifest
# and schema builders, API Tools' analysis with "api"), .classpath (the JRE, "Plug-in Dependencies", src, bin),
# build.properties
plugin() {
	local folder=$1 name=$2 headers=$3 api=${4:-}
	mkdir -p "$folder/META-INF" "$folder/src"
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo "<projectDescription><name>$name</name><comment></comment><projects></projects><buildSpec>"
		for b in org.eclipse.jdt.core.javabuilder org.eclipse.pde.ManifestBuilder org.eclipse.pde.SchemaBuilder; do
			echo "<buildCommand><name>$b</name><arguments></arguments></buildCommand>"
		done
		[ -z "$api" ] || echo '<buildCommand><name>org.eclipse.pde.api.tools.apiAnalysisBuilder</name><arguments></arguments></buildCommand>'
		echo '</buildSpec><natures><nature>org.eclipse.pde.PluginNature</nature><nature>org.eclipse.jdt.core.javanature</nature>'
		[ -z "$api" ] || echo '<nature>org.eclipse.pde.api.tools.apiAnalysisNature</nature>'
		echo '</natures></projectDescription>'
	} > "$folder/.project"
	plugin_classpath "$folder"
	printf 'Manifest-Version: 1.0\nBundle-ManifestVersion: 2\nBundle-Name: %s\nBundle-SymbolicName: %s;singleton:=true\nBundle-Version: 1.0.0.qualifier\n%s\n' \
		"$name" "$name" "$headers" > "$folder/META-INF/MANIFEST.MF"
	printf 'source.. = src/\noutput.. = bin/\nbin.includes = META-INF/,.%s\n' \
		"$([ -f "$folder/plugin.xml" ] && echo ',plugin.xml' || true)$([ -d "$folder/schema" ] && echo ',schema/' || true)" > "$folder/build.properties"
}

# probe_commit <repository> <project folder>...: the commit after B (B2) in the work tree's current branch: one more
# private method in one class of each project folder (three classes when there is one folder), a final class picked
# in the middle of the folder's list, as a developer's commit touches a few classes (not the annotations that every
# file uses)
probe_commit() {
	local repo=$1 folder file picked=()
	shift
	local per=$(( $# == 1 ? 3 : 1 ))
	for folder in "$@"; do
		mapfile -t finals < <(cd "$repo" && git ls-files "$folder" | grep '\.java$' | xargs grep -l -E '^public final class ' | sort)
		[ ${#finals[@]} -ge "$per" ] || { echo "no final classes in $folder" >&2; return 1; }
		for ((i = 0; i < per; i++)); do
			picked+=("${finals[$(( ${#finals[@]} / 2 + i ))]}")
		done
	done
	for file in "${picked[@]}"; do
		awk '{ line[NR] = $0 } /}/ { last = NR }
			END { for (i = 1; i <= NR; i++) {
				if (i == last) { match(line[i], /}[^}]*$/)
					line[i] = substr(line[i], 1, RSTART - 1) "    private static int branchstateProbe() { return 42; }\n" substr(line[i], RSTART) }
				print line[i] } }' "$repo/$file" > "$repo/$file.new" && mv "$repo/$file.new" "$repo/$file"
	done
	git -C "$repo" commit -q -am "A method appended to ${#picked[@]} classes: ${picked[*]##*/}"
}

# run_switch <log> <switch arguments after the repository>: one IDE session of switches, then read_result
run_switch() {
	local log=$1
	shift
	app switch "$@" > "$log" || { cat "$log" >&2; echo "the switch failed (log: $log)" >&2; return 1; }
	read_result "$log"
}

# read_result <log>: sets the fields of the session's last result line (started_ms total_ms checkout_ms handled_ms
# build_ms restored_files restored_bytes saved_files saved_bytes) as shell variables
read_result() {
	local log=$1 result kv
	result=$(grep '^result ' "$log" | tail -1) # the last switch is the one measured
	[ -n "$result" ] || { cat "$log" >&2; echo "the switch printed no result (log: $log)" >&2; return 1; }
	started_ms=0 total_ms=0 checkout_ms=0 handled_ms=0 build_ms=0 restored_files=0 restored_bytes=0 saved_files=0 saved_bytes=0
	for kv in ${result#result }; do
		case ${kv%%=*} in
		started_ms | total_ms | checkout_ms | handled_ms | build_ms | restored_files | restored_bytes | saved_files | saved_bytes)
			printf -v "${kv%%=*}" '%s' "${kv#*=}" ;;
		esac
	done
}

# written_since <folder>...: files under the folders written since $started_ms (ctime: a restore keeps the stored
# modification times)
written_since() {
	local since
	since="@$((started_ms / 1000)).$(printf '%03d' $((started_ms % 1000)))"
	find "$@" -type f -newerct "$since" 2>/dev/null | wc -l
}

declare -A runs # case letter -> lines "wall ms<TAB>table row", one per round
# record <case letter> <table row>: one round's row of a case
record() { runs[$1]+="$total_ms	$2"$'\n'; printf ' %s %s ms' "$1" "$total_ms"; }
# median <case letter>: prints "wall ms<TAB>row" of the round with the median wall time
median() {
	local lines
	lines=$(printf '%s' "${runs[$1]}" | sort -n)
	sed -n "$(( $(wc -l <<<"$lines") / 2 + 1 ))p" <<<"$lines"
}
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.2f", (y > 0 ? x / y : 0) }'; }

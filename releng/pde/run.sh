#!/usr/bin/env bash
# Plug-in projects (issue 33): a Git repository of PDE plug-in projects that read each other (Require-Bundle,
# Import-Package, an extension point with its schema and an extension of it, the "Plug-in Dependencies" container
# resolved against the IDE's own bundles, API Tools' analysis on the upstream bundle) switched by Branchstate in the
# committers' IDE (the user's Eclipse plus PDE, Branchstate for Java installed from the update site). After every
# switch, once the IDE is idle and built, each project's output folder must equal a clean build of the same working
# tree in a second workspace byte for byte, and the problem markers (JDT's, PDE's manifest and schema markers, API
# Tools') marker for marker; no tracked file may have been written. Stops at the first divergence.
#
# PDE's own incremental validation is not always equal to a clean build: after a MANIFEST.MF changes in a session
# whose plug-in models are loaded, its manifest builder reports "A plug-in manifest must contain at least one
# extension or extension point" on a plugin.xml that declares one (every time, without Branchstate too; a clean build
# and a session started after the change do not). Every switch session meets the models loaded before its checkout,
# as in an IDE that has been open a while, and a control workspace makes the same switches without Branchstate: a PDE
# marker that differs from the clean build is accepted only when the control has exactly the same markers (as if
# Branchstate were not installed), and is counted as PDE's own. Output folders must always equal the clean build.
#
#   ./launch releng/pde/run.sh [--no-build] [--dir /tmp/pde]
#
# The switches: exact states both ways, the nearest stored ancestor after an API change in the upstream bundle that
# breaks a downstream one, a manifest change (the upstream bundle stops exporting its package), and a branch that
# adds a bundle (imported then, as a user imports a new project). Per switch it prints the switch's result line, the
# class files the build after it wrote (none after an exact restore) and the comparison.
set -euo pipefail
main() {
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=1 dir=
while [ $# -gt 0 ]; do
	case $1 in
	--no-build) build=0 ;;
	--dir) dir=$2; shift ;;
	*) echo "pde: unknown option $1 (use --no-build, --dir D)" >&2; exit 2 ;;
	esac
	shift
done
dir=${dir:-/tmp/branchstate-pde}
cd "$root"
source releng/lib/ide.sh
t_start=$(date +%s)
n_switches=0 n_divergences=0 n_jdt=0 n_pde_own=0
fail() { echo "pde: $*" >&2; exit 1; }

if [ $build = 1 ]; then
	./mvnw -B -q -DskipTests verify || fail "the build failed"
fi
rm -rf "$dir"
mkdir -p "$dir/logs"
logs=$dir/logs
install_ide "$dir" dev.branchstate.feature.feature.group,dev.branchstate.jdt.feature.feature.group \
	dev.branchstate.ide.pde > "$logs/install.txt" || { cat "$logs/install.txt" >&2; fail "the install failed"; }
grep -q 'org.eclipse.pde.core' <(ls "$dir/eclipse/plugins") || fail "the committers' IDE has no PDE"

repo=$dir/repo
make_repository "$repo"
control=$dir/control
cp -a "$repo" "$control" # the same commits and branches, nothing built yet
no_jvm_search='org.eclipse.jdt.launching/detectVMsAtStartup=false'
printf 'dev.branchstate.core/storeLocation=%s\n%s\n' "$dir/store" "$no_jvm_search" > "$dir/customization.ini"
export IDE_ARGS="-pluginCustomization $dir/customization.ini"
ws=$dir/workspace

app import "$repo" > "$logs/import.log" || { cat "$logs/import.log" >&2; fail "import failed"; }
printf 'dev.branchstate.core/autoSwitch=false\ndev.branchstate.core/storeLocation=%s\n%s\n' "$dir/store-control" "$no_jvm_search" > "$dir/control.ini"
in_control import "$control" > "$logs/control-import.log" || { cat "$logs/control-import.log" >&2; fail "the control's import failed"; }
in_control build "$control" --problems > "$logs/control-build-0.log" || { cat "$logs/control-build-0.log" >&2; fail "the control's build failed"; }
grep '^problem ' "$logs/control-build-0.log" | grep -v 'org.eclipse.core.resources.noExplicitEncoding' > "$dir/control-problems.txt" || true
check "import of main"
step feat "no state of feat: JDT and PDE build the checkout's change"
step main "exact state"
step feat "exact state"
step feat2 "nearest ancestor (feat), whose upstream API change breaks impl"
step main "exact state"
step manifest "nearest ancestor (main): api stops exporting its package"
step feat2 "exact state"
step manifest "exact state"
step add-bundle "nearest ancestor (main): a new bundle, imported after the switch"
echo
echo "== pde switches=$n_switches divergences=$n_divergences pde_own_divergences=$n_pde_own jdt_failures=$n_jdt wall=$(( $(date +%s) - t_start ))s"
}

# ------------------------------------------------------------------------------------------------ the repository

java_file() { mkdir -p "$(dirname "$1")"; cat > "$1"; }

commit() { git -C "$repo" add -A && git -C "$repo" -c user.name=pde -c user.email=pde@branchstate.invalid commit -q -m "$1"; }

# make_repository <folder>: main (api, impl, client), feat (api's constant and a new default method impl uses),
# feat2 after feat (an abstract method in api's interface: impl no longer compiles), manifest (api stops exporting
# its package, impl requires one more bundle of the target: its "Plug-in Dependencies" differ from the other
# branches'), add-bundle (a fourth bundle that requires api)
make_repository() {
	local r=$1
	mkdir -p "$r/api/schema"
	cat > "$r/api/plugin.xml" <<-'EOX'
	<?xml version="1.0" encoding="UTF-8"?>
	<?eclipse version="3.4"?>
	<plugin>
	   <extension-point id="greeters" name="Greeters" schema="schema/greeters.exsd"/>
	</plugin>
	EOX
	cat > "$r/api/schema/greeters.exsd" <<-'EOX'
	<?xml version='1.0' encoding='UTF-8'?>
	<schema targetNamespace="demo.api" xmlns="http://www.w3.org/2001/XMLSchema">
	<annotation><appInfo><meta.schema plugin="demo.api" id="greeters" name="Greeters"/></appInfo></annotation>
	<element name="extension"><annotation><appInfo><meta.element /></appInfo></annotation>
	<complexType><sequence><element ref="greeter" minOccurs="1" maxOccurs="unbounded"/></sequence>
	<attribute name="point" type="string" use="required"/><attribute name="id" type="string"/><attribute name="name" type="string"/>
	</complexType></element>
	<element name="greeter"><complexType>
	<attribute name="class" type="string" use="required"><annotation><appInfo><meta.attribute kind="java" basedOn=":demo.api.Greeter"/></appInfo></annotation></attribute>
	</complexType></element>
	</schema>
	EOX
	plugin "$r/api" demo.api 'Export-Package: demo.api
Automatic-Module-Name: demo.api' api
	java_file "$r/api/src/demo/api/Greeter.java" <<-'EOJ'
	package demo.api;

	public interface Greeter {
		String greet(String name);
	}
	EOJ
	java_file "$r/api/src/demo/api/Names.java" <<-'EOJ'
	package demo.api;

	public final class Names {
		public static final String PREFIX = "Hello";

		private Names() {
		}
	}
	EOJ
	mkdir -p "$r/impl"
	cat > "$r/impl/plugin.xml" <<-'EOX'
	<?xml version="1.0" encoding="UTF-8"?>
	<?eclipse version="3.4"?>
	<plugin>
	   <extension point="demo.api.greeters">
	      <greeter class="demo.impl.English"/>
	   </extension>
	</plugin>
	EOX
	plugin "$r/impl" demo.impl 'Require-Bundle: demo.api,
 org.eclipse.core.runtime
Automatic-Module-Name: demo.impl'
	java_file "$r/impl/src/demo/impl/English.java" <<-'EOJ'
	package demo.impl;

	import java.util.List;

	import demo.api.Greeter;
	import demo.api.Names;

	public class English implements Greeter {
		@Override
		public String greet(String name) {
			org.eclipse.core.runtime.Assert.isNotNull(name);
			return Names.PREFIX + ", " + name;
		}
	}
	EOJ
	plugin "$r/client" demo.client 'Import-Package: demo.api
Automatic-Module-Name: demo.client'
	java_file "$r/client/src/demo/client/Client.java" <<-'EOJ'
	package demo.client;

	import demo.api.Greeter;

	public class Client {
		public String hello(Greeter greeter) {
			return greeter.greet("client");
		}
	}
	EOJ
	echo 'bin/' > "$r/.gitignore"
	git -C "$r" init -q -b main
	commit "three plug-ins"

	git -C "$r" checkout -q -b feat
	sed -i 's/"Hello"/"Hi"/' "$r/api/src/demo/api/Names.java"
	java_file "$r/api/src/demo/api/Greeter.java" <<-'EOJ'
	package demo.api;

	public interface Greeter {
		String greet(String name);

		default String greetAll(String... names) {
			return greet(String.join(" and ", names));
		}
	}
	EOJ
	sed -i 's/return Names.PREFIX + ", " + name;/return Names.PREFIX + ", " + name + (name.isEmpty() ? greetAll() : "");/' "$r/impl/src/demo/impl/English.java"
	commit "api: another prefix and greetAll, used by impl"
	git -C "$r" checkout -q -b feat2
	sed -i 's/^}$/\n\tString farewell(String name);\n}/' "$r/api/src/demo/api/Greeter.java"
	commit "api: farewell (impl does not implement it)"

	git -C "$r" checkout -q main
	git -C "$r" checkout -q -b manifest
	sed -i '/^Export-Package: demo.api$/d' "$r/api/META-INF/MANIFEST.MF"
	sed -i 's/^ org.eclipse.core.runtime$/ org.eclipse.core.runtime,\n org.eclipse.core.resources/' "$r/impl/META-INF/MANIFEST.MF"
	commit "api: no longer exports demo.api; impl requires org.eclipse.core.resources too"

	git -C "$r" checkout -q main
	git -C "$r" checkout -q -b add-bundle
	plugin "$r/extra" demo.extra 'Require-Bundle: demo.api
Automatic-Module-Name: demo.extra'
	java_file "$r/extra/src/demo/extra/Loud.java" <<-'EOJ'
	package demo.extra;

	public class Loud implements demo.api.Greeter {
		@Override
		public String greet(String name) {
			return demo.api.Names.PREFIX.toUpperCase() + " " + name;
		}
	}
	EOJ
	commit "a fourth bundle"
	git -C "$r" checkout -q main
}

# ------------------------------------------------------------------------------------------------ switches and checks

porcelain() { git -C "$repo" status --porcelain=v1 --untracked-files=all; }

# step <branch> <what it is>: the headless switch (JGit checkout, Branchstate, the build), then the check
step() {
	local branch=$1 what=$2 log result
	n_switches=$((n_switches + 1))
	log=$logs/switch-$n_switches-$branch.log
	local before
	before=$(porcelain)
	loaded_models "$repo"
	app switch "$repo" --with-branchstate "$branch" > "$log" || { cat "$log" >&2; fail "the switch to $branch failed"; }
	result=$(grep '^result ' "$log" || true)
	[ -n "$result" ] || { cat "$log" >&2; fail "the switch to $branch printed no result"; }
	echo "switch $n_switches to $branch ($what): $(grep -E '^(restored|saved|skipped) ' "$log" | cut -c1-160 | tr '\n' ' ')"
	echo "   ${result#result }"
	# an exact state is built against what its commit resolves to, whatever the branch left resolved to
	if [[ $what == "exact state"* ]] && grep -q 'was built against other dependencies' "$log"; then
		grep -o "project '[^']*' was built against other dependencies[^;]*" "$log" >&2
		fail "the exact state of $branch was not restored for every project"
	fi
	[ "$branch" != add-bundle ] || app import "$repo" > "$logs/import-$n_switches.log"
	control_switch "$branch"
	check "$branch"
	[ "$(porcelain)" = "$before" ] || { diff <(echo "$before") <(porcelain) >&2 || true; fail "a tracked or user file was written"; }
}

manifest() { [ -d "$1" ] || return 0; (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha1sum); }

# check <what>: the build session once the IDE is idle (a pending build runs), then the comparison with a clean build
# of the same tree: each project's bin/ and the problem markers
check() {
	local what=$1 log=$logs/check-$n_switches.log stamp=$dir/stamp-$n_switches diffs written folder
	touch "$stamp"
	sleep 1 # (file times: what the build session writes is newer than the stamp)
	app build "$repo" --problems > "$log" || { cat "$log" >&2; fail "the build session failed"; }
	if jdt_failed "$ws"; then
		# not Branchstate's (see jdt_failed): Project > Clean, as a user would, then the check's build again
		n_jdt=$((n_jdt + 1))
		echo "   JDT's compiler failed in this step (eclipse-jdt/eclipse.jdt.core#284): Project > Clean, as a user would"
		app switch "$repo" --clean-build > "$logs/clean-$n_switches.log" || fail "the clean build session failed"
		app build "$repo" --problems > "$log" || { cat "$log" >&2; fail "the build session failed"; }
		! jdt_failed "$ws" || fail "JDT's compiler failed again"
	fi
	written=$(find "$repo" -path '*/bin/*' -type f -newer "$stamp" | wc -l)
	echo "   the build after it wrote $written file(s) in the output folders"
	grep '^problem ' "$log" | grep -v 'org.eclipse.core.resources.noExplicitEncoding' > "$dir/problems.txt" || true
	clean_build
	local pde_own=0 marker_diffs= differing
	if ! cmp -s "$clean/problems.txt" "$dir/problems.txt"; then
		differing=$(diff "$clean/problems.txt" "$dir/problems.txt" | grep '^[<>]' || true)
		if cmp -s "$dir/control-problems.txt" "$dir/problems.txt" \
			&& [ -z "$(grep -v ' org\.eclipse\.pde\.' <<<"$differing" || true)" ]; then
			pde_own=1
		else
			marker_diffs=$( {
				diff --label "clean build: problems" --label "switched: problems" "$clean/problems.txt" "$dir/problems.txt"
				diff --label "control (no Branchstate): problems" --label "switched: problems" "$dir/control-problems.txt" "$dir/problems.txt"
				} || true)
		fi
	fi
	diffs=$( {
		for folder in $(cd "$clean/tree" && ls -d */ | tr -d /); do
			diff --label "clean build: $folder/bin" --label "switched: $folder/bin" <(manifest "$clean/tree/$folder/bin") <(manifest "$repo/$folder/bin") || true
		done
		printf '%s' "$marker_diffs"; } )
	if [ -n "$diffs" ]; then
		n_divergences=$((n_divergences + 1))
		echo "DIVERGENCE after $what:" >&2
		head -40 <<<"$diffs" >&2
		fail "derived data differs from a clean build (session log $log, clean build $clean)"
	fi
	local outputs
	outputs=$(cd "$clean/tree" && find . -path '*/bin/*' -type f | wc -l)
	if [ "$pde_own" = 1 ]; then
		n_pde_own=$((n_pde_own + 1))
		echo "   output equal to a clean build ($outputs files); PDE's markers as without Branchstate (the control), not as a clean build:"
		sed 's/^</   clean build:/; s/^>/   both switched workspaces:/' <<<"$differing"
	else
		echo "   equal to a clean build: $outputs output files, $(wc -l < "$clean/problems.txt") problem markers"
	fi
}

# in_control <app arguments>: a headless command in the control workspace (automatic switching off)
in_control() { IDE_ARGS="-pluginCustomization $dir/control.ini" ws=$dir/ws-control app "$@"; }

# loaded_models <repository>: the next session meets PDE's plug-in models loaded before its checkout, as in an IDE
# that has been open a while: the manifests' times are touched (not their content), so the session's first build
# (before the checkout) validates them
loaded_models() { find "$1" -path '*/META-INF/MANIFEST.MF' -not -path '*/.git/*' -exec touch {} +; }

# control_switch <branch>: the same switch in the control workspace, without Branchstate, its models loaded before
# the checkout too, then the build session as in check; the markers go to $dir/control-problems.txt
control_switch() {
	local branch=$1 log=$logs/control-$n_switches.log
	loaded_models "$control"
	in_control switch "$control" --without-branchstate "$branch" > "$log" || { cat "$log" >&2; fail "the control's switch to $branch failed"; }
	[ "$branch" != add-bundle ] || in_control import "$control" >> "$log"
	in_control build "$control" --problems > "$logs/control-build-$n_switches.log" || { cat "$logs/control-build-$n_switches.log" >&2; fail "the control's build failed"; }
	grep '^problem ' "$logs/control-build-$n_switches.log" | grep -v 'org.eclipse.core.resources.noExplicitEncoding' > "$dir/control-problems.txt" || true
}

# jdt_failed <workspace>: whether JDT's compiler failed in a session of that workspace since the last call, with the
# NullPointerException of its module lookup (module java.base not found: "Bug 529367" on standard error;
# eclipse-jdt/eclipse.jdt.core#284, open upstream; the soak met it too, with or without Branchstate). The build is
# aborted and its output left as the failure left it. The workspace's log is moved to the logs either way.
jdt_failed() {
	local log=$1/.metadata/.log failed=1
	grep -q -F 'IModule.isAutomatic()" because "module" is null' "$log" 2>/dev/null && failed=0
	[ ! -f "$log" ] || mv "$log" "$logs/workspace-$n_switches-$(basename "$1")-$(date +%s%N).log"
	return $failed
}

# clean_build: the working tree copied into a repository of its own, imported into a fresh workspace with
# automatic switching off, built in full; sets $clean
clean_build() {
	clean=$dir/clean-$n_switches
	rm -rf "$clean" "$dir/ws-clean" "$dir/store-clean"
	mkdir -p "$clean/tree"
	(cd "$repo" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$clean/tree"
	git -C "$clean/tree" init -q && git -C "$clean/tree" add -A \
		&& git -C "$clean/tree" -c user.name=pde -c user.email=pde@branchstate.invalid commit -q -m clean
	printf 'dev.branchstate.core/autoSwitch=false\ndev.branchstate.core/storeLocation=%s\n%s\n' "$dir/store-clean" "$no_jvm_search" > "$dir/clean.ini"
	IDE_ARGS="-pluginCustomization $dir/clean.ini" ws=$dir/ws-clean app import "$clean/tree" > "$clean/import.log" \
		&& IDE_ARGS="-pluginCustomization $dir/clean.ini" ws=$dir/ws-clean app build "$clean/tree" --problems > "$clean/build.log" \
		|| { cat "$clean/build.log" >&2; fail "the clean build failed"; }
	if jdt_failed "$dir/ws-clean" && [ "${1:-}" != again ]; then
		n_jdt=$((n_jdt + 1))
		echo "   JDT's compiler failed in the clean build (eclipse-jdt/eclipse.jdt.core#284): made again"
		clean_build again
		return
	fi
	grep '^problem ' "$clean/build.log" | grep -v 'org.eclipse.core.resources.noExplicitEncoding' > "$clean/problems.txt" || true
	rm -rf "$dir/ws-clean" "$dir/store-clean"
}

main "$@"

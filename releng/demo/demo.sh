#!/usr/bin/env bash
# The main job (./launch demo): builds Branchstate, installs it from its update site into a fresh copy of the
# user's IDE with the IDE's own p2 director, makes a demo Git repository from real sources (two releases of
# Apache Commons Lang from Maven Central, committed as two branches, with their class files as git-ignored
# derived output), and runs Branchstate on it. With a display (DISPLAY set by you, not by ./launch's Xvfb)
# the IDE opens on the demo workspace; without one the same scenario runs headless and prints what happened.
#
# Options: --no-build (reuse the last build), --headless (never open the IDE).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
demo=$root/work/demo
build=1 headless=0
for arg in "$@"; do
	case $arg in
	--no-build) build=0 ;;
	--headless) headless=1 ;;
	*) echo "demo: unknown option $arg (use --no-build, --headless)" >&2; exit 2 ;;
	esac
done
# ./launch runs us under xvfb-run when the user has no display: that is the headless case.
[ -n "${BRANCHSTATE_USER_DISPLAY:-}" ] || headless=1

step() { printf '\n== %s\n' "$*"; }

cd "$root"
if [ $build = 1 ]; then
	step "Building the update site and the IDE (tests skipped; ./launch ./mvnw verify runs them)"
	./mvnw -B -q -DskipTests verify
fi
site_zip=$(ls releng/dev.branchstate.site/target/dev.branchstate.site-*.zip)
product=releng/dev.branchstate.ide/target/products/dev.branchstate.ide/linux/gtk/x86_64

step "Installing Branchstate into a fresh IDE with its p2 director"
rm -rf "$demo"
mkdir -p "$demo"
cp -r "$product" "$demo/eclipse"
launcher=$(ls "$demo"/eclipse/plugins/org.eclipse.equinox.launcher_*.jar)
eclipse() { java -Xmx2g -jar "$launcher" -nosplash "$@"; }
start=$(date +%s%N)
eclipse -application org.eclipse.equinox.p2.director -data "$demo/director-ws" \
	-repository "jar:file:$root/$site_zip!/" -installIU dev.branchstate.feature.feature.group \
	| grep -E '^(Installing|Operation completed)'
echo "installed in $(( ($(date +%s%N) - start) / 1000000 )) ms"

step "Making the demo repository from real sources (Apache Commons Lang 3.17.0 and 3.18.0)"
repo=$demo/commons-lang
mkdir -p "$demo/jars"
for v in 3.17.0 3.18.0; do
	for c in sources ''; do
		./mvnw -B -q dependency:copy -Dartifact="org.apache.commons:commons-lang3:$v:jar${c:+:$c}" \
			-DoutputDirectory="$demo/jars" -Dmdep.overWriteIfNewer=true
	done
done
git init -q -b release-3.17 "$repo"
git -C "$repo" config user.name "Branchstate demo"
git -C "$repo" config user.email "demo@branchstate.invalid"
printf 'bin/\n' > "$repo/.gitignore"
unpack_release() { # version: its sources into src/ (tracked), its class files into bin/ (git-ignored, derived)
	find "$repo" -mindepth 1 -maxdepth 1 ! -name .git ! -name .gitignore -exec rm -rf {} +
	mkdir -p "$repo/src" "$repo/bin"
	unzip -q -o "$demo/jars/commons-lang3-$1-sources.jar" -d "$repo/src" -x 'META-INF/*'
	unzip -q -o "$demo/jars/commons-lang3-$1.jar" -d "$repo/bin" -x 'META-INF/*'
}
unpack_release 3.17.0
git -C "$repo" add -A
git -C "$repo" commit -q -m "Apache Commons Lang 3.17.0 sources"
git -C "$repo" checkout -q -b release-3.18
unpack_release 3.18.0
git -C "$repo" add -A
git -C "$repo" commit -q -m "Apache Commons Lang 3.18.0 sources"
git -C "$repo" checkout -q release-3.17
unpack_release 3.17.0 # bin/ as a build of 3.17 would leave it
git -C "$repo" diff --quiet HEAD || { echo "demo: the working tree of release-3.17 is not clean" >&2; exit 1; }
echo "$(git -C "$repo" ls-files | wc -l) tracked files, branches: $(git -C "$repo" branch --format='%(refname:short)' | tr '\n' ' ')"
echo "$(find "$repo/bin" -type f | wc -l) derived class files in bin/ ($(du -sh "$repo/bin" | cut -f1))"

step "Branchstate in the installed IDE"
ws=$demo/workspace
# Default preferences the standard Eclipse way: bin/ holds the derived class files of the demo project.
printf 'dev.branchstate.core/derivedFolders=bin\n' > "$demo/plugin_customization.ini"
app() { eclipse -data "$ws" -pluginCustomization "$demo/plugin_customization.ini" -application dev.branchstate.core.app "$@" 2>&1 \
	| grep -v -E '^(INFO: Registered provider|[A-Z][a-z]{2} [0-9]+, [0-9]{4} .*BaseActivator log)'; }
app status
app import "$repo"

expect_build_output() { # version: bin/ must be byte-identical to the class files of that release's jar
	local expected=$demo/expected-$1
	rm -rf "$expected" && mkdir -p "$expected"
	unzip -q -o "$demo/jars/commons-lang3-$1.jar" -d "$expected" -x 'META-INF/*'
	if diff -r -q "$expected" "$repo/bin" >/dev/null; then
		echo "bin/ is byte-identical to the $1 build output ($(find "$repo/bin" -type f | wc -l) files)"
	else
		echo "demo: bin/ differs from the $1 build output:" >&2
		diff -r -q "$expected" "$repo/bin" | head >&2
		exit 1
	fi
}

step "On release-3.17: save its state"
app save "$repo"

step "Terminal checkout of release-3.18; its build output replaces bin/, then its state is saved too"
git -C "$repo" checkout -q release-3.18
find "$repo/bin" -mindepth 1 -delete
unzip -q -o "$demo/jars/commons-lang3-3.18.0.jar" -d "$repo/bin" -x 'META-INF/*'
app save "$repo"
app list "$repo"

step "Back to release-3.17 (terminal checkout): restore instead of rebuilding"
git -C "$repo" checkout -q release-3.17
app restore "$repo"
expect_build_output 3.17.0
git -C "$repo" diff --quiet HEAD && echo "Git-tracked files untouched (git diff is empty)"

step "In-IDE checkout (JGit) of release-3.18: the switch protocol saves release-3.17 on the way and restores release-3.18"
app switch "$repo" release-3.18
expect_build_output 3.18.0
git -C "$repo" diff --quiet HEAD && echo "Git-tracked files untouched (git diff is empty)"
app verify "$repo"

if [ $headless = 0 ]; then
	step "Opening the IDE on the demo workspace (close it to end the demo)"
	DISPLAY=$BRANCHSTATE_USER_DISPLAY eclipse -data "$demo/workspace"
fi

#!/usr/bin/env bash
# jdt-rebuild.sh [--no-install] [--work DIR]: does a JDT full build write the same class files again? Apache Commons
# Lang 3.18.0's sources (from the local Maven repository) as one Java project, built by JDT in two fresh workspaces of
# the IDE with Branchstate installed from the built update site, bin/ emptied before each; prints how many class files
# differ in their bytes and in their times. The scale benchmark's "two builds of the same sources" simulate such a
# rebuild with `touch`; this checks the premise on a real one. Run with ./launch (Temurin 25 as java).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
install=1 d=/tmp/branchstate-jdt-rebuild
while [ $# -gt 0 ]; do
	case $1 in
	--no-install) install=0 ;;
	--work) d=$2; shift ;;
	*) echo "jdt-rebuild: unknown option $1 (use --no-install, --work DIR)" >&2; exit 2 ;;
	esac
	shift
done
source "$root/releng/lib/ide.sh"
sources=$HOME/.m2/repository/org/apache/commons/commons-lang3/3.18.0/commons-lang3-3.18.0-sources.jar
[ -f "$sources" ] || (cd "$root" && ./mvnw -B -q dependency:get -Dartifact=org.apache.commons:commons-lang3:3.18.0:jar:sources)
if [ "$install" = 1 ] || [ ! -d "$d/eclipse" ]; then
	install_ide "$d" dev.branchstate.feature.feature.group
fi
launcher=$(ls "$d"/eclipse/plugins/org.eclipse.equinox.launcher_*.jar)
rm -rf "$d/repo" "$d"/ws? "$d/store"
mkdir -p "$d/repo/src"
unzip -q "$sources" -d "$d/repo/src" -x 'META-INF/*'
java_project "$d/repo" commons-lang
printf 'bin/\n' > "$d/repo/.gitignore"
git -C "$d/repo" init -q -b main
git -C "$d/repo" add -A
git -C "$d/repo" -c user.name=bench -c user.email=bench@branchstate.invalid commit -q -m sources
printf 'dev.branchstate.core/autoSwitch=false\ndev.branchstate.core/storeLocation=%s\n%s\n' "$d/store" \
	'org.eclipse.jdt.launching/detectVMsAtStartup=false' > "$d/customization.ini"
for ws in ws1 ws2; do
	rm -rf "$d/repo/bin"
	for command in import build; do
		eclipse -data "$d/$ws" -pluginCustomization "$d/customization.ini" -application dev.branchstate.core.app \
			"$command" "$d/repo" > "$d/logs/$ws-$command.log" 2>&1 \
			|| { cat "$d/logs/$ws-$command.log" >&2; echo "jdt-rebuild: $command failed in $ws" >&2; exit 1; }
	done
	(cd "$d/repo/bin" && find . -type f -print0 | sort -z | xargs -0 sha1sum) > "$d/$ws.sha1"
	(cd "$d/repo/bin" && find . -type f -printf '%P %T@\n' | sort) > "$d/$ws.times"
	sleep 1 # (the second build's times are later)
done
echo "class files: $(wc -l < "$d/ws1.sha1") and $(wc -l < "$d/ws2.sha1")"
echo "of other bytes in the second build: $(diff "$d/ws1.sha1" "$d/ws2.sha1" | grep -c '^<' || true)"
echo "of another time in the second build: $(diff "$d/ws1.times" "$d/ws2.times" | grep -c '^<' || true)"

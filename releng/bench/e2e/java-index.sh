# The Java index branch-switch benchmark (issue 6; plain projects whose bin/ is unzipped from jars, no builder: it
# measures the Java index contributor, not a build). Run it through the launcher, which picks a JDK 21+:
#
#   ./launch releng/bench/e2e/java-index.sh [--small] [--no-build] [--rounds N] [--shards N]
#
# --small: guava only (about 630 files); --rounds: runs per case, the median is reported (default 3);
# --shards: Java index store layout, 0 (default) = one EMF resource per compilation unit, N = N shards per project;
# --no-build: reuse the built modules (offline).
#
# 1. Fetches, with the Maven wrapper, the sources jars and the binary jars of two releases each of
#    org.eclipse.jdt.core, org.eclipse.jgit and guava (--small: guava only).
# 2. Builds a Git repository in $BENCH_WORK/repo (default /tmp/branchstate-e2e): one Eclipse project per library
#    (a plain project: no nature, no builder), sources of the older release committed on branch A, of the newer on
#    branch B, and B2 = B plus one commit changing three files. bin/ is git-ignored: the benchmark fills it with the
#    classes of the matching binary jar, as a build would.
# 3. Runs dev.branchstate.javaindex.tests/SwitchBenchmark under tycho-surefire (a headless Eclipse with Branchstate,
#    its switch protocol and the Java index), which measures the four cases and writes $BENCH_WORK/result.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${BENCH_WORK:-/tmp/branchstate-e2e}
SMALL=0
BUILD=1
ROUNDS=3
SHARDS=0
while [ $# -gt 0 ]; do
	case "$1" in
	--small) SMALL=1 ;;
	--no-build) BUILD=0 ;;
	--rounds) ROUNDS=$2; shift ;;
	--shards) SHARDS=$2; shift ;;
	*) echo "usage: $0 [--small] [--no-build] [--rounds N] [--shards N]" >&2; exit 2 ;;
	esac
	shift
done
# project name, groupId:artifactId, release on A, release on B
LIBS=(
	"guava com.google.guava:guava 33.3.1-jre 33.4.0-jre"
)
if [ $SMALL = 0 ]; then
	LIBS+=(
		"jgit org.eclipse.jgit:org.eclipse.jgit 7.1.0.202411261347-r 7.2.0.202503040940-r"
		"jdtcore org.eclipse.jdt:org.eclipse.jdt.core 3.44.0 3.47.0"
	)
fi
for tool in git unzip; do
	command -v $tool >/dev/null || { echo "missing $tool" >&2; exit 1; }
done

rm -rf "$WORK/repo" "$WORK/classes" "$WORK/src"
mkdir -p "$WORK/jars" "$WORK/classes/A" "$WORK/classes/B" "$WORK/src/A" "$WORK/src/B"
for lib in "${LIBS[@]}"; do
	read -r name ga a b <<<"$lib"
	for branch in A B; do
		v=$a; [ $branch = B ] && v=$b
		for kind in "jar:sources" "jar"; do
			(cd "$ROOT" && ./mvnw -B -q dependency:copy -Dartifact="$ga:$v:$kind" -DoutputDirectory="$WORK/jars" \
				-Dmdep.overWriteReleases=false)
		done
		artifact=${ga#*:}
		mkdir -p "$WORK/src/$branch/$name" "$WORK/classes/$branch/$name"
		unzip -q -o "$WORK/jars/$artifact-$v-sources.jar" '*.java' -d "$WORK/src/$branch/$name"
		unzip -q -o "$WORK/jars/$artifact-$v.jar" '*.class' -d "$WORK/classes/$branch/$name"
	done
done

git init -q -b A "$WORK/repo"
cd "$WORK/repo"
git config user.name bench
git config user.email bench@example.invalid
git config core.autocrlf false
printf 'bin/\n' >.gitignore
commit_branch() { # $1 = A or B
	for lib in "${LIBS[@]}"; do
		read -r name _ <<<"$lib"
		rm -rf "$name/src"
		mkdir -p "$name"
		cp -r "$WORK/src/$1/$name" "$name/src"
		cat >"$name/.project" <<PROJECT
<?xml version="1.0" encoding="UTF-8"?>
<projectDescription>
	<name>$name</name>
	<comment></comment>
	<projects></projects>
	<buildSpec></buildSpec>
	<natures></natures>
</projectDescription>
PROJECT
	done
	git add -A .
	git commit -q -m "$1"
}
commit_branch A
git checkout -q -b B
commit_branch B
git checkout -q -b B2
# B' = B + one commit: a method added to three files
for f in $(git ls-files '*.java' | grep -v package-info | head -3); do
	python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
s = open(p, encoding='utf-8').read()
i = s.rindex('}')
open(p, 'w', encoding='utf-8').write(s[:i] + '  static int branchstateBenchProbe() { return 42; }\n}\n')
PY
done
git commit -q -am "B2: one more commit"
git checkout -q A
echo "repository: $(git rev-list --count --all) commits; A→B changes $(git diff --name-only A B | wc -l) files," \
	"B→B2 $(git diff --name-only B B2 | wc -l); $(git ls-files | wc -l) files on A"
cd "$ROOT"

MODULES=releng/dev.branchstate.target,bundles/dev.branchstate.archive,bundles/dev.branchstate.core
MODULES=$MODULES,bundles/dev.branchstate.javaindex,tests/dev.branchstate.javaindex.tests
GOAL=verify
[ $BUILD = 0 ] && GOAL="verify -o"
rm -f "$WORK/result.md"
status=0
./mvnw -B $GOAL -pl "$MODULES" -Dtest=SwitchBenchmark,ZstdAvailableTest -Dsurefire.failIfNoSpecifiedTests=false \
	-Dbench.repo="$WORK/repo" -Dbench.classes="$WORK/classes" -Dbench.out="$WORK/result.md" \
	-Dbench.rounds="$ROUNDS" -Djavaindex.shards="$SHARDS" -Djavaindex.tests.xmx="4g ${BENCH_JVM:-}" >"$WORK/bench.log" 2>&1 || status=$?
grep -E '^(setup:|round |  event|Result\[)' "$WORK/bench.log" || true
if [ ! -f "$WORK/result.md" ]; then
	echo "benchmark failed (exit $status): see $WORK/bench.log" >&2
	grep -E 'ERROR|FAIL|Exception' "$WORK/bench.log" | head -20 >&2
	exit 1
fi
echo
cat "$WORK/result.md"
exit $status

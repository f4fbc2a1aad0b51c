#!/usr/bin/env bash
# Remote states benchmark (issue 15): publish and fetch throughput against a local S3 server, and a branch switch
# served from the remote store against a rebuild, in the IDE product with Branchstate installed from its update site.
#
#   ./launch releng/bench/remote/run.sh [--no-build] [--projects 6] [--work DIR]
#
# The S3 server is S3Proxy 4.1.0 (Maven Central) on its filesystem backend in the work folder, checking AWS
# Signature V4 with credentials made up for the run, on 127.0.0.1: the figures are those of the client, the disk and
# the server's process on this machine, not of a network.
#
# 1. Throughput: a repository of --projects projects whose bin/ folders hold real class files and jars (the scale
#    benchmark's make_tree.py: ~70 MB a project); workspace "ci" imports and saves it, then publishes the state;
#    workspace "developer" (an empty local store, a clone of the repository) fetches it and restores it into empty
#    output folders. Per step: the IDE session's wall and Branchstate's own milliseconds, MB/s of the archive.
# 2. Switch: a Java project of real sources (guava 33.3.1 on branch A, 33.4.0 on B, the jars it depends on from Maven
#    Central), built by JDT. Workspace "ci" builds and saves A and B and publishes both; in the developer's clone
#    (on A, built there by JDT) the switch A→B a) without Branchstate (JDT builds the change), b) with Branchstate and
#    an empty local store: the state of B is fetched, checked, restored and handed to JDT.
set -euo pipefail
main() {
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
projects=6 build=1 work=${BENCH_WORK:-/tmp/branchstate-remote}
while [ $# -gt 0 ]; do
	case $1 in
	--projects) projects=$2; shift ;;
	--no-build) build=0 ;;
	--work) work=$2; shift ;;
	*) echo "remote: unknown option $1" >&2; exit 2 ;;
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
echo "== installing Branchstate and Branchstate for Java into a fresh IDE in $work"
install_ide "$work" dev.branchstate.feature.feature.group,dev.branchstate.jdt.feature.feature.group

echo "== the S3 server (S3Proxy, filesystem backend, SigV4) and CI's signing key"
./mvnw -B -q dependency:copy -Dartifact=org.gaul:s3proxy:4.1.0:jar:jar-with-dependencies -DoutputDirectory="$work/s3proxy"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
AWS_ACCESS_KEY_ID=bench$RANDOM AWS_SECRET_ACCESS_KEY=$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
mkdir -p "$work/s3/data/states" # a bucket of the filesystem backend is a folder
cat > "$work/s3/s3proxy.properties" <<-EOP
s3proxy.endpoint=http://127.0.0.1:$port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$AWS_ACCESS_KEY_ID
s3proxy.credential=$AWS_SECRET_ACCESS_KEY
jclouds.provider=filesystem
jclouds.filesystem.basedir=$work/s3/data
EOP
java -Xmx512m -jar "$work"/s3proxy/s3proxy-*.jar --properties "$work/s3/s3proxy.properties" > "$work/logs/s3proxy.log" 2>&1 &
s3pid=$!
trap 'kill $s3pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
remote=(--endpoint="http://127.0.0.1:$port" --bucket=states --prefix=bench --path-style)

workspace() { # workspace <name>: sets $ws and IDE_ARGS for a workspace with its own store
	ws=$work/$1/workspace
	mkdir -p "$work/$1"
	printf 'dev.branchstate.core/storeLocation=%s\ndev.branchstate.core/diskBudgetMB=100000\ndev.branchstate.core/autoSwitch=false\n' \
		"$work/$1/store" > "$work/$1/customization.ini"
	IDE_ARGS="-pluginCustomization $work/$1/customization.ini"
}
workspace ci
app remote-keys "$work/keys" | tee "$work/logs/keys.log"
key=$(sed -n 's/^pin remotePublicKey=//p' "$work/logs/keys.log")

rows=()
timed() { # timed <row name> <log> <app arguments>: one IDE session, its wall and Branchstate's ms=
	local name=$1 log=$2 t0 wall own
	shift 2
	t0=$(date +%s%N)
	app "$@" > "$log" || { cat "$log" >&2; echo "remote: $name failed" >&2; exit 1; }
	wall=$(( ($(date +%s%N) - t0) / 1000000 ))
	own=$(grep -o -E ' ms=[0-9]+' "$log" | tail -1 | cut -d= -f2)
	size=$(grep -o -E ' size=[0-9]+' "$log" | tail -1 | cut -d= -f2 || true)
	rows+=("$(printf '| %s | %s | %s | %s | %s |' "$name" "$wall" "$own" "$(( ${size:-0} / 1048576 ))" \
		"$(awk -v b="${size:-0}" -v ms="$own" 'BEGIN { if (ms > 0 && b > 0) printf "%.0f", b / 1048576 / (ms / 1000); else print "-" }')")")
	echo "   $name: wall $wall ms, Branchstate $own ms"
}

echo "== 1. throughput: $projects projects of real class files and jars"
"$JAVA_HOME/bin/jimage" extract --dir "$work/pool" "$JAVA_HOME/lib/modules"
repo=$work/ci/repo
mkdir -p "$repo"
git init -q -b main "$repo"
git -C "$repo" config user.name bench && git -C "$repo" config user.email bench@branchstate.invalid
printf 'bin/\n' > "$repo/.gitignore"
for ((p = 0; p < projects; p++)); do
	d=$(printf '%s/p%02d' "$repo" "$p")
	mkdir -p "$d/src"
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<projectDescription><name>%s</name><comment></comment><projects></projects><buildSpec></buildSpec><natures></natures></projectDescription>\n' \
		"$(basename "$d")" > "$d/.project"
	echo main > "$d/src/version.txt"
done
git -C "$repo" add -A && git -C "$repo" commit -q -m main
python3 releng/bench/scale/make_tree.py --pool "$work/pool" --m2 "$HOME/.m2/repository" --out "$repo" \
	--projects "$projects" --files 5000 --jar-mb 46 --variant 0 --from -1
data_mb=$(du -sm --apparent-size "$repo" | cut -f1)
echo "   $(find "$repo" -path '*/bin/*' -type f | wc -l) derived files, $data_mb MB"
app import "$repo" --derived=bin > "$work/logs/import-ci.log"
timed "save (ci)" "$work/logs/save-ci.log" save "$repo"
timed "publish" "$work/logs/publish.log" publish "$repo" "${remote[@]}" --signing-key="$work/keys/branchstate-signing.pem"
workspace developer
git clone -q "$repo" "$work/developer/repo"
app import "$work/developer/repo" --derived=bin > "$work/logs/import-dev.log"
timed "fetch (empty local store)" "$work/logs/fetch.log" fetch "$work/developer/repo" "${remote[@]}" --public-key="$key"
timed "restore into empty bin/" "$work/logs/restore-dev.log" restore "$work/developer/repo"
cmp <(cd "$repo" && find p*/bin -type f -exec sha256sum {} + | sort -k2) \
	<(cd "$work/developer/repo" && find p*/bin -type f -exec sha256sum {} + | sort -k2) \
	|| { echo "remote: the developer's restored bin/ differs from CI's" >&2; exit 1; }
echo "   the developer's bin/ equals CI's, byte for byte"

echo "== 2. switch A→B of guava in the developer's clone: rebuild vs the state of B fetched"
rm -rf "$work/ci" "$work/developer"
workspace ci
repo=$work/ci/repo
mkdir -p "$work/jars" "$work/deps/guava"
./mvnw -B -q dependency:copy -Dartifact=com.google.guava:guava:33.3.1-jre:jar:sources -DoutputDirectory="$work/jars"
./mvnw -B -q dependency:copy -Dartifact=com.google.guava:guava:33.4.0-jre:jar:sources -DoutputDirectory="$work/jars"
cat > "$work/deps/guava/pom.xml" <<-EOP
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>bench</groupId><artifactId>guava-deps</artifactId><version>1</version>
<dependencies><dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>33.4.0-jre</version></dependency></dependencies></project>
EOP
./mvnw -B -q -f "$work/deps/guava/pom.xml" dependency:copy-dependencies -DoutputDirectory="$work/deps/guava/jars" \
	-DexcludeArtifactIds=guava -DincludeScope=runtime > "$work/logs/deps.log" 2>&1
git init -q -b A "$repo"
git -C "$repo" config user.name bench && git -C "$repo" config user.email bench@branchstate.invalid
for v in A:33.3.1-jre B:33.4.0-jre; do
	[ "${v%%:*}" = A ] || git -C "$repo" checkout -q -b B
	rm -rf "$repo/guava/src" && mkdir -p "$repo/guava/src"
	unzip -q -o "$work/jars/guava-${v#*:}-sources.jar" -d "$repo/guava/src" -x 'META-INF/*' '*module-info.java'
	# shellcheck disable=SC2046 # the jars, one argument each
	java_project "$repo/guava" guava $(find "$work/deps/guava/jars" -name '*.jar' | sort)
	printf 'bin/\n' > "$repo/guava/.gitignore"
	git -C "$repo" add -A && git -C "$repo" commit -q -m "${v%%:*}"
done
git -C "$repo" checkout -q A
app import "$repo" > "$work/logs/import-java-ci.log"
for c in A B; do # CI builds, saves and publishes each commit with HEAD at it
	git -C "$repo" checkout -q "$c"
	app save "$repo" > "$work/logs/save-$c.log"
	timed "publish guava $c" "$work/logs/publish-$c.log" publish "$repo" "${remote[@]}" \
		--signing-key="$work/keys/branchstate-signing.pem"
done
git -C "$repo" checkout -q A
workspace developer
dev=$work/developer/repo
git clone -q -b A "$repo" "$dev" && git -C "$dev" branch -q B origin/B
app import "$dev" > "$work/logs/import-java-dev.log"
app build "$dev" > "$work/logs/build-A-dev.log" # the developer works on A: JDT built it
cp -a "$work/developer" "$work/developer-start"
run_switch "$work/logs/switch-a.log" "$dev" --without-branchstate B
a_ms=$total_ms a_build=$build_ms
rm -rf "$work/developer" && cp -a "$work/developer-start" "$work/developer"
# the switch reads the remote store from the workspace's preferences, as the IDE does
printf 'dev.branchstate.core/remoteEndpoint=http://127.0.0.1:%s\ndev.branchstate.core/remoteBucket=states\ndev.branchstate.core/remotePrefix=bench\ndev.branchstate.core/remotePathStyle=true\ndev.branchstate.core/remotePublicKey=%s\n' \
	"$port" "$key" >> "$work/developer/customization.ini"
run_switch "$work/logs/switch-b.log" "$dev" --with-branchstate B
b_ms=$total_ms b_build=$build_ms
grep -q 'restored' "$work/logs/switch-b.log" || { cat "$work/logs/switch-b.log" >&2; echo "remote: the switch restored nothing" >&2; exit 1; }

echo
echo "## remote states: $(nproc) cores, S3Proxy on 127.0.0.1 (filesystem backend in $work/s3)"
echo "| step | session wall ms | Branchstate ms | archive MB | MB/s |"
echo "|---|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "| switch A→B of guava in the developer's clone | total ms | of which build ms |"
echo "|---|---:|---:|"
echo "| a) without Branchstate: JDT builds the change | $a_ms | $a_build |"
echo "| b) state of B fetched from the remote store, restored, handed to JDT | $b_ms | $b_build |"
echo "a/b = $(ratio "$a_ms" "$b_ms")"
}
main "$@"

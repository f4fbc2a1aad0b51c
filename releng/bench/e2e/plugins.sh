# The plug-in workspace of the end-to-end benchmark (`run.sh --plugins`, issue 33), sourced by run.sh: 40 Eclipse
# Platform, JDT, PDE and EMF bundles as plug-in projects, made from Maven Central — each bundle's -sources jar for src/
# (and its extension point schemas), its binary jar for the rest: the main section of META-INF/MANIFEST.MF, plugin.xml,
# plugin.properties, OSGI-INF, icons. The projects read each other through "Plug-in Dependencies" (Require-Bundle,
# Import-Package between workspace bundles: PDE puts the workspace bundle ahead of the IDE's own one), the rest of the
# IDE's bundles is the target. Each bundle's previous release on Maven Central on branch A, the release the IDE ships
# on B. The bundles are the 40 largest of the committers' IDE with sources on Maven Central and no nested jar on
# their Bundle-ClassPath (org.eclipse.osgi left out: the framework itself).
# NOT UP TO DATE: the B releases below are those of the committers' IDE before commit 637f449, which held 4.40 and
# 4.41 bundles under the name 4.39; the IDE is Eclipse 4.39 now (releng/dev.branchstate.target: ui.workbench 3.138.0,
# jdt.core 3.45.0, ...). Regenerate the pairs (B = the IDE's, A = the bundle's previous release) before the next run;
# the README's figures of this benchmark were measured with the pairs below in the IDE of that time.

# symbolic name, groupId, release on A, release on B
plugin_bundles=(
	"org.eclipse.ui.workbench org.eclipse.platform 3.138.0 3.139.0"
	"org.eclipse.jdt.core org.eclipse.jdt 3.46.0 3.47.0"
	"org.eclipse.pde.core org.eclipse.pde 3.21.100 3.21.200"
	"org.eclipse.ui.ide org.eclipse.platform 3.23.0 3.23.100"
	"org.eclipse.jface org.eclipse.platform 3.39.0 3.39.100"
	"org.eclipse.team.ui org.eclipse.platform 3.12.0 3.12.100"
	"org.eclipse.jface.text org.eclipse.platform 3.30.0 3.31.0"
	"org.eclipse.core.resources org.eclipse.platform 3.24.0 3.24.100"
	"org.eclipse.pde.api.tools org.eclipse.pde 1.3.1000 1.3.1100"
	"org.eclipse.debug.core org.eclipse.platform 3.23.200 3.23.300"
	"org.eclipse.ui.workbench.texteditor org.eclipse.platform 3.20.0 3.20.100"
	"org.eclipse.team.core org.eclipse.platform 3.10.900 3.10.1000"
	"org.eclipse.e4.ui.model.workbench org.eclipse.platform 2.4.700 2.4.800"
	"org.eclipse.jface.databinding org.eclipse.platform 1.15.400 1.16.0"
	"org.eclipse.emf.ecore org.eclipse.emf 2.42.0 2.43.0"
	"org.eclipse.compare org.eclipse.platform 3.12.0 3.12.100"
	"org.eclipse.text org.eclipse.platform 3.14.700 3.14.800"
	"org.eclipse.ui.navigator org.eclipse.platform 3.14.0 3.14.100"
	"org.eclipse.ltk.core.refactoring org.eclipse.platform 3.15.100 3.15.200"
	"org.eclipse.e4.ui.css.core org.eclipse.platform 0.14.600 0.14.700"
	"org.eclipse.equinox.p2.metadata org.eclipse.platform 2.9.600 2.9.700"
	"org.eclipse.ui.editors org.eclipse.platform 3.21.0 3.22.0"
	"org.eclipse.ltk.ui.refactoring org.eclipse.platform 3.14.0 3.14.100"
	"org.eclipse.jdt.launching org.eclipse.jdt 3.24.100 3.24.200"
	"org.eclipse.core.databinding org.eclipse.platform 1.13.600 1.13.700"
	"org.eclipse.help org.eclipse.platform 3.11.0 3.11.100"
	"org.eclipse.core.databinding.observable org.eclipse.platform 1.13.400 1.13.500"
	"org.eclipse.e4.ui.css.swt org.eclipse.platform 0.16.0 0.17.0"
	"org.eclipse.equinox.p2.repository.tools org.eclipse.platform 2.4.800 2.4.900"
	"org.eclipse.ui.forms org.eclipse.platform 3.13.700 3.14.0"
	"org.eclipse.ui.console org.eclipse.platform 3.16.0 3.17.0"
	"org.eclipse.equinox.registry org.eclipse.platform 3.12.500 3.12.600"
	"org.eclipse.core.commands org.eclipse.platform 3.12.400 3.12.500"
	"org.eclipse.e4.ui.workbench org.eclipse.platform 1.18.200 1.18.300"
	"org.eclipse.equinox.p2.engine org.eclipse.platform 2.11.0 2.11.100"
	"org.eclipse.equinox.p2.publisher.eclipse org.eclipse.platform 1.6.600 1.6.700"
	"org.eclipse.equinox.common org.eclipse.platform 3.20.400 3.21.0"
	"org.eclipse.emf.ecore.xmi org.eclipse.emf 2.40.0 2.41.0"
	"org.eclipse.emf.common org.eclipse.emf 2.45.0 2.46.0"
	"org.eclipse.equinox.p2.repository org.eclipse.platform 2.9.600 2.9.700"
)

# fetch_plugin_jars <folder>: the binary and -sources jars of both releases of every bundle into <folder>, resolved by
# the Maven wrapper (four Maven runs: one a release and kind)
fetch_plugin_jars() {
	local dir=$1 release classifier bundle name group a b
	mkdir -p "$dir"
	for release in A B; do
		{
			echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
			echo "<groupId>bench</groupId><artifactId>plugins-$release</artifactId><version>1</version><dependencies>"
			for bundle in "${plugin_bundles[@]}"; do
				read -r name group a b <<<"$bundle"
				echo "<dependency><groupId>$group</groupId><artifactId>$name</artifactId><version>$([ $release = A ] && echo "$a" || echo "$b")</version></dependency>"
			done
			echo '</dependencies></project>'
		} > "$dir/pom-$release.xml"
		for classifier in jar sources; do
			./mvnw -B -q -f "$dir/pom-$release.xml" dependency:copy-dependencies -DexcludeTransitive=true \
				-DoutputDirectory="$dir" $([ $classifier = sources ] && echo -Dclassifier=sources) \
				> "$dir/resolve-$release-$classifier.log" 2>&1 \
				|| { cat "$dir/resolve-$release-$classifier.log" >&2; echo "resolving the $classifier jars of $release failed" >&2; return 1; }
		done
	done
}

# plugin_project <project folder> <binary jar> <sources jar>: the plug-in project of one release of a bundle
plugin_project() {
	local dir=$1 jar=$2 sources=$3 level includes
	rm -rf "$dir"
	mkdir -p "$dir/src" "$dir/META-INF" "$dir/.settings"
	unzip -q -o "$sources" 'org/*' 'com/*' -x '*module-info.java' -d "$dir/src" 2>/dev/null || true # (no com/: status 11)
	[ -n "$(ls -A "$dir/src")" ] || { echo "no sources in $sources" >&2; return 1; }
	unzip -q -o "$sources" 'schema/*' -d "$dir" 2>/dev/null || true
	# the bundle's own files: everything of the binary jar that is not a class, a package's resource or signature
	unzip -q -o "$jar" -x '*.class' 'META-INF/*' 'org/*' 'com/*' -d "$dir" 2>/dev/null || true
	# the manifest's main section (the signature digests of the entries after it are the binary jar's)
	unzip -p "$jar" META-INF/MANIFEST.MF | tr -d '\r' | awk '/^$/ { done = 1 } !done' > "$dir/META-INF/MANIFEST.MF"
	grep -q '^Bundle-SymbolicName: ' "$dir/META-INF/MANIFEST.MF" || { echo "no bundle manifest in $jar" >&2; return 1; }
	includes=META-INF/,.
	for entry in $(cd "$dir" && ls -A | grep -v -x -E 'src|\.settings|META-INF'); do
		includes+=,$entry$([ -d "$dir/$entry" ] && echo / || true)
	done
	printf 'source.. = src/\noutput.. = bin/\nbin.includes = %s\n' "$includes" > "$dir/build.properties"
	level=$(sed -n -E 's/^Bundle-RequiredExecutionEnvironment: JavaSE-([0-9]+).*/\1/p' "$dir/META-INF/MANIFEST.MF")
	level=${level:-17}
	# as the bundles' own repositories have them: the release of their execution environment, compiled with --release
	printf 'eclipse.preferences.version=1\norg.eclipse.jdt.core.compiler.codegen.targetPlatform=%s\norg.eclipse.jdt.core.compiler.compliance=%s\norg.eclipse.jdt.core.compiler.source=%s\norg.eclipse.jdt.core.compiler.release=enabled\n' \
		"$level" "$level" "$level" > "$dir/.settings/org.eclipse.jdt.core.prefs"
	cat > "$dir/.project" <<-EOP
	<?xml version="1.0" encoding="UTF-8"?>
	<projectDescription><name>$(basename "$dir")</name><comment></comment><projects></projects><buildSpec>
	<buildCommand><name>org.eclipse.jdt.core.javabuilder</name><arguments></arguments></buildCommand>
	<buildCommand><name>org.eclipse.pde.ManifestBuilder</name><arguments></arguments></buildCommand>
	<buildCommand><name>org.eclipse.pde.SchemaBuilder</name><arguments></arguments></buildCommand>
	</buildSpec><natures><nature>org.eclipse.pde.PluginNature</nature><nature>org.eclipse.jdt.core.javanature</nature></natures>
	</projectDescription>
	EOP
	plugin_classpath "$dir"
	printf 'bin/\n' > "$dir/.gitignore"
}

# commit_plugins <repository> <jars folder> <A or B>: that release of every bundle, committed
commit_plugins() {
	local repo=$1 jars=$2 release=$3 bundle name group a b v
	for bundle in "${plugin_bundles[@]}"; do
		read -r name group a b <<<"$bundle"
		v=$a; [ "$release" = B ] && v=$b
		plugin_project "$repo/$name" "$jars/$name-$v.jar" "$jars/$name-$v-sources.jar"
	done
	git -C "$repo" add -A
	git -C "$repo" commit -q -m "$release"
}

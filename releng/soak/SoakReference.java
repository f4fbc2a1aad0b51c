// The soak's clean reference of a working tree without an IDE (releng/soak/run.sh, issue 34): what a clean workspace
// would hold after importing the tree's Java projects (the tree itself, or every folder with a .project, as the headless
// import finds them) and building them, made in one plain JVM. Each project is compiled after the projects on its build
// path, against what JDT's resolved classpath shows of them: their output folders, their exported libraries and
// projects. A plug-in project's "Plug-in Dependencies" (PDE's container org.eclipse.pde.core.requiredPlugins) is
// resolved as PDE resolves it for bundles of the workspace: each bundle its MANIFEST.MF requires (Require-Bundle) is
// the project whose Bundle-SymbolicName that is, read through the access rules PDE gives that project entry (its
// exported packages accessible, everything else forbidden: PDEClasspathContainer.getAccessRules). A required bundle
// outside the tree (the target platform's) is not modelled: the reference fails then.
//
//   java -cp <ecj.jar>:<the installed IDE's plug-ins> dev.branchstate.javaindex.internal.SoakReference \
//        <tree> <out folder> <JRE release>
//
// Per project:
// - <project>/<output folder> (.classpath's kind="output"): the class files of JDT's batch compiler (ecj, Maven
//   Central's org.eclipse.jdt:ecj of the IDE's JDT version: the bundle org.eclipse.jdt.core.compiler.batch) with the
//   options a clean workspace's JDT builds with: JavaCore's defaults, the compliance of the JRE (JDT Launching sets
//   the workspace's compliance to the default JRE's, --release enabled), the project's .settings/org.eclipse.jdt.core.prefs
//   over them; the source folders' other files copied as JDT's builder copies them;
// - <out>/problems.txt: the problems as the headless `build --problems` prints the problem markers
//   (`problem <path>:<line> <severity> id=<id> <type> <message>`, sorted); JDT's compile problems from ecj's XML log
//   (tasks are task markers, not problems: left out), and core.resources' marker of a project without an explicit
//   encoding, which a workspace adds to such a project;
// - <out>/index/<project>.dump: the dump of a fresh Java index (dev.branchstate.javaindex's own parser and summaries,
//   as its dump writes them: every .java file of the project but the output folder's, sorted by path).
//
// A project whose inputs (its files, what its classpath shows of other projects, the release) are those of a project
// the same JVM built before is copied from that build, not compiled again (--serve: one JVM for the soak's run).
//
// It lives in the Java index's package to use its parser (UnitParser) and summaries (UnitSummary) unchanged.
// run.sh --check-reference compares all of it with an IDE's clean build of the same tree.
package dev.branchstate.javaindex.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.eclipse.core.runtime.IPath;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.core.compiler.IProblem;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

public final class SoakReference {

	private static final Pattern ENTRY = Pattern.compile("<classpathentry\\s+([^>]*?)/?>");
	private static final Pattern ATTRIBUTE = Pattern.compile("(\\w+)=\"([^\"]*)\"");

	public static void main(String[] args) throws Exception {
		if (args.length == 1 && "--serve".equals(args[0])) {
			serve();
			return;
		}
		System.out.println(reference(Path.of(args[0]).toAbsolutePath(), Path.of(args[1]).toAbsolutePath(), args[2]));
	}

	/**
	 * One reference after the other, each asked for by a line {@code <tree>\t<out folder>\t<JRE release>} on standard
	 * input and answered by one line: {@code done <what it made>} or {@code failed <why>} (the driver keeps one such
	 * JVM for the run: the compiler's code stays compiled by the JIT). Every project is built from scratch as by
	 * {@link #main}, unless the JVM built one with the same inputs before: its clean build is copied then
	 * ({@link #BUILT}).
	 */
	private static void serve() throws IOException {
		var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line; (line = in.readLine()) != null;) {
			String[] a = line.split("\t");
			String answer;
			try {
				answer = "done " + reference(Path.of(a[0]).toAbsolutePath(), Path.of(a[1]).toAbsolutePath(), a[2]);
			} catch (Exception | LinkageError e) {
				StringWriter trace = new StringWriter();
				e.printStackTrace(new PrintWriter(trace));
				Files.writeString(Path.of(a[1]).resolve("reference-failure.txt"), trace.toString());
				answer = "failed " + e;
			}
			System.out.println(answer.replace('\n', ' '));
			System.out.flush();
		}
	}

	/** A Java project of the tree as its .project and .classpath describe it. */
	private record Project(String name, Path dir, List<String> sources, List<Path> libraries, List<Path> exportedLibraries,
			List<String> required, List<String> exportedRequired, Path output, Map<String, String> accessRules) {
	}

	/** PDE's "Plug-in Dependencies" container: the bundles of MANIFEST.MF's Require-Bundle as project entries. */
	private static final String REQUIRED_PLUGINS = "org.eclipse.pde.core.requiredPlugins";

	private static String reference(Path tree, Path out, String release) throws Exception {
		Files.createDirectories(out);
		Files.createDirectories(out.resolve("index"));
		Map<String, Project> projects = projects(tree);
		List<String> problems = new ArrayList<>();
		int compiled = 0;
		int units = 0;
		boolean errors = false;
		java.util.Set<String> broken = new java.util.HashSet<>();
		Map<Path, String> outputInputs = new HashMap<>(); // each output folder of this tree: its project's inputs
		int reused = 0;
		for (Project project : buildOrder(projects)) {
			String inputs = inputs(tree, project, projects, release, outputInputs);
			outputInputs.put(project.output(), inputs);
			Built earlier = BUILT.get(inputs);
			if (earlier != null && earlier.copyTo(project, out)) {
				problems.addAll(earlier.problems());
				if (earlier.broken()) {
					broken.add(project.name());
				}
				errors |= earlier.errors();
				units += earlier.units();
				reused++;
				continue;
			}
			int first = problems.size();
			int[] counts = compile(tree, project, projects, out, release, problems, broken);
			compiled += counts[0];
			errors |= counts[1] != 0;
			int indexed = index(project, out);
			units += indexed;
			BUILT.put(inputs, new Built(project.output(), dumpFile(out, project), List.copyOf(problems.subList(first, problems.size())),
					broken.contains(project.name()), counts[1] != 0, indexed));
		}
		problems.sort(null);
		StringBuilder text = new StringBuilder();
		problems.forEach(p -> text.append("problem ").append(p).append('\n'));
		Files.writeString(out.resolve("problems.txt"), text);
		return "reference " + tree + ": " + projects.size() + " project(s), " + compiled + " compiled"
				+ (errors ? " (with errors)" : "") + ", " + problems.size() + " problems, " + units + " units indexed, "
				+ reused + " project(s) copied from an earlier reference with the same inputs";
	}

	/**
	 * What this JVM built, by the inputs of the project built ({@link #inputs}): a project whose inputs are those of a
	 * project built before is not compiled again, its output folder, problems and index dump are copied from that
	 * build (the compiler and the parser are deterministic: the same inputs give the same bytes). Issue 34: most steps
	 * change one project, and the projects that do not read it are the same as in an earlier tree.
	 */
	private static final Map<String, Built> BUILT = new HashMap<>();

	/** A project's clean build: where its output and its index dump are, and its problems. */
	private record Built(Path output, Path dump, List<String> problems, boolean broken, boolean errors, int units) {

		/** @return whether this build's files were there to copy into the project's output folder and index dump */
		boolean copyTo(Project project, Path out) throws IOException {
			if (!Files.isDirectory(output) || !Files.isRegularFile(dump)) {
				return false; // (an earlier reference's folder that the driver removed)
			}
			Files.createDirectories(project.output());
			try (Stream<Path> files = Files.walk(output)) {
				for (Path f : files.sorted().toList()) {
					Path to = project.output().resolve(output.relativize(f).toString());
					if (Files.isDirectory(f)) {
						Files.createDirectories(to);
					} else {
						Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
					}
				}
			}
			Files.copy(dump, dumpFile(out, project), StandardCopyOption.REPLACE_EXISTING);
			return true;
		}
	}

	private static Path dumpFile(Path out, Project project) {
		return out.resolve("index").resolve(project.name() + ".dump");
	}

	/**
	 * A digest of everything a project's clean build reads: the JRE release, the project's name and folder in the
	 * tree (its problems name them), every folder and file of the project but its output folder (sources, .classpath,
	 * .settings, libraries: a missing source folder too), and what its classpath shows of other projects — an output
	 * folder by the inputs of the project that built it, a library by its bytes.
	 */
	private static String inputs(Path tree, Project project, Map<String, Project> projects, String release,
			Map<Path, String> outputInputs) throws IOException {
		java.security.MessageDigest digest;
		try {
			digest = java.security.MessageDigest.getInstance("SHA-256");
		} catch (java.security.NoSuchAlgorithmException e) {
			throw new IllegalStateException(e);
		}
		java.util.function.Consumer<String> text = t -> digest.update((t + '\0').getBytes(StandardCharsets.UTF_8));
		text.accept(release);
		text.accept(project.name());
		text.accept(tree.relativize(project.dir()).toString());
		digestFolder(project.dir(), project.output(), text, digest);
		for (var e : classpath(project, projects).entrySet()) {
			Path entry = e.getKey();
			String built = outputInputs.get(entry);
			text.accept(entry + e.getValue());
			if (built != null) {
				text.accept("output of " + built);
			} else if (Files.isDirectory(entry)) {
				digestFolder(entry, null, text, digest);
			} else if (Files.isRegularFile(entry)) {
				byte[] content = Files.readAllBytes(entry);
				text.accept(Integer.toString(content.length));
				digest.update(content);
			} else {
				text.accept("missing");
			}
		}
		return java.util.HexFormat.of().formatHex(digest.digest());
	}

	private static void digestFolder(Path folder, Path leftOut, java.util.function.Consumer<String> text,
			java.security.MessageDigest digest) throws IOException {
		try (Stream<Path> files = Files.walk(folder)) {
			for (Path f : files.filter(f -> (leftOut == null || !f.startsWith(leftOut)) && !f.startsWith(folder.resolve(".git")))
					.sorted().toList()) {
				text.accept(folder.relativize(f).toString() + (Files.isDirectory(f) ? "/" : ""));
				if (Files.isRegularFile(f)) {
					byte[] content = Files.readAllBytes(f);
					text.accept(Integer.toString(content.length));
					digest.update(content);
				}
			}
		}
	}

	/**
	 * The projects of the tree as the headless import finds them: the tree itself when it holds a .project, else every
	 * folder with a .project (not looking further into it), by name.
	 */
	private static Map<String, Project> projects(Path tree) throws IOException {
		List<Path> dirs = new ArrayList<>();
		Files.walkFileTree(tree, new java.nio.file.SimpleFileVisitor<>() {
			@Override
			public java.nio.file.FileVisitResult preVisitDirectory(Path dir,
					java.nio.file.attribute.BasicFileAttributes attrs) {
				if (dir.getFileName() != null && ".git".equals(dir.getFileName().toString())) {
					return java.nio.file.FileVisitResult.SKIP_SUBTREE;
				}
				if (Files.isRegularFile(dir.resolve(".project"))) {
					dirs.add(dir);
					return java.nio.file.FileVisitResult.SKIP_SUBTREE;
				}
				return java.nio.file.FileVisitResult.CONTINUE;
			}
		});
		dirs.sort(null);
		Map<String, Path> byName = new java.util.LinkedHashMap<>();
		Map<String, String> projectOfBundle = new HashMap<>();
		for (Path dir : dirs) {
			String name = projectName(dir);
			byName.put(name, dir);
			java.util.jar.Attributes manifest = bundleManifest(dir);
			if (manifest != null && manifest.getValue("Bundle-SymbolicName") != null) {
				projectOfBundle.put(clauses(manifest.getValue("Bundle-SymbolicName")).get(0), name);
			}
		}
		Map<String, Project> projects = new java.util.LinkedHashMap<>();
		for (var e : byName.entrySet()) {
			Path dir = e.getValue();
			List<String> sources = new ArrayList<>();
			List<Path> libraries = new ArrayList<>();
			List<Path> exportedLibraries = new ArrayList<>();
			List<String> required = new ArrayList<>();
			List<String> exportedRequired = new ArrayList<>();
			Map<String, String> accessRules = new HashMap<>();
			String output = "bin";
			for (Map<String, String> entry : classpathEntries(dir)) {
				String path = entry.get("path");
				boolean exported = "true".equals(entry.get("exported"));
				switch (entry.getOrDefault("kind", "")) {
				case "src" -> {
					if (path.startsWith("/")) { // a project on the build path
						required.add(path.substring(1));
						if (exported) {
							exportedRequired.add(path.substring(1));
						}
					} else {
						sources.add(path);
					}
				}
				case "lib" -> {
					// a path in the workspace (/project/...) or in the project
					Path library = path.startsWith("/")
							? byName.get(path.substring(1, path.indexOf('/', 1))).resolve(path.substring(path.indexOf('/', 1) + 1))
							: dir.resolve(path);
					libraries.add(library);
					if (exported) {
						exportedLibraries.add(library);
					}
				}
				case "output" -> output = path;
				case "con" -> {
					if (REQUIRED_PLUGINS.equals(path)) {
						requiredBundles(dir, byName, projectOfBundle, required, accessRules);
					} // else the JRE container: --release
				}
				default -> throw new IOException("a classpath entry of kind " + entry.get("kind") + " in " + dir
						+ ": not modelled by the soak's reference");
				}
			}
			projects.put(e.getKey(), new Project(e.getKey(), dir, sources, libraries, exportedLibraries, required,
					exportedRequired, dir.resolve(output), accessRules));
		}
		return projects;
	}

	/**
	 * What "Plug-in Dependencies" holds for a plug-in project: a project entry per bundle of the tree that its manifest
	 * requires, with PDE's access rules (ecj's syntax): each package that bundle exports accessible, everything else
	 * forbidden.
	 */
	private static void requiredBundles(Path dir, Map<String, Path> byName, Map<String, String> projectOfBundle,
			List<String> required, Map<String, String> accessRules) throws IOException {
		java.util.jar.Attributes manifest = bundleManifest(dir);
		if (manifest == null) {
			throw new IOException("no META-INF/MANIFEST.MF in the plug-in project " + dir);
		}
		if (manifest.getValue("Import-Package") != null) {
			throw new IOException("Import-Package in " + dir + ": not modelled by the soak's reference");
		}
		for (String bundle : clauses(manifest.getValue("Require-Bundle"))) {
			String project = projectOfBundle.get(bundle);
			if (project == null) {
				throw new IOException(dir + " requires the bundle " + bundle + ", which is no project of the tree: not"
						+ " modelled by the soak's reference");
			}
			required.add(project);
			StringBuilder rules = new StringBuilder("[");
			for (String exported : clauses(bundleManifest(byName.get(project)).getValue("Export-Package"))) {
				rules.append('+').append(exported.replace('.', '/')).append("/*").append(java.io.File.pathSeparator);
			}
			accessRules.put(project, rules.append("-**/*]").toString());
		}
	}

	/** @return the main attributes of the project's META-INF/MANIFEST.MF, null when there is none */
	private static java.util.jar.Attributes bundleManifest(Path dir) throws IOException {
		Path file = dir.resolve("META-INF/MANIFEST.MF");
		if (!Files.isRegularFile(file)) {
			return null;
		}
		try (var in = Files.newInputStream(file)) {
			return new java.util.jar.Manifest(in).getMainAttributes();
		}
	}

	/**
	 * @return the names of a manifest header's clauses (attributes and directives left out), none for no header; a
	 *         directive the reference does not model (x-internal, x-friends, visibility, resolution) fails it
	 */
	private static List<String> clauses(String header) throws IOException {
		List<String> names = new ArrayList<>();
		if (header == null) {
			return names;
		}
		for (String clause : header.split(",")) {
			String[] parts = clause.trim().split(";");
			for (int i = 1; i < parts.length; i++) {
				if (parts[i].contains(":=") && !parts[i].trim().startsWith("singleton:=")) {
					throw new IOException("the directive " + parts[i].trim() + " in " + header
							+ ": not modelled by the soak's reference");
				}
			}
			names.add(parts[0].trim());
		}
		return names;
	}

	/** The projects, each after the projects on its build path (JDT's build order; the soak makes no cycle). */
	private static List<Project> buildOrder(Map<String, Project> projects) throws IOException {
		List<Project> order = new ArrayList<>();
		java.util.Set<String> visiting = new java.util.HashSet<>();
		for (Project p : projects.values()) {
			visit(p, projects, order, visiting);
		}
		return order;
	}

	private static void visit(Project p, Map<String, Project> projects, List<Project> order,
			java.util.Set<String> visiting) throws IOException {
		if (order.contains(p)) {
			return;
		}
		if (!visiting.add(p.name())) {
			throw new IOException("a cycle of project references through " + p.name());
		}
		for (String name : p.required()) {
			Project required = projects.get(name);
			if (required == null) {
				throw new IOException("project " + p.name() + " reads the missing project " + name);
			}
			visit(required, projects, order, visiting);
		}
		order.add(p);
	}

	/**
	 * A project's resolved classpath but the JRE (JDT's): its libraries, then what each project on its build path shows
	 * of itself; each entry with its access rules in ecj's syntax ("" for none).
	 */
	private static Map<Path, String> classpath(Project project, Map<String, Project> projects) {
		Map<Path, String> classpath = new java.util.LinkedHashMap<>();
		project.libraries().forEach(l -> classpath.putIfAbsent(l, ""));
		for (String name : project.required()) {
			Project required = projects.get(name);
			if (required != null) {
				visibleOf(required, projects, project.accessRules().getOrDefault(name, ""), classpath);
			}
		}
		return classpath;
	}

	/**
	 * What a project reading the given project sees of it (JDT's resolved classpath): its output folder, its exported
	 * libraries and what the projects it exports show, each through the access rules of the entry that reads it.
	 */
	private static void visibleOf(Project p, Map<String, Project> projects, String rules, Map<Path, String> into) {
		into.putIfAbsent(p.output(), rules);
		p.exportedLibraries().forEach(l -> into.putIfAbsent(l, rules));
		for (String name : p.exportedRequired()) {
			visibleOf(projects.get(name), projects, rules, into);
		}
	}

	/**
	 * Compiles one project into its output folder; adds its problems. A project with a source folder missing on disk
	 * is not built, as JDT's builder does not build it (a build path error: JavaBuilder.isWorthBuilding), and is added
	 * to {@code broken}. @return files compiled, 1 when with errors
	 */
	private static int[] compile(Path tree, Project project, Map<String, Project> projects, Path out, String release,
			List<String> problems, java.util.Set<String> broken) throws Exception {
		Path bin = project.output();
		Files.createDirectories(bin);
		Map<Path, String> classpath = classpath(project, projects);
		String folder = tree.relativize(project.dir()).toString();
		folder = folder.isEmpty() ? "." : folder;
		for (Project other : projects.values()) {
			if (broken.contains(other.name()) && classpath.containsKey(other.output())) {
				// JDT: "The project cannot be built until its prerequisite ... is built", for the first of them in an
				// order the soak does not model; its edits never break a project that another reads
				throw new IOException(project.name() + " reads " + other.name()
						+ ", whose build path is broken: not modelled by the soak's reference");
			}
		}
		List<String> missing = project.sources().stream().filter(s -> !Files.isDirectory(project.dir().resolve(s)))
				.toList();
		if (!missing.isEmpty()) {
			// JDT's classpath validation (a marker per missing source folder) and its builder's refusal to build
			for (String source : missing) {
				problems.add(folder + ":-1 error id=964 org.eclipse.jdt.core.buildpath_problem Project '" + project.name()
						+ "' is missing required source folder: '" + source + "'");
			}
			problems.add(folder + ":-1 error id=-1 org.eclipse.jdt.core.problem The project cannot be built until build"
					+ " path errors are resolved");
			if (!explicitEncoding(project.dir())) {
				problems.add(folder + ":-1 warning id=-1 org.eclipse.core.resources.noExplicitEncoding Project '"
						+ project.name() + "' has no explicit encoding set");
			}
			broken.add(project.name());
			return new int[] { 0, 1 };
		}

		// the options: JavaCore's defaults (the platform not running: its defaults without preferences), the JRE's
		// compliance with --release, the project's own settings over them
		Map<String, String> options = new HashMap<>(JavaCore.getOptions());
		JavaCore.setComplianceOptions(release, options);
		options.put(JavaCore.COMPILER_RELEASE, JavaCore.ENABLED);
		Path projectPrefs = project.dir().resolve(".settings/org.eclipse.jdt.core.prefs");
		if (Files.isRegularFile(projectPrefs)) {
			Properties p = new Properties();
			try (var in = Files.newBufferedReader(projectPrefs, StandardCharsets.ISO_8859_1)) {
				p.load(in);
			}
			p.stringPropertyNames().stream().filter(k -> k.startsWith("org.eclipse.jdt.core."))
					.forEach(k -> options.put(k, p.getProperty(k)));
		}
		Properties props = new Properties();
		props.putAll(options);
		Path propsFile = out.resolve("ecj-" + project.name() + ".properties");
		try (var w = Files.newBufferedWriter(propsFile, StandardCharsets.ISO_8859_1)) {
			props.store(w, "the options of the soak's clean reference build");
		}
		Path log = out.resolve("ecj-" + project.name() + ".xml");
		List<String> ecj = new ArrayList<>(List.of("-properties", propsFile.toString(),
				"--release", options.get(JavaCore.COMPILER_COMPLIANCE), "-proceedOnError", "-encoding", "UTF-8",
				"-d", bin.toString(), "-log", log.toString()));
		if (!classpath.isEmpty()) {
			ecj.add("-classpath");
			ecj.add(String.join(java.io.File.pathSeparator,
					classpath.entrySet().stream().map(e -> e.getKey() + e.getValue()).toList()));
		}
		List<Path> javaFiles = new ArrayList<>();
		for (String source : project.sources()) {
			Path sourceFolder = project.dir().resolve(source);
			try (Stream<Path> files = Files.walk(sourceFolder)) {
				for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
					if (f.toString().endsWith(".java")) {
						javaFiles.add(f);
					} else if (!f.toString().endsWith(".launch")) { // JDT's default resource copy exclusion filter
						Path to = bin.resolve(sourceFolder.relativize(f).toString());
						Files.createDirectories(to.getParent());
						Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
					}
				}
			}
		}
		boolean compiled = true;
		if (!javaFiles.isEmpty()) {
			javaFiles.forEach(f -> ecj.add(f.toString()));
			StringWriter ecjOut = new StringWriter();
			compiled = new BuilderLikeMain(new PrintWriter(ecjOut)).compile(ecj.toArray(String[]::new));
			Files.writeString(out.resolve("ecj-" + project.name() + ".log"), ecjOut.toString());

			// the problems, as problem markers
			DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
			factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false); // (ecj's DTD)
			Document doc = factory.newDocumentBuilder().parse(log.toFile());
			NodeList sourceNodes = doc.getElementsByTagName("source");
			for (int i = 0; i < sourceNodes.getLength(); i++) {
				Element source = (Element) sourceNodes.item(i);
				String path = tree.relativize(Path.of(source.getAttribute("path")).toAbsolutePath()).toString();
				NodeList ps = source.getElementsByTagName("problem");
				for (int j = 0; j < ps.getLength(); j++) {
					Element p = (Element) ps.item(j);
					int id = Integer.parseInt(p.getAttribute("problemID"));
					if (id == IProblem.Task) {
						continue; // a task marker, not a problem
					}
					String message = ((Element) p.getElementsByTagName("message").item(0)).getAttribute("value");
					for (Project other : projects.values()) { // (the access rules of a project entry: JDT names the project)
						message = message.replace("(restriction on classpath entry '" + other.output() + "')",
								"(restriction on required project '" + other.name() + "')");
					}
					problems.add(path + ":" + p.getAttribute("line") + " " + p.getAttribute("severity").toLowerCase()
							+ " id=" + id + " org.eclipse.jdt.core.problem " + message.replace('\n', ' '));
				}
			}
		}
		if (!explicitEncoding(project.dir())) {
			problems.add(folder + ":-1 warning id=-1 org.eclipse.core.resources.noExplicitEncoding Project '"
					+ project.name() + "' has no explicit encoding set");
		}
		return new int[] { javaFiles.size(), compiled ? 0 : 1 };
	}

	/**
	 * ecj's batch compiler as JDT's builder runs it: with the parser's method and statement recovery on
	 * ({@code AbstractImageBuilder.newCompiler} turns both on; the batch {@code Main.performCompilation} turns both
	 * off). A file with syntax errors gives other problems and class files without them: the conflict markers a
	 * resolution left in a file, seed 11 step 576, where the IDE's clean build of the tree equalled the workspace and
	 * the batch reference did not.
	 */
	private static final class BuilderLikeMain extends org.eclipse.jdt.internal.compiler.batch.Main {

		BuilderLikeMain(PrintWriter out) {
			super(out, out, false, null, null);
		}

		@Override
		public org.eclipse.jdt.internal.compiler.IErrorHandlingPolicy getHandlingPolicy() {
			// (performCompilation asks for it after making the compiler's options and before making the compiler)
			if (this.compilerOptions != null) {
				this.compilerOptions.performMethodsFullRecovery = true;
				this.compilerOptions.performStatementsRecovery = true;
			}
			return super.getHandlingPolicy();
		}
	}

	/** Writes the dump of a fresh Java index of the project. @return its units */
	private static int index(Project project, Path out) throws IOException {
		IPath projectPath = IPath.fromPortableString("/" + project.name());
		UnitParser parser = new UnitParser();
		List<UnitSummary> units = new ArrayList<>();
		Path tree = project.dir();
		Path outputFolder = project.output();
		try (Stream<Path> files = Files.walk(tree)) {
			for (Path f : files.filter(f -> !f.startsWith(outputFolder) && !f.startsWith(tree.resolve(".git"))
					&& f.toString().endsWith(".java") && Files.isRegularFile(f)).toList()) {
				String path = tree.relativize(f).toString();
				byte[] content = Files.readAllBytes(f);
				units.add(UnitSummary.of(projectPath, parser.parse(path, JavaIndexService.hash(content),
						new String(content, StandardCharsets.UTF_8).toCharArray())));
			}
		}
		StringBuilder dump = new StringBuilder();
		units.stream().sorted(Comparator.comparing(UnitSummary::path)).forEach(u -> {
			dump.append(u.path()).append(' ').append(u.hash()).append('\n');
			for (var d : u.declarations()) {
				dump.append("  ").append(d.kind()).append(' ').append(d.container()).append(' ').append(d.name())
						.append(' ').append(d.modifiers()).append(' ').append(d.signature()).append('\n');
			}
			dump.append("  refs ").append(String.join(",", u.references())).append('\n');
		});
		Files.writeString(dumpFile(out, project), dump);
		return units.size();
	}

	private static String projectName(Path tree) throws IOException {
		Matcher m = Pattern.compile("<name>([^<]*)</name>").matcher(Files.readString(tree.resolve(".project")));
		if (!m.find()) {
			throw new IOException("no project name in " + tree.resolve(".project"));
		}
		return m.group(1);
	}

	private static List<Map<String, String>> classpathEntries(Path tree) throws IOException {
		List<Map<String, String>> entries = new ArrayList<>();
		Matcher e = ENTRY.matcher(Files.readString(tree.resolve(".classpath")));
		while (e.find()) {
			Map<String, String> attributes = new HashMap<>();
			Matcher a = ATTRIBUTE.matcher(e.group(1));
			while (a.find()) {
				attributes.put(a.group(1), a.group(2));
			}
			entries.add(attributes);
		}
		return entries;
	}

	private static boolean explicitEncoding(Path tree) throws IOException {
		Path prefs = tree.resolve(".settings/org.eclipse.core.resources.prefs");
		if (!Files.isRegularFile(prefs)) {
			return false;
		}
		Properties p = new Properties();
		try (var in = Files.newBufferedReader(prefs, StandardCharsets.ISO_8859_1)) {
			p.load(in);
		}
		return p.getProperty("encoding/<project>") != null;
	}
}

package dev.branchstate.javaindex.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IFolder;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IConfigurationElement;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.Platform;
import org.eclipse.jdt.core.dom.Modifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.FrameworkUtil;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.core.IStateContributor;
import dev.branchstate.javaindex.Declaration;
import dev.branchstate.javaindex.Declaration.Kind;
import dev.branchstate.javaindex.IJavaIndex;
import dev.branchstate.javaindex.IndexUpdate;
import dev.branchstate.javaindex.IndexUpdate.Cause;
import dev.branchstate.javaindex.internal.IndexDumpOnCommand;
import dev.branchstate.javaindex.internal.JavaIndexService;

class JavaIndexTest {

	private static final IWorkspace WORKSPACE = ResourcesPlugin.getWorkspace();
	private static ServiceTracker<IJavaIndex, IJavaIndex> tracker;
	private static IJavaIndex index;

	@BeforeAll
	static void service() throws Exception {
		tracker = new ServiceTracker<>(FrameworkUtil.getBundle(JavaIndexTest.class).getBundleContext(),
				IJavaIndex.class, null);
		tracker.open();
		index = tracker.waitForService(20_000);
		assertThat(index).as("the Java index service").isNotNull();
	}

	@AfterAll
	static void close() {
		tracker.close();
	}

	private static IProject project(String name) throws CoreException {
		IProject project = WORKSPACE.getRoot().getProject(name);
		if (project.exists()) {
			project.delete(true, true, null);
		}
		project.create(null);
		project.open(null);
		return project;
	}

	private static void write(IProject project, String path, String content) throws CoreException {
		IFile file = project.getFile(path);
		ByteArrayInputStream in = new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8));
		if (file.exists()) {
			file.setContents(in, true, false, null);
		} else {
			mkdirs(file.getParent());
			file.create(in, true, null);
		}
	}

	private static void mkdirs(org.eclipse.core.resources.IContainer container) throws CoreException {
		if (container instanceof IFolder folder && !folder.exists()) {
			mkdirs(folder.getParent());
			folder.create(true, true, null);
		}
	}

	private static void settle() throws Exception {
		index.join(new NullProgressMonitor());
	}

	@Test
	void answersQueriesOnHandWrittenSourcesAndWritesNothingIntoTheProject() throws Exception {
		IProject p = project("shapes");
		String description = Files.readString(p.getFile(".project").getLocation().toPath());
		write(p, "src/p/Shape.java", "package p;\npublic sealed interface Shape permits Circle, Square {\n double area();\n}\n");
		write(p, "src/p/Circle.java", """
				package p;
				import java.util.List;
				public record Circle(double r) implements Shape {
					public double area() { return Math.PI * r * r; }
					static List<Circle> of(double... radii) { return null; }
				}
				""");
		write(p, "src/p/Square.java", """
				package p;
				final class Square implements Shape, Comparable<Square> {
					private final double side, other[];
					Square(double side) { this.side = side; this.other = null; }
					public double area() { return side * side; }
					@Override public int compareTo(Square o) { return Double.compare(side, o.side); }
					enum Unit { MM, CM }
					@interface Tag { String value() default ""; }
				}
				""");
		write(p, "src/p/Use.java", "package p;\nclass Use { Shape s = new Circle(1); int broken( { }\n");
		IFolder generated = p.getFolder("gen");
		generated.create(true, true, null);
		generated.setDerived(true, null);
		write(p, "gen/p/Ghost.java", "package p;\nclass Ghost { Circle c; }\n");
		write(p, "README.txt", "not Java");
		settle();

		IPath circle = p.getFullPath().append("src/p/Circle.java");
		assertThat(index.declarations("Circle"))
				.containsExactly(new Declaration(circle, "Circle", "p", Kind.RECORD, Modifier.PUBLIC, "Shape"));
		assertThat(index.declarations("r")).containsExactly(
				new Declaration(circle, "r", "p.Circle", Kind.RECORD_COMPONENT, 0, "r : double"));
		assertThat(index.declarations("of")).containsExactly(
				new Declaration(circle, "of", "p.Circle", Kind.METHOD, Modifier.STATIC, "of(double...) : List<Circle>"));
		assertThat(index.declarations("area")).extracting(Declaration::qualifiedName, Declaration::signature)
				.containsExactly(org.assertj.core.groups.Tuple.tuple("p.Circle.area", "area() : double"),
						org.assertj.core.groups.Tuple.tuple("p.Shape.area", "area() : double"),
						org.assertj.core.groups.Tuple.tuple("p.Square.area", "area() : double"));
		assertThat(index.declarations("Square")).extracting(Declaration::kind, Declaration::container,
				Declaration::modifiers, Declaration::signature).containsExactly(
						org.assertj.core.groups.Tuple.tuple(Kind.CLASS, "p", Modifier.FINAL,
								"Shape, Comparable<Square>"),
						org.assertj.core.groups.Tuple.tuple(Kind.CONSTRUCTOR, "p.Square", 0, "Square(double)"));
		assertThat(index.declarations("other")).singleElement().extracting(Declaration::signature)
				.isEqualTo("other : double[]");
		assertThat(index.declarations("MM")).singleElement()
				.satisfies(d -> assertThat(d.kind()).isEqualTo(Kind.ENUM_CONSTANT))
				.satisfies(d -> assertThat(d.container()).isEqualTo("p.Square.Unit"));
		assertThat(index.declarations("Unit")).singleElement().extracting(Declaration::kind).isEqualTo(Kind.ENUM);
		assertThat(index.declarations("Tag")).singleElement().extracting(Declaration::kind)
				.isEqualTo(Kind.ANNOTATION);
		assertThat(index.declarations("value")).singleElement().extracting(Declaration::kind, Declaration::signature)
				.containsExactly(Kind.ANNOTATION_ELEMENT, "value() : String");
		assertThat(index.declarations("Shape")).singleElement().extracting(Declaration::kind)
				.isEqualTo(Kind.INTERFACE);
		// uses, not declarations: a return type, the permits clause and the field of Use (which has a syntax error)
		assertThat(index.filesReferencing("Circle")).containsExactly(circle, p.getFullPath().append("src/p/Shape.java"),
				p.getFullPath().append("src/p/Use.java"));
		assertThat(index.filesReferencing(p, "side")).containsExactly(p.getFullPath().append("src/p/Square.java"));
		// derived folders are not indexed
		assertThat(index.declarations("Ghost")).isEmpty();
		assertThat(index.files(p)).extracting(IPath::toString).containsExactly("src/p/Circle.java",
				"src/p/Shape.java", "src/p/Square.java", "src/p/Use.java");

		// nothing written into the project: same members, same description, no builder
		assertThat(Files.readString(p.getFile(".project").getLocation().toPath())).isEqualTo(description);
		assertThat(p.getDescription().getBuildSpec()).isEmpty();
		try (var files = Files.walk(p.getLocation().toPath())) {
			// (.settings/org.eclipse.core.resources.prefs is where core.resources keeps the derived flag the test set)
			Set<String> names = files.filter(Files::isRegularFile)
					.map(f -> p.getLocation().toPath().relativize(f).toString())
					.filter(n -> !n.equals(".settings/org.eclipse.core.resources.prefs"))
					.collect(Collectors.toCollection(TreeSet::new));
			assertThat(names).containsExactly(".project", "README.txt",
							"gen/p/Ghost.java", "src/p/Circle.java", "src/p/Shape.java", "src/p/Square.java",
							"src/p/Use.java");
		}

		// a removed file leaves the index; a touched file with the same content is not parsed again
		List<IndexUpdate> updates = record();
		try {
			p.getFile("src/p/Use.java").delete(true, null);
			write(p, "src/p/Shape.java",
					"package p;\npublic sealed interface Shape permits Circle, Square {\n double area();\n}\n");
			settle();
		} finally {
			stopRecording();
		}
		assertThat(index.filesReferencing("Circle")).containsExactly(circle, p.getFullPath().append("src/p/Shape.java"));
		assertThat(parsed(updates, p)).isEmpty();
		assertThat(updates.stream().filter(u -> u.project().equals(p)).flatMap(u -> u.removed().stream())
				.map(IPath::toString)).containsExactly("src/p/Use.java");
		p.delete(true, true, null);
		settle();
		assertThat(index.declarations("Circle")).isEmpty();
	}

	@Test
	void indexesRealSourcesIncrementallyAndAnswersLikeAnIndexBuiltFromScratch(@TempDir Path temp) throws Exception {
		Map<String, byte[]> oldSources = Sources.jar("old");
		Map<String, byte[]> newSources = Sources.jar("new");
		IProject p = project("lang");
		Path src = p.getLocation().toPath().resolve("src");
		Sources.sync(src, oldSources);
		p.refreshLocal(IResource.DEPTH_INFINITE, null);
		settle();
		assertThat(index.files(p)).hasSize(oldSources.size());
		IPath stringUtils = p.getFullPath().append("src/org/apache/commons/lang3/StringUtils.java");
		assertThat(index.declarations(p, "StringUtils"))
				.contains(new Declaration(stringUtils, "StringUtils", "org.apache.commons.lang3", Kind.CLASS,
						Modifier.PUBLIC, ""));
		assertThat(index.declarations(p, "isBlank")).extracting(Declaration::container, Declaration::signature)
				.contains(org.assertj.core.groups.Tuple.tuple("org.apache.commons.lang3.StringUtils",
						"isBlank(CharSequence) : boolean"));
		List<IPath> users = index.filesReferencing(p, "StringUtils");
		assertThat(users).contains(p.getFullPath().append("src/org/apache/commons/lang3/text/WordUtils.java"))
				.hasSizeGreaterThan(20);
		for (IPath user : users) {
			assertThat(Files.readString(WORKSPACE.getRoot().getFile(user).getLocation().toPath()))
					.contains("StringUtils");
		}

		// old -> new: exactly the files whose content changed are parsed
		List<IndexUpdate> updates = record();
		Set<String> changed;
		try {
			changed = Sources.sync(src, newSources);
			p.refreshLocal(IResource.DEPTH_INFINITE, null);
			settle();
		} finally {
			stopRecording();
		}
		// (3.18.0 changed the license URL in every file: all are parsed again, the 5 new ones included)
		assertThat(changed).hasSizeGreaterThan(200);
		assertThat(parsed(updates, p)).isEqualTo(prefixed("src/", changed));
		assertThat(index.declarations(p, "Strings")).extracting(Declaration::kind).contains(Kind.CLASS);

		// an index built from scratch answers alike, in either store layout (restores: StateServiceRestoreTest)
		assertThat(((JavaIndexService) index).dump(p)).isEqualTo(freshDump(p, temp.resolve("fresh1"), 0))
				.isEqualTo(freshDump(p, temp.resolve("fresh2"), 7));
		p.delete(true, true, null);
		settle();
	}

	@Test
	void aServiceAskedForADumpAtExitWritesWhatItKnowsOnceItsWorkIsDone(@TempDir Path temp) throws Exception {
		IProject p = project("dumped");
		write(p, "src/a/A.java", "package a; public class A { int f; void m(B b) {} }");
		write(p, "src/a/B.java", "package a; class B extends A {}");
		settle();
		Path dumps = temp.resolve("dumps");
		System.setProperty(JavaIndexService.DUMP_AT_EXIT, dumps.toString());
		try {
			// closed at once: its first pass over the workspace is still to do, and close() waits for it
			new JavaIndexService(WORKSPACE, temp.resolve("at-exit"), 0).close();
		} finally {
			System.clearProperty(JavaIndexService.DUMP_AT_EXIT);
		}
		String dump = Files.readString(dumps.resolve("dumped.dump"));
		assertThat(dump).contains("src/a/A.java ", "src/a/B.java ").isEqualTo(freshDump(p, temp.resolve("fresh"), 0))
				.isEqualTo(((JavaIndexService) index).dump(p));
		p.delete(true, true, null);
		settle();
	}

	/**
	 * The dump on a command (the headless application's {@code dump <folder>} in a long-lived session): the running
	 * index's service offers it, and it writes what the dump at exit writes, once the index's work is done, without
	 * closing the index.
	 */
	@Test
	void theDumpOnACommandWritesWhatTheDumpAtExitWritesAndTheIndexGoesOn(@TempDir Path temp) throws Exception {
		var context = FrameworkUtil.getBundle(JavaIndexTest.class).getBundleContext();
		assertThat(context.getServiceReferences(Consumer.class, "(dev.branchstate.dump=java-index)")).hasSize(1);
		IProject p = project("dumpedOnCommand");
		write(p, "src/a/A.java", "package a; public class A { int f; void m(B b) {} }");
		write(p, "src/a/B.java", "package a; class B extends A {}");
		settle();
		JavaIndexService service = new JavaIndexService(WORKSPACE, temp.resolve("on-command"), 0);
		try {
			// asked at once: its first pass over the workspace is still to do, and the dump waits for it
			new IndexDumpOnCommand(service).accept(temp.resolve("dumps"));
			String dump = Files.readString(temp.resolve("dumps/dumpedOnCommand.dump"));
			assertThat(dump).contains("src/a/A.java ", "src/a/B.java ").isEqualTo(freshDump(p, temp.resolve("fresh"), 0));
			write(p, "src/a/C.java", "package a; class C {}");
			settle();
			new IndexDumpOnCommand(service).accept(temp.resolve("dumps"));
			assertThat(Files.readString(temp.resolve("dumps/dumpedOnCommand.dump"))).contains("src/a/C.java ")
					.isEqualTo(((JavaIndexService) index).dump(p));
			try (var files = Files.list(temp.resolve("dumps"))) {
				assertThat(files.map(f -> f.getFileName().toString())).contains("dumpedOnCommand.dump")
						.noneMatch(n -> n.endsWith(".tmp"));
			}
		} finally {
			service.close();
		}
		p.delete(true, true, null);
		settle();
	}

	@Test
	void contributorIsRegisteredThroughTheExtensionPoint() throws Exception {
		IStateContributor contributor = contributor();
		assertThat(contributor.version()).isEqualTo(2);
		assertThat(contributor.canRead(2)).isTrue();
		assertThat(contributor.canRead(1)).as("version 1 states did not record the queued work").isFalse();
		IProject empty = project("empty");
		settle();
		assertThat(index.files(empty)).isEmpty();
		empty.delete(true, true, null);
	}

	/** @return the contributor as the state service creates it: from the extension registry */
	private static IStateContributor contributor() throws CoreException {
		for (IConfigurationElement element : Platform.getExtensionRegistry()
				.getConfigurationElementsFor("dev.branchstate.core.contributors")) {
			if ("dev.branchstate.javaindex".equals(element.getAttribute("id"))) {
				return (IStateContributor) element.createExecutableExtension("class");
			}
		}
		throw new AssertionError("contributor dev.branchstate.javaindex not registered");
	}

	/**
	 * @return the dump of an index built from scratch over the same workspace by a second service, after that
	 *         service was closed and started again on its store (so the dump comes from the store, not the parser)
	 */
	private static String freshDump(IProject project, Path root, int shards) throws Exception {
		String built;
		JavaIndexService fresh = new JavaIndexService(WORKSPACE, root, shards);
		try {
			fresh.join(new NullProgressMonitor());
			built = fresh.dump(project);
		} finally {
			fresh.close();
		}
		List<IndexUpdate> passes = new ArrayList<>();
		JavaIndexService reopened = new JavaIndexService(WORKSPACE, root, shards);
		try {
			reopened.addListener(passes::add);
			reopened.join(new NullProgressMonitor());
			assertThat(passes).as("nothing parsed when started on a store that is up to date")
					.allSatisfy(u -> assertThat(u.parsed()).isEmpty());
			assertThat(reopened.dump(project)).isEqualTo(built);
			return built;
		} finally {
			reopened.close();
		}
	}

	private static Consumer<IndexUpdate> recorder;

	private static List<IndexUpdate> record() {
		List<IndexUpdate> list = java.util.Collections.synchronizedList(new ArrayList<>());
		recorder = list::add;
		index.addListener(recorder);
		return list;
	}

	private static void stopRecording() {
		index.removeListener(recorder);
	}

	private static Set<String> parsed(List<IndexUpdate> updates, IProject project) {
		synchronized (updates) {
			return updates.stream().filter(u -> u.project().equals(project)).flatMap(u -> u.parsed().stream())
					.map(IPath::toString).collect(Collectors.toCollection(TreeSet::new));
		}
	}

	private static Set<String> prefixed(String prefix, Set<String> paths) {
		return paths.stream().map(s -> prefix + s).collect(Collectors.toCollection(TreeSet::new));
	}
}

package dev.branchstate.core.tests.switching;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.core.resources.IFile;
import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.FileTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.RestoreResult;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateEvent.Kind;
import dev.branchstate.core.StateInfo;

/**
 * A state service kept in memory, used by the switching tests only while no real {@link IStateService} is
 * registered (the state engine is developed in parallel): derived data = the files under each project's bin/,
 * markers = problem markers of the test type. Restores differentially, refreshes, and touches the sources that
 * differ between the state's commit and the working tree, as the service contract says.
 */
final class FakeStateService implements IStateService {

	private record Marker(String path, String type, Map<String, Object> attributes) {
	}

	private record Stored(StateInfo info, Map<String, Map<String, byte[]>> files, Map<String, List<Marker>> markers) {
	}

	private final IWorkspace workspace;
	private final Map<String, Stored> stored = new LinkedHashMap<>();
	private final List<IStateListener> listeners = new CopyOnWriteArrayList<>();

	FakeStateService(IWorkspace workspace) {
		this.workspace = workspace;
	}

	private static String key(File gitDir) {
		return gitDir.getAbsoluteFile().toPath().normalize().toString();
	}

	@Override
	public Optional<File> repositoryOf(IProject project) {
		if (project.getLocation() == null) {
			return Optional.empty();
		}
		File gitDir = new FileRepositoryBuilder().findGitDir(project.getLocation().toFile()).getGitDir();
		return Optional.ofNullable(gitDir);
	}

	private List<IProject> projects(File gitDir) {
		List<IProject> projects = new ArrayList<>();
		for (IProject project : workspace.getRoot().getProjects()) {
			if (project.isOpen() && repositoryOf(project).map(FakeStateService::key).filter(key(gitDir)::equals)
					.isPresent()) {
				projects.add(project);
			}
		}
		return projects;
	}

	@Override
	public StateInfo save(File gitDir, IProgressMonitor monitor) throws CoreException {
		try (Repository repository = open(gitDir)) {
			String branch = repository.getFullBranch().startsWith("refs/heads/") ? repository.getBranch() : null;
			return save(gitDir, repository.resolve("HEAD").name(), branch, monitor);
		} catch (IOException e) {
			throw new CoreException(Status.error(e.getMessage(), e));
		}
	}

	@Override
	public synchronized StateInfo save(File gitDir, String commitId, String branch, IProgressMonitor monitor)
			throws CoreException {
		long start = System.nanoTime();
		Map<String, Map<String, byte[]>> files = new HashMap<>();
		Map<String, List<Marker>> markers = new HashMap<>();
		long count = 0;
		for (IProject project : projects(gitDir)) {
			Map<String, byte[]> projectFiles = new HashMap<>();
			Path bin = project.getLocation().toPath().resolve("bin");
			try {
				if (Files.isDirectory(bin)) {
					try (var walk = Files.walk(bin)) {
						for (Path file : walk.filter(Files::isRegularFile).toList()) {
							projectFiles.put(bin.relativize(file).toString(), Files.readAllBytes(file));
						}
					}
				}
			} catch (IOException e) {
				throw new CoreException(Status.error(e.getMessage(), e));
			}
			count += projectFiles.size();
			files.put(project.getName(), projectFiles);
			List<Marker> projectMarkers = new ArrayList<>();
			for (IMarker marker : project.findMarkers(RecordingBuilder.MARKER, true, IResource.DEPTH_INFINITE)) {
				projectMarkers.add(new Marker(marker.getResource().getProjectRelativePath().toString(),
						marker.getType(), marker.getAttributes()));
			}
			markers.put(project.getName(), projectMarkers);
		}
		StateInfo info = new StateInfo(gitDir, commitId, branch == null ? List.of() : List.of(branch), null,
				Instant.now(), Instant.now(), 0, 0, Map.of("fake", Integer.valueOf(1)), List.of());
		stored.remove(key(gitDir) + commitId);
		stored.put(key(gitDir) + commitId, new Stored(info, files, markers));
		fireEvent(new StateEvent(Kind.SAVED, gitDir, commitId, branch, "saved", Status.OK_STATUS, count, 0, 0,
				Duration.ofNanos(System.nanoTime() - start)));
		return info;
	}

	@Override
	public synchronized RestoreResult restore(File gitDir, String commitId, IProgressMonitor monitor)
			throws CoreException {
		long start = System.nanoTime();
		Stored state = stored.get(key(gitDir) + commitId);
		if (state == null) {
			throw new CoreException(Status.error("no state for " + commitId));
		}
		long[] counts = new long[4];
		workspace.run(m -> {
			List<IProject> projects = projects(gitDir);
			for (IProject project : projects) {
				Map<String, byte[]> files = state.files().getOrDefault(project.getName(), Map.of());
				Path bin = project.getLocation().toPath().resolve("bin");
				try {
					Set<String> present = new TreeSet<>();
					if (Files.isDirectory(bin)) {
						try (var walk = Files.walk(bin)) {
							for (Path file : walk.filter(Files::isRegularFile).toList()) {
								present.add(bin.relativize(file).toString());
							}
						}
					}
					for (String stale : present) {
						if (!files.containsKey(stale)) {
							Files.delete(bin.resolve(stale));
							counts[2]++;
						}
					}
					for (Map.Entry<String, byte[]> file : files.entrySet()) {
						Path target = bin.resolve(file.getKey());
						counts[0]++;
						if (!Files.exists(target) || !java.util.Arrays.equals(Files.readAllBytes(target), file.getValue())) {
							Files.createDirectories(target.getParent());
							Files.write(target, file.getValue());
							counts[1]++;
						}
					}
				} catch (IOException e) {
					throw new CoreException(Status.error(e.getMessage(), e));
				}
				project.getFolder("bin").refreshLocal(IResource.DEPTH_INFINITE, null);
				if (project.getFolder("bin").exists()) {
					project.getFolder("bin").setDerived(true, null);
				}
				project.deleteMarkers(RecordingBuilder.MARKER, true, IResource.DEPTH_INFINITE);
				for (Marker marker : state.markers().getOrDefault(project.getName(), List.of())) {
					IResource resource = project.findMember(marker.path());
					if (resource != null) {
						resource.createMarker(marker.type(), marker.attributes());
					}
				}
			}
			for (IFile file : changedFiles(gitDir, commitId, projects)) {
				file.refreshLocal(IResource.DEPTH_ZERO, null);
				if (file.exists()) {
					file.touch(null);
				}
				counts[3]++;
			}
		}, workspace.getRoot(), IWorkspace.AVOID_UPDATE, monitor);
		RestoreResult result = new RestoreResult(state.info(), counts[0], counts[1], counts[2], counts[3],
				Duration.ofNanos(System.nanoTime() - start));
		fireEvent(new StateEvent(Kind.RESTORED, gitDir, commitId, state.info().branches().stream().findFirst()
				.orElse(null), "restored", Status.OK_STATUS, counts[0], 0, counts[3], result.duration()));
		return result;
	}

	/** @return the files of the projects whose content differs between the commit and the working tree */
	private static List<IFile> changedFiles(File gitDir, String commitId, List<IProject> projects)
			throws CoreException {
		List<IFile> files = new ArrayList<>();
		try (Repository repository = open(gitDir); RevWalk walk = new RevWalk(repository);
				TreeWalk tree = new TreeWalk(repository)) {
			tree.addTree(walk.parseCommit(ObjectId.fromString(commitId)).getTree());
			tree.addTree(new FileTreeIterator(repository));
			tree.setRecursive(true);
			Path workTree = repository.getWorkTree().toPath();
			while (tree.next()) {
				FileTreeIterator working = tree.getTree(1, FileTreeIterator.class);
				if (working != null && working.isEntryIgnored()) {
					continue;
				}
				boolean changed = tree.getRawMode(0) == 0 || working == null
						|| !tree.getObjectId(0).equals(working.getEntryObjectId());
				if (!changed) {
					continue;
				}
				Path path = workTree.resolve(tree.getPathString());
				for (IProject project : projects) {
					Path location = project.getLocation().toPath();
					if (path.startsWith(location)) {
						files.add(project.getFile(IPath.fromPath(location.relativize(path))));
					}
				}
			}
		} catch (IOException e) {
			throw new CoreException(Status.error(e.getMessage(), e));
		}
		return files;
	}

	private static Repository open(File gitDir) throws IOException {
		return new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build();
	}

	@Override
	public synchronized List<StateInfo> states(File gitDir) {
		List<StateInfo> states = new ArrayList<>();
		stored.values().forEach(s -> {
			if (key(s.info().gitDir()).equals(key(gitDir))) {
				states.add(0, s.info());
			}
		});
		return states;
	}

	@Override
	public synchronized List<StateInfo> allStates() {
		List<StateInfo> states = new ArrayList<>();
		stored.values().forEach(s -> states.add(0, s.info()));
		return states;
	}

	@Override
	public synchronized void delete(StateInfo state) {
		stored.remove(key(state.gitDir()) + state.commitId());
	}

	@Override
	public void addStateListener(IStateListener listener) {
		listeners.add(listener);
	}

	@Override
	public void removeStateListener(IStateListener listener) {
		listeners.remove(listener);
	}

	@Override
	public void fireEvent(StateEvent event) {
		listeners.forEach(l -> l.stateChanged(event));
	}

}

package dev.branchstate.core.internal.switching;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IMarkerDelta;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.resources.IResourceDelta;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IPath;

import dev.branchstate.core.internal.MarkerContent;
import dev.branchstate.core.internal.Trace;

/**
 * Tells which projects a build changed, from the deltas of its PRE_BUILD and POST_BUILD events, in the build's own
 * thread.
 * <p>
 * Both deltas describe the changes since the previous build ended. A resource the build changed is in the POST_BUILD
 * delta but not in the PRE_BUILD one, or its modification stamp differs from the one it had at PRE_BUILD (a class
 * file a restore wrote and the builder wrote again), or its markers say something else than at PRE_BUILD, or it is in
 * the PRE_BUILD delta only (a file a restore added and the builder deleted). Markers count by what they say (type and
 * attributes), not by id: a builder that removes its markers and adds the same ones again at every build (PDE's
 * manifest checker) changed nothing a state holds, and one that changes a marker in place (same id; "added, then
 * changed" is "added" in the build's delta) did.
 * <p>
 * Why not the POST_CHANGE that ends the build's operation: builders run without the workspace lock, so an operation
 * of another thread that spans the end of a build (a job's workspace runnable, the platform's periodic notification)
 * tells the build's changes in its own POST_CHANGE, in its own thread, and the build's thread then gets none.
 */
final class BuildChanges {

	/**
	 * A changed resource as the PRE_BUILD event saw it: its modification stamp, whether its markers had changed too,
	 * and if so its markers by content ({@code null} when they had not changed or could not be read).
	 */
	private record Before(long stamp, boolean markersChanged, Map<MarkerContent, Integer> markers) {
	}

	/** Per building thread: builds of different threads (relaxed build rules) may overlap. */
	private final ThreadLocal<Map<IPath, Before>> before = new ThreadLocal<>();

	/** PRE_BUILD: remembers the resources changed since the last build ended. */
	void buildStarting(IResourceDelta delta) {
		Map<IPath, Before> changed = new HashMap<>();
		visit(delta, d -> {
			// read only where they changed: after a restore, this delta holds every file it wrote
			boolean markersChanged = (d.getFlags() & IResourceDelta.MARKERS) != 0;
			changed.put(d.getFullPath(), new Before(d.getResource().getModificationStamp(), markersChanged,
					markersChanged ? markers(d.getResource()) : null));
		});
		before.set(changed);
	}

	/**
	 * POST_BUILD: the projects in which the build changed a resource or a marker. A POST_BUILD with no PRE_BUILD
	 * before it (the platform sends none for an auto-build when nothing changed) counts every change as the build's.
	 */
	Set<IProject> buildEnded(IResourceDelta delta) {
		Map<IPath, Before> changedBefore = before.get();
		before.remove();
		Map<IPath, Before> known = changedBefore != null ? changedBefore : Map.of();
		Set<IProject> projects = new HashSet<>();
		Set<IPath> stillChanged = new HashSet<>();
		boolean tracing = Trace.on(Trace.BUILD);
		visit(delta, d -> {
			stillChanged.add(d.getFullPath());
			Before then = known.get(d.getFullPath());
			String why = whyChanged(then, d);
			if (why != null && projects.add(d.getResource().getProject()) && tracing) {
				trace(d.getFullPath(), why + markerTypes(d));
			}
		});
		for (IPath path : known.keySet()) {
			if (!stillChanged.contains(path) // the build undid a change: a file a restore added, then deleted
					&& projects.add(ResourcesPlugin.getWorkspace().getRoot().getProject(path.segment(0))) && tracing) {
				trace(path, "its change undone by the build"); //$NON-NLS-1$
			}
		}
		return projects;
	}

	/**
	 * @param then the resource as PRE_BUILD saw it, {@code null} when it had not changed since the previous build
	 * @return how the build changed the resource, {@code null} when it did not
	 */
	private static String whyChanged(Before then, IResourceDelta delta) {
		IResource resource = delta.getResource();
		if (then == null) {
			return markersOnly(delta) && markersSayTheSame(delta) ? null : "changed by the build"; //$NON-NLS-1$
		}
		if (then.stamp() != resource.getModificationStamp()) {
			return "written again by the build"; //$NON-NLS-1$
		}
		if (then.markersChanged()) { // the delta's marker changes mix the build's with those before it
			return then.markers() != null && then.markers().equals(markers(resource)) ? null
					: "its markers changed by the build"; //$NON-NLS-1$
		}
		return (delta.getFlags() & IResourceDelta.MARKERS) == 0 || markersSayTheSame(delta) ? null
				: "its markers changed by the build"; //$NON-NLS-1$
	}

	/** @return whether the delta is of the resource's markers only */
	private static boolean markersOnly(IResourceDelta delta) {
		return delta.getKind() == IResourceDelta.CHANGED && delta.getFlags() == IResourceDelta.MARKERS;
	}

	/**
	 * @param delta the build's own changes of a resource's markers (its markers had not changed since the previous
	 *              build when the build started)
	 * @return whether the markers the build removed or changed said what those it added or changed say now
	 */
	private static boolean markersSayTheSame(IResourceDelta delta) {
		Map<MarkerContent, Integer> net = new HashMap<>();
		try {
			for (IMarkerDelta change : delta.getMarkerDeltas()) {
				if (change.getKind() != IResourceDelta.ADDED) { // the old marker's
					net.merge(new MarkerContent(change.getType(), change.getAttributes()), -1, Integer::sum);
				}
				if (change.getKind() != IResourceDelta.REMOVED) {
					IMarker marker = change.getMarker();
					if (!marker.exists()) {
						return false;
					}
					net.merge(MarkerContent.of(marker), 1, Integer::sum);
				}
			}
		} catch (CoreException e) {
			return false; // (a marker deleted meanwhile) counted as changed
		}
		return net.values().stream().allMatch(count -> count.intValue() == 0);
	}

	/** @return the resource's markers (its own, not its members') by content and count, {@code null} if unreadable */
	private static Map<MarkerContent, Integer> markers(IResource resource) {
		if (!resource.exists()) {
			return Map.of();
		}
		try {
			IMarker[] markers = resource.findMarkers(null, false, IResource.DEPTH_ZERO);
			if (markers.length == 0) {
				return Map.of();
			}
			Map<MarkerContent, Integer> contents = new HashMap<>();
			for (IMarker marker : markers) {
				contents.merge(MarkerContent.of(marker), 1, Integer::sum);
			}
			return contents;
		} catch (CoreException e) {
			return null; // (a marker deleted meanwhile) counted as changed
		}
	}

	private static void trace(IPath path, String why) {
		Trace.trace(Trace.BUILD, "build changed " + path.segment(0) + ", first " + path + ": " + why); //$NON-NLS-1$ //$NON-NLS-2$
	}

	/** @return the types of the markers the delta added, removed or changed, for the trace */
	private static String markerTypes(IResourceDelta delta) {
		if ((delta.getFlags() & IResourceDelta.MARKERS) == 0) {
			return ""; //$NON-NLS-1$
		}
		StringBuilder types = new StringBuilder(" (markers:"); //$NON-NLS-1$
		for (IMarkerDelta marker : delta.getMarkerDeltas()) {
			types.append(' ').append(switch (marker.getKind()) {
			case IResourceDelta.ADDED -> '+';
			case IResourceDelta.REMOVED -> '-';
			default -> '~';
			}).append(marker.getType());
		}
		return types.append(')').toString();
	}

	/** Visits the resources of the delta that changed themselves (content, existence, markers…), not only below. */
	private static void visit(IResourceDelta delta, Consumer<IResourceDelta> changed) {
		if (delta == null) {
			return;
		}
		if (delta.getResource().getType() != IResource.ROOT
				&& (delta.getKind() != IResourceDelta.CHANGED || delta.getFlags() != 0)) {
			changed.accept(delta);
		}
		for (IResourceDelta child : delta.getAffectedChildren()) {
			visit(child, changed);
		}
	}
}

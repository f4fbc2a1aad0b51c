package dev.branchstate.core.internal.contributors;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.resources.IResource;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IConfigurationElement;
import org.eclipse.core.runtime.IExtension;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;
import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.internal.MarkerContent;
import dev.branchstate.core.internal.Messages;

/**
 * Built-in contributor of problem markers: every persistent marker of type {@link IMarker#PROBLEM} (or a subtype)
 * in the project, with all its attributes, in the entry {@code markers}. On restore the project's persistent
 * problem markers are made those of the state: a marker that already says what one of the state's says stays in
 * place, the others are deleted, the missing ones created (markers on resources that no longer exist are dropped); if
 * that fails half-way, the markers the project had before are put back.
 */
public final class ProblemMarkersContributor implements IStateContributor {

	public static final String ID = "dev.branchstate.core.markers"; //$NON-NLS-1$
	static final String ENTRY = "markers"; //$NON-NLS-1$
	private static final int MAGIC = 0x42534d4b; // "BSMK"
	private static final Map<String, Boolean> PERSISTENT = new ConcurrentHashMap<>();
	/** The pseudo-attribute under which a saved marker keeps its creation time. */
	private static final String CREATION_TIME = IMarker.class.getName() + ".creationTime"; //$NON-NLS-1$

	/** One marker as a state holds it: what it says, on which resource (project-relative), and since when. */
	record MarkerData(String path, MarkerContent content, long creationTime) {

		/** @return what the marker says where, not since when */
		SaidOn saidOn() {
			return new SaidOn(path, content);
		}
	}

	/** What a marker says on a resource: markers alike in this are one to a state. */
	private record SaidOn(String path, MarkerContent content) {
	}

	/**
	 * 2: saved only from a complete build. A state of version 1 may hold the markers of a build that had not run or was
	 * interrupted (a branch left before it was built), so it is not restored.
	 */
	@Override
	public int version() {
		return 2;
	}

	@Override
	public boolean appliesTo(IProject project) {
		return project.isAccessible();
	}

	@Override
	public void save(ISaveContext context, IProgressMonitor monitor) throws CoreException {
		IProject project = context.project();
		SubMonitor.convert(monitor, NLS.bind(Messages.Contributors_markersSave, project.getName()), 1);
		try {
			context.addBytes(ENTRY, encode(collect(project)));
		} catch (IOException e) {
			throw new CoreException(Status.error(NLS.bind(Messages.Contributors_failed, ID, project.getName()), e));
		}
	}

	@Override
	public void restore(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		IProject project = context.project();
		SubMonitor sub = SubMonitor.convert(monitor,
				NLS.bind(Messages.Contributors_markersRestore, project.getName()), 3);
		@SuppressWarnings("unchecked")
		List<MarkerData> restored = context.prepared() instanceof List<?> decoded ? (List<MarkerData>) decoded
				: read(context);
		sub.worked(1);
		// one walk of the project's resources (findMarkers visits every one) and one read of each marker: for what is
		// there, for the markers that stay and for putting them back if the replacement fails
		Present current = Present.of(project);
		if (current.data().equals(restored)) {
			return; // the markers are those of the state already (creation times included): no marker delta
		}
		try {
			replace(project, current, restored);
		} catch (CoreException | RuntimeException e) {
			replace(project, Present.of(project), current.data());
			throw e;
		}
		sub.worked(2);
	}

	/** Decodes the state's markers of the project ahead, off the workspace operation's thread. */
	@Override
	public Object prepare(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		return read(context);
	}

	private static List<MarkerData> read(IRestoreContext context) throws CoreException {
		try (InputStream in = context.open(ENTRY)) {
			return decode(in);
		} catch (IOException e) {
			throw new CoreException(
					Status.error(NLS.bind(Messages.Contributors_markersCorrupt, context.project().getName()), e));
		}
	}

	/** @return the persistent problem markers of the project as data */
	static List<MarkerData> collect(IProject project) throws CoreException {
		return Present.of(project).data();
	}

	/**
	 * The persistent problem markers of a project and what each says ({@code data} in the same order), each marker
	 * read once: its type and attributes (a copy), its creation time. Every read of a marker looks it up in the
	 * resource tree, and a project with compile errors has tens of thousands of them.
	 */
	private record Present(List<IMarker> markers, List<MarkerData> data) {

		static Present of(IProject project) throws CoreException {
			IMarker[] found = project.findMarkers(IMarker.PROBLEM, true, IResource.DEPTH_INFINITE);
			List<IMarker> markers = new ArrayList<>(found.length);
			List<MarkerData> data = new ArrayList<>(found.length);
			IResource resource = null;
			String path = null;
			for (IMarker marker : found) {
				String type = marker.getType();
				if (!persistentType(type)) {
					continue;
				}
				MarkerContent content = new MarkerContent(type, marker.getAttributes());
				if (Boolean.TRUE.equals(content.attributes().get(IMarker.TRANSIENT))) {
					continue;
				}
				if (!marker.getResource().equals(resource)) { // (findMarkers gives a resource's markers together)
					resource = marker.getResource();
					path = resource.getProjectRelativePath().toPortableString();
				}
				markers.add(marker);
				data.add(new MarkerData(path, content, marker.getCreationTime()));
			}
			return new Present(markers, data);
		}
	}

	/**
	 * Makes {@code existing} (persistent markers, {@code existingData} what they say) say what {@code markers} say: a
	 * marker that says the same as one of them (resource, type, attributes) stays as it is, the others are deleted,
	 * and those of {@code markers} that are missing are created. A marker deleted and created again would be a change
	 * to every listener: JDT indexes again each source file whose JDT error marker was removed.
	 */
	private static void replace(IProject project, Present existing, List<MarkerData> markers) throws CoreException {
		Map<SaidOn, Deque<IMarker>> unmatched = new HashMap<>();
		for (int i = 0; i < existing.markers().size(); i++) {
			unmatched.computeIfAbsent(existing.data().get(i).saidOn(), k -> new ArrayDeque<>())
					.add(existing.markers().get(i));
		}
		List<MarkerData> missing = new ArrayList<>();
		for (MarkerData m : markers) {
			Deque<IMarker> same = unmatched.get(m.saidOn());
			if (same != null && !same.isEmpty()) {
				same.pop(); // says the same: left in place
			} else {
				missing.add(m);
			}
		}
		// one workspace operation for all that go, not one each
		project.getWorkspace().deleteMarkers(
				unmatched.values().stream().flatMap(Deque::stream).toArray(IMarker[]::new));
		for (MarkerData m : missing) {
			IResource resource = m.path().isEmpty() ? project : project.findMember(m.path());
			if (resource != null && resource.exists()) {
				resource.createMarker(m.content().type(), m.content().attributes());
			}
		}
	}

	/** A marker type is persistent when it or one of its super types declares {@code <persistent value="true"/>}. */
	static boolean persistentType(String type) {
		return PERSISTENT.computeIfAbsent(type, t -> Boolean.valueOf(persistentType(t, 0))).booleanValue();
	}

	private static boolean persistentType(String type, int depth) {
		if (depth > 16 || Platform.getExtensionRegistry() == null) {
			return false;
		}
		IExtension extension = Platform.getExtensionRegistry().getExtension("org.eclipse.core.resources.markers", //$NON-NLS-1$
				type);
		if (extension == null) {
			return false;
		}
		List<String> supers = new ArrayList<>();
		for (IConfigurationElement e : extension.getConfigurationElements()) {
			if ("persistent".equals(e.getName()) && Boolean.parseBoolean(e.getAttribute("value"))) { //$NON-NLS-1$ //$NON-NLS-2$
				return true;
			}
			if ("super".equals(e.getName()) && e.getAttribute("type") != null) { //$NON-NLS-1$ //$NON-NLS-2$
				supers.add(e.getAttribute("type")); //$NON-NLS-1$
			}
		}
		for (String s : supers) {
			if (persistentType(s, depth + 1)) {
				return true;
			}
		}
		return false;
	}

	static byte[] encode(List<MarkerData> markers) throws IOException {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(bytes)) {
			out.writeInt(MAGIC);
			out.writeInt(markers.size());
			for (MarkerData m : markers) {
				string(out, m.path());
				string(out, m.content().type());
				Map<String, Object> attributes = new LinkedHashMap<>(m.content().attributes());
				attributes.put(CREATION_TIME, Long.valueOf(m.creationTime())); // a pseudo-attribute, written last
				out.writeInt(attributes.size());
				for (Map.Entry<String, Object> a : attributes.entrySet()) {
					string(out, a.getKey());
					Object v = a.getValue();
					if (v instanceof Integer i) {
						out.writeByte('I');
						out.writeInt(i.intValue());
					} else if (v instanceof Boolean b) {
						out.writeByte('B');
						out.writeBoolean(b.booleanValue());
					} else if (v instanceof Long l) {
						out.writeByte('L');
						out.writeLong(l.longValue());
					} else {
						out.writeByte('S');
						string(out, String.valueOf(v));
					}
				}
			}
		}
		return bytes.toByteArray();
	}

	static List<MarkerData> decode(InputStream stream) throws IOException {
		// buffered: each small read of an archive entry's stream is a call into zstd, tens per marker
		DataInputStream in = new DataInputStream(new BufferedInputStream(stream, 1 << 16));
		if (in.readInt() != MAGIC) {
			throw new IOException("not a marker list"); //$NON-NLS-1$
		}
		int count = in.readInt();
		if (count < 0) {
			throw new IOException("invalid marker count " + count); //$NON-NLS-1$
		}
		List<MarkerData> result = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String path = string(in);
			String type = string(in);
			int attributes = in.readInt();
			if (attributes < 0) {
				throw new IOException("invalid attribute count " + attributes); //$NON-NLS-1$
			}
			Map<String, Object> map = new LinkedHashMap<>();
			for (int a = 0; a < attributes; a++) {
				String key = string(in);
				int tag = in.readByte();
				map.put(key, switch (tag) {
				case 'I' -> Integer.valueOf(in.readInt());
				case 'B' -> Boolean.valueOf(in.readBoolean());
				case 'L' -> Long.valueOf(in.readLong());
				case 'S' -> string(in);
				default -> throw new IOException("invalid attribute tag " + tag); //$NON-NLS-1$
				});
			}
			Object created = map.remove(CREATION_TIME);
			result.add(new MarkerData(path, new MarkerContent(type, map),
					created instanceof Long time ? time.longValue() : 0L));
		}
		return result;
	}

	private static void string(DataOutputStream out, String s) throws IOException {
		byte[] b = s.getBytes(StandardCharsets.UTF_8);
		out.writeInt(b.length);
		out.write(b);
	}

	private static String string(DataInputStream in) throws IOException {
		int length = in.readInt();
		if (length < 0 || length > (64 << 20)) {
			throw new IOException("invalid string length " + length); //$NON-NLS-1$
		}
		return new String(in.readNBytes(length), StandardCharsets.UTF_8);
	}
}

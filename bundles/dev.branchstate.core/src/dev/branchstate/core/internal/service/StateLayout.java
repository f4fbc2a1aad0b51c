package dev.branchstate.core.internal.service;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Names inside a state archive: {@code branchstate/parts} lists the (contributor, version, project) parts that were
 * saved completely, one per line, tab-separated; {@code branchstate/state.properties} describes the state;
 * {@code branchstate/dirty} lists the files dirty at save with the Git blob id of their content; the data
 * of a part lives under {@code data/<contributor id>/<project name>/}.
 */
final class StateLayout {

	static final String META = "branchstate/"; //$NON-NLS-1$
	static final String PARTS = META + "parts"; //$NON-NLS-1$
	static final String PROPERTIES = META + "state.properties"; //$NON-NLS-1$
	static final String DIRTY = META + "dirty"; //$NON-NLS-1$
	static final String DATA = "data/"; //$NON-NLS-1$

	/** A part of a state: the data of one contributor for one project. */
	record Part(String contributorId, int version, String project) {

		String prefix() {
			return DATA + contributorId + '/' + project + '/';
		}
	}

	private StateLayout() {
	}

	static byte[] encode(List<Part> parts) {
		StringBuilder b = new StringBuilder();
		for (Part p : parts) {
			b.append(p.contributorId()).append('\t').append(p.version()).append('\t').append(p.project()).append('\n');
		}
		return b.toString().getBytes(StandardCharsets.UTF_8);
	}

	static List<Part> decode(byte[] bytes) throws IOException {
		List<Part> parts = new ArrayList<>();
		for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) { //$NON-NLS-1$
			if (line.isEmpty()) {
				continue;
			}
			String[] f = line.split("\t", -1); //$NON-NLS-1$
			if (f.length != 3 || f[0].isEmpty() || f[2].isEmpty() || f[0].contains("/") || f[2].contains("/")) { //$NON-NLS-1$ //$NON-NLS-2$
				throw new IOException("invalid part line in state: " + line); //$NON-NLS-1$
			}
			try {
				parts.add(new Part(f[0], Integer.parseInt(f[1]), f[2]));
			} catch (NumberFormatException e) {
				throw new IOException("invalid part line in state: " + line, e); //$NON-NLS-1$
			}
		}
		return parts;
	}
}

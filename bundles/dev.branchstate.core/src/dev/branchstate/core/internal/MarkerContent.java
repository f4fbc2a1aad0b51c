package dev.branchstate.core.internal;

import java.util.Map;

import org.eclipse.core.resources.IMarker;
import org.eclipse.core.runtime.CoreException;

/**
 * What a marker says: its type and attributes. Not its id nor its creation time, which a restore does not bring back:
 * two markers of a resource that say the same are one to a state. The restore of a project's markers leaves in place
 * a marker that says what one of the state's says, and a build that removes its markers and adds the same ones again
 * (PDE's manifest checker) changed nothing a state holds.
 *
 * @param type       the marker's type
 * @param attributes its attributes (none for {@code null})
 */
public record MarkerContent(String type, Map<String, Object> attributes) {

	public MarkerContent {
		attributes = attributes == null ? Map.of() : attributes;
	}

	/** @return what the marker says now; its attributes are the copy the marker hands out */
	public static MarkerContent of(IMarker marker) throws CoreException {
		return new MarkerContent(marker.getType(), marker.getAttributes());
	}
}

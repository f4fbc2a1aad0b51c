package dev.branchstate.javaindex;

import org.eclipse.core.runtime.IPath;

/**
 * One declaration found in a compilation unit.
 *
 * @param file      the workspace-relative path of the compilation unit (e.g. {@code /project/src/a/B.java})
 * @param name      the simple name
 * @param container the qualified name of the declaring type, or of the package for a top-level type
 *                  ({@code ""} for the default package)
 * @param kind      what is declared
 * @param modifiers the modifier flags ({@link org.eclipse.jdt.core.dom.Modifier} constants)
 * @param signature for methods and constructors {@code name(ParamType, ...)} followed by {@code : ReturnType} for
 *                  methods; for fields, enum constants and record components {@code name : Type}; for types the
 *                  supertypes, {@code extends}/{@code implements} clauses as written
 */
public record Declaration(IPath file, String name, String container, Kind kind, int modifiers, String signature)
		implements Comparable<Declaration> {

	/** What a declaration declares. */
	public enum Kind {
		CLASS, INTERFACE, ENUM, RECORD, ANNOTATION, FIELD, METHOD, CONSTRUCTOR, ENUM_CONSTANT, RECORD_COMPONENT,
		ANNOTATION_ELEMENT;

		/** @return whether this kind declares a type */
		public boolean isType() {
			return ordinal() <= ANNOTATION.ordinal();
		}
	}

	/** @return the qualified name: container, a dot and the simple name */
	public String qualifiedName() {
		return container.isEmpty() ? name : container + '.' + name;
	}

	@Override
	public int compareTo(Declaration o) {
		int c = file.toString().compareTo(o.file.toString());
		if (c == 0) {
			c = container.compareTo(o.container);
		}
		if (c == 0) {
			c = name.compareTo(o.name);
		}
		if (c == 0) {
			c = kind.compareTo(o.kind);
		}
		if (c == 0) {
			c = signature.compareTo(o.signature);
		}
		return c;
	}
}

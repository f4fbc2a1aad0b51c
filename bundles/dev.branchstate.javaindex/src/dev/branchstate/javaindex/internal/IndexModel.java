package dev.branchstate.javaindex.internal;

import org.eclipse.emf.ecore.EAttribute;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EEnum;
import org.eclipse.emf.ecore.EEnumLiteral;
import org.eclipse.emf.ecore.EPackage;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.emf.ecore.EcoreFactory;
import org.eclipse.emf.ecore.EcorePackage;

import dev.branchstate.core.emf.DynamicModels;
import dev.branchstate.javaindex.Declaration;

/**
 * The EMF package of the index, built in code with {@link EcoreFactory} (no generated classes: instances are
 * dynamic EObjects). A resource holds {@code CompilationUnit}s; a compilation unit holds its package, imports,
 * referenced simple names and types; a type holds its members and nested types.
 */
public final class IndexModel {

	public static final String NS_URI = "http://branchstate.dev/javaindex/1"; //$NON-NLS-1$

	public static final EPackage PACKAGE;
	public static final EEnum KIND;

	public static final EClass UNIT;
	public static final EAttribute UNIT_PATH;
	public static final EAttribute UNIT_HASH;
	public static final EAttribute UNIT_PACKAGE;
	public static final EAttribute UNIT_IMPORTS;
	public static final EAttribute UNIT_REFERENCES;
	public static final EReference UNIT_TYPES;

	public static final EClass TYPE;
	public static final EAttribute TYPE_NAME;
	public static final EAttribute TYPE_KIND;
	public static final EAttribute TYPE_MODIFIERS;
	public static final EAttribute TYPE_SUPERTYPES;
	public static final EReference TYPE_MEMBERS;
	public static final EReference TYPE_TYPES;

	public static final EClass MEMBER;
	public static final EAttribute MEMBER_NAME;
	public static final EAttribute MEMBER_KIND;
	public static final EAttribute MEMBER_MODIFIERS;
	public static final EAttribute MEMBER_SIGNATURE;

	static {
		EcoreFactory f = EcoreFactory.eINSTANCE;
		EcorePackage e = EcorePackage.eINSTANCE;
		PACKAGE = f.createEPackage();
		PACKAGE.setName("javaindex"); //$NON-NLS-1$
		PACKAGE.setNsPrefix("javaindex"); //$NON-NLS-1$
		PACKAGE.setNsURI(NS_URI);

		KIND = f.createEEnum();
		KIND.setName("Kind"); //$NON-NLS-1$
		for (Declaration.Kind kind : Declaration.Kind.values()) {
			EEnumLiteral literal = f.createEEnumLiteral();
			literal.setName(kind.name());
			literal.setValue(kind.ordinal());
			KIND.getELiterals().add(literal);
		}
		PACKAGE.getEClassifiers().add(KIND);

		UNIT = DynamicModels.eClass(PACKAGE, "CompilationUnit"); //$NON-NLS-1$
		TYPE = DynamicModels.eClass(PACKAGE, "Type"); //$NON-NLS-1$
		MEMBER = DynamicModels.eClass(PACKAGE, "Member"); //$NON-NLS-1$

		UNIT_PATH = DynamicModels.attribute(UNIT, "path", e.getEString(), false); //$NON-NLS-1$
		UNIT_HASH = DynamicModels.attribute(UNIT, "hash", e.getEString(), false); //$NON-NLS-1$
		UNIT_PACKAGE = DynamicModels.attribute(UNIT, "package", e.getEString(), false); //$NON-NLS-1$
		UNIT_IMPORTS = DynamicModels.attribute(UNIT, "imports", e.getEString(), true); //$NON-NLS-1$
		UNIT_REFERENCES = DynamicModels.attribute(UNIT, "references", e.getEString(), true); //$NON-NLS-1$
		UNIT_TYPES = DynamicModels.containment(UNIT, "types", TYPE); //$NON-NLS-1$

		TYPE_NAME = DynamicModels.attribute(TYPE, "name", e.getEString(), false); //$NON-NLS-1$
		TYPE_KIND = DynamicModels.attribute(TYPE, "kind", KIND, false); //$NON-NLS-1$
		TYPE_MODIFIERS = DynamicModels.attribute(TYPE, "modifiers", e.getEInt(), false); //$NON-NLS-1$
		TYPE_SUPERTYPES = DynamicModels.attribute(TYPE, "supertypes", e.getEString(), true); //$NON-NLS-1$
		TYPE_MEMBERS = DynamicModels.containment(TYPE, "members", MEMBER); //$NON-NLS-1$
		TYPE_TYPES = DynamicModels.containment(TYPE, "types", TYPE); //$NON-NLS-1$

		MEMBER_NAME = DynamicModels.attribute(MEMBER, "name", e.getEString(), false); //$NON-NLS-1$
		MEMBER_KIND = DynamicModels.attribute(MEMBER, "kind", KIND, false); //$NON-NLS-1$
		MEMBER_MODIFIERS = DynamicModels.attribute(MEMBER, "modifiers", e.getEInt(), false); //$NON-NLS-1$
		MEMBER_SIGNATURE = DynamicModels.attribute(MEMBER, "signature", e.getEString(), false); //$NON-NLS-1$
	}

	private IndexModel() {
	}

	/** @return the literal of the model's enum for a kind */
	static EEnumLiteral literal(Declaration.Kind kind) {
		return KIND.getEEnumLiteral(kind.ordinal());
	}

	/** @return the kind of a literal of the model's enum */
	static Declaration.Kind kind(Object literal) {
		return Declaration.Kind.values()[((org.eclipse.emf.common.util.Enumerator) literal).getValue()];
	}
}

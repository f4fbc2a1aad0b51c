package dev.branchstate.core.internal.store;

import org.eclipse.emf.ecore.EAttribute;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EDataType;
import org.eclipse.emf.ecore.EPackage;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.emf.ecore.EcoreFactory;
import org.eclipse.emf.ecore.EcorePackage;

/**
 * The EMF model of the state catalog, built in code with {@link EcoreFactory} (no generated code):
 * <pre>
 * Catalog  { version: int; states: State[*] (containment) }
 * State    { gitDir, commitId, archive: String; branches, dirtyPaths, projects: String[*];
 *            created, lastUsed, size, uncompressedSize: long; contributors: Contributor[*] (containment) }
 * Contributor { id: String; version: int }
 * </pre>
 * Objects are dynamic {@code EObject}s read and written through the features below.
 */
public final class CatalogPackage {

	public static final String NS_URI = "https://branchstate.dev/catalog/1"; //$NON-NLS-1$

	public static final EPackage PACKAGE;
	public static final EClass CATALOG;
	public static final EAttribute CATALOG_VERSION;
	public static final EReference CATALOG_STATES;
	public static final EClass STATE;
	public static final EAttribute STATE_GIT_DIR;
	public static final EAttribute STATE_COMMIT_ID;
	public static final EAttribute STATE_ARCHIVE;
	public static final EAttribute STATE_BRANCHES;
	public static final EAttribute STATE_DIRTY_PATHS;
	public static final EAttribute STATE_PROJECTS;
	public static final EAttribute STATE_CREATED;
	public static final EAttribute STATE_LAST_USED;
	public static final EAttribute STATE_SIZE;
	public static final EAttribute STATE_UNCOMPRESSED_SIZE;
	public static final EReference STATE_CONTRIBUTORS;
	public static final EClass CONTRIBUTOR;
	public static final EAttribute CONTRIBUTOR_ID;
	public static final EAttribute CONTRIBUTOR_VERSION;

	static {
		EcoreFactory f = EcoreFactory.eINSTANCE;
		EcorePackage e = EcorePackage.eINSTANCE;
		PACKAGE = f.createEPackage();
		PACKAGE.setName("catalog"); //$NON-NLS-1$
		PACKAGE.setNsPrefix("bscatalog"); //$NON-NLS-1$
		PACKAGE.setNsURI(NS_URI);

		CONTRIBUTOR = eClass(f, "Contributor"); //$NON-NLS-1$
		CONTRIBUTOR_ID = attribute(f, CONTRIBUTOR, "id", e.getEString(), false); //$NON-NLS-1$
		CONTRIBUTOR_VERSION = attribute(f, CONTRIBUTOR, "version", e.getEInt(), false); //$NON-NLS-1$

		STATE = eClass(f, "State"); //$NON-NLS-1$
		STATE_GIT_DIR = attribute(f, STATE, "gitDir", e.getEString(), false); //$NON-NLS-1$
		STATE_COMMIT_ID = attribute(f, STATE, "commitId", e.getEString(), false); //$NON-NLS-1$
		STATE_ARCHIVE = attribute(f, STATE, "archive", e.getEString(), false); //$NON-NLS-1$
		STATE_BRANCHES = attribute(f, STATE, "branches", e.getEString(), true); //$NON-NLS-1$
		STATE_DIRTY_PATHS = attribute(f, STATE, "dirtyPaths", e.getEString(), true); //$NON-NLS-1$
		STATE_PROJECTS = attribute(f, STATE, "projects", e.getEString(), true); //$NON-NLS-1$
		STATE_CREATED = attribute(f, STATE, "created", e.getELong(), false); //$NON-NLS-1$
		STATE_LAST_USED = attribute(f, STATE, "lastUsed", e.getELong(), false); //$NON-NLS-1$
		STATE_SIZE = attribute(f, STATE, "size", e.getELong(), false); //$NON-NLS-1$
		STATE_UNCOMPRESSED_SIZE = attribute(f, STATE, "uncompressedSize", e.getELong(), false); //$NON-NLS-1$
		STATE_CONTRIBUTORS = containment(f, STATE, "contributors", CONTRIBUTOR); //$NON-NLS-1$

		CATALOG = eClass(f, "Catalog"); //$NON-NLS-1$
		CATALOG_VERSION = attribute(f, CATALOG, "version", e.getEInt(), false); //$NON-NLS-1$
		CATALOG_STATES = containment(f, CATALOG, "states", STATE); //$NON-NLS-1$

		EPackage.Registry.INSTANCE.put(NS_URI, PACKAGE);
	}

	private CatalogPackage() {
	}

	private static EClass eClass(EcoreFactory f, String name) {
		EClass c = f.createEClass();
		c.setName(name);
		PACKAGE.getEClassifiers().add(c);
		return c;
	}

	private static EAttribute attribute(EcoreFactory f, EClass owner, String name, EDataType type, boolean many) {
		EAttribute a = f.createEAttribute();
		a.setName(name);
		a.setEType(type);
		a.setUpperBound(many ? -1 : 1);
		a.setUnique(false);
		owner.getEStructuralFeatures().add(a);
		return a;
	}

	private static EReference containment(EcoreFactory f, EClass owner, String name, EClass type) {
		EReference r = f.createEReference();
		r.setName(name);
		r.setEType(type);
		r.setContainment(true);
		r.setUpperBound(-1);
		owner.getEStructuralFeatures().add(r);
		return r;
	}
}

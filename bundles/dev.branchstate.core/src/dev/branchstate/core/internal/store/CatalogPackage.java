package dev.branchstate.core.internal.store;

import org.eclipse.emf.ecore.EAttribute;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EPackage;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.emf.ecore.EcoreFactory;
import org.eclipse.emf.ecore.EcorePackage;

import dev.branchstate.core.emf.DynamicModels;

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

		CONTRIBUTOR = DynamicModels.eClass(PACKAGE, "Contributor"); //$NON-NLS-1$
		CONTRIBUTOR_ID = DynamicModels.attribute(CONTRIBUTOR, "id", e.getEString(), false); //$NON-NLS-1$
		CONTRIBUTOR_VERSION = DynamicModels.attribute(CONTRIBUTOR, "version", e.getEInt(), false); //$NON-NLS-1$

		STATE = DynamicModels.eClass(PACKAGE, "State"); //$NON-NLS-1$
		STATE_GIT_DIR = DynamicModels.attribute(STATE, "gitDir", e.getEString(), false); //$NON-NLS-1$
		STATE_COMMIT_ID = DynamicModels.attribute(STATE, "commitId", e.getEString(), false); //$NON-NLS-1$
		STATE_ARCHIVE = DynamicModels.attribute(STATE, "archive", e.getEString(), false); //$NON-NLS-1$
		STATE_BRANCHES = DynamicModels.attribute(STATE, "branches", e.getEString(), true); //$NON-NLS-1$
		STATE_DIRTY_PATHS = DynamicModels.attribute(STATE, "dirtyPaths", e.getEString(), true); //$NON-NLS-1$
		STATE_PROJECTS = DynamicModels.attribute(STATE, "projects", e.getEString(), true); //$NON-NLS-1$
		STATE_CREATED = DynamicModels.attribute(STATE, "created", e.getELong(), false); //$NON-NLS-1$
		STATE_LAST_USED = DynamicModels.attribute(STATE, "lastUsed", e.getELong(), false); //$NON-NLS-1$
		STATE_SIZE = DynamicModels.attribute(STATE, "size", e.getELong(), false); //$NON-NLS-1$
		STATE_UNCOMPRESSED_SIZE = DynamicModels.attribute(STATE, "uncompressedSize", e.getELong(), false); //$NON-NLS-1$
		STATE_CONTRIBUTORS = DynamicModels.containment(STATE, "contributors", CONTRIBUTOR); //$NON-NLS-1$

		CATALOG = DynamicModels.eClass(PACKAGE, "Catalog"); //$NON-NLS-1$
		CATALOG_VERSION = DynamicModels.attribute(CATALOG, "version", e.getEInt(), false); //$NON-NLS-1$
		CATALOG_STATES = DynamicModels.containment(CATALOG, "states", STATE); //$NON-NLS-1$

		EPackage.Registry.INSTANCE.put(NS_URI, PACKAGE);
	}

	private CatalogPackage() {
	}
}

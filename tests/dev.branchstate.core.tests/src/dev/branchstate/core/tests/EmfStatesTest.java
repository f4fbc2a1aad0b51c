package dev.branchstate.core.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.EAttribute;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EPackage;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.emf.ecore.EcoreFactory;
import org.eclipse.emf.ecore.EcorePackage;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.emf.ecore.resource.ResourceSet;
import org.eclipse.emf.ecore.resource.impl.ResourceSetImpl;
import org.eclipse.emf.ecore.util.EcoreUtil;
import org.eclipse.emf.ecore.xmi.impl.XMIResourceImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;
import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.emf.EmfStates;

/** The EMF helper: binary round trip of a model, in memory, through a file and through a state. */
class EmfStatesTest {

	private static final EPackage PACKAGE;
	private static final EClass NODE;
	private static final EAttribute NAME;
	private static final EAttribute VALUES;
	private static final EReference CHILDREN;
	private static final EReference LINK;

	static {
		EcoreFactory f = EcoreFactory.eINSTANCE;
		PACKAGE = f.createEPackage();
		PACKAGE.setName("index");
		PACKAGE.setNsPrefix("index");
		PACKAGE.setNsURI("https://branchstate.dev/test/index");
		NODE = f.createEClass();
		NODE.setName("Node");
		PACKAGE.getEClassifiers().add(NODE);
		NAME = f.createEAttribute();
		NAME.setName("name");
		NAME.setEType(EcorePackage.Literals.ESTRING);
		NODE.getEStructuralFeatures().add(NAME);
		VALUES = f.createEAttribute();
		VALUES.setName("values");
		VALUES.setEType(EcorePackage.Literals.EINT);
		VALUES.setUpperBound(-1);
		VALUES.setUnique(false);
		NODE.getEStructuralFeatures().add(VALUES);
		CHILDREN = f.createEReference();
		CHILDREN.setName("children");
		CHILDREN.setEType(NODE);
		CHILDREN.setContainment(true);
		CHILDREN.setUpperBound(-1);
		NODE.getEStructuralFeatures().add(CHILDREN);
		LINK = f.createEReference();
		LINK.setName("link");
		LINK.setEType(NODE);
		NODE.getEStructuralFeatures().add(LINK);
		EPackage.Registry.INSTANCE.put(PACKAGE.getNsURI(), PACKAGE);
	}

	@TempDir
	Path temp;

	@SuppressWarnings("unchecked")
	private static Resource model(int width) {
		Resource resource = new XMIResourceImpl(URI.createURI("memory:/model.xmi"));
		EObject root = EcoreUtil.create(NODE);
		root.eSet(NAME, "root \u00e9\u4e2d");
		resource.getContents().add(root);
		EObject previous = null;
		for (int i = 0; i < width; i++) {
			EObject child = EcoreUtil.create(NODE);
			child.eSet(NAME, "child" + i);
			((List<Integer>) child.eGet(VALUES)).addAll(List.of(i, i, -i, Integer.MAX_VALUE));
			if (previous != null) {
				child.eSet(LINK, previous);
			}
			((List<EObject>) root.eGet(CHILDREN)).add(child);
			previous = child;
		}
		root.eSet(LINK, previous);
		return resource;
	}

	@Test
	void binaryRoundTripInMemoryAndThroughAFile() throws IOException {
		Resource original = model(500);
		byte[] bytes = EmfStates.toBytes(original);
		ResourceSet set = new ResourceSetImpl();
		Resource copy = EmfStates.read(new java.io.ByteArrayInputStream(bytes), set, URI.createURI("memory:/copy"));
		assertThat(EcoreUtil.equals(copy.getContents(), original.getContents())).isTrue();
		EObject root = copy.getContents().get(0);
		assertThat(((EObject) root.eGet(LINK)).eGet(NAME)).isEqualTo("child499");

		Path file = temp.resolve("model.bin");
		EmfStates.saveToFile(original, file);
		EmfStates.saveToFile(original, file); // replaces atomically
		Resource fromFile = EmfStates.loadFromFile(file, new ResourceSetImpl());
		assertThat(EcoreUtil.equals(fromFile.getContents(), original.getContents())).isTrue();
		assertThat(file.getParent().toFile().list()).containsExactly("model.bin");
	}

	@Test
	void aContributorKeepsItsEmfModelInAState() throws Exception {
		try (Fixtures f = new Fixtures(temp, "emf" + System.nanoTime())) {
			Resource original = model(200);
			AtomicReference<Resource> restored = new AtomicReference<>();
			f.register(f.service.contributors().register("test.emf", "EMF index", 50, new IStateContributor() {
				@Override
				public int version() {
					return 3;
				}

				@Override
				public boolean appliesTo(IProject project) {
					return true;
				}

				@Override
				public void save(ISaveContext context, IProgressMonitor monitor) throws CoreException {
					try {
						EmfStates.save(context, "index/model.bin", original);
					} catch (IOException e) {
						throw new CoreException(Status.error(e.getMessage(), e));
					}
				}

				@Override
				public void restore(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
					try {
						assertThat(context.dataVersion()).isEqualTo(3);
						assertThat(context.entryNames()).containsExactly("index/model.bin");
						restored.set(EmfStates.load(context, "index/model.bin", new ResourceSetImpl(),
								URI.createURI("memory:/restored")));
					} catch (IOException e) {
						throw new CoreException(Status.error(e.getMessage(), e));
					}
				}
			}));
			StateInfo state = f.service.save(f.gitDir(), null);
			assertThat(state.contributors()).containsEntry("test.emf", 3);
			f.service.restore(f.gitDir(), state.commitId(), null);
			assertThat(restored.get()).isNotNull();
			assertThat(EcoreUtil.equals(restored.get().getContents(), original.getContents())).isTrue();
			assertThat(Map.of("n", restored.get().getContents().get(0).eGet(NAME))).containsEntry("n", "root \u00e9\u4e2d");
		}
	}
}

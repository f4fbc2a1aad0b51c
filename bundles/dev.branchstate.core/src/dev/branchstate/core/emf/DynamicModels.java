package dev.branchstate.core.emf;

import org.eclipse.emf.ecore.EAttribute;
import org.eclipse.emf.ecore.EClass;
import org.eclipse.emf.ecore.EDataType;
import org.eclipse.emf.ecore.EPackage;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.emf.ecore.EStructuralFeature;
import org.eclipse.emf.ecore.EcoreFactory;

/**
 * Builds the classes of an EMF model in code, for contributors that keep their data as EMF resources without a
 * generated model (the store's catalog, the reference Java index).
 */
public final class DynamicModels {

	private DynamicModels() {
	}

	/** @return a new class named {@code name}, added to {@code model} */
	public static EClass eClass(EPackage model, String name) {
		EClass c = EcoreFactory.eINSTANCE.createEClass();
		c.setName(name);
		model.getEClassifiers().add(c);
		return c;
	}

	/** @return a new attribute of {@code owner}; a {@code many} one keeps duplicates and order */
	public static EAttribute attribute(EClass owner, String name, EDataType type, boolean many) {
		EAttribute a = EcoreFactory.eINSTANCE.createEAttribute();
		a.setName(name);
		a.setEType(type);
		if (many) {
			a.setUpperBound(EStructuralFeature.UNBOUNDED_MULTIPLICITY);
			a.setUnique(false);
		}
		owner.getEStructuralFeatures().add(a);
		return a;
	}

	/** @return a new many-valued containment reference of {@code owner} */
	public static EReference containment(EClass owner, String name, EClass type) {
		EReference r = EcoreFactory.eINSTANCE.createEReference();
		r.setName(name);
		r.setEType(type);
		r.setContainment(true);
		r.setUpperBound(EStructuralFeature.UNBOUNDED_MULTIPLICITY);
		owner.getEStructuralFeatures().add(r);
		return r;
	}
}

package dev.branchstate.javaindex.internal;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.core.runtime.IPath;
import org.eclipse.emf.ecore.EObject;

import dev.branchstate.javaindex.Declaration;

/**
 * What the queries need of one compilation unit, taken from its model object (the same code for a unit just parsed
 * and a unit loaded from the store, so that a restored index answers exactly like a fresh one).
 *
 * @param path         project-relative path
 * @param hash         content hash
 * @param declarations declarations, in source order
 * @param references   referenced simple names, sorted and unique
 */
record UnitSummary(String path, String hash, List<Declaration> declarations, List<String> references) {

	static UnitSummary of(IPath projectPath, EObject unit) {
		String path = (String) unit.eGet(IndexModel.UNIT_PATH);
		IPath file = projectPath.append(path);
		List<Declaration> declarations = new ArrayList<>();
		String pkg = (String) unit.eGet(IndexModel.UNIT_PACKAGE);
		for (Object type : UnitParser.<EObject>list(unit, IndexModel.UNIT_TYPES)) {
			type(file, pkg, (EObject) type, declarations);
		}
		List<String> references = List.copyOf(UnitParser.<String>list(unit, IndexModel.UNIT_REFERENCES));
		return new UnitSummary(path, (String) unit.eGet(IndexModel.UNIT_HASH), List.copyOf(declarations),
				references);
	}

	private static void type(IPath file, String container, EObject type, List<Declaration> out) {
		String name = (String) type.eGet(IndexModel.TYPE_NAME);
		List<String> supertypes = UnitParser.list(type, IndexModel.TYPE_SUPERTYPES);
		out.add(new Declaration(file, name, container, IndexModel.kind(type.eGet(IndexModel.TYPE_KIND)),
				(Integer) type.eGet(IndexModel.TYPE_MODIFIERS), String.join(", ", supertypes))); //$NON-NLS-1$
		String qualified = container.isEmpty() ? name : container + '.' + name;
		for (Object o : UnitParser.<EObject>list(type, IndexModel.TYPE_MEMBERS)) {
			EObject member = (EObject) o;
			out.add(new Declaration(file, (String) member.eGet(IndexModel.MEMBER_NAME), qualified,
					IndexModel.kind(member.eGet(IndexModel.MEMBER_KIND)),
					(Integer) member.eGet(IndexModel.MEMBER_MODIFIERS),
					(String) member.eGet(IndexModel.MEMBER_SIGNATURE)));
		}
		for (Object nested : UnitParser.<EObject>list(type, IndexModel.TYPE_TYPES)) {
			type(file, qualified, (EObject) nested, out);
		}
	}
}

package dev.branchstate.javaindex.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.eclipse.emf.common.util.EList;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.util.EcoreUtil;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.core.dom.AST;
import org.eclipse.jdt.core.dom.ASTNode;
import org.eclipse.jdt.core.dom.ASTParser;
import org.eclipse.jdt.core.dom.ASTVisitor;
import org.eclipse.jdt.core.dom.AbstractTypeDeclaration;
import org.eclipse.jdt.core.dom.AnnotationTypeDeclaration;
import org.eclipse.jdt.core.dom.AnnotationTypeMemberDeclaration;
import org.eclipse.jdt.core.dom.BodyDeclaration;
import org.eclipse.jdt.core.dom.CompilationUnit;
import org.eclipse.jdt.core.dom.EnumConstantDeclaration;
import org.eclipse.jdt.core.dom.EnumDeclaration;
import org.eclipse.jdt.core.dom.FieldDeclaration;
import org.eclipse.jdt.core.dom.ImportDeclaration;
import org.eclipse.jdt.core.dom.MethodDeclaration;
import org.eclipse.jdt.core.dom.RecordDeclaration;
import org.eclipse.jdt.core.dom.SimpleName;
import org.eclipse.jdt.core.dom.SingleVariableDeclaration;
import org.eclipse.jdt.core.dom.Type;
import org.eclipse.jdt.core.dom.TypeDeclaration;
import org.eclipse.jdt.core.dom.VariableDeclarationFragment;

import dev.branchstate.javaindex.Declaration.Kind;

/**
 * Turns the source of a compilation unit into a {@code CompilationUnit} model object with JDT's {@link ASTParser},
 * without bindings (so without a classpath or a Java project). One instance per thread.
 */
final class UnitParser {

	private final ASTParser parser = ASTParser.newParser(AST.getJLSLatest());
	private final Map<String, String> options;

	UnitParser() {
		Map<String, String> o = JavaCore.getOptions();
		JavaCore.setComplianceOptions(JavaCore.latestSupportedJavaVersion(), o);
		options = o;
	}

	/** @return a new model object for the source; the parser recovers from syntax errors */
	EObject parse(String path, String hash, char[] source) {
		parser.setKind(ASTParser.K_COMPILATION_UNIT);
		parser.setCompilerOptions(options);
		parser.setResolveBindings(false);
		parser.setBindingsRecovery(false);
		parser.setStatementsRecovery(true);
		parser.setSource(source);
		CompilationUnit ast = (CompilationUnit) parser.createAST(null);

		EObject unit = EcoreUtil.create(IndexModel.UNIT);
		unit.eSet(IndexModel.UNIT_PATH, path);
		unit.eSet(IndexModel.UNIT_HASH, hash);
		unit.eSet(IndexModel.UNIT_PACKAGE,
				ast.getPackage() == null ? "" : ast.getPackage().getName().getFullyQualifiedName()); //$NON-NLS-1$
		List<String> imports = new ArrayList<>();
		for (Object o : ast.imports()) {
			ImportDeclaration i = (ImportDeclaration) o;
			imports.add((i.isStatic() ? "static " : "") + i.getName().getFullyQualifiedName() //$NON-NLS-1$ //$NON-NLS-2$
					+ (i.isOnDemand() ? ".*" : "")); //$NON-NLS-1$ //$NON-NLS-2$
		}
		list(unit, IndexModel.UNIT_IMPORTS).addAll(imports);
		for (Object o : ast.types()) {
			list(unit, IndexModel.UNIT_TYPES).add(type((AbstractTypeDeclaration) o));
		}
		TreeSet<String> references = new TreeSet<>();
		ast.accept(new ASTVisitor() {
			@Override
			public boolean visit(SimpleName node) {
				if (!node.isDeclaration()) {
					references.add(node.getIdentifier());
				}
				return false;
			}
		});
		list(unit, IndexModel.UNIT_REFERENCES).addAll(references);
		return unit;
	}

	private static EObject type(AbstractTypeDeclaration declaration) {
		EObject type = EcoreUtil.create(IndexModel.TYPE);
		type.eSet(IndexModel.TYPE_NAME, declaration.getName().getIdentifier());
		type.eSet(IndexModel.TYPE_MODIFIERS, declaration.getModifiers());
		List<String> supertypes = new ArrayList<>();
		Kind kind;
		if (declaration instanceof TypeDeclaration t) {
			kind = t.isInterface() ? Kind.INTERFACE : Kind.CLASS;
			if (t.getSuperclassType() != null) {
				supertypes.add(t.getSuperclassType().toString());
			}
			t.superInterfaceTypes().forEach(s -> supertypes.add(s.toString()));
		} else if (declaration instanceof EnumDeclaration en) {
			kind = Kind.ENUM;
			en.superInterfaceTypes().forEach(s -> supertypes.add(s.toString()));
			for (Object c : en.enumConstants()) {
				EnumConstantDeclaration constant = (EnumConstantDeclaration) c;
				String name = constant.getName().getIdentifier();
				member(type, name, Kind.ENUM_CONSTANT, constant.getModifiers(), name + " : " + en.getName()); //$NON-NLS-1$
			}
		} else if (declaration instanceof RecordDeclaration r) {
			kind = Kind.RECORD;
			r.superInterfaceTypes().forEach(s -> supertypes.add(s.toString()));
			for (Object c : r.recordComponents()) {
				SingleVariableDeclaration component = (SingleVariableDeclaration) c;
				String name = component.getName().getIdentifier();
				member(type, name, Kind.RECORD_COMPONENT, component.getModifiers(),
						name + " : " + typeName(component.getType(), component.isVarargs(), 0)); //$NON-NLS-1$
			}
		} else {
			kind = Kind.ANNOTATION;
		}
		type.eSet(IndexModel.TYPE_KIND, IndexModel.literal(kind));
		list(type, IndexModel.TYPE_SUPERTYPES).addAll(supertypes);
		for (Object o : declaration.bodyDeclarations()) {
			body(type, (BodyDeclaration) o);
		}
		return type;
	}

	private static void body(EObject type, BodyDeclaration body) {
		switch (body.getNodeType()) {
		case ASTNode.FIELD_DECLARATION -> {
			FieldDeclaration field = (FieldDeclaration) body;
			for (Object f : field.fragments()) {
				VariableDeclarationFragment fragment = (VariableDeclarationFragment) f;
				String name = fragment.getName().getIdentifier();
				member(type, name, Kind.FIELD, field.getModifiers(),
						name + " : " + typeName(field.getType(), false, fragment.getExtraDimensions())); //$NON-NLS-1$
			}
		}
		case ASTNode.METHOD_DECLARATION -> {
			MethodDeclaration method = (MethodDeclaration) body;
			StringBuilder signature = new StringBuilder(method.getName().getIdentifier()).append('(');
			boolean first = true;
			for (Object p : method.parameters()) {
				SingleVariableDeclaration parameter = (SingleVariableDeclaration) p;
				if (!first) {
					signature.append(", "); //$NON-NLS-1$
				}
				first = false;
				signature.append(typeName(parameter.getType(), parameter.isVarargs(), parameter.getExtraDimensions()));
			}
			signature.append(')');
			if (!method.isConstructor() && method.getReturnType2() != null) {
				signature.append(" : ").append(typeName(method.getReturnType2(), false, method.getExtraDimensions())); //$NON-NLS-1$
			}
			member(type, method.getName().getIdentifier(), method.isConstructor() ? Kind.CONSTRUCTOR : Kind.METHOD,
					method.getModifiers(), signature.toString());
		}
		case ASTNode.ANNOTATION_TYPE_MEMBER_DECLARATION -> {
			AnnotationTypeMemberDeclaration element = (AnnotationTypeMemberDeclaration) body;
			String name = element.getName().getIdentifier();
			member(type, name, Kind.ANNOTATION_ELEMENT, element.getModifiers(),
					name + "() : " + typeName(element.getType(), false, 0)); //$NON-NLS-1$
		}
		case ASTNode.TYPE_DECLARATION, ASTNode.ENUM_DECLARATION, ASTNode.RECORD_DECLARATION,
				ASTNode.ANNOTATION_TYPE_DECLARATION ->
			list(type, IndexModel.TYPE_TYPES).add(type((AbstractTypeDeclaration) body));
		default -> {
			// initializers and stray declarations recovered from syntax errors declare nothing by name
		}
		}
	}

	private static void member(EObject type, String name, Kind kind, int modifiers, String signature) {
		EObject member = EcoreUtil.create(IndexModel.MEMBER);
		member.eSet(IndexModel.MEMBER_NAME, name);
		member.eSet(IndexModel.MEMBER_KIND, IndexModel.literal(kind));
		member.eSet(IndexModel.MEMBER_MODIFIERS, modifiers);
		member.eSet(IndexModel.MEMBER_SIGNATURE, signature);
		list(type, IndexModel.TYPE_MEMBERS).add(member);
	}

	private static String typeName(Type type, boolean varargs, int extraDimensions) {
		return type + "[]".repeat(extraDimensions) + (varargs ? "..." : ""); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
	}

	@SuppressWarnings("unchecked")
	static <T> EList<T> list(EObject object, org.eclipse.emf.ecore.EStructuralFeature feature) {
		return (EList<T>) object.eGet(feature);
	}
}

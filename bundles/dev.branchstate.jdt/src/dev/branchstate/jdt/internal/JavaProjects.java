package dev.branchstate.jdt.internal;

import org.eclipse.core.resources.ICommand;
import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.jdt.core.JavaCore;
import org.osgi.framework.FrameworkUtil;

/** What the JDT contributors ask of a project and of the JDT running. */
final class JavaProjects {

	private JavaProjects() {
	}

	/** @return whether the project is open and has the Java nature */
	static boolean isJavaProject(IProject project) {
		try {
			return project.isAccessible() && project.hasNature(JavaCore.NATURE_ID);
		} catch (CoreException e) {
			return false;
		}
	}

	/** @return whether the project's build spec runs JDT's Java builder */
	static boolean isBuiltByJdt(IProject project) {
		try {
			for (ICommand command : project.getDescription().getBuildSpec()) {
				if (JavaCore.BUILDER_ID.equals(command.getBuilderName())) {
					return true;
				}
			}
			return false;
		} catch (CoreException e) {
			return false;
		}
	}

	/** @return the version of the JDT core bundle running: JDT's data is restored by the JDT that wrote it only */
	static String jdtVersion() {
		return FrameworkUtil.getBundle(JavaCore.class).getVersion().toString();
	}
}

package dev.branchstate.javaindex.internal;

import java.io.IOException;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.Status;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;

import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;
import dev.branchstate.core.IStateContributor;

/**
 * Contributes the Java index of a project to Branchstate states: saves the project's store (EMF binary resources,
 * one per compilation unit) with the work still queued, and restores it differentially, then indexes exactly the
 * changed paths it is handed and the work that was queued.
 * Created by the extension registry; finds the index through the OSGi service registry.
 */
public final class JavaIndexContributor implements IStateContributor {

	/**
	 * Version 2: the store (format 1: {@code index.properties}, {@code units/} or {@code shards/}) under
	 * {@code store/}, and {@code unindexed}: the work that was queued when the state was saved. Version 1 (the store
	 * at the top, no record of queued work) is not read: the index is then rebuilt the usual way.
	 */
	static final int VERSION = 2;

	@Override
	public int version() {
		return VERSION;
	}

	@Override
	public boolean appliesTo(IProject project) {
		JavaIndexService service = service();
		return service != null && service.hasIndex(project);
	}

	@Override
	public void save(ISaveContext context, IProgressMonitor monitor) throws CoreException {
		try {
			required().save(context, monitor);
		} catch (IOException e) {
			throw new CoreException(Status.error(
					Messages.bind(Messages.Index_saveFailed, context.project().getName(), e.getMessage()), e));
		}
	}

	@Override
	public void restore(IRestoreContext context, IProgressMonitor monitor) throws CoreException {
		required().restore(context, monitor);
	}

	private static JavaIndexService required() throws CoreException {
		JavaIndexService service = service();
		if (service == null) {
			throw new CoreException(Status.error(Messages.Index_serviceMissing));
		}
		return service;
	}

	private static JavaIndexService service() {
		BundleContext context = FrameworkUtil.getBundle(JavaIndexContributor.class).getBundleContext();
		if (context == null) {
			return null;
		}
		ServiceReference<JavaIndexService> reference = context.getServiceReference(JavaIndexService.class);
		if (reference == null) {
			return null;
		}
		JavaIndexService service = context.getService(reference);
		context.ungetService(reference);
		return service;
	}
}

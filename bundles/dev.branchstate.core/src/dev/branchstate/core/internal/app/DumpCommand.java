package dev.branchstate.core.internal.app;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

import org.eclipse.equinox.app.IApplication;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * The headless command {@code dump <folder>}: every installed service that offers a dump of what it derived (the
 * Java index of the examples feature, say), registered as a {@link Consumer} of a folder with the service property
 * {@value #PROPERTY} naming it, writes its dump into the folder now, each file complete or absent as the service
 * writes them. For a long-lived session ({@link CommandServer}): what such a service writes at exit, without the
 * exit. Prints {@code dumped <name>} per service; exit code 1 when one failed or none is installed.
 */
final class DumpCommand {

	/** The service property of a dump, its name. */
	static final String PROPERTY = "dev.branchstate.dump"; //$NON-NLS-1$

	private DumpCommand() {
	}

	static Object run(List<String> args, PrintStream out, PrintStream err) {
		if (args.size() != 1) {
			return BranchstateApplication.usage("dump takes a folder"); //$NON-NLS-1$
		}
		Path folder = Path.of(args.get(0)).toAbsolutePath();
		BundleContext context = FrameworkUtil.getBundle(DumpCommand.class).getBundleContext();
		@SuppressWarnings("rawtypes")
		java.util.Collection<ServiceReference<Consumer>> references;
		try {
			references = context.getServiceReferences(Consumer.class, "(" + PROPERTY + "=*)"); //$NON-NLS-1$ //$NON-NLS-2$
		} catch (InvalidSyntaxException e) {
			throw new IllegalStateException(e);
		}
		if (references.isEmpty()) {
			err.println("branchstate: no installed service offers a dump"); //$NON-NLS-1$
			return BranchstateApplication.EXIT_PROBLEM;
		}
		Object exit = IApplication.EXIT_OK;
		for (@SuppressWarnings("rawtypes") ServiceReference<Consumer> reference : references) {
			Object name = reference.getProperty(PROPERTY);
			@SuppressWarnings("unchecked")
			Consumer<Path> dump = context.getService(reference);
			if (dump == null) {
				continue; // unregistered meanwhile
			}
			try {
				dump.accept(folder);
				out.println("dumped " + name + " to " + folder); //$NON-NLS-1$ //$NON-NLS-2$
			} catch (RuntimeException e) {
				err.println("branchstate: the dump of " + name + " failed: " + e); //$NON-NLS-1$ //$NON-NLS-2$
				exit = BranchstateApplication.EXIT_PROBLEM;
			} finally {
				context.ungetService(reference);
			}
		}
		return exit;
	}
}

package dev.branchstate.javaindex.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.function.Consumer;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The Java index's dump on a command: the headless application's {@code dump <folder>} (a long-lived session
 * driven through its command channel, the soak's) asks every service registered as a {@link Consumer} of a folder
 * with the property {@value #PROPERTY} to write its dump into the folder now. Writes what the index writes at exit
 * ({@link JavaIndexService#DUMP_AT_EXIT}): one {@code <project>.dump} file per project, once its work is done, each
 * written aside and renamed.
 */
@Component(service = Consumer.class, property = IndexDumpOnCommand.PROPERTY + "=java-index")
public final class IndexDumpOnCommand implements Consumer<Path> {

	/** The service property by which the headless application's {@code dump} command finds the dumps. */
	static final String PROPERTY = "dev.branchstate.dump"; //$NON-NLS-1$

	private final JavaIndexService index;

	@Activate
	public IndexDumpOnCommand(@Reference JavaIndexService index) {
		this.index = index;
	}

	@Override
	public void accept(Path folder) {
		try {
			index.dumpAll(folder);
		} catch (IOException e) {
			throw new UncheckedIOException(e);
		}
	}
}

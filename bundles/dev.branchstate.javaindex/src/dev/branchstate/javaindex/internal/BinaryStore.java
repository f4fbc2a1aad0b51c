package dev.branchstate.javaindex.internal;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

import org.eclipse.emf.ecore.resource.Resource;

import dev.branchstate.core.emf.EmfStates;

/**
 * Writes the index's EMF resources in the binary format of {@link EmfStates} (read back with
 * {@link EmfStates#read}), under a temporary name beside the target, atomically renamed. Unlike
 * {@link EmfStates#saveToFile} it does not force each file to the device: the index is derived data written a
 * thousand files at a time, and a file a crash left empty or torn fails to load, which rebuilds the store.
 */
final class BinaryStore {

	private BinaryStore() {
	}

	static void saveToFile(Resource resource, Path file) throws IOException {
		Path dir = file.toAbsolutePath().getParent();
		Files.createDirectories(dir);
		Path temp = dir.resolve("." + file.getFileName() + ".tmp-" //$NON-NLS-1$ //$NON-NLS-2$
				+ Long.toHexString(ThreadLocalRandom.current().nextLong()));
		try {
			try (OutputStream out = new BufferedOutputStream(
					Files.newOutputStream(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
				EmfStates.write(resource, out);
			}
			Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		} finally {
			Files.deleteIfExists(temp);
		}
	}
}

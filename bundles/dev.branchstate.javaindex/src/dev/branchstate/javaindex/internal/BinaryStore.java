package dev.branchstate.javaindex.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.eclipse.emf.common.util.URI;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.emf.ecore.resource.ResourceSet;
import org.eclipse.emf.ecore.resource.impl.BinaryResourceImpl;

/**
 * Reads and writes EMF resources in EMF's compact binary format ({@link BinaryResourceImpl}, format 1.1); files are
 * written under a temporary name beside the target and atomically renamed.
 */
final class BinaryStore {

	private BinaryStore() {
	}

	static Map<Object, Object> options() {
		Map<Object, Object> options = new HashMap<>();
		options.put(BinaryResourceImpl.OPTION_VERSION, BinaryResourceImpl.BinaryIO.Version.VERSION_1_1);
		options.put(BinaryResourceImpl.OPTION_STYLE_DATA_CONVERTER, Boolean.TRUE);
		return options;
	}

	static Resource read(InputStream in, ResourceSet resourceSet, URI uri) throws IOException {
		BinaryResourceImpl resource = new BinaryResourceImpl(uri);
		resourceSet.getResources().add(resource);
		try {
			resource.load(in, options());
		} catch (RuntimeException e) {
			throw new IOException(e.getMessage(), e);
		}
		return resource;
	}

	/**
	 * @param force whether to force the content to the device before the rename; the index does not (it is derived
	 *              data: a store file left empty or torn by a crash fails to load, and the store is rebuilt)
	 */
	static void saveToFile(Resource resource, Path file, boolean force) throws IOException {
		Path dir = file.toAbsolutePath().getParent();
		Files.createDirectories(dir);
		Path temp = dir.resolve("." + file.getFileName() + ".tmp-" //$NON-NLS-1$ //$NON-NLS-2$
				+ Long.toHexString(ThreadLocalRandom.current().nextLong()));
		try {
			try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
					OutputStream out = Channels.newOutputStream(channel)) {
				BinaryResourceImpl.EObjectOutputStream stream = new BinaryResourceImpl.EObjectOutputStream(out,
						options());
				stream.saveResource(resource);
				stream.flush();
				if (force) {
					channel.force(true);
				}
			}
			Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		} finally {
			Files.deleteIfExists(temp);
		}
	}
}

package dev.branchstate.core.emf;

import java.io.ByteArrayOutputStream;
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

import dev.branchstate.core.IRestoreContext;
import dev.branchstate.core.ISaveContext;

/**
 * Serializes EMF resources in EMF's compact binary format ({@link BinaryResourceImpl}) into a state being saved and
 * out of a state being restored, or into a file written atomically (temporary name, forced, atomic rename).
 * <p>
 * The binary format refers to classes by their package's namespace URI: the packages of the serialized objects
 * must be registered in the resource set (or the global registry) used to load.
 */
public final class EmfStates {

	private EmfStates() {
	}

	/** @return the options used for binary save and load (format version 1.1, IDs kept) */
	public static Map<Object, Object> binaryOptions() {
		Map<Object, Object> options = new HashMap<>();
		options.put(BinaryResourceImpl.OPTION_VERSION, BinaryResourceImpl.BinaryIO.Version.VERSION_1_1);
		options.put(BinaryResourceImpl.OPTION_STYLE_DATA_CONVERTER, Boolean.TRUE);
		return options;
	}

	/**
	 * Writes the contents of {@code resource} (of any resource implementation) in binary form to {@code out}, which
	 * is flushed and not closed. References to objects of other resources are written as proxies.
	 */
	public static void write(Resource resource, OutputStream out) throws IOException {
		BinaryResourceImpl.EObjectOutputStream stream = new BinaryResourceImpl.EObjectOutputStream(out,
				binaryOptions());
		stream.saveResource(resource);
		stream.flush();
		out.flush();
	}

	/** @return the contents of {@code resource} in binary form */
	public static byte[] toBytes(Resource resource) throws IOException {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		write(resource, out);
		return out.toByteArray();
	}

	/**
	 * Reads binary content written by {@link #write} into a new resource of {@code resourceSet} with the given URI.
	 * An existing resource with that URI is unloaded and replaced.
	 */
	public static Resource read(InputStream in, ResourceSet resourceSet, URI uri) throws IOException {
		Resource existing = resourceSet.getResource(uri, false);
		if (existing != null) {
			existing.unload();
			resourceSet.getResources().remove(existing);
		}
		BinaryResourceImpl resource = new BinaryResourceImpl(uri);
		resourceSet.getResources().add(resource);
		try {
			resource.load(in, binaryOptions());
		} catch (IOException | RuntimeException e) {
			resourceSet.getResources().remove(resource);
			throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
		}
		return resource;
	}

	/** Adds the resource to the state being saved, as entry {@code name} of the contributor's part. */
	public static void save(ISaveContext context, String name, Resource resource) throws IOException {
		context.addBytes(name, toBytes(resource));
	}

	/** Loads entry {@code name} of the contributor's part of the state into {@code resourceSet} under {@code uri}. */
	public static Resource load(IRestoreContext context, String name, ResourceSet resourceSet, URI uri)
			throws IOException {
		try (InputStream in = context.open(name)) {
			return read(in, resourceSet, uri);
		}
	}

	/**
	 * Writes the resource to {@code file} atomically: a temporary file beside it, forced to the device, then moved
	 * over {@code file}. A crash leaves either the old or the new content, never a mix.
	 */
	public static void saveToFile(Resource resource, Path file) throws IOException {
		Path dir = file.toAbsolutePath().getParent();
		Files.createDirectories(dir);
		Path temp = dir.resolve("." + file.getFileName() + ".tmp-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
		try {
			try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
					OutputStream out = Channels.newOutputStream(channel)) {
				write(resource, out);
				out.flush();
				channel.force(true);
			}
			Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		} finally {
			Files.deleteIfExists(temp);
		}
	}

	/** Loads a file written by {@link #saveToFile} into {@code resourceSet}. */
	public static Resource loadFromFile(Path file, ResourceSet resourceSet) throws IOException {
		try (InputStream in = Files.newInputStream(file)) {
			return read(in, resourceSet, URI.createFileURI(file.toAbsolutePath().toString()));
		}
	}
}

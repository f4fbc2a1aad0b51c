package dev.branchstate.core.internal.prefetch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Properties;

/**
 * A small properties file of the core bundle's state location, read whole and written whole: to a temporary name,
 * forced, then renamed over the old one, so that a crash leaves the old or the new file, never half of one.
 */
final class PropertiesFile {

	private final Path file;

	PropertiesFile(Path file) {
		this.file = file;
	}

	/** @return its properties; none when the file does not exist yet */
	Properties read() throws IOException {
		Properties properties = new Properties();
		try (InputStream in = Files.newInputStream(file)) {
			properties.load(in);
		} catch (NoSuchFileException e) {
			// nothing recorded yet
		}
		return properties;
	}

	void write(Properties properties) throws IOException {
		Files.createDirectories(file.getParent());
		Path temporary = file.resolveSibling(file.getFileName() + ".tmp"); //$NON-NLS-1$
		try (OutputStream out = Files.newOutputStream(temporary)) {
			properties.store(out, null);
		}
		try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
			channel.force(true);
		}
		Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
	}
}

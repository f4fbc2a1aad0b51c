import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import org.apache.commons.compress.archivers.zip.ParallelScatterZipCreator;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.parallel.InputStreamSupplier;

import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.ExtractResult;
import dev.branchstate.archive.TreeFilter;
import dev.branchstate.archive.WriteOptions;
import dev.branchstate.archive.WriteResult;

/**
 * One benchmark operation per JVM (the driver, bench.py, measures wall, CPU and peak RSS of the process):
 *
 * <pre>
 * ArchiveBench ours    pack    SRC ARCHIVE [PREVIOUS]   (PREVIOUS: differential save)
 * ArchiveBench ours    extract ARCHIVE OUT [diff]
 * ArchiveBench jdkzip  pack|extract ...                 (java.util.zip, deflate level 6, one thread)
 * ArchiveBench commons pack|extract ...                 (Commons Compress: ParallelScatterZipCreator / ZipFile)
 * </pre>
 *
 * Options by system property: bench.workers (default: available processors), bench.level, bench.chunk,
 * bench.warmup (a directory packed and extracted once with the same tool before the timed operation, so that it
 * runs in a warm JVM as it would in the IDE). Prints "op_ms=N op_cpu_ms=M" (wall and process CPU time of the
 * timed operation inside the JVM, without start-up and warm-up) and a short summary.
 */
public final class ArchiveBench {

	public static void main(String[] args) throws Exception {
		String tool = args[0];
		String op = args[1];
		int workers = Integer.getInteger("bench.workers", Runtime.getRuntime().availableProcessors());
		String warm = System.getProperty("bench.warmup");
		if (warm != null) {
			warmUp(tool, Paths.get(warm), workers);
		}
		long c0 = cpu();
		long t0 = System.nanoTime();
		String summary = switch (tool + " " + op) {
			case "ours pack" -> oursPack(Paths.get(args[2]), Paths.get(args[3]), args.length > 4 ? Paths.get(args[4]) : null, workers);
			case "ours extract" -> oursExtract(Paths.get(args[2]), Paths.get(args[3]), args.length > 4 && args[4].equals("diff"), workers);
			case "jdkzip pack" -> jdkPack(Paths.get(args[2]), Paths.get(args[3]));
			case "jdkzip extract" -> jdkExtract(Paths.get(args[2]), Paths.get(args[3]));
			case "commons pack" -> commonsPack(Paths.get(args[2]), Paths.get(args[3]), workers);
			case "commons extract" -> commonsExtract(Paths.get(args[2]), Paths.get(args[3]));
			default -> throw new IllegalArgumentException(tool + " " + op);
		};
		System.out.println("op_ms=" + (System.nanoTime() - t0) / 1_000_000 + " op_cpu_ms=" + (cpu() - c0) / 1_000_000
				+ " " + summary);
	}

	private static long cpu() {
		return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
				.getOperatingSystemMXBean()).getProcessCpuTime();
	}

	/** Pack and extract a small tree once with the same tool, so the timed operation runs in a warm JVM. */
	private static void warmUp(String tool, Path tree, int workers) throws Exception {
		Path dir = Files.createTempDirectory("bench-warmup");
		Path zip = dir.resolve("w.zip");
		Path out = dir.resolve("out");
		switch (tool) {
			case "ours" -> {
				oursPack(tree, zip, null, workers);
				oursExtract(zip, out, false, workers);
				oursExtract(zip, out, true, workers);
				oursPack(out, dir.resolve("w2.zip"), zip, workers);
			}
			case "jdkzip" -> {
				jdkPack(tree, zip);
				jdkExtract(zip, out);
			}
			case "commons" -> {
				commonsPack(tree, zip, workers);
				commonsExtract(zip, out);
			}
			default -> throw new IllegalArgumentException(tool);
		}
		try (Stream<Path> s = Files.walk(dir)) {
			for (Path p : (Iterable<Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator) {
				Files.delete(p);
			}
		}
	}

	private static String oursPack(Path src, Path archive, Path previous, int workers) throws IOException {
		WriteOptions o = WriteOptions.defaults().withWorkers(workers).withPrevious(previous)
				.withLevel(Integer.getInteger("bench.level", WriteOptions.DEFAULT_LEVEL))
				.withChunkSize(Integer.getInteger("bench.chunk", WriteOptions.DEFAULT_CHUNK_SIZE));
		try (ArchiveWriter w = Archives.newWriter(archive, o)) {
			w.addTree(src, "", TreeFilter.ALL);
			WriteResult r = w.commit();
			return "entries=" + r.entries() + " copied=" + r.copiedEntries();
		}
	}

	private static String oursExtract(Path archive, Path out, boolean diff, int workers) throws IOException {
		try (ArchiveReader r = Archives.open(archive)) {
			ExtractResult res = r.extract(out, ExtractOptions.defaults().withWorkers(workers).withDifferential(diff)
					.withSkipUnsafeLinks(true));
			return "written=" + res.writtenCount() + " skipped=" + res.skipped();
		}
	}

	private static List<Path> files(Path src) throws IOException {
		List<Path> l = new ArrayList<>();
		try (Stream<Path> s = Files.walk(src)) {
			s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).forEach(l::add);
		}
		l.sort(null);
		return l;
	}

	private static String jdkPack(Path src, Path archive) throws IOException {
		List<Path> files = files(src);
		try (ZipOutputStream z = new ZipOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(archive), 1 << 16))) {
			byte[] buf = new byte[1 << 16];
			for (Path p : files) {
				ZipEntry e = new ZipEntry(src.relativize(p).toString());
				e.setLastModifiedTime(Files.getLastModifiedTime(p));
				z.putNextEntry(e);
				try (InputStream in = Files.newInputStream(p)) {
					int n;
					while ((n = in.read(buf)) > 0) {
						z.write(buf, 0, n);
					}
				}
				z.closeEntry();
			}
		}
		return "entries=" + files.size() + " (regular files only)";
	}

	private static String jdkExtract(Path archive, Path out) throws IOException {
		int n = 0;
		try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(archive.toFile())) {
			Enumeration<? extends ZipEntry> en = z.entries();
			while (en.hasMoreElements()) {
				ZipEntry e = en.nextElement();
				Path t = out.resolve(e.getName()).normalize();
				if (!t.startsWith(out)) {
					throw new IOException("bad name " + e.getName());
				}
				if (e.isDirectory()) {
					Files.createDirectories(t);
					continue;
				}
				Files.createDirectories(t.getParent());
				try (InputStream in = z.getInputStream(e)) {
					Files.copy(in, t, StandardCopyOption.REPLACE_EXISTING);
				}
				if (e.getLastModifiedTime() != null) {
					Files.setLastModifiedTime(t, e.getLastModifiedTime());
				}
				n++;
			}
		}
		return "written=" + n;
	}

	private static String commonsPack(Path src, Path archive, int workers) throws Exception {
		List<Path> files = new ArrayList<>();
		try (Stream<Path> s = Files.walk(src)) {
			s.filter(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).forEach(files::add);
		}
		files.sort(null);
		ExecutorService pool = Executors.newFixedThreadPool(workers);
		ParallelScatterZipCreator c = new ParallelScatterZipCreator(pool);
		for (Path p : files) {
			BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
			ZipArchiveEntry e = new ZipArchiveEntry(src.relativize(p).toString());
			e.setMethod(ZipEntry.DEFLATED);
			e.setLastModifiedTime(a.lastModifiedTime());
			InputStreamSupplier in;
			if (a.isSymbolicLink()) {
				e.setUnixMode(0120777);
				byte[] target = Files.readSymbolicLink(p).toString().getBytes(StandardCharsets.UTF_8);
				in = () -> new java.io.ByteArrayInputStream(target);
			} else {
				e.setUnixMode(0100644);
				in = () -> {
					try {
						return Files.newInputStream(p);
					} catch (IOException ex) {
						throw new UncheckedIOException(ex);
					}
				};
			}
			c.addArchiveEntry(e, in);
		}
		try (ZipArchiveOutputStream z = new ZipArchiveOutputStream(archive)) {
			c.writeTo(z);
		}
		return "entries=" + files.size() + " " + c.getStatisticsMessage();
	}

	private static String commonsExtract(Path archive, Path out) throws IOException {
		int n = 0;
		try (ZipFile z = ZipFile.builder().setPath(archive).get()) {
			Enumeration<ZipArchiveEntry> en = z.getEntries();
			byte[] buf = new byte[1 << 16];
			while (en.hasMoreElements()) {
				ZipArchiveEntry e = en.nextElement();
				Path t = out.resolve(e.getName()).normalize();
				if (!t.startsWith(out) || e.isUnixSymlink()) {
					continue;
				}
				if (e.isDirectory()) {
					Files.createDirectories(t);
					continue;
				}
				Files.createDirectories(t.getParent());
				try (InputStream in = z.getInputStream(e); OutputStream o = Files.newOutputStream(t)) {
					int k;
					while ((k = in.read(buf)) > 0) {
						o.write(buf, 0, k);
					}
				}
				Files.setLastModifiedTime(t, e.getLastModifiedTime());
				n++;
			}
		}
		return "written=" + n;
	}
}

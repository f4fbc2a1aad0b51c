import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import com.sun.management.OperatingSystemMXBean;

import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.archive.ExtractPlan;
import dev.branchstate.archive.ExtractResult;

/**
 * A full restore of one state archive into an empty folder, the two ways a restore can keep a damaged entry from
 * leaving a half-restored target (issue 13): every entry checked before anything is written (plan, verify, extract),
 * or each entry checked as it is written, the folder emptied again on a failure (the verify leaves the entries of an
 * empty target to the extraction: {@link ExtractOptions#withEmptyTargetsCheckedWhileWritten}). The rounds alternate
 * the order. Usage: {@code FullRestoreChecks <archive> <work folder> <rounds> [cold]}: with {@code cold}, the page
 * cache is dropped before each case (root only), so that the archive is read from the disk.
 */
public final class FullRestoreChecks {

	public static void main(String[] args) throws Exception {
		Path archive = Path.of(args[0]);
		Path work = Path.of(args[1]);
		int rounds = Integer.parseInt(args[2]);
		boolean cold = args.length > 3 && args[3].equals("cold");
		Archives.prepare();
		OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
		try (ArchiveReader reader = Archives.open(archive)) {
			for (int round = 0; round < rounds; round++) {
				boolean[] order = round % 2 == 0 ? new boolean[] { false, true } : new boolean[] { true, false };
				for (boolean whileWritten : order) {
					Path target = work.resolve("target");
					deleteTree(target);
					Files.createDirectories(target);
					sync();
					if (cold) {
						Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
					}
					long cpu0 = os.getProcessCpuTime();
					long t0 = System.nanoTime();
					ExtractOptions options = ExtractOptions.defaults().withDifferential(true);
					ExtractPlan plan = reader.plan(target, options);
					reader.verify(List.of(""), List.of(plan),
							ExtractOptions.defaults().withEmptyTargetsCheckedWhileWritten(whileWritten));
					long t1 = System.nanoTime();
					ExtractResult result = reader.extract(target, options.withPlan(plan));
					long t2 = System.nanoTime();
					sync();
					long t3 = System.nanoTime();
					long cpu = os.getProcessCpuTime() - cpu0;
					System.out.printf("round %d, %-42s plan+verify %6d ms, extract %6d ms, sync %5d ms, total %6d ms,"
							+ " CPU %6d ms, %d files written%n", round + 1,
							whileWritten ? "each entry checked as it is written:" : "every entry checked before writing:",
							(t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000,
							(t3 - t0) / 1_000_000, cpu / 1_000_000, result.writtenCount());
				}
			}
		}
		deleteTree(work.resolve("target"));
	}

	private static void sync() throws IOException, InterruptedException {
		new ProcessBuilder("sync").inheritIO().start().waitFor();
	}

	private static void deleteTree(Path root) throws IOException {
		if (!Files.exists(root)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(root)) {
			for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.delete(p);
			}
		}
	}
}

import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.Archives;

/**
 * The heap an open state archive keeps per entry: its index of the central directory and the name order a restore
 * looks entries up by. Live heap after full GCs, before and after opening; one archive per run (a fresh JVM).
 */
public class HeapPerEntry {

	private static long live() throws InterruptedException {
		for (int i = 0; i < 4; i++) {
			System.gc();
			Thread.sleep(100);
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	public static void main(String[] args) throws Exception {
		long before = live();
		long t = System.nanoTime();
		try (ArchiveReader reader = Archives.open(Path.of(args[0]))) {
			long openMs = (System.nanoTime() - t) / 1_000_000;
			reader.entries("no such prefix/"); // the name order, made on first lookup
			long after = live();
			int n = reader.entries().size(); // (the API's entry list: made on demand, after the measure)
			System.out.printf("%s: %d entries, opened in %d ms, index %d MB, %d bytes per entry%n", args[0], n, openMs,
					(after - before) >> 20, (after - before) / n);
		}
	}
}

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
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

	/** @return the sum of the heap pools' peaks since the last {@link #resetPeaks()} */
	private static long peak() {
		long sum = 0;
		for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
			if (pool.getType() == MemoryType.HEAP) {
				sum += pool.getPeakUsage().getUsed();
			}
		}
		return sum;
	}

	private static void resetPeaks() {
		ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
	}

	public static void main(String[] args) throws Exception {
		long before = live();
		resetPeaks();
		long t = System.nanoTime();
		try (ArchiveReader reader = Archives.open(Path.of(args[0]))) {
			long openMs = (System.nanoTime() - t) / 1_000_000;
			long peak = peak(); // (a sum of the pools' peaks: an upper bound of the heap's peak)
			long after = live();
			int n = reader.entries().size(); // (the API's entry list: made on demand, after the measure)
			System.out.printf("%s: %d entries, opened in %d ms, index %d MB, %d bytes per entry; heap while opening"
					+ " at most %d MB above the start%n", args[0], n, openMs, (after - before) >> 20, (after - before) / n,
					(peak - before) >> 20);
		}
	}
}

package dev.branchstate.archive.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.branchstate.archive.ArchiveCanceledException;
import dev.branchstate.archive.ArchiveException;

/**
 * The worker threads of one archive write or one extraction, and what their tasks share: the first failure, the
 * cancel check, one zstd context per thread, the count of tasks run. The writer and the extractor each make one per
 * run and close it at the end of the run, in every case.
 *
 * <p>
 * The first failure wins: a task that fails after it, or any task once the run is canceled or closed, runs in
 * {@linkplain Task skip mode} and only gives back what it holds. The calling thread sees the failure at its next
 * {@link #checkCanceled()} or wait.
 *
 * @param <C> the per-thread zstd context ({@code ZstdCompressCtx} or {@code ZstdDecompressCtx}): created on a
 *            thread's first use, closed by {@link #close()} once no task runs (closing one in use crashes the JVM)
 */
final class WorkerPool<C extends AutoCloseable> implements AutoCloseable {

	/** The work of one task. */
	@FunctionalInterface
	interface Task {
		/**
		 * @param skip the run has failed, was canceled or is closed: give back what the task holds (buffers,
		 *             temporary files) and do nothing else
		 */
		void run(boolean skip) throws IOException;
	}

	/** Makes what a task threw the failure of the run: an {@link ArchiveException} naming the entry, in most cases. */
	@FunctionalInterface
	interface Failures {
		Throwable wrap(Throwable thrown, EntryRecord entry);
	}

	private final Path archive;
	private final String what;
	private final BooleanSupplier canceled;
	private final Supplier<C> newContext;
	private final Failures failures;
	private final ExecutorService ownPool;
	private final Executor executor;
	private final AtomicReference<Throwable> failure = new AtomicReference<>();
	private final AtomicInteger active = new AtomicInteger();
	private final Map<Thread, C> contexts = new ConcurrentHashMap<>();
	private final Semaphore tasksDone = new Semaphore(0);
	private long tasks;
	private volatile boolean closed;

	/**
	 * @param archive    the archive written or read, named in messages
	 * @param what       the run in messages and thread names: "archive write", "extraction"
	 * @param given      the executor to run the tasks on, or {@code null} for a pool of {@code workers} daemon
	 *                   threads of its own, shut down by {@link #close()}
	 * @param canceled   whether the user canceled the run
	 * @param newContext a zstd context for a thread that has none yet
	 * @param failures   how a task's exception becomes the run's failure
	 */
	WorkerPool(Path archive, String what, Executor given, int workers, BooleanSupplier canceled,
			Supplier<C> newContext, Failures failures) {
		this.archive = archive;
		this.what = what;
		this.canceled = canceled;
		this.newContext = newContext;
		this.failures = failures;
		if (given != null) {
			this.ownPool = null;
			this.executor = given;
		} else {
			String name = "branchstate-" + what.replace(' ', '-') + "-";
			this.ownPool = Executors.newFixedThreadPool(workers, Thread.ofPlatform().name(name, 1).daemon().factory());
			this.executor = ownPool;
		}
	}

	/** Runs {@code task} on a worker; what it throws becomes the run's failure, naming {@code entry}. */
	void execute(EntryRecord entry, Task task) {
		tasks++;
		try {
			executor.execute(() -> {
				active.incrementAndGet();
				try {
					boolean skip = closed || failure.get() != null;
					if (!skip && canceled.getAsBoolean()) {
						fail(new ArchiveCanceledException(what + " canceled: " + archive));
						skip = true;
					}
					task.run(skip);
				} catch (Throwable t) {
					fail(failures.wrap(t, entry));
				} finally {
					active.decrementAndGet();
					tasksDone.release();
				}
			});
		} catch (RuntimeException e) {
			fail(new ArchiveException("executor rejected a task: " + e, archive, entry == null ? null : entry.name(), -1,
					e));
			tasksDone.release();
		}
	}

	/** @return the calling worker's zstd context */
	C context() {
		return contexts.computeIfAbsent(Thread.currentThread(), t -> newContext.get());
	}

	/** Records {@code t} as the run's failure, unless one is recorded already. */
	void fail(Throwable t) {
		failure.compareAndSet(null, t);
	}

	/** @return the run's first failure, or {@code null} */
	Throwable failure() {
		return failure.get();
	}

	/** @return whether work should stop: the run failed or the user canceled it */
	boolean stopping() {
		return failure.get() != null || canceled.getAsBoolean();
	}

	/** Throws the run's failure, or a cancel when the user canceled or the calling thread was interrupted. */
	void checkCanceled() throws IOException {
		Throwable f = failure.get();
		if (f != null) {
			throw f instanceof IOException io ? io : new ArchiveException(what + " failed: " + f, archive, null, -1, f);
		}
		if (canceled.getAsBoolean() || Thread.currentThread().isInterrupted()) {
			throw new ArchiveCanceledException(what + " canceled: " + archive);
		}
	}

	/** Waits until every task executed so far has run, checking for failure and cancel while it waits. */
	void awaitTasks() throws IOException {
		long need = tasks;
		tasks = 0;
		await(tasksDone, need);
	}

	/** Waits until every task executed so far has run, whatever happens: for the clean-up after a failure. */
	void awaitTasksQuietly() {
		long need = tasks;
		tasks = 0;
		boolean interrupted = Thread.interrupted();
		while (need > 0) {
			try {
				need -= take(tasksDone, need);
			} catch (InterruptedException e) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Waits for {@code count} permits of {@code done}, released as units of work finish, checking for failure and
	 * cancel every 20 ms.
	 */
	void await(Semaphore done, long count) throws IOException {
		long need = count;
		try {
			while (need > 0) {
				need -= take(done, need);
				if (need > 0) {
					checkCanceled();
				}
			}
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw interrupted();
		}
		checkCanceled();
	}

	/** @return the cancel of a run whose calling thread was interrupted while it waited */
	ArchiveCanceledException interrupted() {
		return new ArchiveCanceledException(what + " interrupted: " + archive);
	}

	/** @return how many of the {@code need} permits were taken within 20 ms: all of them, or those available */
	private static long take(Semaphore s, long need) throws InterruptedException {
		int n = (int) Math.min(need, Integer.MAX_VALUE);
		return s.tryAcquire(n, 20, TimeUnit.MILLISECONDS) ? n : s.drainPermits();
	}

	/**
	 * Makes later tasks skip, waits until no task runs, shuts down the pool of its own and closes the zstd contexts.
	 * An interrupt stops the wait and stays set.
	 */
	@Override
	public void close() {
		closed = true;
		while (active.get() != 0) {
			try {
				Thread.sleep(1);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		if (ownPool != null) {
			ownPool.shutdown();
		}
		if (active.get() == 0) {
			for (C c : contexts.values()) {
				try {
					c.close();
				} catch (Exception e) {
					// a zstd context's close releases native memory and throws nothing
				}
			}
			contexts.clear();
		}
	}
}

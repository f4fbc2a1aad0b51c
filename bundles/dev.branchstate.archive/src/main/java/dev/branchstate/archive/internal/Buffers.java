package dev.branchstate.archive.internal;

import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * At most {@code count} sets of buffers of one run, reused: what bounds the memory of a write or an extraction
 * ({@link dev.branchstate.archive.WriteOptions#buffers()}). The calling thread takes a set before it submits a task;
 * the task, or the unit it makes, gives it back.
 *
 * @param <B> a set of buffers
 */
final class Buffers<B> {

	private final Semaphore permits;
	private final ConcurrentLinkedQueue<B> free = new ConcurrentLinkedQueue<>();
	private final Supplier<B> make;

	Buffers(int count, Supplier<B> make) {
		this.permits = new Semaphore(count);
		this.make = make;
	}

	/**
	 * Waits for a free set, checking the run for failure and cancel while it waits and once it has one.
	 *
	 * @throws IOException the run's failure, or its cancel
	 */
	B take(WorkerPool<?> run) throws IOException {
		try {
			while (!permits.tryAcquire(20, TimeUnit.MILLISECONDS)) {
				run.checkCanceled();
			}
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
			throw run.interrupted();
		}
		try {
			run.checkCanceled();
		} catch (IOException | RuntimeException e) {
			permits.release();
			throw e;
		}
		B b = free.poll();
		return b != null ? b : make.get();
	}

	/** Gives back a set taken by {@link #take}; {@code null} is ignored. */
	void giveBack(B b) {
		if (b != null) {
			free.add(b);
			permits.release();
		}
	}

	/** Drops the free sets (direct buffers: freed with their last reference). */
	void clear() {
		free.clear();
	}
}

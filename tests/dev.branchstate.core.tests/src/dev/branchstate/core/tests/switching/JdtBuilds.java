package dev.branchstate.core.tests.switching;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.eclipse.jdt.core.IJavaProject;
import org.eclipse.jdt.core.compiler.BuildContext;
import org.eclipse.jdt.core.compiler.CompilationParticipant;

/**
 * A JDT compilation participant for the tests: it records every compilation unit JDT's builder compiles (the
 * reliable count of "units compiled"), and, once {@link #hold() held}, stops the next build that compiles something
 * just before it compiles, until {@link #release()} — a test can then check out another branch while a build runs.
 */
public final class JdtBuilds extends CompilationParticipant {

	private static final List<String> COMPILED = new ArrayList<>();
	private static volatile CountDownLatch entered;
	private static volatile CountDownLatch released;

	/** @return the project-relative paths of the units compiled since the last call, and forgets them */
	static List<String> takeCompiled() {
		synchronized (COMPILED) {
			List<String> units = List.copyOf(COMPILED);
			COMPILED.clear();
			return units;
		}
	}

	/** Holds the next build that compiles; {@link #awaitHeld()} returns once it waits. */
	static void hold() {
		entered = new CountDownLatch(1);
		released = new CountDownLatch(1);
	}

	static void awaitHeld() throws InterruptedException {
		if (!entered.await(60, TimeUnit.SECONDS)) {
			throw new AssertionError("no JDT build started within 60 s");
		}
	}

	static void release() {
		CountDownLatch latch = released;
		entered = null;
		if (latch != null) {
			latch.countDown();
		}
	}

	@Override
	public boolean isActive(IJavaProject project) {
		return true;
	}

	@Override
	public void buildStarting(BuildContext[] files, boolean isBatch) {
		synchronized (COMPILED) {
			for (BuildContext file : files) {
				COMPILED.add(file.getFile().getProjectRelativePath().toString());
			}
		}
		CountDownLatch in = entered;
		CountDownLatch out = released;
		if (in == null || out == null || files.length == 0) {
			return;
		}
		in.countDown();
		try {
			out.await(60, TimeUnit.SECONDS);
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}
}

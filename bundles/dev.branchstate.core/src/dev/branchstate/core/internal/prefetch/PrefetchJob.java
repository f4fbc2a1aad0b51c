package dev.branchstate.core.internal.prefetch;

import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.core.runtime.IStatus;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.core.runtime.jobs.Job;

import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;
import dev.branchstate.core.internal.service.StateService;

/**
 * Prefetches the states of the repositories whose remote-tracking branches moved ({@link RepositoryPrefetch}), as a
 * system job of the lowest priority. It never runs beside other work: while any other job runs or waits (a build, a
 * switch, a refresh, an indexer) it comes back later, with growing delays, as long as there is work left; and a build
 * or a switch that begins while it runs cancels it ({@link #userWork()}), which leaves the tips it did not handle to
 * its next run, scheduled then. A download cut short enters nothing.
 */
final class PrefetchJob extends Job {

	private static final long FIRST_DELAY_MS = 500;
	private static final long MAX_DELAY_MS = 5_000;

	private final StateService service;
	private final Supplier<List<Prefetcher.Followed>> repositories;
	private final SeenTips seen;
	private final PrefetchLedger ledger;
	private volatile int attempts;

	/** @param repositories the repositories with open projects, found again at each run */
	PrefetchJob(StateService service, Supplier<List<Prefetcher.Followed>> repositories, SeenTips seen,
			PrefetchLedger ledger) {
		super(Messages.Prefetch_jobName);
		this.service = service;
		this.repositories = repositories;
		this.seen = seen;
		this.ledger = ledger;
		setSystem(true);
		setPriority(Job.DECORATE);
	}

	@Override
	public boolean belongsTo(Object family) {
		return family == Prefetcher.FAMILY;
	}

	/** Remote-tracking refs moved: a run soon. */
	void request() {
		attempts = 0;
		schedule(FIRST_DELAY_MS);
	}

	/** A build or a switch begins: a prefetch in progress stops, and comes back once the IDE is quiet. */
	void userWork() {
		if (getState() == Job.RUNNING) {
			cancel();
		}
	}

	@Override
	protected IStatus run(IProgressMonitor monitor) {
		if (othersBusy()) {
			later();
			return Status.OK_STATUS;
		}
		List<Prefetcher.Followed> followed = repositories.get();
		SubMonitor progress = SubMonitor.convert(monitor, Messages.Prefetch_jobName, followed.size());
		try {
			for (Prefetcher.Followed f : followed) {
				try {
					new RepositoryPrefetch(service, f.repository(), f.gitDir(), seen, ledger).run(progress.split(1));
				} catch (IOException e) {
					Log.warning(Messages.bind(Messages.Prefetch_failed, f.gitDir(), e.getMessage()), e);
				}
			}
			return Status.OK_STATUS;
		} catch (OperationCanceledException e) {
			later(); // what was not handled is still moved: the next run takes it
			return Status.CANCEL_STATUS;
		}
	}

	/** Comes back later, with a longer delay each time. */
	private void later() {
		int attempt = Math.min(attempts++, 10);
		schedule(Math.min(MAX_DELAY_MS, FIRST_DELAY_MS << attempt));
	}

	/** @return whether another job is running or waiting to run (user work, a build, a switch, an indexer) */
	private boolean othersBusy() {
		for (Job job : Job.getJobManager().find(null)) {
			if (job != this && (job.getState() == Job.RUNNING || job.getState() == Job.WAITING)) {
				return true;
			}
		}
		return false;
	}
}

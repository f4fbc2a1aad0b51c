package dev.branchstate.ui.internal.views;

import java.io.File;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;

import dev.branchstate.core.internal.prefetch.Prefetcher;
import dev.branchstate.ui.internal.UiLog;

/**
 * What the view shows of the prefetch, read from core's prefetcher (a friend's internal service, absent in a product
 * without it): which local states were prefetched and not restored yet, and what the prefetch uses of its budget.
 * Off the display thread: it reads a small file.
 */
final class PrefetchedStates {

	private PrefetchedStates() {
	}

	/** @return the commits of the repository whose states were prefetched and not restored yet */
	static Set<String> of(File gitDir) {
		return call(p -> p.ledger().commits(gitDir)).orElse(Set.of());
	}

	/** @return what the prefetch uses of its budget, if the prefetcher runs */
	static Optional<Prefetcher.BudgetUse> budgetUse() {
		return call(Prefetcher::budgetUse);
	}

	private interface Query<T> {
		T ask(Prefetcher prefetcher) throws IOException;
	}

	private static <T> Optional<T> call(Query<T> query) {
		Bundle bundle = FrameworkUtil.getBundle(PrefetchedStates.class);
		BundleContext context = bundle == null ? null : bundle.getBundleContext();
		ServiceReference<Prefetcher> reference = context == null ? null : context.getServiceReference(Prefetcher.class);
		if (reference == null) {
			return Optional.empty();
		}
		try {
			Prefetcher prefetcher = context.getService(reference);
			return prefetcher == null ? Optional.empty() : Optional.of(query.ask(prefetcher));
		} catch (IOException | RuntimeException e) {
			UiLog.warning(e.getMessage(), e);
			return Optional.empty();
		} finally {
			context.ungetService(reference);
		}
	}
}

package dev.branchstate.core.tests.switching;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.eclipse.core.resources.IWorkspace;
import org.eclipse.core.resources.IWorkspaceDescription;
import org.eclipse.core.resources.ResourcesPlugin;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.Platform;
import org.eclipse.core.runtime.jobs.Job;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.util.tracker.ServiceTracker;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.internal.switching.SwitchManager;

/**
 * The switch manager that Declarative Services started, the real state service, and the state events about the
 * test's repositories.
 */
final class SwitchHarness implements AutoCloseable {

	private static final long TIMEOUT_MS = 60_000;

	final IWorkspace workspace = ResourcesPlugin.getWorkspace();
	final IStateService service;
	private final List<StateEvent> events = new ArrayList<>();
	private final IStateListener listener = this::record;
	private SwitchManager manager;

	SwitchHarness() throws Exception {
		Platform.getBundle("dev.branchstate.core").start(Bundle.START_TRANSIENT);
		service = service(IStateService.class, TIMEOUT_MS);
		manager = service(SwitchManager.class, TIMEOUT_MS);
		if (service == null || manager == null) {
			throw new IllegalStateException("the state service or the switch manager is not running");
		}
		service.addStateListener(listener);
	}

	private static <S> S service(Class<S> type, long timeoutMs) throws InterruptedException {
		BundleContext context = FrameworkUtil.getBundle(SwitchHarness.class).getBundleContext();
		ServiceTracker<S, S> tracker = new ServiceTracker<>(context, type, null);
		tracker.open();
		try {
			return tracker.waitForService(timeoutMs);
		} finally {
			tracker.close();
		}
	}

	SwitchManager manager() {
		return manager;
	}

	/** Stops switch detection, as when Eclipse is closed (the component is disabled). */
	void stopManager() throws Exception {
		scr(false);
		manager = null;
	}

	/** Starts switch detection again, as when Eclipse starts. */
	void startManager() throws Exception {
		scr(true);
		manager = service(SwitchManager.class, TIMEOUT_MS);
		manager.track();
	}

	private static void scr(boolean enable) throws Exception {
		ServiceComponentRuntime scr = service(ServiceComponentRuntime.class, TIMEOUT_MS);
		Bundle core = Platform.getBundle("dev.branchstate.core");
		ComponentDescriptionDTO description = scr.getComponentDescriptionDTO(core, SwitchManager.class.getName());
		(enable ? scr.enableComponent(description) : scr.disableComponent(description)).getValue();
	}

	private void record(StateEvent event) {
		synchronized (events) {
			events.add(event);
			events.notifyAll();
		}
	}

	/** @return the events about the repository since the last call, and forgets them */
	List<StateEvent> takeEvents(File gitDir) {
		synchronized (events) {
			List<StateEvent> mine = events.stream().filter(e -> same(e.gitDir(), gitDir)).toList();
			events.removeAll(mine);
			return mine;
		}
	}

	/** Waits (bounded) until an event about the repository matches. */
	StateEvent awaitEvent(File gitDir, Predicate<StateEvent> condition) throws InterruptedException {
		long deadline = System.currentTimeMillis() + TIMEOUT_MS;
		synchronized (events) {
			while (true) {
				for (StateEvent event : events) {
					if (same(event.gitDir(), gitDir) && condition.test(event)) {
						return event;
					}
				}
				long left = deadline - System.currentTimeMillis();
				if (left <= 0) {
					throw new AssertionError("no such event within " + TIMEOUT_MS + " ms; events: " + events);
				}
				events.wait(left);
			}
		}
	}

	static boolean same(File a, File b) {
		return a != null && b != null && a.getAbsoluteFile().toPath().normalize()
				.equals(b.getAbsoluteFile().toPath().normalize());
	}

	void autoBuild(boolean on) throws CoreException {
		IWorkspaceDescription description = workspace.getDescription();
		description.setAutoBuilding(on);
		workspace.setDescription(description);
	}

	/**
	 * Waits (bounded) until no switch job, refresh (JDT's touch of projects whose libraries changed among them),
	 * auto-build or manual build is pending.
	 */
	static void awaitQuiet() throws InterruptedException {
		long deadline = System.currentTimeMillis() + TIMEOUT_MS;
		Object[] families = { SwitchManager.FAMILY, ResourcesPlugin.FAMILY_AUTO_REFRESH,
				ResourcesPlugin.FAMILY_MANUAL_REFRESH, ResourcesPlugin.FAMILY_AUTO_BUILD,
				ResourcesPlugin.FAMILY_MANUAL_BUILD };
		boolean busy = true;
		while (busy) {
			busy = false;
			for (Object family : families) {
				for (Job job : Job.getJobManager().find(family)) {
					busy = true;
					long left = deadline - System.currentTimeMillis();
					if (left <= 0 || !job.join(left, null)) {
						throw new AssertionError("still running after " + TIMEOUT_MS + " ms: " + job);
					}
				}
			}
		}
	}

	@Override
	public void close() {
		service.removeStateListener(listener);
	}

}

package dev.branchstate.core.tests.switching;

import java.io.File;
import java.nio.file.Path;
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
 * The switch manager under test and the state events it caused. Uses the real state service and the switch
 * manager that Declarative Services started when a real {@link IStateService} is registered; otherwise (while the
 * state engine is not there yet) a {@link FakeStateService} and a switch manager made here.
 */
final class SwitchHarness implements AutoCloseable {

	private static final long TIMEOUT_MS = 60_000;

	final IWorkspace workspace = ResourcesPlugin.getWorkspace();
	final IStateService service;
	final boolean real;
	private final Path headsFile;
	private final List<StateEvent> events = new ArrayList<>();
	private final IStateListener listener = this::record;
	private SwitchManager manager;

	SwitchHarness(Path scratch) throws Exception {
		Bundle core = Platform.getBundle("dev.branchstate.core");
		core.start(Bundle.START_TRANSIENT);
		IStateService found = service(IStateService.class, 5_000);
		real = found != null;
		headsFile = scratch.resolve("heads.properties");
		if (real) {
			service = found;
			manager = service(SwitchManager.class, TIMEOUT_MS);
			if (manager == null) {
				throw new IllegalStateException("the state service runs but the switch manager does not");
			}
		} else {
			service = new FakeStateService(workspace);
			manager = new SwitchManager(service, workspace, headsFile);
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

	/** Stops switch detection, as when Eclipse is closed. */
	void stopManager() throws Exception {
		if (real) {
			scr(false);
		} else {
			manager.close();
		}
		manager = null;
	}

	/** Starts switch detection again, as when Eclipse starts. */
	void startManager() throws Exception {
		if (real) {
			scr(true);
			manager = service(SwitchManager.class, TIMEOUT_MS);
		} else {
			manager = new SwitchManager(service, workspace, headsFile);
		}
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

	/** Waits (bounded) until no switch job, auto-build or manual build is pending. */
	static void awaitQuiet() throws InterruptedException {
		long deadline = System.currentTimeMillis() + TIMEOUT_MS;
		Object[] families = { SwitchManager.FAMILY, ResourcesPlugin.FAMILY_AUTO_REFRESH,
				ResourcesPlugin.FAMILY_AUTO_BUILD, ResourcesPlugin.FAMILY_MANUAL_BUILD };
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
		if (!real && manager != null) {
			manager.close();
		}
	}

}

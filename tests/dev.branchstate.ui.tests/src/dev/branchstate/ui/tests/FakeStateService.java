package dev.branchstate.ui.tests;

import java.io.File;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.core.resources.IProject;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceRegistration;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;
import dev.branchstate.core.StateInfo;

/**
 * An in-memory {@link IStateService} registered with a high ranking, so that the view can be tested with states of
 * chosen sizes, dates and contributors, and events fired at will. A dynamic proxy, so that methods the real API
 * adds later do not break the tests (they throw when called).
 */
final class FakeStateService implements AutoCloseable {

	private final List<StateInfo> states = new CopyOnWriteArrayList<>();
	private final List<IStateListener> listeners = new CopyOnWriteArrayList<>();
	private final List<File> repositories = new CopyOnWriteArrayList<>();
	private final List<String> restored = new CopyOnWriteArrayList<>();
	private final IStateService proxy;
	private ServiceRegistration<IStateService> registration;

	FakeStateService() {
		proxy = (IStateService) Proxy.newProxyInstance(IStateService.class.getClassLoader(),
				new Class<?>[] { IStateService.class }, (p, method, args) -> switch (method.getName()) {
					case "repositoryOf" -> repositoryOf((IProject) args[0]);
					case "states" -> states.stream().filter(s -> s.gitDir().equals(args[0])).toList();
					case "allStates" -> List.copyOf(states);
					case "delete" -> {
						states.remove(args[0]);
						yield null;
					}
					case "addStateListener" -> listeners.add((IStateListener) args[0]);
					case "removeStateListener" -> listeners.remove(args[0]);
					case "restore" -> {
						restored.add((String) args[1]);
						yield null;
					}
					case "fireEvent" -> {
						fire((StateEvent) args[0]);
						yield null;
					}
					case "hashCode" -> System.identityHashCode(p);
					case "equals" -> p == args[0];
					case "toString" -> "FakeStateService";
					default -> throw new UnsupportedOperationException(method.getName());
				});
	}

	FakeStateService register() {
		BundleContext context = FrameworkUtil.getBundle(FakeStateService.class).getBundleContext();
		Dictionary<String, Object> properties = new Hashtable<>();
		properties.put(Constants.SERVICE_RANKING, Integer.valueOf(1000));
		registration = context.registerService(IStateService.class, proxy, properties);
		return this;
	}

	IStateService service() {
		return proxy;
	}

	void addRepository(File gitDir) {
		repositories.add(gitDir);
	}

	/** Adds a state (newest first, like the real catalog) without an event. */
	void add(StateInfo state) {
		states.add(0, state);
	}

	/** Tells the listeners, on a worker thread like the real service. */
	void fire(StateEvent event) {
		Thread thread = new Thread(() -> new ArrayList<>(listeners).forEach(l -> l.stateChanged(event)),
				"fake state service");
		thread.start();
		try {
			thread.join();
		} catch (InterruptedException e) {
			Thread.currentThread().interrupt();
		}
	}

	/** @return the commits restore(…) was called for, in order */
	List<String> restored() {
		return List.copyOf(restored);
	}

	private Optional<File> repositoryOf(IProject project) {
		if (project.getLocation() == null) {
			return Optional.empty();
		}
		File location = project.getLocation().toFile();
		return repositories.stream().filter(dir -> location.toPath().startsWith(dir.getParentFile().toPath()))
				.findFirst();
	}

	@Override
	public void close() {
		if (registration != null) {
			registration.unregister();
			registration = null;
		}
	}
}

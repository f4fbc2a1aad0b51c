package dev.branchstate.ui.internal;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.Status;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;
import org.osgi.util.tracker.ServiceTrackerCustomizer;

import dev.branchstate.core.IStateListener;
import dev.branchstate.core.IStateService;
import dev.branchstate.core.StateEvent;

/**
 * The UI's access to the core {@link IStateService}, an OSGi service that may come and go (or never come, when the
 * core bundle failed).
 * <p>
 * UI listeners subscribe here rather than on a service instance: they hear the events of the service {@link #get()}
 * answers (the highest ranking one, whose states the UI shows), whichever it is now, and are told when the
 * availability changes.
 * <p>
 * One {@link ServiceTracker}, opened on first use; the framework drops its service listener when this bundle stops
 * (the UI bundle has no activator, on purpose: nothing here is worth starting eagerly).
 */
public final class StateServices {

	/** A subscriber: told of state events and of the service appearing or leaving. */
	public interface Subscriber extends IStateListener {

		/** Called on an arbitrary thread when a state service was registered or unregistered. */
		default void availabilityChanged() {
		}
	}

	private static final CopyOnWriteArrayList<Subscriber> SUBSCRIBERS = new CopyOnWriteArrayList<>();

	/** The listener added to each tracked service: it forwards the events of the service {@link #get()} answers. */
	private static final Map<IStateService, IStateListener> DISPATCHERS = new ConcurrentHashMap<>();

	private static ServiceTracker<IStateService, IStateService> tracker;

	private StateServices() {
	}

	/** @return the state service with the highest ranking, if one is registered */
	public static Optional<IStateService> get() {
		ServiceTracker<IStateService, IStateService> t = tracker();
		return t == null ? Optional.empty() : Optional.ofNullable(t.getService());
	}

	/** @return the state service; throws a {@link CoreException} with a message for the user when there is none */
	public static IStateService require() throws CoreException {
		return get().orElseThrow(() -> new CoreException(Status.error(Messages.Service_notAvailable)));
	}

	public static void subscribe(Subscriber subscriber) {
		SUBSCRIBERS.addIfAbsent(subscriber);
		tracker();
	}

	public static void unsubscribe(Subscriber subscriber) {
		SUBSCRIBERS.remove(subscriber);
	}

	private static void dispatch(IStateService source, StateEvent event) {
		if (get().orElse(null) != source) {
			return; // a service the UI does not show (outranked): its events would not match the view's content
		}
		for (Subscriber s : SUBSCRIBERS) {
			try {
				s.stateChanged(event);
			} catch (RuntimeException e) {
				UiLog.error(Messages.Log_listenerFailed, e);
			}
		}
	}

	private static void availabilityChanged() {
		for (Subscriber s : SUBSCRIBERS) {
			try {
				s.availabilityChanged();
			} catch (RuntimeException e) {
				UiLog.error(Messages.Log_listenerFailed, e);
			}
		}
	}

	private static synchronized ServiceTracker<IStateService, IStateService> tracker() {
		if (tracker == null) {
			Bundle bundle = FrameworkUtil.getBundle(StateServices.class);
			BundleContext context = bundle == null ? null : bundle.getBundleContext();
			if (context == null) {
				return null; // not running inside OSGi, or this bundle is stopping
			}
			tracker = new ServiceTracker<>(context, IStateService.class, new ServiceTrackerCustomizer<>() {
				@Override
				public IStateService addingService(ServiceReference<IStateService> reference) {
					IStateService service = context.getService(reference);
					if (service != null) {
						IStateListener dispatcher = event -> dispatch(service, event);
						DISPATCHERS.put(service, dispatcher);
						service.addStateListener(dispatcher);
						StateServices.availabilityChanged();
					}
					return service;
				}

				@Override
				public void modifiedService(ServiceReference<IStateService> reference, IStateService service) {
					// ranking changed: get() already answers the new best
				}

				@Override
				public void removedService(ServiceReference<IStateService> reference, IStateService service) {
					try {
						IStateListener dispatcher = DISPATCHERS.remove(service);
						if (dispatcher != null) {
							service.removeStateListener(dispatcher);
						}
					} finally {
						context.ungetService(reference);
						StateServices.availabilityChanged();
					}
				}
			});
			// the notices from the first use of the service on, even when early start-up has not run (yet)
			SUBSCRIBERS.addIfAbsent(StateEventNotifier.INSTANCE);
			tracker.open();
		}
		return tracker;
	}
}

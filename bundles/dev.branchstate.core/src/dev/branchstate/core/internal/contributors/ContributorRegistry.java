package dev.branchstate.core.internal.contributors;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.IConfigurationElement;
import org.eclipse.core.runtime.IExtension;
import org.eclipse.core.runtime.IExtensionPoint;
import org.eclipse.core.runtime.IExtensionRegistry;
import org.eclipse.core.runtime.IPath;
import org.eclipse.core.runtime.IRegistryEventListener;
import org.eclipse.core.runtime.ISafeRunnable;
import org.eclipse.core.runtime.OperationCanceledException;
import org.eclipse.core.runtime.SafeRunner;
import org.eclipse.core.runtime.Status;
import org.eclipse.core.runtime.jobs.Job;
import org.eclipse.osgi.util.NLS;

import dev.branchstate.core.IStateContributor;
import dev.branchstate.core.internal.Log;
import dev.branchstate.core.internal.Messages;

/**
 * Reads the extension point {@code dev.branchstate.core.contributors} on first use and caches the descriptors
 * (re-read when extensions come or go). Each contributor class is instantiated on first use, through
 * {@link SafeRunner}; one that cannot be created is logged once and left out. Contributors may also be registered
 * in code (tests, optional bundles of this product).
 */
public final class ContributorRegistry implements IRegistryEventListener {

	public static final String POINT_ID = "dev.branchstate.core.contributors"; //$NON-NLS-1$
	static final int DEFAULT_PRIORITY = 100;

	private final IExtensionRegistry registry;
	private final List<Descriptor> registered = new CopyOnWriteArrayList<>();
	private volatile Extensions fromExtensions;

	/** What the extensions declare: the contributors, and the builders whose whole output is problem markers. */
	private record Extensions(List<Descriptor> contributors, Set<String> markerBuilders) {
	}

	/** One contributor: its id, name, priority and (created lazily) implementation. */
	public static final class Descriptor {
		private final String id;
		private final String name;
		private final int priority;
		private final String origin;
		private final IConfigurationElement element;
		private final ContributorRegistry owner;
		private volatile IStateContributor contributor;
		private volatile boolean broken;

		Descriptor(ContributorRegistry owner, String id, String name, int priority, String origin,
				IConfigurationElement element, IStateContributor contributor) {
			this.owner = owner;
			this.id = id;
			this.name = name;
			this.priority = priority;
			this.origin = origin;
			this.element = element;
			this.contributor = contributor;
		}

		public String id() {
			return id;
		}

		public String name() {
			return name;
		}

		public int priority() {
			return priority;
		}

		/** @return the bundle that contributes it */
		public String origin() {
			return origin;
		}

		/** @return the implementation, or empty if it cannot be created (logged once) */
		public synchronized Optional<IStateContributor> contributor() {
			if (contributor == null && !broken) {
				Object[] created = new Object[1];
				SafeRunner.run(new ISafeRunnable() {
					@Override
					public void run() throws Exception {
						created[0] = element.createExecutableExtension("class"); //$NON-NLS-1$
					}

					@Override
					public void handleException(Throwable e) {
						// logged by SafeRunner
					}
				});
				if (created[0] instanceof IStateContributor c) {
					if (c instanceof DerivedResourcesContributor derived) {
						derived.foldersNamedBy(owner);
					}
					contributor = c;
				} else {
					broken = true;
					Log.log(Status.error(NLS.bind(Messages.Contributors_invalid, id, origin)));
				}
			}
			return Optional.ofNullable(contributor);
		}

		@Override
		public String toString() {
			return id;
		}
	}

	public ContributorRegistry(IExtensionRegistry registry) {
		this.registry = registry;
		if (registry != null) {
			registry.addListener(this, POINT_ID);
		}
	}

	/** Stops listening to the extension registry. */
	public void dispose() {
		if (registry != null) {
			registry.removeListener(this);
		}
	}

	/** @return every contributor, lowest priority value first, then by id */
	public List<Descriptor> descriptors() {
		List<Descriptor> all = new ArrayList<>(extensions().contributors());
		all.addAll(registered);
		all.sort(Comparator.comparingInt(Descriptor::priority).thenComparing(Descriptor::id));
		return all;
	}

	/**
	 * @return the folders of the project that contributors name as derived ({@link IStateContributor#derivedFolders}),
	 *         project-relative, sorted; a contributor that fails to name them is logged and left out
	 */
	public List<IPath> derivedFolders(IProject project) {
		Set<IPath> result = new TreeSet<>(Comparator.comparing(IPath::toPortableString));
		for (Descriptor d : descriptors()) {
			Optional<IStateContributor> c = d.contributor();
			if (c.isEmpty() || c.get() instanceof DerivedResourcesContributor) {
				continue;
			}
			Outcome<Set<IPath>> named = safely(() -> c.get().appliesTo(project)
					? Set.copyOf(c.get().derivedFolders(project)) : Set.<IPath>of());
			if (named.ok()) {
				for (IPath folder : named.value()) {
					IPath relative = folder.makeRelative();
					if (!relative.isEmpty() && !folder.isAbsolute() && !relative.segments()[0].equals("..")) { //$NON-NLS-1$
						result.add(relative);
					}
				}
			}
		}
		return List.copyOf(result);
	}

	/**
	 * Tells the contributors that apply to any of {@code projects} that a switch of their repository begins (see
	 * {@link IStateContributor#switchStarting}), each through SafeRunner.
	 *
	 * @return what tells the same contributors, and only them, that the switch is handled: run it once
	 */
	public Runnable switchStarting(List<IProject> projects) {
		List<IStateContributor> told = new ArrayList<>();
		for (Descriptor descriptor : descriptors()) {
			descriptor.contributor().ifPresent(contributor -> SafeRunner.run(() -> {
				if (projects.stream().anyMatch(contributor::appliesTo)) {
					told.add(contributor);
					contributor.switchStarting(projects);
				}
			}));
		}
		return () -> told.forEach(contributor -> SafeRunner.run(() -> contributor.switchEnded(projects)));
	}

	/**
	 * @return the jobs that the contributors applying to the projects need to have run before a switch of them
	 *         ({@link IStateContributor#jobsBeforeSwitch}) and that are not done yet; a failing contributor is logged
	 *         and left out
	 */
	public List<Job> jobsBeforeSwitch(List<IProject> projects) {
		List<Job> jobs = new ArrayList<>();
		for (Descriptor descriptor : descriptors()) {
			descriptor.contributor().ifPresent(contributor -> SafeRunner.run(() -> {
				if (projects.stream().anyMatch(contributor::appliesTo)) {
					contributor.jobsBeforeSwitch(projects).stream().filter(job -> job.getState() != Job.NONE)
							.forEach(jobs::add);
				}
			}));
		}
		return jobs;
	}

	/**
	 * @return the first reason a contributor that applies to the project gives why it is not built
	 *         ({@link IStateContributor#whyNotBuilt}), in priority order; a contributor that fails to answer is logged
	 *         and left out
	 */
	public Optional<String> whyNotBuilt(IProject project) {
		for (Descriptor d : descriptors()) {
			Optional<IStateContributor> c = d.contributor();
			if (c.isEmpty()) {
				continue;
			}
			Outcome<Optional<String>> reason = safely(
					() -> c.get().appliesTo(project) ? c.get().whyNotBuilt(project) : Optional.<String>empty());
			if (reason.ok() && reason.value() != null && reason.value().isPresent()) {
				return reason.value();
			}
		}
		return Optional.empty();
	}

	public Optional<Descriptor> find(String id) {
		return descriptors().stream().filter(d -> d.id().equals(id)).findFirst();
	}

	/**
	 * Registers a contributor in code, for as long as the returned handle is not closed.
	 */
	public AutoCloseable register(String id, String name, int priority, IStateContributor contributor) {
		Descriptor d = new Descriptor(this, id, name, priority, "(registered in code)", null, contributor); //$NON-NLS-1$
		registered.add(d);
		return () -> registered.remove(d);
	}

	/**
	 * @return the ids of the builders that the extensions declare as keeping no state of their own, their whole output
	 *         being persistent problem markers ({@code <markerBuilder id="..."/>}): a restore that hands a project's
	 *         builder states over, and restored its markers, hands them the restored tree too
	 */
	public Set<String> markerBuilders() {
		return extensions().markerBuilders();
	}

	private Extensions extensions() {
		Extensions ext = fromExtensions;
		if (ext == null) {
			ext = read();
			fromExtensions = ext;
		}
		return ext;
	}

	private Extensions read() {
		if (registry == null) {
			return new Extensions(List.of(), Set.of());
		}
		IExtensionPoint point = registry.getExtensionPoint(POINT_ID);
		if (point == null) {
			return new Extensions(List.of(), Set.of());
		}
		List<Descriptor> result = new ArrayList<>();
		Set<String> markerBuilders = new TreeSet<>();
		for (IExtension extension : point.getExtensions()) {
			for (IConfigurationElement element : extension.getConfigurationElements()) {
				String origin = element.getContributor().getName();
				String id = element.getAttribute("id"); //$NON-NLS-1$
				if ("markerBuilder".equals(element.getName()) && id != null && !id.isBlank()) { //$NON-NLS-1$
					markerBuilders.add(id.trim());
					continue;
				}
				if (!"contributor".equals(element.getName()) || id == null || id.isBlank() //$NON-NLS-1$
						|| element.getAttribute("class") == null) { //$NON-NLS-1$
					Log.log(Status.error(NLS.bind(Messages.Contributors_invalid, id, origin)));
					continue;
				}
				String name = element.getAttribute("name"); //$NON-NLS-1$
				int priority = DEFAULT_PRIORITY;
				String p = element.getAttribute("priority"); //$NON-NLS-1$
				if (p != null) {
					try {
						priority = Integer.parseInt(p.trim());
					} catch (NumberFormatException e) {
						Log.log(Status.warning(NLS.bind(Messages.Contributors_invalid, id, origin), e));
					}
				}
				result.add(new Descriptor(this, id, name == null ? id : name, priority, origin, element, null));
			}
		}
		return new Extensions(List.copyOf(result), Set.copyOf(markerBuilders));
	}

	@Override
	public void added(IExtension[] extensions) {
		fromExtensions = null;
	}

	@Override
	public void removed(IExtension[] extensions) {
		fromExtensions = null;
	}

	@Override
	public void added(IExtensionPoint[] extensionPoints) {
		fromExtensions = null;
	}

	@Override
	public void removed(IExtensionPoint[] extensionPoints) {
		fromExtensions = null;
	}

	/** A value computed by a contributor call, or the failure it raised. */
	public record Outcome<T>(T value, Throwable failure) {
		public boolean ok() {
			return failure == null;
		}
	}

	/** Something a contributor does that may throw. */
	@FunctionalInterface
	public interface Call<T> {
		T call() throws Exception;
	}

	/**
	 * Runs one contributor call through {@link SafeRunner} (which logs the failure) and returns its outcome.
	 * Cancellation is not a failure: an {@link OperationCanceledException} is rethrown.
	 */
	public static <T> Outcome<T> safely(Call<T> call) {
		Object[] value = new Object[1];
		Throwable[] failure = new Throwable[1];
		SafeRunner.run(new ISafeRunnable() {
			@Override
			public void run() throws Exception {
				value[0] = call.call();
			}

			@Override
			public void handleException(Throwable e) {
				failure[0] = e;
			}
		});
		if (failure[0] instanceof OperationCanceledException oce) {
			throw oce;
		}
		@SuppressWarnings("unchecked")
		T v = (T) value[0];
		return new Outcome<>(v, failure[0]);
	}

	/**
	 * @return a WARNING status for a contributor's failure (the state or restore goes on without that contributor),
	 *         naming the failure's own message
	 */
	public static org.eclipse.core.runtime.IStatus statusOf(String message, Throwable failure) {
		String reason = failure instanceof CoreException ce ? ce.getStatus().getMessage() : String.valueOf(failure);
		return Status.warning(message + ": " + reason, failure); //$NON-NLS-1$
	}
}

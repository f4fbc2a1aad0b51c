package dev.branchstate.core.internal.remote;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;

import dev.branchstate.archive.Archives;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.store.StateStore;

/**
 * Publishes local states to an S3 store and fetches them into the local store, where a switch finds them as it finds
 * the states this IDE saved. Uses only the JDK, JGit and the store (no Eclipse runtime), so it runs the same in the
 * IDE, in the headless application and in tests.
 * <p>
 * Publish: the archive first (in parallel parts, under a key holding its SHA-256, only if absent), the signed manifest
 * last and only if absent: an interrupted upload leaves no manifest, and a reader sees only manifests. Fetch: the
 * manifest (bounded), its signature against the pinned key before anything else, then its fields against what was
 * asked; the archive in parallel range requests into a file beside the store's archives, never past the declared
 * size, hashed in order while the parts arrive; only when size and SHA-256 match is it renamed into place and entered
 * into the catalog. Whatever fails, nothing is entered and the file is deleted.
 */
public final class RemoteStates {

	/** Size of an upload part and of a download range. */
	static final int PART_SIZE = 8 * 1024 * 1024;
	/** Pages of 1,000 manifests listed at most when looking for the nearest published ancestor. */
	static final int MAX_LIST_PAGES = 10;

	private final S3Client client;
	private final RemoteLayout layout;
	private final int parallelism;

	public RemoteStates(S3Client client, int parallelism) {
		this.client = client;
		this.layout = new RemoteLayout(client.settings().prefix());
		this.parallelism = Math.max(1, parallelism);
	}

	/** What {@link #publish} did. */
	public record Published(StateManifest manifest, String manifestKey, boolean archiveUploaded,
			boolean alreadyPublished) {
	}

	/**
	 * Publishes a local state. A state saved with local changes is refused: its data is not the commit's.
	 *
	 * @return the manifest; {@code alreadyPublished} when a manifest for the commit existed (it is left as it was)
	 */
	public Published publish(StateInfo state, String repository, CompatibilityKey compatibility, PrivateKey key,
			String creator, BooleanSupplier canceled) throws IOException {
		if (!state.dirtyPaths().isEmpty()) {
			throw new IOException("the state of " + state.commitId() + " was saved with local changes (" //$NON-NLS-1$ //$NON-NLS-2$
					+ state.dirtyPaths().size() + " files, e.g. " + state.dirtyPaths().get(0) //$NON-NLS-1$
					+ "): only a state of a clean working tree is published"); //$NON-NLS-1$
		}
		if (client.settings().credentials().isEmpty()) {
			throw new IOException("publishing needs credentials (an access key and a secret key)"); //$NON-NLS-1$
		}
		String manifestKey = layout.manifest(repository, compatibility, state.commitId());
		if (client.head(manifestKey).isPresent()) {
			return new Published(null, manifestKey, false, true);
		}
		long size;
		String sha256;
		String archiveKey;
		boolean uploaded;
		// the archive's bytes, with the files it continues when it shares a previous state's entries: what is
		// published is one self-contained file
		try (FileChannel bytes = Archives.openBytes(state.archive())) {
			size = bytes.size();
			sha256 = sha256(bytes);
			archiveKey = layout.archive(repository, compatibility, state.commitId(), sha256);
			uploaded = client.putFile(archiveKey, bytes, true, PART_SIZE, parallelism, canceled);
		}
		if (canceled.getAsBoolean()) {
			throw new CancellationException();
		}
		StateManifest manifest = new StateManifest(repository, state.commitId(), compatibility.hash(), archiveKey,
				size, sha256, state.uncompressedSize(), state.contributors(), creator, Instant.now());
		byte[] text;
		try {
			text = ManifestSigner.sign(manifest, key);
		} catch (GeneralSecurityException e) {
			throw new IOException("cannot sign the manifest with the key given: " + e.getMessage(), e); //$NON-NLS-1$
		}
		boolean written = client.put(manifestKey, text, true);
		return new Published(manifest, manifestKey, uploaded, !written);
	}

	/**
	 * @return the commits that have a published state for (repository, compatibility), in a bounded number of
	 *         requests ({@value #MAX_LIST_PAGES} pages of 1,000 at most)
	 */
	public Set<String> commits(String repository, CompatibilityKey compatibility) throws IOException {
		Set<String> commits = new TreeSet<>();
		for (String key : client.list(layout.manifests(repository, compatibility), MAX_LIST_PAGES).keySet()) {
			RemoteLayout.commitOf(key).ifPresent(commits::add);
		}
		return commits;
	}

	/**
	 * Fetches the published state of {@code commit} into the local store.
	 *
	 * @param repository the Git repository (the commit must be HEAD or an ancestor of it)
	 * @param budget     the largest archive accepted, in bytes
	 * @param progress   told the bytes downloaded as they arrive
	 * @return the state entered into the local catalog
	 * @throws IOException naming the object and the reason when the state is missing, refused or not downloaded;
	 *                     nothing is entered then and no file is left
	 */
	public StateInfo fetch(Repository repository, String repositoryId, CompatibilityKey compatibility, String commit,
			StateStore store, Collection<String> commitsInUse, long budget, BooleanSupplier canceled,
			LongConsumer progress) throws IOException {
		return fetch(repository, new Wanted(repositoryId, compatibility, commit, repository.resolve(Constants.HEAD),
				Constants.HEAD, budget), store, commitsInUse, budget, canceled, progress);
	}

	/**
	 * A published state to fetch.
	 *
	 * @param commit  its commit, which must be {@code within} or an ancestor of it here
	 * @param within     HEAD for a switch; a remote-tracking branch's tip for a prefetch, before anything checks it out
	 * @param withinName what {@code within} is, for messages ({@code HEAD}, the remote-tracking branch)
	 * @param largest    the largest archive accepted, in bytes
	 */
	public record Wanted(String repositoryId, CompatibilityKey compatibility, String commit, ObjectId within,
			String withinName, long largest) {
	}

	/**
	 * Fetches a published state into the local store, with the checks of {@link #fetch(Repository, String,
	 * CompatibilityKey, String, StateStore, Collection, long, BooleanSupplier, LongConsumer) the fetch at a switch}.
	 *
	 * @param budget the store's disk budget, which least recently used states are evicted to fit
	 */
	public StateInfo fetch(Repository repository, Wanted wanted, StateStore store, Collection<String> commitsInUse,
			long budget, BooleanSupplier canceled, LongConsumer progress) throws IOException {
		String repositoryId = wanted.repositoryId();
		CompatibilityKey compatibility = wanted.compatibility();
		String commit = wanted.commit();
		PublicKey publicKey = client.settings().publicKey().orElseThrow(() -> new IOException(
				"no public key is pinned for remote states: nothing fetched is trusted without one")); //$NON-NLS-1$
		String manifestKey = layout.manifest(repositoryId, compatibility, commit);
		byte[] text = client.get(manifestKey, StateManifest.MAX_BYTES)
				.orElseThrow(() -> new IOException(manifestKey + ": no such manifest in " + client.settings().describe())); //$NON-NLS-1$
		StateManifest manifest;
		try {
			manifest = ManifestSigner.verify(manifestKey, text, publicKey);
		} catch (IllegalArgumentException e) {
			throw new IOException(e.getMessage(), e);
		}
		check(manifestKey, manifest, repository, wanted);
		File gitDir = repository.getDirectory();
		Path archive = store.newArchivePath(gitDir, commit);
		Path download = archive.resolveSibling(archive.getFileName() + ".download"); //$NON-NLS-1$
		try (Closeable holdArchive = Archives.hold(archive); Closeable holdDownload = Archives.hold(download)) {
			try {
				download(manifest, download, canceled, progress);
				Files.move(download, archive, StandardCopyOption.ATOMIC_MOVE);
				StateInfo info = new StateInfo(gitDir, commit, List.of(), archive, manifest.created(), Instant.now(),
						manifest.size(), manifest.uncompressedSize(), Map.copyOf(manifest.contributors()), List.of());
				return store.add(info, commitsInUse, budget).added();
			} catch (IOException | RuntimeException e) {
				Files.deleteIfExists(download);
				if (store.find(gitDir, commit).filter(s -> s.archive().equals(archive)).isEmpty()) {
					Files.deleteIfExists(archive);
				}
				throw e;
			}
		}
	}

	private static void check(String key, StateManifest m, Repository repository, Wanted wanted) throws IOException {
		String commit = wanted.commit();
		ObjectId within = wanted.within();
		if (!m.repository().equals(wanted.repositoryId()) || !m.commit().equals(commit)
				|| !m.compatibility().equals(wanted.compatibility().hash())) {
			throw new IOException(key + ": the manifest is for repository " + m.repository() + ", commit " //$NON-NLS-1$ //$NON-NLS-2$
					+ m.commit() + ", compatibility " + m.compatibility() + ", not the one asked for"); //$NON-NLS-1$ //$NON-NLS-2$
		}
		if (!m.archiveKey().startsWith(key.substring(0, key.indexOf("/manifests/") + 1))) { //$NON-NLS-1$
			throw new IOException(key + ": the manifest names an archive outside its folder: " + m.archiveKey()); //$NON-NLS-1$
		}
		if (m.size() > wanted.largest()) {
			throw new TooLargeException(key + ": the archive's " + m.size() + " bytes exceed the budget of " //$NON-NLS-1$ //$NON-NLS-2$
					+ wanted.largest());
		}
		try (RevWalk walk = new RevWalk(repository)) {
			if (within == null || !repository.getObjectDatabase().has(ObjectId.fromString(commit))
					|| !walk.isMergedInto(walk.parseCommit(ObjectId.fromString(commit)), walk.parseCommit(within))) {
				throw new IOException(key + ": commit " + commit + " is not " + wanted.withinName() //$NON-NLS-1$ //$NON-NLS-2$
						+ " or an ancestor of it here"); //$NON-NLS-1$
			}
		}
	}

	/** Downloads the archive in parallel ranges, hashing the parts in order as they arrive. */
	private void download(StateManifest m, Path file, BooleanSupplier canceled, LongConsumer progress)
			throws IOException {
		int parts = (int) ((m.size() + PART_SIZE - 1) / PART_SIZE);
		MessageDigest digest = SigV4.sha256();
		ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallelism, parts),
				Thread.ofPlatform().name("branchstate-download-", 0).daemon().factory()); //$NON-NLS-1$
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
				StandardOpenOption.READ)) {
			List<Future<?>> futures = new ArrayList<>();
			for (int i = 0; i < parts; i++) {
				long position = (long) i * PART_SIZE;
				int length = (int) Math.min(PART_SIZE, m.size() - position);
				futures.add(pool.submit(() -> {
					if (canceled.getAsBoolean()) {
						throw new CancellationException();
					}
					client.getRange(m.archiveKey(), position, length, m.size(), channel);
					return null;
				}));
			}
			ByteBuffer buffer = ByteBuffer.allocate(1024 * 1024);
			for (int i = 0; i < parts; i++) {
				S3Client.await(futures.get(i));
				long position = (long) i * PART_SIZE;
				long end = Math.min(position + PART_SIZE, m.size());
				while (position < end) {
					buffer.clear().limit((int) Math.min(buffer.capacity(), end - position));
					int n = channel.read(buffer, position);
					if (n < 0) {
						throw new IOException(file + ": shorter than the parts written"); //$NON-NLS-1$
					}
					digest.update(buffer.flip());
					position += n;
				}
				progress.accept(end - (long) i * PART_SIZE);
			}
			if (channel.size() != m.size()) {
				throw new IOException(m.archiveKey() + ": " + channel.size() + " bytes arrived, the manifest declares " //$NON-NLS-1$ //$NON-NLS-2$
						+ m.size());
			}
			String actual = HexFormat.of().formatHex(digest.digest());
			if (!actual.equals(m.sha256())) {
				throw new IOException(m.archiveKey() + ": its SHA-256 is " + actual + ", the signed manifest says " //$NON-NLS-1$ //$NON-NLS-2$
						+ m.sha256() + ": the archive was changed, refused"); //$NON-NLS-1$
			}
			channel.force(true);
		} finally {
			pool.shutdownNow();
		}
	}

	static String sha256(FileChannel bytes) throws IOException {
		MessageDigest digest = SigV4.sha256();
		ByteBuffer buffer = ByteBuffer.allocate(1024 * 1024);
		long position = 0;
		int n;
		while ((n = bytes.read(buffer.clear(), position)) > 0) {
			digest.update(buffer.flip());
			position += n;
		}
		return HexFormat.of().formatHex(digest.digest());
	}
}

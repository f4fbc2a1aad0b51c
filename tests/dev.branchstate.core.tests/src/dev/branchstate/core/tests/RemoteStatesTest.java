package dev.branchstate.core.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.archive.ArchiveReader;
import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.WriteOptions;
import dev.branchstate.archive.WriteResult;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.remote.CompatibilityKey;
import dev.branchstate.core.internal.remote.Credentials;
import dev.branchstate.core.internal.remote.ManifestSigner;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.remote.RemoteStates;
import dev.branchstate.core.internal.remote.S3Client;
import dev.branchstate.core.internal.store.StateStore;

/**
 * Remote states against a real S3 server (S3Proxy, checking signatures): publish, list, fetch into an empty store,
 * and every refusal the issue names — a changed archive byte, a manifest whose digest lies, a manifest signed by
 * another key, an archive larger than declared, a commit that is not an ancestor of HEAD, wrong credentials, an
 * unreachable store. A refused fetch enters nothing into the catalog and leaves no file.
 */
class RemoteStatesTest {

	private static final CompatibilityKey COMPATIBILITY = new CompatibilityKey(List.of("p dev.branchstate.test 1 x"));

	@TempDir
	static Path serverFolder;
	private static S3Server server;
	private static KeyPair ciKey;

	@TempDir
	Path temp;
	private Git git;
	private RevCommit first;
	private RevCommit head;
	private RevCommit side;
	private StateStore ciStore;
	private StateStore developerStore;
	/** One per test: the tests share the server, and JGit makes the same commits within a second. */
	private String repositoryId;

	@BeforeAll
	static void startServer() throws Exception {
		server = new S3Server(serverFolder);
		ciKey = ManifestSigner.generate();
	}

	@AfterAll
	static void stopServer() throws Exception {
		server.close();
	}

	@BeforeEach
	void repository() throws Exception {
		repositoryId = "repo-" + java.util.UUID.randomUUID();
		git = Git.init().setDirectory(temp.resolve("repo").toFile()).setInitialBranch("main").call();
		first = commit("A.java", "class A {}");
		git.branchCreate().setName("side").call();
		head = commit("B.java", "class B {}");
		git.checkout().setName("side").call();
		side = commit("C.java", "class C {}");
		git.checkout().setName("main").call();
		ciStore = new StateStore(temp.resolve("ci-store"));
		developerStore = new StateStore(temp.resolve("developer-store"));
	}

	private RevCommit commit(String file, String content) throws Exception {
		Files.writeString(git.getRepository().getWorkTree().toPath().resolve(file), content);
		git.add().addFilepattern(file).call();
		return git.commit().setMessage(file).setSign(false).call();
	}

	/** @return a state of the commit in the CI store: an engine archive of {@code bytes} incompressible bytes */
	private StateInfo savedState(RevCommit commit, int bytes) throws IOException {
		Path archive = ciStore.newArchivePath(gitDir(), commit.name());
		byte[] data = new byte[bytes];
		new Random(commit.hashCode()).nextBytes(data);
		WriteResult written;
		try (ArchiveWriter writer = Archives.newWriter(archive, WriteOptions.defaults())) {
			writer.addBytes("derived/p/bin/Big.class", data, 0644, FileTime.from(Instant.now()));
			writer.addBytes("derived/p/bin/A.class", "A".getBytes(StandardCharsets.UTF_8), 0644,
					FileTime.from(Instant.now()));
			written = writer.commit();
		}
		StateInfo state = new StateInfo(gitDir(), commit.name(), List.of("main"), archive, Instant.now(),
				Instant.now(), Files.size(archive), written.uncompressedBytes(), Map.of("dev.branchstate.test", 1),
				List.of());
		return ciStore.add(state, Set.of(), 0).added();
	}

	private File gitDir() {
		return git.getRepository().getDirectory();
	}

	private RemoteStates remote(Credentials credentials, boolean pinKey) {
		RemoteSettings settings = server.settings(credentials);
		if (pinKey) {
			settings = settings.withPublicKey(ciKey.getPublic());
		}
		return new RemoteStates(new S3Client(settings), 4);
	}

	private RemoteStates.Published publish(StateInfo state) throws IOException {
		return remote(server.credentials, false).publish(state, repositoryId, COMPATIBILITY, ciKey.getPrivate(), "ci",
				() -> false);
	}

	private StateInfo fetch(RevCommit commit) throws IOException {
		return fetch(remote(server.credentials, true), commit);
	}

	private StateInfo fetch(RemoteStates remote, RevCommit commit) throws IOException {
		return remote.fetch(git.getRepository(), repositoryId, COMPATIBILITY, commit.name(), developerStore, Set.of(),
				Long.MAX_VALUE, () -> false, n -> {
				});
	}

	private void assertNothingFetched() throws IOException {
		assertThat(developerStore.states()).isEmpty();
		try (Stream<Path> files = Files.walk(developerStore.directory().resolve("states"))) {
			assertThat(files.filter(Files::isRegularFile).toList()).isEmpty();
		}
	}

	@Test
	void aPublishedStateIsFetchedIntoAnEmptyStoreByteForByteInParallelParts() throws Exception {
		StateInfo state = savedState(head, 20 * 1024 * 1024 + 12345); // three upload parts, three ranges
		RemoteStates.Published published = publish(state);
		assertThat(published.alreadyPublished()).isFalse();
		assertThat(published.archiveUploaded()).isTrue();
		assertThat(remote(server.credentials, true).commits(repositoryId, COMPATIBILITY)).containsExactly(head.name());
		assertThat(remote(server.credentials, true).commits(repositoryId, new CompatibilityKey(List.of("p other 1 jdk17")))).isEmpty();

		long[] progress = new long[1];
		StateInfo fetched = remote(server.credentials, true).fetch(git.getRepository(), repositoryId, COMPATIBILITY,
				head.name(), developerStore, Set.of(), Long.MAX_VALUE, () -> false, n -> progress[0] += n);

		assertThat(Files.readAllBytes(fetched.archive())).isEqualTo(Files.readAllBytes(state.archive()));
		assertThat(progress[0]).isEqualTo(state.size());
		assertThat(developerStore.states()).singleElement().satisfies(s -> {
			assertThat(s.commitId()).isEqualTo(head.name());
			assertThat(s.size()).isEqualTo(state.size());
			assertThat(s.uncompressedSize()).isEqualTo(state.uncompressedSize());
			assertThat(s.contributors()).isEqualTo(state.contributors());
			assertThat(s.dirtyPaths()).isEmpty();
		});
		try (ArchiveReader reader = Archives.open(fetched.archive())) {
			assertThat(reader.readAllBytes("derived/p/bin/A.class", 10)).containsExactly('A');
		}
	}

	/**
	 * A state that shares a previous state's entries (its archive continues the previous one's file, linked beside
	 * it) is published as one file: the bytes of both, which read in the developer's store as the same archive.
	 */
	@Test
	void aStateSharingAnotherOnesEntriesIsPublishedAsOneFile() throws Exception {
		StateInfo previous = savedState(first, 9 * 1024 * 1024); // two upload parts
		Path archive = ciStore.newArchivePath(gitDir(), head.name());
		WriteResult written;
		try (ArchiveWriter writer = Archives.newWriter(archive,
				WriteOptions.defaults().withPrevious(previous.archive()).withSharing(true));
				ArchiveReader before = Archives.open(previous.archive())) {
			// as a differential save does it: the unchanged entry is shared, not written again
			Path tree = Files.createDirectories(temp.resolve("tree/derived/p/bin"));
			Files.write(tree.resolve("Big.class"), before.readAllBytes("derived/p/bin/Big.class", 10 << 20));
			Files.setLastModifiedTime(tree.resolve("Big.class"), before.entry("derived/p/bin/Big.class").orElseThrow().lastModified());
			Files.writeString(tree.resolve("A.class"), "A2");
			writer.addTree(temp.resolve("tree"), "", dev.branchstate.archive.TreeFilter.ALL);
			written = writer.commit();
		}
		assertThat(Archives.files(archive)).hasSize(2);
		assertThat(written.writtenBytes()).isLessThan(100_000);
		StateInfo state = ciStore.add(new StateInfo(gitDir(), head.name(), List.of("main"), archive, Instant.now(),
				Instant.now(), written.archiveSize(), written.uncompressedBytes(), Map.of("dev.branchstate.test", 1),
				List.of()), Set.of(), 0).added();

		publish(state);
		StateInfo fetched = fetch(head);

		assertThat(Archives.files(fetched.archive())).containsExactly(fetched.archive());
		assertThat(Files.size(fetched.archive())).isEqualTo(written.archiveSize());
		try (ArchiveReader reader = Archives.open(fetched.archive())) {
			reader.verify(List.of(""), dev.branchstate.archive.ExtractOptions.defaults());
			assertThat(reader.readAllBytes("derived/p/bin/A.class", 10)).containsExactly('A', '2');
			assertThat(reader.readAllBytes("derived/p/bin/Big.class", 10 << 20))
					.isEqualTo(Files.readAllBytes(temp.resolve("tree/derived/p/bin/Big.class")));
		}
	}

	@Test
	void aSecondPublishOfTheSameCommitLeavesTheFirstManifest() throws Exception {
		StateInfo state = savedState(head, 1000);
		publish(state);
		Path manifest = server.objectFile("team/states/" + repositoryId + '/' + COMPATIBILITY.hash() + "/manifests/"
				+ head.name());
		byte[] before = Files.readAllBytes(manifest);
		assertThat(publish(state).alreadyPublished()).isTrue();
		assertThat(Files.readAllBytes(manifest)).isEqualTo(before);
	}

	@Test
	void anArchiveWithOneByteChangedIsRefusedAndNothingIsEntered() throws Exception {
		RemoteStates.Published published = publish(savedState(head, 100_000));
		Path object = server.objectFile(published.manifest().archiveKey());
		byte[] bytes = Files.readAllBytes(object);
		bytes[bytes.length / 2] ^= 1;
		Files.write(object, bytes);

		assertThatThrownBy(() -> fetch(head)).isInstanceOf(IOException.class)
				.hasMessageContaining(published.manifest().archiveKey()).hasMessageContaining("SHA-256")
				.hasMessageContaining("refused");
		assertNothingFetched();
	}

	@Test
	void aManifestWhoseDigestLiesIsRefused() throws Exception {
		RemoteStates.Published published = publish(savedState(head, 1000));
		Path object = server.objectFile(published.manifestKey());
		String text = Files.readString(object);
		String lie = text.replace(published.manifest().sha256(), "0".repeat(64));
		assertThat(lie).isNotEqualTo(text);
		Files.writeString(object, lie);

		assertThatThrownBy(() -> fetch(head)).isInstanceOf(IOException.class)
				.hasMessageContaining(published.manifestKey()).hasMessageContaining("signature does not match");
		assertNothingFetched();
	}

	@Test
	void aManifestSignedByAnotherKeyIsRefused() throws Exception {
		RemoteStates.Published published = publish(savedState(head, 1000));
		Files.write(server.objectFile(published.manifestKey()),
				ManifestSigner.sign(published.manifest(), ManifestSigner.generate().getPrivate()));

		assertThatThrownBy(() -> fetch(head)).isInstanceOf(IOException.class)
				.hasMessageContaining("signature does not match the pinned public key");
		assertNothingFetched();
	}

	@Test
	void anArchiveLargerThanDeclaredIsRefused() throws Exception {
		RemoteStates.Published published = publish(savedState(head, 100_000));
		Files.write(server.objectFile(published.manifest().archiveKey()), new byte[1000], StandardOpenOption.APPEND);

		assertThatThrownBy(() -> fetch(head)).isInstanceOf(IOException.class)
				.hasMessageContaining("not the " + published.manifest().size() + " its manifest declares");
		assertNothingFetched();
	}

	@Test
	void aStateOfACommitThatIsNotAnAncestorOfHeadIsRefused() throws Exception {
		publish(savedState(side, 1000));
		assertThatThrownBy(() -> fetch(side)).isInstanceOf(IOException.class)
				.hasMessageContaining("is not HEAD or an ancestor of it");
		assertNothingFetched();
		publish(savedState(first, 1000));
		assertThat(fetch(first).commitId()).isEqualTo(first.name()); // an ancestor is fine
	}

	/** A public bucket (or a CDN in front of one): fetched without credentials; publishing needs them. */
	@Test
	void anAnonymousClientFetchesFromAPublicBucketAndCannotPublish() throws Exception {
		StateInfo state = savedState(head, 100_000);
		publish(state);
		try (S3Server open = server.anonymous(temp.resolve("public"))) {
			RemoteStates anonymous = new RemoteStates(new S3Client(open.settings(null).withPublicKey(ciKey.getPublic())),
					4);
			assertThat(anonymous.commits(repositoryId, COMPATIBILITY)).containsExactly(head.name());
			StateInfo fetched = fetch(anonymous, head);
			assertThat(Files.readAllBytes(fetched.archive())).isEqualTo(Files.readAllBytes(state.archive()));
			assertThatThrownBy(() -> anonymous.publish(savedState(first, 1000), repositoryId, COMPATIBILITY,
					ciKey.getPrivate(), "anyone", () -> false)).hasMessageContaining("publishing needs credentials");
		}
	}

	@Test
	void nothingIsFetchedWithoutAPinnedKey() throws Exception {
		publish(savedState(head, 1000));
		assertThatThrownBy(() -> fetch(remote(server.credentials, false), head))
				.hasMessageContaining("no public key is pinned");
		assertNothingFetched();
	}

	@Test
	void aStateSavedWithLocalChangesIsNotPublished() throws Exception {
		StateInfo saved = savedState(head, 1000);
		StateInfo dirty = new StateInfo(saved.gitDir(), saved.commitId(), saved.branches(), saved.archive(),
				saved.created(), saved.lastUsed(), saved.size(), saved.uncompressedSize(), saved.contributors(),
				List.of("A.java"));
		assertThatThrownBy(() -> publish(dirty)).hasMessageContaining("saved with local changes");
	}

	@Test
	void wrongCredentialsGiveAClearError() throws Exception {
		StateInfo state = savedState(head, 1000);
		RemoteStates wrong = remote(new Credentials(server.credentials.accessKey(), "not-the-secret"), true);
		assertThatThrownBy(() -> wrong.publish(state, repositoryId, COMPATIBILITY, ciKey.getPrivate(), "ci", () -> false))
				.isInstanceOf(IOException.class).hasMessageContaining("HTTP 403")
				.hasMessageContaining("check the access key and secret key")
				.satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-the-secret"));
		assertThat(remote(server.credentials, true).commits(repositoryId, COMPATIBILITY)).isEmpty();
	}

	@Test
	void anUnreachableStoreFailsWithinItsTimeout() throws Exception {
		int port;
		try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = s.getLocalPort();
		}
		RemoteSettings closed = new RemoteSettings(URI.create("http://127.0.0.1:" + port), S3Server.BUCKET, "",
				"us-east-1", true, Optional.of(server.credentials), Optional.of(ciKey.getPublic()),
				Duration.ofSeconds(2));
		long start = System.nanoTime();
		assertThatThrownBy(() -> fetch(new RemoteStates(new S3Client(closed), 4), head))
				.isInstanceOf(IOException.class).hasMessageContaining("127.0.0.1:" + port);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
		assertNothingFetched();
	}
}

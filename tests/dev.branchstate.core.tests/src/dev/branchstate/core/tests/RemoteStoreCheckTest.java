package dev.branchstate.core.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.archive.ArchiveWriter;
import dev.branchstate.archive.Archives;
import dev.branchstate.archive.WriteOptions;
import dev.branchstate.archive.WriteResult;
import dev.branchstate.core.RemoteStoreCheck;
import dev.branchstate.core.RemoteStoreCheck.Signature;
import dev.branchstate.core.RemoteStoreSettings;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.remote.CompatibilityKey;
import dev.branchstate.core.internal.remote.ConnectionCheck;
import dev.branchstate.core.internal.remote.ManifestSigner;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.remote.RemoteStates;
import dev.branchstate.core.internal.remote.S3Client;
import dev.branchstate.core.internal.store.StateStore;

/**
 * The Remote Store preference page's "Test connection", through the state service's API against a real S3 server
 * (S3Proxy checking signatures): a store with published states lists them and the newest manifest's signature is
 * checked against the pinned key; wrong credentials and a wrong bucket fail with the store named and its answer; a
 * manifest changed after signing is reported as not valid; an empty store is reported as such.
 */
class RemoteStoreCheckTest {

	private static final CompatibilityKey COMPATIBILITY = new CompatibilityKey(List.of("p dev.branchstate.test 1 x"));

	@TempDir
	static Path serverFolder;
	private static S3Server server;
	private static KeyPair ciKey;

	@TempDir
	Path temp;
	private Git git;
	private StateStore ciStore;
	/** One per test: the tests share the server. */
	private String prefix;

	@BeforeAll
	static void startServer() throws Exception {
		Fixtures.workspace(); // the state service needs the workspace (core.resources started) to be registered
		server = new S3Server(serverFolder);
		ciKey = ManifestSigner.generate();
	}

	@AfterAll
	static void stopServer() throws Exception {
		server.close();
	}

	@BeforeEach
	void repository() throws Exception {
		prefix = "check-" + java.util.UUID.randomUUID();
		git = Git.init().setDirectory(temp.resolve("repo").toFile()).setInitialBranch("main").call();
		ciStore = new StateStore(temp.resolve("ci-store"));
	}

	@Test
	void aStoreWithStatesListsThemAndTheNewestManifestIsSignedByThePinnedKey() throws Exception {
		RemoteStates.Published older = publish(commit("A.java", "class A {}"));
		RemoteStates.Published newer = publish(commit("B.java", "class B {}"));
		// the listing's LastModified is the backend file's time: make the order certain
		Files.setLastModifiedTime(server.objectFile(older.manifestKey()),
				FileTime.from(Instant.now().minus(Duration.ofHours(1))));

		RemoteStoreCheck check = Fixtures.service().checkRemoteStore(entered(S3Server.BUCKET,
				server.credentials.secretKey(), ManifestSigner.oneLine(ciKey.getPublic())), new NullProgressMonitor());

		assertThat(check.states()).isEqualTo(2);
		assertThat(check.newestManifest()).contains(newer.manifestKey());
		assertThat(check.signature()).isEqualTo(Signature.VALID);
		assertThat(check.creator()).contains("ci");
		assertThat(check.keyFingerprint()).contains(ConnectionCheck.fingerprint(ciKey.getPublic()));
		assertThat(check.store()).contains(server.endpoint.toString()).contains(S3Server.BUCKET).contains(prefix);
	}

	@Test
	void wrongCredentialsFailNamingTheStoreAndItsAnswer() throws Exception {
		publish(commit("A.java", "class A {}"));
		RemoteStoreSettings wrongSecret = entered(S3Server.BUCKET, "not-the-secret",
				ManifestSigner.oneLine(ciKey.getPublic()));

		assertThatThrownBy(() -> Fixtures.service().checkRemoteStore(wrongSecret, new NullProgressMonitor()))
				.isInstanceOf(CoreException.class).hasMessageContaining(server.endpoint.toString())
				.hasMessageContaining("bucket " + S3Server.BUCKET).hasMessageContaining("HTTP 403");
	}

	@Test
	void aBucketThatDoesNotExistFailsNamingIt() throws Exception {
		RemoteStoreSettings wrongBucket = entered("no-such-bucket", server.credentials.secretKey(),
				ManifestSigner.oneLine(ciKey.getPublic()));

		assertThatThrownBy(() -> Fixtures.service().checkRemoteStore(wrongBucket, new NullProgressMonitor()))
				.isInstanceOf(CoreException.class).hasMessageContaining("bucket no-such-bucket")
				.hasMessageContaining("HTTP 404");
	}

	@Test
	void aManifestChangedAfterSigningIsReportedNotValid() throws Exception {
		RemoteStates.Published published = publish(commit("A.java", "class A {}"));
		Path manifest = server.objectFile(published.manifestKey());
		String text = Files.readString(manifest, StandardCharsets.UTF_8);
		String changed = text.replace("creator=ci", "creator=cj");
		assertThat(changed).isNotEqualTo(text);
		Files.writeString(manifest, changed, StandardCharsets.UTF_8);

		RemoteStoreCheck check = Fixtures.service().checkRemoteStore(entered(S3Server.BUCKET,
				server.credentials.secretKey(), ManifestSigner.oneLine(ciKey.getPublic())), new NullProgressMonitor());

		assertThat(check.states()).isEqualTo(1);
		assertThat(check.signature()).isEqualTo(Signature.INVALID);
		assertThat(check.creator()).isEmpty();
		assertThat(check.problem()).hasValueSatisfying(p -> assertThat(p).contains(published.manifestKey())
				.contains("signature does not match the pinned public key"));
	}

	@Test
	void anotherPinnedKeyMakesTheSignatureNotValid() throws Exception {
		publish(commit("A.java", "class A {}"));
		String otherKey = ManifestSigner.oneLine(ManifestSigner.generate().getPublic());

		RemoteStoreCheck check = Fixtures.service().checkRemoteStore(
				entered(S3Server.BUCKET, server.credentials.secretKey(), otherKey), new NullProgressMonitor());

		assertThat(check.signature()).isEqualTo(Signature.INVALID);
	}

	@Test
	void anEmptyStoreIsReachableWithNothingToCheck() throws Exception {
		RemoteStoreCheck check = Fixtures.service().checkRemoteStore(entered(S3Server.BUCKET,
				server.credentials.secretKey(), ManifestSigner.oneLine(ciKey.getPublic())), new NullProgressMonitor());

		assertThat(check.states()).isZero();
		assertThat(check.signature()).isEqualTo(Signature.NO_MANIFEST);
		assertThat(check.newestManifest()).isEmpty();
	}

	@Test
	void anEndpointThatIsNotAUrlIsASettingsError() {
		RemoteStoreSettings notAUrl = new RemoteStoreSettings("not a url", S3Server.BUCKET, prefix, "", true, "", "",
				"", 5);

		assertThatThrownBy(() -> Fixtures.service().checkRemoteStore(notAUrl, new NullProgressMonitor()))
				.isInstanceOf(CoreException.class).hasMessageContaining("not valid");
	}

	private RemoteStoreSettings entered(String bucket, String secret, String publicKey) {
		return new RemoteStoreSettings(server.endpoint.toString(), bucket, prefix, "us-east-1", true, publicKey,
				server.credentials.accessKey(), secret, 10);
	}

	private RevCommit commit(String file, String content) throws Exception {
		Files.writeString(git.getRepository().getWorkTree().toPath().resolve(file), content);
		git.add().addFilepattern(file).call();
		return git.commit().setMessage(file).setSign(false).call();
	}

	/** Saves a small state of the commit in the CI store and publishes it under this test's prefix. */
	private RemoteStates.Published publish(RevCommit commit) throws Exception {
		File gitDir = git.getRepository().getDirectory();
		Path archive = ciStore.newArchivePath(gitDir, commit.name());
		WriteResult written;
		try (ArchiveWriter writer = Archives.newWriter(archive, WriteOptions.defaults())) {
			writer.addBytes("derived/p/bin/A.class", commit.name().getBytes(StandardCharsets.UTF_8), 0644,
					FileTime.from(Instant.now()));
			written = writer.commit();
		}
		StateInfo state = ciStore.add(new StateInfo(gitDir, commit.name(), List.of("main"), archive, Instant.now(),
				Instant.now(), Files.size(archive), written.uncompressedBytes(), Map.of("dev.branchstate.test", 1),
				List.of()), Set.of(), 0).added();
		RemoteSettings settings = new RemoteSettings(server.endpoint, S3Server.BUCKET, prefix, "us-east-1", true,
				Optional.of(server.credentials), Optional.empty(), Duration.ofSeconds(10));
		return new RemoteStates(new S3Client(settings), 2).publish(state, "repo", COMPATIBILITY, ciKey.getPrivate(),
				"ci", () -> false);
	}
}

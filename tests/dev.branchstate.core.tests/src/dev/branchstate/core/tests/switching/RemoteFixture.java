package dev.branchstate.core.tests.switching;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.eclipse.core.resources.IProject;
import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.NullProgressMonitor;

import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.remote.ManifestSigner;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.remote.RemoteStates;
import dev.branchstate.core.internal.service.RemoteService;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.core.tests.CountingRelay;
import dev.branchstate.core.tests.S3Server;

/**
 * A team sharing a remote store, for the tests of remote states with JDT's real builder: the switch harness, a real
 * S3 server and in front of it the relay that counts a developer's requests (and may stand for a network link), CI's
 * signing key and CI's repository. CI reaches the store directly and publishes; a developer's clone reaches it
 * through the relay, with CI's public key pinned. Closing it deletes what the tests stored and stops the servers.
 */
final class RemoteFixture implements AutoCloseable {

	final SwitchHarness harness;
	final RemoteService remote;
	final S3Server server;
	final CountingRelay relay;
	final KeyPair ciKey;
	final JavaRepository ci;
	/** The developer's clone, once {@link #cloneDeveloper} made it. */
	JavaRepository developer;
	/** The project of the workspace: CI's while it publishes, then the developer's. */
	IProject project;

	/**
	 * @param sources the first commit of CI's repository, on {@code main}
	 * @param link    the network between the developer and the store, {@code null} for loopback as it is
	 */
	RemoteFixture(Path temp, Map<String, String> sources, CountingRelay.Link link) throws Exception {
		harness = new SwitchHarness();
		remote = ((StateService) harness.service).remote();
		server = new S3Server(temp.resolve("s3"));
		relay = new CountingRelay(server.endpoint, link);
		ciKey = ManifestSigner.generate();
		ci = JavaRepository.create(temp.resolve("ci"), sources);
	}

	/** @return a developer's clone of CI's repository as it is now, on {@code main} */
	JavaRepository cloneDeveloper(Path dir) throws Exception {
		developer = ci.cloneInto(dir, "main");
		return developer;
	}

	/** CI's workspace: its project imported and built (automatic building on), the store reached directly. */
	void startCi() throws Exception {
		remote.setSettings(server.settings(server.credentials).withPublicKey(ciKey.getPublic()));
		harness.autoBuild(true);
		project = ci.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
	}

	/**
	 * CI saves the state of HEAD and publishes it. A state of HEAD saved ahead in the background since the checkout
	 * (complete but for a part a contributor could not give yet, JDT's index at a session's start) is kept as it is:
	 * the service refuses to replace it with one that lacks more, and that state is the one published.
	 *
	 * @return what the publication did
	 */
	RemoteStates.Published publishHead() throws Exception {
		saveHead(harness, ci);
		String head = ci.git.getRepository().resolve("HEAD").name();
		return remote.publish(ci.gitDir(), head, ciKey.getPrivate(), "ci", new NullProgressMonitor());
	}

	/** Saves the state of HEAD, keeping a state of HEAD saved ahead as it is (see {@link #publishHead}). */
	static void saveHead(SwitchHarness harness, JavaRepository repo) throws Exception {
		String head = repo.git.getRepository().resolve("HEAD").name();
		try {
			harness.service.save(repo.gitDir(), new NullProgressMonitor());
		} catch (CoreException e) {
			assertThat(harness.service.states(repo.gitDir())).as(e.getMessage()).extracting(StateInfo::commitId)
					.contains(head);
		}
	}

	/** CI's workspace is done: its states deleted, its project removed from the workspace (its files stay). */
	void endCi() throws Exception {
		for (StateInfo state : harness.service.states(ci.gitDir())) {
			harness.service.delete(state);
		}
		project.delete(false, true, null);
		project = null;
		SwitchHarness.awaitQuiet();
	}

	/**
	 * The developer's workspace: the clone imported, the store reached through the relay with CI's key pinned.
	 *
	 * @param autoBuild whether automatic building is on (off: nothing is built until the test builds)
	 * @return the developer's project
	 */
	IProject startDeveloper(boolean autoBuild) throws Exception {
		remote.setSettings(new RemoteSettings(relay.endpoint, S3Server.BUCKET, "team/states", "us-east-1", true,
				Optional.of(server.credentials), Optional.of(ciKey.getPublic()), Duration.ofSeconds(10)));
		harness.autoBuild(autoBuild);
		project = developer.importProject();
		harness.manager().track();
		SwitchHarness.awaitQuiet();
		return project;
	}

	@Override
	public void close() throws Exception {
		remote.setSettings(null);
		JdtBuilds.release();
		if (developer != null) {
			developer.discard(harness, project);
			ci.close();
		} else {
			ci.discard(harness, project);
		}
		harness.autoBuild(true);
		harness.close();
		relay.close();
		server.close();
	}
}

package dev.branchstate.core.internal.app;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.eclipse.core.runtime.CoreException;
import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.core.runtime.SubMonitor;
import org.eclipse.equinox.app.IApplication;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.app.Commands.NotFoundException;
import dev.branchstate.core.internal.app.Commands.UsageException;
import dev.branchstate.core.internal.remote.ManifestSigner;
import dev.branchstate.core.internal.remote.RemoteConfiguration;
import dev.branchstate.core.internal.remote.RemoteSettings;
import dev.branchstate.core.internal.remote.RemoteStates;
import dev.branchstate.core.internal.service.RemoteService;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.core.internal.switching.StatePicker;

/**
 * The headless commands of remote states, for CI and scripts:
 * <ul>
 * <li>{@code remote-keys <folder>}: makes an Ed25519 key pair, {@code branchstate-signing.pem} (private, readable by
 * the owner only: CI's secret) and {@code branchstate-signing.pub.pem}, and prints the public key's line to pin in
 * the IDEs' preference {@code remotePublicKey};</li>
 * <li>{@code publish <repo> [<commit>] --signing-key=<pem>}: publishes the local state of the commit (default HEAD),
 * signed with the key (or the file {@code $BRANCHSTATE_SIGNING_KEY});</li>
 * <li>{@code fetch <repo> [<commit>]}: fetches the published state of the commit (default HEAD), or of its nearest
 * published ancestor, into the local store, where {@code restore} finds it;</li>
 * <li>{@code published <repo>}: the commits the remote store has a state of for the repository as configured here,
 * and whether the local store has them too.</li>
 * </ul>
 * The store is the one of the workspace's preferences; {@code --endpoint=}, {@code --bucket=}, {@code --prefix=},
 * {@code --region=}, {@code --path-style} and {@code --public-key=<file or line>} override them. Credentials come from
 * secure storage or from {@code AWS_ACCESS_KEY_ID} and {@code AWS_SECRET_ACCESS_KEY}, never from the command line.
 */
final class RemoteCommands {

	private final PrintStream out;

	RemoteCommands(PrintStream out) {
		this.out = out;
	}

	Object run(String command, List<String> arguments)
			throws UsageException, NotFoundException, CoreException, IOException {
		List<String> positional = new ArrayList<>();
		Options options = new Options();
		for (String a : arguments) {
			if (!options.take(a)) {
				positional.add(a);
			}
		}
		if (command.equals("remote-keys")) { //$NON-NLS-1$
			if (positional.size() != 1) {
				throw new UsageException("expected the folder to write the key pair to"); //$NON-NLS-1$
			}
			return keys(Path.of(positional.get(0)));
		}
		if (positional.isEmpty() || positional.size() > (command.equals("published") ? 1 : 2)) { //$NON-NLS-1$
			throw new UsageException("expected a repository path" //$NON-NLS-1$
					+ (command.equals("published") ? "" : " and optionally a commit")); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
		}
		StateService service = Commands.service();
		RemoteService remote = service.remote();
		remote.setSettings(options.settings(remote));
		File gitDir = Commands.gitDir(positional.get(0));
		String commit = Commands.commit(gitDir, positional.size() == 2 ? positional.get(1) : Constants.HEAD);
		return switch (command) {
		case "publish" -> publish(remote, gitDir, commit, options); //$NON-NLS-1$
		case "fetch" -> fetch(remote, gitDir, commit); //$NON-NLS-1$
		default -> published(service, remote, gitDir);
		};
	}

	private Object keys(Path folder) throws IOException {
		KeyPair pair;
		try {
			pair = ManifestSigner.generate();
		} catch (GeneralSecurityException e) {
			throw new IOException(e.getMessage(), e);
		}
		Files.createDirectories(folder);
		Path privateFile = folder.resolve("branchstate-signing.pem"); //$NON-NLS-1$
		Files.createFile(privateFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))); //$NON-NLS-1$
		Files.writeString(privateFile, ManifestSigner.pem("PRIVATE KEY", pair.getPrivate().getEncoded()), //$NON-NLS-1$
				StandardCharsets.US_ASCII);
		Path publicFile = folder.resolve("branchstate-signing.pub.pem"); //$NON-NLS-1$
		Files.writeString(publicFile, ManifestSigner.pem("PUBLIC KEY", pair.getPublic().getEncoded()), //$NON-NLS-1$
				StandardCharsets.US_ASCII);
		out.println("private key " + privateFile + " (keep it secret: whoever has it can publish states)"); //$NON-NLS-1$ //$NON-NLS-2$
		out.println("public key " + publicFile); //$NON-NLS-1$
		out.println("pin remotePublicKey=" + ManifestSigner.oneLine(pair.getPublic())); //$NON-NLS-1$
		return IApplication.EXIT_OK;
	}

	private Object publish(RemoteService remote, File gitDir, String commit, Options options)
			throws IOException, CoreException, UsageException {
		String keyFile = options.signingKey != null ? options.signingKey : System.getenv("BRANCHSTATE_SIGNING_KEY"); //$NON-NLS-1$
		if (keyFile == null || keyFile.isBlank()) {
			throw new UsageException("publish needs --signing-key=<PEM file> (or $BRANCHSTATE_SIGNING_KEY)"); //$NON-NLS-1$
		}
		PrivateKey key = ManifestSigner.readPrivateKey(Path.of(keyFile));
		long start = System.nanoTime();
		RemoteStates.Published published = remote.publish(gitDir, commit, key, creator(), new NullProgressMonitor());
		long ms = (System.nanoTime() - start) / 1_000_000;
		if (published.alreadyPublished()) {
			out.println("already published " + commit + " manifest=" + published.manifestKey() + " ms=" + ms); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
		} else {
			out.println("published " + commit + " size=" + published.manifest().size() + " sha256=" //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					+ published.manifest().sha256() + " manifest=" + published.manifestKey() + " ms=" + ms); //$NON-NLS-1$ //$NON-NLS-2$
		}
		return IApplication.EXIT_OK;
	}

	private Object fetch(RemoteService remote, File gitDir, String commit)
			throws IOException, CoreException, NotFoundException {
		try (Repository repository = new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build()) {
			Set<String> published = remote.publishedCommits(repository, gitDir);
			Object nearest = new StatePicker(1000, Integer.MAX_VALUE).nearest(repository, published, commit,
					SubMonitor.convert(null));
			if (!(nearest instanceof StatePicker.Nearest n)) {
				throw new NotFoundException("no published state of " + commit + " or of its 1000 nearest ancestors for " //$NON-NLS-1$ //$NON-NLS-2$
						+ gitDir);
			}
			long start = System.nanoTime();
			StateInfo state = remote.fetch(repository, gitDir, n.commit(), null, new NullProgressMonitor());
			long ms = (System.nanoTime() - start) / 1_000_000;
			out.println("fetched " + state.commitId() + " size=" + state.size() + " data=" + state.uncompressedSize() //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
					+ " archive=" + state.archive() + " ms=" + ms); //$NON-NLS-1$ //$NON-NLS-2$
			return IApplication.EXIT_OK;
		}
	}

	private Object published(StateService service, RemoteService remote, File gitDir) throws IOException, CoreException {
		try (Repository repository = new FileRepositoryBuilder().setGitDir(gitDir).setMustExist(true).build()) {
			Set<String> published = remote.publishedCommits(repository, gitDir);
			Set<String> local = new java.util.HashSet<>();
			service.states(gitDir).forEach(s -> local.add(s.commitId()));
			for (String commit : published) {
				out.println("published " + commit + (local.contains(commit) ? " local" : " remote-only")); //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
			}
			out.println(published.size() + " published state(s)"); //$NON-NLS-1$
			return IApplication.EXIT_OK;
		}
	}

	private static String creator() {
		String user = System.getProperty("user.name", "?"); //$NON-NLS-1$ //$NON-NLS-2$
		String host = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("?"); //$NON-NLS-1$ //$NON-NLS-2$
		return user + '@' + host + " (Branchstate headless publish)"; //$NON-NLS-1$
	}

	/** The remote store options of the command line, over the preferences. */
	private static final class Options {
		String endpoint;
		String bucket;
		String prefix;
		String region;
		Boolean pathStyle;
		String publicKey;
		String signingKey;

		boolean take(String a) {
			if (a.equals("--path-style")) { //$NON-NLS-1$
				pathStyle = Boolean.TRUE;
				return true;
			}
			String[] names = { "--endpoint=", "--bucket=", "--prefix=", "--region=", "--public-key=", "--signing-key=" }; //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$ //$NON-NLS-4$ //$NON-NLS-5$ //$NON-NLS-6$
			for (int i = 0; i < names.length; i++) {
				if (a.startsWith(names[i])) {
					String v = a.substring(names[i].length());
					switch (i) {
					case 0 -> endpoint = v;
					case 1 -> bucket = v;
					case 2 -> prefix = v;
					case 3 -> region = v;
					case 4 -> publicKey = v;
					default -> signingKey = v;
					}
					return true;
				}
			}
			return false;
		}

		/** @return settings over the preferences' when an option was given, else {@code null} (the preferences) */
		RemoteSettings settings(RemoteService remote) throws UsageException, IOException {
			if (endpoint == null && bucket == null && prefix == null && region == null && pathStyle == null
					&& publicKey == null) {
				return null;
			}
			remote.setSettings(null);
			Optional<RemoteSettings> base;
			try {
				base = remote.settings();
			} catch (IllegalArgumentException e) {
				base = Optional.empty();
			}
			String e = endpoint != null ? endpoint : base.map(s -> s.endpoint().toString()).orElse(null);
			String b = bucket != null ? bucket : base.map(RemoteSettings::bucket).orElse(null);
			if (e == null || b == null) {
				throw new UsageException("the remote store needs --endpoint= and --bucket= (or the preferences)"); //$NON-NLS-1$
			}
			Optional<PublicKey> key = base.flatMap(RemoteSettings::publicKey);
			if (publicKey != null) {
				Path file = Path.of(publicKey);
				key = Optional.of(ManifestSigner.readPublicKey(Files.isRegularFile(file)
						? Files.readString(file, StandardCharsets.US_ASCII) : publicKey));
			}
			try {
				return new RemoteSettings(URI.create(e), b,
						prefix != null ? prefix : base.map(RemoteSettings::prefix).orElse("branchstate"), //$NON-NLS-1$
						region != null ? region : base.map(RemoteSettings::region).orElse(null),
						pathStyle != null ? pathStyle.booleanValue() : base.map(RemoteSettings::pathStyle).orElse(false),
						RemoteConfiguration.credentials(), key,
						base.map(RemoteSettings::timeout).orElse(Duration.ofSeconds(10)));
			} catch (IllegalArgumentException x) {
				throw new UsageException(x.getMessage());
			}
		}
	}
}

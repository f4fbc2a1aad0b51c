package dev.branchstate.install.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The site's signing-key step ({@code releng/dev.branchstate.site/signing/SigningKey.java}) with CI's key given in
 * the environment: a good key is taken, in a file or armored in the variable itself; bad input stops the build with
 * a message naming the key and the reason. (Without a key it generates one: every build of the site does that.)
 */
class SigningKeyTest {

	/** The passphrase of the key the site build used: CI's, or the site pom's for a throwaway key. */
	private static final String PASSPHRASE = System.getenv("BRANCHSTATE_SIGNING_PASSPHRASE") != null
			? System.getenv("BRANCHSTATE_SIGNING_PASSPHRASE")
			: "throwaway-build-key";

	@TempDir
	static Path temp;
	private static Path site;
	private static Path builtKey;

	@BeforeAll
	static void findTheBuild() {
		site = Path.of(System.getProperty("branchstate.site"));
		builtKey = site.resolve("signing/secret-key.asc");
		assertThat(builtKey).as("the site build's key (build releng/dev.branchstate.site first)").isRegularFile();
	}

	@Test
	void ciKeyInAFileIsTakenAndItsFingerprintWritten() throws Exception {
		Run run = run(Map.of("BRANCHSTATE_SIGNING_KEY", builtKey.toString(), "BRANCHSTATE_SIGNING_PASSPHRASE", PASSPHRASE));
		assertThat(run.exit).as(run.output).isZero();
		assertThat(run.output).contains("signing the update site with the key from " + builtKey);
		assertThat(Files.readString(run.out.resolve("fingerprint")).strip())
				.isEqualTo(SignedSite.buildFingerprint(site));
		assertThat(Files.getPosixFilePermissions(run.out.resolve("secret-key.asc")).toString())
				.isEqualTo("[OWNER_READ, OWNER_WRITE]");
	}

	@Test
	void ciKeyArmoredInTheVariableIsTaken() throws Exception {
		Run run = run(Map.of("BRANCHSTATE_SIGNING_KEY", Files.readString(builtKey), "BRANCHSTATE_SIGNING_PASSPHRASE",
				PASSPHRASE));
		assertThat(run.exit).as(run.output).isZero();
		assertThat(Files.readString(run.out.resolve("fingerprint")).strip())
				.isEqualTo(SignedSite.buildFingerprint(site));
	}

	@Test
	void aWrongPassphraseNamesTheKeyAndTheReason() throws Exception {
		Run run = run(Map.of("BRANCHSTATE_SIGNING_KEY", builtKey.toString(), "BRANCHSTATE_SIGNING_PASSPHRASE",
				PASSPHRASE + "-wrong"));
		assertThat(run.exit).isEqualTo(1);
		assertThat(run.output).contains("ERROR: " + builtKey + ": BRANCHSTATE_SIGNING_PASSPHRASE does not unlock the"
				+ " signing key " + SignedSite.buildFingerprint(site));
		assertThat(run.out.resolve("secret-key.asc")).doesNotExist();
	}

	@Test
	void aMissingPassphraseAFileThatIsNoSecretKeyAndAMissingFileAreNamed() throws Exception {
		Run noPassphrase = run(Map.of("BRANCHSTATE_SIGNING_KEY", builtKey.toString()));
		assertThat(noPassphrase.exit).isEqualTo(1);
		assertThat(noPassphrase.output).contains(builtKey + ": BRANCHSTATE_SIGNING_KEY is set but"
				+ " BRANCHSTATE_SIGNING_PASSPHRASE is not");

		Path notAKey = Files.writeString(temp.resolve("not-a-key.asc"), "hello\n");
		Run noKey = run(Map.of("BRANCHSTATE_SIGNING_KEY", notAKey.toString(), "BRANCHSTATE_SIGNING_PASSPHRASE", "x"));
		assertThat(noKey.exit).isEqualTo(1);
		assertThat(noKey.output).contains(notAKey + ": not an OpenPGP secret key");

		// the public key given by mistake
		Path publicKey = site.resolve("signing/branchstate-signing-key.asc");
		Run publicOnly = run(Map.of("BRANCHSTATE_SIGNING_KEY", publicKey.toString(), "BRANCHSTATE_SIGNING_PASSPHRASE", "x"));
		assertThat(publicOnly.exit).as(publicOnly.output).isEqualTo(1);
		assertThat(publicOnly.output).contains(publicKey + ": not an OpenPGP secret key");

		Path missing = temp.resolve("missing.asc");
		Run noFile = run(Map.of("BRANCHSTATE_SIGNING_KEY", missing.toString(), "BRANCHSTATE_SIGNING_PASSPHRASE", "x"));
		assertThat(noFile.exit).isEqualTo(1);
		assertThat(noFile.output).contains(missing + ": BRANCHSTATE_SIGNING_KEY names no readable file");
	}

	private record Run(int exit, String output, Path out) {
	}

	private static int runs;

	private static Run run(Map<String, String> env) throws IOException, InterruptedException {
		Path out = temp.resolve("out" + ++runs);
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		Path source = site.resolve("../signing/SigningKey.java").normalize();
		ProcessBuilder pb = new ProcessBuilder(List.of(java.toString(), "-cp", site.resolve("signing/lib") + "/*",
				source.toString(), out.toString(), PASSPHRASE)).redirectErrorStream(true);
		pb.environment().remove("BRANCHSTATE_SIGNING_KEY");
		pb.environment().remove("BRANCHSTATE_SIGNING_PASSPHRASE");
		pb.environment().putAll(env);
		Process p = pb.start();
		String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!p.waitFor(60, TimeUnit.SECONDS)) {
			p.destroyForcibly();
			throw new AssertionError("SigningKey did not finish: " + output);
		}
		return new Run(p.exitValue(), output, out);
	}
}

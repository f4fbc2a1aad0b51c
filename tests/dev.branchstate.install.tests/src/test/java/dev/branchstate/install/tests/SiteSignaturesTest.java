package dev.branchstate.install.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipFile;

import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPSignature;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * The built update site as p2 reads it: every artifact carries a PGP signature ({@code pgp.signatures} in
 * artifacts.xml) that verifies over the artifact's bytes with the build's signing key, the key is on the repository
 * and on each artifact ({@code pgp.publicKeys}), and the same key is at the site's root for users. The installs that
 * prove p2 accepts it, and refuses a copy without one signature or with another key's, are in
 * {@link InstallFromUpdateSiteTest}.
 */
class SiteSignaturesTest {

	private static Path siteZip;
	private static String fingerprint;
	private static Document artifactsXml;

	@BeforeAll
	static void readTheSite() throws Exception {
		Path siteTarget = Path.of(System.getProperty("branchstate.site"));
		siteZip = SignedSite.zip(siteTarget);
		fingerprint = SignedSite.buildFingerprint(siteTarget);
		artifactsXml = SignedSite.artifactsXml(siteZip);
	}

	@Test
	void everyArtifactIsSignedByTheBuildKeyOverItsOwnBytes() throws Exception {
		List<SignedSite.Artifact> artifacts = SignedSite.artifacts(artifactsXml);
		List<String> jarsInZip = new ArrayList<>();
		try (ZipFile zip = new ZipFile(siteZip.toFile())) {
			zip.stream().map(e -> e.getName()).filter(n -> n.matches("(plugins|features)/[^/]+\\.jar")).forEach(jarsInZip::add);
		}
		// the artifacts of the metadata are exactly the site's files, zstd-jni among them
		assertThat(artifacts).extracting(SignedSite.Artifact::file).containsExactlyInAnyOrderElementsOf(jarsInZip);
		assertThat(artifacts).extracting(SignedSite.Artifact::id).contains("com.github.luben.zstd-jni",
				"dev.branchstate.core", "dev.branchstate.feature");
		for (SignedSite.Artifact a : artifacts) {
			String signatures = a.properties().get(SignedSite.SIGNATURES);
			assertThat(signatures).as(a.key() + " has " + SignedSite.SIGNATURES).isNotBlank();
			List<PGPPublicKey> keys = SignedSite.publicKeys(a.properties().get(SignedSite.PUBLIC_KEYS));
			assertThat(keys).as(a.key() + ": " + SignedSite.PUBLIC_KEYS).extracting(SignedSite::fingerprint)
					.containsExactly(fingerprint);
			List<PGPSignature> list = SignedSite.signatures(signatures);
			assertThat(list).as(a.key() + ": signatures").hasSize(1);
			byte[] bytes = SignedSite.read(siteZip, a.file());
			assertThat(SignedSite.verifies(list.get(0), keys.get(0), bytes)).as(a.key() + ": signature over " + a.file())
					.isTrue();
			bytes[bytes.length / 2] ^= 1; // the check is real: one changed bit fails it
			assertThat(SignedSite.verifies(SignedSite.signatures(signatures).get(0), keys.get(0), bytes))
					.as(a.key() + ": signature over a changed " + a.file()).isFalse();
		}
	}

	@Test
	void theRepositoryAndTheSiteRootPublishTheSigningKey() throws Exception {
		Map<String, String> repository = SignedSite.repositoryProperties(artifactsXml);
		assertThat(SignedSite.publicKeys(repository.get(SignedSite.PUBLIC_KEYS))).extracting(SignedSite::fingerprint)
				.containsExactly(fingerprint);
		String published = new String(SignedSite.read(siteZip, "branchstate-signing-key.asc"), StandardCharsets.US_ASCII);
		assertThat(SignedSite.publicKeys(published)).extracting(SignedSite::fingerprint).first().isEqualTo(fingerprint);
	}
}

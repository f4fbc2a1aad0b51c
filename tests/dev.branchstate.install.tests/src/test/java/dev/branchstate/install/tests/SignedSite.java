package dev.branchstate.install.tests;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;

import org.bouncycastle.bcpg.ArmoredOutputStream;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyPacket;
import org.bouncycastle.crypto.generators.RSAKeyPairGenerator;
import org.bouncycastle.crypto.params.RSAKeyGenerationParameters;
import org.bouncycastle.openpgp.PGPObjectFactory;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPPublicKeyRingCollection;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureGenerator;
import org.bouncycastle.openpgp.PGPSignatureList;
import org.bouncycastle.openpgp.PGPUtil;
import org.bouncycastle.openpgp.operator.bc.BcKeyFingerprintCalculator;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentSignerBuilder;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentVerifierBuilderProvider;
import org.bouncycastle.openpgp.operator.bc.BcPGPKeyPair;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The p2 artifact metadata of the built update site, read as p2 reads it ({@code artifacts.xml} in
 * {@code artifacts.jar}), and copies of the site with one artifact's PGP signature removed or replaced by another
 * key's — what the director must refuse.
 */
final class SignedSite {

	static final String SIGNATURES = "pgp.signatures";
	static final String PUBLIC_KEYS = "pgp.publicKeys";

	/** One artifact of artifacts.xml: its key (classifier,id,version, as p2 prints it), file and properties. */
	record Artifact(String classifier, String id, String version, String file, Map<String, String> properties) {
		String key() {
			return classifier + "," + id + "," + version;
		}
	}

	private SignedSite() {
	}

	/** @return the site zip in the site module's target folder */
	static Path zip(Path siteTarget) throws IOException {
		try (Stream<Path> files = Files.list(siteTarget)) {
			return files.filter(p -> p.getFileName().toString().matches("dev\\.branchstate\\.site-.*\\.zip")).findFirst()
					.orElseThrow(() -> new IllegalStateException("No update-site zip in " + siteTarget
							+ ": build releng/dev.branchstate.site first"));
		}
	}

	/** @return the fingerprint (lower-case hex) of the key the build signed the site with, as the build wrote it */
	static String buildFingerprint(Path siteTarget) throws IOException {
		Path file = siteTarget.resolve("signing/fingerprint");
		if (!Files.isRegularFile(file)) {
			throw new IllegalStateException("No " + file + ": build releng/dev.branchstate.site first (it writes the"
					+ " signing key's fingerprint there)");
		}
		return Files.readString(file, StandardCharsets.US_ASCII).strip();
	}

	static Document artifactsXml(Path siteZip) throws Exception {
		try (ZipFile zip = new ZipFile(siteZip.toFile())) {
			ZipEntry jar = zip.getEntry("artifacts.jar");
			if (jar == null) {
				throw new IllegalStateException(siteZip + " has no artifacts.jar");
			}
			try (ZipInputStream in = new ZipInputStream(zip.getInputStream(jar))) {
				for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
					if (e.getName().equals("artifacts.xml")) {
						return DocumentBuilderFactory.newInstance().newDocumentBuilder()
								.parse(new ByteArrayInputStream(in.readAllBytes()));
					}
				}
			}
		}
		throw new IllegalStateException(siteZip + ": artifacts.jar has no artifacts.xml");
	}

	/** @return the repository's own properties (the repository element's, not an artifact's) */
	static Map<String, String> repositoryProperties(Document xml) {
		Element properties = (Element) xml.getDocumentElement().getElementsByTagName("properties").item(0);
		return properties(properties);
	}

	static List<Artifact> artifacts(Document xml) {
		List<Artifact> artifacts = new ArrayList<>();
		NodeList nodes = xml.getElementsByTagName("artifact");
		for (int i = 0; i < nodes.getLength(); i++) {
			Element a = (Element) nodes.item(i);
			String classifier = a.getAttribute("classifier");
			String folder = switch (classifier) {
			case "osgi.bundle" -> "plugins/";
			case "org.eclipse.update.feature" -> "features/";
			default -> throw new IllegalStateException("artifact of classifier " + classifier + ": " + a.getAttribute("id"));
			};
			String file = folder + a.getAttribute("id") + "_" + a.getAttribute("version") + ".jar";
			artifacts.add(new Artifact(classifier, a.getAttribute("id"), a.getAttribute("version"), file,
					properties((Element) a.getElementsByTagName("properties").item(0))));
		}
		return artifacts;
	}

	private static Map<String, String> properties(Element properties) {
		Map<String, String> map = new LinkedHashMap<>();
		NodeList list = properties.getElementsByTagName("property");
		for (int i = 0; i < list.getLength(); i++) {
			Element p = (Element) list.item(i);
			map.put(p.getAttribute("name"), p.getAttribute("value"));
		}
		return map;
	}

	static List<PGPPublicKey> publicKeys(String armored) throws Exception {
		List<PGPPublicKey> keys = new ArrayList<>();
		try (InputStream in = PGPUtil.getDecoderStream(new ByteArrayInputStream(armored.getBytes(StandardCharsets.US_ASCII)))) {
			for (PGPPublicKeyRing ring : new PGPPublicKeyRingCollection(in, new BcKeyFingerprintCalculator())) {
				ring.getPublicKeys().forEachRemaining(keys::add);
			}
		}
		return keys;
	}

	static String fingerprint(PGPPublicKey key) {
		return HexFormat.of().formatHex(key.getFingerprint());
	}

	static List<PGPSignature> signatures(String armored) throws Exception {
		List<PGPSignature> signatures = new ArrayList<>();
		try (InputStream in = PGPUtil.getDecoderStream(new ByteArrayInputStream(armored.getBytes(StandardCharsets.US_ASCII)))) {
			for (Object o : new PGPObjectFactory(in, new BcKeyFingerprintCalculator())) {
				if (o instanceof PGPSignatureList list) {
					list.forEach(signatures::add);
				}
			}
		}
		return signatures;
	}

	/** @return whether the signature is the key's over exactly these bytes */
	static boolean verifies(PGPSignature signature, PGPPublicKey key, byte[] content) throws Exception {
		signature.init(new BcPGPContentVerifierBuilderProvider(), key);
		signature.update(content);
		return signature.verify();
	}

	static byte[] read(Path siteZip, String entry) throws IOException {
		try (ZipFile zip = new ZipFile(siteZip.toFile())) {
			ZipEntry e = zip.getEntry(entry);
			if (e == null) {
				throw new IllegalStateException(siteZip + " has no " + entry);
			}
			try (InputStream in = zip.getInputStream(e)) {
				return in.readAllBytes();
			}
		}
	}

	/** A key of someone else: a fresh RSA key pair. */
	record ForeignKey(BcPGPKeyPair pair) {
		static ForeignKey generate() throws Exception {
			RSAKeyPairGenerator generator = new RSAKeyPairGenerator();
			generator.init(new RSAKeyGenerationParameters(BigInteger.valueOf(0x10001), new SecureRandom(), 2048, 80));
			return new ForeignKey(new BcPGPKeyPair(PublicKeyPacket.VERSION_4, PGPPublicKey.RSA_GENERAL,
					generator.generateKeyPair(), new Date()));
		}

		String fingerprint() {
			return SignedSite.fingerprint(pair.getPublicKey());
		}

		String sign(byte[] content) throws Exception {
			PGPSignatureGenerator generator = new PGPSignatureGenerator(
					new BcPGPContentSignerBuilder(PGPPublicKey.RSA_GENERAL, HashAlgorithmTags.SHA256), pair.getPublicKey());
			generator.init(PGPSignature.BINARY_DOCUMENT, pair.getPrivateKey());
			generator.update(content);
			ByteArrayOutputStream bytes = new ByteArrayOutputStream();
			try (ArmoredOutputStream armor = ArmoredOutputStream.builder().setVersion(null).build(bytes)) {
				generator.generate().encode(armor);
			}
			return bytes.toString(StandardCharsets.US_ASCII);
		}

		String armoredPublicKey() throws IOException {
			ByteArrayOutputStream bytes = new ByteArrayOutputStream();
			try (ArmoredOutputStream armor = ArmoredOutputStream.builder().setVersion(null).build(bytes)) {
				new PGPPublicKeyRing(List.of(pair.getPublicKey())).encode(armor);
			}
			return bytes.toString(StandardCharsets.US_ASCII);
		}
	}

	/**
	 * Unpacks the site zip into {@code folder} with the artifact {@code id}'s PGP properties changed: removed when
	 * {@code signature} is null, else replaced by that signature and {@code publicKey}. The artifact metadata is
	 * written as plain artifacts.xml (artifacts.jar and artifacts.xml.xz deleted; p2.index lets p2 read the .xml).
	 *
	 * @return the folder, a p2 repository
	 */
	static Path copyWithSignatureOf(Path siteZip, Path folder, String id, String signature, String publicKey)
			throws Exception {
		Document xml = artifactsXml(siteZip);
		try (ZipFile zip = new ZipFile(siteZip.toFile())) {
			for (ZipEntry e : zip.stream().map(ZipEntry.class::cast).toList()) {
				Path target = folder.resolve(e.getName()).normalize();
				if (!target.startsWith(folder)) {
					throw new IOException(siteZip + ": entry outside the site: " + e.getName());
				}
				if (e.isDirectory()) {
					Files.createDirectories(target);
				} else {
					Files.createDirectories(target.getParent());
					try (InputStream in = zip.getInputStream(e)) {
						Files.copy(in, target);
					}
				}
			}
		}
		boolean found = false;
		NodeList nodes = xml.getElementsByTagName("artifact");
		for (int i = 0; i < nodes.getLength(); i++) {
			Element a = (Element) nodes.item(i);
			if (!a.getAttribute("id").equals(id)) {
				continue;
			}
			found = true;
			Element properties = (Element) a.getElementsByTagName("properties").item(0);
			NodeList list = properties.getElementsByTagName("property");
			for (int j = list.getLength() - 1; j >= 0; j--) {
				Element p = (Element) list.item(j);
				String name = p.getAttribute("name");
				if (name.equals(SIGNATURES) || name.equals(PUBLIC_KEYS)) {
					properties.removeChild(p);
				}
			}
			if (signature != null) {
				Element s = xml.createElement("property");
				s.setAttribute("name", SIGNATURES);
				s.setAttribute("value", signature);
				properties.appendChild(s);
				Element k = xml.createElement("property");
				k.setAttribute("name", PUBLIC_KEYS);
				k.setAttribute("value", publicKey);
				properties.appendChild(k);
			}
			properties.setAttribute("size", Integer.toString(properties.getElementsByTagName("property").getLength()));
		}
		if (!found) {
			throw new IllegalStateException(siteZip + ": no artifact " + id);
		}
		Files.delete(folder.resolve("artifacts.jar"));
		Files.delete(folder.resolve("artifacts.xml.xz"));
		var transformer = TransformerFactory.newInstance().newTransformer();
		transformer.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
		transformer.transform(new DOMSource(xml), new StreamResult(folder.resolve("artifacts.xml").toFile()));
		return folder;
	}
}

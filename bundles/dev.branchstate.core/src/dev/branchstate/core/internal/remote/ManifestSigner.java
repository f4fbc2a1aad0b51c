package dev.branchstate.core.internal.remote;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;

/**
 * Ed25519 signatures of manifests (the JDK's), and the keys in the forms people keep them: PEM files as
 * {@code openssl genpkey -algorithm ed25519} writes them (PKCS#8 private key, X.509 public key), or the public key
 * as the one line of Base64 between the PEM lines, which is what the preference pins.
 * <p>
 * Only who holds the private key (CI) can publish a state that IDEs use: the pinned public key is checked before
 * anything else of a manifest is read, and the manifest holds the archive's SHA-256, so whoever can write to the
 * bucket but lacks the key can neither forge a manifest nor change an archive.
 */
public final class ManifestSigner {

	private static final String ALGORITHM = "Ed25519"; //$NON-NLS-1$

	private ManifestSigner() {
	}

	/** @return the manifest's text with its signature line */
	public static byte[] sign(StateManifest manifest, PrivateKey key) throws GeneralSecurityException {
		byte[] text = manifest.unsignedText();
		Signature s = Signature.getInstance(ALGORITHM);
		s.initSign(key);
		s.update(text);
		byte[] line = (StateManifest.SIGNATURE + Base64.getEncoder().encodeToString(s.sign()) + '\n')
				.getBytes(StandardCharsets.US_ASCII);
		byte[] result = Arrays.copyOf(text, text.length + line.length);
		System.arraycopy(line, 0, result, text.length, line.length);
		return result;
	}

	/**
	 * Checks the signature of a manifest's text, then reads it.
	 *
	 * @param name the object's key, for messages
	 * @throws IllegalArgumentException naming the object when it is not signed by {@code key} or not a manifest
	 */
	public static StateManifest verify(String name, byte[] text, PublicKey key) {
		int end = text.length;
		if (end > 0 && text[end - 1] == '\n') {
			end--;
		}
		int lineStart = end;
		while (lineStart > 0 && text[lineStart - 1] != '\n') {
			lineStart--;
		}
		String last = new String(text, lineStart, end - lineStart, StandardCharsets.US_ASCII);
		if (!last.startsWith(StateManifest.SIGNATURE)) {
			throw new IllegalArgumentException(name + ": the manifest is not signed"); //$NON-NLS-1$
		}
		byte[] signed = Arrays.copyOf(text, lineStart);
		boolean valid;
		try {
			Signature s = Signature.getInstance(ALGORITHM);
			s.initVerify(key);
			s.update(signed);
			valid = s.verify(Base64.getDecoder().decode(last.substring(StateManifest.SIGNATURE.length())));
		} catch (GeneralSecurityException | IllegalArgumentException e) {
			valid = false;
		}
		if (!valid) {
			throw new IllegalArgumentException(name
					+ ": the manifest's signature does not match the pinned public key (signed by another key, or changed)"); //$NON-NLS-1$
		}
		return StateManifest.parse(name, signed);
	}

	public static KeyPair generate() throws GeneralSecurityException {
		return KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
	}

	/** @return a private key from a PEM file (PKCS#8) */
	public static PrivateKey readPrivateKey(Path file) throws IOException {
		try {
			return KeyFactory.getInstance(ALGORITHM)
					.generatePrivate(new PKCS8EncodedKeySpec(pemBody(Files.readString(file, StandardCharsets.US_ASCII))));
		} catch (GeneralSecurityException | IllegalArgumentException e) {
			throw new IOException(file + ": not an Ed25519 private key in PEM (PKCS#8) form: " + e.getMessage(), e); //$NON-NLS-1$
		}
	}

	/** @return a public key from a PEM text or the one line of Base64 inside it */
	public static PublicKey readPublicKey(String pemOrBase64) {
		try {
			return KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(pemBody(pemOrBase64)));
		} catch (GeneralSecurityException | IllegalArgumentException e) {
			throw new IllegalArgumentException("not an Ed25519 public key (PEM or its Base64): " + e.getMessage(), e); //$NON-NLS-1$
		}
	}

	public static String pem(String type, byte[] der) {
		return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] { '\n' }).encodeToString(der) //$NON-NLS-1$ //$NON-NLS-2$
				+ "\n-----END " + type + "-----\n"; //$NON-NLS-1$ //$NON-NLS-2$
	}

	/** @return the public key as the one line that the preference pins */
	public static String oneLine(PublicKey key) {
		return Base64.getEncoder().encodeToString(key.getEncoded());
	}

	private static byte[] pemBody(String text) {
		return Base64.getMimeDecoder().decode(text.replaceAll("-----[A-Z ]+-----", "").trim()); //$NON-NLS-1$ //$NON-NLS-2$
	}
}

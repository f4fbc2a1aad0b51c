/*
 * Copyright (c) 2026 the Branchstate authors. SPDX-License-Identifier: EPL-2.0
 */
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;

import org.bouncycastle.bcpg.ArmoredOutputStream;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.PublicKeyPacket;
import org.bouncycastle.bcpg.SymmetricKeyAlgorithmTags;
import org.bouncycastle.bcpg.sig.KeyFlags;
import org.bouncycastle.crypto.generators.RSAKeyPairGenerator;
import org.bouncycastle.crypto.params.RSAKeyGenerationParameters;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPKeyRingGenerator;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSecretKey;
import org.bouncycastle.openpgp.PGPSecretKeyRing;
import org.bouncycastle.openpgp.PGPSecretKeyRingCollection;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureSubpacketGenerator;
import org.bouncycastle.openpgp.PGPUtil;
import org.bouncycastle.openpgp.operator.bc.BcKeyFingerprintCalculator;
import org.bouncycastle.openpgp.operator.bc.BcPBESecretKeyDecryptorBuilder;
import org.bouncycastle.openpgp.operator.bc.BcPBESecretKeyEncryptorBuilder;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentSignerBuilder;
import org.bouncycastle.openpgp.operator.bc.BcPGPDigestCalculatorProvider;
import org.bouncycastle.openpgp.operator.bc.BcPGPKeyPair;

/**
 * Prepares the key that tycho-gpg-plugin ({@code sign-p2-artifacts}, signer {@code bc}) signs the update site with.
 * Run by the site's pom.xml before the site is assembled:
 * {@code java -cp <bcprov, bcpg, bcutil> SigningKey.java <output folder> <throwaway passphrase>}.
 * <ul>
 * <li>With {@code BRANCHSTATE_SIGNING_KEY} in the environment (CI's secret: the path of an armored secret key file, or
 * the armored key itself) and {@code BRANCHSTATE_SIGNING_PASSPHRASE}: checks that the key can be read and that the
 * passphrase unlocks its signing key, and copies it for the signer.</li>
 * <li>Without it: generates a throwaway RSA key for this build only (so every local build signs its site) and says so.
 * It is encrypted with {@code BRANCHSTATE_SIGNING_PASSPHRASE} when that is set (the signer then takes that one), else
 * with the throwaway passphrase given on the command line.</li>
 * </ul>
 * Writes {@code secret-key.asc} (owner-only), {@code branchstate-signing-key.asc} and {@code fingerprint} (the signing key's full
 * fingerprint in lower-case hex, as p2's director takes it in {@code -trustedPGPKeys}) into the output folder. Exits 1
 * with a message naming the key and the reason on bad input.
 */
public class SigningKey {

	static final String KEY_ENV = "BRANCHSTATE_SIGNING_KEY";
	static final String PASSPHRASE_ENV = "BRANCHSTATE_SIGNING_PASSPHRASE";
	private static final String PREFIX = "[branchstate signing] ";
	/** The secret key ring holding the signing key: its public keys are what the site publishes. */
	private static PGPSecretKeyRing signingRing;

	public static void main(String[] args) throws Exception {
		if (args.length != 2) {
			fail("usage: SigningKey <output folder> <throwaway passphrase>");
		}
		Path out = Files.createDirectories(Path.of(args[0]));
		String key = System.getenv(KEY_ENV);
		String passphrase = System.getenv(PASSPHRASE_ENV);
		String armoredSecret;
		PGPSecretKey signing;
		if (key != null && !key.isBlank()) {
			String source = key.strip().startsWith("-----BEGIN PGP") ? "$" + KEY_ENV + " (armored key)" : key.strip();
			if (passphrase == null) {
				fail(source + ": " + KEY_ENV + " is set but " + PASSPHRASE_ENV
						+ " is not; set it to the key's passphrase");
			}
			armoredSecret = source.startsWith("$") ? key.strip() + "\n" : read(Path.of(source));
			signing = signingKey(armoredSecret, source);
			unlock(signing, passphrase, source);
			System.out.println(PREFIX + "signing the update site with the key from " + source + " ("
					+ userId(signing) + "), fingerprint " + fingerprint(signing));
		} else {
			String pass = passphrase != null ? passphrase : args[1];
			long start = System.nanoTime();
			armoredSecret = generate(pass);
			signing = signingKey(armoredSecret, "the generated key");
			unlock(signing, pass, "the generated key");
			System.out.println(PREFIX + "no " + KEY_ENV + " in the environment: generated a THROWAWAY key for this"
					+ " build only (" + (System.nanoTime() - start) / 1_000_000 + " ms), fingerprint "
					+ fingerprint(signing) + ". The site is signed, but by a key nobody trusts beyond this build."
					+ " Release builds set " + KEY_ENV + " (secret key file or armored key) and " + PASSPHRASE_ENV
					+ ".");
		}
		Path secret = out.resolve("secret-key.asc");
		Path tmp = Files.createTempFile(out, "secret", ".tmp",
				PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
		Files.writeString(tmp, armoredSecret, StandardCharsets.US_ASCII);
		Files.move(tmp, secret, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
		Files.writeString(out.resolve("branchstate-signing-key.asc"), armored(signingRing), StandardCharsets.US_ASCII);
		Files.writeString(out.resolve("fingerprint"), fingerprint(signing) + "\n", StandardCharsets.US_ASCII);
	}

	/** The key tycho-gpg-plugin's bc signer signs with (no keyname): the first signing key with a private part. */
	private static PGPSecretKey signingKey(String armored, String source) {
		List<PGPSecretKeyRing> rings = new ArrayList<>();
		try (InputStream in = PGPUtil.getDecoderStream(
				new ByteArrayInputStream(armored.getBytes(StandardCharsets.US_ASCII)))) {
			new PGPSecretKeyRingCollection(in, new BcKeyFingerprintCalculator()).getKeyRings().forEachRemaining(rings::add);
		} catch (IOException | PGPException | RuntimeException e) {
			fail(source + ": not an OpenPGP secret key (expected an armored 'PGP PRIVATE KEY BLOCK', e.g. from"
					+ " gpg --armor --export-secret-keys): " + e.getMessage());
		}
		if (rings.isEmpty()) {
			fail(source + ": not an OpenPGP secret key: no secret key ring in it (expected an armored 'PGP PRIVATE KEY"
					+ " BLOCK', e.g. from gpg --armor --export-secret-keys)");
		}
		for (PGPSecretKeyRing ring : rings) {
			for (PGPSecretKey k : ring) {
				if (k.isSigningKey() && !k.isPrivateKeyEmpty()) {
					signingRing = ring;
					return k;
				}
			}
		}
		fail(source + ": holds " + rings.size() + " secret key ring(s) but no secret key that can sign");
		return null;
	}

	private static void unlock(PGPSecretKey key, String passphrase, String source) {
		try {
			if (key.extractPrivateKey(new BcPBESecretKeyDecryptorBuilder(new BcPGPDigestCalculatorProvider())
					.build(passphrase.toCharArray())) == null) {
				fail(source + ": the signing key " + fingerprint(key) + " has no private key");
			}
		} catch (PGPException e) {
			fail(source + ": " + PASSPHRASE_ENV + " does not unlock the signing key " + fingerprint(key) + " ("
					+ e.getMessage() + ")");
		}
	}

	private static String generate(String passphrase) throws PGPException, IOException {
		RSAKeyPairGenerator generator = new RSAKeyPairGenerator();
		generator.init(new RSAKeyGenerationParameters(BigInteger.valueOf(0x10001), new SecureRandom(), 3072, 80));
		BcPGPKeyPair pair = new BcPGPKeyPair(PublicKeyPacket.VERSION_4, PGPPublicKey.RSA_GENERAL,
				generator.generateKeyPair(), new Date());
		PGPSignatureSubpacketGenerator subpackets = new PGPSignatureSubpacketGenerator();
		subpackets.setKeyFlags(false, KeyFlags.SIGN_DATA | KeyFlags.CERTIFY_OTHER);
		PGPKeyRingGenerator rings = new PGPKeyRingGenerator(PGPSignature.POSITIVE_CERTIFICATION, pair,
				"Branchstate throwaway build key (not for release) <throwaway@branchstate.invalid>",
				new BcPGPDigestCalculatorProvider().get(HashAlgorithmTags.SHA1), subpackets.generate(), null,
				new BcPGPContentSignerBuilder(PGPPublicKey.RSA_GENERAL, HashAlgorithmTags.SHA256),
				new BcPBESecretKeyEncryptorBuilder(SymmetricKeyAlgorithmTags.AES_256).build(passphrase.toCharArray()));
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (ArmoredOutputStream armor = ArmoredOutputStream.builder().setVersion(null).build(bytes)) {
			rings.generateSecretKeyRing().encode(armor);
		}
		return bytes.toString(StandardCharsets.US_ASCII);
	}

	private static String armored(PGPSecretKeyRing ring) throws IOException {
		List<PGPPublicKey> keys = new ArrayList<>();
		ring.getPublicKeys().forEachRemaining(keys::add);
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (ArmoredOutputStream armor = ArmoredOutputStream.builder().setVersion(null).build(bytes)) {
			new PGPPublicKeyRing(keys).encode(armor);
		}
		return bytes.toString(StandardCharsets.US_ASCII);
	}

	private static String read(Path file) {
		if (!Files.isRegularFile(file)) {
			fail(file + ": " + KEY_ENV + " names no readable file (give the path of an armored secret key file,"
					+ " or the armored key itself)");
		}
		try {
			return Files.readString(file, StandardCharsets.US_ASCII);
		} catch (IOException e) {
			fail(file + ": cannot read the signing key: " + e);
			return null;
		}
	}

	static String fingerprint(PGPSecretKey key) {
		return HexFormat.of().formatHex(key.getPublicKey().getFingerprint());
	}

	private static String userId(PGPSecretKey key) {
		var ids = key.getPublicKey().getUserIDs();
		return ids.hasNext() ? ids.next() : "no user id";
	}

	private static void fail(String message) {
		System.err.println(PREFIX + "ERROR: " + message);
		System.exit(1);
	}
}

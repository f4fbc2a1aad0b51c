/**
 * Remote states: an S3-compatible object store that CI publishes states to and IDEs fetch them from. The client is
 * the JDK's HTTP client with AWS Signature V4 ({@link dev.branchstate.core.internal.remote.S3Client}); manifests are
 * signed with Ed25519 and checked against a pinned public key
 * ({@link dev.branchstate.core.internal.remote.ManifestSigner}); a fetched state enters the local store and is
 * restored from there like any other.
 */
package dev.branchstate.core.internal.remote;

package dev.branchstate.core.tests;

import static org.assertj.core.api.Assertions.assertThat;

import org.eclipse.core.runtime.IExtensionPoint;
import org.eclipse.core.runtime.Platform;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;

class ContributorsExtensionPointTest {

	@Test
	void extensionPointIsRegisteredWithItsSchema() {
		IExtensionPoint point = Platform.getExtensionRegistry().getExtensionPoint("dev.branchstate.core.contributors");
		assertThat(point).isNotNull();
		assertThat(point.getSchemaReference()).isEqualTo("schema/contributors.exsd");
		assertThat(Platform.getBundle("dev.branchstate.core").getEntry("schema/contributors.exsd")).isNotNull();
	}

	@Test
	void jgitAndZstdResolveInsideEquinox() {
		// JGit needs slf4j, whose bundle needs an osgi.serviceloader processor (SPI Fly) to resolve.
		assertThat(Platform.getBundle("org.eclipse.jgit").getState()).isIn(Bundle.RESOLVED, Bundle.STARTING, Bundle.ACTIVE);
		assertThat(Repository.shortenRefName("refs/heads/main")).isEqualTo("main");
		byte[] data = new byte[4096];
		byte[] compressed = com.github.luben.zstd.Zstd.compress(data);
		assertThat(com.github.luben.zstd.Zstd.decompress(compressed, data.length)).isEqualTo(data);
	}
}

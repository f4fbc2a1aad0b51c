package dev.branchstate.archive.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.branchstate.archive.ArchiveProgress;
import dev.branchstate.archive.EntryType;

/**
 * Units deposited out of order are written in the order they were submitted, each where the one before it ends; an
 * aborted output leaves no file behind.
 */
class ArchiveOutputTest {

	@TempDir
	Path tmp;

	private final Buffers<Slot> slots = new Buffers<>(1, () -> new Slot(1024));

	private static WriteUnit.Entry unit(long seq, String text) {
		EntryRecord r = new EntryRecord(("e" + seq).getBytes(StandardCharsets.UTF_8), EntryType.FILE, 0644,
				FileTime.fromMillis(0));
		return new WriteUnit.Entry(seq, r, ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), null);
	}

	@Test
	void unitsDepositedOutOfOrderAreWrittenInSubmissionOrder() throws Exception {
		Path target = tmp.resolve("state.zip");
		ArchiveOutput output = new ArchiveOutput(target, null, slots, new ArchiveProgress(), new AtomicLong());
		WriteUnit.Entry first = unit(0, "first;");
		WriteUnit.Entry second = unit(1, "second;");
		WriteUnit.Entry third = unit(2, "third");

		output.deposit(third);
		assertThat(output.end()).as("nothing placed before the first unit").isZero();
		output.deposit(first);
		assertThat(output.end()).isEqualTo(6);
		output.deposit(second);
		assertThat(output.end()).isEqualTo(18);
		output.moveToTarget();
		output.close();

		assertThat(Files.readString(target)).isEqualTo("first;second;third");
		assertThat(first.record().localOffset).isZero();
		assertThat(second.record().localOffset).isEqualTo(6);
		assertThat(third.record().localOffset).isEqualTo(13);
		try (Stream<Path> files = Files.list(tmp)) {
			assertThat(files).containsExactly(target);
		}
	}

	@Test
	void anAbortedOutputLeavesNoFile() throws Exception {
		ArchiveOutput output = new ArchiveOutput(tmp.resolve("state.zip"), null, slots, new ArchiveProgress(),
				new AtomicLong());
		output.deposit(unit(0, "bytes"));
		output.abort();

		try (Stream<Path> files = Files.list(tmp)) {
			assertThat(files).isEmpty();
		}
	}
}

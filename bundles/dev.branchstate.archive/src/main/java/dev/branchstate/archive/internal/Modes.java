package dev.branchstate.archive.internal;

import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/** POSIX permission bits to and from NIO permission sets. */
final class Modes {

	private static final PosixFilePermission[] BITS = { PosixFilePermission.OTHERS_EXECUTE,
			PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE,
			PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE,
			PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ };

	@SuppressWarnings("unchecked")
	private static final FileAttribute<Set<PosixFilePermission>>[] ATTRS = (FileAttribute<Set<PosixFilePermission>>[]) new FileAttribute<?>[512];

	static {
		for (int m = 0; m < 512; m++) {
			ATTRS[m] = PosixFilePermissions.asFileAttribute(toSet(m));
		}
	}

	private Modes() {
	}

	static int toMode(Set<PosixFilePermission> perms) {
		int mode = 0;
		for (int i = 0; i < BITS.length; i++) {
			if (perms.contains(BITS[i])) {
				mode |= 1 << i;
			}
		}
		return mode;
	}

	static Set<PosixFilePermission> toSet(int mode) {
		Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
		for (int i = 0; i < BITS.length; i++) {
			if ((mode & (1 << i)) != 0) {
				s.add(BITS[i]);
			}
		}
		return s;
	}

	static FileAttribute<Set<PosixFilePermission>> attribute(int mode) {
		return ATTRS[mode & 0777];
	}

	static int modeOf(BasicFileAttributes attrs, int fallback) {
		if (attrs instanceof PosixFileAttributes p) {
			return toMode(p.permissions());
		}
		return fallback;
	}
}

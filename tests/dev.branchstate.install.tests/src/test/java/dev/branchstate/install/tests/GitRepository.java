package dev.branchstate.install.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Git repository driven with the git command line, as a user in a terminal would; {@code bin/} is ignored
 * by Git and holds the "derived" files a build would leave.
 */
final class GitRepository {

	private final Path dir;

	private GitRepository(Path dir) {
		this.dir = dir;
	}

	static GitRepository create(Path dir) throws IOException, InterruptedException {
		Files.createDirectories(dir);
		GitRepository repo = new GitRepository(dir);
		repo.git("init", "-q", "-b", "main");
		repo.git("config", "user.name", "Branchstate test");
		repo.git("config", "user.email", "test@branchstate.invalid");
		repo.write(".gitignore", "bin/\n");
		return repo;
	}

	Path dir() {
		return dir;
	}

	void write(String path, String content) throws IOException {
		Path file = dir.resolve(path);
		Files.createDirectories(file.getParent());
		Files.writeString(file, content, StandardCharsets.UTF_8);
	}

	void writeDerived(String path, String content) throws IOException {
		write(path, content);
	}

	void deleteDerived(String path) throws IOException {
		Files.delete(dir.resolve(path));
	}

	String readDerived(String path) throws IOException {
		return Files.readString(dir.resolve(path), StandardCharsets.UTF_8);
	}

	/** Waits until the derived file has the content, or fails naming what it found. */
	void awaitDerived(String path, String content, Duration timeout) throws IOException, InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		Path file = dir.resolve(path);
		while (System.nanoTime() < deadline) {
			if (Files.isRegularFile(file) && Files.readString(file, StandardCharsets.UTF_8).equals(content)) {
				return;
			}
			Thread.sleep(250);
		}
		throw new AssertionError(path + " did not become '" + content + "' within " + timeout + "; it is "
				+ (Files.exists(file) ? "'" + Files.readString(file, StandardCharsets.UTF_8) + "'" : "absent"));
	}

	void commitAll(String message) throws IOException, InterruptedException {
		git("add", "-A");
		git("commit", "-q", "-m", message);
	}

	void checkoutNewBranch(String branch) throws IOException, InterruptedException {
		git("checkout", "-q", "-b", branch);
	}

	void checkout(String branch) throws IOException, InterruptedException {
		git("checkout", "-q", branch);
	}

	/** @return {@code git status --porcelain} lines, untracked files included */
	List<String> status() throws IOException, InterruptedException {
		List<String> lines = new ArrayList<>();
		for (String line : git("status", "--porcelain", "--untracked-files=all").split("\n")) {
			if (!line.isBlank()) {
				lines.add(line);
			}
		}
		return lines;
	}

	private String git(String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
		command.addAll(List.of(arguments));
		return EclipseInstallation.exec(command);
	}
}

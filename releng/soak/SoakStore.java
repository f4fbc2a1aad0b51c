// The soak's reading of the state store without an IDE start (releng/soak/run.sh, issue 34): the headless `verify` and
// `list` commands' output for one repository, made by the installed Branchstate's own code (StateStore's catalog,
// StateService.verifyArchive: every entry read with the archive engine's default threads, sizes and CRC-32 checked) in one plain JVM with the installed
// plug-ins on its class path. Both commands only read the store (the catalog and the archives): nothing of an IDE
// session takes part in them, and the IDE's start-up work on the store (deleting what killed saves left) is checked
// after the check's own IDE session, as before.
//
//   java -cp <the installed IDE's plug-ins> SoakStore verify|list <store folder> <Git directory>
//   java -cp <the installed IDE's plug-ins> SoakStore --serve <store folder> <Git directory>
//
// --serve (the driver keeps one such JVM for the run): reads `verify` or `list` lines on standard input and answers
// each with the command's output and the line `end <exit code>`; every answer reads the store afresh (a new
// StateStore: the catalog and the archives as they are on disk now), only the JVM is kept between two of them.
// verify prints `ok <commit> <archive>` or `corrupt <commit> <archive>: <why>` per state, then `<n> state(s), <m>
// corrupt`, and exits 1 when one is corrupt, as `verify <repo>` does; list prints `state <commit> branches=<b,...>`
// per state, newest first, then `<n> state(s) in <store>`.
import java.io.File;
import java.nio.file.Path;
import java.util.List;

import dev.branchstate.archive.ExtractOptions;
import dev.branchstate.core.StateInfo;
import dev.branchstate.core.internal.service.StateService;
import dev.branchstate.core.internal.store.StateStore;

public final class SoakStore {

	public static void main(String[] args) throws Exception {
		if ("--serve".equals(args[0])) {
			var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
			for (String line; (line = in.readLine()) != null;) {
				int code;
				try {
					code = run(line.strip(), args[1], args[2]);
				} catch (Exception e) {
					System.out.println("SoakStore: " + e);
					code = 1;
				}
				System.out.println("end " + code);
				System.out.flush();
			}
			return;
		}
		System.exit(run(args[0], args[1], args[2]));
	}

	private static int run(String command, String storeFolder, String gitDir) throws Exception {
		StateStore store = new StateStore(Path.of(storeFolder));
		List<StateInfo> states = store.states(new File(gitDir));
		switch (command) {
		case "verify" -> {
			int bad = 0;
			for (StateInfo s : states) {
				try {
					StateService.verifyArchive(s, ExtractOptions.defaults());
					System.out.println("ok " + s.commitId() + " " + s.archive());
				} catch (java.io.IOException e) {
					bad++;
					System.out.println("corrupt " + s.commitId() + " " + s.archive() + ": " + e.getMessage());
				}
			}
			System.out.println(states.size() + " state(s), " + bad + " corrupt");
			return bad == 0 ? 0 : 1;
		}
		case "list" -> {
			for (StateInfo s : states) {
				System.out.println("state " + s.commitId() + " branches=" + String.join(",", s.branches()));
			}
			System.out.println(states.size() + " state(s) in " + store.directory());
			return 0;
		}
		default -> {
			System.out.println("SoakStore: verify or list");
			return 2;
		}
		}
	}
}

package dev.branchstate.archive.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The names given to a writer, checked for duplicates without a set of every name (~35 bytes an entry for the whole
 * write): a tree's walk gives each of its names once, so only an add that overlaps an earlier one needs the names
 * added before, those under its prefix. Overlapping adds are a name given twice, a name inside a tree added before,
 * a tree whose prefix holds or is held by an earlier tree's or holds a name added before. Not thread-safe (the
 * writer's calling thread).
 */
final class AddedNames {

	/** A tree added: its prefix and its records, {@code [from, to)} of the writer's. */
	private record Tree(String prefix, int from, int to) {
	}

	private final List<EntryRecord> records;
	private final List<Tree> trees = new ArrayList<>();
	/** The names added one by one (few: a state's own entries, a contributor's single files). */
	private final Set<String> singles = new HashSet<>();
	/** While a tree is walked: its prefix, its first record, the names added before under its prefix (or null). */
	private String treePrefix;
	private int treeFrom;
	private Set<String> taken;

	/** @param records the writer's records, in the order they were added */
	AddedNames(List<EntryRecord> records) {
		this.records = records;
	}

	/** Checks a name added on its own, before its record is added (an invalid one is left to the record's check). */
	void single(String name) {
		if (Names.problem(name, name.endsWith("/")) != null) {
			return;
		}
		if (singles.contains(name) || inTrees(name)) {
			throw duplicate(name);
		}
		singles.add(name);
	}

	private boolean inTrees(String name) {
		byte[] utf8 = null;
		for (Tree t : trees) {
			if (name.startsWith(t.prefix())) {
				utf8 = utf8 != null ? utf8 : name.getBytes(StandardCharsets.UTF_8);
				for (int i = t.from(); i < t.to(); i++) {
					if (records.get(i).nameIs(utf8)) {
						return true;
					}
				}
			}
		}
		return false;
	}

	/** A tree's walk starts: its names are checked against those added before under {@code prefix}. */
	void startTree(String prefix) {
		Set<String> before = new HashSet<>();
		for (String s : singles) {
			if (s.startsWith(prefix)) {
				before.add(s);
			}
		}
		for (Tree t : trees) {
			if (t.prefix().startsWith(prefix) || prefix.startsWith(t.prefix())) {
				for (int i = t.from(); i < t.to(); i++) {
					String n = records.get(i).name();
					if (n.startsWith(prefix)) {
						before.add(n);
					}
				}
			}
		}
		treePrefix = prefix;
		treeFrom = records.size();
		taken = before.isEmpty() ? null : before;
	}

	/** Checks a name the running tree's walk reached, before its record is added. */
	void inTree(String name) {
		if (taken != null && taken.contains(name)) {
			throw duplicate(name);
		}
	}

	/** The tree's walk ended (or failed): its records so far are the tree's. */
	void endTree() {
		trees.add(new Tree(treePrefix, treeFrom, records.size()));
		treePrefix = null;
		taken = null;
	}

	private static IllegalArgumentException duplicate(String name) {
		return new IllegalArgumentException("duplicate entry name '" + name + "'");
	}
}

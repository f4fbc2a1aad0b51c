#!/usr/bin/env python3
"""Prints, for every Eclipse artifact (org.eclipse.platform/jdt/emf/ecf/jgit) pinned in a target file, the newest
version on Maven Central built on or before a cut-off date. Central serves no directory listings and (through the
proxy this was run behind) no Last-Modified header, but maven-metadata.xml lists the versions, and the first entry of
an Eclipse jar carries its build qualifier's date (a ranged GET of the jar's first 2 KB reads it).

  releng/dev.branchstate.target.oldest/versions-at.py releng/dev.branchstate.target/dev.branchstate.target.target 2024-09-04

Output: groupId:artifactId <current version> -> <version at the cut-off> <its date> [! built in the last 14 days
before the cut-off: check it belongs to the release, not to the next one's stream]. The result was written into
dev.branchstate.target.oldest.target by hand; this script only finds the versions."""
import concurrent.futures, datetime, re, struct, sys, urllib.request

CENTRAL = "https://repo1.maven.org/maven2"
GROUPS = ("org.eclipse.platform", "org.eclipse.jdt", "org.eclipse.emf", "org.eclipse.ecf", "org.eclipse.jgit")

def vkey(v):
    return [int(p) if p.isdigit() else 0 for p in re.split(r"[.\-]", v)]

def published(g, a, v):
    m = re.search(r"\.(\d{8})\d{4}-r$", v)  # JGit's versions carry their date
    if m:
        return datetime.datetime.strptime(m.group(1), "%Y%m%d").replace(tzinfo=datetime.timezone.utc)
    url = f"{CENTRAL}/{g.replace('.', '/')}/{a}/{v}/{a}-{v}.jar"
    req = urllib.request.Request(url, headers={"Range": "bytes=0-2047"})
    with urllib.request.urlopen(req, timeout=30) as r:
        head = r.read(30)
    sig, _, _, _, mtime, mdate = struct.unpack("<IHHHHH", head[:14])
    assert sig == 0x04034B50, url
    return datetime.datetime(1980 + (mdate >> 9), (mdate >> 5) & 15, mdate & 31, mtime >> 11, (mtime >> 5) & 63,
                             tzinfo=datetime.timezone.utc)

def at(g, a, cutoff):
    meta = urllib.request.urlopen(f"{CENTRAL}/{g.replace('.', '/')}/{a}/maven-metadata.xml", timeout=30).read().decode()
    versions = sorted(re.findall(r"<version>([^<]+)</version>", meta), key=vkey, reverse=True)
    for v in versions:
        if "SNAPSHOT" in v or re.search(r"(?i)(alpha|beta|rc\d|m\d)", v.split(".")[-1] if g != "org.eclipse.jgit" else v.replace("-r", "")):
            continue
        d = published(g, a, v)
        if d <= cutoff:
            return v, d
    return None, None

def main():
    target, day = sys.argv[1], sys.argv[2]
    cutoff = datetime.datetime.fromisoformat(day + "T23:59:59+00:00")
    deps = re.findall(r"<groupId>([^<]+)</groupId><artifactId>([^<]+)</artifactId><version>([^<]+)</version>", open(target).read())
    deps = [d for d in dict.fromkeys(deps) if d[0] in GROUPS]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for (g, a, cur), (v, d) in zip(deps, pool.map(lambda d: at(d[0], d[1], cutoff), deps)):
            late = " !" if d and (cutoff - d).days < 14 else ""
            print(f"{g}:{a} {cur} -> {v} {d.date() if d else ''}{late}")

main()

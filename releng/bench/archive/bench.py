#!/usr/bin/env python3
"""Benchmark driver for the Branchstate archive engine (see bench.sh and the bundle README).

Each operation runs as its own process; wall time, CPU time (user+sys, including children) and peak RSS come from
wait4(2). Operations: pack, full extract, differential extract (5% of the files changed), differential save
(5% changed). Tools: ours, tar|zstd -3 -T<workers>, Info-ZIP zip/unzip, java.util.zip, Commons Compress.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

CORPORA = {
    "jdk": None,  # filled from --work (jimage extract of the running JDK's lib/modules)
    "m2": os.path.expanduser("~/.m2/repository"),
    "usrlib": "/usr/lib",
}
TOOLS = ["ours", "tar-zstd", "infozip", "jdkzip", "commons"]


def run(cmd, cwd=None):
    """Runs cmd (list, or str for the shell); returns wall s, cpu s, peak RSS MB, stdout."""
    fd, out_path = tempfile.mkstemp(prefix="branchstate-bench-", suffix=".out")
    os.close(fd)
    with open(out_path, "wb") as out:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, shell=isinstance(cmd, str), cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    text = open(out_path, "rb").read().decode("utf-8", "replace")
    os.remove(out_path)
    if p.returncode != 0:
        sys.exit("FAILED (%d): %s\n%s" % (p.returncode, cmd, text[-3000:]))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, text


def tree_stats(root):
    files = size = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                files += 1
                size += os.path.getsize(p)
    return files, size


def regular_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(p)
    return out


def mutate(root, salt):
    """Changes every 20th regular file (5%): first byte flipped (same size), or a line appended."""
    changed = 0
    for i, p in enumerate(regular_files(root)):
        if i % 20 != salt % 20:
            continue
        with open(p, "r+b") as f:
            b = f.read(1)
            if b and i % 40 < 20:
                f.seek(0)
                f.write(bytes([b[0] ^ 0x5A]))
            else:
                f.seek(0, 2)
                f.write(b"\n# changed by the benchmark\n")
        changed += 1
    return changed


def drop_caches():
    subprocess.run("sync", shell=True)
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def rm(p):
    if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p)
    elif os.path.lexists(p):
        os.remove(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--java", required=True)
    ap.add_argument("--cp", required=True)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--corpora", default="jdk,m2,usrlib")
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--cold", default="", help="corpora whose pack and full extract run with a dropped page cache")
    ap.add_argument("--xmx", default="1g")
    ap.add_argument("--cold-jvm", action="store_true", help="no warm-up op before the timed one (JVM start-up and JIT"
                    " are then in the process wall column)")
    a = ap.parse_args()
    CORPORA["jdk"] = os.path.join(a.work, "corpus-jdk")
    cold = set(filter(None, a.cold.split(",")))
    java = [a.java, "-Xmx" + a.xmx, "--enable-native-access=ALL-UNNAMED", "-Dbench.workers=%d" % a.workers]
    if not a.cold_jvm:
        java.append("-Dbench.warmup=" + os.path.join(CORPORA["jdk"], "java.xml"))
    java += ["-cp", a.cp, "ArchiveBench"]
    rows = []
    print("cores: %d, workers: %d, java -Xmx%s" % (os.cpu_count(), a.workers, a.xmx), flush=True)

    def record(corpus, tool, op, res, size=None, note="", cold_run=False):
        wall, cpu, rss, text = res
        process = ""
        for tok in text.split():
            # Java tools: report the timed operation inside the (warm) JVM; process wall kept for reference
            if tok.startswith("op_ms="):
                process = "%.2f" % wall
                wall = int(tok[6:]) / 1000.0
            if tok.startswith("op_cpu_ms="):
                cpu = int(tok[10:]) / 1000.0
        extra = [t for t in text.split() if t.startswith(("copied=", "written=", "skipped="))]
        if extra:
            note = (note + " " + " ".join(extra)).strip()
        row = [corpus, tool, op + (" (cold)" if cold_run else ""), "%.2f" % wall, "%.2f" % cpu, "%.0f" % rss,
               "" if size is None else "%.1f" % (size / 1e6), process, note]
        rows.append(row)
        print(" | ".join(row), flush=True)

    for corpus in a.corpora.split(","):
        src = os.path.abspath(CORPORA[corpus])
        files, size = tree_stats(src)
        print("\n## corpus %s: %s, %d files, %.1f MB" % (corpus, src, files, size / 1e6), flush=True)
        run("tar -C '%s' -cf - . | cat > /dev/null" % src)  # warm the page cache
        for tool in a.tools.split(","):
            d = os.path.join(a.work, "run-%s-%s" % (corpus, tool))
            rm(d)
            os.makedirs(d)
            out = os.path.join(d, "out")
            ext = {"tar-zstd": "tar.zst"}.get(tool, "zip")
            arc = os.path.join(d, "a." + ext)
            arc2 = os.path.join(d, "b." + ext)
            is_cold = corpus in cold

            # pack
            if is_cold:
                is_cold = drop_caches()
            if tool == "ours":
                res = run(java + ["ours", "pack", src, arc])
            elif tool == "tar-zstd":
                res = run("tar -C '%s' -cf - . | zstd -3 -T%d -q -o '%s'" % (src, a.workers, arc))
            elif tool == "infozip":
                res = run(["zip", "-r", "-q", "-y", arc, "."], cwd=src)
            else:
                res = run(java + [tool, "pack", src, arc])
            record(corpus, tool, "pack", res, os.path.getsize(arc), cold_run=is_cold)

            # full extract
            if is_cold:
                drop_caches()
            os.makedirs(out)
            if tool == "ours":
                res = run(java + ["ours", "extract", arc, out])
            elif tool == "tar-zstd":
                res = run("zstd -d -q -c '%s' | tar -C '%s' -xf -" % (arc, out))
            elif tool == "infozip":
                res = run(["unzip", "-q", "-o", arc, "-d", out])
            else:
                res = run(java + [tool, "extract", arc, out])
            record(corpus, tool, "extract", res, cold_run=is_cold)

            # differential extract: 5% of the files changed in the extracted tree
            n = mutate(out, 0)
            if tool == "ours":
                res = run(java + ["ours", "extract", arc, out, "diff"])
                note = "%d changed" % n
            elif tool == "tar-zstd":
                res = run("zstd -d -q -c '%s' | tar -C '%s' -xf -" % (arc, out))
                note = "no differential mode: full rewrite"
            elif tool == "infozip":
                res = run(["unzip", "-q", "-o", arc, "-d", out])
                note = "no differential mode: full rewrite"
            else:
                res = run(java + [tool, "extract", arc, out])
                note = "no differential mode: full rewrite"
            record(corpus, tool, "diff-extract", res, note=note)
            if tool == "ours" and corpus == "jdk":
                check = subprocess.run(["diff", "-rq", "--no-dereference", src, out], capture_output=True)
                print("verify (diff -r corpus vs extracted): %s" % ("identical" if check.returncode == 0
                                                                    else check.stdout.decode()[:2000]), flush=True)

            # differential save: 5% of the files changed in a tree restored from the archive
            if tool in ("ours", "infozip"):
                n = mutate(out, 7)
                if tool == "ours":
                    res = run(java + ["ours", "pack", out, arc2, arc])
                else:
                    shutil.copyfile(arc, arc2)
                    res = run(["zip", "-u", "-r", "-q", "-y", arc2, "."], cwd=out)
                record(corpus, tool, "diff-save", res, os.path.getsize(arc2), note="%d changed" % n)
            rm(d)

    print("\nJava tools (ours, jdkzip, commons): wall and CPU of the operation inside a JVM warmed up by one pack+extract"
          " of java.xml; 'process s' is the whole process (JVM start-up + warm-up + operation). Peak RSS: whole process.")
    print("\n| corpus | tool | op | wall s | CPU s | peak RSS MB | archive MB | process s | note |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Option sweep for the engine (pack + full extract per setting), run by bench.sh --sweep.

Each setting: -Dbench.workers / -Dbench.level / -Dbench.chunk; same measurement as bench.py (warm JVM).
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--java", required=True)
    ap.add_argument("--cp", required=True)
    ap.add_argument("--corpora", default="jdk,usrlib")
    ap.add_argument("--settings", default="workers=2;workers=3;workers=4;level=1,workers=4;level=5,workers=4;"
                    "chunk=1048576,workers=4;chunk=4194304,workers=4")
    a = ap.parse_args()
    bench.CORPORA["jdk"] = os.path.join(a.work, "corpus-jdk")
    print("| corpus | setting | pack s | pack CPU s | pack RSS MB | archive MB | extract s | extract CPU s | extract RSS MB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    for corpus in a.corpora.split(","):
        src = bench.CORPORA[corpus]
        for setting in a.settings.split(";"):
            props = dict(kv.split("=") for kv in setting.split(","))
            java = [a.java, "-Xmx1g", "--enable-native-access=ALL-UNNAMED",
                    "-Dbench.warmup=" + os.path.join(bench.CORPORA["jdk"], "java.xml")]
            java += ["-Dbench.%s=%s" % kv for kv in props.items()]
            java += ["-cp", a.cp, "ArchiveBench"]
            d = os.path.join(a.work, "sweep")
            bench.rm(d)
            os.makedirs(d)
            arc = os.path.join(d, "a.zip")
            p = bench.run(java + ["ours", "pack", src, arc])
            size = os.path.getsize(arc)
            os.makedirs(os.path.join(d, "out"))
            x = bench.run(java + ["ours", "extract", arc, os.path.join(d, "out")])

            def inner(res):
                wall, cpu = res[0], res[1]
                for tok in res[3].split():
                    if tok.startswith("op_ms="):
                        wall = int(tok[6:]) / 1000.0
                    if tok.startswith("op_cpu_ms="):
                        cpu = int(tok[10:]) / 1000.0
                return wall, cpu
            pw, pc = inner(p)
            xw, xc = inner(x)
            print("| %s | %s | %.2f | %.2f | %.0f | %.1f | %.2f | %.2f | %.0f |" % (
                corpus, setting, pw, pc, p[2], size / 1e6, xw, xc, x[2]), flush=True)
            bench.rm(d)


if __name__ == "__main__":
    main()

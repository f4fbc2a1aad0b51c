#!/usr/bin/env python3
"""Derived data of a large workspace for the scale benchmark (issue 13), made of real files no one here wrote.

Every project gets a bin/ folder of class files taken from a pool (the JDK's own classes, extracted from its module
image, and the class files inside the jars of the local Maven repository, all from Maven Central or the JDK) and
whole jars of that repository under bin/lib/, until it holds --files class files and --jar-mb MB of jars. A variant
V (0, 1, 5, 30) is the same tree where V% of the files (the same ones for every run; variant 1's are among variant
5's, and so on) hold another pool file's content instead. Moving from one variant to another rewrites only the files
whose content changes, as a build would: the rest keep their bytes and times.

    make_tree.py --pool DIR --m2 DIR --out WORKTREE --projects N --files N --jar-mb N --variant V [--from V]
"""
import argparse
import hashlib
import os
import sys
import zipfile


def pool_files(pool, m2):
    """[(name, loader)], sorted: JDK classes from the extracted image, then classes inside the repository's jars."""
    items = []
    for base, _, names in os.walk(pool):
        for n in names:
            if n.endswith('.class'):
                p = os.path.join(base, n)
                items.append(('jdk/' + os.path.relpath(p, pool), ('file', p)))
    jars = sorted(jars_of(m2))
    for jar in jars:
        try:
            with zipfile.ZipFile(jar) as z:
                for info in z.infolist():
                    if info.filename.endswith('.class') and not info.filename.startswith('META-INF/') \
                            and 0 < info.file_size < (4 << 20):
                        items.append(('m2/' + os.path.basename(jar)[:-4] + '/' + info.filename, ('zip', jar, info.filename)))
        except (zipfile.BadZipFile, OSError):
            pass
    items.sort(key=lambda i: i[0])
    return items, jars


def jars_of(m2):
    for base, _, names in os.walk(m2):
        for n in names:
            if n.endswith('.jar') and not n.endswith('-sources.jar'):
                yield os.path.join(base, n)


class Reader:
    def __init__(self):
        self.zips = {}

    def read(self, loader):
        if loader[0] == 'file':
            with open(loader[1], 'rb') as f:
                return f.read()
        z = self.zips.get(loader[1])
        if z is None:
            z = self.zips[loader[1]] = zipfile.ZipFile(loader[1])
        return z.read(loader[2])


def changed(path, variant):
    """Whether a file holds other content in a variant: the same files for every run, nested across variants."""
    if variant == 0:
        return False
    h = int.from_bytes(hashlib.sha1(path.encode()).digest()[:4], 'big') % 1000
    return h < variant * 10


def layout(args, items, jars):
    """Yields (project-relative path, index of its content in items or -(jar index + 1)) for every project."""
    n = len(items)
    for p in range(args.projects):
        project = 'p%02d' % p
        start = (p * 7919) % n
        for k in range(args.files):
            name, _ = items[(start + k) % n]
            yield project, 'bin/' + name, (start + k) % n
        budget = args.jar_mb << 20
        j = (p * 13) % len(jars)
        while budget > 0:
            size = os.path.getsize(jars[j])
            yield project, 'bin/lib/' + os.path.basename(jars[j]), -(j + 1)
            budget -= size
            j = (j + 1) % len(jars)


def content(reader, items, jars, index, path, variant):
    if index < 0:
        jar = jars[-index - 1]
        if changed(path, variant):
            jar = jars[(-index) % len(jars)]  # the next jar of the repository
        with open(jar, 'rb') as f:
            return f.read()
    if changed(path, variant):
        index = (index + 1) % len(items)  # the next class file of the pool
    return reader.read(items[index][1])


def main():
    a = argparse.ArgumentParser()
    a.add_argument('--pool', required=True)
    a.add_argument('--m2', required=True)
    a.add_argument('--out', required=True)
    a.add_argument('--projects', type=int, default=40)
    a.add_argument('--files', type=int, default=5000)
    a.add_argument('--jar-mb', type=int, default=40)
    a.add_argument('--variant', type=int, default=0)
    a.add_argument('--from', dest='base', type=int, default=-1, help='the variant on disk now (-1: none)')
    args = a.parse_args()
    items, jars = pool_files(args.pool, args.m2)
    reader = Reader()
    files = written = size = 0
    for project, rel, index in layout(args, items, jars):
        path = os.path.join(args.out, project, rel)
        files += 1
        if args.base >= 0 and changed(project + '/' + rel, args.base) == changed(project + '/' + rel, args.variant) \
                and os.path.exists(path):
            size += os.path.getsize(path)
            continue
        data = content(reader, items, jars, index, project + '/' + rel, args.variant)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
        written += 1
        size += len(data)
    print('tree variant %d: %d projects, %d files, %.0f MB, %d files written (pool: %d class files, %d jars)'
          % (args.variant, args.projects, files, size / 1e6, written, len(items), len(jars)))


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""The module map of sidlens, read from the sources: top-level modules, the imports between
them (which run up the layers, which run in a circle), files over 48 KB, files with `unsafe`,
and the integration-test binaries. `docs/ARCHITECTURE.md` quotes its output.

Usage: python3 scripts/module_map.py [--check]

With --check it exits 1 when the layout breaks a rule the project keeps: at most 18 top-level
modules, no import up a layer or in a circle, no source file over 48 KB, `unsafe` in at most
four files, at most four integration-test binaries (`.ci/run` runs it so).
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "src")

# Bottom to top: a module may import only from modules before it in this list.
LAYERS = [
    "error", "progress", "numeric", "sid", "io", "load", "collision", "metrics", "reassign",
    "compare", "projection", "collab", "usecase", "generate", "plot", "report", "tui", "cli",
]

PATH_RE = re.compile(r"\b(crate|super)((?:::\w+)+)")
USE_GROUP_RE = re.compile(r"\buse\s+(crate|super)::\{([^;]*)\};", re.S)


def module_of(path):
    rel = os.path.relpath(path, SRC)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    if rel in (["lib"], ["main"]):
        return []
    return rel


def is_mod_file(path):
    return os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")


def strip_comments(text):
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def targets(path, text):
    """The modules a file names (as lists of path segments, as far as they go)."""
    here = module_of(path)
    # A file's `super` is its parent module; a mod.rs's own module is its folder.
    parent = here[:-1]
    found = []
    for m in PATH_RE.finditer(text):
        base = [] if m.group(1) == "crate" else list(parent)
        segs = m.group(2).split("::")[1:]
        while segs and segs[0] == "super":
            base = base[:-1]
            segs = segs[1:]
        found.append(base + segs)
    for m in USE_GROUP_RE.finditer(text):
        base = [] if m.group(1) == "crate" else list(parent)
        for item in re.split(r",\s*", m.group(2)):
            first = item.strip().split("::")[0].strip("{} \n")
            if first and first != "self":
                found.append(base + [first])
    return found


def files():
    for dirpath, _, names in os.walk(SRC):
        for n in sorted(names):
            if n.endswith(".rs"):
                yield os.path.join(dirpath, n)


def main():
    modules = {}  # module path tuple -> file
    for f in files():
        modules[tuple(module_of(f))] = f

    def resolve(segs):
        """The longest module prefix of a named path."""
        for n in range(len(segs), 0, -1):
            if tuple(segs[:n]) in modules:
                return tuple(segs[:n])
        return None

    edges = {}
    for mod, f in modules.items():
        text = strip_comments(open(f, encoding="utf-8").read())
        outs = set()
        for t in targets(f, text):
            r = resolve(t)
            if r is not None and r != mod and not (len(r) < len(mod) and mod[: len(r)] == r):
                outs.add(r)
        edges[mod] = outs

    top = sorted({m[0] for m in modules if m})
    print(f"top-level modules: {len(top)}: {' '.join(top)}")

    up = []
    for mod, outs in edges.items():
        if not mod:
            continue
        for o in outs:
            a, b = mod[0], o[0]
            if a != b and a in LAYERS and b in LAYERS and LAYERS.index(b) > LAYERS.index(a):
                up.append(("::".join(mod), "::".join(o)))
    unknown = [t for t in top if t not in LAYERS]
    if unknown:
        print(f"modules in no layer: {' '.join(unknown)}")
    print(f"imports that run up a layer: {len(up)}")
    for a, b in sorted(up):
        print(f"  {a} -> {b}")

    # Circles between files: strongly connected components of the file graph, where a module
    # importing its own descendants is not a circle (a parent declares its children).
    index = {}
    low = {}
    stack = []
    on = set()
    sccs = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)

    for v in list(edges):
        if v not in index:
            strong(v)
    print(f"import circles: {len(sccs)}")
    for c in sccs:
        print("  " + " <-> ".join(sorted("::".join(m) or "crate" for m in c)))

    big = [(os.path.getsize(f), os.path.relpath(f, ROOT)) for f in files() if os.path.getsize(f) > 48 * 1024]
    print(f"source files over 48 KB: {len(big)}")
    for size, f in sorted(big, reverse=True):
        print(f"  {f} ({size // 1024} KB)")

    unsafe_files = []
    for f in files():
        text = strip_comments(open(f, encoding="utf-8").read())
        n = len(re.findall(r"\bunsafe\b", text))
        if n:
            unsafe_files.append((os.path.relpath(f, ROOT), n))
    print(f"files with unsafe: {len(unsafe_files)}")
    for f, n in unsafe_files:
        print(f"  {f} ({n})")

    n_files = sum(1 for _ in files())
    n_lines = sum(sum(1 for _ in open(f, encoding="utf-8")) for f in files())
    print(f"source files: {n_files}, lines: {n_lines}")

    cargo = open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8").read()
    tests = os.path.join(ROOT, "tests")
    if "autotests = false" in cargo:
        bins = re.findall(r"\[\[test\]\]\s*name\s*=\s*\"([^\"]+)\"", cargo)
    else:
        bins = [n[:-3] for n in os.listdir(tests) if n.endswith(".rs")]
    print(f"integration-test binaries: {len(bins)}: {' '.join(sorted(bins))}")

    if "--check" in sys.argv:
        broken = [
            rule
            for rule, ok in [
                ("at most 18 top-level modules", len(top) <= 18),
                ("every module in a layer", not unknown),
                ("no import up a layer", not up),
                ("no import circle", not sccs),
                ("no source file over 48 KB", not big),
                ("unsafe in at most four files", len(unsafe_files) <= 4),
                ("at most four integration-test binaries", len(bins) <= 4),
            ]
            if not ok
        ]
        for rule in broken:
            print(f"module map: broken rule: {rule}", file=sys.stderr)
        sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()

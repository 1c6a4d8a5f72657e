#!/usr/bin/env python3
"""The layout rules every crate of the checkout keeps, checked from the sources.

1. No circle of `use` between the files of a crate: a file that names an item
   of another file of its crate (`use crate::a::b`, `super::x`, `child::f()`)
   depends on it, and no file depends on itself through others. A module and
   the modules inside it are one room: a parent's re-exports of its children
   and a child's use of its parent's items tie nothing; siblings and cousins
   are what must not form a circle.
2. No function longer than 100 lines outside tests (`#[cfg(test)]` items,
   `tests/` folders and test-only files are left out).
3. One module-file style per crate: either every module with children is a
   `name/mod.rs`, or every one is a `name.rs` beside a `name/` folder.

Rust only, read as text: comments, strings and character literals are blanked
before anything is matched, so a path inside a doc comment ties nothing.

Usage: scripts/layout-check [--list] [ROOT]
  Prints every circle, function over the limit and crate with two styles, and
  exits 1 if there is one. --list also names the functions of more than 80
  lines.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field

MAX_FN_LINES = 100
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


# --- Lexing: blank comments, strings and character literals -------------------
def blank(src: str) -> str:
    """`src` with every comment, string and char literal replaced by spaces
    (newlines kept, so line numbers still hold)."""
    out = list(src)
    i, n = 0, len(src)

    def wipe(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif m := re.compile(r'b?r(#*)"').match(src, i):
            if i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_"):
                i += 1
                continue
            end = '"' + m.group(1)
            j = src.find(end, m.end())
            j = n if j < 0 else j + len(end)
            wipe(i + 1, j - 1)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            wipe(i + 1, j)
            i = j + 1
        elif c == "'":
            m = re.compile(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'").match(src, i)
            if m:
                wipe(i + 1, m.end() - 1)
                i = m.end()
            else:
                i += 1  # a lifetime or label
        else:
            i += 1
    return "".join(out)


def matching_brace(text: str, open_at: int) -> int:
    """The index of the `}` closing the `{` at `open_at` (blanked text)."""
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(text) - 1


CFG_TEST = re.compile(r"#\[cfg\((all\()?test\b[^\]]*\]")


def strip_test_items(text: str) -> str:
    """Blank every item under `#[cfg(test)]`: an inline module or a function
    body (a `mod x;` declaration is one line, blanked too)."""
    out = list(text)
    for m in CFG_TEST.finditer(text):
        k = m.end()
        # The item runs to its first `;` or to the brace closing its first `{`.
        semi = text.find(";", k)
        brace = text.find("{", k)
        if brace < 0 or (0 <= semi < brace):
            end = semi
        else:
            end = matching_brace(text, brace)
        for j in range(m.start(), end + 1):
            if out[j] != "\n":
                out[j] = " "
    return "".join(out)


# --- Crates and their module trees ---------------------------------------------
@dataclass
class Module:
    path: tuple[str, ...]
    file: str  # the file holding the module's items
    inline: bool = False


@dataclass
class Crate:
    name: str
    root_dir: str
    modules: dict[tuple[str, ...], Module] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # file -> blanked text
    test_files: set[str] = field(default_factory=set)
    roots: list[str] = field(default_factory=list)


MOD_DECL = re.compile(
    r"((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*([;{])"
)
PATH_ATTR = re.compile(r'#\[path\s*=\s*"([^"]+)"\]')


def child_file(parent_file: str, parent_is_dir_owner: bool, name: str, src: str, attrs: str) -> str | None:
    here = os.path.dirname(parent_file)
    base = os.path.basename(parent_file)[:-3]
    p = PATH_ATTR.search(src[: 0] + attrs)
    if p:
        return os.path.normpath(os.path.join(here, p.group(1)))
    folder = here if parent_is_dir_owner else os.path.join(here, base)
    for cand in (os.path.join(folder, name + ".rs"), os.path.join(folder, name, "mod.rs")):
        if os.path.exists(cand):
            return cand
    return None


def load_modules(crate: Crate, file: str, path: tuple[str, ...], is_root: bool) -> None:
    raw = open(file, encoding="utf-8").read()
    text = blank(raw)
    crate.modules[path] = Module(path, file)
    crate.files[file] = text
    owner = is_root or os.path.basename(file) == "mod.rs"
    scan_mods(crate, file, raw, text, 0, len(text), path, owner)


def scan_mods(crate: Crate, file: str, raw: str, text: str, start: int, end: int,
              path: tuple[str, ...], owner: bool) -> None:
    k = start
    while True:
        m = MOD_DECL.search(text, k, end)
        if not m:
            return
        attrs_raw = raw[m.start(1): m.end(1)]
        name = m.group(2)
        is_test = bool(CFG_TEST.search(attrs_raw))
        if m.group(3) == "{":
            close = matching_brace(text, m.end() - 1)
            crate.modules[path + (name,)] = Module(path + (name,), file, inline=True)
            scan_mods(crate, file, raw, text, m.end(), close, path + (name,), owner)
            k = close + 1
            continue
        k = m.end()
        target = child_file(file, owner, name, raw, attrs_raw)
        if target is None:
            continue
        if is_test:
            mark_tests(crate, target)
            continue
        load_modules(crate, target, path + (name,), False)


def mark_tests(crate: Crate, file: str) -> None:
    """A test-only file and every file below it."""
    crate.test_files.add(file)
    raw = open(file, encoding="utf-8").read()
    text = blank(raw)
    owner = os.path.basename(file) == "mod.rs"
    for m in MOD_DECL.finditer(text):
        if m.group(3) == ";":
            t = child_file(file, owner, m.group(2), raw, raw[m.start(1): m.end(1)])
            if t:
                mark_tests(crate, t)


def crate_roots(crate_dir: str) -> list[str]:
    roots = []
    for rel in ("src/lib.rs", "src/main.rs", "build.rs"):
        p = os.path.join(crate_dir, rel)
        if os.path.exists(p):
            roots.append(p)
    for sub in ("src/bin", "examples", "fuzz_targets"):
        d = os.path.join(crate_dir, sub)
        if os.path.isdir(d):
            for f in sorted(os.listdir(d)):
                if f.endswith(".rs"):
                    roots.append(os.path.join(d, f))
                elif os.path.exists(os.path.join(d, f, "main.rs")):
                    roots.append(os.path.join(d, f, "main.rs"))
    return roots


# --- Dependencies between files --------------------------------------------------
USE_STMT = re.compile(r"\buse\s+([^;]+);")
PATH_REF = re.compile(r"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:\s*::\s*" + IDENT + r")+)")


def expand_use_tree(tree: str) -> list[list[str]]:
    """`a::{b, c::{d, e}}` -> [[a, b], [a, c, d], [a, c, e]]."""
    tree = re.sub(r"\s+", "", tree)
    tree = re.sub(r"\bas" + IDENT, "", tree)
    out: list[list[str]] = []

    def walk(prefix: list[str], s: str) -> None:
        if "{" not in s:
            out.append(prefix + [p for p in s.split("::") if p])
            return
        head, _, rest = s.partition("{")
        inner = rest[: rest.rfind("}")]
        head_parts = [p for p in head.split("::") if p]
        depth, cur = 0, ""
        for ch in inner + ",":
            if ch == "," and depth == 0:
                if cur:
                    walk(prefix + head_parts, cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
    walk([], tree)
    return out


def absolute(here: tuple[str, ...], parts: list[str], aliases: dict[str, tuple[str, ...]]):
    """A path's segments made absolute from the crate root, or None when it
    starts outside the crate (another crate, the prelude, a local name)."""
    if not parts:
        return None
    if parts[0] == "crate":
        return list(parts[1:])
    if parts[0] in ("super", "self"):
        base, rest = here, parts
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
        return list(base) + list(rest)
    if parts[0] in aliases:
        return list(aliases[parts[0]]) + list(parts[1:])
    return None


def resolve(crate: Crate, path: list[str]) -> Module | None:
    """The module an absolute path names: its longest prefix that is one."""
    best = crate.modules.get(())
    cur: tuple[str, ...] = ()
    for p in path:
        cur = cur + (p,)
        if cur in crate.modules:
            best = crate.modules[cur]
        else:
            break
    return best


def file_deps(crate: Crate) -> dict[str, set[str]]:
    by_file: dict[str, list[Module]] = {}
    for mod in crate.modules.values():
        by_file.setdefault(mod.file, []).append(mod)
    deps: dict[str, set[str]] = {f: set() for f in crate.files}
    for file, text in crate.files.items():
        if file in crate.test_files:
            continue
        text = strip_test_items(text)
        # Paths resolve from the file's outer module (inline modules are rare
        # outside tests).
        here = min((m.path for m in by_file[file]), key=len)
        aliases = {p[-1]: p for p in crate.modules if len(p) == len(here) + 1 and p[: len(here)] == here}
        uses = [parts for m in USE_STMT.finditer(text) for parts in expand_use_tree(m.group(1))]
        found: list[list[str]] = []
        for parts in uses:
            full = absolute(here, parts, aliases)
            if full is None:
                continue
            found.append(full)
            if tuple(full) in crate.modules and parts[-1] not in ("self", "*"):
                aliases[parts[-1]] = tuple(full)
            elif parts[-1] == "self" and tuple(full[:-1]) in crate.modules:
                aliases[parts[-2]] = tuple(full[:-1])
        for m in PATH_REF.finditer(text):
            full = absolute(here, re.sub(r"\s+", "", m.group(1)).split("::"), aliases)
            if full is not None:
                found.append(full)
        if aliases:
            alias_ref = re.compile(
                r"(?<![A-Za-z0-9_:])((?:" + "|".join(map(re.escape, aliases)) + r")(?:\s*::\s*" + IDENT + r")+)"
            )
            for m in alias_ref.finditer(text):
                full = absolute(here, re.sub(r"\s+", "", m.group(1)).split("::"), aliases)
                if full is not None:
                    found.append(full)
        for full in found:
            target = resolve(crate, full)
            if target is None or target.file == file or target.file not in deps:
                continue
            there = min((m.path for m in by_file[target.file]), key=len)
            if there == here[: len(there)] or here == there[: len(here)]:
                continue  # a module and the modules inside it are one room
            deps[file].add(target.file)
    return deps


def circles(deps: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one file (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in deps.get(v, ()):
            if w not in index:
                visit(w)
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
                found.append(sorted(comp))

    for v in sorted(deps):
        if v not in index:
            visit(v)
    return found


# --- Function lengths -------------------------------------------------------------
FN_ITEM = re.compile(r"\bfn\s+(" + IDENT + r")")


def long_functions(file: str, text: str) -> list[tuple[str, int, int]]:
    text = strip_test_items(text)
    found = []
    for m in FN_ITEM.finditer(text):
        # The body: the first `{` after the signature, unless a `;` ends it
        # first (a declaration in a trait or an extern block). Braces inside
        # the signature's generics never occur before its parameter list ends.
        k = m.end()
        depth = 0
        while k < len(text):
            ch = text[k]
            if ch in "(<[":
                depth += 1
            elif ch in ")>]":
                depth -= 1 if not (ch == ">" and text[k - 1] == "-") else 0
            elif ch == ";" and depth <= 0:
                k = -1
                break
            elif ch == "{" and depth <= 0:
                break
            k += 1
        if k < 0 or k >= len(text):
            continue
        close = matching_brace(text, k)
        first = text.count("\n", 0, m.start()) + 1
        last = text.count("\n", 0, close) + 1
        found.append((m.group(1), first, last - first + 1))
    return found


# --- Module-file style -------------------------------------------------------------
def styles(crate: Crate) -> dict[str, list[str]]:
    """The files that own a folder of child modules, by style."""
    out: dict[str, list[str]] = {"mod.rs": [], "name.rs": []}
    for mod in crate.modules.values():
        if mod.inline or not mod.path:
            continue
        has_children = any(
            len(p) == len(mod.path) + 1 and p[: len(mod.path)] == mod.path and not crate.modules[p].inline
            for p in crate.modules
        )
        if not has_children or mod.file in crate.test_files:
            continue
        out["mod.rs" if os.path.basename(mod.file) == "mod.rs" else "name.rs"].append(mod.file)
    return out


def find_crates(root: str) -> list[str]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in ("target", ".git", "node_modules") and not d.startswith(".")]
        if "Cargo.toml" in filenames:
            toml = open(os.path.join(dirpath, "Cargo.toml"), encoding="utf-8").read()
            if re.search(r"^\[package\]", toml, re.M):
                found.append(dirpath)
    return sorted(found)


def main(argv: list[str]) -> int:
    listing = "--list" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    problems = 0
    near: list[tuple[int, str]] = []
    for crate_dir in find_crates(root):
        rel_dir = os.path.relpath(crate_dir, root)
        for root_file in crate_roots(crate_dir):
            crate = Crate(rel_dir, crate_dir)
            load_modules(crate, root_file, (), True)
            problems += crate_problems(crate, root)
    seen_fns: set[tuple[str, int]] = set()
    for crate_dir in find_crates(root):
        for file, name, line, length in all_functions(crate_dir):
            if (file, line) in seen_fns:
                continue
            seen_fns.add((file, line))
            rel = os.path.relpath(file, root)
            if length > MAX_FN_LINES:
                print(f"function over {MAX_FN_LINES} lines: {rel}:{line} {name} ({length} lines)")
                problems += 1
            elif listing and length > 80:
                near.append((length, f"{rel}:{line} {name}"))
    if listing:
        for length, where in sorted(near, reverse=True):
            print(f"  near the limit: {where} ({length} lines)")
    if problems:
        print(f"layout-check: {problems} problem(s)")
        return 1
    print("layout-check: no circle between files, no function over "
          f"{MAX_FN_LINES} lines outside tests, one module-file style per crate")
    return 0


# What was printed already: a crate's several roots (lib, bins, examples)
# share files, and a problem is printed once.
_reported: set[tuple[str, ...]] = set()


def crate_problems(crate: Crate, root: str) -> int:
    problems = 0
    deps = file_deps(crate)
    for comp in circles(deps):
        key = tuple(comp)
        if key in _reported:
            continue
        _reported.add(key)
        print("circle between files: " + " <-> ".join(os.path.relpath(f, root) for f in comp))
        for f in comp:
            ties = sorted(os.path.relpath(t, root) for t in deps[f] if t in comp)
            print(f"    {os.path.relpath(f, root)} uses {', '.join(ties)}")
        problems += 1
    st = styles(crate)
    if st["mod.rs"] and st["name.rs"]:
        key = ("style", crate.root_dir)
        if key not in _reported:
            _reported.add(key)
            print(f"two module-file styles in {os.path.relpath(crate.root_dir, root)}: "
                  f"mod.rs ({len(st['mod.rs'])}) and name.rs beside a folder ({len(st['name.rs'])}): "
                  + ", ".join(os.path.relpath(f, root) for f in st["name.rs"]))
            problems += 1
    return problems


def all_functions(crate_dir: str):
    """Every non-test function of every Rust file of a crate, outside tests."""
    roots = crate_roots(crate_dir)
    for root_file in roots:
        crate = Crate(crate_dir, crate_dir)
        load_modules(crate, root_file, (), True)
        for file, text in crate.files.items():
            if file in crate.test_files:
                continue
            for name, line, length in long_functions(file, text):
                yield file, name, line, length


def self_test() -> None:
    """The checks on a made-up crate: each rule caught, each allowed shape
    let through."""
    import contextlib
    import io
    import tempfile

    def run(files: dict[str, str]) -> str:
        with tempfile.TemporaryDirectory() as d:
            for rel, text in {"Cargo.toml": "[package]\nname = \"t\"\n", **files}.items():
                os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
                open(os.path.join(d, rel), "w", encoding="utf-8").write(text)
            _reported.clear()
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                main([d])
            return out.getvalue()

    long_body = "fn long() {\n" + "    let _ = 1;\n" * 99 + "}\n"
    circle = run({
        "src/lib.rs": "mod a;\nmod b;\n",
        "src/a.rs": "use crate::b::B;\npub struct A;\n",
        "src/b.rs": "pub struct B;\nfn f(_: super::a::A) {}\n",
    })
    assert "circle between files" in circle, circle
    allowed = run({
        "src/lib.rs": "mod m;\n// use crate::m::x; in a comment\n",
        "src/m/mod.rs": "mod x;\npub use x::X;\npub struct Shared;\n",
        "src/m/x.rs": "use super::Shared;\npub struct X(Shared);\n\"crate::m\";\n",
    })
    assert "no circle" in allowed, allowed
    over = run({"src/lib.rs": long_body + "fn short() {}\n"})
    assert "function over 100 lines" in over and "long (101 lines)" in over, over
    in_tests = run({"src/lib.rs": "#[cfg(test)]\nmod tests {\n" + long_body + "}\n"})
    assert "no circle" in in_tests, in_tests
    styles = run({
        "src/lib.rs": "mod a;\nmod b;\n",
        "src/a/mod.rs": "mod c;\n",
        "src/a/c.rs": "",
        "src/b.rs": "mod d;\n",
        "src/b/d.rs": "",
    })
    assert "two module-file styles" in styles, styles
    _reported.clear()


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        self_test()
        print("layout-check: self-test passed")
        sys.exit(0)
    sys.exit(main(sys.argv[1:]))

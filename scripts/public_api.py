#!/usr/bin/env python3
"""The public API of the wireseal library crates as a sorted listing.

Reads the rustdoc JSON of a crate (`cargo rustdoc ... --output-format json`)
and prints one line per public item reachable from the crate root: modules,
types with their public fields and variants, functions and methods with
their signatures, trait items, constants, re-exports and trait
implementations (blanket implementations left out; of the auto traits only
`Send` and `Sync`). `scripts/public-api`
runs rustdoc and compares the listing with docs/public-api.txt.

    public_api.py CRATE.json [CRATE.json ...]
"""
import json
import sys

KNOWN_FORMATS = range(45, 60)


class Crate:
    def __init__(self, doc):
        fmt = doc.get("format_version")
        if fmt not in KNOWN_FORMATS:
            sys.exit(f"rustdoc JSON format {fmt} is not one this script reads "
                     f"({KNOWN_FORMATS.start}..{KNOWN_FORMATS.stop - 1})")
        self.index = doc["index"]
        self.paths = doc["paths"]
        self.root = str(doc["root"])
        self.name = self.index[self.root]["name"]
        self.lines = set()
        self.seen = set()

    # --- types -----------------------------------------------------------
    def path_name(self, p):
        name = p.get("path") or p.get("name") or "?"
        return name + self.args(p.get("args"))

    def args(self, a):
        if not a:
            return ""
        if "angle_bracketed" in a:
            ab = a["angle_bracketed"]
            parts = [self.arg(x) for x in ab.get("args", [])]
            parts += [self.constraint(c) for c in ab.get("constraints", [])]
            return "<" + ", ".join(parts) + ">" if parts else ""
        if "parenthesized" in a:
            pa = a["parenthesized"]
            out = "(" + ", ".join(self.ty(t) for t in pa.get("inputs", [])) + ")"
            if pa.get("output"):
                out += " -> " + self.ty(pa["output"])
            return out
        return "(..)"

    def arg(self, x):
        if isinstance(x, str):
            return "_"
        if "type" in x:
            return self.ty(x["type"])
        if "lifetime" in x:
            return x["lifetime"]
        if "const" in x:
            c = x["const"]
            return c.get("expr") or c.get("value") or "_"
        return "_"

    def constraint(self, c):
        name = c.get("name", "?") + self.args(c.get("args"))
        b = c.get("binding", {})
        if "equality" in b:
            t = b["equality"]
            return f"{name} = " + (self.ty(t["type"]) if "type" in t else self.arg(t))
        if "constraint" in b:
            return f"{name}: " + self.bounds(b["constraint"])
        return name

    def bound(self, b):
        if "trait_bound" in b:
            tb = b["trait_bound"]
            mod = {"maybe": "?", "maybe_const": "~const "}.get(tb.get("modifier"), "")
            return mod + self.path_name(tb["trait"])
        if "outlives" in b:
            return b["outlives"]
        if "use" in b:
            return "use<..>"
        return "?"

    def bounds(self, bs):
        return " + ".join(self.bound(b) for b in bs)

    def ty(self, t):
        if t is None:
            return "()"
        k, v = next(iter(t.items())) if isinstance(t, dict) else (t, None)
        if k == "resolved_path":
            return self.path_name(v)
        if k in ("generic", "primitive"):
            return v
        if k == "borrowed_ref":
            lt = (v.get("lifetime") + " ") if v.get("lifetime") else ""
            return "&" + lt + ("mut " if v.get("is_mutable") else "") + self.ty(v["type"])
        if k == "raw_pointer":
            return ("*mut " if v.get("is_mutable") else "*const ") + self.ty(v["type"])
        if k == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if k == "slice":
            return "[" + self.ty(v) + "]"
        if k == "array":
            return "[" + self.ty(v["type"]) + "; " + str(v["len"]) + "]"
        if k == "impl_trait":
            return "impl " + self.bounds(v)
        if k == "dyn_trait":
            traits = [self.path_name(p["trait"]) for p in v.get("traits", [])]
            lt = [v["lifetime"]] if v.get("lifetime") else []
            return "dyn " + " + ".join(traits + lt)
        if k == "qualified_path":
            tr = self.path_name(v["trait"]) if v.get("trait") else ""
            base = f"<{self.ty(v['self_type'])} as {tr}>" if tr else self.ty(v["self_type"])
            return base + "::" + v["name"] + self.args(v.get("args"))
        if k == "function_pointer":
            sig = v["sig"]
            ins = ", ".join(self.ty(x[1]) for x in sig["inputs"])
            out = (" -> " + self.ty(sig["output"])) if sig.get("output") else ""
            return f"fn({ins}){out}"
        if k == "infer":
            return "_"
        return k

    def generics(self, g):
        if not g:
            return "", ""
        params = []
        for p in g.get("params", []):
            kind = p["kind"]
            if "lifetime" in kind:
                params.append(p["name"])
            elif "type" in kind:
                tk = kind["type"]
                if tk.get("is_synthetic"):
                    continue
                b = self.bounds(tk.get("bounds", []))
                d = (" = " + self.ty(tk["default"])) if tk.get("default") else ""
                params.append(p["name"] + (": " + b if b else "") + d)
            elif "const" in kind:
                params.append(f"const {p['name']}: {self.ty(kind['const']['type'])}")
        preds = []
        for w in g.get("where_predicates", []):
            if "bound_predicate" in w:
                bp = w["bound_predicate"]
                preds.append(self.ty(bp["type"]) + ": " + self.bounds(bp["bounds"]))
            elif "lifetime_predicate" in w:
                lp = w["lifetime_predicate"]
                preds.append(lp["lifetime"] + ": " + " + ".join(lp["outlives"]))
            elif "eq_predicate" in w:
                ep = w["eq_predicate"]
                preds.append(self.ty(ep["lhs"]) + " = " + self.arg(ep["rhs"]))
        gp = "<" + ", ".join(params) + ">" if params else ""
        wh = " where " + ", ".join(preds) if preds else ""
        return gp, wh

    def fn_sig(self, name, f):
        h = f.get("header", {})
        q = ("const " if h.get("is_const") else "") + ("async " if h.get("is_async") else "")
        q += "unsafe " if h.get("is_unsafe") else ""
        abi = h.get("abi")
        if isinstance(abi, dict) or (abi and abi != "Rust"):
            q += 'extern "C" '
        gp, wh = self.generics(f.get("generics"))
        ins = []
        for arg_name, t in f["sig"]["inputs"]:
            if arg_name == "self":
                ins.append(self.self_arg(t))
            else:
                ins.append(f"{arg_name}: {self.ty(t)}")
        out = f["sig"].get("output")
        ret = (" -> " + self.ty(out)) if out is not None else ""
        return f"{q}fn {name}{gp}({', '.join(ins)}){ret}{wh}"

    def self_arg(self, t):
        if t == {"generic": "Self"}:
            return "self"
        if "borrowed_ref" in t and t["borrowed_ref"]["type"] == {"generic": "Self"}:
            return "&mut self" if t["borrowed_ref"].get("is_mutable") else "&self"
        return "self: " + self.ty(t)

    # --- items -----------------------------------------------------------
    def public(self, item):
        return item.get("visibility") == "public"

    def emit(self, line):
        self.lines.add(line)

    def walk_module(self, mid, path):
        key = (mid, path)
        if key in self.seen:
            return
        self.seen.add(key)
        mod = self.index[mid]["inner"]["module"]
        for cid in map(str, mod["items"]):
            item = self.index.get(cid)
            if item is None:
                continue
            self.item(item, path)

    def item(self, item, path, name=None):
        inner_kind, inner = next(iter(item["inner"].items()))
        name = name or item.get("name")
        if inner_kind == "use":
            return self.reexport(item, inner, path)
        if not self.public(item) and inner_kind not in ("impl",):
            return
        full = f"{path}::{name}" if name else path
        if inner_kind == "module":
            self.emit(f"pub mod {full}")
            self.walk_module(str(item["id"]), full)
        elif inner_kind == "struct":
            gp, wh = self.generics(inner.get("generics"))
            kind = inner["kind"]
            if isinstance(kind, dict) and "tuple" in kind:
                fields = ", ".join(
                    "pub " + self.ty(self.index[str(f)]["inner"]["struct_field"])
                    if f is not None and self.public(self.index[str(f)]) else "_"
                    for f in kind["tuple"])
                self.emit(f"pub struct {full}{gp}({fields}){wh}")
            else:
                self.emit(f"pub struct {full}{gp}{wh}")
                if isinstance(kind, dict) and "plain" in kind:
                    for f in map(str, kind["plain"]["fields"]):
                        fi = self.index[f]
                        if self.public(fi):
                            self.emit(f"pub {full}::{fi['name']}: {self.ty(fi['inner']['struct_field'])}")
            self.impls(inner.get("impls", []), full)
        elif inner_kind == "enum":
            gp, wh = self.generics(inner.get("generics"))
            self.emit(f"pub enum {full}{gp}{wh}")
            for v in map(str, inner["variants"]):
                self.variant(self.index[v], full)
            self.impls(inner.get("impls", []), full)
        elif inner_kind == "union":
            gp, wh = self.generics(inner.get("generics"))
            self.emit(f"pub union {full}{gp}{wh}")
            self.impls(inner.get("impls", []), full)
        elif inner_kind == "function":
            self.emit(f"pub {self.fn_sig(full, inner)}")
        elif inner_kind == "trait":
            gp, wh = self.generics(inner.get("generics"))
            sup = self.bounds(inner.get("bounds", []))
            unsafe = "unsafe " if inner.get("is_unsafe") else ""
            self.emit(f"pub {unsafe}trait {full}{gp}{': ' + sup if sup else ''}{wh}")
            for t in map(str, inner["items"]):
                self.assoc(self.index[t], full, in_trait=True)
        elif inner_kind == "constant":
            self.emit(f"pub const {full}: {self.ty(inner['type'])}")
        elif inner_kind == "static":
            mut = "mut " if inner.get("is_mutable") else ""
            self.emit(f"pub static {mut}{full}: {self.ty(inner['type'])}")
        elif inner_kind == "type_alias":
            gp, wh = self.generics(inner.get("generics"))
            self.emit(f"pub type {full}{gp} = {self.ty(inner['type'])}{wh}")
        elif inner_kind == "macro":
            self.emit(f"pub macro {self.name}::{name}!")
        elif inner_kind == "proc_macro":
            self.emit(f"pub proc macro {full}")
        elif inner_kind not in ("impl",):
            self.emit(f"pub {inner_kind} {full}")

    def reexport(self, item, use, path):
        if not self.public(item):
            return
        target = str(use["id"]) if use.get("id") is not None else None
        if use.get("is_glob"):
            if target in self.index and "module" in self.index[target]["inner"]:
                self.walk_module(target, path)
            else:
                self.emit(f"pub use {path}::{use['source']}::*")
            return
        if target in self.index:
            self.item(self.index[target], path, use["name"])
            return
        self.emit(f"pub use {path}::{use['name']} = {use['source']}")

    def variant(self, v, enum_path):
        kind = v["inner"]["variant"]["kind"]
        full = f"{enum_path}::{v['name']}"
        if kind == "plain":
            self.emit(f"pub variant {full}")
        elif "tuple" in kind:
            fields = ", ".join(self.ty(self.index[str(f)]["inner"]["struct_field"])
                               if f is not None else "_" for f in kind["tuple"])
            self.emit(f"pub variant {full}({fields})")
        elif "struct" in kind:
            self.emit(f"pub variant {full} {{ .. }}")
            for f in map(str, kind["struct"]["fields"]):
                fi = self.index[f]
                self.emit(f"pub {full}::{fi['name']}: {self.ty(fi['inner']['struct_field'])}")

    def impls(self, ids, type_path):
        for i in map(str, ids):
            imp = self.index.get(i)
            if imp is None:
                continue
            body = imp["inner"]["impl"]
            if body.get("blanket_impl") is not None:
                continue
            gp, wh = self.generics(body.get("generics"))
            neg = "!" if body.get("is_negative") else ""
            if body.get("trait"):
                tr = self.path_name(body["trait"])
                if body.get("is_synthetic") and tr not in ("Send", "Sync"):
                    continue
                for_ty = body["for"]
                args = ""
                if isinstance(for_ty, dict) and "resolved_path" in for_ty:
                    args = self.args(for_ty["resolved_path"].get("args"))
                self.emit(f"impl{gp} {neg}{tr} for {type_path}{args}{wh}")
                continue
            for a in map(str, body["items"]):
                ai = self.index.get(a)
                if ai is not None and self.public(ai):
                    self.assoc(ai, type_path)

    def assoc(self, ai, owner, in_trait=False):
        kind, inner = next(iter(ai["inner"].items()))
        full = f"{owner}::{ai['name']}"
        if kind == "function":
            self.emit(("" if in_trait else "pub ") + self.fn_sig(full, inner))
        elif kind == "assoc_const":
            self.emit(f"pub const {full}: {self.ty(inner['type'])}")
        elif kind == "assoc_type":
            b = self.bounds(inner.get("bounds", []))
            self.emit(f"type {full}{': ' + b if b else ''}")


def main():
    out = set()
    for p in sys.argv[1:]:
        with open(p) as f:
            c = Crate(json.load(f))
        c.emit(f"pub mod {c.name}")
        c.walk_module(c.root, c.name)
        out |= c.lines
    sys.stdout.write("".join(line + "\n" for line in sorted(out)))


if __name__ == "__main__":
    main()

//! Names in the markdown docs exist in the source tree.
//!
//! Every backticked span in `docs/*.md` that looks like a Rust item path
//! (`a::b`, `Type::method`, `a::{b, c}`, `fn_name()`) must name items that
//! are defined somewhere in the repository's sources (the crates, the fuzz
//! targets, the interop peers), so a rename that leaves a stale name in a
//! page fails here. Paths into other crates (`std::`, `aws_lc_rs::`, ...)
//! are not checked.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// First segments that name other crates: their items are not ours to check.
const FOREIGN: &[&str] = &[
    "std",
    "core",
    "alloc",
    "aes",
    "aescry",
    "aws_lc_rs",
    "blake3",
    "cbc",
    "ccm",
    "chacha20",
    "chacha20poly1305",
    "clap",
    "criterion",
    "ctr",
    "curve25519_dalek",
    "getrandom",
    "hkdf",
    "hmac",
    "libfuzzer_sys",
    "lightning",
    "pbkdf2",
    "prost",
    "rand",
    "rayon",
    "ahash",
    "secp256k1",
    "serde",
    "serde_json",
    "sha2",
    "subtle",
    "thiserror",
    "tokio",
    "x25519_dalek",
    "zeroize",
    "ed25519_dalek",
    // The MeshCore firmware's C++ classes (docs/meshcore.md cites their
    // methods as the rules' sources).
    "Dispatcher",
    "Mesh",
    "bitcoin",
    "ldk",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i32",
    "i64",
    "f64",
    "str",
    "String",
    "Vec",
    "Option",
    "Result",
    "Box",
];

/// Names from elsewhere that look like Rust paths: the secp256k1 crate's
/// ElligatorSwift, aws-lc-rs's X25519 private key, a libFuzzer statistic.
const FOREIGN_ITEMS: &[&str] = &[
    "ElligatorSwift::from_seckey",
    "PrivateKey::from_private_key",
    "stat::number_of_executed_units",
];

/// Segments that are not item names: path roots and keywords.
const ROOTS: &[&str] = &[
    "wireseal",
    "wireseal_bench",
    "wireseal_cli",
    "wireseal_gateway",
    "wireseal_gpu",
    "wireseal_io",
    "wireseal_testkit",
    "crate",
    "self",
    "super",
    "Self",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn walk(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                walk(&p, exts, out);
            }
        } else if exts.iter().any(|x| name.ends_with(x)) {
            out.push(p);
        }
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_ident_char) && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Every name a source line defines, as far as a line-based reading can
/// tell: items after a keyword, `use .. as NAME`, and enum variants or
/// struct fields that open a line.
fn defined_names(text: &str, names: &mut HashSet<String>) {
    const KEYWORDS: &[&str] = &[
        "fn",
        "struct",
        "enum",
        "trait",
        "type",
        "const",
        "static",
        "mod",
        "union",
        "as",
        "macro_rules!",
        "def",
        "class",
        "func",
    ];
    for line in text.lines() {
        let words: Vec<&str> = line
            .split(|c: char| !(is_ident_char(c) || c == '!'))
            .filter(|w| !w.is_empty())
            .collect();
        for pair in words.windows(2) {
            if KEYWORDS.contains(&pair[0]) {
                names.insert(pair[1].trim_end_matches('!').to_string());
            }
        }
        // Go methods: `func (r *T) Name(`.
        if let Some(rest) = line.trim_start().strip_prefix("func (") {
            if let Some((_, after)) = rest.split_once(')') {
                let n: String = after
                    .trim_start()
                    .chars()
                    .take_while(|&c| is_ident_char(c))
                    .collect();
                names.insert(n);
            }
        }
        // Fields named inside a line: `{ len: usize, min: usize }`.
        for (i, _) in line.match_indices(':') {
            let (before, after) = (&line[..i], &line[i + 1..]);
            if after.starts_with(':') || before.ends_with(':') {
                continue;
            }
            let name: String = before
                .chars()
                .rev()
                .take_while(|&c| is_ident_char(c))
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let lead = before[..before.len() - name.len()].trim_end();
            if is_ident(&name)
                && (lead.ends_with('{') || lead.ends_with(',') || lead.ends_with('('))
            {
                names.insert(name);
            }
        }
        let t = line.trim_start();
        let t = t.strip_prefix("pub(crate) ").unwrap_or(t);
        let t = t.strip_prefix("pub ").unwrap_or(t);
        let first: String = t.chars().take_while(|&c| is_ident_char(c)).collect();
        let rest = t[first.len()..].trim_start();
        if is_ident(&first)
            && (rest.is_empty()
                || rest.starts_with([',', '(', '{', ':', '='])
                || rest.starts_with("=>"))
        {
            names.insert(first);
        }
    }
}

/// Backticked spans of a markdown page, with their line numbers; fenced
/// code blocks are skipped (they hold commands and output, not names).
fn spans(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(code), Some(_)) = (parts.next(), parts.next()) {
            out.push((i + 1, code.to_string()));
        }
    }
    out
}

/// Removes `<...>` generics (nested) from a span.
fn strip_generics(s: &str) -> String {
    let (mut out, mut depth) = (String::new(), 0usize);
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The item paths a span names, each as its segments; empty when the span
/// does not look like a Rust path or call.
fn paths_in(span: &str) -> Vec<Vec<String>> {
    let s = strip_generics(span.trim());
    let s = s.trim_start_matches('&');
    // Drop a call's arguments: `a::b(x, y)` -> `a::b`, `f()` -> `f`.
    let (head, called) = match s.find('(') {
        Some(i) if s.ends_with(')') => (&s[..i], true),
        Some(_) => return Vec::new(),
        None => (s, false),
    };
    // `a::{b, c}` -> `a::b`, `a::c`.
    let expanded: Vec<String> = match (head.find("::{"), head.ends_with('}')) {
        (Some(i), true) => head[i + 3..head.len() - 1]
            .split(',')
            .map(|t| format!("{}::{}", &head[..i], t.trim()))
            .collect(),
        _ => vec![head.to_string()],
    };
    let mut out = Vec::new();
    for p in expanded {
        let segs: Vec<String> = p.split("::").map(|x| x.trim().to_string()).collect();
        if !segs.iter().all(|x| is_ident(x)) {
            continue;
        }
        let looks_like_path = segs.len() >= 2;
        let looks_like_fn = segs.len() == 1
            && called
            && segs[0].contains('_')
            && segs[0]
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if looks_like_path || looks_like_fn {
            out.push(segs);
        }
    }
    out
}

#[test]
fn backticked_rust_names_in_docs_exist() {
    let root = repo();
    let mut sources = Vec::new();
    for dir in ["crates", "fuzz", "interop"] {
        walk(&root.join(dir), &[".rs", ".go", ".py"], &mut sources);
    }
    let mut names = HashSet::new();
    for p in &sources {
        defined_names(&std::fs::read_to_string(p).unwrap_or_default(), &mut names);
    }
    assert!(
        names.contains("SharedSecretCache"),
        "no sources found under {}",
        root.display()
    );

    let mut docs = Vec::new();
    walk(&root.join("docs"), &[".md"], &mut docs);
    docs.sort();
    assert!(!docs.is_empty(), "no docs/*.md found");
    let mut stale = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        for (line, span) in spans(&text) {
            for segs in paths_in(&span) {
                if FOREIGN.contains(&segs[0].as_str())
                    || FOREIGN_ITEMS.contains(&segs.join("::").as_str())
                {
                    continue;
                }
                checked += 1;
                let missing: Vec<&String> = segs
                    .iter()
                    .filter(|s| !ROOTS.contains(&s.as_str()) && !names.contains(*s))
                    .collect();
                if !missing.is_empty() {
                    let rel = doc.strip_prefix(&root).unwrap_or(doc);
                    stale.push(format!(
                        "{}:{line}: `{span}` ({} not found)",
                        rel.display(),
                        missing
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        }
    }
    assert!(checked > 0, "no Rust names found in docs/*.md");
    assert!(
        stale.is_empty(),
        "{} stale name(s) in docs/*.md:\n{}",
        stale.len(),
        stale.join("\n")
    );
}

#[test]
fn path_recognition() {
    let p = |s: &str| paths_in(s);
    assert_eq!(p("wireseal::cache::SharedSecretCache").len(), 1);
    assert_eq!(p("Error::Truncated { len, min }").len(), 0);
    assert_eq!(p("Onion::peel(&key, ad)"), vec![vec!["Onion", "peel"]]);
    assert_eq!(p("peek_slot()"), vec![vec!["peek_slot"]]);
    assert_eq!(p("SharedSecretCache<V, PK>::new").len(), 1);
    assert_eq!(p("a::{b, c}").len(), 2);
    assert!(p("cargo test --release").is_empty());
    assert!(p("now").is_empty());
    assert!(p("*_into").is_empty());
    let mut n = HashSet::new();
    defined_names(
        "pub enum E {\n    Auth,\n    Truncated { len: usize },\n}\npub fn seal_into(x: u8) {}\n",
        &mut n,
    );
    for k in ["E", "Auth", "Truncated", "len", "seal_into"] {
        assert!(n.contains(k), "{k}");
    }
}

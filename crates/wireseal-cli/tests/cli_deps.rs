//! The shipped `wireseal` binary holds the library's public API only: its
//! normal dependency tree has no bench crate, no Rust peer (LDK, the
//! `bip324` crate) and no `wireseal` feature that opens the hazmat or
//! test-vector surface. `wireseal bench` runs the separate `wireseal-bench`
//! binary instead.

use std::process::Command;

fn tree(edges: &str) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "wireseal-cli",
            "-e",
            edges,
            "--prefix",
            "none",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("running cargo tree");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn has_crate(tree: &str, name: &str) -> bool {
    tree.lines()
        .any(|l| l.split_whitespace().next() == Some(name))
}

#[test]
fn the_cli_depends_on_no_bench_and_no_peer() {
    let t = tree("normal");
    assert!(has_crate(&t, "wireseal"), "unexpected tree:\n{t}");
    for name in ["wireseal-bench", "lightning", "bip324"] {
        assert!(
            !has_crate(&t, name),
            "`{name}` is a normal dependency of wireseal-cli:\n{t}"
        );
    }
}

#[test]
fn the_cli_turns_on_no_hazmat_feature() {
    let t = tree("normal,features");
    assert!(
        t.contains("wireseal feature \"tokio\""),
        "unexpected tree:\n{t}"
    );
    for feature in ["hazmat", "test-vectors"] {
        assert!(
            !t.contains(&format!("wireseal feature \"{feature}\"")),
            "wireseal-cli turns on wireseal/{feature}:\n{t}"
        );
    }
}

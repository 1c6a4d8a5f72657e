//! The installed `wireseal` binary compiles no Rust peer: `cargo tree -p
//! wireseal-cli -e normal` lists neither `lightning` (LDK) nor `bip324`
//! (the crate), which the bench only measures under the CLI's
//! `bench-peers` feature.

use std::process::Command;

fn tree(features: &[&str]) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "wireseal-cli",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .args(features)
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
fn default_cli_build_has_no_rust_peers() {
    let t = tree(&[]);
    assert!(has_crate(&t, "wireseal-bench"), "unexpected tree:\n{t}");
    for peer in ["lightning", "bip324"] {
        assert!(
            !has_crate(&t, peer),
            "`{peer}` is a normal dependency of wireseal-cli"
        );
    }
}

#[test]
fn bench_peers_feature_brings_them_in() {
    let t = tree(&["--features", "bench-peers"]);
    for peer in ["lightning", "bip324"] {
        assert!(has_crate(&t, peer), "`{peer}` missing under bench-peers");
    }
}

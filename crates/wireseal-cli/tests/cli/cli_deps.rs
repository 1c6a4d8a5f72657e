//! The shipped `wireseal` binary holds the library's public API only: its
//! normal dependency tree has no bench crate, no Rust peer (LDK, the
//! `bip324` crate) and no `wireseal` feature that opens the hazmat or
//! test-vector surface. `wireseal bench` runs the separate `wireseal-bench`
//! binary instead.

use std::process::Command;

fn tree(edges: &str) -> String {
    tree_of("wireseal-cli", edges)
}

fn tree_of(package: &str, edges: &str) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "-p", package, "-e", edges, "--prefix", "none"])
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

/// One TLS stack: the gateway's MQTT client runs on rustls with the
/// aws-lc-rs provider the library uses, never rustls' ring provider (the
/// `ring` crate is still built, for an error type of rustls-webpki 0.102
/// that rumqttc names; docs/crypto-choices.md).
#[test]
fn the_gateway_has_one_tls_provider() {
    let t = tree_of("wireseal-gateway", "normal,features");
    assert!(
        t.contains("rustls feature \"aws_lc_rs\""),
        "rustls without aws-lc-rs:\n{t}"
    );
    assert!(
        !t.contains("rustls feature \"ring\""),
        "rustls with its ring provider:\n{t}"
    );
    let versions: std::collections::BTreeSet<&str> = t
        .lines()
        .filter(|l| l.starts_with("rustls v"))
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    assert_eq!(versions.len(), 1, "one rustls: {versions:?}");
}

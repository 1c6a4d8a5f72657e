//! Picks the server-only code paths once, so no source file repeats the
//! feature logic: on `std` builds without the `portable` feature,
//! `wireseal_aws_lc` (the aws-lc-rs backend of X25519 and
//! ChaCha20-Poly1305) and `wireseal_hash_index` (the hash indexes of the
//! shared-secret cache and peat's nonce history). Otherwise the pure-Rust crates and the constant-time slot
//! scan that `no_std` builds run.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(wireseal_aws_lc)");
    println!("cargo::rustc-check-cfg=cfg(wireseal_hash_index)");
    let std = std::env::var_os("CARGO_FEATURE_STD").is_some();
    let portable = std::env::var_os("CARGO_FEATURE_PORTABLE").is_some();
    if std && !portable {
        println!("cargo::rustc-cfg=wireseal_aws_lc");
        println!("cargo::rustc-cfg=wireseal_hash_index");
    }
}

//! Picks the server-only code paths once, so no source file repeats the
//! logic: on native `std` builds, `wireseal_aws_lc` (the aws-lc-rs backend
//! of X25519 and ChaCha20-Poly1305); on every `std` build (the npm package's
//! wasm32 too), `wireseal_hash_index` (the hash indexes of the shared-secret
//! cache and peat's nonce history); on the npm package's build (`std` on
//! `wasm32-unknown-unknown`), `wireseal_wasm_host` (the `host` module).
//! Otherwise the pure-Rust crates and the constant-time slot scan that
//! `no_std` builds run.
//! On ARMv7E-M (`thumbv7em-*`, Cortex-M4 and M7) X25519 runs on
//! `wireseal-fe25519`'s assembly field (`wireseal_fe25519`) unless the
//! portable backend is asked for, which keeps curve25519-dalek's ladder (the
//! reference the firmware tests measure it against).
//!
//! The backend is the final build's choice, never a dependency's: a `std`
//! build runs the pure-Rust backend when it is asked for with the cfg
//! `wireseal_backend="portable"` (`RUSTFLAGS='--cfg wireseal_backend="portable"'`,
//! as curve25519-dalek selects its backends) or the environment variable
//! `WIRESEAL_BACKEND=portable` (which rebuilds only this crate and what
//! depends on it). No Cargo feature selects it, so enabling one in some
//! crate of a dependency graph can never swap the backend under another.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(wireseal_aws_lc)");
    println!("cargo::rustc-check-cfg=cfg(wireseal_hash_index)");
    println!("cargo::rustc-check-cfg=cfg(wireseal_fe25519)");
    println!("cargo::rustc-check-cfg=cfg(wireseal_wasm_host)");
    println!("cargo::rustc-check-cfg=cfg(wireseal_backend, values(\"portable\", \"aws-lc\"))");
    println!("cargo::rerun-if-env-changed=WIRESEAL_BACKEND");
    let std = std::env::var_os("CARGO_FEATURE_STD").is_some();
    let from_cfg = std::env::var("CARGO_CFG_WIRESEAL_BACKEND").ok();
    let from_env = std::env::var("WIRESEAL_BACKEND").ok();
    let chosen = from_cfg.or(from_env);
    let portable = match chosen.as_deref() {
        None | Some("") | Some("aws-lc") => false,
        Some("portable") => true,
        Some(other) => {
            panic!("wireseal_backend / WIRESEAL_BACKEND is `portable` or `aws-lc`, not `{other}`")
        }
    };
    // aws-lc-rs does not build for wasm32: the npm package's `std` build
    // runs the pure-Rust backend, with the hash indexes.
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32");
    let m4 = std::env::var("TARGET").is_ok_and(|t| t.starts_with("thumbv7em-"));
    if m4 && !portable {
        println!("cargo::rustc-cfg=wireseal_fe25519");
    }
    if std && !portable && !wasm {
        println!("cargo::rustc-cfg=wireseal_aws_lc");
    }
    if std && !portable {
        println!("cargo::rustc-cfg=wireseal_hash_index");
    }
    // The npm package's build: `crate::host` lets the JavaScript host put
    // its native primitives under the library's (whatever the backend).
    let unknown_os = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("unknown");
    if std && wasm && unknown_os {
        println!("cargo::rustc-cfg=wireseal_wasm_host");
    }
}

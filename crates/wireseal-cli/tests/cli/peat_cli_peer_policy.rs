//! `wireseal peat` per-peer frames and the `policy` command end to end: key
//! exchange, peer-seal and peer-open with `--counter`, and how the policy
//! explains and range-checks its decision.

use crate::support;

use support::peat::{fails, ok, ws};

#[test]
fn policy_explains_its_decision() {
    let out = ok(&[
        "peat",
        "policy",
        "--level",
        "selective",
        "--data",
        "counter",
    ]);
    assert!(out.starts_with("protection: plain"), "{out}");
    let out = ok(&[
        "peat",
        "policy",
        "--data",
        "emergency",
        "--link",
        "trusted-local",
        "--adaptive-battery",
        "20",
        "--battery",
        "5",
    ]);
    assert!(out.starts_with("protection: mesh-wide"), "{out}");
    assert!(out.contains("decided by: always-encrypt"), "{out}");
    let out = ok(&[
        "peat",
        "policy",
        "--level",
        "mesh-wide",
        "--data",
        "chat",
        "--link",
        "untrusted-relay",
    ]);
    assert!(out.starts_with("protection: peer-e2ee"), "{out}");
}

#[test]
fn key_exchange_and_per_peer_frames() {
    let a_sk = "a1".repeat(32);
    let b_sk = "b2".repeat(32);
    // The frame peat-btle produced for key a1 x32 of node 0x11111111.
    let kx = ok(&["peat", "keyx", "--node", "0x11111111", "--key", &a_sk]);
    assert_eq!(
        kx.trim(),
        "b0001111111100c306fb0ef2bf8b7f93bad98155fa37daec74db0c4cbeda6c6f1dba9d36558252"
    );
    let b_kx = ok(&["peat", "keyx", "--node", "0x22222222", "--key", &b_sk]);
    let b_pk = &b_kx.trim()[14..];
    let a_pk = &kx.trim()[14..];
    let f = ok(&[
        "peat",
        "peer-seal",
        "--node",
        "0x11111111",
        "--key",
        &a_sk,
        "--peer",
        "0x22222222",
        "--peer-key",
        b_pk,
        "68656c6c6f",
    ]);
    assert!(f.starts_with("af002222222211111111"), "{f}");
    let pt = ok(&[
        "peat",
        "peer-open",
        "--node",
        "0x22222222",
        "--key",
        &b_sk,
        "--peer",
        "0x11111111",
        "--peer-key",
        a_pk,
        f.trim(),
    ]);
    assert_eq!(pt.trim(), "68656c6c6f");
    // The wrong peer key cannot open it.
    fails(
        &[
            "peat",
            "peer-open",
            "--node",
            "0x22222222",
            "--key",
            &b_sk,
            "--peer",
            "0x11111111",
            "--peer-key",
            b_pk,
            f.trim(),
        ],
        "authentication failed",
    );
}

#[test]
fn policy_ranges_are_checked() {
    for (flag, v) in [
        ("--adaptive-battery", "101"),
        ("--adaptive-battery", "-1"),
        ("--battery", "101"),
        ("--adaptive-rate", "-0.5"),
        ("--adaptive-rate", "inf"),
        ("--adaptive-rate", "NaN"),
        ("--rate", "-1"),
        ("--rate", "inf"),
    ] {
        let o = ws(&["peat", "policy", flag, v]);
        assert!(!o.status.success(), "{flag} {v}");
        assert!(o.stdout.is_empty());
    }
    assert!(ok(&[
        "peat",
        "policy",
        "--adaptive-battery",
        "100",
        "--adaptive-rate",
        "0"
    ])
    .starts_with("protection:"));
}

#[test]
fn policy_says_the_link_and_floor_override_level_none() {
    let out = ok(&[
        "peat",
        "policy",
        "--level",
        "none",
        "--data",
        "counter",
        "--link",
        "untrusted-relay",
    ]);
    assert!(out.starts_with("protection: peer-e2ee"), "{out}");
    assert!(
        out.contains("override it at every level, none included"),
        "{out}"
    );
    let out = ok(&["peat", "policy", "--level", "none", "--data", "emergency"]);
    assert!(out.starts_with("protection: mesh-wide"), "{out}");
    assert!(out.contains("decided by: always-encrypt"), "{out}");
    assert!(out.contains("must not send this message plain"), "{out}");
    // Nothing raised, no note.
    let out = ok(&["peat", "policy", "--level", "none", "--data", "chat"]);
    assert!(
        out.starts_with("protection: plain") && !out.contains("note:"),
        "{out}"
    );
}

#[test]
fn peer_seal_takes_a_counter() {
    let a_sk = "a1".repeat(32);
    let b_sk = "b2".repeat(32);
    let a_pk =
        ok(&["peat", "keyx", "--node", "0x11111111", "--key", &a_sk]).trim()[14..].to_owned();
    let b_pk =
        ok(&["peat", "keyx", "--node", "0x22222222", "--key", &b_sk]).trim()[14..].to_owned();
    let f = ok(&[
        "peat",
        "peer-seal",
        "--node",
        "0x11111111",
        "--key",
        &a_sk,
        "--peer",
        "0x22222222",
        "--peer-key",
        &b_pk,
        "--counter",
        "258",
        "68656c6c6f",
    ]);
    // recipient, sender, then the counter, u64 LE.
    assert!(f.starts_with("af0022222222111111110201000000000000"), "{f}");
    let pt = ok(&[
        "peat",
        "peer-open",
        "--node",
        "0x22222222",
        "--key",
        &b_sk,
        "--peer",
        "0x11111111",
        "--peer-key",
        &a_pk,
        f.trim(),
    ]);
    assert_eq!(pt.trim(), "68656c6c6f");
    for bad in ["--counter=-1", "--counter=18446744073709551616"] {
        fails(
            &[
                "peat",
                "peer-seal",
                "--node",
                "1",
                "--key",
                &a_sk,
                "--peer",
                "2",
                "--peer-key",
                &b_pk,
                bad,
                "00",
            ],
            "--counter",
        );
    }
}

//! `sphinx` bench section: BOLT #4 onion build and peel next to lightning-onion
//! (Go, via `interop/sphinx`) and LDK measured in the same run, the
//! elliptic-curve floor, the quadratic derivation for contrast, and batch peel
//! on one core against all cores.

use super::sphinx_ldk::Ldk;
use super::{Better, Ctx, Row};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use wireseal::batch::Batch;
use wireseal::primitives::secp256k1::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, keys, Hop, Onion, Padding, PeelItem, PAYMENT_AREA};

const S: &str = "sphinx";
const GO: &str = "lightning-onion v1.3.0 (Go)";
const LDK: &str = "LDK lightning 0.2.7";

fn node(i: usize) -> PrivateKey {
    PrivateKey::from_bytes(&[0x50 + i as u8; 32]).expect("valid key")
}

/// Runs lightning-onion's timing loop; `None` (with a note) without Go.
fn go_bench(ctx: &Ctx) -> Option<serde_json::Value> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let bin = target.join("interop").join("sphinx-peer");
    let src = root.join("interop/sphinx");
    let built = src.is_dir()
        && Command::new("go")
            .args(["build", "-o"])
            .arg(&bin)
            .arg(".")
            .current_dir(&src)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
    if !built && !bin.is_file() {
        eprintln!(
            "sphinx: lightning-onion skipped: `go` is not installed or interop/sphinx is missing"
        );
        return None;
    }
    let req = serde_json::json!({
        "op": "bench",
        "budget_ms": ctx.budget().as_millis() as u64,
        "samples": ctx.samples(),
    });
    let mut child = Command::new(&bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    use std::io::Write;
    child
        .stdin
        .take()?
        .write_all(req.to_string().as_bytes())
        .ok()?;
    let out = child.wait_with_output().ok()?;
    serde_json::from_slice(&out.stdout).ok()
}

/// The `sphinx` rows.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let us = 1e6;
    let session = PrivateKey::from_bytes(&[0x41; 32]).expect("valid key");
    let ad = [0x42u8; 32];
    let payload = [0x07u8; 20];
    let keys20: Vec<PrivateKey> = (0..20).map(node).collect();
    let pubs: Vec<PublicKey> = keys20.iter().map(|k| k.public_key()).collect();
    let hops20: Vec<Hop> = pubs
        .iter()
        .map(|p| Hop {
            pubkey: *p,
            payload: &payload,
        })
        .collect();
    let mut buf = vec![0u8; sphinx::PAYMENT_ONION_LEN];
    let build = |hops: &[Hop], buf: &mut [u8]| {
        sphinx::build_into(
            &session,
            hops,
            &ad,
            PAYMENT_AREA,
            Padding::Deterministic,
            buf,
        )
        .expect("builds")
    };
    // Warm up (lazy context set-up, caches, clock) before the first figure.
    let t = std::time::Instant::now();
    while t.elapsed() < std::time::Duration::from_millis(50) {
        build(&hops20, &mut buf);
    }
    // The 20-hop build and the floor are measured alternately, three rounds,
    // and each reported as the median of its rounds, so load drifts hit both.
    let floor_op = || {
        for p in &pubs {
            std::hint::black_box(session.ecdh_sha256(p));
            std::hint::black_box(session.public_key());
        }
    };
    let (mut r20, mut rfloor) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        r20.push(ctx.time_per_op(|| build(&hops20, &mut buf)));
        rfloor.push(ctx.time_per_op(floor_op));
    }
    let b20 = super::timing::median(&mut r20);
    let floor = super::timing::median(&mut rfloor);
    let b1 = ctx.time_per_op(|| build(&hops20[..1], &mut buf));
    let linear = ctx.time_per_op(|| keys::session_secrets(&session, pubs.iter().copied()));
    let quadratic = ctx.time_per_op(|| keys::session_secrets_quadratic(&session, &pubs));
    let onion20 = sphinx::build(&session, &hops20, &ad, PAYMENT_AREA, Padding::Deterministic)
        .expect("builds")
        .0
        .to_bytes();
    let peel = ctx.time_per_op(|| {
        Onion::parse(&onion20)
            .and_then(|o| o.peel(&keys20[0], &ad))
            .expect("peels")
    });

    // Batch peel: distinct onions, one thread against every core.
    let n = if ctx.full { 4096 } else { 512 };
    let onions: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            sphinx::build(
                &PrivateKey::random(),
                &hops20,
                &ad,
                PAYMENT_AREA,
                Padding::Random,
            )
            .expect("builds")
            .0
            .to_bytes()
        })
        .collect();
    let items: Vec<PeelItem> = (0..n)
        .map(|i| PeelItem {
            onion: &onions[i % onions.len()],
            associated_data: &ad,
        })
        .collect();
    let one = Batch::with_threads(1);
    let all = Batch::all_cores();
    let t1 = ctx.time_job(ctx.samples(), || {
        sphinx::peel_batch(&one, &keys20[0], &items)
    });
    let tn = ctx.time_job(ctx.samples(), || {
        sphinx::peel_batch(&all, &keys20[0], &items)
    });

    // LDK: same route shape, payloads of its own making.
    let ldk = Ldk::new([0x33; 32]);
    let mut ldk_hops: Vec<[u8; 33]> = pubs.iter().map(|p| p.serialize()).collect();
    ldk_hops[0] = ldk.node_id();
    let ph = [0x42u8; 32];
    let l20 = ctx.time_per_op(|| ldk.build(&[0x41; 32], &ldk_hops, ph, [0; 32]));
    let l1 = ctx.time_per_op(|| ldk.build(&[0x41; 32], &ldk_hops[..1], ph, [0; 32]));
    let (lonion, amt, cltv) = ldk.build(&[0x41; 32], &ldk_hops, ph, [0; 32]);
    let lpeel = ctx.time_per_op(|| ldk.peel(&lonion, ph, amt, cltv).expect("LDK peels"));

    let go = go_bench(ctx);
    let g = |k: &str| go.as_ref().and_then(|v| v[k].as_f64()).map(|ns| ns / 1e3);
    let go_name = if go.is_some() {
        GO
    } else {
        "lightning-onion (go missing)"
    };
    let cores = all.threads();
    vec![
        Row::new(
            S,
            "build 20 hops",
            "µs",
            Better::Lower,
            b20 * us,
            go_name,
            g("build20_ns"),
        )
        .seed("lightning-onion 2.70 ms, 1,212 allocs (issue)"),
        Row::new(
            S,
            "build 20 hops",
            "µs",
            Better::Lower,
            b20 * us,
            LDK,
            Some(l20 * us),
        )
        .seed("LDK ~1.0 ms (issue)"),
        Row::new(
            S,
            "build 20 hops vs floor (20 ECDH + 20 k·G)",
            "µs",
            Better::Lower,
            b20 * us,
            "EC floor, same run",
            Some(floor * us),
        )
        .seed("target: within 15% (ratio >= 0.87)"),
        Row::new(
            S,
            "20-hop key derivation, linear vs quadratic",
            "µs",
            Better::Lower,
            linear * us,
            "quadratic (Core Lightning way)",
            Some(quadratic * us),
        )
        .seed("CLN ~229 variable-base mults"),
        Row::new(
            S,
            "build 1 hop",
            "µs",
            Better::Lower,
            b1 * us,
            go_name,
            g("build1_ns"),
        ),
        Row::new(
            S,
            "build 1 hop",
            "µs",
            Better::Lower,
            b1 * us,
            LDK,
            Some(l1 * us),
        ),
        Row::new(
            S,
            "peel 1 hop (of 20)",
            "µs",
            Better::Lower,
            peel * us,
            go_name,
            g("peel_ns"),
        )
        .seed("lightning-onion 0.40 ms (issue); target >= 6x"),
        Row::new(
            S,
            "peel 1 hop (of 20)",
            "µs",
            Better::Lower,
            peel * us,
            LDK,
            Some(lpeel * us),
        ),
        Row::new(
            S,
            format!("batch peel, {cores} cores vs 1"),
            "onions/s",
            Better::Higher,
            n as f64 / tn,
            "wireseal on 1 core",
            Some(n as f64 / t1),
        )
        .seed("target >= 1.8x"),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn floor_keys_are_valid() {
        assert_eq!(super::node(19).public_key().serialize().len(), 33);
    }
}

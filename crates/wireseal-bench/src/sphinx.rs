//! `sphinx` bench section: BOLT #4 onion build and peel next to lightning-onion
//! (Go, via `interop/sphinx`) and LDK measured in the same run, the
//! elliptic-curve floors of build and peel, the quadratic shared-secret
//! derivation for contrast, and batch peel on one core against all cores.
//!
//! Every ours-vs-other figure is a pair sampled alternately, so load on a
//! shared machine hits both alike. The peers get their keys parsed and routes
//! built outside the timed code, as wireseal does. lightning-onion times
//! itself in its own process (a Go bench server): each round runs one sample
//! of ours here, then asks Go for one sample of the same workload.

use super::sphinx_baselines::session_secrets_quadratic;
use super::sphinx_ldk::Ldk;
use super::{Better, Ctx, Row};
use crate::peers::rust_peers::mark_skipped;
use crate::peers::{GoBench, Skip};
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;
use wireseal::batch::Batch;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, keys, Hop, Onion, Padding, PeelItem, Route};

const S: &str = "sphinx";
const GO: &str = "lightning-onion v1.3.0 (Go)";
const LDK: &str = "LDK lightning 0.2.7";

fn node(i: usize) -> PrivateKey {
    PrivateKey::from_bytes(&[0x50 + i as u8; 32]).expect("valid key")
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

    // lightning-onion: started (and built) before any timing, same workload.
    let setup = json!({
        "op": "bench_serve",
        "session_key": hex::encode(session.to_secret().expose()),
        "associated_data": hex::encode(ad),
        "hops": pubs.iter().map(|p| json!({
            "pubkey": hex::encode(p.serialize()),
            "payload": hex::encode(payload),
        })).collect::<Vec<_>>(),
        "node_key": hex::encode(keys20[0].to_secret().expose()),
    });
    let mut go = GoBench::start(&setup);

    let mut buf = vec![0u8; sphinx::PAYMENT_ONION_LEN];
    let build = |hops: &[Hop], buf: &mut [u8]| {
        let route = Route::new(hops, &ad).with_padding(Padding::Deterministic);
        sphinx::build_into(&session, &route, buf).expect("builds")
    };
    // Warm up (lazy context set-up, caches, clock) before the first figure.
    let t = Instant::now();
    while t.elapsed() < std::time::Duration::from_millis(50) {
        build(&hops20, &mut buf);
    }

    // LDK: same route shape (its first hop is its own node, so it can peel),
    // keys parsed and the path built once; payloads of its own making.
    let ldk = Ldk::new([0x33; 32]);
    let mut ldk_hops: Vec<[u8; 33]> = pubs.iter().map(|p| p.serialize()).collect();
    ldk_hops[0] = ldk.node_id();
    let ldk_path20 = Ldk::path(&ldk_hops);
    let ldk_path1 = Ldk::path(&ldk_hops[..1]);
    let ldk_session = Ldk::session_key(&[0x41; 32]);
    let ph = [0x42u8; 32];

    // The Go pairs; the reason when the helper is missing or fails part way
    // (later pairs then skip too, with the same reason).
    let mut go_pair = |what: &str, ours: &mut dyn FnMut()| -> Result<(f64, f64), Skip> {
        let g = go.as_mut().map_err(|e| e.clone())?;
        g.pair(ctx, what, ours).inspect_err(|e| {
            go = Err(Skip::new(format!(
                "lightning-onion failed at `{what}`: {e}"
            )));
        })
    };

    // Build, 20 hops: against the floor, LDK and lightning-onion.
    let floor_build = || {
        for p in &pubs {
            black_box(session.ecdh_sha256(p));
            black_box(session.public_key());
        }
    };
    let (b20_f, floor) = ctx.time_pair_per_op(|| build(&hops20, &mut buf), floor_build);
    let (b20_l, l20) = ctx.time_pair_per_op(
        || build(&hops20, &mut buf),
        || ldk.create(&ldk_session, &ldk_path20, ph, [0; 32]),
    );
    let g20 = go_pair("build20", &mut || {
        build(&hops20, &mut buf);
    });

    // Shared-secret derivation only (no packet): linear against quadratic.
    let (linear, quadratic) = ctx.time_pair_per_op(
        || keys::session_secrets(&session, pubs.iter().copied()),
        || session_secrets_quadratic(&session, &pubs),
    );

    // Build, 1 hop.
    let (b1_l, l1) = ctx.time_pair_per_op(
        || build(&hops20[..1], &mut buf),
        || ldk.create(&ldk_session, &ldk_path1, ph, [0; 32]),
    );
    let g1 = go_pair("build1", &mut || {
        build(&hops20[..1], &mut buf);
    });

    // Peel one layer (of 20), from the wire bytes: against its floor, LDK and
    // lightning-onion.
    let route20 = Route::new(&hops20, &ad).with_padding(Padding::Deterministic);
    let onion20 = sphinx::build_to_vec(&session, &route20).expect("builds").0;
    let peel = || {
        Onion::parse(&onion20)
            .and_then(|o| o.peel(&keys20[0], &ad))
            .expect("peels")
    };
    // The EC work a forwarding peel cannot avoid: one ECDH with the onion's
    // ephemeral key and one variable-base multiplication for the next one.
    let eph = *Onion::parse(&onion20).expect("parses").ephemeral_key();
    let tweak = [0x5au8; 32];
    let floor_peel = || {
        black_box(keys20[0].ecdh_sha256(&eph));
        black_box(eph.mul_tweak_vartime(&tweak).expect("valid tweak"))
    };
    let (peel_f, pfloor) = ctx.time_pair_per_op(peel, floor_peel);
    let (lonion, amt, cltv) = ldk.build(&[0x41; 32], &ldk_hops, ph, [0; 32]);
    let (peel_l, lpeel) = ctx.time_pair_per_op(peel, || {
        ldk.peel(&lonion, ph, amt, cltv).expect("LDK peels")
    });
    let gpeel = go_pair("peel", &mut || {
        peel();
    });
    let curves = super::sphinx_curves::rows(
        ctx,
        &super::sphinx_curves::Setup {
            session: &session,
            keys: &keys20,
            pubs: &pubs,
            payload: &payload,
            ad: &ad,
            ldk: &ldk,
            ldk_hops: &ldk_hops,
            ldk_peel: lpeel,
            go_peel: gpeel.as_ref().map(|g| g.1).map_err(Clone::clone),
        },
        &mut |what, ours| go_pair(what, ours),
    );
    drop(go); // the Go process exits; nothing of it runs during batch peel

    // Batch peel: distinct onions, one thread against every core.
    let n = if ctx.full { 4096 } else { 512 };
    let onions: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            sphinx::build_to_vec(
                &PrivateKey::random(),
                &Route::new(&hops20, &ad).with_padding(Padding::Random),
            )
            .expect("builds")
            .0
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
    let (t1, tn) = ctx.time_pair_job(
        ctx.samples(),
        || sphinx::peel_batch(&one, &keys20[0], &items),
        || sphinx::peel_batch(&all, &keys20[0], &items),
    );

    // Without the Go peer, our figure from the LDK pair stands in.
    let go_row = |g: Result<(f64, f64), Skip>, fallback: f64| match g {
        Ok((ours, theirs)) => (ours, Ok(theirs * us)),
        Err(why) => (fallback, Err(why)),
    };
    let (b20_g, go20) = go_row(g20, b20_l);
    let (b1_g, go1) = go_row(g1, b1_l);
    let (peel_g, gop) = go_row(gpeel, peel_l);
    let cores = all.threads();
    let rows = vec![
        Row::with_peer(
            S,
            "build 20 hops",
            "µs",
            Better::Lower,
            b20_g * us,
            GO,
            go20.as_ref().copied(),
        )
        .seed("lightning-onion 2.70 ms, 1,212 allocs on a faster reference machine"),
        Row::new(
            S,
            "build 20 hops",
            "µs",
            Better::Lower,
            b20_l * us,
            LDK,
            Some(l20 * us),
        )
        .seed("LDK ~1.0 ms on a faster reference machine"),
        Row::new(
            S,
            "build 20 hops vs floor (20 ECDH + 20 k·G)",
            "µs",
            Better::Lower,
            b20_f * us,
            "EC floor, same run",
            Some(floor * us),
        )
        .seed("target: within 15% (ratio >= 0.87)"),
        Row::new(
            S,
            "20-hop shared secrets (no packet), linear",
            "µs",
            Better::Lower,
            linear * us,
            "quadratic (Core Lightning)",
            Some(quadratic * us),
        )
        .seed("derivation only; CLN ~229 var-base mults"),
        Row::with_peer(
            S,
            "build 1 hop",
            "µs",
            Better::Lower,
            b1_g * us,
            GO,
            go1.as_ref().copied(),
        ),
        Row::new(
            S,
            "build 1 hop",
            "µs",
            Better::Lower,
            b1_l * us,
            LDK,
            Some(l1 * us),
        ),
        Row::with_peer(
            S,
            "peel 1 hop (of 20)",
            "µs",
            Better::Lower,
            peel_g * us,
            GO,
            gop.as_ref().copied(),
        )
        .seed("lightning-onion 0.40 ms on a faster reference machine; target >= 6x"),
        Row::new(
            S,
            "peel 1 hop (of 20)",
            "µs",
            Better::Lower,
            peel_l * us,
            LDK,
            Some(lpeel * us),
        ),
        Row::new(
            S,
            "peel 1 hop vs floor (ECDH + var-base mult)",
            "µs",
            Better::Lower,
            peel_f * us,
            "EC floor, same run",
            Some(pfloor * us),
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
    ];
    let mut rows = mark_skipped(rows, LDK);
    rows.extend(mark_skipped(curves, LDK));
    rows.extend(super::sphinx_attribution::rows(ctx));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_keys_are_valid() {
        assert_eq!(node(19).public_key().serialize().len(), 33);
    }
}

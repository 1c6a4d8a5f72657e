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
//!
//! The report's curves by route length are [`curves`], the attribution-data
//! rows [`attribution`]; LDK is driven through [`ldk`].

mod attribution;
mod baselines;
mod curves;
pub(crate) mod ldk;

use crate::peers::rust_peers::mark_skipped;
use crate::peers::{GoBench, Skip};
use crate::{Better, Ctx, Row};
use baselines::session_secrets_quadratic;
use ldk::Ldk;
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;
use wireseal::batch::Batch;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, keys, Hop, HopSecrets, Onion, Padding, PeelItem, Route};

const S: &str = "sphinx";
const GO: &str = "lightning-onion v1.3.0 (Go)";
const LDK: &str = "LDK lightning 0.2.7";
/// Microseconds in a second: the rows' unit.
const US: f64 = 1e6;
/// The payment hash LDK's onions carry.
const PAYMENT_HASH: [u8; 32] = [0x42; 32];

fn node(i: usize) -> PrivateKey {
    PrivateKey::from_bytes(&[0x50 + i as u8; 32]).expect("valid key")
}

/// The section's route: 20 hops' keys, the session key, the hop payload
/// and the associated data.
struct Route20 {
    session: PrivateKey,
    ad: [u8; 32],
    payload: [u8; 20],
    keys: Vec<PrivateKey>,
    pubs: Vec<PublicKey>,
}

impl Route20 {
    fn new() -> Self {
        let keys: Vec<PrivateKey> = (0..20).map(node).collect();
        let pubs = keys.iter().map(|k| k.public_key()).collect();
        Self {
            session: PrivateKey::from_bytes(&[0x41; 32]).expect("valid key"),
            ad: [0x42; 32],
            payload: [0x07; 20],
            keys,
            pubs,
        }
    }

    /// The first `n` hops.
    fn hops(&self, n: usize) -> Vec<Hop<'_>> {
        self.pubs[..n]
            .iter()
            .map(|p| Hop {
                pubkey: *p,
                payload: &self.payload,
            })
            .collect()
    }

    /// Builds the onion over `hops` into `buf` (deterministic padding).
    fn build(&self, hops: &[Hop<'_>], buf: &mut [u8]) -> (usize, HopSecrets) {
        let route = Route::new(hops, &self.ad).with_padding(Padding::Deterministic);
        sphinx::build_into(&self.session, &route, buf).expect("builds")
    }
}

/// LDK on the same route shape: its first hop is its own node, so it can
/// peel; the path keys parsed once, payloads of its own making.
struct LdkRoute {
    ldk: Ldk,
    hops: Vec<[u8; 33]>,
}

impl LdkRoute {
    fn new(r: &Route20) -> Self {
        let ldk = Ldk::new([0x33; 32]);
        let mut hops: Vec<[u8; 33]> = r.pubs.iter().map(|p| p.serialize()).collect();
        hops[0] = ldk.node_id();
        Self { ldk, hops }
    }
}

/// lightning-onion's bench server (started, and built, before any timing,
/// on the same workloads), or why it is missing or failed part way (later
/// pairs then skip too, with the same reason).
struct Go(Result<GoBench, Skip>);

impl Go {
    fn start(r: &Route20) -> Self {
        let setup = json!({
            "op": "bench_serve",
            "session_key": hex::encode(r.session.to_secret().expose()),
            "associated_data": hex::encode(r.ad),
            "hops": r.pubs.iter().map(|p| json!({
                "pubkey": hex::encode(p.serialize()),
                "payload": hex::encode(r.payload),
            })).collect::<Vec<_>>(),
            "node_key": hex::encode(r.keys[0].to_secret().expose()),
        });
        Self(GoBench::start(&setup))
    }

    /// Ours against lightning-onion on `what`: (ours, Go's) seconds per call.
    fn pair(&mut self, ctx: &Ctx, what: &str, ours: &mut dyn FnMut()) -> Result<(f64, f64), Skip> {
        let g = self.0.as_mut().map_err(|e| e.clone())?;
        g.pair(ctx, what, ours).inspect_err(|e| {
            self.0 = Err(Skip::new(format!(
                "lightning-onion failed at `{what}`: {e}"
            )));
        })
    }
}

/// A Go pair's figures in µs: ours and Go's, or, without the Go peer, our
/// figure from the LDK pair (`fallback`, seconds) and why.
fn go_figures(g: Result<(f64, f64), Skip>, fallback: f64) -> (f64, Result<f64, Skip>) {
    match g {
        Ok((ours, theirs)) => (ours * US, Ok(theirs * US)),
        Err(why) => (fallback * US, Err(why)),
    }
}

/// The `sphinx` rows.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let r = Route20::new();
    let mut go = Go::start(&r);
    // Warm up (lazy context set-up, caches, clock) before the first figure.
    let mut buf = vec![0u8; sphinx::PAYMENT_ONION_LEN];
    let hops20 = r.hops(20);
    let t = Instant::now();
    while t.elapsed() < std::time::Duration::from_millis(50) {
        r.build(&hops20, &mut buf);
    }
    let ldk = LdkRoute::new(&r);
    let mut rows = build_rows(ctx, &r, &ldk, &mut go, 20);
    rows.push(secrets_row(ctx, &r));
    rows.extend(build_rows(ctx, &r, &ldk, &mut go, 1));
    let (peel, ldk_peel, go_peel) = peel_rows(ctx, &r, &ldk, &mut go);
    rows.extend(peel);
    let setup = curves::Setup {
        session: &r.session,
        keys: &r.keys,
        pubs: &r.pubs,
        payload: &r.payload,
        ad: &r.ad,
        ldk: &ldk.ldk,
        ldk_hops: &ldk.hops,
        ldk_peel,
        go_peel,
    };
    let curves = curves::rows(ctx, &setup, &mut go);
    drop(go); // the Go process exits; nothing of it runs during batch peel
    rows.push(batch_peel_row(ctx, &r));
    let mut rows = mark_skipped(rows, LDK);
    rows.extend(mark_skipped(curves, LDK));
    rows.extend(attribution::rows(ctx));
    rows
}

/// Build over the first `n` hops (20 or 1) against lightning-onion and LDK,
/// and with 20 hops against the floor (an ECDH and a fixed-base
/// multiplication per hop).
fn build_rows(ctx: &Ctx, r: &Route20, ldk: &LdkRoute, go: &mut Go, n: usize) -> Vec<Row> {
    let mut buf = vec![0u8; sphinx::PAYMENT_ONION_LEN];
    let hops = r.hops(n);
    let path = Ldk::path(&ldk.hops[..n]);
    let session = Ldk::session_key(&[0x41; 32]);
    let floor = (n == 20).then(|| {
        let floor_build = || {
            for p in &r.pubs {
                black_box(r.session.ecdh_sha256(p));
                black_box(r.session.public_key());
            }
        };
        ctx.time_pair_per_op(|| r.build(&hops, &mut buf), floor_build)
    });
    let (ours_l, theirs_l) = ctx.time_pair_per_op(
        || r.build(&hops, &mut buf),
        || ldk.ldk.create(&session, &path, PAYMENT_HASH, [0; 32]),
    );
    let g = go.pair(ctx, &format!("build{n}"), &mut || {
        r.build(&hops, &mut buf);
    });
    let (ours_g, theirs_g) = go_figures(g, ours_l);
    let workload = format!("build {n} hop{}", if n == 1 { "" } else { "s" });
    let mut go_row = Row::with_peer(
        S,
        &workload,
        "µs",
        Better::Lower,
        ours_g,
        GO,
        theirs_g.as_ref().copied(),
    );
    let mut ldk_row = Row::new(
        S,
        workload,
        "µs",
        Better::Lower,
        ours_l * US,
        LDK,
        Some(theirs_l * US),
    );
    let Some((ours_f, floor)) = floor else {
        return vec![go_row, ldk_row];
    };
    go_row = go_row.seed("lightning-onion 2.70 ms, 1,212 allocs on a faster reference machine");
    ldk_row = ldk_row.seed("LDK ~1.0 ms on a faster reference machine");
    let floor_row = Row::new(
        S,
        "build 20 hops vs floor (20 ECDH + 20 k·G)",
        "µs",
        Better::Lower,
        ours_f * US,
        "EC floor, same run",
        Some(floor * US),
    )
    .seed("target: within 15% (ratio >= 0.87)");
    vec![go_row, ldk_row, floor_row]
}

/// Shared-secret derivation only (no packet): linear against quadratic.
fn secrets_row(ctx: &Ctx, r: &Route20) -> Row {
    let (linear, quadratic) = ctx.time_pair_per_op(
        || keys::session_secrets(&r.session, r.pubs.iter().copied()),
        || session_secrets_quadratic(&r.session, &r.pubs),
    );
    Row::new(
        S,
        "20-hop shared secrets (no packet), linear",
        "µs",
        Better::Lower,
        linear * US,
        "quadratic (Core Lightning)",
        Some(quadratic * US),
    )
    .seed("derivation only; CLN ~229 var-base mults")
}

/// Peel one layer (of 20), from the wire bytes, against lightning-onion,
/// LDK and its floor; also LDK's one-hop peel (seconds) and Go's (or why it
/// is missing), which the curves scale by the route's length.
fn peel_rows(
    ctx: &Ctx,
    r: &Route20,
    ldk: &LdkRoute,
    go: &mut Go,
) -> (Vec<Row>, f64, Result<f64, Skip>) {
    let hops20 = r.hops(20);
    let route20 = Route::new(&hops20, &r.ad).with_padding(Padding::Deterministic);
    let onion20 = sphinx::build_to_vec(&r.session, &route20)
        .expect("builds")
        .0;
    let peel = || {
        Onion::parse(&onion20)
            .and_then(|o| o.peel(&r.keys[0], &r.ad))
            .expect("peels")
    };
    // The EC work a forwarding peel cannot avoid: one ECDH with the onion's
    // ephemeral key and one variable-base multiplication for the next one.
    let eph = *Onion::parse(&onion20).expect("parses").ephemeral_key();
    let tweak = [0x5au8; 32];
    let floor_peel = || {
        black_box(r.keys[0].ecdh_sha256(&eph));
        black_box(eph.mul_tweak_vartime(&tweak).expect("valid tweak"))
    };
    let (peel_f, pfloor) = ctx.time_pair_per_op(peel, floor_peel);
    let (lonion, amt, cltv) = ldk.ldk.build(&[0x41; 32], &ldk.hops, PAYMENT_HASH, [0; 32]);
    let (peel_l, lpeel) = ctx.time_pair_per_op(peel, || {
        ldk.ldk
            .peel(&lonion, PAYMENT_HASH, amt, cltv)
            .expect("LDK peels")
    });
    let gpeel = go.pair(ctx, "peel", &mut || {
        peel();
    });
    let go_peel = gpeel.as_ref().map(|g| g.1).map_err(Clone::clone);
    let (peel_g, gop) = go_figures(gpeel, peel_l);
    let rows = vec![
        Row::with_peer(
            S,
            "peel 1 hop (of 20)",
            "µs",
            Better::Lower,
            peel_g,
            GO,
            gop.as_ref().copied(),
        )
        .seed("lightning-onion 0.40 ms on a faster reference machine; target >= 6x"),
        Row::new(
            S,
            "peel 1 hop (of 20)",
            "µs",
            Better::Lower,
            peel_l * US,
            LDK,
            Some(lpeel * US),
        ),
        Row::new(
            S,
            "peel 1 hop vs floor (ECDH + var-base mult)",
            "µs",
            Better::Lower,
            peel_f * US,
            "EC floor, same run",
            Some(pfloor * US),
        ),
    ];
    (rows, lpeel, go_peel)
}

/// Batch peel: distinct onions, one thread against every core.
fn batch_peel_row(ctx: &Ctx, r: &Route20) -> Row {
    let n = if ctx.full { 4096 } else { 512 };
    let hops20 = r.hops(20);
    let onions: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            sphinx::build_to_vec(
                &PrivateKey::random(),
                &Route::new(&hops20, &r.ad).with_padding(Padding::Random),
            )
            .expect("builds")
            .0
        })
        .collect();
    let items: Vec<PeelItem> = (0..n)
        .map(|i| PeelItem {
            onion: &onions[i % onions.len()],
            associated_data: &r.ad,
        })
        .collect();
    let one = Batch::with_threads(1);
    let all = Batch::all_cores();
    let (t1, tn) = ctx.time_pair_job(
        ctx.samples(),
        || sphinx::peel_batch(&one, &r.keys[0], &items),
        || sphinx::peel_batch(&all, &r.keys[0], &items),
    );
    Row::new(
        S,
        format!("batch peel, {} cores vs 1", all.threads()),
        "onions/s",
        Better::Higher,
        n as f64 / tn,
        "wireseal on 1 core",
        Some(n as f64 / t1),
    )
    .seed("target >= 1.8x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_keys_are_valid() {
        assert_eq!(node(19).public_key().serialize().len(), 33);
    }
}

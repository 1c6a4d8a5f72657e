//! The sphinx section's curves for the report: building an onion and
//! peeling it along its whole route, by route length (1 to 20 hops).
//!
//! Build: ours against LDK and lightning-onion (each pair sampled
//! alternately), against the elliptic-curve floor (one ECDH and one
//! fixed-base multiplication per hop), and the shared-secret derivation
//! alone, linear against quadratic. Peel: every hop of the route peels once,
//! ours against the floor (one ECDH per hop and one variable-base
//! multiplication per forwarding hop); the peers' figure is their one-hop peel, measured in the same run,
//! times the hops (a peel's cost does not depend on the route's length: the
//! packet is always 1366 bytes).

use super::baselines::session_secrets_quadratic;
use super::ldk::Ldk;
use super::{Go, S, US};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use std::hint::black_box;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, keys, Hop, Onion, Padding, Peeled, Route};

const BUILD: &str = "sphinx-build";
const PEEL: &str = "sphinx-peel";
const OURS: &str = "wireseal (linear derivation)";

/// What the curves need from the section: the route (20 hops), the session
/// key, the associated data, the LDK node and its path keys, and the peers'
/// one-hop peel times (seconds) measured in the same run.
pub struct Setup<'a> {
    /// The session key.
    pub session: &'a PrivateKey,
    /// The 20 hops' private keys, in path order.
    pub keys: &'a [PrivateKey],
    /// Their public keys.
    pub pubs: &'a [PublicKey],
    /// The hop payload.
    pub payload: &'a [u8],
    /// Associated data (payment hash).
    pub ad: &'a [u8; 32],
    /// The LDK node.
    pub ldk: &'a Ldk,
    /// LDK's path keys (its own node first).
    pub ldk_hops: &'a [[u8; 33]],
    /// LDK's one-hop peel, seconds.
    pub ldk_peel: f64,
    /// lightning-onion's one-hop peel, seconds, or why it is missing.
    pub go_peel: Result<f64, Skip>,
}

/// Route lengths of the curves.
fn lengths(ctx: &Ctx) -> Vec<usize> {
    if ctx.full {
        (1..=20).collect()
    } else {
        vec![1, 5, 10, 15, 20]
    }
}

/// The curve rows; `go` runs the lightning-onion pairs (`buildN`
/// workloads).
pub fn rows(ctx: &Ctx, s: &Setup<'_>, go: &mut Go) -> Vec<Row> {
    let mut rows = Vec::new();
    for n in lengths(ctx) {
        rows.extend(build_rows(ctx, s, go, n));
        rows.extend(peel_rows(ctx, s, n));
    }
    rows
}

/// Building an `n`-hop onion against LDK, the floor and lightning-onion,
/// and the shared-secret derivation alone, linear against quadratic.
fn build_rows(ctx: &Ctx, s: &Setup<'_>, go: &mut Go, n: usize) -> Vec<Row> {
    let x = n as f64;
    let mut rows = Vec::new();
    let mut buf = vec![0u8; sphinx::PAYMENT_ONION_LEN];
    let ldk_session = Ldk::session_key(&[0x41; 32]);
    let hops: Vec<Hop> = s.pubs[..n]
        .iter()
        .map(|p| Hop {
            pubkey: *p,
            payload: s.payload,
        })
        .collect();
    let mut build = || {
        let route = Route::new(&hops, s.ad).with_padding(Padding::Deterministic);
        sphinx::build_into(s.session, &route, &mut buf).expect("builds")
    };
    let path = Ldk::path(&s.ldk_hops[..n]);
    let (ours, ldk) = ctx.time_pair_per_op(&mut build, || {
        s.ldk.create(&ldk_session, &path, [0x42; 32], [0; 32])
    });
    rows.push(
        Row::new(
            S,
            format!("build {n} hops"),
            "µs",
            Better::Lower,
            ours * US,
            "LDK lightning 0.2.7",
            Some(ldk * US),
        )
        .at(BUILD, OURS, x),
    );
    let floor = || {
        for p in &s.pubs[..n] {
            black_box(s.session.ecdh_sha256(p));
            black_box(s.session.public_key());
        }
    };
    let (ours, fl) = ctx.time_pair_per_op(&mut build, floor);
    rows.push(
        Row::new(
            S,
            format!("build {n} hops vs floor"),
            "µs",
            Better::Lower,
            ours * US,
            "EC floor (ECDH + k·G per hop)",
            Some(fl * US),
        )
        .at(BUILD, OURS, x),
    );
    let g = go.pair(ctx, &format!("build{n}"), &mut || {
        build();
    });
    rows.push(
        Row::with_peer(
            S,
            format!("build {n} hops"),
            "µs",
            Better::Lower,
            g.as_ref().map_or(ours, |g| g.0) * US,
            "lightning-onion v1.3.0 (Go)",
            g.as_ref().map(|g| g.1 * US),
        )
        .at(BUILD, OURS, x),
    );
    let (lin, quad) = ctx.time_pair_per_op(
        || keys::session_secrets(s.session, s.pubs[..n].iter().copied()),
        || session_secrets_quadratic(s.session, &s.pubs[..n]),
    );
    rows.push(
        Row::new(
            S,
            format!("{n}-hop shared secrets, linear"),
            "µs",
            Better::Lower,
            lin * US,
            "derivation only, quadratic (Core Lightning)",
            Some(quad * US),
        )
        .at(BUILD, "derivation only, linear", x),
    );
    rows
}

/// Peeling along a whole `n`-hop route (hop i peels what hop i-1
/// forwarded) against the floor and the peers' one-hop peel times `n`.
fn peel_rows(ctx: &Ctx, s: &Setup<'_>, n: usize) -> Vec<Row> {
    let x = n as f64;
    let hops: Vec<Hop> = s.pubs[..n]
        .iter()
        .map(|p| Hop {
            pubkey: *p,
            payload: s.payload,
        })
        .collect();
    let route = Route::new(&hops, s.ad).with_padding(Padding::Deterministic);
    let onion = sphinx::build_to_vec(s.session, &route).expect("builds").0;
    let mut layers = Vec::with_capacity(n);
    let mut cur = onion.clone();
    for k in &s.keys[..n] {
        layers.push(cur.clone());
        let peeled = Onion::parse(&cur)
            .and_then(|o| o.peel(k, s.ad))
            .expect("peels");
        if let Peeled::Forward { next, .. } = peeled {
            next.write_into(&mut cur).expect("same size");
        }
    }
    let peel_all = || {
        for (k, layer) in s.keys[..n].iter().zip(&layers) {
            black_box(
                Onion::parse(layer)
                    .and_then(|o| o.peel(k, s.ad))
                    .expect("peels"),
            );
        }
    };
    let ephs: Vec<PublicKey> = layers
        .iter()
        .map(|l| *Onion::parse(l).expect("parses").ephemeral_key())
        .collect();
    let tweak = [0x5au8; 32];
    // The final hop derives no next key: n ECDHs, n - 1 blindings.
    let floor = || {
        for (i, (k, e)) in s.keys[..n].iter().zip(&ephs).enumerate() {
            black_box(k.ecdh_sha256(e));
            if i + 1 < n {
                black_box(e.mul_tweak_vartime(&tweak).expect("valid tweak"));
            }
        }
    };
    let (ours, fl) = ctx.time_pair_per_op(peel_all, floor);
    let per_hop = ours * US;
    let row = |w: String, base: &str, b| {
        Row::with_peer(S, w, "µs", Better::Lower, per_hop, base, b).at(
            PEEL,
            "wireseal, every hop peels",
            x,
        )
    };
    vec![
        row(
            format!("peel a {n}-hop route vs floor"),
            "EC floor (ECDH per hop, var-base mult per forward)",
            Ok(fl * US),
        ),
        row(
            format!("peel a {n}-hop route"),
            "LDK lightning 0.2.7, hops × its 1-hop peel",
            Ok(s.ldk_peel * x * US),
        ),
        row(
            format!("peel a {n}-hop route"),
            "lightning-onion v1.3.0 (Go), hops × its 1-hop peel",
            s.go_peel.as_ref().map(|g| g * x * US),
        ),
    ]
}

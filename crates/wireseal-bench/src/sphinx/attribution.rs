//! Attribution-data rows of the `sphinx` section: the origin's unwrap of a
//! 20-hop attributed failure (with and without attribution data, with the
//! route's secrets kept from building the onion or derived again from the
//! session key) and a hop's attributed wrap, against LDK in the same run.
//!
//! LDK's failure code is crate-private: its figures come from timing its
//! `ChannelManager`s (LDK's network, [`super::ldk`]). The origin's figure is
//! the time node 0 spends on an attributed 20-hop failure minus the same
//! exchange carrying an `update_fail_malformed_htlc` (median of paired
//! differences); LDK derives the route's secrets from the session key
//! there, as it keeps only that. The wrap's figure is the time a forwarding
//! node spends per HTLC it fails back (batches of 32 against 1), which
//! includes LDK's per-HTLC bookkeeping. Samples of ours and LDK's
//! alternate.

use super::{LDK, S};
use crate::peers::rust_peers::mark_skipped;
use crate::{Better, Ctx, Row};
use std::hint::black_box;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{failure, keys, AttributionData, HopSecrets};

/// A 20-hop route's keys and the secrets of a session over it.
struct Route20 {
    session: PrivateKey,
    pubs: Vec<PublicKey>,
    secrets: HopSecrets,
}

fn route20() -> Route20 {
    let session = PrivateKey::from_bytes(&[0x41; 32]).expect("valid key");
    let pubs: Vec<PublicKey> = (0..20u8)
        .map(|i| {
            PrivateKey::from_bytes(&[0x50 + i; 32])
                .expect("valid key")
                .public_key()
        })
        .collect();
    let (_, secrets) = keys::session_secrets(&session, pubs.iter().copied()).expect("20 hops");
    Route20 {
        session,
        pubs,
        secrets,
    }
}

/// The failure hop `from` sends back over `secrets` as the origin receives
/// it: attributed (every hop honest) and without attribution data.
fn failure_from(secrets: &HopSecrets, from: usize) -> (Vec<u8>, AttributionData, Vec<u8>) {
    let msg = [0x20, 0x02];
    let (mut p, mut a) =
        failure::create_attributed_to_vec(secrets.hop(from).expect("hop"), &msg, 300)
            .expect("a short message");
    let mut legacy = failure::create_to_vec(secrets.hop(from).expect("hop"), &msg).expect("short");
    for h in (1..from).rev() {
        let ss = secrets.hop(h).expect("hop");
        failure::wrap_attributed_in_place(ss, 1200, &mut p, &mut a).expect("a full packet");
        failure::wrap_in_place(ss, &mut legacy).expect("a full packet");
    }
    (p, a, legacy)
}

/// The attribution rows.
pub fn rows(ctx: &Ctx) -> Vec<Row> {
    let us = 1e6;
    let r = route20();
    let (packet, attribution, legacy) = failure_from(&r.secrets, 20);
    let check = failure::unwrap_attributed(&r.secrets, &packet, Some(attribution.as_bytes()))
        .expect("unwraps");
    assert_eq!((check.hop, check.hold_times_ms.len()), (Some(20), 20));

    let mut with = || {
        black_box(
            failure::unwrap_attributed(&r.secrets, &packet, Some(attribution.as_bytes()))
                .expect("unwraps"),
        );
    };
    let mut without = || {
        black_box(failure::unwrap(&r.secrets, &legacy).expect("unwraps"));
    };
    let mut derive_and_unwrap = || {
        let (_, s) = keys::session_secrets(&r.session, r.pubs.iter().copied()).expect("20 hops");
        black_box(
            failure::unwrap_attributed(&s, &packet, Some(attribution.as_bytes())).expect("unwraps"),
        );
    };
    let (mut wp, mut wa) = (packet.clone(), attribution.clone());
    let first = r.secrets.hop(1).expect("hop 1");
    let mut wrap = || {
        black_box(failure::wrap_attributed_in_place(first, 1200, &mut wp, &mut wa).expect("wraps"));
    };

    let (t_with, t_without) = ctx.time_pair_per_op(&mut with, &mut without);
    let l = ldk::figures(ctx, &mut with, &mut derive_and_unwrap, &mut wrap);

    let rows = vec![
        Row::new(
            S,
            "failure unwrap 20 hops, attributed",
            "µs",
            Better::Lower,
            t_with * us,
            "wireseal, no attribution data",
            Some(t_without * us),
        )
        .seed("what the 20 hold-time and blame checks cost the origin"),
        Row::new(
            S,
            "failure unwrap 20 hops, attributed (kept secrets)",
            "µs",
            Better::Lower,
            l.ours_unwrap * us,
            format!("{LDK} origin"),
            l.unwrap.map(|t| t * us),
        )
        .seed("target >= 2x; LDK re-derives the secrets (it keeps the session key)"),
        Row::new(
            S,
            "failure unwrap 20 hops, attributed (derived secrets)",
            "µs",
            Better::Lower,
            l.ours_derive * us,
            format!("{LDK} origin"),
            l.unwrap.map(|t| t * us),
        )
        .seed("like for like: both derive 20 shared secrets"),
        Row::new(
            S,
            "attributed failure wrap, per hop",
            "µs",
            Better::Lower,
            l.ours_wrap * us,
            format!("{LDK} forwarder, per HTLC"),
            l.wrap.map(|t| t * us),
        )
        .seed("target >= 2x; LDK's figure includes its per-HTLC bookkeeping"),
    ];
    mark_skipped(rows, LDK)
}

/// Our figures from the rounds that alternate with LDK's, and LDK's.
struct Figures {
    ours_unwrap: f64,
    ours_derive: f64,
    ours_wrap: f64,
    unwrap: Option<f64>,
    wrap: Option<f64>,
}

#[cfg(feature = "rust-peers")]
mod ldk {
    use super::*;
    use crate::sphinx::ldk::net::{Net, BATCH};
    use crate::timing::{calls_per_sample, median};
    use std::time::Instant;
    use wireseal::sphinx::{Onion, Peeled};

    /// Seconds per call of `f` over `n` calls.
    fn sample(f: &mut dyn FnMut(), n: u64) -> f64 {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        t.elapsed().as_secs_f64() / n as f64
    }

    /// wireseal's keys for the 19 hops after LDK's node 1 on LDK's route.
    fn fake_hops() -> Vec<PrivateKey> {
        (0..19u8)
            .map(|i| PrivateKey::from_bytes(&[0x70 + i; 32]).expect("valid key"))
            .collect()
    }

    /// The secrets of LDK's onion, peeled by node 1 and the fake hops.
    fn peel(onion: &[u8], node1: &PrivateKey, fake: &[PrivateKey], hash: &[u8]) -> HopSecrets {
        let mut cur = Some(Onion::parse(onion).expect("LDK's onion"));
        let mut out = Vec::new();
        for k in std::iter::once(node1).chain(fake) {
            match cur.take().expect("a hop").peel(k, hash).expect("peels") {
                Peeled::Forward {
                    next,
                    shared_secret,
                    ..
                } => {
                    out.push(shared_secret);
                    cur = Some(next);
                }
                Peeled::Final { shared_secret, .. } => out.push(shared_secret),
            }
        }
        HopSecrets::new(out)
    }

    pub(super) fn figures(
        ctx: &Ctx,
        unwrap: &mut dyn FnMut(),
        derive: &mut dyn FnMut(),
        wrap: &mut dyn FnMut(),
    ) -> Figures {
        let mut net = Net::new();
        // The same session keys and channel ids in every run.
        net.reseed(b"wireseal bench");
        let (secret1, _) = net.forwarder();
        let node1 = PrivateKey::from_bytes(&secret1).expect("LDK's key");
        let fake = fake_hops();
        let fake_pubs: Vec<[u8; 33]> = fake.iter().map(|k| k.public_key().serialize()).collect();
        let per = ctx.budget().as_secs_f64() / ctx.samples() as f64;
        let (nu, nd, nw) = (
            calls_per_sample(per, &mut &mut *unwrap),
            calls_per_sample(per, &mut &mut *derive),
            calls_per_sample(per, &mut &mut *wrap),
        );
        // LDK's origin reads the packets the timed rounds send as wireseal
        // does: every hop's hold time and hop 20 failing.
        let seen = net.origin_decode_events(&fake_pubs, |onion, hash| {
            let s = peel(onion, &node1, &fake, hash);
            let (p, a, _) = failure_from(&s, 20);
            Some((p, Some(a.as_bytes().to_vec())))
        });
        let mut want = vec![12u32; 19];
        want.push(3);
        assert_eq!(seen.hold_times, want, "LDK's hold times");
        assert_eq!(
            seen.failing_node.map(|k| k.serialize()),
            Some(fake_pubs[18]),
            "LDK's failing node"
        );
        let rounds = 2 * ctx.samples() + 1;
        let (mut ou, mut od, mut ow) = (Vec::new(), Vec::new(), Vec::new());
        let (mut diff, mut slope) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            ou.push(sample(unwrap, nu));
            let attributed = net
                .origin_decode(&fake_pubs, |onion, hash| {
                    let s = peel(onion, &node1, &fake, hash);
                    let (p, a, _) = failure_from(&s, 20);
                    Some((p, Some(a.as_bytes().to_vec())))
                })
                .as_secs_f64();
            let malformed = net.origin_decode(&fake_pubs, |_, _| None).as_secs_f64();
            diff.push(attributed - malformed);
            od.push(sample(derive, nd));
            ow.push(sample(wrap, nw));
            let one = net.forward_fail(1).as_secs_f64();
            let many = net.forward_fail(BATCH).as_secs_f64();
            slope.push((many - one) / (BATCH - 1) as f64);
        }
        Figures {
            ours_unwrap: median(&mut ou),
            ours_derive: median(&mut od),
            ours_wrap: median(&mut ow),
            unwrap: Some(median(&mut diff)),
            wrap: Some(median(&mut slope)),
        }
    }
}

#[cfg(not(feature = "rust-peers"))]
mod ldk {
    use super::*;

    /// Without the Rust peers: our figures alone (LDK's rows are marked
    /// skipped).
    pub(super) fn figures(
        ctx: &Ctx,
        unwrap: &mut dyn FnMut(),
        derive: &mut dyn FnMut(),
        wrap: &mut dyn FnMut(),
    ) -> Figures {
        Figures {
            ours_unwrap: ctx.time_per_op(unwrap),
            ours_derive: ctx.time_per_op(derive),
            ours_wrap: ctx.time_per_op(wrap),
            unwrap: None,
            wrap: None,
        }
    }
}

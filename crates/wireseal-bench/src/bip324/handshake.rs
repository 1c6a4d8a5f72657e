//! Handshakes, both sides: ours with the key pool and with fresh keys, the
//! crate's, and the elliptic-curve floor.

use super::{our_handshake, CRATE, S};
use crate::{Better, Ctx, Row};
use std::hint::black_box;
use std::time::Instant;
use wireseal::keys::EllSwiftKeypair;

/// Handshake figures, both sides, in µs: (ours with the key pool, ours with
/// fresh keys, the crate, the floor). Sampled in rounds that measure all four
/// in turn, so load drift hits each alike. The floor is the elliptic-curve
/// work no handshake can skip: one BIP324 ECDH per side.
fn handshake_times(ctx: &Ctx) -> (f64, f64, Option<f64>, f64) {
    let per = if ctx.full { 400 } else { 120 };
    let per_f = per as f64;
    let (mut pooled, mut fresh, mut theirs, mut floor) = (vec![], vec![], vec![], vec![]);
    let pool = wireseal::bip324::KeyPool::new(2 * per);
    let (ka, kb) = (EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
    for _ in 0..ctx.samples().min(5) {
        // Keys made outside the timed part, as a driver's background task does.
        pool.fill();
        let t = Instant::now();
        for _ in 0..per {
            black_box(our_handshake(pool.take(), pool.take()));
        }
        pooled.push(t.elapsed().as_secs_f64() / per_f);
        let t = Instant::now();
        for _ in 0..per {
            black_box(our_handshake(
                EllSwiftKeypair::generate(),
                EllSwiftKeypair::generate(),
            ));
        }
        fresh.push(t.elapsed().as_secs_f64() / per_f);
        #[cfg(feature = "rust-peers")]
        {
            let t = Instant::now();
            for _ in 0..per {
                black_box(super::peer::Pair::new());
            }
            theirs.push(t.elapsed().as_secs_f64() / per_f);
        }
        let t = Instant::now();
        for _ in 0..per {
            black_box(ka.bip324_ecdh(ka.encoding(), kb.encoding(), true));
            black_box(kb.bip324_ecdh(ka.encoding(), kb.encoding(), false));
        }
        floor.push(t.elapsed().as_secs_f64() / per_f);
    }
    let m = |v: &mut Vec<f64>| crate::timing::median(v) * 1e6;
    let theirs = (!theirs.is_empty()).then(|| m(&mut theirs));
    (m(&mut pooled), m(&mut fresh), theirs, m(&mut floor))
}

/// The handshake rows.
pub(super) fn rows(ctx: &Ctx) -> Vec<Row> {
    let (pooled, fresh, crate_hs, hs_floor) = handshake_times(ctx);
    vec![
        Row::new(
            S,
            "handshake both sides, key pool",
            "µs",
            Better::Lower,
            pooled,
            CRATE,
            crate_hs,
        )
        .seed("172 µs (seed)"),
        Row::new(
            S,
            "handshake both sides, fresh keys",
            "µs",
            Better::Lower,
            fresh,
            CRATE,
            crate_hs,
        )
        .seed("172 µs (seed)"),
        Row::new(
            S,
            "handshake both sides, key pool, vs its floor",
            "µs",
            Better::Lower,
            pooled,
            "floor: 2 x BIP324 ECDH, same run",
            Some(hs_floor),
        ),
    ]
}

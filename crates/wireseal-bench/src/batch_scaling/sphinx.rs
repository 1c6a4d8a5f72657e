//! Sphinx's batch rows.

use crate::{Ctx, Row};
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, Hop, Padding, PeelItem, Route};

/// Sphinx `peel_batch`: 20-hop onions at their first hop.
pub fn rows(ctx: &Ctx) -> Vec<Row> {
    let keys: Vec<PrivateKey> = (0..20)
        .map(|i| PrivateKey::from_bytes(&[0x50 + i as u8; 32]).expect("valid key"))
        .collect();
    let pubs: Vec<PublicKey> = keys.iter().map(PrivateKey::public_key).collect();
    let payload = [0x07u8; 20];
    let ad = [0x42u8; 32];
    let hops: Vec<Hop> = pubs
        .iter()
        .map(|p| Hop {
            pubkey: *p,
            payload: &payload,
        })
        .collect();
    let onions: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            sphinx::build_to_vec(
                &PrivateKey::random(),
                &Route::new(&hops, &ad).with_padding(Padding::Random),
            )
            .expect("builds")
            .0
        })
        .collect();
    super::rows(
        ctx,
        "sphinx",
        "peel_batch, 20-hop onions",
        "onions",
        "sphinx-batch",
        |n| -> Vec<PeelItem<'_>> {
            (0..n)
                .map(|i| PeelItem {
                    onion: &onions[i % onions.len()],
                    associated_data: &ad,
                })
                .collect()
        },
        |b, items| {
            let r = sphinx::peel_batch(b, &keys[0], items);
            assert!(r.iter().all(Result::is_ok), "an onion failed to peel");
        },
    )
}

//! Criterion benches for BOLT #4 onions: the elliptic-curve pieces, 20-hop
//! and 1-hop build, one-hop peel and its elliptic-curve floor.

use criterion::{black_box, criterion_main, Criterion};
use wireseal::hazmat::chacha20::KeyStream;
use wireseal::hazmat::sha::hmac_sha256;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, keys, Hop, Onion, Padding, Route};

fn benches(c: &mut Criterion) {
    let session = PrivateKey::from_bytes(&[0x41; 32]).unwrap();
    let nodes: Vec<PrivateKey> = (0..20)
        .map(|i| PrivateKey::from_bytes(&[0x50 + i; 32]).unwrap())
        .collect();
    let pubs: Vec<PublicKey> = nodes.iter().map(|k| k.public_key()).collect();
    let payload = [7u8; 20];
    let hops: Vec<Hop> = pubs
        .iter()
        .map(|p| Hop {
            pubkey: *p,
            payload: &payload,
        })
        .collect();
    let ad = [0x42u8; 32];
    let mut g = c.benchmark_group("sphinx");
    g.bench_function("ecdh", |b| {
        b.iter(|| session.ecdh_sha256(black_box(&pubs[0])))
    });
    g.bench_function("fixed_base_mult", |b| {
        b.iter(|| black_box(&session).public_key())
    });
    g.bench_function("pubkey_mul_tweak", |b| {
        b.iter(|| pubs[0].mul_tweak_vartime(black_box(&[7u8; 32])))
    });
    g.bench_function("chacha20_1300", |b| {
        let mut buf = [0u8; 1300];
        b.iter(|| KeyStream::new(&[1; 32], 0).xor(black_box(&mut buf)))
    });
    g.bench_function("hmac_1332", |b| {
        let buf = [0u8; 1332];
        b.iter(|| hmac_sha256(&[1; 32], &[black_box(&buf)]))
    });
    g.bench_function("key_derivation_20_linear", |b| {
        b.iter(|| keys::session_secrets(&session, pubs.iter().copied()))
    });
    let route = |hops| Route::new(hops, &ad).with_padding(Padding::Deterministic);
    let (route20, route1) = (route(&hops[..]), route(&hops[..1]));
    let mut out = vec![0u8; sphinx::PAYMENT_ONION_LEN];
    g.bench_function("build_20", |b| {
        b.iter(|| sphinx::build_into(&session, &route20, &mut out).unwrap())
    });
    g.bench_function("build_1", |b| {
        b.iter(|| sphinx::build_into(&session, &route1, &mut out).unwrap())
    });
    let onion = sphinx::build_to_vec(&session, &route20).unwrap().0;
    // The EC work a forwarding peel cannot avoid: ECDH + one variable-base mult.
    let eph = *Onion::parse(&onion).unwrap().ephemeral_key();
    g.bench_function("peel_floor", |b| {
        b.iter(|| {
            (
                nodes[0].ecdh_sha256(black_box(&eph)),
                eph.mul_tweak_vartime(black_box(&[7u8; 32])).unwrap(),
            )
        })
    });
    g.bench_function("peel", |b| {
        b.iter(|| {
            Onion::parse(&onion)
                .and_then(|o| o.peel(&nodes[0], &ad))
                .unwrap()
        })
    });
    g.finish();
}

#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(sphinx_benches, super::benches);
}
use group::sphinx_benches;
criterion_main!(sphinx_benches);

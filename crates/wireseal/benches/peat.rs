//! Criterion benches for the peat headline figures: mesh-wide seal+open per
//! document size (with the bare AEAD and a plain copy for comparison), the
//! nonce source, and per-peer E2EE.

#![allow(missing_docs)] // criterion_group! generates an undocumented `pub fn benches`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use wireseal::entropy::NonceSource;
use wireseal::hazmat::chacha20poly1305::ChaChaKey;
use wireseal::keys::StaticSecret;
use wireseal::peat::{sealed_len, KeyExchangeOutcome, MeshSealer, PeerSessions, PEER_OVERHEAD};

const SIZES: [usize; 5] = [51, 129, 417, 633, 641];

fn mesh_wide(c: &mut Criterion) {
    let mut g = c.benchmark_group("peat_meshwide_seal_open");
    let mut sealer = MeshSealer::new(&"BENCH".parse().unwrap(), &[0x42; 32]);
    let aead = ChaChaKey::new(&[0x42; 32]);
    for n in SIZES {
        let doc = vec![0x5au8; n];
        let mut frame = vec![0u8; sealed_len(n)];
        g.throughput(Throughput::Bytes(n as u64));
        g.bench_with_input(BenchmarkId::new("wireseal", n), &n, |b, _| {
            b.iter(|| {
                let len = sealer.seal_into(black_box(&doc), &mut frame).unwrap();
                sealer.open_in_place(&mut frame[..len]).unwrap()[0]
            })
        });
        let mut buf = vec![0u8; n + 16];
        g.bench_with_input(BenchmarkId::new("bare_aead_fixed_nonce", n), &n, |b, _| {
            b.iter(|| {
                buf[..n].copy_from_slice(black_box(&doc));
                let tag = aead.seal_in_place(&[1; 12], b"", &mut buf[..n]);
                buf[n..].copy_from_slice(&tag);
                aead.open_in_place(&[1; 12], b"", &mut buf).unwrap()[0]
            })
        });
        g.bench_with_input(BenchmarkId::new("plain_copy", n), &n, |b, _| {
            b.iter(|| {
                frame[..n].copy_from_slice(black_box(&doc));
                buf[..n].copy_from_slice(black_box(&frame[..n]));
                buf[0]
            })
        });
    }
    g.finish();
}

fn nonces(c: &mut Criterion) {
    let mut g = c.benchmark_group("peat_nonce");
    let mut ns = NonceSource::new();
    g.bench_function("buffered", |b| b.iter(|| ns.take::<12>()));
    g.bench_function("getrandom_per_frame", |b| {
        b.iter(wireseal::entropy::random_array::<12>)
    });
    g.finish();
}

fn per_peer(c: &mut Criterion) {
    let mut a = PeerSessions::new(1, StaticSecret::generate());
    let mut b = PeerSessions::new(2, StaticSecret::generate());
    let kx = a.initiate(0, 2).unwrap();
    let KeyExchangeOutcome::Established { response, .. } = b.handle_key_exchange(0, &kx).unwrap()
    else {
        unreachable!()
    };
    a.handle_key_exchange(0, &response).unwrap();
    let doc = vec![0x5au8; 633];
    let mut frame = vec![0u8; 633 + PEER_OVERHEAD];
    c.bench_function("peat_peer_e2ee_seal_open_633", |bn| {
        bn.iter(|| {
            let n = a.seal_into(0, 2, black_box(&doc), &mut frame).unwrap();
            b.open_in_place(0, &mut frame[..n]).unwrap().len()
        })
    });
}

criterion_group!(benches, mesh_wide, nonces, per_peer);
criterion_main!(benches);

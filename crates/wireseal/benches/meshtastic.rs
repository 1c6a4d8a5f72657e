//! Criterion benches for the Meshtastic headline figures: PKC open of a
#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! 200-byte payload uncached (ECDH per packet) vs cached, and batch open on
//! one core vs all cores.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use wireseal::batch::Batch;
use wireseal::hazmat::aes_ccm::{Aes256Ccm8, TAG_LEN};
use wireseal::hazmat::sha::sha256;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::pkc::{nonce, OVERHEAD};
use wireseal::meshtastic::{open_batch_len, PkcEngine, PkcPacket, SealedPkc};

/// The firmware's way, from the raw primitives: X25519, SHA-256 and AES key
/// expansion for every packet.
fn open_uncached(
    own: &StaticSecret,
    peer: &[u8; 32],
    from: u32,
    id: u32,
    payload: &[u8],
) -> Vec<u8> {
    let shared = own.diffie_hellman(peer).unwrap();
    let key = Aes256Ccm8::new(&sha256(shared.expose()));
    let (ct, rest) = payload.split_at(payload.len() - OVERHEAD);
    let tag: [u8; TAG_LEN] = rest[..TAG_LEN].try_into().unwrap();
    let extra: [u8; 4] = rest[TAG_LEN..].try_into().unwrap();
    let mut out = ct.to_vec();
    key.open_in_place(&nonce(from, id, extra), &[], &mut out, &tag)
        .unwrap();
    out
}

fn pkc_open(c: &mut Criterion) {
    let rx_key = StaticSecret::generate();
    let rp = *rx_key.public_key();
    let tx_key = StaticSecret::generate();
    let sp = *tx_key.public_key();
    let mut tx = PkcEngine::new(tx_key).unwrap();
    let to_rx = PkcPacket {
        peer_public: &rp,
        from: 1,
        id: 1,
    };
    let payload = tx.seal_to_vec(0, to_rx, &[7u8; 200]).unwrap();
    let mut g = c.benchmark_group("meshtastic_pkc_open_200B");
    g.throughput(Throughput::Elements(1));
    g.bench_function("uncached", |b| {
        b.iter(|| open_uncached(&rx_key, &sp, 1, 1, black_box(&payload)))
    });
    let mut rx = PkcEngine::new(StaticSecret::from_bytes(rx_key.expose()).unwrap()).unwrap();
    let mut out = [0u8; 200];
    g.bench_function("cached", |b| {
        b.iter(|| {
            let from_tx = PkcPacket {
                peer_public: &sp,
                from: 1,
                id: 1,
            };
            rx.open_into(0, from_tx, black_box(&payload), &mut out)
                .unwrap()
        })
    });
    g.finish();
}

fn batch_open(c: &mut Criterion) {
    let rx_key = StaticSecret::generate();
    let rp = *rx_key.public_key();
    let senders: Vec<StaticSecret> = (0..64).map(|_| StaticSecret::generate()).collect();
    let feed: Vec<([u8; 32], Vec<u8>)> = (0..4096u32)
        .map(|i| {
            let s = &senders[i as usize % 64];
            let mut e = PkcEngine::new(StaticSecret::from_bytes(s.expose()).unwrap()).unwrap();
            (
                *s.public_key(),
                e.seal_to_vec(
                    0,
                    PkcPacket {
                        peer_public: &rp,
                        from: i % 64,
                        id: i,
                    },
                    &[1u8; 200],
                )
                .unwrap(),
            )
        })
        .collect();
    let packets: Vec<SealedPkc<'_>> = feed
        .iter()
        .enumerate()
        .map(|(i, (k, p))| SealedPkc {
            packet: PkcPacket {
                peer_public: k,
                from: i as u32 % 64,
                id: i as u32,
            },
            payload: p,
        })
        .collect();
    let mut g = c.benchmark_group("meshtastic_batch_open_4096x200B");
    g.throughput(Throughput::Elements(packets.len() as u64));
    for (name, batch) in [
        ("1_core", Batch::with_threads(1)),
        ("2_cores", Batch::with_threads(2)),
        ("all_cores", Batch::all_cores()),
    ] {
        let mut e =
            PkcEngine::with_capacity(StaticSecret::from_bytes(rx_key.expose()).unwrap(), 64)
                .unwrap();
        let mut out = vec![0u8; open_batch_len(&packets)];
        e.open_batch_into(0, &batch, &packets, &mut out).unwrap();
        g.bench_function(name, |b| {
            b.iter(|| e.open_batch_into(0, &batch, &packets, &mut out).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, pkc_open, batch_open);
criterion_main!(benches);

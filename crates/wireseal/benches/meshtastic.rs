//! Criterion benches for the Meshtastic headline figures: PKC open of a
#![allow(missing_docs)] // criterion_group! generates undocumented functions
//! 200-byte payload uncached (ECDH per packet) vs cached, and batch open on
//! one core vs all cores.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::pkc::open_uncached;
use wireseal::meshtastic::{PkcEngine, PkcPacket};

fn pkc_open(c: &mut Criterion) {
    let rx_key = StaticSecret::generate();
    let rp = *rx_key.public_key();
    let tx_key = StaticSecret::generate();
    let sp = *tx_key.public_key();
    let mut tx = PkcEngine::new(tx_key);
    let payload = tx.seal(&rp, 1, 1, &[7u8; 200], None, 0).unwrap();
    let mut g = c.benchmark_group("meshtastic_pkc_open_200B");
    g.throughput(Throughput::Elements(1));
    g.bench_function("uncached", |b| {
        b.iter(|| open_uncached(&rx_key, &sp, 1, 1, black_box(&payload)).unwrap())
    });
    let mut rx = PkcEngine::new(StaticSecret::from_bytes(rx_key.expose()).unwrap());
    let mut out = [0u8; 200];
    g.bench_function("cached", |b| {
        b.iter(|| {
            rx.open_into(&sp, 1, 1, black_box(&payload), 0, &mut out)
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
            let mut e = PkcEngine::new(StaticSecret::from_bytes(s.expose()).unwrap());
            (
                *s.public_key(),
                e.seal(&rp, i % 64, i, &[1u8; 200], None, 0).unwrap(),
            )
        })
        .collect();
    let packets: Vec<PkcPacket<'_>> = feed
        .iter()
        .enumerate()
        .map(|(i, (k, p))| PkcPacket {
            peer_public: k,
            from: i as u32 % 64,
            id: i as u32,
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
            PkcEngine::with_capacity(StaticSecret::from_bytes(rx_key.expose()).unwrap(), 64);
        let mut out = vec![0u8; wireseal::meshtastic::batch_output_len(&packets)];
        e.open_batch_into(&packets, 0, &batch, &mut out).unwrap();
        g.bench_function(name, |b| {
            b.iter(|| e.open_batch_into(&packets, 0, &batch, &mut out).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, pkc_open, batch_open);
criterion_main!(benches);

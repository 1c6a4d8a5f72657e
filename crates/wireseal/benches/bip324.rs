//! Criterion benches for BIP324: packet round trips per size and the
//! handshake (both sides) with pooled keys.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use wireseal::bip324::handshake::{GarbageRead, Handshake, KeyRead, VersionRead};
use wireseal::bip324::{EllSwiftKeypair, KeyPool, Network, Next, PacketType, Session};

fn finish(h: Handshake<wireseal::bip324::handshake::VersionSent>, input: &mut [u8]) -> Session {
    let Ok(GarbageRead::Found {
        handshake: mut h,
        consumed: mut at,
    }) = h.read_garbage(input)
    else {
        panic!("terminator")
    };
    loop {
        match h.read_version(&mut input[at..]).unwrap() {
            VersionRead::Decoy(n, c) => {
                h = n;
                at += c;
            }
            VersionRead::Done { session, .. } => return session,
            VersionRead::NeedMore(..) => panic!("need more"),
        }
    }
}

fn pair(ka: EllSwiftKeypair, kb: EllSwiftKeypair) -> (Session, Session) {
    let (mut ao, mut bo) = (Vec::new(), Vec::new());
    let a = Handshake::initiator(Network::MAINNET, ka, b"")
        .unwrap()
        .write_key(&mut ao);
    let b = Handshake::responder(Network::MAINNET, kb, b"")
        .unwrap()
        .write_key(&mut bo);
    let KeyRead::Derived { handshake: a, .. } = a.read_key(&bo) else {
        panic!()
    };
    let KeyRead::Derived { handshake: b, .. } = b.read_key(&ao) else {
        panic!()
    };
    let a = a.write_version(&[], &mut ao).unwrap();
    let b = b.write_version(&[], &mut bo).unwrap();
    (finish(a, &mut bo[64..]), finish(b, &mut ao[64..]))
}

fn packets(c: &mut Criterion) {
    let (mut a, mut b) = pair(EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
    let data = vec![7u8; 65536];
    let mut buf = vec![0u8; 65536 + 64];
    let mut g = c.benchmark_group("bip324/round_trip");
    for size in [0usize, 64, 256, 1024, 4096, 65536] {
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(format!("{size}"), |bench| {
            bench.iter(|| {
                let n = a
                    .seal_into(&data[..size], PacketType::Genuine, &mut buf)
                    .unwrap();
                match b.open_next(&mut buf[..n]).unwrap() {
                    Next::Packet { packet, .. } => packet.contents.len(),
                    Next::NeedMore(_) => unreachable!(),
                }
            })
        });
    }
    g.finish();
}

fn handshake(c: &mut Criterion) {
    let pool = KeyPool::new(2);
    c.bench_function("bip324/handshake_both_sides_pooled", |bench| {
        bench.iter_batched(
            || {
                pool.fill();
                (pool.take(), pool.take())
            },
            |(ka, kb)| pair(ka, kb),
            BatchSize::SmallInput,
        )
    });
}

#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, packets, handshake);
}
criterion_main!(group::benches);

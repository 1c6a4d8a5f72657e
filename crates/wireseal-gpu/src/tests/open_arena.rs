//! The open arena against the library: many sessions' received bytes
//! written into the engine's memory in any order (one tampered, one cut
//! inside a packet, one over its receiver's limit, one whose receiver holds
//! a packet's length, one that receives nothing), opened on the kernels
//! built for the host, on the CPU alone, and through a device that fails;
//! every session's result, packets and receiver compared with the
//! library's batch open of the same bytes. Then each refusal.

use super::edges::Failing;
use super::{assert_same_receivers, host_engine, library_open, outgoing, sizes, twin_pairs, Pair};
use crate::engine::Engine;
use crate::host::HostExec;
use crate::{ArenaError, Config, OpenCapacity};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, RngCore, SeedableRng};
use wireseal::bip324::{Next, PacketReceiver, PacketType};

/// Each session's wire: 0 to 60 mixed packets (20 % decoys), sealed by
/// `ours`' senders, with the edge cases above made in sessions 0 to 4 (on
/// both twins' receivers where a receiver is concerned).
fn wires(rng: &mut StdRng, ours: &mut [Pair], theirs: &mut [Pair]) -> Vec<Vec<u8>> {
    for pair in [&mut ours[3], &mut theirs[3]] {
        let state = pair.rx.export_state().unwrap();
        let rx = std::mem::replace(&mut pair.rx, PacketReceiver::from_state(&state));
        pair.rx = rx.with_max_contents(1000);
    }
    let mut wires: Vec<Vec<u8>> = Vec::new();
    for (i, p) in ours.iter_mut().enumerate() {
        let n = rng.gen_range(0..60);
        let mut lens = sizes(rng, n);
        if i == 3 {
            lens = vec![10, 999, 1001, 5];
        }
        let mut wire = Vec::new();
        for o in outgoing(rng, &lens, 0.2) {
            let mut c = vec![0u8; o.len as usize];
            rng.fill_bytes(&mut c);
            wire.extend(p.tx.seal_to_vec(&c, o.kind, b"").unwrap());
        }
        wires.push(wire);
    }
    // 0: a flipped bit in the middle; 1: cut inside a packet; 2: nothing;
    // 3: a packet over the receiver's limit; 4: the receiver holds the
    // first packet's length.
    let mid = wires[0].len() / 2;
    if let Some(b) = wires[0].get_mut(mid) {
        *b ^= 0x10;
    }
    let cut = wires[1].len().saturating_sub(5);
    wires[1].truncate(cut);
    wires[2].clear();
    if wires[4].len() >= 3 {
        for pair in [&mut ours[4], &mut theirs[4]] {
            let mut head = wires[4][..3].to_vec();
            assert!(matches!(
                pair.rx.open_next(b"", &mut head),
                Ok(Next::NeedMore(_))
            ));
        }
    }
    wires
}

/// Opens `wires` through `engine`'s arena on `ours` (the sessions written
/// in a random order) and through the library's batch on `theirs`; asserts
/// equal results, packets and receivers; returns whether the device failed.
pub(super) fn round(
    engine: &mut Engine,
    rng: &mut StdRng,
    ours: &mut [Pair],
    theirs: &mut [Pair],
) -> bool {
    let wires = wires(rng, ours, theirs);
    let engine_has_device = engine.device().is_ok();
    let cap = OpenCapacity {
        sessions: ours.len(),
        bytes: wires.iter().map(Vec::len).sum::<usize>() + 11,
    };
    let mut arena = engine.open_arena(cap).expect("an arena");
    let mut order: Vec<usize> = (0..wires.len()).collect();
    order.shuffle(rng);
    for &s in &order {
        arena
            .receive(s, wires[s].len())
            .unwrap()
            .copy_from_slice(&wires[s]);
    }
    let mut rxs: Vec<&mut PacketReceiver> = ours.iter_mut().map(|p| &mut p.rx).collect();
    let opened = arena.open(&mut rxs).expect("opened");
    let failed = opened.device_error().is_some();
    let gpu = opened.gpu_packets();
    let on_device = engine_has_device && !failed;
    let lib = library_open(theirs, &wires);
    let (results, ranges, copies) = (&lib.results, &lib.ranges, &lib.wires);
    for s in 0..wires.len() {
        assert_eq!(opened.result(s), Some(results[s]), "session {s}: result");
        let got: Vec<(PacketType, Vec<u8>)> = opened
            .packets(s)
            .map(|p| (p.kind, p.contents.to_vec()))
            .collect();
        let want: Vec<(PacketType, Vec<u8>)> = ranges[s]
            .iter()
            .map(|r| (r.kind, copies[s][r.offset..r.offset + r.len].to_vec()))
            .collect();
        assert!(got == want, "session {s}: packets differ");
    }
    // Most packets came through the device when there was one.
    let all: usize = (0..wires.len()).map(|s| opened.packets(s).count()).sum();
    if on_device {
        assert!(gpu * 10 >= all * 8, "{gpu} of {all} packets on the device");
    } else {
        assert_eq!(gpu, 0);
    }
    assert!(results[0].is_err() || wires[0].is_empty());
    assert!(results[1].is_err() || wires[1].is_empty());
    drop(arena);
    assert_same_receivers(ours, theirs);
    failed
}

fn sessions(rng: &mut StdRng, n: usize) -> (Vec<Pair>, Vec<Pair>) {
    (0..n).map(|i| twin_pairs(rng, i % 2 == 0)).unzip()
}

#[test]
fn arenas_open_as_the_librarys_batch_does() {
    let mut rng = StdRng::seed_from_u64(0x0a7e);
    for (slots, grid, block) in [(1, 4, 8), (2, 1, 1), (1, 64, 32)] {
        let mut engine = host_engine(Config::default(), slots, grid, block);
        let (mut ours, mut theirs) = sessions(&mut rng, 40);
        assert!(!round(&mut engine, &mut rng, &mut ours, &mut theirs));
    }
    let mut cpu = Engine::cpu_only(Config::default());
    let (mut ours, mut theirs) = sessions(&mut rng, 12);
    assert!(!round(&mut cpu, &mut rng, &mut ours, &mut theirs));
}

#[test]
fn an_arena_whose_device_fails_is_opened_by_the_library() {
    let mut rng = StdRng::seed_from_u64(0x0a7f);
    for at_submit in [false, true] {
        let mut engine = Engine::with(
            Config::default(),
            Ok(Box::new(Failing {
                inner: HostExec::new(1, 3, 3),
                nth: 1,
                finishes: 0,
                at_submit,
            })),
        );
        let (mut ours, mut theirs) = sessions(&mut rng, 9);
        assert!(round(&mut engine, &mut rng, &mut ours, &mut theirs));
        assert!(engine.device().is_err());
    }
}

#[test]
fn an_arena_refuses_what_it_cannot_hold() {
    let mut engine = host_engine(Config::default(), 1, 2, 2);
    let cap = OpenCapacity {
        sessions: 2,
        bytes: 100,
    };
    let mut arena = engine.open_arena(cap).unwrap();
    assert_eq!(
        arena.receive(2, 1).unwrap_err(),
        ArenaError::NoSession {
            session: 2,
            sessions: 2
        }
    );
    assert_eq!(
        arena.receive(0, 101).unwrap_err(),
        ArenaError::NoRoom { bytes: 100 }
    );
    assert!(arena.is_empty());
    arena.receive(0, 60).unwrap();
    assert_eq!(
        arena.receive(0, 1).unwrap_err(),
        ArenaError::Received { session: 0 }
    );
    assert_eq!(
        arena.receive(1, 41).unwrap_err(),
        ArenaError::NoRoom { bytes: 100 }
    );
    assert_eq!(arena.len(), 60);
    let mut rng = StdRng::seed_from_u64(3);
    let (mut one, _) = twin_pairs(&mut rng, false);
    assert_eq!(
        arena.open(&mut [&mut one.rx]).unwrap_err(),
        ArenaError::Receivers {
            receivers: 1,
            sessions: 2
        }
    );
    arena.clear();
    assert!(arena.is_empty());
    arena.receive(1, 100).unwrap();
}

//! The arena against the library: packets of many sessions reserved in any
//! order, their contents written into the engine's memory, sealed on the
//! kernels built for the host, on the CPU alone, and through a device that
//! fails; every sealed packet and every sender's state compared with the
//! library sealing the same packets one at a time. Then each refusal.

use super::edges::Failing;
use super::{host_engine, outgoing, sizes, state_in_the_last_epoch, twin_pairs, Pair};
use crate::engine::Engine;
use crate::host::HostExec;
use crate::{ArenaError, Capacity, Config, Outgoing, Run, SealArena};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use wireseal::bip324::{Error, PacketReceiver, PacketSender, PacketType, MAX_CONTENTS_LEN};

/// Fills `engine`'s arena with `n` random packets over `ours`' sessions
/// (random order, 20 % decoys), seals them, and checks each against
/// `theirs` sealing the same contents one at a time; returns whether the
/// device failed.
pub(super) fn round(
    engine: &mut Engine,
    rng: &mut StdRng,
    ours: &mut [Pair],
    theirs: &mut [Pair],
    n: usize,
) -> bool {
    let lens = sizes(rng, n);
    let cap = Capacity {
        sessions: ours.len(),
        packets: n,
        contents: lens.iter().map(|&l| l as usize).sum(),
    };
    let mut arena = engine.seal_arena(cap).expect("an arena");
    let want = fill(&mut arena, rng, theirs, &lens);
    assert_eq!(arena.len(), n);
    let mut senders: Vec<&mut PacketSender> = ours.iter_mut().map(|p| &mut p.tx).collect();
    let sealed = arena.seal(&mut senders).expect("sealed");
    assert_eq!(sealed.len(), n);
    for (i, w) in want.iter().enumerate() {
        let got = sealed.get(i).unwrap();
        if got != &w[..] {
            let first = got.iter().zip(w.iter()).position(|(a, b)| a != b);
            panic!(
                "packet {i} differs: len {} vs {}, first diff at {first:?}",
                got.len(),
                w.len()
            );
        }
    }
    assert_eq!(sealed.iter().count(), n);
    let failed = sealed.device_error().is_some();
    drop(arena);
    same_senders(ours, theirs);
    failed
}

/// Reserves packets of `lens` (random sessions and contents, 20 % decoys)
/// in the arena's side being filled; returns what `theirs` seals for them,
/// one at a time.
pub(super) fn fill(
    arena: &mut SealArena<'_>,
    rng: &mut StdRng,
    theirs: &mut [Pair],
    lens: &[u32],
) -> Vec<Vec<u8>> {
    let mut want = Vec::with_capacity(lens.len());
    for &len in lens {
        let session = rng.gen_range(0..theirs.len());
        let kind = if rng.gen_bool(0.2) {
            PacketType::Decoy
        } else {
            PacketType::Genuine
        };
        let mut contents = vec![0u8; len as usize];
        rng.fill_bytes(&mut contents);
        arena
            .packet(session, len, kind)
            .expect("room")
            .copy_from_slice(&contents);
        let wire = theirs[session].tx.seal_to_vec(&contents, kind, b"");
        want.push(wire.unwrap());
    }
    want
}

/// Every sender of `ours` where its twin in `theirs` is.
pub(super) fn same_senders(ours: &[Pair], theirs: &[Pair]) {
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert_eq!(
            a.tx.export_state().to_bytes().expose(),
            b.tx.export_state().to_bytes().expose(),
            "session {i}: sender state"
        );
    }
}

/// As [`round`], the packets reserved in runs (each a session's next 0 to
/// 40 packets) filled on the engine's threads, mixed with single packets.
fn round_runs(
    engine: &mut Engine,
    rng: &mut StdRng,
    ours: &mut [Pair],
    theirs: &mut [Pair],
    runs: usize,
) {
    let mut plan: Vec<(usize, Vec<Outgoing>, Vec<Vec<u8>>)> = Vec::new();
    for _ in 0..runs {
        let session = rng.gen_range(0..ours.len());
        let n = rng.gen_range(0..40);
        let lens = sizes(rng, n);
        let packets = outgoing(rng, &lens, 0.2);
        let contents = packets
            .iter()
            .map(|o| {
                let mut c = vec![0u8; o.len as usize];
                rng.fill_bytes(&mut c);
                c
            })
            .collect();
        plan.push((session, packets, contents));
    }
    let cap = Capacity {
        sessions: ours.len(),
        packets: plan.iter().map(|p| p.1.len()).sum::<usize>() + 1,
        contents: plan
            .iter()
            .flat_map(|p| &p.1)
            .map(|o| o.len as usize)
            .sum::<usize>()
            + 7,
    };
    let mut arena = engine.seal_arena(cap).unwrap();
    let mut want = Vec::new();
    // One packet alone first, then the runs in two calls.
    arena
        .packet(0, 7, PacketType::Genuine)
        .unwrap()
        .copy_from_slice(b"single!");
    want.push(
        theirs[0]
            .tx
            .seal_to_vec(b"single!", PacketType::Genuine, b"")
            .unwrap(),
    );
    let half = plan.len() / 2;
    for part in [&plan[..half], &plan[half..]] {
        let runs: Vec<Run<'_>> = part
            .iter()
            .map(|(session, packets, _)| Run {
                session: *session,
                packets,
            })
            .collect();
        arena
            .reserve_runs(&runs, |r, k, dst| dst.copy_from_slice(&part[r].2[k]))
            .unwrap();
        for (session, packets, contents) in part {
            for (o, c) in packets.iter().zip(contents) {
                want.push(theirs[*session].tx.seal_to_vec(c, o.kind, b"").unwrap());
            }
        }
    }
    let mut senders: Vec<&mut PacketSender> = ours.iter_mut().map(|p| &mut p.tx).collect();
    let sealed = arena.seal(&mut senders).unwrap();
    assert!(sealed.device_error().is_none());
    assert_eq!(sealed.len(), want.len());
    for (i, w) in want.iter().enumerate() {
        assert!(sealed.get(i) == Some(&w[..]), "packet {i} differs");
    }
    drop(arena);
    same_senders(ours, theirs);
}

#[test]
fn runs_filled_on_every_core_seal_as_the_library_does() {
    let mut rng = StdRng::seed_from_u64(0x5e4);
    let (mut ours, mut theirs): (Vec<_>, Vec<_>) =
        (0..40).map(|i| twin_pairs(&mut rng, i % 2 == 0)).unzip();
    let mut engine = host_engine(Config::default(), 1, 4, 8);
    round_runs(&mut engine, &mut rng, &mut ours, &mut theirs, 300);
    let mut cpu = Engine::cpu_only(Config::default());
    round_runs(&mut cpu, &mut rng, &mut ours, &mut theirs, 50);
    // A run past the capacity, or with a session or length out of range,
    // reserves nothing.
    let cap = Capacity {
        sessions: 2,
        packets: 3,
        contents: 30,
    };
    let mut arena = engine.seal_arena(cap).unwrap();
    let four = [Outgoing::genuine(1); 4];
    let bad = [
        (
            Run {
                session: 0,
                packets: &four,
            },
            "full",
        ),
        (
            Run {
                session: 2,
                packets: &four[..1],
            },
            "session",
        ),
    ];
    for (run, why) in bad {
        assert!(arena.reserve_runs(&[run], |_, _, _| {}).is_err(), "{why}");
        assert!(arena.is_empty(), "{why}");
    }
    let long = [Outgoing::genuine(MAX_CONTENTS_LEN as u32 + 1)];
    let err = arena
        .reserve_runs(
            &[Run {
                session: 1,
                packets: &long,
            }],
            |_, _, _| {},
        )
        .unwrap_err();
    assert!(matches!(
        err,
        ArenaError::Session {
            session: 1,
            error: Error::TooLong { .. }
        }
    ));
    assert!(arena.is_empty());
}

#[test]
fn the_arena_seals_as_the_library_does() {
    let mut rng = StdRng::seed_from_u64(0xa7e4a);
    let (mut ours, mut theirs): (Vec<_>, Vec<_>) =
        (0..97).map(|i| twin_pairs(&mut rng, i % 3 == 0)).unzip();
    // The kernels built for the host, small and large parts, then the CPU.
    for (task_bytes, n) in [(512u32, 20_000usize), (64, 3_000), (128, 9)] {
        let config = Config {
            task_bytes,
            ..Config::default()
        };
        let mut engine = host_engine(config, 1, 5, 7);
        assert!(!round(&mut engine, &mut rng, &mut ours, &mut theirs, n));
    }
    let mut cpu = Engine::cpu_only(Config::default());
    assert!(!round(&mut cpu, &mut rng, &mut ours, &mut theirs, 2_000));
    // A device that fails when the arena's chunk is queued (the host
    // kernels seal in place, so the chunk must fail before they run: on a
    // device the staging buffer keeps the contents whatever the device
    // did): the library seals it instead, and later arenas run on the CPU.
    let failing = Failing {
        inner: HostExec::new(1, 3, 3),
        nth: 1,
        finishes: 0,
        at_submit: true,
    };
    let mut engine = Engine::with(Config::default(), Ok(Box::new(failing)));
    assert!(round(&mut engine, &mut rng, &mut ours, &mut theirs, 1_500));
    assert!(engine.device().is_err());
    assert!(!round(&mut engine, &mut rng, &mut ours, &mut theirs, 100));
}

#[test]
fn an_arena_is_filled_again_after_clear() {
    let mut rng = StdRng::seed_from_u64(5);
    let (mut ours, mut theirs): (Vec<_>, Vec<_>) =
        (0..3).map(|_| twin_pairs(&mut rng, true)).unzip();
    let mut engine = host_engine(Config::default(), 1, 2, 2);
    let cap = Capacity {
        sessions: 3,
        packets: 10,
        contents: 1000,
    };
    let mut arena = engine.seal_arena(cap).unwrap();
    for _ in 0..4 {
        let mut want = Vec::new();
        for i in 0..10usize {
            let len = 30 + i as u32 * 7;
            let contents = vec![i as u8; len as usize];
            arena
                .packet(i % 3, len, PacketType::Genuine)
                .unwrap()
                .copy_from_slice(&contents);
            want.push(
                theirs[i % 3]
                    .tx
                    .seal_to_vec(&contents, PacketType::Genuine, b"")
                    .unwrap(),
            );
        }
        let mut senders: Vec<&mut PacketSender> = ours.iter_mut().map(|p| &mut p.tx).collect();
        let sealed = arena.seal(&mut senders).unwrap();
        let got: Vec<Vec<u8>> = sealed.iter().map(<[u8]>::to_vec).collect();
        assert_eq!(got, want);
        arena.clear();
        assert!(arena.is_empty());
    }
}

#[test]
fn refusals_reserve_nothing_and_seal_nothing() {
    let mut rng = StdRng::seed_from_u64(6);
    let (mut ours, _): (Vec<_>, Vec<_>) = (0..2).map(|_| twin_pairs(&mut rng, false)).unzip();
    let mut engine = host_engine(Config::default(), 1, 2, 2);
    let cap = Capacity {
        sessions: 2,
        packets: 2,
        contents: 100,
    };
    let mut arena = engine.seal_arena(cap).unwrap();
    assert_eq!(
        arena.packet(2, 1, PacketType::Genuine).unwrap_err(),
        ArenaError::NoSession {
            session: 2,
            sessions: 2
        }
    );
    let too_long = MAX_CONTENTS_LEN as u32 + 1;
    assert!(matches!(
        arena.packet(0, too_long, PacketType::Genuine),
        Err(ArenaError::Session {
            session: 0,
            error: Error::TooLong { .. }
        })
    ));
    assert!(matches!(
        arena.packet(0, 101, PacketType::Genuine),
        Err(ArenaError::Full { .. })
    ));
    arena.packet(0, 60, PacketType::Genuine).unwrap();
    arena.packet(1, 40, PacketType::Decoy).unwrap();
    assert!(matches!(
        arena.packet(1, 0, PacketType::Genuine),
        Err(ArenaError::Full { .. })
    ));
    assert_eq!(arena.len(), 2);
    let before: Vec<_> = ours
        .iter()
        .map(|p| p.tx.export_state().to_bytes())
        .collect();
    let mut one: Vec<&mut PacketSender> = ours[..1].iter_mut().map(|p| &mut p.tx).collect();
    assert_eq!(
        arena.seal(&mut one).unwrap_err(),
        ArenaError::Senders {
            senders: 1,
            sessions: 2
        }
    );
    for (p, b) in ours.iter().zip(&before) {
        assert_eq!(p.tx.export_state().to_bytes().expose(), b.expose());
    }
}

#[test]
fn a_session_whose_schedule_ends_first_seals_nothing() {
    let mut rng = StdRng::seed_from_u64(7);
    let s = state_in_the_last_epoch(&mut rng, 220);
    assert_eq!(s.messages_left(), 3);
    let mut tx = PacketSender::from_state(&s);
    let _ = PacketReceiver::from_state(&s);
    let mut engine = host_engine(Config::default(), 1, 2, 2);
    let cap = Capacity {
        sessions: 1,
        packets: 4,
        contents: 100,
    };
    let mut arena = engine.seal_arena(cap).unwrap();
    for _ in 0..4 {
        arena.packet(0, 5, PacketType::Genuine).unwrap().fill(1);
    }
    assert_eq!(
        arena.seal(&mut [&mut tx]).unwrap_err(),
        ArenaError::Session {
            session: 0,
            error: Error::Exhausted
        }
    );
    assert_eq!(tx.export_state().messages_left(), 3);
    // Three fit.
    arena.clear();
    for _ in 0..3 {
        arena.packet(0, 5, PacketType::Genuine).unwrap().fill(1);
    }
    assert_eq!(arena.seal(&mut [&mut tx]).unwrap().len(), 3);
    assert_eq!(tx.export_state().messages_left(), 0);
}

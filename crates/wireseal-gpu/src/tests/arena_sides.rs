//! An arena's two sides: sides submitted one after another (one on the
//! device while the other fills, and both on the device at once), on the
//! kernels built for the host, on the CPU, and through a device that fails
//! at a side's start or at its finish with another side still out. Every
//! side's packets and every sender's state are compared with the library
//! sealing the same packets one at a time, in submission order.

use super::arena::{fill, same_senders};
use super::edges::Failing;
use super::{host_engine, sizes, twin_pairs, Pair};
use crate::engine::Engine;
use crate::host::HostExec;
use crate::{ArenaError, Capacity, Config, SealArena, Sealed};
use rand::rngs::StdRng;
use rand::SeedableRng;
use wireseal::bip324::{PacketSender, PacketType};

/// `n` random packets reserved (see [`fill`]); what `theirs` seals.
fn fill_n(
    arena: &mut SealArena<'_>,
    rng: &mut StdRng,
    theirs: &mut [Pair],
    n: usize,
) -> Vec<Vec<u8>> {
    let lens = sizes(rng, n);
    fill(arena, rng, theirs, &lens)
}

/// Whether `sealed` holds exactly `want`; returns its device error flag.
fn check(sealed: &Sealed<'_>, want: &[Vec<u8>], what: &str) -> bool {
    assert_eq!(sealed.len(), want.len(), "{what}: packets");
    for (i, w) in want.iter().enumerate() {
        assert!(sealed.get(i) == Some(&w[..]), "{what}: packet {i} differs");
    }
    sealed.device_error().is_some()
}

fn capacity(sessions: usize) -> Capacity {
    Capacity {
        sessions,
        packets: 600,
        contents: 600 * 4096,
    }
}

/// Seven sides through `engine`: each of the first six submitted while the
/// one before is still out (so both are out at once), then waited for, and
/// a seventh sealed alone. Returns how many sides met a device error.
pub(super) fn rounds(
    engine: &mut Engine,
    rng: &mut StdRng,
    ours: &mut [Pair],
    theirs: &mut [Pair],
) -> usize {
    let mut arena = engine.seal_arena(capacity(ours.len())).unwrap();
    let mut senders: Vec<&mut PacketSender> = ours.iter_mut().map(|p| &mut p.tx).collect();
    let mut failed = 0;
    let mut want = fill_n(&mut arena, rng, theirs, 300);
    arena.submit(&mut senders).unwrap();
    for round in 0..5 {
        // The next side fills, and goes out, while the last is out.
        let next = fill_n(&mut arena, rng, theirs, 100 + 100 * round);
        arena.submit(&mut senders).unwrap();
        if round == 0 {
            assert_eq!(arena.submitted(), 2);
            assert_eq!(arena.len(), 0);
            assert_eq!(
                arena.packet(0, 1, PacketType::Genuine).unwrap_err(),
                ArenaError::InFlight
            );
            assert_eq!(arena.submit(&mut senders), Err(ArenaError::InFlight));
            assert_eq!(arena.seal(&mut senders).unwrap_err(), ArenaError::InFlight);
        }
        failed += usize::from(check(&arena.wait().unwrap(), &want, "side"));
        want = next;
    }
    failed += usize::from(check(&arena.wait().unwrap(), &want, "last side"));
    assert_eq!(arena.wait().unwrap_err(), ArenaError::NotSubmitted);
    let alone = fill_n(&mut arena, rng, theirs, 50);
    failed += usize::from(check(&arena.seal(&mut senders).unwrap(), &alone, "alone"));
    drop(senders);
    drop(arena);
    same_senders(ours, theirs);
    failed
}

#[test]
fn two_sides_seal_as_the_library_does() {
    let mut rng = StdRng::seed_from_u64(0x51de5);
    let (mut ours, mut theirs): (Vec<_>, Vec<_>) =
        (0..23).map(|i| twin_pairs(&mut rng, i % 2 == 0)).unzip();
    let mut engine = host_engine(Config::default(), 2, 4, 8);
    assert_eq!(rounds(&mut engine, &mut rng, &mut ours, &mut theirs), 0);
    // An arena dropped with both sides out (their packets dropped, the
    // senders past them), then the engine's next arena.
    {
        let mut arena = engine.seal_arena(capacity(ours.len())).unwrap();
        let mut senders: Vec<&mut PacketSender> = ours.iter_mut().map(|p| &mut p.tx).collect();
        for n in [120, 30] {
            fill_n(&mut arena, &mut rng, &mut theirs, n);
            arena.submit(&mut senders).unwrap();
        }
    }
    assert!(engine.device().is_ok());
    assert_eq!(rounds(&mut engine, &mut rng, &mut ours, &mut theirs), 0);
    let mut cpu = Engine::cpu_only(Config::default());
    assert_eq!(rounds(&mut cpu, &mut rng, &mut ours, &mut theirs), 0);
}

#[test]
fn one_stream_gives_one_side() {
    let mut rng = StdRng::seed_from_u64(0x1);
    let (mut ours, mut theirs): (Vec<_>, Vec<_>) =
        (0..3).map(|_| twin_pairs(&mut rng, false)).unzip();
    let mut engine = host_engine(Config::default(), 1, 2, 2);
    let mut arena = engine.seal_arena(capacity(3)).unwrap();
    let want = fill_n(&mut arena, &mut rng, &mut theirs, 40);
    let mut senders: Vec<&mut PacketSender> = ours.iter_mut().map(|p| &mut p.tx).collect();
    arena.submit(&mut senders).unwrap();
    // Its one side is out: nothing fills until it is back.
    assert_eq!(arena.len(), 0);
    assert_eq!(
        arena.packet(0, 1, PacketType::Genuine).unwrap_err(),
        ArenaError::InFlight
    );
    assert!(!check(&arena.wait().unwrap(), &want, "one side"));
    let want = fill_n(&mut arena, &mut rng, &mut theirs, 10);
    assert!(!check(&arena.seal(&mut senders).unwrap(), &want, "again"));
    drop(senders);
    drop(arena);
    same_senders(&ours, &theirs);
}

/// A device whose `nth` finish (or submit, `at_submit`) fails, with two
/// streams: the sides it held are sealed by the library with the same
/// bytes, and the engine then runs on the CPU.
fn failing(nth: usize, at_submit: bool) -> Engine {
    let failing = Failing {
        inner: HostExec::new(2, 3, 5),
        nth,
        finishes: 0,
        at_submit,
    };
    let config = Config {
        streams: 2,
        ..Config::default()
    };
    Engine::with(config, Ok(Box::new(failing)))
}

#[test]
fn a_device_that_fails_with_two_sides_out_loses_nothing() {
    let mut rng = StdRng::seed_from_u64(0xfa11);
    let (mut ours, mut theirs): (Vec<_>, Vec<_>) =
        (0..11).map(|i| twin_pairs(&mut rng, i % 3 == 0)).unzip();
    // At the first finish, at the second submit and at the third finish:
    // each time with two sides out, both sealed by the library.
    for (nth, at_submit) in [(1, false), (2, true), (3, false)] {
        let mut engine = failing(nth, at_submit);
        let n = rounds(&mut engine, &mut rng, &mut ours, &mut theirs);
        assert_eq!(n, 2, "failure {nth}, at submit {at_submit}");
        assert!(engine.device().is_err());
    }
}

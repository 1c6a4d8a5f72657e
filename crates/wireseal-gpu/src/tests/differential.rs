//! The engine against the library on random sessions: over 100,000 packets
//! across 1,024 sessions, at every packet size class of the mixed profile
//! and the sizes around blocks and parts, 20 % decoys, sessions starting
//! just before a rekey, several chunk sizes, part sizes, slot counts and
//! grid shapes; then the same wires opened, some with a flipped bit and
//! some cut short (the rest arriving with the next round, so receivers
//! continue mid-packet). On the host-built kernels here, and on a device
//! when there is one (device.rs).

use super::{contents, host_engine, open_both, outgoing, seal_both, sizes, twin_pairs, SealCase};
use crate::engine::{Engine, Path};
use crate::Config;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Packets sealed, and opened by the engine's kernels, in `rounds` rounds
/// over `sessions` sessions of `per_session` packets each (a range), each
/// round on the engine `make(round)` gives.
pub(super) fn agree(
    make: &mut dyn FnMut(usize) -> Engine,
    sessions: usize,
    rounds: usize,
    per_session: std::ops::Range<usize>,
    seed: u64,
) -> (usize, usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut ours, mut theirs): (Vec<_>, Vec<_>) = (0..sessions)
        .map(|i| twin_pairs(&mut rng, i % 3 == 0))
        .unzip();
    let mut carry: Vec<Vec<u8>> = vec![Vec::new(); sessions];
    let (mut sealed, mut opened, mut tampered, mut cut) = (0usize, 0usize, 0usize, 0usize);
    for round in 0..rounds {
        let mut engine = make(round);
        let cases: Vec<SealCase> = (0..sessions)
            .map(|_| {
                let n = rng.gen_range(per_session.clone());
                let s = sizes(&mut rng, n);
                let packets = outgoing(&mut rng, &s, 0.2);
                let contents = contents(&mut rng, &packets);
                SealCase { packets, contents }
            })
            .collect();
        sealed += cases.iter().map(|c| c.packets.len()).sum::<usize>();
        let (fresh, report) = seal_both(&mut engine, &mut ours, &mut theirs, &cases);
        assert_eq!((report.path, report.device_error), (Path::Gpu, None));
        let mut wires = Vec::with_capacity(sessions);
        for (i, w) in fresh.into_iter().enumerate() {
            let mut wire = std::mem::take(&mut carry[i]);
            wire.extend_from_slice(&w);
            match rng.gen_range(0..100) {
                0..=1 if !wire.is_empty() => {
                    let at = rng.gen_range(0..wire.len());
                    wire[at] ^= 1 << rng.gen_range(0..8);
                    tampered += 1;
                }
                2..=4 if !wire.is_empty() => {
                    let at = rng.gen_range(0..wire.len());
                    carry[i] = wire.split_off(at);
                    cut += 1;
                }
                _ => {}
            }
            wires.push(wire);
        }
        let report = open_both(&mut engine, &mut ours, &mut theirs, &wires);
        opened += report.gpu_packets;
        assert_eq!((report.path, report.device_error), (Path::Gpu, None));
    }
    assert!(tampered > 0 && cut > 0);
    // Most packets went through the kernels' open (tampered sessions stop
    // opening: their receivers are poisoned, as the library's are).
    assert!(
        opened > sealed * 3 / 4,
        "{opened} of {sealed} opened by the kernels"
    );
    (sealed, opened)
}

const SESSIONS: usize = 1024;

#[test]
fn host_kernels_agree_with_the_library_on_random_sessions() {
    // (chunk packets, task bytes, slots, grid, block)
    let shapes = [
        (4096usize, 512u32, 4usize, 7u32, 5u32),
        (1000, 64, 1, 1, 1),
        (16384, 128, 3, 64, 32),
        (333, 512, 2, 3, 64),
        (100_000, 256, 4, 13, 9),
    ];
    let mut make = |round: usize| {
        let (chunk, task, slots, grid, block) = shapes[round];
        let config = Config {
            chunk_packets: chunk,
            task_bytes: task,
            ..Config::default()
        };
        host_engine(config, slots, grid, block)
    };
    let (sealed, opened) = agree(&mut make, SESSIONS, shapes.len(), 10..31, 0x6270_7533_3234);
    assert_eq!(
        crate::host::misaligned(),
        0,
        "a block access off a 16-byte boundary, or a word access off a 4-byte one"
    );
    assert!(sealed >= 100_000 && SESSIONS >= 1_000, "{sealed} packets");
    println!(
        "{sealed} packets sealed and {opened} opened by the host-built kernels across {SESSIONS} \
         sessions, byte for byte the library's"
    );
}

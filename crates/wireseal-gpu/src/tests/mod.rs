//! The kernels built for the host, and the whole engine running on them,
//! held to RFC 8439's vectors, BIP324's packet vectors and the library.

mod arena;
mod arena_sides;
mod device;
mod differential;
mod edges;
mod nvrtc;
mod open_arena;
mod primitives;

use crate::engine::Engine;
use crate::host::HostExec;
use crate::jobs::{Outgoing, SealJob};
use crate::Config;
use rand::rngs::StdRng;
use rand::{Rng, RngCore};
use wireseal::batch::Batch;
use wireseal::bip324::batch::{open_batch_into, OpenJob, OpenedRange};
use wireseal::bip324::state::{DirectionState, STATE_LEN, STATE_VERSION};
use wireseal::bip324::{Error, PacketReceiver, PacketSender, PacketType};

/// An engine whose "device" is the kernels built for the host, with
/// `slots` streams and grids of `grid` × `block` threads; every batch goes
/// to it.
pub(crate) fn host_engine(mut config: Config, slots: usize, grid: u32, block: u32) -> Engine {
    config.min_gpu_batch = 0;
    config.min_gpu_bytes = 0;
    config.streams = slots;
    Engine::with(config, Ok(Box::new(HostExec::new(slots, grid, block))))
}

/// A sender and the receiver of its peer.
pub(crate) struct Pair {
    pub tx: PacketSender,
    pub rx: PacketReceiver,
}

/// Two identical pairs (one for the engine, one for the reference) at one
/// random state: random keys, epoch below 4, and the next message's index
/// near a rekey when `near_rekey`.
pub(crate) fn twin_pairs(rng: &mut StdRng, near_rekey: bool) -> (Pair, Pair) {
    let mut b = [0u8; STATE_LEN];
    b[0] = STATE_VERSION;
    rng.fill_bytes(&mut b[1..33]);
    rng.fill_bytes(&mut b[45..77]);
    let epoch: u64 = rng.gen_range(0..4);
    let index: u32 = if near_rekey {
        rng.gen_range(200..224)
    } else {
        rng.gen_range(0..224)
    };
    for (e, i) in [(33usize, 41usize), (77, 85)] {
        b[e..e + 8].copy_from_slice(&epoch.to_le_bytes());
        b[i..i + 4].copy_from_slice(&index.to_le_bytes());
    }
    let s = DirectionState::from_bytes(&b).expect("a valid state");
    let pair = || Pair {
        tx: PacketSender::from_state(&s),
        rx: PacketReceiver::from_state(&s),
    };
    (pair(), pair())
}

/// A state in the key schedule's last epoch, both ciphers at message
/// `index` of it, with random keys.
pub(crate) fn state_in_the_last_epoch(rng: &mut StdRng, index: u32) -> DirectionState {
    let mut b = [0u8; STATE_LEN];
    b[0] = STATE_VERSION;
    rng.fill_bytes(&mut b[1..33]);
    rng.fill_bytes(&mut b[45..77]);
    for at in [33usize, 77] {
        b[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    }
    for at in [41usize, 85] {
        b[at..at + 4].copy_from_slice(&index.to_le_bytes());
    }
    DirectionState::from_bytes(&b).expect("a valid state")
}

/// Contents sizes: the mixed profile, with every size around a block, a
/// part (`task_bytes` 512) and the profile's classes' edges mixed in.
pub(crate) fn sizes(rng: &mut StdRng, n: usize) -> Vec<u32> {
    const EDGES: [u32; 24] = [
        0, 1, 15, 16, 31, 32, 33, 47, 62, 63, 64, 65, 127, 128, 129, 510, 511, 512, 513, 1023,
        1024, 4095, 4096, 9000,
    ];
    let profile = wireseal_io::traffic::mixed_sizes(rng.next_u64(), n);
    profile
        .into_iter()
        .map(|s| {
            if rng.gen_ratio(1, 10) {
                EDGES[rng.gen_range(0..EDGES.len())]
            } else {
                s
            }
        })
        .collect()
}

/// Packets of `sizes`, each a decoy with probability `decoys`.
pub(crate) fn outgoing(rng: &mut StdRng, sizes: &[u32], decoys: f64) -> Vec<Outgoing> {
    sizes
        .iter()
        .map(|&len| Outgoing {
            len,
            kind: if rng.gen_bool(decoys) {
                PacketType::Decoy
            } else {
                PacketType::Genuine
            },
        })
        .collect()
}

/// Random contents for `packets`.
pub(crate) fn contents(rng: &mut StdRng, packets: &[Outgoing]) -> Vec<u8> {
    let mut c = vec![0u8; packets.iter().map(|p| p.len as usize).sum()];
    rng.fill_bytes(&mut c);
    c
}

/// The reference seal: the library's `seal_to_vec`, one packet at a time,
/// stopping at the first error as the library's batch does.
pub(crate) fn reference_seal(
    tx: &mut PacketSender,
    contents: &[u8],
    packets: &[Outgoing],
    out: &mut Vec<u8>,
) -> Result<usize, Error> {
    let mut from = 0usize;
    for p in packets {
        let s = p.len as usize;
        let Some(c) = contents.get(from..from + s) else {
            return Err(Error::Truncated {
                len: contents.len(),
                min: from + s,
            });
        };
        out.extend(tx.seal_to_vec(c, p.kind, b"")?);
        from += s;
    }
    Ok(packets.len())
}

/// One session's work for a seal batch: its packets and contents.
pub(crate) struct SealCase {
    pub packets: Vec<Outgoing>,
    pub contents: Vec<u8>,
}

/// Seals `cases` through `engine` on `ours` and through the reference on
/// `theirs`; asserts equal results, bytes and states; returns the wires
/// and the engine's report.
pub(crate) fn seal_both(
    engine: &mut Engine,
    ours: &mut [Pair],
    theirs: &mut [Pair],
    cases: &[SealCase],
) -> (Vec<Vec<u8>>, crate::Report) {
    let mut outs: Vec<Vec<u8>> = vec![Vec::new(); cases.len()];
    let mut jobs: Vec<SealJob<'_>> = ours
        .iter_mut()
        .zip(cases)
        .zip(outs.iter_mut())
        .map(|((p, c), out)| SealJob {
            sender: &mut p.tx,
            contents: &c.contents,
            packets: &c.packets,
            out,
            result: Ok(0),
        })
        .collect();
    let report = engine.seal(&mut jobs);
    let results: Vec<_> = jobs.iter().map(|j| j.result).collect();
    drop(jobs);
    for (i, ((p, c), ours_out)) in theirs.iter_mut().zip(cases).zip(&outs).enumerate() {
        let mut out = Vec::new();
        let r = reference_seal(&mut p.tx, &c.contents, &c.packets, &mut out);
        assert_eq!(results[i], r, "session {i}: result");
        assert!(ours_out == &out, "session {i}: wire bytes differ");
    }
    for (i, (a, b)) in ours.iter().zip(theirs.iter()).enumerate() {
        assert_eq!(
            a.tx.export_state().to_bytes().expose(),
            b.tx.export_state().to_bytes().expose(),
            "session {i}: sender state"
        );
    }
    (outs, report)
}

/// What opening each session's wire gave: the buffers after, the ranges,
/// the results.
pub(crate) struct OpenedWires {
    pub wires: Vec<Vec<u8>>,
    pub ranges: Vec<Vec<OpenedRange>>,
    pub results: Vec<Result<usize, Error>>,
}

/// Opens a copy of `wires` with `pairs`' receivers as jobs, through `open`.
pub(crate) fn open_jobs<R>(
    pairs: &mut [Pair],
    wires: &[Vec<u8>],
    open: impl FnOnce(&mut [OpenJob<'_>]) -> R,
) -> (OpenedWires, R) {
    let mut copies: Vec<Vec<u8>> = wires.to_vec();
    let mut ranges: Vec<Vec<OpenedRange>> = vec![Vec::new(); wires.len()];
    let mut jobs: Vec<OpenJob<'_>> = pairs
        .iter_mut()
        .zip(copies.iter_mut())
        .zip(ranges.iter_mut())
        .map(|((p, w), r)| OpenJob {
            receiver: &mut p.rx,
            wire: w,
            opened: r,
            result: Ok(0),
        })
        .collect();
    let r = open(&mut jobs);
    let results = jobs.iter().map(|j| j.result).collect();
    drop(jobs);
    let opened = OpenedWires {
        wires: copies,
        ranges,
        results,
    };
    (opened, r)
}

/// The library's batch open of a copy of `wires` with `pairs`' receivers.
pub(crate) fn library_open(pairs: &mut [Pair], wires: &[Vec<u8>]) -> OpenedWires {
    open_jobs(pairs, wires, |jobs| {
        open_batch_into(&Batch::with_threads(1), jobs)
    })
    .0
}

/// Asserts that every receiver of `ours` stands where its twin in `theirs`
/// does.
pub(crate) fn assert_same_receivers(ours: &[Pair], theirs: &[Pair]) {
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        let (x, y) = (&a.rx, &b.rx);
        assert_eq!(x.is_poisoned(), y.is_poisoned(), "session {i}: poisoned");
        assert_eq!(x.pending_len(), y.pending_len(), "session {i}: pending");
        if let (Ok(sx), Ok(sy)) = (x.export_state(), y.export_state()) {
            assert_eq!(
                sx.to_bytes().expose(),
                sy.to_bytes().expose(),
                "session {i}: state"
            );
        }
    }
}

/// Opens `wires` (one per session) through `engine` on `ours` and through
/// the library's batch on `theirs`; asserts equal results, ranges, buffers
/// (opened in place) and receiver states.
pub(crate) fn open_both(
    engine: &mut Engine,
    ours: &mut [Pair],
    theirs: &mut [Pair],
    wires: &[Vec<u8>],
) -> crate::Report {
    let (a, report) = open_jobs(ours, wires, |jobs| engine.open(jobs));
    let b = library_open(theirs, wires);
    for i in 0..wires.len() {
        assert_eq!(a.results[i], b.results[i], "session {i}: result");
        assert_eq!(a.ranges[i], b.ranges[i], "session {i}: opened ranges");
        assert!(
            a.wires[i] == b.wires[i],
            "session {i}: buffers differ after opening"
        );
    }
    assert_same_receivers(ours, theirs);
    assert_eq!(report.disagreements, 0);
    report
}

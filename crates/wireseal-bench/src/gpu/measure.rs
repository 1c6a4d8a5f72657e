//! The GPU section's workloads: sessions, mixed-profile batches spread over
//! them, and one timed seal or open of a batch through an engine (the GPU
//! path, or the library on the CPU), each checked.

use crate::bip324::our_handshake;
use std::time::Instant;
use wireseal::bip324::batch::{OpenJob, OpenedRange};
use wireseal::bip324::{PacketReceiver, PacketSender, PacketType, OVERHEAD};
use wireseal::keys::EllSwiftKeypair;
use wireseal_gpu::{
    ArenaError, Capacity, Engine, OpenCapacity, Outgoing, Phases, Report, Run, SealArena, SealJob,
};
use wireseal_io::traffic::mixed_sizes;

/// Most sessions a batch spreads over.
pub(super) const MAX_LANES: usize = 1024;

/// A sender and its peer's receiver, from a real handshake.
pub(super) struct Lane {
    pub tx: PacketSender,
    pub rx: PacketReceiver,
}

pub(super) fn lanes(n: usize) -> Vec<Lane> {
    (0..n)
        .map(|_| {
            let (a, b) = our_handshake(EllSwiftKeypair::generate(), EllSwiftKeypair::generate());
            Lane {
                tx: a.split().0,
                rx: b.split().1,
            }
        })
        .collect()
}

/// `n` mixed-profile packets spread round-robin over `lanes` sessions,
/// every fifth a decoy when `decoys`.
pub(super) struct Traffic {
    pub per_lane: Vec<Vec<Outgoing>>,
    pub contents: Vec<Vec<u8>>,
    /// Contents bytes of genuine packets (goodput).
    pub genuine_bytes: usize,
    pub packets: usize,
}

impl Traffic {
    pub(super) fn new(n: usize, lanes: usize, decoys: bool, seed: u64) -> Self {
        let lanes = lanes.clamp(1, n.max(1));
        let sizes = mixed_sizes(seed, n);
        let mut per_lane: Vec<Vec<Outgoing>> = vec![Vec::new(); lanes];
        let mut genuine_bytes = 0;
        for (i, &len) in sizes.iter().enumerate() {
            let kind = if decoys && i % 5 == 4 {
                PacketType::Decoy
            } else {
                genuine_bytes += len as usize;
                PacketType::Genuine
            };
            per_lane[i % lanes].push(Outgoing { len, kind });
        }
        let contents = per_lane
            .iter()
            .map(|p| {
                let len: usize = p.iter().map(|o| o.len as usize).sum();
                (0..len).map(|i| (i * 7) as u8).collect()
            })
            .collect();
        Self {
            per_lane,
            contents,
            genuine_bytes,
            packets: n,
        }
    }

    pub(super) fn lanes(&self) -> usize {
        self.per_lane.len()
    }

    /// Mean contents bytes of a genuine packet per packet of the batch.
    pub(super) fn goodput_per_packet(&self) -> f64 {
        self.genuine_bytes as f64 / self.packets.max(1) as f64
    }
}

/// How a batch is sent through an engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    /// [`Engine::seal_on_gpu`] / [`Engine::open_on_gpu`].
    Gpu,
    /// [`Engine::seal`] / [`Engine::open`] (the engine's own choice).
    Auto,
}

fn check(r: &Report, what: &str) -> Result<(), String> {
    match (&r.device_error, r.disagreements) {
        (Some(e), _) => Err(format!("{what}: {e}")),
        (None, 0) => Ok(()),
        (None, n) => Err(format!("{what}: {n} disagreement(s) with the library")),
    }
}

/// Seals `t` on `lanes` through `engine` into `outs` (cleared first);
/// seconds taken.
pub(super) fn seal(
    engine: &mut Engine,
    via: Via,
    lanes: &mut [Lane],
    t: &Traffic,
    outs: &mut [Vec<u8>],
) -> Result<f64, String> {
    seal_phases(engine, via, lanes, t, outs).map(|(s, _)| s)
}

/// [`seal`], with where the batch's time went.
pub(super) fn seal_phases(
    engine: &mut Engine,
    via: Via,
    lanes: &mut [Lane],
    t: &Traffic,
    outs: &mut [Vec<u8>],
) -> Result<(f64, Phases), String> {
    outs.iter_mut().for_each(Vec::clear);
    let mut jobs = seal_jobs(lanes, t, outs);
    let start = Instant::now();
    let r = match via {
        Via::Gpu => engine.seal_on_gpu(&mut jobs),
        Via::Auto => engine.seal(&mut jobs),
    };
    let secs = start.elapsed().as_secs_f64();
    check(&r, "seal")?;
    for (j, p) in jobs.iter().zip(&t.per_lane) {
        if j.result != Ok(p.len()) {
            return Err(format!("seal: {:?} for {} packets", j.result, p.len()));
        }
    }
    Ok((secs, r.phases))
}

/// Opens `wires` (sealed for `t` on `lanes`) in place through `engine`;
/// seconds taken. Checks every packet's type and contents against `t`
/// when `verify` (the kernels-less engine's are not decrypted).
pub(super) fn open(
    engine: &mut Engine,
    via: Via,
    lanes: &mut [Lane],
    t: &Traffic,
    wires: &mut [Vec<u8>],
    verify: bool,
) -> Result<f64, String> {
    open_phases(engine, via, lanes, t, wires, verify).map(|(s, _)| s)
}

/// [`open`], with where the batch's time went.
pub(super) fn open_phases(
    engine: &mut Engine,
    via: Via,
    lanes: &mut [Lane],
    t: &Traffic,
    wires: &mut [Vec<u8>],
    verify: bool,
) -> Result<(f64, Phases), String> {
    let mut opened: Vec<Vec<OpenedRange>> = vec![Vec::new(); wires.len()];
    let mut jobs = open_jobs(lanes, wires, &mut opened);
    let start = Instant::now();
    let r = match via {
        Via::Gpu => engine.open_on_gpu(&mut jobs),
        Via::Auto => engine.open(&mut jobs),
    };
    let secs = start.elapsed().as_secs_f64();
    check(&r, "open")?;
    let results: Vec<_> = jobs.iter().map(|j| j.result).collect();
    drop(jobs);
    for (i, p) in t.per_lane.iter().enumerate() {
        if results[i] != Ok(p.len()) {
            return Err(format!("open: {:?} for {} packets", results[i], p.len()));
        }
        if !verify {
            continue;
        }
        let mut from = 0usize;
        for (o, r) in p.iter().zip(&opened[i]) {
            let want = &t.contents[i][from..from + o.len as usize];
            if r.kind != o.kind || &wires[i][r.offset..r.offset + r.len] != want {
                return Err(format!("open: session {i}: a packet's contents differ"));
            }
            from += o.len as usize;
        }
    }
    Ok((secs, r.phases))
}

/// One seal job per lane of `t`, appending to `outs`.
pub(super) fn seal_jobs<'a>(
    lanes: &'a mut [Lane],
    t: &'a Traffic,
    outs: &'a mut [Vec<u8>],
) -> Vec<SealJob<'a>> {
    lanes
        .iter_mut()
        .zip(&t.per_lane)
        .zip(&t.contents)
        .zip(outs.iter_mut())
        .map(|(((l, packets), contents), out)| SealJob {
            sender: &mut l.tx,
            contents,
            packets,
            out,
            result: Ok(0),
        })
        .collect()
}

/// One open job per wire, on the lanes' receivers.
pub(super) fn open_jobs<'a>(
    lanes: &'a mut [Lane],
    wires: &'a mut [Vec<u8>],
    opened: &'a mut [Vec<OpenedRange>],
) -> Vec<OpenJob<'a>> {
    lanes
        .iter_mut()
        .zip(wires.iter_mut())
        .zip(opened.iter_mut())
        .map(|((l, wire), opened)| OpenJob {
            receiver: &mut l.rx,
            wire,
            opened,
            result: Ok(0),
        })
        .collect()
}

/// Wire bytes of a batch's packets.
pub(super) fn wire_bytes(t: &Traffic) -> usize {
    t.per_lane
        .iter()
        .flatten()
        .map(|o| o.len as usize + OVERHEAD)
        .sum()
}

/// Median of `v` (sorted in place).
pub(super) fn median(v: &mut [f64]) -> f64 {
    crate::timing::median(v)
}

/// Seals `t` on `lanes` through an arena of `engine` (each packet's
/// contents copied from `t` into the engine's memory, the sealed packets
/// read in place); seconds taken. With `halves`, each lane's packets go in
/// two halves, one to each side of the arena: the second half is written
/// while the first is on the device. When `verify`, every lane's packets
/// are then opened by its receiver and compared with `t` (not timed).
pub(super) fn seal_arena(
    engine: &mut Engine,
    lanes: &mut [Lane],
    t: &Traffic,
    halves: bool,
    verify: bool,
) -> Result<f64, String> {
    let n = t.lanes();
    let cap = Capacity {
        sessions: n,
        packets: t.packets,
        contents: t.contents.iter().map(Vec::len).sum(),
    };
    // Each lane's packets a run (or two), filled from `t` on the engine's
    // threads; `offsets[l][k]`: where packet `k` of lane `l` starts in `t`.
    let offsets: Vec<Vec<usize>> = t
        .per_lane
        .iter()
        .map(|p| {
            let mut at = 0usize;
            p.iter()
                .map(|o| {
                    let here = at;
                    at += o.len as usize;
                    here
                })
                .collect()
        })
        .collect();
    // With `halves`, lane `l`'s first `cut(l)` packets go in the first part.
    let cut = |l: usize| if halves { t.per_lane[l].len() / 2 } else { 0 };
    let part = |first: bool| -> Vec<Run<'_>> {
        let runs = t.per_lane.iter().enumerate();
        runs.map(|(session, p)| {
            let (a, b) = p.split_at(cut(session));
            Run {
                session,
                packets: if first { a } else { b },
            }
        })
        .collect()
    };
    let parts: Vec<(bool, Vec<Run<'_>>)> = [true, false]
        .into_iter()
        .filter(|&first| halves || !first)
        .map(|first| (first, part(first)))
        .collect();
    let mut wires: Vec<Vec<u8>> = vec![Vec::new(); if verify { n } else { 0 }];
    let start = Instant::now();
    let mut arena = engine.seal_arena(cap).map_err(|e| e.to_string())?;
    let mut senders: Vec<&mut PacketSender> = lanes.iter_mut().map(|l| &mut l.tx).collect();
    let mut taken = 0;
    for (first, runs) in &parts {
        let base = |l: usize| if *first { 0 } else { cut(l) };
        let fill = |r: usize, k: usize, dst: &mut [u8]| {
            let at = offsets[r][base(r) + k];
            dst.copy_from_slice(&t.contents[r][at..at + dst.len()]);
        };
        if arena.reserve_runs(runs, fill) == Err(ArenaError::InFlight) {
            // An arena of one side: the last half comes back first.
            take(&mut arena, &parts[taken].1, &mut wires)?;
            taken += 1;
            arena.reserve_runs(runs, fill).map_err(|e| e.to_string())?;
        }
        arena.submit(&mut senders).map_err(|e| e.to_string())?;
    }
    while arena.submitted() > 0 {
        take(&mut arena, &parts[taken].1, &mut wires)?;
        taken += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    drop(senders);
    drop(arena);
    for (l, lane) in lanes.iter_mut().enumerate() {
        match wires.get_mut(l) {
            Some(wire) => open_lane(lane, wire, t, l)?,
            // The receivers skip what they did not open, to stay in step.
            None => lane
                .rx
                .advance(t.per_lane[l].len() as u64)
                .map_err(|e| e.to_string())?,
        }
    }
    Ok(secs)
}

/// Waits for the arena's oldest side, reserved as `runs` (lane by lane),
/// and reads its packets: into each lane's wire when `wires` has one per
/// lane, else only their lengths summed.
fn take(arena: &mut SealArena<'_>, runs: &[Run<'_>], wires: &mut [Vec<u8>]) -> Result<(), String> {
    let sealed = arena.wait().map_err(|e| e.to_string())?;
    if let Some(e) = sealed.device_error() {
        return Err(format!("arena: {e}"));
    }
    if wires.is_empty() {
        std::hint::black_box(sealed.iter().map(<[u8]>::len).sum::<usize>());
        return Ok(());
    }
    // Reserved lane by lane: lane l's packets follow lane l - 1's.
    let mut it = sealed.iter();
    for (run, w) in runs.iter().zip(wires.iter_mut()) {
        for p in it.by_ref().take(run.packets.len()) {
            w.extend_from_slice(p);
        }
    }
    Ok(())
}

/// Seconds to open `wires` (each lane's, sealed from `t`) through an
/// [`wireseal_gpu::OpenArena`]: each lane's bytes written into the
/// engine's memory (as a caller would receive them there), opened, and each
/// packet's contents found where the device left them (compared with `t`'s
/// when `verify`); and of those, the seconds spent on the device
/// ([`wireseal_gpu::OpenedArena::waited`]).
pub(super) fn open_arena(
    engine: &mut Engine,
    lanes: &mut [Lane],
    t: &Traffic,
    wires: &[Vec<u8>],
    verify: bool,
) -> Result<(f64, f64), String> {
    let cap = OpenCapacity {
        sessions: t.lanes(),
        bytes: wires.iter().map(Vec::len).sum(),
    };
    let start = Instant::now();
    let mut arena = engine.open_arena(cap).map_err(|e| e.to_string())?;
    for (l, wire) in wires.iter().enumerate() {
        arena
            .receive(l, wire.len())
            .map_err(|e| e.to_string())?
            .copy_from_slice(wire);
    }
    let mut receivers: Vec<&mut PacketReceiver> = lanes.iter_mut().map(|l| &mut l.rx).collect();
    let opened = arena.open(&mut receivers).map_err(|e| e.to_string())?;
    let bytes: usize = (0..t.lanes())
        .flat_map(|l| opened.packets(l))
        .map(|p| p.contents.len())
        .sum();
    let secs = start.elapsed().as_secs_f64();
    std::hint::black_box(bytes);
    if let Some(e) = opened.device_error() {
        return Err(format!("arena: {e}"));
    }
    for (l, p) in t.per_lane.iter().enumerate() {
        if opened.result(l) != Some(Ok(p.len())) {
            return Err(format!(
                "open arena: {:?} for {} packets",
                opened.result(l),
                p.len()
            ));
        }
        if !verify {
            continue;
        }
        let mut from = 0usize;
        for (o, got) in p.iter().zip(opened.packets(l)) {
            let want = &t.contents[l][from..from + o.len as usize];
            if got.kind != o.kind || got.contents != want {
                return Err(format!(
                    "open arena: session {l}: a packet's contents differ"
                ));
            }
            from += o.len as usize;
        }
    }
    Ok((secs, opened.waited().as_secs_f64()))
}

/// Opens lane `l`'s packets in `wire` with its receiver and compares each
/// with `t`.
fn open_lane(lane: &mut Lane, wire: &mut [u8], t: &Traffic, l: usize) -> Result<(), String> {
    let (mut at, mut from) = (0usize, 0usize);
    for o in &t.per_lane[l] {
        let ok = match lane.rx.open_next(b"", &mut wire[at..]) {
            Ok(wireseal::bip324::Next::Packet { packet, consumed }) => {
                let same = packet.kind == o.kind
                    && packet.contents == &t.contents[l][from..from + o.len as usize];
                at += consumed;
                same
            }
            _ => false,
        };
        if !ok {
            return Err(format!("arena: lane {l}: a packet does not open as sealed"));
        }
        from += o.len as usize;
    }
    Ok(())
}

//! The GPU section's rows besides the curves: the correctness check against
//! the library, the threshold's calibration, the kernels alone, the CPU
//! fallback on one packet, and the host side of the GPU path.

use super::measure::{
    lanes, median, open, open_arena, open_jobs, open_phases, seal, seal_arena, seal_jobs,
    seal_phases, wire_bytes, Lane, Traffic, Via,
};
use super::S;
use crate::{Better, Ctx, Row};
use std::time::Instant;
use wireseal::batch::Batch;
use wireseal::bip324::batch::{open_batch_into, seal_outgoing_into, OpenJob, OpenedRange};
use wireseal::bip324::{Error, Next, PacketSender, PacketType, OVERHEAD};
use wireseal_gpu::{
    Config, Engine, Outgoing, Phases, SealJob, DEFAULT_MIN_GPU_BATCH, DEFAULT_MIN_GPU_BYTES,
};
use wireseal_io::traffic::mixed_sizes;

/// Before any figure: packets the GPU sealed open in the library (contents
/// and types checked), and packets the library sealed open on the GPU,
/// where a flipped byte fails that packet and stops its session there, as
/// the library does. One row; a failed one stops the measurements.
pub(super) fn correctness(gpu: &mut Engine) -> Row {
    check_against_library(gpu).unwrap_or_else(|failed| *failed)
}

fn check_against_library(gpu: &mut Engine) -> Result<Row, Box<Row>> {
    let mut cpu = Engine::cpu_only(Config::default());
    let mut ls = lanes(64);
    let t = Traffic::new(16_384, ls.len(), true, 11);
    let fail = |what: &str, why: String| {
        Box::new(
            Row::new(
                S,
                format!("check: {what}"),
                "packets",
                Better::Higher,
                0.0,
                "-",
                None,
            )
            .failed(why),
        )
    };
    let mut wires = vec![Vec::new(); t.lanes()];
    seal(gpu, Via::Gpu, &mut ls, &t, &mut wires).map_err(|e| fail("GPU seal", e))?;
    open(&mut cpu, Via::Auto, &mut ls, &t, &mut wires, true)
        .map_err(|e| fail("GPU seal, library open", e))?;
    seal_arena(gpu, &mut ls, &t, true, true)
        .map_err(|e| fail("GPU arena seal, library open", e))?;
    seal(gpu, Via::Gpu, &mut ls, &t, &mut wires).map_err(|e| fail("GPU seal", e))?;
    open(&mut cpu, Via::Auto, &mut ls, &t, &mut wires, true)
        .map_err(|e| fail("GPU seal, library open", e))?;
    seal(&mut cpu, Via::Auto, &mut ls, &t, &mut wires).map_err(|e| fail("library seal", e))?;
    open(gpu, Via::Gpu, &mut ls, &t, &mut wires, true)
        .map_err(|e| fail("library seal, GPU open", e))?;
    seal(&mut cpu, Via::Auto, &mut ls, &t, &mut wires).map_err(|e| fail("library seal", e))?;
    open_arena(gpu, &mut ls, &t, &wires, true)
        .map_err(|e| fail("library seal, GPU arena open", e))?;

    // A flipped byte in packet 7 of every other session.
    seal(&mut cpu, Via::Auto, &mut ls, &t, &mut wires).map_err(|e| fail("library seal", e))?;
    let at = |p: &[Outgoing]| p[..7].iter().map(|o| o.len as usize + 20).sum::<usize>() + 5;
    for (i, w) in wires.iter_mut().enumerate().step_by(2) {
        let k = at(&t.per_lane[i]).min(w.len() - 1);
        w[k] ^= 0x40;
    }
    let mut opened: Vec<Vec<OpenedRange>> = vec![Vec::new(); wires.len()];
    let mut jobs = open_jobs(&mut ls, &mut wires, &mut opened);
    let r = gpu.open_on_gpu(&mut jobs);
    for (i, j) in jobs.iter().enumerate() {
        let want = if i % 2 == 0 {
            Err(Error::Auth)
        } else {
            Ok(t.per_lane[i].len())
        };
        if j.result != want || (i % 2 == 0 && j.opened.len() != 7) || r.disagreements != 0 {
            return Err(fail(
                "tampered packets",
                format!(
                    "session {i}: {:?} after {} packets",
                    j.result,
                    j.opened.len()
                ),
            ));
        }
    }
    let packets = 7 * t.packets;
    Ok(Row::new(
        S,
        "check: packets sealed or opened on the GPU, agreeing with the library \
         (16,384 per pass, one seal and one open through an arena, 20 % decoys, 32 sessions \
         tampered)",
        "packets",
        Better::Higher,
        packets as f64,
        "-",
        None,
    ))
}

/// What the device costs before any work, the floor under every latency
/// row: queueing one empty kernel, and a round trip of 64 bytes in, the
/// empty kernel, 64 bytes out and a wait.
pub(super) fn floor(gpu: &mut Engine) -> Vec<Row> {
    let row = |what: &str, secs: f64| Row::new(S, what, "µs", Better::Lower, secs * 1e6, "-", None);
    match gpu.device_floor(2000) {
        Ok((queue, trip)) => vec![
            row(
                "floor: queueing an empty kernel (host side of a launch)",
                queue,
            ),
            row(
                "floor: 64 B in, an empty kernel, 64 B out and a wait (one round trip)",
                trip,
            ),
        ],
        Err(e) => vec![row("floor: round trip", 1.0).failed(e.to_string())],
    }
}

/// The threshold measured on this device ([`Engine::calibrate`]).
pub(super) fn calibration(gpu: &mut Engine) -> Vec<Row> {
    // As many sessions as the curves spread their batches over.
    let mut pairs: Vec<_> = lanes(super::measure::MAX_LANES)
        .into_iter()
        .map(|l| (l.tx, l.rx))
        .collect();
    let cal = match gpu.calibrate(&mut pairs, &mixed_sizes(7, 4096)) {
        Ok(c) => c,
        Err(e) => {
            return vec![
                Row::new(S, "calibration", "packets", Better::Lower, 0.0, "-", None)
                    .failed(e.to_string()),
            ]
        }
    };
    let mut rows = Vec::new();
    for p in &cal.points {
        for (dir, gpu, cpu) in [
            ("seal", p.gpu_seal_seconds, p.cpu_seal_seconds),
            ("open", p.gpu_open_seconds, p.cpu_open_seconds),
        ] {
            rows.push(Row::new(
                S,
                format!("calibration: {dir} a batch of {}, GPU", p.packets),
                "µs",
                Better::Lower,
                gpu * 1e6,
                "CPU library, all cores",
                Some(cpu * 1e6),
            ));
        }
    }
    let threshold = |n: usize| {
        if n == usize::MAX {
            "never".to_string()
        } else {
            n.to_string()
        }
    };
    rows.push(
        Row::new(
            S,
            format!(
                "CPU/GPU threshold measured here: seal from {} packets, open from {} wire bytes",
                threshold(cal.min_gpu_batch),
                threshold(cal.min_gpu_bytes)
            ),
            "packets",
            Better::Lower,
            cal.min_gpu_batch as f64,
            "-",
            None,
        )
        .seed(format!(
            "default {DEFAULT_MIN_GPU_BATCH} packets / {DEFAULT_MIN_GPU_BYTES} bytes, not measured on a device"
        )),
    );
    rows
}

/// Median seconds of the seal kernels and the open kernels alone on `t`.
pub(super) fn kernels(
    gpu: &mut Engine,
    seal_lanes: &mut [Lane],
    open_lanes: &mut [Lane],
    t: &Traffic,
    runs: usize,
) -> Result<(f64, f64), String> {
    let mut outs = vec![Vec::new(); t.lanes()];
    let mut jobs = seal_jobs(seal_lanes, t, &mut outs);
    let s = gpu
        .kernel_seconds_seal(&mut jobs, runs)
        .map_err(|e| e.to_string())?;
    drop(jobs);
    let mut wires = vec![Vec::new(); t.lanes()];
    seal(gpu, Via::Gpu, open_lanes, t, &mut wires)?;
    let mut opened: Vec<Vec<OpenedRange>> = vec![Vec::new(); t.lanes()];
    let mut jobs = open_jobs(open_lanes, &mut wires, &mut opened);
    let o = gpu
        .kernel_seconds_open(&mut jobs, runs)
        .map_err(|e| e.to_string())?;
    drop(jobs);
    // The receivers take the packets for real, so they stay in step.
    open(gpu, Via::Gpu, open_lanes, t, &mut wires, true)?;
    Ok((s, o))
}

/// A batch of one packet through the engine (below the threshold: the CPU
/// fallback) against the library's own single-packet call on the same
/// session, and against the library's batch call with one job (what the
/// fallback runs), sampled alternately: the fallback must cost no more than
/// the library.
pub(super) fn fallback(ctx: &Ctx) -> Vec<Row> {
    let mut engine = Engine::new(Config::from_env());
    let mut rows = fallback_seal(ctx, &mut engine);
    rows.extend(fallback_open(ctx, &mut engine));
    rows
}

fn fallback_seal(ctx: &Ctx, engine: &mut Engine) -> Vec<Row> {
    let batch = Batch::calling_thread();
    // Engine and library each on a session of their own (the two calls are
    // sampled alternately).
    let mut two = lanes(2);
    let (mut l, mut k) = (two.pop().expect("a lane"), two.pop().expect("a lane"));
    let contents = vec![7u8; 100];
    let (mut out, mut lib_out) = (Vec::with_capacity(256), Vec::with_capacity(256));
    let mut buf = vec![0u8; 256];
    let (ours, lib) = ctx.time_pair_per_op(
        || seal_one(Some(&mut *engine), &batch, &mut l.tx, &contents, &mut out),
        || {
            let _ =
                k.tx.seal_into(&contents, PacketType::Genuine, b"", &mut buf);
        },
    );
    let (ours_b, lib_b) = ctx.time_pair_per_op(
        || seal_one(Some(&mut *engine), &batch, &mut l.tx, &contents, &mut out),
        || seal_one(None, &batch, &mut k.tx, &contents, &mut lib_out),
    );
    vec![
        Row::new(
            S,
            "seal, batch of 1 (100 B) through the engine: CPU fallback",
            "ns",
            Better::Lower,
            ours * 1e9,
            "library seal_into",
            Some(lib * 1e9),
        ),
        Row::new(
            S,
            "seal, batch of 1 (100 B) through the engine: CPU fallback, against the library's batch call",
            "ns",
            Better::Lower,
            ours_b * 1e9,
            "library seal_outgoing_into, one job",
            Some(lib_b * 1e9),
        ),
    ]
}

/// One genuine packet of `contents` sealed into `out` (cleared first)
/// through `engine`, or through the library's batch call without one.
fn seal_one(
    engine: Option<&mut Engine>,
    batch: &Batch,
    tx: &mut PacketSender,
    contents: &[u8],
    out: &mut Vec<u8>,
) {
    out.clear();
    let packets = [Outgoing::genuine(contents.len() as u32)];
    let mut jobs = [SealJob {
        sender: tx,
        contents,
        packets: &packets,
        out,
        result: Ok(0),
    }];
    match engine {
        Some(e) => {
            e.seal(&mut jobs);
        }
        None => seal_outgoing_into(batch, &mut jobs),
    }
}

/// Opening: packets sealed ahead, opened in order by the engine, the
/// library's batch call and the library's `open_next`, in alternating
/// blocks on one session.
fn fallback_open(ctx: &Ctx, engine: &mut Engine) -> Vec<Row> {
    // The three ways, by their index in `times`: the engine, the library's
    // batch call, its `open_next`.
    const WAYS: usize = 3;
    const ENGINE: usize = 0;
    const NEXT: usize = 2;
    let batch = Batch::calling_thread();
    let mut o = lanes(1).pop().expect("a lane");
    let contents = vec![7u8; 100];
    let block = if ctx.full { 2000 } else { 500 };
    let rounds = ctx.samples();
    let mut wires: Vec<Vec<u8>> = (0..WAYS * block * rounds)
        .map(|_| {
            o.tx.seal_to_vec(&contents, PacketType::Genuine, b"")
                .expect("seal")
        })
        .collect();
    let mut times: [Vec<f64>; WAYS] = Default::default();
    let mut it = wires.iter_mut();
    let mut opened = Vec::with_capacity(1);
    for round in 0..rounds {
        for i in 0..WAYS {
            // Each way goes first in turn.
            let way = (i + round) % WAYS;
            let t = Instant::now();
            for w in it.by_ref().take(block) {
                if way == NEXT {
                    let r = o.rx.open_next(b"", w);
                    let _ = std::hint::black_box(matches!(r, Ok(Next::Packet { .. })));
                    continue;
                }
                let mut jobs = [OpenJob {
                    receiver: &mut o.rx,
                    wire: w,
                    opened: &mut opened,
                    result: Ok(0),
                }];
                if way == ENGINE {
                    engine.open(&mut jobs);
                } else {
                    open_batch_into(&batch, &mut jobs);
                }
            }
            times[way].push(t.elapsed().as_secs_f64() / block as f64);
        }
    }
    let ok = !o.rx.is_poisoned();
    let [mut e, mut b, mut n] = times;
    let (e, b, n) = (median(&mut e), median(&mut b), median(&mut n));
    let rows = [
        ("", "library open_next, same session", n),
        (
            ", against the library's batch call",
            "library open_batch_into, one job, same session",
            b,
        ),
    ];
    rows.into_iter()
        .map(|(what, peer, lib)| {
            let row = Row::new(
                S,
                format!("open, batch of 1 (100 B) through the engine: CPU fallback{what}"),
                "ns",
                Better::Lower,
                e * 1e9,
                peer,
                Some(lib * 1e9),
            );
            if ok {
                row
            } else {
                row.failed("a packet did not open")
            }
        })
        .collect()
}

/// The host side of the GPU path (planning, staging, handing back,
/// moving the sessions) with no copies and no ciphers, against the library
/// on all cores: what the host can feed a device at most, on this machine.
/// An open's packets are found by the framing kernels built for the host,
/// the stand-in device's work, which the figure leaves out.
pub(super) fn host_side(ctx: &Ctx) -> Vec<Row> {
    let b = 16_384;
    let t = Traffic::new(b, 256, false, 5);
    let all = rayon::current_num_threads();
    let mb = wire_bytes(&t) as f64 / 1e6;
    let mut rows = Vec::new();
    // Seconds per batch, [threads][seal, open], host side then library.
    let mut per: Vec<[(f64, f64); 2]> = Vec::new();
    for threads in [1, all] {
        let (m, phases, fail) = host_side_on(ctx, &t, threads);
        per.push(m);
        rows.extend(arena_rows(ctx, &t, threads, [m[0].1, m[1].1]));
        if threads == all {
            for (dir, p) in ["seal", "open"].into_iter().zip(phases) {
                rows.extend(phase_rows(
                    &format!("{dir}, batch of {b}, host side only, {all} thr"),
                    &p,
                ));
            }
        }
        for (k, dir) in ["seal", "open"].into_iter().enumerate() {
            let (h, c) = m[k];
            let row = Row::new(
                S,
                format!(
                    "{dir}, batch of {b} ({mb:.1} MB): host side of the GPU path only, {threads} \
                     thr"
                ),
                "pkt/s",
                Better::Higher,
                b as f64 / h,
                format!("CPU library, {threads} thr"),
                Some(b as f64 / c),
            );
            rows.push(match &fail {
                Some(e) => row.failed(e.clone()),
                None => row,
            });
        }
    }
    // How the host side scales: all threads against n times one thread.
    for (k, dir) in ["seal", "open"].into_iter().enumerate() {
        let (one, every) = (b as f64 / per[0][k].0, b as f64 / per[1][k].0);
        rows.push(Row::new(
            S,
            format!(
                "{dir}, batch of {b}: host side of the GPU path, {all} thr against {all} x 1 thr"
            ),
            "pkt/s",
            Better::Higher,
            every,
            format!("{all} x the 1-thread rate"),
            Some(all as f64 * one),
        ));
    }
    // The floor under both: the same bytes copied in and out with nothing
    // else, on 1 thread and on all.
    let copies = [copy_floor(ctx, &t, 1), copy_floor(ctx, &t, all)];
    for (threads, secs) in [(1, copies[0]), (all, copies[1])] {
        let k = usize::from(threads != 1);
        rows.push(Row::new(
            S,
            format!(
                "batch of {b} ({mb:.1} MB): the copies alone (each session's bytes into a \
                 staging buffer and back out, as the GPU path moves them), {threads} thr"
            ),
            "pkt/s",
            Better::Higher,
            b as f64 / secs,
            format!("CPU library seal, {threads} thr"),
            Some(b as f64 / per[k][0].1),
        ));
    }
    rows.push(Row::new(
        S,
        format!("batch of {b}: the copies alone, {all} thr against {all} x 1 thr"),
        "pkt/s",
        Better::Higher,
        b as f64 / copies[1],
        format!("{all} x the 1-thread rate"),
        Some(all as f64 * b as f64 / copies[0]),
    ));
    rows
}

/// Median seconds of the host side of the GPU path and of the library, for
/// seal and for open of `t`, on `threads` threads (samples alternated), and
/// the first failure.
fn host_side_on(
    ctx: &Ctx,
    t: &Traffic,
    threads: usize,
) -> ([(f64, f64); 2], [Phases; 2], Option<String>) {
    let config = Config {
        host_threads: threads,
        ..Config::from_env()
    };
    let mut host = Engine::host_side_only_for_timing(config.clone());
    let mut cpu = Engine::cpu_only(config.clone());
    let mut sealer = Engine::cpu_only(Config::default());
    let mut ls = lanes(t.lanes());
    let mut lo = lanes(t.lanes());
    let mut outs = vec![Vec::new(); t.lanes()];
    let (mut hs, mut cs, mut ho, mut co) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut phases = [Phases::default(); 2];
    let mut fail = None;
    for _ in 0..ctx.samples() {
        for (engine, v, k) in [(&mut host, &mut hs, Some(0)), (&mut cpu, &mut cs, None)] {
            match seal_phases(engine, Via::Gpu, &mut ls, t, &mut outs) {
                Ok((s, p)) => {
                    // The host side: what the stand-in device did (in
                    // `submit`) left out.
                    v.push(s - p.submit.as_secs_f64());
                    if let Some(k) = k {
                        phases[k] = p;
                    }
                }
                Err(e) => fail = Some(e),
            }
        }
        for (engine, v, real) in [(&mut host, &mut ho, false), (&mut cpu, &mut co, true)] {
            let mut wires = vec![Vec::new(); t.lanes()];
            let r = seal(&mut sealer, Via::Auto, &mut lo, t, &mut wires)
                .and_then(|_| open_phases(engine, Via::Gpu, &mut lo, t, &mut wires, real));
            match r {
                Ok((s, p)) => {
                    v.push(s - p.submit.as_secs_f64());
                    if !real {
                        phases[1] = p;
                    }
                }
                Err(e) => fail = Some(e),
            }
        }
    }
    if fail.is_some() {
        return ([(1.0, 1.0); 2], phases, fail);
    }
    (
        [
            (median(&mut hs), median(&mut cs)),
            (median(&mut ho), median(&mut co)),
        ],
        phases,
        None,
    )
}

/// Median seconds to copy `t`'s wire bytes, session by session on
/// `threads` threads, into one staging buffer and back out into each session's own
/// buffer: the memory traffic of the GPU path's host side with nothing
/// else, the floor under its row.
fn copy_floor(ctx: &Ctx, t: &Traffic, threads: usize) -> f64 {
    let lens: Vec<usize> = t
        .per_lane
        .iter()
        .map(|p| p.iter().map(|o| o.len as usize + OVERHEAD).sum())
        .collect();
    let src: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0x5a; n]).collect();
    let mut dst: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0; n]).collect();
    let mut staging = vec![0u8; lens.iter().sum()];
    let batch = Batch::with_threads(threads);
    let mut secs = Vec::new();
    for _ in 0..ctx.samples() {
        let start = Instant::now();
        let mut rest = staging.as_mut_slice();
        let mut items: Vec<(&[u8], &mut [u8], &mut Vec<u8>)> = Vec::with_capacity(src.len());
        for (s, d) in src.iter().zip(dst.iter_mut()) {
            let (mine, tail) = std::mem::take(&mut rest).split_at_mut(s.len());
            rest = tail;
            items.push((s, mine, d));
        }
        batch.for_each_mut_coarse(&mut items, |(s, mine, d)| {
            mine.copy_from_slice(s);
            d.copy_from_slice(mine);
        });
        secs.push(start.elapsed().as_secs_f64());
        std::hint::black_box(&dst);
    }
    median(&mut secs)
}

/// One row per phase of a batch (µs, on the calling thread's clock).
pub(super) fn phase_rows(what: &str, p: &Phases) -> Vec<Row> {
    [
        ("shape", p.shape),
        ("cut", p.cut),
        ("fill", p.fill),
        ("submit", p.submit),
        ("wait for the device", p.wait),
        ("scatter", p.scatter),
        ("finish", p.finish),
    ]
    .into_iter()
    .map(|(phase, d)| {
        Row::new(
            S,
            format!("{what}: {phase}"),
            "µs",
            Better::Lower,
            d.as_secs_f64() * 1e6,
            "-",
            None,
        )
    })
    .collect()
}

/// Where a large batch's time goes end to end on the GPU (the last of
/// three seals and opens of 131,072 packets over 1,024 sessions).
pub(super) fn gpu_phases(gpu: &mut Engine) -> Vec<Row> {
    let b = 131_072;
    let mut ls = lanes(super::measure::MAX_LANES);
    let t = Traffic::new(b, ls.len(), false, 17);
    let mut outs = vec![Vec::new(); t.lanes()];
    let mut last = Err(String::new());
    for _ in 0..3 {
        last = seal_phases(gpu, Via::Gpu, &mut ls, &t, &mut outs).and_then(|(_, sp)| {
            open_phases(gpu, Via::Gpu, &mut ls, &t, &mut outs, true).map(|(_, op)| (sp, op))
        });
    }
    match last {
        Ok((sp, op)) => {
            let mut rows = phase_rows(&format!("seal, batch of {b}, GPU end to end"), &sp);
            rows.extend(phase_rows(
                &format!("open, batch of {b}, GPU end to end"),
                &op,
            ));
            rows
        }
        Err(e) => vec![Row::new(S, "phases", "µs", Better::Lower, 0.0, "-", None).failed(e)],
    }
}

/// The arenas' host side rows (seal, then open) on `threads` threads, each
/// against the library's seconds in `library` ([seal, open]) measured in
/// the same run.
fn arena_rows(ctx: &Ctx, t: &Traffic, threads: usize, library: [f64; 2]) -> Vec<Row> {
    let b = t.packets;
    let mb = wire_bytes(t) as f64 / 1e6;
    let what = [
        (
            "seal",
            "contents written into engine memory, packets read there",
        ),
        (
            "open",
            "received bytes written into engine memory, packets read there",
        ),
    ];
    let secs = [
        arena_host_side(ctx, t, threads),
        arena_open_host_side(ctx, t, threads),
    ];
    let mut rows = Vec::new();
    for (k, secs) in secs.into_iter().enumerate() {
        let (dir, how) = what[k];
        let row = Row::new(
            S,
            format!(
                "{dir}, batch of {b} ({mb:.1} MB): host side of the arena path only ({how}), \
                 {threads} thr"
            ),
            "pkt/s",
            Better::Higher,
            secs.as_ref().map_or(0.0, |s| b as f64 / s),
            format!("CPU library, {threads} thr"),
            Some(b as f64 / library[k]),
        );
        rows.push(match secs {
            Ok(_) => row,
            Err(e) => row.failed(e),
        });
    }
    rows
}

/// Median seconds of the open arena's host side (an engine whose "device"
/// runs no cipher: it frames, and reports every packet verified) opening
/// `t` on `threads` threads, the wires sealed before each sample.
fn arena_open_host_side(ctx: &Ctx, t: &Traffic, threads: usize) -> Result<f64, String> {
    let config = Config {
        host_threads: threads,
        ..Config::from_env()
    };
    let mut host = Engine::host_side_only_for_timing(config);
    let mut sealer = Engine::cpu_only(Config::default());
    let mut lo = lanes(t.lanes());
    let mut v = Vec::new();
    for _ in 0..ctx.samples() {
        let mut wires = vec![Vec::new(); t.lanes()];
        seal(&mut sealer, Via::Auto, &mut lo, t, &mut wires)?;
        // The host side: the stand-in device's time left out.
        let (secs, device) = open_arena(&mut host, &mut lo, t, &wires, false)?;
        v.push(secs - device);
    }
    Ok(median(&mut v))
}

/// Median seconds of the arena's host side (an engine whose "device" runs
/// nothing) sealing `t` on `threads` threads.
fn arena_host_side(ctx: &Ctx, t: &Traffic, threads: usize) -> Result<f64, String> {
    let config = Config {
        host_threads: threads,
        ..Config::from_env()
    };
    let mut host = Engine::host_side_only_for_timing(config);
    let mut ls = lanes(t.lanes());
    let mut v = Vec::new();
    for _ in 0..ctx.samples() {
        v.push(seal_arena(&mut host, &mut ls, t, false, false)?);
    }
    Ok(median(&mut v))
}

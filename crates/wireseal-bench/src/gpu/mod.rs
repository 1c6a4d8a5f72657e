//! `--section gpu`: BIP324 on the GPU (`wireseal-gpu`) next to the library
//! on all cores, measured in the same run, samples alternated: packets per
//! second, time per packet and goodput against the batch size (1 to 128K
//! mixed-profile packets over up to 1,024 sessions), end to end (from the
//! jobs' host memory to the jobs' host memory, copies included) on 4
//! streams and on 1, the kernels alone (packets and keys already on the
//! device), and with 20 % decoys. Before any figure, a correctness check
//! against the library; after it, the CPU/GPU threshold measured on this
//! device.
//!
//! Without a device the GPU rows are one `skipped:` row with the reason, and
//! the rows that need no device are still measured: the CPU fallback on a
//! batch of one packet against the library's own call, the host side of the
//! GPU path (planning, staging, handing back) without copies or kernels, and
//! the library's curve on all cores.

mod checks;
mod measure;

use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use measure::{lanes, median, open, seal, seal_arena, Lane, Traffic, Via, MAX_LANES};
use wireseal_gpu::{Config, Engine};

const S: &str = "gpu";

/// The batch sizes of the curves.
fn batches(ctx: &Ctx) -> &'static [usize] {
    if ctx.full {
        &[1, 16, 64, 256, 1024, 4096, 16384, 65536, 131_072]
    } else {
        &[1, 64, 1024, 16384, 131_072]
    }
}

/// Runs the section.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let mut rows = checks::fallback(ctx);
    rows.extend(checks::host_side(ctx));
    let config = Config::from_env();
    let mut gpu = Engine::new(config.clone());
    let info = match gpu.device() {
        Ok(info) => info,
        Err(why) => {
            rows.push(
                Row::new(
                    S,
                    "GPU engine (every GPU row)",
                    "pkt/s",
                    Better::Higher,
                    0.0,
                    "-",
                    None,
                )
                .skipped(&Skip::new(why.to_string())),
            );
            rows.extend(cpu_curve(ctx));
            return rows;
        }
    };
    eprintln!("gpu: {info}");
    let check = checks::correctness(&mut gpu);
    let failed = check.failed.is_some();
    rows.push(check);
    if failed {
        return rows;
    }
    rows.extend(checks::floor(&mut gpu));
    rows.extend(checks::calibration(&mut gpu));
    let mut one = Engine::new(Config {
        streams: 1,
        ..config.clone()
    });
    rows.extend(curves(ctx, &mut gpu, &mut one, &config, &info.name));
    rows.extend(checks::gpu_phases(&mut gpu));
    rows
}

/// The library's curve alone (no device).
fn cpu_curve(ctx: &Ctx) -> Vec<Row> {
    let mut cpu = Engine::cpu_only(Config::default());
    let mut seal_lanes = lanes(MAX_LANES.min(256));
    let mut open_lanes = lanes(MAX_LANES.min(256));
    let mut rows = Vec::new();
    for &b in batches(ctx) {
        let t = Traffic::new(b, seal_lanes.len(), false, b as u64);
        let reps = (8192 / b).max(1);
        let mut outs = vec![Vec::new(); t.lanes()];
        let mut s = Vec::new();
        let mut o = Vec::new();
        for _ in 0..ctx.samples() {
            s.push(per_call(reps, || {
                seal(&mut cpu, Via::Auto, &mut seal_lanes, &t, &mut outs)
            }));
            o.push(open_after_seal(
                &mut cpu,
                None,
                Via::Auto,
                &mut open_lanes,
                &t,
                reps,
            ));
        }
        for (dir, v) in [("seal", &mut s), ("open", &mut o)] {
            let secs: Result<Vec<f64>, String> = v.drain(..).collect();
            let row = |secs: f64| {
                Row::new(
                    S,
                    format!("{dir}, batch of {b}: CPU library, all cores"),
                    "pkt/s",
                    Better::Higher,
                    b as f64 / secs,
                    "-",
                    None,
                )
                .at(plot(dir), "CPU library, all cores", b as f64)
            };
            rows.push(match secs {
                Ok(mut v) => row(median(&mut v)),
                Err(e) => row(1.0).failed(e),
            });
        }
    }
    rows
}

fn plot(dir: &str) -> &'static str {
    if dir == "seal" {
        "gpu-seal"
    } else {
        "gpu-open"
    }
}

/// Seconds per call of `f`, over `reps` calls.
fn per_call(reps: usize, mut f: impl FnMut() -> Result<f64, String>) -> Result<f64, String> {
    let mut total = 0.0;
    for _ in 0..reps {
        total += f()?;
    }
    Ok(total / reps as f64)
}

/// Seals `reps` batches of `t` with `sealer` (not timed), then opens them
/// in order through `opener` (`sealer` itself when `None`); seconds per
/// opened batch.
fn open_after_seal(
    sealer: &mut Engine,
    opener: Option<&mut Engine>,
    via: Via,
    lanes: &mut [Lane],
    t: &Traffic,
    reps: usize,
) -> Result<f64, String> {
    let mut sets: Vec<Vec<Vec<u8>>> = (0..reps).map(|_| vec![Vec::new(); t.lanes()]).collect();
    for set in &mut sets {
        seal(sealer, Via::Gpu, lanes, t, set)?;
    }
    let opener = opener.unwrap_or(sealer);
    let mut total = 0.0;
    for mut set in sets {
        total += open(opener, via, lanes, t, &mut set, true)?;
    }
    Ok(total / reps as f64)
}

/// One batch size's rows: seal and open, end to end on 4 streams and on 1,
/// the kernels alone, with 20 % decoys, against the library on all cores.
fn curves(
    ctx: &Ctx,
    gpu: &mut Engine,
    one: &mut Engine,
    config: &Config,
    device: &str,
) -> Vec<Row> {
    let mut cpu = Engine::cpu_only(config.clone());
    let mut seal_lanes = lanes(MAX_LANES);
    let mut open_lanes = lanes(MAX_LANES);
    let threads = rayon::current_num_threads();
    let streams = config.streams;
    let mut rows = Vec::new();
    for &b in batches(ctx) {
        let reps = (8192 / b).max(1);
        for decoys in [false, true] {
            let t = Traffic::new(b, MAX_LANES, decoys, b as u64);
            let n = t.lanes();
            let mut outs = vec![Vec::new(); n];
            let mut v: [Vec<f64>; 9] = Default::default();
            let mut fail = None;
            for _ in 0..ctx.samples() {
                let mut step = |k: usize, r: Result<f64, String>| match r {
                    Ok(s) => v[k].push(s),
                    Err(e) => fail = Some(e),
                };
                let lanes = &mut seal_lanes[..n];
                step(
                    0,
                    per_call(reps, || seal(gpu, Via::Gpu, lanes, &t, &mut outs)),
                );
                step(
                    1,
                    per_call(reps, || seal(&mut cpu, Via::Auto, lanes, &t, &mut outs)),
                );
                let olanes = &mut open_lanes[..n];
                step(3, open_after_seal(gpu, None, Via::Gpu, olanes, &t, reps));
                step(
                    4,
                    open_after_seal(gpu, Some(&mut cpu), Via::Auto, olanes, &t, reps),
                );
                if !decoys {
                    step(
                        2,
                        per_call(reps, || seal(one, Via::Gpu, lanes, &t, &mut outs)),
                    );
                    step(
                        5,
                        open_after_seal(gpu, Some(&mut *one), Via::Gpu, olanes, &t, reps),
                    );
                    step(
                        6,
                        per_call(reps, || seal(gpu, Via::Auto, lanes, &t, &mut outs)),
                    );
                    step(7, open_after_seal(gpu, None, Via::Auto, olanes, &t, reps));
                    step(8, per_call(reps, || seal_arena(gpu, lanes, &t, false)));
                }
            }
            if let Some(e) = fail {
                rows.push(
                    Row::new(
                        S,
                        format!("batch of {b}"),
                        "pkt/s",
                        Better::Higher,
                        0.0,
                        "-",
                        None,
                    )
                    .failed(e),
                );
                continue;
            }
            let rate = |v: &mut Vec<f64>| b as f64 / median(v);
            let [g4s, cs, g1s, g4o, co, g1o, autos, autoo, arena] = &mut v;
            let (g4s, cs, g4o, co) = (rate(g4s), rate(cs), rate(g4o), rate(co));
            let kernels = (!decoys).then(|| {
                checks::kernels(
                    gpu,
                    &mut seal_lanes[..n],
                    &mut open_lanes[..n],
                    &t,
                    ctx.samples(),
                )
            });
            let suffix = if decoys { ", 20 % decoys" } else { "" };
            let base = format!("CPU library, all cores ({threads} thr){suffix}");
            for (dir, g4, c) in [("seal", g4s, cs), ("open", g4o, co)] {
                let at = |row: Row, series: String| row.at(plot(dir), series, b as f64);
                let pkt = |what: &str, ours: f64| {
                    Row::new(
                        S,
                        format!("{dir}, batch of {b}{suffix}: {what}"),
                        "pkt/s",
                        Better::Higher,
                        ours,
                        base.clone(),
                        Some(c),
                    )
                };
                rows.push(at(
                    pkt(&format!("GPU end to end, {streams} streams"), g4),
                    format!("GPU end to end, {streams} streams{suffix}"),
                ));
                if decoys {
                    continue;
                }
                if dir == "seal" {
                    rows.push(at(
                        pkt("GPU end to end through an arena", rate(arena)),
                        "GPU end to end through an arena".into(),
                    ));
                }
                let g1 = rate(if dir == "seal" { g1s } else { g1o });
                let auto = rate(if dir == "seal" { autos } else { autoo });
                let (limit, unit) = if dir == "seal" {
                    (gpu.config().min_gpu_batch, "packets")
                } else {
                    (gpu.config().min_gpu_bytes, "bytes")
                };
                let limit = if limit == usize::MAX {
                    "never".to_string()
                } else {
                    format!("{limit} {unit}")
                };
                rows.push(at(
                    Row::new(
                        S,
                        format!("{dir}, batch of {b}: auto path (GPU from {limit})"),
                        "pkt/s",
                        Better::Higher,
                        auto,
                        "the faster of CPU library and GPU end to end",
                        Some(g4.max(c)),
                    ),
                    "auto path".into(),
                ));
                rows.push(at(
                    pkt("GPU end to end, 1 stream", g1),
                    "GPU end to end, 1 stream".into(),
                ));
                match kernels.as_ref().expect("measured without decoys") {
                    Ok((ks, ko)) => {
                        let k = if dir == "seal" { *ks } else { *ko };
                        rows.push(
                            at(
                                pkt("GPU kernels only", b as f64 / k),
                                "GPU kernels only".into(),
                            )
                            .seed("reference 12.8M-21.37M pkt/s: kernel-only, not BIP324"),
                        );
                    }
                    Err(e) => rows.push(pkt("GPU kernels only", 0.0).failed(e.clone())),
                }
                let lib = format!("CPU library {dir}, all cores");
                rows.push(
                    Row::new(
                        S,
                        format!("{dir}, batch of {b}: time per packet, GPU end to end"),
                        "µs",
                        Better::Lower,
                        1e6 / g4,
                        lib.clone(),
                        Some(1e6 / c),
                    )
                    .at(
                        "gpu-latency",
                        format!("GPU {dir}, end to end ({device})"),
                        b as f64,
                    ),
                );
                let gp = t.goodput_per_packet() / 1e6;
                rows.push(
                    Row::new(
                        S,
                        format!("{dir}, batch of {b}: goodput, GPU end to end"),
                        "MB/s",
                        Better::Higher,
                        g4 * gp,
                        lib,
                        Some(c * gp),
                    )
                    .at(
                        "gpu-goodput",
                        format!("GPU {dir}, end to end"),
                        b as f64,
                    ),
                );
            }
        }
    }
    rows
}

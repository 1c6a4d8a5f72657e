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
mod curves;
mod measure;

use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use measure::{lanes, median, open, seal, Lane, Traffic, Via, MAX_LANES};
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
    rows.extend(curves::rows(ctx, &mut gpu, &mut one, &config, &info.name));
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
pub(super) fn per_call(
    reps: usize,
    mut f: impl FnMut() -> Result<f64, String>,
) -> Result<f64, String> {
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

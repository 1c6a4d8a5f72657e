//! The curves: for each batch size, with and without 20 % decoys, seal and
//! open through the GPU end to end on all streams and on one, through an
//! arena, through the engine's own choice, and the kernels alone, beside
//! the library on all cores, samples alternated.

use super::measure::{lanes, median, open_arena, seal, seal_arena, Lane, Traffic, Via, MAX_LANES};
use super::{batches, checks, open_after_seal, per_call, plot, S};
use crate::{Better, Ctx, Row};
use wireseal_gpu::{Config, Engine};

/// The engines and sessions the curves run on.
struct Bench<'a> {
    gpu: &'a mut Engine,
    one: &'a mut Engine,
    cpu: Engine,
    seal_lanes: Vec<Lane>,
    open_lanes: Vec<Lane>,
}

/// One batch's medians in packets/s, by direction ([seal, open]).
#[derive(Default)]
struct Rates {
    gpu: [f64; 2],
    cpu: [f64; 2],
    one_stream: [f64; 2],
    auto: [f64; 2],
    /// Through the arenas ([seal, open]).
    arena: [f64; 2],
    /// Through a seal arena's two sides (each lane's packets in two
    /// halves), from [`TWO_SIDES_FROM`] packets; 0 below.
    two_sides: f64,
}

/// The smallest batch sealed through both sides of an arena as well: below
/// it the second side's fixed costs (a fan-out per step on the engine's
/// threads) outweigh what overlap could save.
const TWO_SIDES_FROM: usize = 32_768;

/// Seconds per batch, by measurement; see [`Bench::sample`].
type Samples = [Vec<f64>; 11];

impl Bench<'_> {
    /// One sample of each measurement of `t` (`reps` batches each); the
    /// ones beyond the first four only without decoys.
    fn sample(
        &mut self,
        t: &Traffic,
        reps: usize,
        decoys: bool,
        v: &mut Samples,
    ) -> Result<(), String> {
        let n = t.lanes();
        let mut outs = vec![Vec::new(); n];
        let (gpu, one, cpu) = (&mut *self.gpu, &mut *self.one, &mut self.cpu);
        let lanes = &mut self.seal_lanes[..n];
        let olanes = &mut self.open_lanes[..n];
        v[0].push(per_call(reps, || seal(gpu, Via::Gpu, lanes, t, &mut outs))?);
        v[1].push(per_call(reps, || {
            seal(cpu, Via::Auto, lanes, t, &mut outs)
        })?);
        v[3].push(open_after_seal(gpu, None, Via::Gpu, olanes, t, reps)?);
        v[4].push(open_after_seal(gpu, Some(cpu), Via::Auto, olanes, t, reps)?);
        if !decoys {
            v[2].push(per_call(reps, || seal(one, Via::Gpu, lanes, t, &mut outs))?);
            v[5].push(open_after_seal(gpu, Some(one), Via::Gpu, olanes, t, reps)?);
            v[6].push(per_call(reps, || {
                seal(gpu, Via::Auto, lanes, t, &mut outs)
            })?);
            v[7].push(open_after_seal(gpu, None, Via::Auto, olanes, t, reps)?);
            v[8].push(per_call(reps, || seal_arena(gpu, lanes, t, false, false))?);
            v[9].push(open_arena_after_seal(gpu, olanes, t, reps)?);
            if t.packets >= TWO_SIDES_FROM {
                v[10].push(per_call(reps, || seal_arena(gpu, lanes, t, true, false))?);
            }
        }
        Ok(())
    }

    /// Every sample of batch `t`, as rates.
    fn rates(&mut self, ctx: &Ctx, t: &Traffic, decoys: bool) -> Result<Rates, String> {
        let b = t.packets;
        let reps = (8192 / b).max(1);
        let mut v = Samples::default();
        for _ in 0..ctx.samples() {
            self.sample(t, reps, decoys, &mut v)?;
        }
        let rate = |v: &mut Vec<f64>| {
            if v.is_empty() {
                0.0
            } else {
                b as f64 / median(v)
            }
        };
        let [g4s, cs, g1s, g4o, co, g1o, autos, autoo, arena_s, arena_o, two] = &mut v;
        Ok(Rates {
            gpu: [rate(g4s), rate(g4o)],
            cpu: [rate(cs), rate(co)],
            one_stream: [rate(g1s), rate(g1o)],
            auto: [rate(autos), rate(autoo)],
            arena: [rate(arena_s), rate(arena_o)],
            two_sides: rate(two),
        })
    }
}

/// Every batch size's rows.
pub(super) fn rows(
    ctx: &Ctx,
    gpu: &mut Engine,
    one: &mut Engine,
    config: &Config,
    device: &str,
) -> Vec<Row> {
    let mut bench = Bench {
        gpu,
        one,
        cpu: Engine::cpu_only(config.clone()),
        seal_lanes: lanes(MAX_LANES),
        open_lanes: lanes(MAX_LANES),
    };
    let mut rows = Vec::new();
    for &b in batches(ctx) {
        for decoys in [false, true] {
            let t = Traffic::new(b, MAX_LANES, decoys, b as u64);
            let rates = match bench.rates(ctx, &t, decoys) {
                Ok(r) => r,
                Err(e) => {
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
            };
            let kernels = (!decoys).then(|| {
                let n = t.lanes();
                let (gpu, seal_lanes, open_lanes) = (
                    &mut *bench.gpu,
                    &mut bench.seal_lanes,
                    &mut bench.open_lanes,
                );
                checks::kernels(
                    gpu,
                    &mut seal_lanes[..n],
                    &mut open_lanes[..n],
                    &t,
                    ctx.samples(),
                )
            });
            let batch = Batch {
                b,
                t: &t,
                rates: &rates,
                decoys,
                streams: config.streams,
                device,
            };
            for dir in [0, 1] {
                rows.extend(batch.rows(dir, bench.gpu.config(), kernels.as_ref()));
            }
        }
    }
    rows
}

/// What one batch size's rows are made of.
struct Batch<'a> {
    b: usize,
    t: &'a Traffic,
    rates: &'a Rates,
    decoys: bool,
    streams: usize,
    device: &'a str,
}

impl Batch<'_> {
    /// The rows of direction `d` (0 seal, 1 open).
    fn rows(
        &self,
        d: usize,
        config: &Config,
        kernels: Option<&Result<(f64, f64), String>>,
    ) -> Vec<Row> {
        let (b, r) = (self.b, self.rates);
        let dir = ["seal", "open"][d];
        let suffix = if self.decoys { ", 20 % decoys" } else { "" };
        let threads = rayon::current_num_threads();
        let base = format!("CPU library, all cores ({threads} thr){suffix}");
        let at = |row: Row, series: &str| row.at(plot(dir), series.to_string(), b as f64);
        let pkt = |what: &str, ours: f64| {
            Row::new(
                S,
                format!("{dir}, batch of {b}{suffix}: {what}"),
                "pkt/s",
                Better::Higher,
                ours,
                base.clone(),
                Some(r.cpu[d]),
            )
        };
        let streams = format!("GPU end to end, {} streams", self.streams);
        let mut rows = vec![at(pkt(&streams, r.gpu[d]), &format!("{streams}{suffix}"))];
        if self.decoys {
            return rows;
        }
        let arena = "GPU end to end through an arena";
        rows.push(at(pkt(arena, r.arena[d]), arena));
        if d == 0 && r.two_sides > 0.0 {
            // Each lane's packets in two halves, the second written while
            // the first is on the device.
            let two = "GPU end to end through an arena's two sides";
            rows.push(at(pkt(two, r.two_sides), two));
        }
        rows.push(at(self.auto_row(d, config), "auto path"));
        rows.push(at(
            pkt("GPU end to end, 1 stream", r.one_stream[d]),
            "GPU end to end, 1 stream",
        ));
        let kernels_row = match kernels.expect("measured without decoys") {
            Ok((ks, ko)) => at(
                pkt("GPU kernels only", b as f64 / [ks, ko][d]),
                "GPU kernels only",
            )
            .seed("reference 12.8M-21.37M pkt/s: kernel-only, not BIP324"),
            Err(e) => pkt("GPU kernels only", 0.0).failed(e.clone()),
        };
        rows.push(kernels_row);
        rows.extend(self.per_packet_rows(d));
        rows
    }

    /// The engine's own choice against the faster of the two paths.
    fn auto_row(&self, d: usize, config: &Config) -> Row {
        let (dir, r) = (["seal", "open"][d], self.rates);
        let (limit, unit) = [
            (config.min_gpu_batch, "packets"),
            (config.min_gpu_bytes, "bytes"),
        ][d];
        let limit = if limit == usize::MAX {
            "never".to_string()
        } else {
            format!("{limit} {unit}")
        };
        Row::new(
            S,
            format!("{dir}, batch of {}: auto path (GPU from {limit})", self.b),
            "pkt/s",
            Better::Higher,
            r.auto[d],
            "the faster of CPU library and GPU end to end",
            Some(r.gpu[d].max(r.cpu[d])),
        )
    }

    /// Time per packet and goodput, GPU end to end against the library.
    fn per_packet_rows(&self, d: usize) -> Vec<Row> {
        let (dir, b, r) = (["seal", "open"][d], self.b, self.rates);
        let (g, c) = (r.gpu[d], r.cpu[d]);
        let lib = format!("CPU library {dir}, all cores");
        let gp = self.t.goodput_per_packet() / 1e6;
        vec![
            Row::new(
                S,
                format!("{dir}, batch of {b}: time per packet, GPU end to end"),
                "µs",
                Better::Lower,
                1e6 / g,
                lib.clone(),
                Some(1e6 / c),
            )
            .at(
                "gpu-latency",
                format!("GPU {dir}, end to end ({})", self.device),
                b as f64,
            ),
            Row::new(
                S,
                format!("{dir}, batch of {b}: goodput, GPU end to end"),
                "MB/s",
                Better::Higher,
                g * gp,
                lib,
                Some(c * gp),
            )
            .at("gpu-goodput", format!("GPU {dir}, end to end"), b as f64),
        ]
    }
}

/// Seconds per open of `t` through an arena of `engine` (the received
/// bytes written into its memory, opened, the packets found), `reps`
/// times, each on wires the library sealed just before.
fn open_arena_after_seal(
    engine: &mut Engine,
    lanes: &mut [Lane],
    t: &Traffic,
    reps: usize,
) -> Result<f64, String> {
    let mut sealer = Engine::cpu_only(Config::default());
    let mut total = 0.0;
    for _ in 0..reps {
        let mut wires = vec![Vec::new(); t.lanes()];
        seal(&mut sealer, Via::Auto, lanes, t, &mut wires)?;
        total += open_arena(engine, lanes, t, &wires, false)?.0;
    }
    Ok(total / reps as f64)
}

//! The engine: the CPU or the GPU for each batch, the chunk pipeline over
//! the device's streams, and the fallback threshold's measurement.

use crate::config::Config;
use crate::cpu;
use crate::exec::{DeviceError, DeviceInfo, Executor, Unavailable};
use crate::jobs::{Outgoing, SealJob};
use crate::layout::Regions;
use crate::plan::{Chunk, Limits};
use crate::work::{OpenWork, SealWork, Work};
use std::collections::VecDeque;
use std::time::{Duration, Instant};
use wireseal::batch::Batch;
use wireseal::bip324::batch::{OpenJob, OpenedRange};
use wireseal::bip324::{PacketReceiver, PacketSender, OVERHEAD};

/// Where a batch ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// Through the library on the CPU (below the threshold, or no device).
    Cpu,
    /// On the GPU (what it did not finish, through the library).
    Gpu,
}

/// What one batch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Where it ran.
    pub path: Path,
    /// Packets the batch asked for (seal) or wire bytes it held (open), as
    /// [`Engine::seal`] and [`Engine::open`] count them for the threshold.
    pub requested: usize,
    /// Packets the GPU sealed or opened and the jobs took.
    pub gpu_packets: usize,
    /// Chunks sent to the device.
    pub chunks: usize,
    /// The device failed during this batch (it was finished on the CPU, and
    /// later batches run there).
    pub device_error: Option<DeviceError>,
    /// Jobs where the library opened a packet the GPU had failed: an engine
    /// fault (the library's result stands). Zero in every test.
    pub disagreements: usize,
    /// Where a GPU batch's time went (zero for a CPU batch).
    pub phases: Phases,
}

/// Where a GPU batch's time went, on the calling thread's clock. The host's
/// share is `shape + cut + fill + scatter + finish`; `submit` is queueing
/// copies and launches, `wait` the time the host waited for the device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Phases {
    /// Reading each job's share (its state; for an open, a packet whose
    /// length the receiver had already read, opened by the library).
    pub shape: Duration,
    /// Cutting chunks.
    pub cut: Duration,
    /// Writing descriptors and packets into the staging buffers.
    pub fill: Duration,
    /// Queueing copies and kernels.
    pub submit: Duration,
    /// Waiting for chunks to come back.
    pub wait: Duration,
    /// Handing results to the jobs.
    pub scatter: Duration,
    /// Finishing jobs through the library (what the GPU did not finish).
    pub finish: Duration,
}

/// A BIP324 batch engine (see the [crate docs](crate)).
pub struct Engine {
    pub(crate) config: Config,
    pub(crate) device: Result<Box<dyn Executor>, Unavailable>,
    pub(crate) batch: Batch,
    /// The list of the last [`crate::SealArena`]'s packets, for the next.
    pub(crate) arena_spare: Vec<crate::layout::Reserved>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.config)
            .field("device", &self.device().map_err(|e| e.to_string()))
            .finish()
    }
}

impl Engine {
    /// An engine on CUDA device `config.device` when one can be used (a
    /// driver, NVRTC and the device; the kernels are compiled here, once),
    /// else on the CPU alone; [`Engine::device`] says which, and why.
    pub fn new(config: Config) -> Self {
        let device =
            crate::cuda::Cuda::open(&config.sane()).map(|c| Box::new(c) as Box<dyn Executor>);
        Self::with(config, device)
    }

    /// An engine that runs every batch through the library on the CPU.
    pub fn cpu_only(config: Config) -> Self {
        Self::with(config, Err(Unavailable::Disabled))
    }

    pub(crate) fn with(config: Config, device: Result<Box<dyn Executor>, Unavailable>) -> Self {
        let batch = match config.host_threads {
            0 => Batch::all_cores(),
            n => Batch::with_threads(n),
        };
        Self {
            config,
            device,
            batch,
            arena_spare: Vec::new(),
        }
    }

    /// The device batches go to, or why there is none.
    ///
    /// # Errors
    ///
    /// [`Unavailable`] with the reason (no driver, no device, NVRTC missing,
    /// the kernels did not compile, a device error in an earlier batch).
    pub fn device(&self) -> Result<DeviceInfo, &Unavailable> {
        self.device.as_ref().map(|d| d.info())
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Sets [`Config::min_gpu_batch`].
    pub fn set_min_gpu_batch(&mut self, packets: usize) {
        self.config.min_gpu_batch = packets;
    }

    /// Sets [`Config::min_gpu_bytes`].
    pub fn set_min_gpu_bytes(&mut self, bytes: usize) {
        self.config.min_gpu_bytes = bytes;
    }

    /// The device's executor, or why there is none.
    #[cfg_attr(not(feature = "bench"), allow(dead_code))]
    pub(crate) fn executor(&mut self) -> Result<&mut dyn Executor, &Unavailable> {
        match &mut self.device {
            Ok(e) => Ok(e.as_mut()),
            Err(why) => Err(why),
        }
    }

    /// The chunk limits for a batch of about `packets` packets: small
    /// batches cut bodies into smaller parts, so that more threads share a
    /// packet and the batch's latency falls (a device that is mostly idle
    /// anyway); large ones use [`Config::task_bytes`], which costs less
    /// work per byte.
    pub(crate) fn limits(&self, packets: usize) -> Limits {
        let c = self.config.sane();
        let small = match packets {
            // A handful of packets: one part each where it can, so that
            // each packet is one thread of one launch.
            0..=WHOLE_PACKETS_UP_TO => c.task_bytes,
            _ if packets <= SMALLEST_PARTS_UP_TO => 64,
            _ if packets <= SMALL_PARTS_UP_TO => 128,
            _ => c.task_bytes,
        };
        Limits {
            packets: c.chunk_packets,
            bytes: c.chunk_bytes,
            task_bytes: small.min(c.task_bytes),
        }
    }

    /// Seals every job (each job's `result`, `out` and sender end as the
    /// library's batch seal leaves them). Never fails: a device error is
    /// reported and the batch is finished on the CPU.
    ///
    /// The choice of path, and the CPU path, are inlined into the caller
    /// (as is [`Engine::open`]'s): a batch under the threshold then costs
    /// what the library's batch call costs, with no call and no [`Report`]
    /// copied through the stack in between.
    #[inline]
    pub fn seal(&mut self, jobs: &mut [SealJob<'_>]) -> Report {
        let n = jobs.iter().map(|j| j.packets.len()).sum();
        if self.choose(n) == Path::Cpu {
            cpu::seal_all(&self.batch, jobs);
            return Report::cpu(n);
        }
        let mut r = self.seal_on(jobs, Path::Gpu);
        r.requested = n;
        r
    }

    /// Opens every job in place (each job's `result`, `opened`, wire bytes
    /// and receiver end as the library's batch open leaves them). Never
    /// fails: a device error is reported and the batch is finished on the
    /// CPU.
    #[inline]
    pub fn open(&mut self, jobs: &mut [OpenJob<'_>]) -> Report {
        let bytes: usize = jobs.iter().map(|j| j.wire.len()).sum();
        if self.device.is_err() || bytes < self.config.min_gpu_bytes {
            cpu::open_all(&self.batch, jobs);
            return Report::cpu(bytes);
        }
        let mut r = self.open_on(jobs, Path::Gpu);
        r.requested = bytes;
        r
    }

    #[inline]
    fn choose(&self, packets: usize) -> Path {
        if self.device.is_ok() && packets >= self.config.min_gpu_batch {
            Path::Gpu
        } else {
            Path::Cpu
        }
    }

    pub(crate) fn seal_on(&mut self, jobs: &mut [SealJob<'_>], path: Path) -> Report {
        if path == Path::Cpu || self.device.is_err() {
            cpu::seal_all(&self.batch, jobs);
            return Report::cpu(0);
        }
        let n = jobs.iter().map(|j| j.packets.len()).sum();
        let lim = self.limits(n);
        let t = Instant::now();
        let mut work = SealWork::new(&self.batch, jobs, lim);
        let shape = t.elapsed();
        self.run(&mut work, lim.task_bytes, shape)
    }

    pub(crate) fn open_on(&mut self, jobs: &mut [OpenJob<'_>], path: Path) -> Report {
        if path == Path::Cpu || self.device.is_err() {
            cpu::open_all(&self.batch, jobs);
            return Report::cpu(0);
        }
        let n = jobs.iter().map(|j| j.wire.len() / OVERHEAD).sum();
        let lim = self.limits(n);
        let t = Instant::now();
        let mut work = OpenWork::new(&self.batch, jobs, lim);
        let shape = t.elapsed();
        self.run(&mut work, lim.task_bytes, shape)
    }

    fn run(&mut self, work: &mut dyn Work, task_bytes: u32, shape: Duration) -> Report {
        let Ok(exec) = self.device.as_mut() else {
            unreachable!("checked by the caller")
        };
        let mut phases = Phases {
            shape,
            ..Phases::default()
        };
        let outcome = pipeline(exec.as_mut(), &self.batch, work, task_bytes, &mut phases);
        let (chunks, device_error) = match outcome {
            Ok(c) => (c, None),
            Err(e) => {
                self.device = Err(Unavailable::AfterError(e.clone()));
                (0, Some(e))
            }
        };
        let t = Instant::now();
        let disagreements = work.finish(&self.batch);
        phases.finish = t.elapsed();
        Report {
            path: Path::Gpu,
            requested: 0,
            gpu_packets: work.committed(),
            chunks,
            device_error,
            disagreements,
            phases,
        }
    }

    /// Measures where the GPU starts to pay on this device: seals, then
    /// opens, batches of mixed-profile packets (`sizes`, cycled) over
    /// `pairs` (a sender and the receiver of its peer each) through the
    /// library on the CPU and through the GPU, alternately, and sets
    /// [`Config::min_gpu_batch`] (seal) and [`Config::min_gpu_bytes`] (open)
    /// to the smallest measured batch from which the GPU is faster at every
    /// larger size (`usize::MAX` when it never is). A batch is spread over
    /// as many of the pairs as it has packets, so give as many as the
    /// application's batches have sessions: the host's share depends on
    /// it. The pairs' sessions move on.
    ///
    /// # Errors
    ///
    /// [`Unavailable`] when there is no device; nothing is changed then.
    pub fn calibrate(
        &mut self,
        pairs: &mut [(PacketSender, PacketReceiver)],
        sizes: &[u32],
    ) -> Result<Calibration, Unavailable> {
        if let Err(e) = &self.device {
            return Err(e.clone());
        }
        let mut points = Vec::new();
        for &b in &CALIBRATION_BATCHES {
            // [path][seal, open]
            let mut t = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
            for rep in 0..CALIBRATION_REPS {
                let order = if rep % 2 == 0 { [0, 1] } else { [1, 0] };
                for k in order {
                    let path = [Path::Cpu, Path::Gpu][k];
                    let (seal, open) = self.round_trip(pairs, sizes, b, path);
                    t[k][0].push(seal);
                    t[k][1].push(open);
                }
            }
            let med = |v: &mut Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let [[cs, co], [gs, go]] = &mut t;
            points.push(CalibrationPoint {
                packets: b,
                cpu_seal_seconds: med(cs),
                gpu_seal_seconds: med(gs),
                cpu_open_seconds: med(co),
                gpu_open_seconds: med(go),
            });
        }
        let crossover = |gpu_slower: &dyn Fn(&CalibrationPoint) -> bool| {
            points
                .iter()
                .rposition(gpu_slower)
                .map_or(CALIBRATION_BATCHES[0], |i| {
                    CALIBRATION_BATCHES
                        .get(i + 1)
                        .copied()
                        .unwrap_or(usize::MAX)
                })
        };
        let seal = crossover(&|p| p.gpu_seal_seconds >= p.cpu_seal_seconds);
        let open = crossover(&|p| p.gpu_open_seconds >= p.cpu_open_seconds);
        // Open batches are routed by their wire bytes: the packets at the
        // crossover times the profile's mean packet on the wire.
        let mean_wire =
            sizes.iter().map(|&s| s as usize + OVERHEAD).sum::<usize>() / sizes.len().max(1);
        let open_bytes = open.saturating_mul(mean_wire.max(OVERHEAD));
        self.config.min_gpu_batch = seal;
        self.config.min_gpu_bytes = open_bytes;
        Ok(Calibration {
            points,
            min_gpu_batch: seal,
            min_gpu_bytes: open_bytes,
        })
    }

    /// Seconds for one batch of `b` packets over `pairs`: the seal, then
    /// the open of what it sealed.
    fn round_trip(
        &mut self,
        pairs: &mut [(PacketSender, PacketReceiver)],
        sizes: &[u32],
        b: usize,
        path: Path,
    ) -> (f64, f64) {
        let lanes = b.min(pairs.len()).max(1);
        let per: Vec<Vec<Outgoing>> = (0..lanes)
            .map(|l| {
                (l..b)
                    .step_by(lanes)
                    .map(|i| Outgoing::genuine(sizes[i % sizes.len()]))
                    .collect()
            })
            .collect();
        let contents: Vec<Vec<u8>> = per
            .iter()
            .map(|p| vec![0x5a; p.iter().map(|o| o.len as usize).sum()])
            .collect();
        let mut outs: Vec<Vec<u8>> = vec![Vec::new(); lanes];
        let mut opened: Vec<Vec<OpenedRange>> = vec![Vec::new(); lanes];
        let (senders, receivers): (Vec<_>, Vec<_>) =
            pairs[..lanes].iter_mut().map(|(s, r)| (s, r)).unzip();
        let mut seal: Vec<SealJob<'_>> = senders
            .into_iter()
            .zip(&per)
            .zip(&contents)
            .zip(outs.iter_mut())
            .map(|(((sender, packets), contents), out)| SealJob {
                sender,
                contents,
                packets,
                out,
                result: Ok(0),
            })
            .collect();
        let t = Instant::now();
        self.seal_on(&mut seal, path);
        let sealed = t.elapsed().as_secs_f64();
        drop(seal);
        let mut open: Vec<OpenJob<'_>> = receivers
            .into_iter()
            .zip(outs.iter_mut())
            .zip(opened.iter_mut())
            .map(|((receiver, wire), opened)| OpenJob {
                receiver,
                wire,
                opened,
                result: Ok(0),
            })
            .collect();
        let t = Instant::now();
        self.open_on(&mut open, path);
        (sealed, t.elapsed().as_secs_f64())
    }
}

/// Batches of at most this many packets keep [`Config::task_bytes`].
const WHOLE_PACKETS_UP_TO: usize = 8;
/// Larger batches of at most this many packets cut bodies into 64-byte
/// parts.
const SMALLEST_PARTS_UP_TO: usize = 256;
/// Batches of at most this many packets cut bodies into 128-byte parts.
const SMALL_PARTS_UP_TO: usize = 4096;

/// Batch sizes [`Engine::calibrate`] measures.
pub const CALIBRATION_BATCHES: [usize; 10] = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 131_072];
const CALIBRATION_REPS: usize = 5;

/// One measured batch size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationPoint {
    /// Packets in the batch.
    pub packets: usize,
    /// Median seconds to seal it through the library on the CPU.
    pub cpu_seal_seconds: f64,
    /// The same through the GPU.
    pub gpu_seal_seconds: f64,
    /// Median seconds to open it through the library on the CPU.
    pub cpu_open_seconds: f64,
    /// The same through the GPU.
    pub gpu_open_seconds: f64,
}

/// What [`Engine::calibrate`] measured and chose.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// Each batch size's times.
    pub points: Vec<CalibrationPoint>,
    /// The seal threshold chosen (packets).
    pub min_gpu_batch: usize,
    /// The open threshold chosen (wire bytes).
    pub min_gpu_bytes: usize,
}

impl Report {
    #[inline]
    fn cpu(requested: usize) -> Self {
        Self {
            path: Path::Cpu,
            requested,
            gpu_packets: 0,
            chunks: 0,
            device_error: None,
            disagreements: 0,
            phases: Phases::default(),
        }
    }
}

/// Runs every chunk of `work` through `exec`'s slots, a chunk's buffer
/// reused once the chunk submitted `slots` chunks earlier is handed back;
/// returns the number of chunks.
fn pipeline(
    exec: &mut dyn Executor,
    batch: &Batch,
    work: &mut dyn Work,
    task_bytes: u32,
    ph: &mut Phases,
) -> Result<usize, DeviceError> {
    let lap = |since: &mut Instant| {
        let now = Instant::now();
        let d = now - *since;
        *since = now;
        d
    };
    let slots = exec.slots().max(1);
    let mut in_flight: VecDeque<(usize, Chunk, Regions)> = VecDeque::with_capacity(slots);
    let mut spare: Vec<Chunk> = Vec::new();
    let mut chunks = 0usize;
    let dir = work.direction();
    let mut t = Instant::now();
    loop {
        let mut plan = spare.pop().unwrap_or_default();
        let more = work.plan(&mut plan);
        ph.cut += lap(&mut t);
        if !more {
            break;
        }
        let slot = chunks % slots;
        if in_flight.len() == slots {
            let (s, done, r) = in_flight.pop_front().expect("a chunk in flight");
            debug_assert_eq!(s, slot);
            let out = exec.finish(s, &r)?;
            ph.wait += lap(&mut t);
            work.scatter(batch, &done, &r, out);
            ph.scatter += lap(&mut t);
            spare.push(done);
        }
        let bound = work.bound(&plan).total();
        let buf = exec.input(slot, bound)?;
        let r = work.fill(batch, &mut plan, buf);
        ph.fill += lap(&mut t);
        exec.submit(slot, dir, &r, &plan.counts, task_bytes)?;
        ph.submit += lap(&mut t);
        in_flight.push_back((slot, plan, r));
        chunks += 1;
    }
    while let Some((s, done, r)) = in_flight.pop_front() {
        let out = exec.finish(s, &r)?;
        ph.wait += lap(&mut t);
        work.scatter(batch, &done, &r, out);
        ph.scatter += lap(&mut t);
    }
    Ok(chunks)
}

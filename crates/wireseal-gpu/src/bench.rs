//! Entry points for `wireseal bench` (feature `bench`): the GPU path forced
//! at any batch size, the kernels timed alone, and the host side of the GPU
//! path timed without a device. Not API for applications.

use crate::engine::{Engine, Path, Report};
use crate::exec::{DeviceError, DeviceInfo, Direction, Executor};
use crate::jobs::SealJob;
use crate::layout::{run_count, Args, Counts, Kernel, Regions, RUN_DESC, RUN_LENS};
use crate::plan::{Chunk, Limits};
use crate::work::{OpenWork, SealWork, Work};
use crate::Config;
use wireseal::batch::Batch;
use wireseal::bip324::batch::OpenJob;
use wireseal::bip324::OVERHEAD;

impl Engine {
    /// Seals on the GPU whatever the batch size (as [`Engine::seal`] does
    /// above the threshold).
    pub fn seal_on_gpu(&mut self, jobs: &mut [SealJob<'_>]) -> Report {
        self.seal_on(jobs, Path::Gpu)
    }

    /// Opens on the GPU whatever the batch size.
    pub fn open_on_gpu(&mut self, jobs: &mut [OpenJob<'_>]) -> Report {
        self.open_on(jobs, Path::Gpu)
    }

    /// Median seconds of the seal kernels alone over all of `jobs`' packets
    /// in one chunk already on the device (`runs` runs). Nothing is handed
    /// back: the jobs and the sessions are unchanged.
    ///
    /// # Errors
    ///
    /// No device, or a CUDA error.
    pub fn kernel_seconds_seal(
        &mut self,
        jobs: &mut [SealJob<'_>],
        runs: usize,
    ) -> Result<f64, DeviceError> {
        let lim = self.whole_batch(jobs.iter().map(|j| j.packets.len()).sum());
        let mut work = SealWork::new(&Batch::all_cores(), jobs, lim);
        self.time_one_chunk(&mut work, runs, lim.task_bytes)
    }

    /// The same for opening `jobs`' packets (each run on the packets as
    /// received).
    ///
    /// # Errors
    ///
    /// No device, or a CUDA error.
    pub fn kernel_seconds_open(
        &mut self,
        jobs: &mut [OpenJob<'_>],
        runs: usize,
    ) -> Result<f64, DeviceError> {
        let lim = self.whole_batch(jobs.iter().map(|j| j.wire.len() / OVERHEAD).sum());
        let mut work = OpenWork::new(&Batch::all_cores(), jobs, lim);
        self.time_one_chunk(&mut work, runs, lim.task_bytes)
    }

    /// The limits the engine uses for a batch of `packets`, the whole
    /// batch in one chunk.
    fn whole_batch(&self, packets: usize) -> Limits {
        Limits {
            packets: usize::MAX,
            bytes: usize::MAX,
            ..self.limits(packets)
        }
    }

    fn time_one_chunk(
        &mut self,
        work: &mut dyn Work,
        runs: usize,
        task_bytes: u32,
    ) -> Result<f64, DeviceError> {
        let dir = work.direction();
        let exec = self.executor().map_err(|e| DeviceError(e.to_string()))?;
        let mut plan = Chunk::default();
        if !work.plan(&mut plan) {
            return Ok(0.0);
        }
        let bound = work.bound(&plan).total();
        let buf = exec.input(0, bound)?;
        let r = work.fill(&Batch::all_cores(), &mut plan, buf);
        let t = exec.time_kernels(0, dir, &r, &plan.counts, task_bytes, runs.max(1));
        // Wipes the key table from the staging buffer and the device.
        exec.finish(0, &r)?;
        t
    }

    /// The device's floor with no work: seconds to queue one empty kernel,
    /// and seconds for 64 bytes in, an empty kernel, 64 bytes out and a
    /// wait (medians of `runs`).
    ///
    /// # Errors
    ///
    /// No device, or a CUDA error.
    pub fn device_floor(&mut self, runs: usize) -> Result<(f64, f64), DeviceError> {
        let exec = self.executor().map_err(|e| DeviceError(e.to_string()))?;
        exec.floor(runs)
    }

    /// An engine whose "device" copies nothing and runs no cipher: it
    /// reports every packet sealed, or verified, as it stands. An open's
    /// packets are found by the framing kernels built for the host (the
    /// device's work, timed in [`crate::Phases::submit`], which the host
    /// side's figure leaves out). Its output is not BIP324 (sealed packets
    /// are left unencrypted, opened ones undecrypted) and its sessions
    /// move on as if it were; it exists to time the host side of the GPU
    /// path (planning, staging, handing back) on a machine without a
    /// device.
    pub fn host_side_only_for_timing(config: Config) -> Self {
        let slots = config.sane().streams;
        Engine::with(
            config,
            Ok(Box::new(NoKernels {
                slots: (0..slots).map(|_| Vec::new()).collect(),
            })),
        )
    }
}

struct NoKernels {
    slots: Vec<Vec<u8>>,
}

impl Executor for NoKernels {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: "none (host side only, for timing)".into(),
            compute_capability: (0, 0),
            multiprocessors: 0,
            memory: 0,
            driver_version: 0,
            nvrtc_version: (0, 0),
        }
    }

    fn slots(&self) -> usize {
        self.slots.len()
    }

    fn input(&mut self, slot: usize, len: usize) -> Result<&mut [u8], DeviceError> {
        let b = &mut self.slots[slot];
        if b.len() < len {
            b.resize(len, 0);
        }
        Ok(&mut b[..len])
    }

    fn submit(
        &mut self,
        slot: usize,
        _: Direction,
        r: &Regions,
        c: &Counts,
        task_bytes: u32,
    ) -> Result<(), DeviceError> {
        if !r.is_framed() {
            return Ok(());
        }
        let buf = &mut self.slots[slot];
        let args = Args::new(buf.as_mut_ptr() as u64, 0, r, c, task_bytes);
        crate::host::run(Kernel::OpenFrame, args, 1, 1);
        // Every packet found reported verified: status 1 in the top byte
        // of its length's entry.
        for k in 0..r.runs.len() / RUN_DESC {
            let run = &buf[r.runs.start + k * RUN_DESC..][..RUN_DESC];
            let word = |at: usize| u32::from_le_bytes(run[at..at + 4].try_into().expect("4 bytes"));
            let (first, count) = (word(RUN_LENS) as usize, run_count(run) as usize);
            let at = r.lens.start + 4 * first;
            for e in buf[at..at + 4 * count].chunks_exact_mut(4) {
                e[3] = 1;
            }
        }
        Ok(())
    }

    fn finish(&mut self, slot: usize, r: &Regions) -> Result<&[u8], DeviceError> {
        self.slots[slot][r.keys.clone()].fill(0);
        Ok(&self.slots[slot][..r.total()])
    }

    fn output(&mut self, slot: usize) -> Result<&[u8], DeviceError> {
        Ok(&self.slots[slot])
    }

    fn time_kernels(
        &mut self,
        _: usize,
        _: Direction,
        _: &Regions,
        _: &Counts,
        _: u32,
        _: usize,
    ) -> Result<f64, DeviceError> {
        Ok(0.0)
    }
}

//! What runs a chunk's kernels: the CUDA device (src/cuda.rs) or, in the
//! tests, the kernels built for the host. Each slot is an independent
//! stream with its own buffers.

pub(crate) use crate::direction::Direction;
use crate::layout::{Counts, Regions};

/// A CUDA call failed while a batch ran. The batch was finished on the CPU
/// and the engine uses the CPU from then on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("CUDA error: {0}")]
pub struct DeviceError(pub String);

/// Why the engine has no device (it runs every batch on the CPU).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unavailable {
    /// The NVIDIA driver's `libcuda.so` could not be loaded.
    #[error("no CUDA device (the NVIDIA driver's libcuda.so is not installed)")]
    NoDriver,
    /// The driver lists no device, or not the one asked for.
    #[error("no CUDA device ({0})")]
    NoDevice(String),
    /// The engine was made CPU-only ([`crate::Engine::cpu_only`]).
    #[error("CPU only, by request")]
    Disabled,
    /// A device error in an earlier batch turned the device off.
    #[error("disabled after a device error: {0}")]
    AfterError(DeviceError),
    /// NVRTC's library was not found, or the one found does not work (a
    /// CUDA `stubs` folder on the loader's path, say).
    #[error("NVRTC: {0}")]
    NoNvrtc(String),
    /// NVRTC did not compile the kernels.
    #[error(
        "NVRTC {version_major}.{version_minor} ({library}) did not compile the kernels: {log}"
    )]
    Compile {
        /// The library loaded, as the loader found it.
        library: String,
        /// NVRTC's major version.
        version_major: u32,
        /// NVRTC's minor version.
        version_minor: u32,
        /// NVRTC's log (at most 64 KiB of it).
        log: String,
    },
    /// A CUDA call failed while the device was being set up.
    #[error("{what}: {why}")]
    Setup {
        /// The step.
        what: &'static str,
        /// What the driver said.
        why: String,
    },
}

impl Unavailable {
    /// There is no driver or no device (what a machine without a GPU
    /// gives), as opposed to a device that is there but cannot be used.
    pub fn is_no_device(&self) -> bool {
        matches!(self, Self::NoDriver | Self::NoDevice(_))
    }
}

/// The device a batch engine runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's name (`NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Device memory in bytes.
    pub memory: u64,
    /// The driver's CUDA version (13000 for 13.0).
    pub driver_version: u32,
    /// NVRTC's version (major, minor).
    pub nvrtc_version: (u32, u32),
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.driver_version;
        write!(
            f,
            "{} (sm_{}{}, {} SMs, {:.0} GiB; driver CUDA {}.{}, NVRTC {}.{})",
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.multiprocessors,
            self.memory as f64 / f64::from(1u32 << 30),
            v / 1000,
            (v % 1000) / 10,
            self.nvrtc_version.0,
            self.nvrtc_version.1
        )
    }
}

/// Runs chunks.
pub(crate) trait Executor: Send {
    /// The device.
    fn info(&self) -> DeviceInfo;
    /// Independent slots (streams).
    fn slots(&self) -> usize;
    /// The slot's staging buffer, at least `len` bytes; its previous work
    /// has finished.
    fn input(&mut self, slot: usize, len: usize) -> Result<&mut [u8], DeviceError>;
    /// Starts the slot's chunk: copy in, the kernels, copy out.
    fn submit(
        &mut self,
        slot: usize,
        dir: Direction,
        r: &Regions,
        c: &Counts,
        task_bytes: u32,
    ) -> Result<(), DeviceError>;
    /// Waits for the slot's chunk and wipes its key table (`r.keys`) from
    /// the staging buffer and the device; returns the buffer whose status
    /// and data regions hold the chunk's results, laid out as `r`.
    fn finish(&mut self, slot: usize, r: &Regions) -> Result<&[u8], DeviceError>;
    /// The slot's output buffer as its last chunk left it (data and status
    /// laid out as that chunk's regions).
    fn output(&mut self, slot: usize) -> Result<&[u8], DeviceError>;
    /// What the device costs with no work: seconds to queue one empty
    /// kernel (the host's part of a launch), and seconds for a round trip
    /// (64 bytes in, the empty kernel, 64 bytes out, a wait), medians of
    /// `runs`.
    #[cfg_attr(not(feature = "bench"), allow(dead_code))]
    fn floor(&mut self, _runs: usize) -> Result<(f64, f64), DeviceError> {
        Ok((0.0, 0.0))
    }
    /// Seconds per run of the kernels alone on the slot's chunk, its data
    /// (and an open's totals) restored before each run (the chunk was
    /// filled by `input`).
    #[cfg_attr(not(feature = "bench"), allow(dead_code))]
    fn time_kernels(
        &mut self,
        slot: usize,
        dir: Direction,
        r: &Regions,
        c: &Counts,
        task_bytes: u32,
        runs: usize,
    ) -> Result<f64, DeviceError>;
}

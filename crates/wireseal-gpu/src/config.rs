//! How the engine splits work between the CPU and the GPU, and how it feeds
//! the GPU.

/// The default [`Config::min_gpu_batch`]: batches of fewer packets run on
/// the CPU.
///
/// Not yet measured on a device. It comes from the CPU side measured on the
/// development machine (the library seals and opens a mixed-profile packet
/// in about 0.35–0.8 µs per core) against a GPU round trip of a small batch
/// (two copies, two or three kernel launches and a synchronisation, about
/// 20–40 µs on current PCIe GPUs; the reference system's 64-packet batch took
/// 32 µs): a 16-core host's CPU path finishes about 1,000 packets in that
/// time. [`crate::Engine::calibrate`] measures the crossover on the device in
/// hand and replaces it; `wireseal bench --section gpu` reports that
/// measurement, and `WIRESEAL_GPU_MIN_BATCH` overrides the default.
pub const DEFAULT_MIN_GPU_BATCH: usize = 1024;

/// The default [`Config::min_gpu_bytes`]: [`DEFAULT_MIN_GPU_BATCH`] packets
/// of the mixed profile's mean size on the wire (about 384 bytes).
pub const DEFAULT_MIN_GPU_BYTES: usize = DEFAULT_MIN_GPU_BATCH * 384;

/// Engine settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Batches of fewer packets (over all their jobs) run on the CPU, where
    /// a GPU round trip would cost more than it saves. See
    /// [`DEFAULT_MIN_GPU_BATCH`] and [`crate::Engine::calibrate`].
    pub min_gpu_batch: usize,
    /// Open batches of fewer wire bytes (over all their jobs) run on the
    /// CPU: an open's packets are only known once their lengths are read,
    /// so it is routed by its bytes. See [`DEFAULT_MIN_GPU_BYTES`] and
    /// [`crate::Engine::calibrate`].
    pub min_gpu_bytes: usize,
    /// CUDA streams (each with its own pinned buffers): chunks on different
    /// streams overlap their copies and kernels. 1 runs chunks one after
    /// another.
    pub streams: usize,
    /// Most packets in one chunk (one copy in, one set of kernels, one copy
    /// out).
    pub chunk_packets: usize,
    /// Most data bytes in one chunk (a single larger packet gets a chunk of
    /// its own).
    pub chunk_bytes: usize,
    /// Bytes of a packet body one GPU thread handles (a multiple of 64):
    /// larger packets are split over several threads.
    pub task_bytes: u32,
    /// The CUDA device's ordinal.
    pub device: usize,
    /// Threads for the host's share of the work and the CPU path (the
    /// library's batch): 0 for every core.
    pub host_threads: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            min_gpu_batch: DEFAULT_MIN_GPU_BATCH,
            min_gpu_bytes: DEFAULT_MIN_GPU_BYTES,
            streams: 4,
            chunk_packets: 16 * 1024,
            chunk_bytes: 16 << 20,
            task_bytes: 512,
            device: 0,
            host_threads: 0,
        }
    }
}

impl Config {
    /// The defaults, with `WIRESEAL_GPU_MIN_BATCH`, `WIRESEAL_GPU_MIN_BYTES`
    /// and `WIRESEAL_GPU_STREAMS` applied when set to a number.
    pub fn from_env() -> Self {
        let mut c = Self::default();
        let num = |name: &str| std::env::var(name).ok()?.trim().parse::<usize>().ok();
        if let Some(n) = num("WIRESEAL_GPU_MIN_BATCH") {
            c.min_gpu_batch = n;
        }
        if let Some(n) = num("WIRESEAL_GPU_MIN_BYTES") {
            c.min_gpu_bytes = n;
        }
        if let Some(n) = num("WIRESEAL_GPU_STREAMS") {
            c.streams = n.max(1);
        }
        c
    }

    /// The settings the engine runs with: at least one stream, one packet
    /// per chunk and 64 task bytes, task bytes a multiple of 64.
    pub(crate) fn sane(&self) -> Self {
        Self {
            streams: self.streams.max(1),
            chunk_packets: self.chunk_packets.max(1),
            chunk_bytes: self.chunk_bytes.max(1),
            task_bytes: (self.task_bytes.max(64) / 64) * 64,
            ..self.clone()
        }
    }
}

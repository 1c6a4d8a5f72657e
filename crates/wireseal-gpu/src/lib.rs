//! Batch engines for wireseal's wire formats on CUDA GPUs. One today:
//! [`Engine`], BIP324 v2 packets (FSChaCha20 lengths, FSChaCha20Poly1305
//! bodies, the rekey every 224 messages, decoys and the header byte) sealed
//! and opened for many sessions in one batch, byte for byte what the
//! library's [`PacketSender`](wireseal::bip324::PacketSender) and
//! [`PacketReceiver`](wireseal::bip324::PacketReceiver) produce, with every
//! session's state left exactly where the library's own calls leave it.
//!
//! # How a batch runs
//!
//! A batch is a list of jobs in the library's batch shape: a [`SealJob`]
//! is one session's sender and a run of packets to seal (each genuine or a
//! decoy, [`Outgoing`]); an [`OpenJob`] is one session's receiver and a run
//! of wire bytes, opened in place (both the library's own
//! [`wireseal::bip324::batch`] jobs). Packets of a job are sealed and
//! opened in the session's order.
//!
//! * Seal batches of fewer than [`Config::min_gpu_batch`] packets, open
//!   batches of fewer than [`Config::min_gpu_bytes`] wire bytes, and every
//!   batch when no device is present, run through the library's batch on
//!   the CPU: the fallback. [`Engine::calibrate`] measures both thresholds
//!   on the device in hand.
//! * Larger batches go to the GPU. The host takes each session's exported
//!   state ([`wireseal::bip324::state`]). For a seal it writes each
//!   packet's descriptor (its key entry, nonce index and length-keystream
//!   position) straight into pinned staging memory, so every packet is
//!   independent on the device. For an open it copies each session's
//!   received bytes in whole, with its keys and positions, and the device
//!   finds the packets: one thread a session decrypts the lengths in order
//!   and derives the later epochs' keys, then every packet is independent. Chunks go to the device on
//!   several streams at once, so one chunk's copies overlap another's
//!   kernels. As each chunk comes back its packets are handed to the jobs
//!   and the sessions are moved forward by exactly what was sealed or
//!   verified ([`PacketSender::advance`](wireseal::bip324::PacketSender::advance)).
//!   [`Report::phases`] says where the time went.
//! * What the GPU does not finish goes back to the library, from the exact
//!   point the GPU reached: the first packet whose tag failed (the library
//!   fails it, wipes it and poisons the receiver, and no later packet of
//!   that session is released), a partial packet or a length over the limit
//!   at the end of a run, a key schedule that runs out, contents that do not
//!   match their sizes, or a device error. A job's `result` and output are
//!   therefore always the library's.
//!
//! The kernels are CUDA C (`kernel/`), compiled by NVRTC on the device's
//! first use; the library itself holds no CUDA code and no `unsafe`. The
//! same kernel source is built for the host in this crate's tests and held
//! to RFC 8439's vectors, BIP324's packet vectors and the library on random
//! sessions. docs/bip324.md describes the design, the state export and the
//! fallback threshold.

mod arena;
#[cfg(feature = "bench")]
mod bench;
mod config;
mod cpu;
mod cuda;
mod direction;
mod engine;
mod exec;
mod framing;
mod jobs;
mod layout;
mod plan;
mod work;

#[cfg(any(test, feature = "bench"))]
mod host;
#[cfg(test)]
mod tests;

pub use arena::{
    ArenaError, Capacity, OpenArena, OpenCapacity, OpenedArena, Run, SealArena, Sealed,
};
pub use config::{Config, DEFAULT_MIN_GPU_BATCH, DEFAULT_MIN_GPU_BYTES};
pub use engine::{
    Calibration, CalibrationPoint, Engine, Path, Phases, Report, CALIBRATION_BATCHES,
};
pub use exec::{DeviceError, DeviceInfo, Unavailable};
pub use jobs::{Outgoing, SealJob};
pub use wireseal::bip324::batch::{OpenJob, OpenedRange};

/// The kernels' CUDA C source, as NVRTC compiles it (the primitives, then
/// the kernels).
pub fn kernel_source() -> String {
    format!(
        "{}\n{}",
        include_str!("../kernel/primitives.cuh"),
        include_str!("../kernel/bip324.cu")
    )
}

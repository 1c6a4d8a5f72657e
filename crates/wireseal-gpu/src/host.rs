//! The kernels built for the host (kernel/host_entry.c, by build.rs), as an
//! [`Executor`] for the tests: the whole engine (planning, chunks, slots,
//! hand-back, the library's takeover) runs on them exactly as on a device,
//! with each "launch" running every thread of the grid in turn.
#![allow(unsafe_code)]
// The bench uses the framing kernels alone (crate::bench).
#![cfg_attr(not(test), allow(dead_code))]

use crate::exec::{DeviceError, DeviceInfo, Direction, Executor};
use crate::layout::{Args, Counts, Kernel, Regions, PARTIAL};

mod ffi {
    use crate::layout::Args;

    extern "C" {
        pub fn ws_seal_parts_host(a: Args, grid: u32, block: u32);
        pub fn ws_seal_finish_host(a: Args, grid: u32, block: u32);
        pub fn ws_open_parts_host(a: Args, grid: u32, block: u32);
        pub fn ws_open_verify_host(a: Args, grid: u32, block: u32);
        pub fn ws_open_decrypt_host(a: Args, grid: u32, block: u32);
        pub fn ws_open_frame_host(a: Args, grid: u32, block: u32);
        pub fn ws_host_misaligned() -> u32;
        pub fn ws_host_chacha_block(
            key: *const u32,
            counter: u32,
            nonce: *const u32,
            out: *mut u32,
        );
        pub fn ws_host_poly1305(key: *const u8, msg: *const u8, len: usize, tag: *mut u8);
        pub fn ws_host_layout(what: u32) -> u64;
    }
}

/// Runs `kernel` over a grid of `grid` blocks of `block` threads on the
/// buffers `a` points into.
pub(crate) fn run(kernel: Kernel, a: Args, grid: u32, block: u32) {
    let f = match kernel {
        Kernel::SealParts => ffi::ws_seal_parts_host,
        Kernel::SealFinish => ffi::ws_seal_finish_host,
        Kernel::OpenParts => ffi::ws_open_parts_host,
        Kernel::OpenVerify => ffi::ws_open_verify_host,
        Kernel::OpenDecrypt => ffi::ws_open_decrypt_host,
        Kernel::OpenFrame => ffi::ws_open_frame_host,
    };
    // SAFETY: `a` points into buffers the caller holds mutably for the
    // call (a slot's staging buffer laid out as `a`'s regions, and its
    // scratch, large enough for `a.ntasks` parts); the C code reads and
    // writes only inside them (an open's lists are sized for the most
    // entries its runs can make), on this thread.
    unsafe { f(a, grid, block) }
}

/// Misaligned accesses on this thread since the last call: 64-byte blocks
/// off a 16-byte boundary, 4-byte words off a 4-byte one.
pub(crate) fn misaligned() -> u32 {
    // SAFETY: reads and resets a thread-local counter.
    unsafe { ffi::ws_host_misaligned() }
}

/// One ChaCha20 block through the kernels' function.
pub(crate) fn chacha_block(key: &[u32; 8], counter: u32, nonce: &[u32; 3]) -> [u32; 16] {
    let mut out = [0u32; 16];
    // SAFETY: the pointers are valid for 8, 3 and 16 words.
    unsafe { ffi::ws_host_chacha_block(key.as_ptr(), counter, nonce.as_ptr(), out.as_mut_ptr()) };
    out
}

/// Poly1305 of `msg` through the kernels' functions.
pub(crate) fn poly1305(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    let mut tag = [0u8; 16];
    // SAFETY: the pointers are valid for 32, msg.len() and 16 bytes.
    unsafe { ffi::ws_host_poly1305(key.as_ptr(), msg.as_ptr(), msg.len(), tag.as_mut_ptr()) };
    tag
}

/// A size or offset of the C structures (see kernel/host_entry.c).
pub(crate) fn layout(what: u32) -> u64 {
    // SAFETY: a pure function of its argument.
    unsafe { ffi::ws_host_layout(what) }
}

/// A byte buffer whose usable part starts on a 256-byte boundary (a device
/// allocation's alignment).
#[derive(Default)]
struct Aligned {
    raw: Vec<u8>,
    start: usize,
}

impl Aligned {
    fn get(&mut self, len: usize) -> &mut [u8] {
        if self.raw.len() < self.start + len {
            self.raw = vec![0u8; len + 256];
            self.start = self.raw.as_ptr().align_offset(256);
        }
        &mut self.raw[self.start..self.start + len]
    }
}

/// A slot's buffers, as a device's: the staging buffer the host writes,
/// the "device" buffer the kernels run on (what the host wrote copied in),
/// and the output buffer the results are copied back into; the host reads
/// only what a device would have copied back.
#[derive(Default)]
struct Slot {
    input: Aligned,
    dev: Aligned,
    output: Aligned,
    partials: Aligned,
    len: usize,
}

/// The host executor: `slots` slots, kernels run with `grid` × `block`
/// threads.
pub(crate) struct HostExec {
    slots: Vec<Slot>,
    grid: u32,
    block: u32,
}

impl HostExec {
    pub(crate) fn new(slots: usize, grid: u32, block: u32) -> Self {
        Self {
            slots: (0..slots.max(1)).map(|_| Slot::default()).collect(),
            grid: grid.max(1),
            block: block.max(1),
        }
    }
}

impl Executor for HostExec {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: "the kernels built for the host (tests)".into(),
            compute_capability: (0, 0),
            multiprocessors: 1,
            memory: 0,
            driver_version: 0,
            nvrtc_version: (0, 0),
        }
    }

    fn slots(&self) -> usize {
        self.slots.len()
    }

    fn input(&mut self, slot: usize, len: usize) -> Result<&mut [u8], DeviceError> {
        let s = &mut self.slots[slot];
        s.len = len;
        Ok(s.input.get(len))
    }

    fn submit(
        &mut self,
        slot: usize,
        dir: Direction,
        r: &Regions,
        c: &Counts,
        task_bytes: u32,
    ) -> Result<(), DeviceError> {
        let s = &mut self.slots[slot];
        let partials = s.partials.get(c.tasks.max(1) * PARTIAL).as_mut_ptr() as u64;
        let dev = s.dev.get(s.len);
        let input = r.input();
        dev[input.clone()].copy_from_slice(&s.input.get(s.len)[input]);
        let args = Args::new(dev.as_mut_ptr() as u64, partials, r, c, task_bytes);
        for (k, n) in Kernel::sequence(dir, &args) {
            let grid = n.div_ceil(self.block).clamp(1, self.grid);
            run(k, args, grid, self.block);
        }
        let dev = s.dev.get(s.len);
        let out = s.output.get(s.len);
        for range in r.output() {
            out[range.clone()].copy_from_slice(&dev[range]);
        }
        Ok(())
    }

    fn finish(&mut self, slot: usize, r: &Regions) -> Result<&[u8], DeviceError> {
        let s = &mut self.slots[slot];
        s.input.get(s.len)[r.keys.clone()].fill(0);
        s.dev.get(s.len)[r.keys.clone()].fill(0);
        Ok(s.output.get(s.len))
    }

    fn output(&mut self, slot: usize) -> Result<&[u8], DeviceError> {
        let s = &mut self.slots[slot];
        Ok(s.output.get(s.len))
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
        Err(DeviceError("no kernel timing on the host".into()))
    }
}

//! The CUDA executor, through `cudarc` (driver API and NVRTC, both loaded
//! at run time). Each slot is a stream with its own write-combined pinned
//! input buffer, pinned output buffer, device buffer and scratch; a chunk is
//! one copy in, its kernels and one copy out, all queued on the slot's
//! stream, so chunks on different slots overlap.
//!
//! The `unsafe` here: probing for the shared libraries, reading two
//! versions through the raw bindings, allocating pinned memory, and
//! launching the kernels (whose argument the caller lays out as
//! `kernel/bip324.cu` declares it). Each block says why it holds. The
//! host slices given to the asynchronous copies stay untouched until the
//! slot's stream is synchronised in [`Executor::finish`]: every access to a
//! slot's buffers goes through `input` (after its previous chunk
//! finished) or `finish`.
#![allow(unsafe_code)]

use crate::config::Config;
use crate::exec::{DeviceError, DeviceInfo, Direction, Executor, Unavailable};
use crate::layout::{Args, Counts, Kernel, Regions, PARTIAL};
use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags, CU_MEMHOSTALLOC_WRITECOMBINED};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PinnedHostSlice,
    PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use std::sync::Arc;

// SAFETY: `Args` is `#[repr(C)]`, made of u64 and u32 fields only, with the
// size and field offsets of `ws_args` in kernel/bip324.cu (checked by
// layout's tests against the C compiler's), so its bytes are the kernels'
// parameter as they read it.
unsafe impl DeviceRepr for Args {}

/// Threads per block.
const BLOCK: u32 = 256;

fn driver(e: impl std::fmt::Display) -> DeviceError {
    DeviceError(e.to_string())
}

/// Most bytes of NVRTC's log kept, and most bytes of PTX believed: a
/// library that reports more (a stub's garbage) is not trusted with an
/// allocation.
const MAX_LOG: usize = 64 << 10;
const MAX_PTX: usize = 64 << 20;

/// The shared library the process has loaded under `stem` (`libnvrtc`), as
/// the loader found it (from `/proc/self/maps`), or `"?"`.
pub(crate) fn loaded_library(stem: &str) -> String {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|path| {
            path.rsplit('/')
                .next()
                .is_some_and(|f| f.starts_with(&format!("{stem}.so")))
        })
        .unwrap_or("?")
        .to_string()
}

/// Compiles the kernels for compute capability `cc` to PTX with NVRTC
/// (the driver compiles the PTX for the device when it loads it), through
/// NVRTC's C API with every size it reports bounded.
///
/// # Errors
///
/// [`Unavailable::Compile`] with NVRTC's log when the source does not
/// compile; [`Unavailable::NoNvrtc`] when the library fails a call that
/// cannot fail in a working NVRTC.
pub(crate) fn compile(cc: (u32, u32)) -> Result<Ptx, Unavailable> {
    compile_source(&crate::kernel_source(), cc)
}

/// [`compile`] for any source.
pub(crate) fn compile_source(source: &str, cc: (u32, u32)) -> Result<Ptx, Unavailable> {
    use cudarc::nvrtc::sys::{self as nv, nvrtcResult};
    use std::ffi::CString;
    let (major, minor) = nvrtc_version().ok_or_else(|| {
        Unavailable::NoNvrtc(format!(
            "{} does not answer nvrtcVersion (a CUDA stubs library on the loader's path?)",
            loaded_library("libnvrtc")
        ))
    })?;
    let broken = |call: &str, r: nvrtcResult| {
        Unavailable::NoNvrtc(format!(
            "{call} failed in {} (NVRTC {major}.{minor}): {r:?}",
            loaded_library("libnvrtc")
        ))
    };
    let src = CString::new(source).map_err(|_| Unavailable::Compile {
        library: loaded_library("libnvrtc"),
        version_major: major,
        version_minor: minor,
        log: "the source holds a NUL byte".into(),
    })?;
    let opts: Vec<CString> = [
        format!("--gpu-architecture=compute_{}{}", cc.0, cc.1),
        "--std=c++17".to_string(),
    ]
    .into_iter()
    .map(|o| CString::new(o).expect("no NUL"))
    .collect();
    let ptrs: Vec<*const std::ffi::c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut prog = std::mem::MaybeUninit::<nv::nvrtcProgram>::uninit();
    // SAFETY: NVRTC is loaded and answered nvrtcVersion; `src` is a valid
    // C string that outlives the program (destroyed below); no headers.
    let r = unsafe {
        nv::nvrtcCreateProgram(
            prog.as_mut_ptr(),
            src.as_ptr(),
            c"bip324.cu".as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(broken("nvrtcCreateProgram", r));
    }
    // SAFETY: written by the successful call above.
    let prog = unsafe { prog.assume_init() };
    // SAFETY: `prog` is a live program; `ptrs` holds `opts.len()` valid C
    // strings that outlive the call.
    let compiled = unsafe { nv::nvrtcCompileProgram(prog, ptrs.len() as i32, ptrs.as_ptr()) };
    let out = if compiled == nvrtcResult::NVRTC_SUCCESS {
        // SAFETY: `prog` compiled.
        unsafe { program_text(prog, true) }
            .map(Ptx::from_src)
            .map_err(|r| broken("nvrtcGetPTX", r))
    } else {
        // SAFETY: `prog` is a live program.
        let log =
            unsafe { program_text(prog, false) }.unwrap_or_else(|r| format!("(no log: {r:?})"));
        Err(Unavailable::Compile {
            library: loaded_library("libnvrtc"),
            version_major: major,
            version_minor: minor,
            log: format!("{compiled:?}: {log}"),
        })
    };
    let mut prog = prog;
    // SAFETY: `prog` is live and not used after this.
    let _ = unsafe { nv::nvrtcDestroyProgram(&mut prog) };
    out
}

/// The PTX (`ptx`) or the log of a program, as text, its size bounded.
///
/// # Safety
///
/// `prog` is a live NVRTC program (compiled, for the PTX).
unsafe fn program_text(
    prog: cudarc::nvrtc::sys::nvrtcProgram,
    ptx: bool,
) -> Result<String, cudarc::nvrtc::sys::nvrtcResult> {
    use cudarc::nvrtc::sys::{self as nv, nvrtcResult};
    let mut size = 0usize;
    // SAFETY: the caller's promise; the call writes one usize.
    let r = unsafe {
        if ptx {
            nv::nvrtcGetPTXSize(prog, &mut size)
        } else {
            nv::nvrtcGetProgramLogSize(prog, &mut size)
        }
    };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(r);
    }
    if size > if ptx { MAX_PTX } else { MAX_LOG } {
        return Err(nvrtcResult::NVRTC_ERROR_OUT_OF_MEMORY);
    }
    let mut buf = vec![0u8; size.max(1)];
    // SAFETY: `buf` has the `size` bytes NVRTC said it writes.
    let r = unsafe {
        if ptx {
            nv::nvrtcGetPTX(prog, buf.as_mut_ptr().cast())
        } else {
            nv::nvrtcGetProgramLog(prog, buf.as_mut_ptr().cast())
        }
    };
    if r != nvrtcResult::NVRTC_SUCCESS {
        return Err(r);
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    buf.truncate(end);
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Whether NVRTC's library can be loaded (from the loader's path).
pub(crate) fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names and
    // closes it again; no symbol is called.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// NVRTC's version, or `None` when the loaded library does not answer (a
/// stub).
pub(crate) fn nvrtc_version() -> Option<(u32, u32)> {
    let (mut major, mut minor) = (0i32, 0i32);
    // SAFETY: the library is present (checked by the caller); the call
    // writes two ints through the pointers, which are valid for the call.
    let r = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    if r != cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS || major <= 0 {
        return None;
    }
    Some((major as u32, minor.max(0) as u32))
}

struct Slot {
    stream: Arc<CudaStream>,
    input: Option<PinnedHostSlice<u8>>,
    output: Option<PinnedHostSlice<u8>>,
    dev: Option<CudaSlice<u8>>,
    partials: Option<CudaSlice<u8>>,
    pristine: Option<CudaSlice<u8>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        // Key tables and packet contents: not left in page-locked memory.
        for buf in [self.input.as_mut(), self.output.as_mut()]
            .into_iter()
            .flatten()
        {
            if let Ok(s) = buf.as_mut_slice() {
                s.fill(0);
            }
        }
    }
}

pub(crate) struct Cuda {
    ctx: Arc<CudaContext>,
    functions: Vec<(Kernel, CudaFunction)>,
    noop: CudaFunction,
    slots: Vec<Slot>,
    info: DeviceInfo,
    max_blocks: u32,
}

impl Cuda {
    /// The device `config.device`, its kernels compiled and loaded, with
    /// `config.streams` slots.
    ///
    /// # Errors
    ///
    /// [`Unavailable`] naming what is missing or failed; a reason starting
    /// with "no CUDA device" when there is no driver or no device.
    pub(crate) fn open(config: &Config) -> Result<Self, Unavailable> {
        // The bindings panic on a symbol the loaded library lacks (a driver
        // older than CUDA 13.0): that is a reason, not a crash.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| Self::open_inner(config)))
            .unwrap_or_else(|p| {
                let why = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(Unavailable::Setup {
                    what: "the CUDA libraries could not be used",
                    why,
                })
            })
    }

    fn open_inner(config: &Config) -> Result<Self, Unavailable> {
        // SAFETY: only tries to dlopen libcuda by its usual names.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Unavailable::NoDriver);
        }
        let count = CudaContext::device_count()
            .map_err(|e| Unavailable::NoDevice(format!("the driver says: {e:?}")))?;
        if count <= 0 || config.device >= count as usize {
            return Err(Unavailable::NoDevice(format!(
                "the driver lists {count} device(s), device {} asked for",
                config.device
            )));
        }
        if !nvrtc_present() {
            return Err(Unavailable::NoNvrtc(
                "libnvrtc.so was not found: put the CUDA toolkit's lib64 (not its stubs \
                 folder) on LD_LIBRARY_PATH"
                    .into(),
            ));
        }
        let fail = |what: &'static str, e: &dyn std::fmt::Debug| Unavailable::Setup {
            what,
            why: format!("{e:?}"),
        };
        let ctx =
            CudaContext::new(config.device).map_err(|e| fail("creating a CUDA context", &e))?;
        // SAFETY: every device buffer here belongs to one slot and is
        // allocated, used and freed on that slot's stream only (stream
        // order keeps each use after the last), so cudarc's cross-stream
        // events (several driver calls per buffer per launch) are not
        // needed; they are turned off before any buffer exists.
        unsafe { ctx.disable_event_tracking() };
        let (major, minor) = ctx
            .compute_capability()
            .map_err(|e| fail("reading the compute capability", &e))?;
        let cc = (major as u32, minor as u32);
        let ptx = compile(cc)?;
        let module = ctx
            .load_module(ptx)
            .map_err(|e| fail("loading the kernels", &e))?;
        let mut functions = Vec::new();
        for k in Kernel::ALL {
            let f = module
                .load_function(k.name())
                .map_err(|e| fail(k.name(), &e))?;
            functions.push((k, f));
        }
        let noop = module
            .load_function("ws_noop")
            .map_err(|e| fail("ws_noop", &e))?;
        let sms = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| fail("reading the device's attributes", &e))? as u32;
        let mut version = 0i32;
        // SAFETY: libcuda is loaded (above); the call writes one int through
        // a pointer valid for the call.
        let _ = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) };
        let info = DeviceInfo {
            name: ctx.name().unwrap_or_default(),
            compute_capability: cc,
            multiprocessors: sms,
            memory: ctx.total_mem().unwrap_or(0) as u64,
            driver_version: version.max(0) as u32,
            nvrtc_version: nvrtc_version().unwrap_or((0, 0)),
        };
        let mut slots = Vec::new();
        for _ in 0..config.streams.max(1) {
            let stream = ctx
                .new_stream()
                .map_err(|e| fail("creating a stream", &e))?;
            slots.push(Slot {
                stream,
                input: None,
                output: None,
                dev: None,
                partials: None,
                pristine: None,
            });
        }
        Ok(Self {
            ctx,
            functions,
            noop,
            slots,
            info,
            max_blocks: sms.max(1) * 16,
        })
    }

    fn function(&self, k: Kernel) -> &CudaFunction {
        &self
            .functions
            .iter()
            .find(|(n, _)| *n == k)
            .expect("every kernel is loaded")
            .1
    }

    /// Queues the slot's kernels for a chunk already on the device.
    fn launch(
        &self,
        slot: usize,
        dir: Direction,
        r: &Regions,
        c: &Counts,
        task_bytes: u32,
    ) -> Result<(), DeviceError> {
        let s = &self.slots[slot];
        let dev = s.dev.as_ref().expect("allocated by input");
        let partials = s.partials.as_ref().expect("allocated by submit");
        let (base, _dg) = cudarc::driver::DevicePtr::device_ptr(dev, &s.stream);
        let (pbase, _pg) = cudarc::driver::DevicePtr::device_ptr(partials, &s.stream);
        let args = Args::new(base, pbase, r, c, task_bytes);
        for (k, n) in Kernel::sequence(dir, &args) {
            let cfg = LaunchConfig {
                grid_dim: (n.div_ceil(BLOCK).clamp(1, self.max_blocks), 1, 1),
                block_dim: (BLOCK, 1, 1),
                shared_mem_bytes: 0,
            };
            let f = self.function(k);
            let mut b = s.stream.launch_builder(f);
            b.arg(&args);
            // SAFETY: the one argument is the `ws_args` every kernel takes,
            // and its pointers lie inside this slot's device buffer (laid
            // out as `r`, at least `r.total()` bytes, its input filled by
            // the copy queued before on this stream) and its scratch (at
            // least `ntasks` parts). An open's kernels write no more
            // entries than its lists hold (each sized for the most packets
            // its runs' bytes can hold, the key entries for the epochs
            // those span), and read none before it is written. The kernels
            // touch nothing else, and the buffers outlive the stream's work
            // (synchronised in `finish`).
            unsafe { b.launch(cfg) }.map_err(driver)?;
        }
        Ok(())
    }

    /// Queues the copy of what the host wrote into the slot's buffer to the
    /// device, with scratch for the chunk's parts.
    fn copy_in(&mut self, slot: usize, r: &Regions, c: &Counts) -> Result<(), DeviceError> {
        self.ensure_partials(slot, c.tasks)?;
        let range = r.input();
        let s = &mut self.slots[slot];
        let input = s
            .input
            .as_ref()
            .expect("filled by input")
            .as_slice()
            .map_err(driver)?;
        let dev = s.dev.as_mut().expect("allocated by input");
        s.stream
            .memcpy_htod(&input[range.clone()], &mut dev.slice_mut(range))
            .map_err(driver)
    }

    fn ensure_partials(&mut self, slot: usize, tasks: usize) -> Result<(), DeviceError> {
        let s = &mut self.slots[slot];
        let need = (tasks.max(1) * PARTIAL).next_power_of_two();
        if s.partials.as_ref().is_none_or(|p| p.len() < need) {
            // SAFETY: scratch the kernels write before they read it (a
            // part's value is stored before the finishing kernel sums it).
            s.partials = Some(unsafe { s.stream.alloc::<u8>(need) }.map_err(driver)?);
        }
        Ok(())
    }
}

impl Executor for Cuda {
    fn info(&self) -> DeviceInfo {
        self.info.clone()
    }

    fn slots(&self) -> usize {
        self.slots.len()
    }

    fn input(&mut self, slot: usize, len: usize) -> Result<&mut [u8], DeviceError> {
        let ctx = self.ctx.clone();
        let s = &mut self.slots[slot];
        if s.input.as_ref().is_none_or(|b| b.len() < len) {
            let cap = len.max(1 << 20).next_power_of_two();
            // SAFETY: page-locked host memory for the copies; it is written
            // (input: by the caller, output: by the copy back) before any
            // byte of it is read.
            let (input, output) = unsafe {
                (
                    ctx.alloc_pinned_with_flags::<u8>(cap, CU_MEMHOSTALLOC_WRITECOMBINED),
                    ctx.alloc_pinned_with_flags::<u8>(cap, 0),
                )
            };
            s.input = Some(input.map_err(driver)?);
            s.output = Some(output.map_err(driver)?);
            // SAFETY: device memory the copy in writes before the kernels
            // read it.
            s.dev = Some(unsafe { s.stream.alloc::<u8>(cap) }.map_err(driver)?);
            s.pristine = None;
        }
        let buf = s
            .input
            .as_mut()
            .expect("allocated")
            .as_mut_slice()
            .map_err(driver)?;
        Ok(&mut buf[..len])
    }

    fn submit(
        &mut self,
        slot: usize,
        dir: Direction,
        r: &Regions,
        c: &Counts,
        task_bytes: u32,
    ) -> Result<(), DeviceError> {
        self.copy_in(slot, r, c)?;
        self.launch(slot, dir, r, c, task_bytes)?;
        let s = &mut self.slots[slot];
        let out = s
            .output
            .as_mut()
            .expect("allocated by input")
            .as_mut_slice()
            .map_err(driver)?;
        let dev = s.dev.as_ref().expect("allocated by input");
        for range in r.output().into_iter().filter(|r| !r.is_empty()) {
            s.stream
                .memcpy_dtoh(&dev.slice(range.clone()), &mut out[range])
                .map_err(driver)?;
        }
        Ok(())
    }

    fn finish(&mut self, slot: usize, r: &Regions) -> Result<&[u8], DeviceError> {
        let s = &mut self.slots[slot];
        s.stream.synchronize().map_err(driver)?;
        if !r.keys.is_empty() {
            let input = s.input.as_mut().expect("allocated by input");
            input.as_mut_slice().map_err(driver)?[r.keys.clone()].fill(0);
            let dev = s.dev.as_mut().expect("allocated by input");
            s.stream
                .memset_zeros(&mut dev.slice_mut(r.keys.clone()))
                .map_err(driver)?;
        }
        let out = s
            .output
            .as_ref()
            .expect("allocated by input")
            .as_slice()
            .map_err(driver)?;
        Ok(&out[..r.total()])
    }

    fn output(&mut self, slot: usize) -> Result<&[u8], DeviceError> {
        let s = &self.slots[slot];
        s.output
            .as_ref()
            .ok_or_else(|| DeviceError("no chunk ran on this slot".into()))?
            .as_slice()
            .map_err(driver)
    }

    fn floor(&mut self, runs: usize) -> Result<(f64, f64), DeviceError> {
        use std::time::Instant;
        self.input(0, 4096)?;
        let args = Args::default();
        let cfg = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        let launch = |stream: &Arc<CudaStream>, f: &CudaFunction| -> Result<(), DeviceError> {
            let mut b = stream.launch_builder(f);
            b.arg(&args);
            // SAFETY: `ws_noop` takes a `ws_args` and reads nothing.
            unsafe { b.launch(cfg) }.map(|_| ()).map_err(driver)
        };
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let s = &mut self.slots[0];
        let (mut queue, mut trip) = (Vec::new(), Vec::new());
        for _ in 0..runs.max(1) {
            let t = Instant::now();
            launch(&s.stream, &self.noop)?;
            queue.push(t.elapsed().as_secs_f64());
            s.stream.synchronize().map_err(driver)?;
            let t = Instant::now();
            let input = s
                .input
                .as_ref()
                .expect("allocated")
                .as_slice()
                .map_err(driver)?;
            let dev = s.dev.as_mut().expect("allocated");
            s.stream
                .memcpy_htod(&input[..64], &mut dev.slice_mut(..64))
                .map_err(driver)?;
            launch(&s.stream, &self.noop)?;
            let out = s
                .output
                .as_mut()
                .expect("allocated")
                .as_mut_slice()
                .map_err(driver)?;
            s.stream
                .memcpy_dtoh(&dev.slice(..64), &mut out[..64])
                .map_err(driver)?;
            s.stream.synchronize().map_err(driver)?;
            trip.push(t.elapsed().as_secs_f64());
        }
        Ok((median(queue), median(trip)))
    }

    fn time_kernels(
        &mut self,
        slot: usize,
        dir: Direction,
        r: &Regions,
        c: &Counts,
        task_bytes: u32,
        runs: usize,
    ) -> Result<f64, DeviceError> {
        self.copy_in(slot, r, c)?;
        let total = r.total();
        {
            let s = &mut self.slots[slot];
            let dev = s.dev.as_mut().expect("allocated by input");
            if s.pristine.as_ref().is_none_or(|p| p.len() < total) {
                // SAFETY: filled by the copy below before it is read.
                s.pristine = Some(unsafe { s.stream.alloc::<u8>(dev.len()) }.map_err(driver)?);
            }
            let pristine = s.pristine.as_mut().expect("allocated");
            s.stream
                .memcpy_dtod(&dev.slice(..total), &mut pristine.slice_mut(..total))
                .map_err(driver)?;
        }
        let mut times = Vec::with_capacity(runs);
        for run in 0..=runs {
            {
                // The data as it came, and an open's totals back at zero
                // (its framing claims room in the lists by adding to them).
                let s = &mut self.slots[slot];
                let pristine = s.pristine.as_ref().expect("allocated");
                let dev = s.dev.as_mut().expect("allocated by input");
                for range in [r.data.clone(), r.totals.clone()] {
                    if range.is_empty() {
                        continue;
                    }
                    s.stream
                        .memcpy_dtod(&pristine.slice(range.clone()), &mut dev.slice_mut(range))
                        .map_err(driver)?;
                }
            }
            let stream = self.slots[slot].stream.clone();
            let start = stream
                .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(driver)?;
            self.launch(slot, dir, r, c, task_bytes)?;
            let end = stream
                .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(driver)?;
            end.synchronize().map_err(driver)?;
            let ms = start.elapsed_ms(&end).map_err(driver)?;
            if run > 0 {
                times.push(f64::from(ms) / 1e3);
            }
        }
        // The saved copy holds the key table too: wiped as the chunk's is.
        if !r.keys.is_empty() {
            let s = &mut self.slots[slot];
            let pristine = s.pristine.as_mut().expect("allocated");
            s.stream
                .memset_zeros(&mut pristine.slice_mut(r.keys.clone()))
                .map_err(driver)?;
        }
        times.sort_by(f64::total_cmp);
        Ok(times.get(times.len() / 2).copied().unwrap_or(0.0))
    }
}

//! The caller's random-number callback as a `RngCore + CryptoRng`.

use crate::WsStatus;
use core::ffi::c_void;
use core::num::NonZeroU32;
use wireseal::entropy::{CryptoRng, RngCore};

/// The error code of a failed callback (rand_core's first custom code).
const RNG_FAILED: NonZeroU32 = match NonZeroU32::new(wireseal::entropy::RandError::CUSTOM_START) {
    Some(c) => c,
    None => unreachable!(),
};

/// Fills `buf[0..len]` with random bytes from a cryptographically secure
/// source (a microcontroller's RNG peripheral with bias correction, or a
/// DRBG seeded from it); returns 0 on success, anything else on failure.
/// `ctx` is the pointer the caller passed beside the callback.
pub type WsFillRandom =
    Option<unsafe extern "C" fn(ctx: *mut c_void, buf: *mut u8, len: usize) -> i32>;

/// The callback and its context. A failure is returned where it happens
/// (`try_fill_bytes`, which the library's `*_with_rng` calls use, so they
/// stop before sealing anything) and remembered, so the C call reports
/// `WS_STATUS_RNG_FAILED` and releases nothing.
pub(crate) struct CallbackRng {
    fill: unsafe extern "C" fn(*mut c_void, *mut u8, usize) -> i32,
    ctx: *mut c_void,
    pub(crate) failed: bool,
}

impl CallbackRng {
    /// `None` for a NULL callback.
    pub(crate) fn new(fill: WsFillRandom, ctx: *mut c_void) -> Option<Self> {
        Some(Self {
            fill: fill?,
            ctx,
            failed: false,
        })
    }
}

impl CallbackRng {
    /// `sealed`, except when the callback failed while it was drawn from
    /// (the library then stopped with its `Rng` error): `RNG_FAILED`, the
    /// C ABI's own code for it, with `out` wiped.
    pub(crate) fn vouch<E: Into<WsStatus>>(
        &self,
        sealed: Result<usize, E>,
        out: &mut [u8],
    ) -> Result<usize, WsStatus> {
        if self.failed {
            out.fill(0);
            return Err(WsStatus::RngFailed);
        }
        sealed.map_err(Into::into)
    }
}

impl RngCore for CallbackRng {
    fn next_u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        self.fill_bytes(&mut b);
        u32::from_le_bytes(b)
    }

    fn next_u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        self.fill_bytes(&mut b);
        u64::from_le_bytes(b)
    }

    /// Only for `RngCore`'s infallible calls: a failure wipes `dest` and
    /// is remembered; the library itself draws through `try_fill_bytes`.
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        if self.try_fill_bytes(dest).is_err() {
            dest.fill(0);
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), wireseal::entropy::RandError> {
        // SAFETY: `dest` is a valid writable buffer of `dest.len()` bytes;
        // the callback's contract is to write at most that many.
        let rc = unsafe { (self.fill)(self.ctx, dest.as_mut_ptr(), dest.len()) };
        if rc == 0 {
            return Ok(());
        }
        self.failed = true;
        Err(RNG_FAILED.into())
    }
}

// The caller vouches that its callback is a CSPRNG (the documented
// contract of `WsFillRandom`).
impl CryptoRng for CallbackRng {}

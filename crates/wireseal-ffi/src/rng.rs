//! The caller's random-number callback as a `RngCore + CryptoRng`.

use crate::WsStatus;
use core::ffi::c_void;
use wireseal::entropy::{CryptoRng, RngCore};

/// Fills `buf[0..len]` with random bytes from a cryptographically secure
/// source (a microcontroller's RNG peripheral with bias correction, or a
/// DRBG seeded from it); returns 0 on success, anything else on failure.
/// `ctx` is the pointer the caller passed beside the callback.
pub type WsFillRandom =
    Option<unsafe extern "C" fn(ctx: *mut c_void, buf: *mut u8, len: usize) -> i32>;

/// The callback and its context; remembers a failure, after which the call
/// that drew the bytes fails with `WS_STATUS_RNG_FAILED` and releases
/// nothing.
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
    /// `sealed` unless the callback failed while it was drawn from: then
    /// `out` is wiped and the result is `RNG_FAILED`.
    pub(crate) fn vouch<E: Into<WsStatus>>(
        &self,
        sealed: Result<usize, E>,
        out: &mut [u8],
    ) -> Result<usize, WsStatus> {
        match sealed {
            Ok(_) if self.failed => {
                out.fill(0);
                Err(WsStatus::RngFailed)
            }
            r => r.map_err(Into::into),
        }
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

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        // SAFETY: `dest` is a valid writable buffer of `dest.len()` bytes;
        // the callback's contract is to write at most that many.
        let rc = unsafe { (self.fill)(self.ctx, dest.as_mut_ptr(), dest.len()) };
        if rc != 0 {
            self.failed = true;
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), wireseal::entropy::RandError> {
        self.fill_bytes(dest);
        Ok(())
    }
}

// The caller vouches that its callback is a CSPRNG (the documented
// contract of `WsFillRandom`).
impl CryptoRng for CallbackRng {}

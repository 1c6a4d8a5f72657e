//! Status codes: the library's error kinds, one to one, and the C-only
//! failures.

use wireseal::error::ErrorKind;

/// The result of every call. `WS_STATUS_OK` is 0; the codes from 1 to 15
/// are the library's error kinds (the same failure has the same kind in
/// the Rust API, the command line's JSON and Python's exceptions).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WsStatus {
    /// Success.
    Ok = 0,
    /// A tag, HMAC or signature did not verify. Opaque.
    Auth = 1,
    /// The input is shorter than the format allows.
    Truncated = 2,
    /// The input is longer than the format allows.
    TooLong = 3,
    /// The output buffer is too small.
    BufferTooSmall = 4,
    /// A key is malformed, weak, or of the wrong length.
    InvalidKey = 5,
    /// Accepted before.
    Replay = 6,
    /// An earlier failure poisoned the state.
    Poisoned = 7,
    /// A counter or key-usage limit is used up.
    Exhausted = 8,
    /// The input breaks a structural rule of its format.
    Malformed = 9,
    /// Something this library does not handle.
    Unsupported = 10,
    /// A configured limit was reached.
    Limit = 11,
    /// The state does not allow this call.
    State = 12,
    /// A policy refuses the input.
    Policy = 13,
    /// An argument is out of range or unusable.
    InvalidInput = 14,
    /// Reading or writing failed.
    Io = 15,
    /// A pointer argument was NULL.
    NullPointer = 100,
    /// Caller memory too small or misaligned for what it must hold.
    BadMemory = 101,
    /// The caller's random-number callback reported a failure.
    RngFailed = 102,
}

/// The status of each library kind, in [`ErrorKind::ALL`]'s order. Its
/// length is [`ErrorKind::COUNT`]: a kind added to the library stops this
/// from compiling until it has its code (no catch-all), and
/// `kinds_map_one_to_one_with_the_library_names` checks the order.
const BY_KIND: [WsStatus; ErrorKind::COUNT] = [
    WsStatus::Auth,
    WsStatus::Truncated,
    WsStatus::TooLong,
    WsStatus::BufferTooSmall,
    WsStatus::InvalidKey,
    WsStatus::Replay,
    WsStatus::Poisoned,
    WsStatus::Exhausted,
    WsStatus::Malformed,
    WsStatus::Unsupported,
    WsStatus::Limit,
    WsStatus::State,
    WsStatus::Policy,
    WsStatus::InvalidInput,
    WsStatus::Io,
];

impl From<ErrorKind> for WsStatus {
    fn from(k: ErrorKind) -> Self {
        BY_KIND[k.index()]
    }
}

/// The status's stable name (`"ok"`, `"auth"`, ...: the library's
/// `ErrorKind` names), a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn ws_status_str(status: WsStatus) -> *const core::ffi::c_char {
    let s: &'static core::ffi::CStr = match status {
        WsStatus::Ok => c"ok",
        WsStatus::Auth => c"auth",
        WsStatus::Truncated => c"truncated",
        WsStatus::TooLong => c"too_long",
        WsStatus::BufferTooSmall => c"buffer_too_small",
        WsStatus::InvalidKey => c"invalid_key",
        WsStatus::Replay => c"replay",
        WsStatus::Poisoned => c"poisoned",
        WsStatus::Exhausted => c"exhausted",
        WsStatus::Malformed => c"malformed",
        WsStatus::Unsupported => c"unsupported",
        WsStatus::Limit => c"limit",
        WsStatus::State => c"state",
        WsStatus::Policy => c"policy",
        WsStatus::InvalidInput => c"invalid_input",
        WsStatus::Io => c"io",
        WsStatus::NullPointer => c"null_pointer",
        WsStatus::BadMemory => c"bad_memory",
        WsStatus::RngFailed => c"rng_failed",
    };
    s.as_ptr()
}

/// `Ok(())` as `WS_STATUS_OK`, an error as its kind's code.
pub(crate) fn status<E: Into<WsStatus>>(r: Result<(), E>) -> WsStatus {
    match r {
        Ok(()) => WsStatus::Ok,
        Err(e) => e.into(),
    }
}

/// The status of a call that produced `n` bytes, writing `n` through
/// `out_len` on success.
///
/// # Safety
/// `out_len` is NULL or points to a writable `size_t`.
pub(crate) unsafe fn written<E: Into<WsStatus>>(
    r: Result<usize, E>,
    out_len: *mut usize,
) -> WsStatus {
    match r {
        Ok(n) => {
            // SAFETY: forwarded contract.
            unsafe { crate::memory::put(out_len, n) };
            WsStatus::Ok
        }
        Err(e) => e.into(),
    }
}

/// The first of several argument errors.
pub(crate) fn first_error(errors: [Option<WsStatus>; 4]) -> WsStatus {
    errors
        .into_iter()
        .flatten()
        .next()
        .unwrap_or(WsStatus::InvalidInput)
}

impl From<wireseal::meshtastic::Error> for WsStatus {
    fn from(e: wireseal::meshtastic::Error) -> Self {
        e.kind().into()
    }
}

impl From<wireseal::peat::Error> for WsStatus {
    fn from(e: wireseal::peat::Error) -> Self {
        e.kind().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every library kind has its own code, and its name is the library's.
    #[test]
    fn kinds_map_one_to_one_with_the_library_names() {
        let mut seen = [false; 16];
        for (i, k) in ErrorKind::ALL.into_iter().enumerate() {
            assert_eq!(k.index(), i);
            let s = WsStatus::from(k);
            let code = s as usize;
            assert!((1..=15).contains(&code) && !seen[code], "{k:?}");
            seen[code] = true;
            // SAFETY: ws_status_str returns a static NUL-terminated string.
            let name = unsafe { core::ffi::CStr::from_ptr(ws_status_str(s)) };
            assert_eq!(name.to_str(), Ok(k.as_str()));
        }
    }
}

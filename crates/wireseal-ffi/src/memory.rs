//! Checked views of the caller's pointers and lengths.

use crate::WsStatus;

/// `len` bytes at `p` to read; NULL is an error unless `len` is 0.
///
/// # Safety
/// When `p` is not NULL it points to `len` readable bytes that stay valid
/// and unchanged for `'a`.
pub(crate) unsafe fn bytes<'a>(p: *const u8, len: usize) -> Result<&'a [u8], WsStatus> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(WsStatus::NullPointer);
    }
    // SAFETY: non-NULL, and the caller vouches for `len` readable bytes.
    Ok(unsafe { core::slice::from_raw_parts(p, len) })
}

/// `len` bytes at `p` to write; NULL is an error unless `len` is 0.
///
/// # Safety
/// When `p` is not NULL it points to `len` writable bytes, not otherwise
/// referenced for `'a`.
pub(crate) unsafe fn bytes_mut<'a>(p: *mut u8, len: usize) -> Result<&'a mut [u8], WsStatus> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(WsStatus::NullPointer);
    }
    // SAFETY: non-NULL, and the caller vouches for `len` writable bytes.
    Ok(unsafe { core::slice::from_raw_parts_mut(p, len) })
}

/// The `N` bytes at `p`.
///
/// # Safety
/// When `p` is not NULL it points to `N` readable bytes valid for `'a`.
pub(crate) unsafe fn array<'a, const N: usize>(p: *const u8) -> Result<&'a [u8; N], WsStatus> {
    if p.is_null() {
        return Err(WsStatus::NullPointer);
    }
    // SAFETY: non-NULL; `[u8; N]` has alignment 1; the caller vouches for
    // `N` readable bytes.
    Ok(unsafe { &*p.cast::<[u8; N]>() })
}

/// Writes `v` through `p` when it is not NULL.
///
/// # Safety
/// When `p` is not NULL it points to a writable, aligned `T`.
pub(crate) unsafe fn put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: the caller vouches for a writable, aligned `T`.
        unsafe { p.write(v) };
    }
}

/// Whether the byte ranges `a[..a_len]` and `b[..b_len]` share a byte:
/// checked on the raw pointers, before any reference to either exists
/// (a shared and a mutable reference to one byte may never coexist).
pub(crate) fn overlap(a: *const u8, a_len: usize, b: *const u8, b_len: usize) -> bool {
    let (a0, b0) = (a as usize, b as usize);
    a_len != 0 && b_len != 0 && a0 < b0.saturating_add(b_len) && b0 < a0.saturating_add(a_len)
}

/// One argument's memory: its address and length in bytes (a NULL
/// pointer covers nothing; it is refused elsewhere).
#[derive(Clone, Copy)]
pub(crate) struct Region(pub(crate) *const u8, pub(crate) usize);

impl Region {
    /// The `T` at `p` (an out-parameter or a state block).
    pub(crate) fn of<T>(p: *const T) -> Self {
        Self(p.cast(), core::mem::size_of::<T>())
    }

    fn len(self) -> usize {
        if self.0.is_null() {
            0
        } else {
            self.1
        }
    }
}

/// `Err(INVALID_INPUT)` when a written region shares a byte with another
/// written region or with a read one: every output against every other
/// argument, checked before any reference exists.
pub(crate) fn disjoint(writes: &[Region], reads: &[Region]) -> Result<(), WsStatus> {
    for (i, w) in writes.iter().enumerate() {
        let others = writes[i + 1..].iter().chain(reads);
        if others
            .into_iter()
            .any(|o| overlap(w.0, w.len(), o.0, o.len()))
        {
            return Err(WsStatus::InvalidInput);
        }
    }
    Ok(())
}

/// The `get`/`init`/`deinit` helpers of an opaque C type of `$bytes` bytes
/// (declared beside the call as `{ magic: u64, body: [u64; $bytes / 8 -
/// 1] }`, so cbindgen sees it) holding a `$inner` after its init call; the
/// magic word tells an initialised block from stray memory.
macro_rules! opaque {
    ($name:ident, $inner:ty, $bytes:ident, $magic:expr) => {
        const _: () = assert!(core::mem::size_of::<$inner>() <= $bytes - 8);
        // On the Cortex-M (bare `arm`) the block is the value's size rounded
        // up to whole words, plus the magic word: no RAM wasted.
        #[cfg(all(target_arch = "arm", target_os = "none"))]
        const _: () = assert!($bytes - 8 - core::mem::size_of::<$inner>() < 8);
        const _: () = assert!(core::mem::align_of::<$inner>() <= 8);
        const _: () = assert!(core::mem::size_of::<$name>() == $bytes);

        impl $name {
            const MAGIC: u64 = $magic;

            /// The value inside an initialised block.
            ///
            /// # Safety
            /// When `p` is not NULL it points to a block that is either
            /// initialised by this type's init call or holds no magic word.
            #[allow(dead_code)]
            pub(crate) unsafe fn get<'a>(p: *mut Self) -> Result<&'a mut $inner, crate::WsStatus> {
                // SAFETY: forwarded contract (the magic word is read
                // through the raw pointer; no reference exists yet).
                unsafe { Self::check(p)? };
                // SAFETY: the magic word says init wrote an `$inner` at
                // `body`, which is big and aligned enough (asserted above);
                // the reference covers the value only.
                Ok(unsafe { &mut *core::ptr::addr_of_mut!((*p).body).cast::<$inner>() })
            }

            /// `Ok` when `p` is non-NULL and holds the magic word, read
            /// through the raw pointer before any reference to the block
            /// exists.
            ///
            /// # Safety
            /// When `p` is not NULL it points to a readable, aligned block.
            unsafe fn check(p: *const Self) -> Result<(), crate::WsStatus> {
                if p.is_null() {
                    return Err(crate::WsStatus::NullPointer);
                }
                // SAFETY: non-NULL and aligned, per the contract; a plain
                // read of the first word.
                if unsafe { core::ptr::addr_of!((*p).magic).read() } != Self::MAGIC {
                    return Err(crate::WsStatus::State);
                }
                Ok(())
            }

            /// The value inside an initialised block, to read.
            ///
            /// # Safety
            /// As `get`, and no `&mut` to the block lives meanwhile.
            #[allow(dead_code)]
            pub(crate) unsafe fn get_ref<'a>(
                p: *const Self,
            ) -> Result<&'a $inner, crate::WsStatus> {
                // SAFETY: forwarded contract.
                unsafe { Self::check(p)? };
                // SAFETY: as in `get`.
                Ok(unsafe { &*core::ptr::addr_of!((*p).body).cast::<$inner>() })
            }

            /// Moves `v` into the block without reading it (it may be
            /// uninitialised memory; a value it held is not dropped).
            ///
            /// # Safety
            /// `p` is non-NULL, aligned and writable.
            pub(crate) unsafe fn init(p: *mut Self, v: $inner) {
                // SAFETY: non-NULL and aligned; `body` fits an `$inner`.
                unsafe {
                    core::ptr::addr_of_mut!((*p).body).cast::<$inner>().write(v);
                    core::ptr::addr_of_mut!((*p).magic).write(Self::MAGIC);
                }
            }

            /// Drops the value (its keys wipe themselves) and zeroes the block.
            ///
            /// # Safety
            /// As `get`.
            pub(crate) unsafe fn deinit(p: *mut Self) {
                if p.is_null() {
                    return;
                }
                // SAFETY: non-NULL and aligned, per the contract.
                if unsafe { Self::check(p) }.is_ok() {
                    // SAFETY: the magic word says an `$inner` lives there.
                    unsafe {
                        core::ptr::drop_in_place(
                            core::ptr::addr_of_mut!((*p).body).cast::<$inner>(),
                        )
                    };
                }
                // SAFETY: non-NULL, aligned and writable, per the contract;
                // written through the raw pointer, word by word.
                unsafe {
                    core::ptr::addr_of_mut!((*p).magic).write(0);
                    core::ptr::addr_of_mut!((*p).body).write([0; $bytes / 8 - 1]);
                }
            }
        }
    };
}
pub(crate) use opaque;

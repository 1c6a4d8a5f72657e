//! Incremental HMAC-SHA256 (RustCrypto `hmac` over `sha2`, SHA-NI when the
//! CPU has it), for MACs over data too large to hold at once.
//!
//! Wiping: the keyed state (the SHA-256 states after `key ^ ipad` and
//! `key ^ opad`) is as good as the key. `hmac` 0.12 / `digest` 0.10 offer
//! no `zeroize` support and their state is opaque (the `reset` feature
//! only returns to the keyed state), so without `unsafe` it can't be
//! zeroed. As a best effort, dropping or finalizing an
//! [`HmacSha256Stream`] overwrites its state in place with the state of an
//! HMAC under an empty key; copies left behind by moves (and the state
//! inside `finalize`) are not wiped.
//!
//! In WebAssembly (`wasm32-unknown-unknown`), a stream started while a host
//! is registered holds back what it is fed (and a copy of the key, both
//! wiped) until that reaches `host::HMAC_MIN` bytes, then moves to the
//! host's HMAC (the npm package in Node: OpenSSL's SHA-256 with the SHA
//! extensions; see `crate::host`). A shorter stream never leaves the
//! library.

use hmac::{Hmac, Mac};
use sha2::Sha256;
#[cfg(wireseal_wasm_host)]
use zeroize::Zeroizing;

/// An HMAC-SHA256 computation fed piece by piece.
#[cfg_attr(not(wireseal_wasm_host), derive(Clone))]
pub struct HmacSha256Stream {
    inner: Hmac<Sha256>,
    /// Where the stream stands with the host (WebAssembly).
    #[cfg(wireseal_wasm_host)]
    host: HostSide,
}

/// An HMAC stream's relation to the host.
#[cfg(wireseal_wasm_host)]
enum HostSide {
    /// The library's stream throughout: no host when it started, or the
    /// host failed to take it.
    Library,
    /// A host is registered and the stream was fed less than
    /// `host::HMAC_MIN` bytes: `held` is what it was fed, `inner` is keyed
    /// and has absorbed nothing.
    Pending {
        key: Zeroizing<Vec<u8>>,
        held: Zeroizing<Vec<u8>>,
    },
    /// The host's stream `handle`.
    Host {
        host: &'static dyn crate::host::HostCrypto,
        handle: u32,
    },
}

impl HmacSha256Stream {
    /// Starts a MAC under `key` (any length).
    pub fn new(key: &[u8]) -> Self {
        Self {
            inner: <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length"),
            #[cfg(wireseal_wasm_host)]
            host: if crate::host::host_crypto().is_some() {
                HostSide::Pending {
                    key: Zeroizing::new(key.to_vec()),
                    held: Zeroizing::new(Vec::new()),
                }
            } else {
                HostSide::Library
            },
        }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        #[cfg(wireseal_wasm_host)]
        if self.host_update(data) {
            return;
        }
        self.inner.update(data);
    }

    /// The 32-byte tag.
    pub fn finalize(mut self) -> [u8; 32] {
        #[cfg(wireseal_wasm_host)]
        match core::mem::replace(&mut self.host, HostSide::Library) {
            HostSide::Library => {}
            HostSide::Pending { held, .. } => self.inner.update(&held),
            HostSide::Host { host, handle } => {
                let mut tag = [0u8; 32];
                host.hmac_sha256_finish(handle, &mut tag)
                    .expect("the registered host finishes its HMAC-SHA256 streams");
                return tag;
            }
        }
        let keyed = core::mem::replace(&mut self.inner, blank());
        keyed.finalize().into_bytes().into()
    }

    /// Feeds `data` to the host's stream, or holds it back until the
    /// stream is long enough to move there (`true`: `inner` has nothing to
    /// do).
    #[cfg(wireseal_wasm_host)]
    fn host_update(&mut self, data: &[u8]) -> bool {
        match &mut self.host {
            HostSide::Library => false,
            HostSide::Host { host, handle } => {
                host.hmac_sha256_update(*handle, data)
                    .expect("the registered host takes HMAC-SHA256 data");
                true
            }
            HostSide::Pending { key, held } => {
                let total = held.len().saturating_add(data.len());
                if total < crate::host::HMAC_MIN {
                    hold(held, data);
                    return true;
                }
                let moved = crate::host::host_crypto().and_then(|host| {
                    let handle = host.hmac_sha256_new(key).ok()?;
                    let fed = host
                        .hmac_sha256_update(handle, held)
                        .and_then(|()| host.hmac_sha256_update(handle, data));
                    if fed.is_err() {
                        host.hmac_sha256_free(handle);
                        return None;
                    }
                    Some(HostSide::Host { host, handle })
                });
                match moved {
                    Some(side) => {
                        self.host = side;
                        true
                    }
                    None => {
                        self.inner.update(held);
                        self.host = HostSide::Library;
                        false
                    }
                }
            }
        }
    }
}

/// Appends `data` to `held`, wiping the old allocation when it grows.
#[cfg(wireseal_wasm_host)]
fn hold(held: &mut Zeroizing<Vec<u8>>, data: &[u8]) {
    let need = held.len() + data.len();
    if need > held.capacity() {
        let mut grown = Zeroizing::new(Vec::with_capacity(need.max(2 * held.capacity())));
        grown.extend_from_slice(held);
        *held = grown;
    }
    held.extend_from_slice(data);
}

#[cfg(wireseal_wasm_host)]
impl Clone for HmacSha256Stream {
    fn clone(&self) -> Self {
        let host = match &self.host {
            HostSide::Library => HostSide::Library,
            HostSide::Pending { key, held } => HostSide::Pending {
                key: key.clone(),
                held: held.clone(),
            },
            HostSide::Host { host, handle } => HostSide::Host {
                host: *host,
                handle: host
                    .hmac_sha256_clone(*handle)
                    .expect("the registered host copies its HMAC-SHA256 streams"),
            },
        };
        Self {
            inner: self.inner.clone(),
            host,
        }
    }
}

/// An HMAC state under the empty key, to overwrite a keyed one (computed
/// once, then copied: wiping a clone costs a copy, not two compressions).
fn blank() -> Hmac<Sha256> {
    static BLANK: std::sync::OnceLock<Hmac<Sha256>> = std::sync::OnceLock::new();
    BLANK
        .get_or_init(|| {
            <Hmac<Sha256> as Mac>::new_from_slice(&[]).expect("HMAC takes any key length")
        })
        .clone()
}

impl Drop for HmacSha256Stream {
    /// Best-effort wipe (see the module docs): overwrite the keyed state.
    fn drop(&mut self) {
        self.inner = blank();
        core::hint::black_box(&self.inner);
        #[cfg(wireseal_wasm_host)]
        if let HostSide::Host { host, handle } = self.host {
            host.hmac_sha256_free(handle);
        }
    }
}

impl core::fmt::Debug for HmacSha256Stream {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("HmacSha256Stream(redacted)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231 test case 2, fed in pieces.
    #[test]
    fn rfc4231_case2_incremental() {
        let mut m = HmacSha256Stream::new(b"Jefe");
        m.update(b"what do ya ");
        m.update(b"want for nothing?");
        assert_eq!(
            hex::encode(m.finalize()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}

//! Password keys stretched once: [`PasswordKey`] for writing many streams,
//! [`StretchedKey`] (a version 3 key stretched elsewhere or earlier) and
//! [`StretchedKeys`] (a password's keys, stretched once per salt and shared)
//! for reading them.

use super::error::Error;
use super::header::{Header, Version};
use super::kdf;
use super::options::EncryptOptions;
use super::session::SessionMaterial;
use crate::secret::Secret;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};
use zeroize::Zeroizing;

/// A password stretched once, for encrypting many streams with
/// [`Encryptor::from_key`](super::Encryptor::from_key).
///
/// The password key of an AES Crypt stream is the password stretched with
/// the stream's public IV as the salt: 8192 rounds of SHA-256 (version 2,
/// about a millisecond) or PBKDF2-HMAC-SHA512 (version 3, 300,000
/// iterations by default, a tenth of a second or more). A backup of
/// hundreds of files pays that for every file when each has its own salt.
/// A `PasswordKey` pays it once: every stream made from it has its own
/// fresh session IV and session key (the body is encrypted and
/// authenticated under those, as always), and they all carry this key's
/// public IV, whose session blocks are encrypted under this key.
///
/// What that changes: the streams share their public IV, so anyone who
/// sees them can tell they were encrypted with one password at one time.
/// Guessing the password costs the same as before (one stretch per guess
/// opens every stream either way, since they share the password). Readers
/// see ordinary streams.
pub struct PasswordKey {
    opts: EncryptOptions,
    public_iv: [u8; 16],
    key: Secret<32>,
}

impl PasswordKey {
    /// Stretches `password` under a fresh public IV for streams written
    /// with `opts` (slow by design, once).
    ///
    /// # Errors
    ///
    /// As [`Encryptor::new`](super::Encryptor::new): options a reader would
    /// refuse.
    pub fn derive(password: &str, opts: &EncryptOptions) -> Result<Self, Error> {
        opts.check()?;
        let public_iv = SessionMaterial::generate().public_iv;
        let key = kdf::derive(opts.version, password, &public_iv, opts.iterations);
        Ok(Self {
            opts: opts.clone(),
            public_iv,
            key,
        })
    }

    /// The options every stream made from this key is written with.
    pub fn options(&self) -> &EncryptOptions {
        &self.opts
    }

    /// Fresh per-stream values under this key's public IV.
    pub(crate) fn material(&self) -> SessionMaterial {
        SessionMaterial::for_salt(self.public_iv)
    }

    /// The stretched password.
    pub(crate) fn secret(&self) -> &Secret<32> {
        &self.key
    }
}

impl core::fmt::Debug for PasswordKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("PasswordKey(redacted)")
    }
}

/// A version 3 password key stretched ahead of reading: by a platform's own
/// PBKDF2-HMAC-SHA512 (a browser's WebCrypto, which runs it natively and off
/// the calling thread), or once for many streams that share a public IV
/// (those one [`PasswordKey`] wrote).
///
/// Offered to a reader ([`Decryptor::offer_key`](super::Decryptor::offer_key),
/// [`VerifyPass::offer_key`](super::VerifyPass::offer_key),
/// [`OwnedDecryptor::offer_key`](super::OwnedDecryptor::offer_key)), it is
/// used in place of stretching the reader's password when the stream's
/// header is version 3 with this key's public IV and iteration count; for
/// any other stream the password is stretched as usual. The session
/// block's HMAC checks the key either way: a key that is not the password's
/// fails as a wrong password would ([`Error::WrongPassword`]).
pub struct StretchedKey {
    public_iv: [u8; 16],
    iterations: u32,
    key: Secret<32>,
}

impl StretchedKey {
    /// `key`, the PBKDF2-HMAC-SHA512 of the UTF-8 password with
    /// `public_iv` as the salt and `iterations` rounds (32 bytes), derived
    /// by the caller.
    pub fn new(public_iv: [u8; 16], iterations: u32, key: Secret<32>) -> Self {
        Self {
            public_iv,
            iterations,
            key,
        }
    }

    /// Stretches `password` here for the public IV and iteration count a
    /// version 3 header names (slow by design, once for every stream that
    /// shares them); `None` for a header of another version.
    pub fn derive(password: &str, header: &Header) -> Option<Self> {
        let iterations = header
            .iterations
            .filter(|_| header.version == Version::V3)?;
        let key = kdf::v3_key(password, &header.public_iv, iterations);
        Some(Self::new(header.public_iv, iterations, key))
    }

    /// The salt it was stretched with.
    pub fn public_iv(&self) -> &[u8; 16] {
        &self.public_iv
    }

    /// The PBKDF2 rounds it was stretched with.
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// The key, when it was stretched for `header`'s stream (else it is
    /// dropped, and wiped).
    pub(crate) fn into_key_for(self, header: &Header) -> Option<Secret<32>> {
        let fits = header.version == Version::V3
            && header.public_iv == self.public_iv
            && header.iterations == Some(self.iterations);
        fits.then_some(self.key)
    }
}

impl core::fmt::Debug for StretchedKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StretchedKey")
            .field("iterations", &self.iterations)
            .finish_non_exhaustive()
    }
}

/// Password keys remembered by a [`StretchedKeys`] at most (the oldest
/// forgotten first).
const KEPT: usize = 64;

/// One password's keys, each stretched once per salt (public IV) and
/// iteration count and shared by the readers of many streams, on any
/// number of threads.
///
/// The streams one [`PasswordKey`] wrote (a backup run) share their public
/// IV: a reader given the same `StretchedKeys`
/// ([`Decryptor::with_keys`](super::Decryptor::with_keys),
/// [`VerifyPass::with_keys`](super::VerifyPass::with_keys),
/// [`OwnedDecryptor::with_keys`](super::OwnedDecryptor::with_keys)) stretches
/// the password for the first of them and reuses the key for the rest,
/// where a reader per stream would pay PBKDF2's 300,000 rounds for each.
/// Streams with salts of their own cost what they cost before. The first
/// thread to need a key stretches it; others needing the same key wait for
/// it rather than stretching it again. At most 64 keys are kept; the
/// password and the keys are wiped on drop.
pub struct StretchedKeys {
    password: Zeroizing<String>,
    keys: Mutex<VecDeque<Kept>>,
    /// Stretches done, for the tests.
    #[cfg(test)]
    pub(crate) stretches: std::sync::atomic::AtomicUsize,
}

/// A key kept: what it was stretched for, and the key once stretched.
struct Kept {
    v3: bool,
    public_iv: [u8; 16],
    iterations: u32,
    key: Arc<OnceLock<Secret<32>>>,
}

impl StretchedKeys {
    /// The keys of `password`; nothing is stretched yet.
    pub fn new(password: &str) -> Self {
        Self {
            password: Zeroizing::new(password.to_owned()),
            keys: Mutex::new(VecDeque::new()),
            #[cfg(test)]
            stretches: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Keys kept now (at most 64).
    pub(crate) fn kept(&self) -> usize {
        self.kept_keys().len()
    }

    /// The keys kept (a lock poisoned by a panic elsewhere still holds
    /// whole entries: each is pushed or popped in one step).
    fn kept_keys(&self) -> std::sync::MutexGuard<'_, VecDeque<Kept>> {
        self.keys.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The password key of `header`'s stream: the one stretched before for
    /// its salt and iterations, or stretched now.
    pub(crate) fn key_for(&self, header: &Header) -> Secret<32> {
        let v3 = header.version == Version::V3;
        let iterations = header.iterations.unwrap_or(1);
        let slot = {
            let mut keys = self.kept_keys();
            let found = keys.iter().find(|k| {
                k.v3 == v3 && k.public_iv == header.public_iv && k.iterations == iterations
            });
            match found {
                Some(k) => Arc::clone(&k.key),
                None => {
                    if keys.len() >= KEPT {
                        keys.pop_front();
                    }
                    let key = Arc::new(OnceLock::new());
                    keys.push_back(Kept {
                        v3,
                        public_iv: header.public_iv,
                        iterations,
                        key: Arc::clone(&key),
                    });
                    key
                }
            }
        };
        let key = slot.get_or_init(|| {
            #[cfg(test)]
            self.stretches
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            kdf::for_header(&self.password, header)
        });
        Secret::new(*key.expose())
    }
}

impl core::fmt::Debug for StretchedKeys {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StretchedKeys")
            .field("kept", &self.kept())
            .finish_non_exhaustive()
    }
}

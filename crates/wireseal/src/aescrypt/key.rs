//! [`PasswordKey`]: a password stretched once and used for many streams.

use super::error::Error;
use super::kdf;
use super::options::EncryptOptions;
use super::session::SessionMaterial;
use crate::secret::Secret;

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

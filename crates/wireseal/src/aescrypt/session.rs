//! Per-file randomness (public IV, session IV, session key) and the session
//! block that wraps the session IV and key under the password key.

use super::error::Error;
use super::header::Version;
use crate::entropy::{fill_random, ProcessEntropy};
use crate::primitives::aes_cbc::{aes256_cbc_decrypt_in_place, Aes256CbcEnc};
use crate::primitives::sha::{ct_eq, hmac_sha256, sha256_parts};
use crate::secret::Secret;

macro_rules! session_material {
    ($vis:vis) => {
        /// The fresh values one encrypted file needs: the public IV (salt of
        /// the password key), the session IV and the session key.
        ///
        /// Generation is cheap by design: one OS CSPRNG call for all 80
        /// bytes, and one SHA-256 that folds the cached, process-wide context
        /// ([`ProcessEntropy`], computed once per process) into the public
        /// IV. No environment lookup happens per file, and nothing random is
        /// reused. Public only with the `hazmat` feature (to measure it) or
        /// the `test-vectors` feature (to reproduce official streams byte for
        /// byte with `SessionMaterial::from_parts`).
        $vis struct SessionMaterial {
            pub(crate) public_iv: [u8; 16],
            pub(crate) session_iv: [u8; 16],
            pub(crate) session_key: Secret<32>,
        }
    };
}

#[cfg(any(feature = "hazmat", feature = "test-vectors"))]
session_material!(pub);
#[cfg(not(any(feature = "hazmat", feature = "test-vectors")))]
session_material!(pub(crate));

impl SessionMaterial {
    crate::visibility::pub_if_test_vectors! {
        /// Caller-chosen material, for known-answer tests only: reusing
        /// material across files breaks the format's security.
        fn from_parts(public_iv: [u8; 16], session_iv: [u8; 16], session_key: Secret<32>) -> Self {
            Self {
                public_iv,
                session_iv,
                session_key,
            }
        }
    }

    /// A fresh session IV and key under a given public IV: every stream
    /// made from one [`PasswordKey`](super::PasswordKey) shares its salt.
    pub(crate) fn for_salt(public_iv: [u8; 16]) -> Self {
        let mut r = Secret::<48>::new([0u8; 48]);
        fill_random(r.expose_mut());
        let mut session_iv = [0u8; 16];
        session_iv.copy_from_slice(&r.expose()[..16]);
        let mut key = Secret::new([0u8; 32]);
        key.expose_mut().copy_from_slice(&r.expose()[16..]);
        Self {
            public_iv,
            session_iv,
            session_key: key,
        }
    }

    /// Fresh material from the OS CSPRNG.
    pub fn generate() -> Self {
        let mut r = Secret::<80>::new([0u8; 80]);
        fill_random(r.expose_mut());
        let r = r.expose();
        let digest = sha256_parts(&[
            b"wireseal aescrypt public iv",
            ProcessEntropy::get().context(),
            &r[..32],
        ]);
        let mut public_iv = [0u8; 16];
        public_iv.copy_from_slice(&digest[..16]);
        let mut session_iv = [0u8; 16];
        session_iv.copy_from_slice(&r[32..48]);
        let mut key = Secret::new([0u8; 32]);
        key.expose_mut().copy_from_slice(&r[48..80]);
        Self {
            public_iv,
            session_iv,
            session_key: key,
        }
    }
}

impl core::fmt::Debug for SessionMaterial {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SessionMaterial(redacted)")
    }
}

fn session_mac(version: Version, password_key: &Secret<32>, enc: &[u8]) -> [u8; 32] {
    if version == Version::V3 {
        hmac_sha256(password_key.expose(), &[enc, &[version.as_u8()]])
    } else {
        hmac_sha256(password_key.expose(), &[enc])
    }
}

/// Encrypts the session IV and key under the password key: 48 bytes of
/// AES-256-CBC then the HMAC (which covers the version octet in version 3).
pub(crate) fn seal_session(
    version: Version,
    password_key: &Secret<32>,
    m: &SessionMaterial,
) -> [u8; 80] {
    let mut block = [0u8; 80];
    block[..16].copy_from_slice(&m.session_iv);
    block[16..48].copy_from_slice(m.session_key.expose());
    Aes256CbcEnc::new(password_key.expose(), &m.public_iv).encrypt_in_place(&mut block[..48]);
    let mac = session_mac(version, password_key, &block[..48]);
    block[48..].copy_from_slice(&mac);
    block
}

/// Checks the session block's HMAC (constant time) and unwraps the session
/// IV and key. A mismatch means the password is wrong.
pub(crate) fn open_session(
    version: Version,
    password_key: &Secret<32>,
    public_iv: &[u8; 16],
    block: &[u8; 80],
) -> Result<([u8; 16], Secret<32>), Error> {
    let mac = session_mac(version, password_key, &block[..48]);
    if !ct_eq(&mac, &block[48..]) {
        return Err(Error::WrongPassword);
    }
    let mut plain = Secret::<48>::new([0u8; 48]);
    plain.expose_mut().copy_from_slice(&block[..48]);
    aes256_cbc_decrypt_in_place(password_key.expose(), public_iv, plain.expose_mut());
    let mut iv = [0u8; 16];
    iv.copy_from_slice(&plain.expose()[..16]);
    let mut key = Secret::new([0u8; 32]);
    key.expose_mut().copy_from_slice(&plain.expose()[16..]);
    Ok((iv, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_is_fresh_each_time() {
        let a = SessionMaterial::generate();
        let b = SessionMaterial::generate();
        assert_ne!(a.public_iv, b.public_iv);
        assert_ne!(a.session_iv, b.session_iv);
        assert_ne!(a.session_key.expose(), b.session_key.expose());
    }

    #[test]
    fn session_block_round_trip_and_wrong_key() {
        let m = SessionMaterial::generate();
        let k = Secret::new([9u8; 32]);
        for v in [Version::V2, Version::V3] {
            let blk = seal_session(v, &k, &m);
            let (iv, key) = open_session(v, &k, &m.public_iv, &blk).unwrap();
            assert_eq!(iv, m.session_iv);
            assert_eq!(key.expose(), m.session_key.expose());
            assert!(matches!(
                open_session(v, &Secret::new([8u8; 32]), &m.public_iv, &blk),
                Err(Error::WrongPassword)
            ));
        }
        // The version octet is bound into the version 3 MAC only.
        let blk = seal_session(Version::V2, &k, &m);
        assert!(open_session(Version::V3, &k, &m.public_iv, &blk).is_err());
    }
}

//! `ChannelKey` and `LocalIdentity`: the library's keys, each keeping what
//! it was made from (wiped on drop) so that a `Decoder` can make its own
//! copy by the library's rule.

use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::meshcore as mc;
use zeroize::Zeroizing;

/// How a channel key was given: a decoder's own copy is made again from
/// it by the library's rule (the library's keys are not `Clone`).
enum Source {
    Bytes(Zeroizing<Vec<u8>>),
    Base64(Zeroizing<String>),
    Hashtag(String),
    Public,
}

impl Source {
    fn key(&self) -> Result<mc::ChannelKey, mc::Error> {
        match self {
            Source::Bytes(b) => mc::ChannelKey::from_bytes(b),
            Source::Base64(t) => mc::ChannelKey::from_base64(t),
            Source::Hashtag(n) => mc::ChannelKey::hashtag(n),
            Source::Public => Ok(mc::ChannelKey::public()),
        }
    }
}

/// A group channel's key: 16 or 32 bytes, found by its one-byte hash.
#[pyclass(module = "wireseal.meshcore", frozen)]
pub struct ChannelKey {
    pub(super) inner: mc::ChannelKey,
    source: Source,
}

impl ChannelKey {
    fn of(source: Source) -> PyResult<Self> {
        let inner = source.key().map_err(errors::meshcore)?;
        Ok(Self { inner, source })
    }

    /// A library key of the same channel, for a decoder of its own.
    pub(super) fn copy(&self) -> mc::ChannelKey {
        self.source.key().expect("a key the library read once")
    }
}

#[pymethods]
impl ChannelKey {
    /// A channel of a 16- or 32-byte key; `InvalidKeyError` otherwise.
    #[staticmethod]
    fn from_bytes(key: &[u8]) -> PyResult<Self> {
        Self::of(Source::Bytes(Zeroizing::new(key.to_vec())))
    }

    /// A channel of base64 key text as the apps share it (padding
    /// optional); `InvalidKeyError` when it is not base64 of 16 or 32 bytes
    /// (the text is never repeated).
    #[staticmethod]
    fn from_base64(text: &str) -> PyResult<Self> {
        Self::of(Source::Base64(Zeroizing::new(text.to_owned())))
    }

    /// A hashtag channel (`"#test"` or `"test"`, case kept): the key is
    /// SHA-256 of `#name`, first 16 bytes; `InvalidInputError` for an empty
    /// name or one with white space or control characters.
    #[staticmethod]
    fn hashtag(name: &str) -> PyResult<Self> {
        Self::of(Source::Hashtag(name.to_owned()))
    }

    /// The public channel (key `izOH6cXN6mrJ5e26oRXNcg==`, hash 0x11).
    #[staticmethod]
    fn public() -> PyResult<Self> {
        Self::of(Source::Public)
    }

    /// The channel's hash byte, as packets carry it.
    #[getter]
    fn hash(&self) -> u8 {
        self.inner.hash()
    }

    /// The key's length (16 or 32).
    #[getter]
    fn key_len(&self) -> usize {
        self.inner.key_len()
    }

    fn __repr__(&self) -> String {
        format!("ChannelKey(hash=0x{:02x}, <secret>)", self.inner.hash())
    }
}

/// Our MeshCore identity: the firmware's 64-byte Ed25519 private key.
#[pyclass(module = "wireseal.meshcore", frozen)]
pub struct LocalIdentity {
    pub(super) inner: mc::LocalIdentity,
}

impl LocalIdentity {
    /// A library identity of the same key, for a decoder of its own.
    pub(super) fn copy(&self) -> mc::LocalIdentity {
        mc::LocalIdentity::from_private_key(self.inner.private_key().expose())
            .expect("a key that was read once")
    }
}

#[pymethods]
impl LocalIdentity {
    /// Reads our key as hex: 64 characters for a seed, 128 for the
    /// firmware's `prv.key`; `InvalidKeyError` otherwise (the text is
    /// never repeated).
    #[staticmethod]
    fn from_hex(text: &str) -> PyResult<Self> {
        let inner = mc::LocalIdentity::from_hex(text).map_err(errors::meshcore)?;
        Ok(Self { inner })
    }

    /// The identity of a 32-byte Ed25519 seed (RFC 8032 key generation).
    #[staticmethod]
    fn from_seed(seed: &[u8]) -> PyResult<Self> {
        let seed = Zeroizing::new(errors::arr32("seed", seed)?);
        let inner = mc::LocalIdentity::from_seed(&seed).map_err(errors::meshcore)?;
        Ok(Self { inner })
    }

    /// The identity of the firmware's 64-byte private key;
    /// `InvalidKeyError` when its scalar is not clamped or its public key
    /// starts with 00 or FF.
    #[staticmethod]
    fn from_private_key(private_key: &[u8]) -> PyResult<Self> {
        let key: Zeroizing<[u8; 64]> = Zeroizing::new(
            private_key
                .try_into()
                .map_err(|_| errors::key_len("private key", 64, private_key.len()))?,
        );
        let inner = mc::LocalIdentity::from_private_key(&key).map_err(errors::meshcore)?;
        Ok(Self { inner })
    }

    /// A fresh identity from the OS CSPRNG.
    #[staticmethod]
    fn generate() -> Self {
        Self {
            inner: mc::LocalIdentity::generate(),
        }
    }

    /// The Ed25519 public key (32 bytes).
    #[getter]
    fn public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.public().as_bytes())
    }

    /// The firmware's 64-byte private key (what `get prv.key` prints), for
    /// export.
    fn private_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.private_key().expose())
    }

    /// Our RFC 8032 signature (64 bytes) of `message`.
    fn sign<'py>(&self, py: Python<'py>, message: &[u8]) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.sign(message))
    }

    fn __repr__(&self) -> String {
        let k = self.inner.public().as_bytes();
        let hex: String = k.iter().map(|b| format!("{b:02x}")).collect();
        format!("LocalIdentity(public_key={hex})")
    }
}

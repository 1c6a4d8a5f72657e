//! `wireseal.bip324`: the BIP324 v2 transport, sans-IO. [`Connection`]
//! wraps the library's `bip324::Connection`: it is fed the bytes received
//! and hands back the bytes to send and the contents of the packets
//! received; [`KeyPool`] pre-generates ElligatorSwift keys. With the
//! `test-vectors` feature (test builds only), `PacketCipher` is the packet
//! layer alone, keyed from a caller-chosen ECDH shared secret as in the
//! BIP's vectors.

use crate::bip324_pool::KeyPool;
use crate::errors;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::bip324::{self as b2, Config, Event, Network, PacketType, Role};
use wireseal::keys::EllSwiftKeypair;

/// A network given as a name or magic (`str`, parsed by the library) or as
/// the 4 magic bytes.
fn network(n: Option<&Bound<'_, PyAny>>) -> PyResult<Network> {
    let Some(n) = n else {
        return Ok(Network::MAINNET);
    };
    let parsed = match n.extract::<Vec<u8>>() {
        Ok(b) if !n.is_instance_of::<pyo3::types::PyString>() => Network::try_from(&b[..]),
        _ => n.extract::<String>()?.parse::<Network>(),
    };
    parsed.map_err(errors::bip324)
}

fn role(s: &str) -> PyResult<Role> {
    s.parse::<Role>().map_err(errors::bip324)
}

fn kind(decoy: bool) -> PacketType {
    if decoy {
        PacketType::Decoy
    } else {
        PacketType::Genuine
    }
}

/// One end of a v2 connection, sans-IO: `receive_data(bytes)` returns the
/// contents of the application packets completed by those bytes (decoys
/// are dropped); `data_to_send()` returns what to write to the peer;
/// `send(contents)` queues a packet once `established`.
#[pyclass(module = "wireseal.bip324")]
pub struct Connection {
    inner: b2::Connection,
    peer_is_v1: bool,
}

#[pymethods]
impl Connection {
    /// A connection in `role` (`"initiator"` or `"responder"`) on
    /// `network` (a name, the magic as hex, or the 4 magic bytes), sending
    /// `garbage` after its key and `decoys` before its version packet. The
    /// key is `secret_key` (32 bytes; its encoding still gets fresh
    /// randomness) when given, else from `pool`, else freshly generated.
    #[new]
    #[pyo3(signature = (role, *, network=None, garbage=b"".as_slice(), decoys=Vec::new(), max_contents=None, pool=None, secret_key=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        role: &str,
        network: Option<Bound<'_, PyAny>>,
        garbage: &[u8],
        decoys: Vec<Vec<u8>>,
        max_contents: Option<usize>,
        pool: Option<&Bound<'_, KeyPool>>,
        secret_key: Option<&[u8]>,
    ) -> PyResult<Self> {
        let role = self::role(role)?;
        let mut config = Config::new(self::network(network.as_ref())?)
            .with_garbage(garbage.to_vec())
            .with_decoys(decoys);
        if let Some(m) = max_contents {
            config = config.with_max_contents(m);
        }
        let key = match (secret_key, pool) {
            (Some(k), _) => EllSwiftKeypair::from_secret_bytes(&errors::arr32("secret key", k)?)
                .map_err(|e| errors::bip324(e.into()))?,
            (None, Some(p)) => p.get().take(py),
            (None, None) => py.allow_threads(EllSwiftKeypair::generate),
        };
        let inner = b2::Connection::new(role, key, &config).map_err(errors::bip324)?;
        Ok(Self {
            inner,
            peer_is_v1: false,
        })
    }

    /// True after a responder's `receive_data` raised
    /// `UnsupportedVersionError` because the peer opened with a v1
    /// `version` message: fall back to v1 with the bytes received so far
    /// (nothing was sent to the peer).
    #[getter]
    fn peer_is_v1(&self) -> bool {
        self.peer_is_v1
    }

    /// Whether the handshake is complete (the peer's version packet arrived).
    #[getter]
    fn established(&self) -> bool {
        self.inner.is_established()
    }

    /// The network, as its name or its magic in hex.
    #[getter]
    fn network(&self) -> String {
        self.inner.network().to_string()
    }

    /// The session id (32 bytes) once the keys are derived, else `None`.
    #[getter]
    fn session_id<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.inner.session_id().map(|s| PyBytes::new(py, s))
    }

    /// The bytes to write to the peer (and forgets them). After a failure
    /// it still returns what was queued before it (e.g. our terminator, so
    /// that a peer on another network sees the mismatch too).
    fn data_to_send<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let out = self.inner.transmit();
        let b = PyBytes::new(py, out);
        let n = out.len();
        self.inner.transmitted(n);
        b
    }

    /// Queues a packet with `contents` (a decoy when `decoy=True`).
    #[pyo3(signature = (contents, *, decoy=false))]
    fn send(&mut self, contents: &[u8], decoy: bool) -> PyResult<()> {
        self.inner
            .send(contents, kind(decoy))
            .map_err(errors::bip324)
    }

    /// Feeds received bytes; returns the contents of every application
    /// packet they complete. Any failure poisons the connection
    /// (`StateError` afterwards).
    fn receive_data<'py>(
        &mut self,
        py: Python<'py>,
        data: &[u8],
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let inner = &mut self.inner;
        let r = py.allow_threads(|| -> Result<Vec<Vec<u8>>, b2::Error> {
            inner.receive(data)?;
            let mut got = Vec::new();
            while let Some(e) = inner.poll_event()? {
                if let Event::Packet(p) = e {
                    got.push(p.to_vec());
                }
            }
            Ok(got)
        });
        match r {
            Ok(got) => Ok(got.iter().map(|c| PyBytes::new(py, c)).collect()),
            Err(e) => {
                self.peer_is_v1 = e == b2::Error::V1Peer;
                Err(errors::bip324(e))
            }
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Connection>()?;
    m.add_class::<KeyPool>()?;
    #[cfg(feature = "test-vectors")]
    m.add_class::<vectors::PacketCipher>()?;
    m.add("REKEY_INTERVAL", b2::REKEY_INTERVAL)?;
    m.add("MAX_GARBAGE_LEN", b2::MAX_GARBAGE_LEN)?;
    m.add(
        "NETWORKS",
        b2::Network::KNOWN
            .iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>(),
    )?;
    Ok(())
}

/// The packet layer keyed from a caller-chosen shared secret: only with
/// the `test-vectors` feature, which the package's tests build with and a
/// release wheel leaves out.
#[cfg(feature = "test-vectors")]
mod vectors {
    use super::kind;
    use crate::errors;
    use pyo3::prelude::*;
    use pyo3::types::PyBytes;
    use wireseal::bip324::{Next, PacketType, Role, Session, SessionKeys, HEADER_LEN, TAG_LEN};
    use wireseal::secret::Secret;

    /// **Test vectors only.** The packet layer of one side of a session,
    /// keyed from the 32-byte BIP324 ECDH shared secret (as in the BIP's
    /// test vectors): FSChaCha20 lengths, FSChaCha20Poly1305 contents,
    /// rekeying every 224 packets. Two ciphers from the same secret reuse
    /// every nonce; real sessions come from `Connection`.
    #[pyclass(module = "wireseal.bip324")]
    pub struct PacketCipher {
        session: Session,
        keys: SessionKeys,
        role: Role,
    }

    #[pymethods]
    impl PacketCipher {
        /// Keys for `role` from `shared_secret` on `network`; packets
        /// received may carry up to `max_contents` bytes (Bitcoin Core's
        /// limit when `None`).
        #[new]
        #[pyo3(signature = (shared_secret, role, *, network=None, max_contents=None))]
        fn new(
            shared_secret: &[u8],
            role: &str,
            network: Option<Bound<'_, PyAny>>,
            max_contents: Option<usize>,
        ) -> PyResult<Self> {
            let s = Secret::new(errors::arr32("shared secret", shared_secret)?);
            let keys = SessionKeys::from_shared_secret(&s, super::network(network.as_ref())?);
            let role = super::role(role)?;
            let mut session = Session::from_keys(&keys, role);
            if let Some(m) = max_contents {
                session = session.with_max_contents(m);
            }
            Ok(Self {
                session,
                keys,
                role,
            })
        }

        /// The session id (32 bytes).
        #[getter]
        fn session_id<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
            PyBytes::new(py, &self.keys.session_id)
        }

        /// `(send, receive)` garbage terminators (16 bytes each).
        #[getter]
        fn garbage_terminators<'py>(
            &self,
            py: Python<'py>,
        ) -> (Bound<'py, PyBytes>, Bound<'py, PyBytes>) {
            let (s, r) = self.keys.terminators(self.role);
            (PyBytes::new(py, &s), PyBytes::new(py, &r))
        }

        /// Encrypts one packet; `aad` is the garbage for the first packet.
        #[pyo3(signature = (contents, *, decoy=false, aad=b"".as_slice()))]
        fn seal<'py>(
            &mut self,
            py: Python<'py>,
            contents: &[u8],
            decoy: bool,
            aad: &[u8],
        ) -> PyResult<Bound<'py, PyBytes>> {
            let v = self
                .session
                .sender
                .seal_to_vec(contents, kind(decoy), aad)
                .map_err(errors::bip324)?;
            Ok(PyBytes::new(py, &v))
        }

        /// Decrypts the packet at the start of `data`. Returns
        /// `(contents, decoy, consumed)`, or `None` when more bytes are
        /// needed. `AuthError` when the tag fails; any failure poisons the
        /// receiver.
        #[pyo3(signature = (data, *, aad=b"".as_slice()))]
        fn open<'py>(
            &mut self,
            py: Python<'py>,
            data: &[u8],
            aad: &[u8],
        ) -> PyResult<Option<(Bound<'py, PyBytes>, bool, usize)>> {
            let mut buf = data.to_vec();
            match self
                .session
                .receiver
                .open_next(aad, &mut buf)
                .map_err(errors::bip324)?
            {
                Next::NeedMore(_) => Ok(None),
                Next::Packet { packet, consumed } => Ok(Some((
                    PyBytes::new(py, packet.contents),
                    packet.kind == PacketType::Decoy,
                    consumed,
                ))),
            }
        }

        /// The first half of `open`, for callers that read the length field
        /// first: decrypts the 3-byte length field of the next packet and
        /// returns its contents length; the packet's remaining
        /// `contents length + 17` bytes go to `open_body`. `TooLongError`
        /// over `max_contents`; any failure poisons the receiver.
        fn decrypt_length(&mut self, field: &[u8]) -> PyResult<usize> {
            let f: [u8; 3] = field.try_into().map_err(|_| {
                errors::bip324(wireseal::bip324::Error::Truncated {
                    len: field.len(),
                    min: 3,
                })
            })?;
            let rest = self
                .session
                .receiver
                .decrypt_length(f)
                .map_err(errors::bip324)?;
            Ok(rest - HEADER_LEN - TAG_LEN)
        }

        /// The second half of `open`: verifies and decrypts `body` (header,
        /// contents and tag of the packet whose length `decrypt_length` just
        /// returned). Returns `(contents, decoy)`. `AuthError` when the tag
        /// fails; any failure poisons the receiver.
        #[pyo3(signature = (body, *, aad=b"".as_slice()))]
        fn open_body<'py>(
            &mut self,
            py: Python<'py>,
            body: &[u8],
            aad: &[u8],
        ) -> PyResult<(Bound<'py, PyBytes>, bool)> {
            let mut buf = body.to_vec();
            let p = self
                .session
                .receiver
                .open_body(aad, &mut buf)
                .map_err(errors::bip324)?;
            Ok((PyBytes::new(py, p.contents), p.kind == PacketType::Decoy))
        }
    }
}

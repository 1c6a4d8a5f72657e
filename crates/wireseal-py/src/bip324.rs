//! `wireseal.bip324`: the BIP324 v2 transport, sans-IO. A [`Connection`]
//! is fed the bytes received and hands back the bytes to send and the
//! contents of the packets received; [`PacketCipher`] is the packet layer
//! alone, keyed from an ECDH shared secret; [`KeyPool`] pre-generates
//! ElligatorSwift keys.

use crate::bip324_pool::KeyPool;
use crate::errors;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wireseal::bip324::{
    self as b2, Classified as ClassifiedHandshake, GarbageRead, Handshake, KeyRead, Network, Next,
    PacketType, Role, Session, SessionKeys, VersionRead,
};
use wireseal::keys::EllSwiftKeypair;
use wireseal::secret::Secret;

fn network(n: Option<&Bound<'_, PyAny>>) -> PyResult<Network> {
    let Some(n) = n else {
        return Ok(Network::MAINNET);
    };
    if let Ok(b) = n.extract::<Vec<u8>>() {
        let m: [u8; 4] = b
            .as_slice()
            .try_into()
            .map_err(|_| PyValueError::new_err("a network magic is 4 bytes"))?;
        return Ok(Network::custom(m));
    }
    let s: String = n.extract()?;
    Ok(match s.as_str() {
        "mainnet" => Network::MAINNET,
        "testnet" => Network::TESTNET,
        "testnet4" => Network::TESTNET4,
        "signet" => Network::SIGNET,
        "regtest" => Network::REGTEST,
        _ => return Err(PyValueError::new_err(format!("unknown network {s:?}"))),
    })
}

fn role(s: &str) -> PyResult<Role> {
    match s {
        "initiator" => Ok(Role::Initiator),
        "responder" => Ok(Role::Responder),
        _ => Err(PyValueError::new_err(
            "role must be \"initiator\" or \"responder\"",
        )),
    }
}

fn kind(decoy: bool) -> PacketType {
    if decoy {
        PacketType::Decoy
    } else {
        PacketType::Genuine
    }
}

enum State {
    Awaiting(Handshake<b2::AwaitingPeer>),
    KeySent(Handshake<b2::KeySent>),
    Derived(Handshake<b2::KeysDerived>),
    Garbage(Handshake<b2::VersionSent>),
    Version(Handshake<b2::GarbageReceived>),
    Done(Session),
    Failed,
}

/// One end of a v2 connection, sans-IO: `receive_data(bytes)` returns the
/// contents of the application packets completed by those bytes (decoys
/// are dropped); `data_to_send()` returns what to write to the peer;
/// `send(contents)` queues a packet once `established`.
#[pyclass(module = "wireseal.bip324")]
pub struct Connection {
    state: State,
    decoys: Vec<Vec<u8>>,
    max_contents: Option<usize>,
    inbuf: Vec<u8>,
    out: Vec<u8>,
    session_id: Option<[u8; 32]>,
    peer_is_v1: bool,
}

#[pymethods]
impl Connection {
    /// A connection in `role` (`"initiator"` or `"responder"`) on
    /// `network` (a name or the 4-byte magic), sending `garbage` after its
    /// key and `decoys` before its version packet. The key is `secret_key`
    /// (32 bytes, for reproducible tests) when given, else from `pool`,
    /// else freshly generated.
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
        let net = self::network(network.as_ref())?;
        let key = match (secret_key, pool) {
            (Some(k), _) => EllSwiftKeypair::from_secret_bytes(&errors::arr32("secret key", k)?)
                .map_err(|_| {
                    errors::InvalidKeyError::new_err("not a valid secp256k1 private key")
                })?,
            (None, Some(p)) => p.get().take(py),
            (None, None) => py.allow_threads(EllSwiftKeypair::generate),
        };
        let mut out = Vec::new();
        let state = match self::role(role)? {
            Role::Initiator => {
                let h = Handshake::initiator(net, key, garbage).map_err(errors::bip324)?;
                State::KeySent(h.write_key(&mut out))
            }
            _ => State::Awaiting(Handshake::accept(net, key, garbage).map_err(errors::bip324)?),
        };
        Ok(Self {
            state,
            decoys,
            max_contents,
            inbuf: Vec::new(),
            out,
            session_id: None,
            peer_is_v1: false,
        })
    }

    /// True after a responder's `receive_data` raised `MalformedError`
    /// because the peer opened with a v1 `version` message: fall back to v1
    /// with the bytes received so far (nothing was sent to the peer).
    #[getter]
    fn peer_is_v1(&self) -> bool {
        self.peer_is_v1
    }

    /// Whether the handshake is complete (the peer's version packet arrived).
    #[getter]
    fn established(&self) -> bool {
        matches!(self.state, State::Done(_))
    }

    /// The session id (32 bytes) once the keys are derived, else `None`.
    #[getter]
    fn session_id<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.session_id.map(|s| PyBytes::new(py, &s))
    }

    /// The bytes to write to the peer (and forgets them).
    fn data_to_send<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let b = PyBytes::new(py, &self.out);
        self.out.clear();
        b
    }

    /// Queues a packet with `contents` (a decoy when `decoy=True`).
    #[pyo3(signature = (contents, *, decoy=false))]
    fn send(&mut self, contents: &[u8], decoy: bool) -> PyResult<()> {
        let State::Done(s) = &mut self.state else {
            return Err(errors::StateError::new_err("the handshake is not complete"));
        };
        let start = self.out.len();
        self.out
            .resize(start + Session::sealed_len(contents.len()), 0);
        s.seal_into(contents, kind(decoy), &mut self.out[start..])
            .map(|_| ())
            .map_err(|e| {
                self.out.truncate(start);
                errors::bip324(e)
            })
    }

    /// Feeds received bytes; returns the contents of every application
    /// packet they complete. Any failure poisons the connection.
    fn receive_data<'py>(
        &mut self,
        py: Python<'py>,
        data: &[u8],
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        self.inbuf.extend_from_slice(data);
        let mut got = Vec::new();
        let r = py.allow_threads(|| self.advance(&mut got));
        if let Err(e) = r {
            self.state = State::Failed;
            return Err(e);
        }
        Ok(got.iter().map(|c| PyBytes::new(py, c)).collect())
    }
}

impl Connection {
    fn advance(&mut self, got: &mut Vec<Vec<u8>>) -> PyResult<()> {
        let mut pos = 0;
        let res = loop {
            let st = std::mem::replace(&mut self.state, State::Failed);
            let input = &mut self.inbuf[pos..];
            let (next, progressed) = match st {
                State::Awaiting(h) => match h.classify(input) {
                    ClassifiedHandshake::NeedMore(h) => (State::Awaiting(h), false),
                    ClassifiedHandshake::V1 => {
                        self.peer_is_v1 = true;
                        break Err(errors::MalformedError::new_err(
                            "peer is not v2: it sent a v1 version message",
                        ));
                    }
                    ClassifiedHandshake::V2(h) => {
                        (State::KeySent(h.write_key(&mut self.out)), true)
                    }
                },
                State::KeySent(h) => match h.read_key(input) {
                    KeyRead::NeedMore(h) => (State::KeySent(h), false),
                    KeyRead::V1Peer => {
                        self.peer_is_v1 = true;
                        break Err(errors::MalformedError::new_err(
                            "peer is not v2: it sent a v1 version message",
                        ));
                    }
                    KeyRead::Derived {
                        handshake,
                        consumed,
                    } => {
                        pos += consumed;
                        self.session_id = Some(*handshake.session_id());
                        (State::Derived(handshake), true)
                    }
                },
                State::Derived(h) => {
                    let decoys: Vec<&[u8]> = self.decoys.iter().map(Vec::as_slice).collect();
                    match h.write_version(&decoys, &mut self.out) {
                        Ok(h) => (State::Garbage(h), true),
                        Err(e) => break Err(errors::bip324(e)),
                    }
                }
                State::Garbage(h) => match h.read_garbage(input) {
                    Ok(GarbageRead::NeedMore(h)) => (State::Garbage(h), false),
                    Ok(GarbageRead::Found {
                        handshake,
                        consumed,
                    }) => {
                        pos += consumed;
                        (State::Version(handshake), true)
                    }
                    Err(e) => break Err(errors::bip324(e)),
                },
                State::Version(h) => match h.read_version(input) {
                    Ok(VersionRead::NeedMore(h, _)) => (State::Version(h), false),
                    Ok(VersionRead::Decoy(h, consumed)) => {
                        pos += consumed;
                        (State::Version(h), true)
                    }
                    Ok(VersionRead::Done {
                        mut session,
                        consumed,
                    }) => {
                        pos += consumed;
                        if let Some(m) = self.max_contents {
                            session.receiver.set_max_contents(m);
                        }
                        (State::Done(session), true)
                    }
                    Err(e) => break Err(errors::bip324(e)),
                },
                State::Done(mut s) => match s.open_next(input) {
                    Ok(Next::NeedMore(_)) => (State::Done(s), false),
                    Ok(Next::Packet { packet, consumed }) => {
                        if packet.kind == PacketType::Genuine {
                            got.push(packet.contents.to_vec());
                        }
                        pos += consumed;
                        (State::Done(s), true)
                    }
                    Err(e) => break Err(errors::bip324(e)),
                },
                State::Failed => {
                    break Err(errors::StateError::new_err("the connection failed earlier"))
                }
            };
            self.state = next;
            if !progressed {
                break Ok(());
            }
        };
        self.inbuf.drain(..pos);
        res
    }
}

/// The packet layer of one side of a session, keyed from the 32-byte
/// BIP324 ECDH shared secret (as in the BIP's test vectors): FSChaCha20
/// lengths, FSChaCha20Poly1305 contents, rekeying every 224 packets.
#[pyclass(module = "wireseal.bip324")]
pub struct PacketCipher {
    session: Session,
    keys: SessionKeys,
    role: Role,
}

#[pymethods]
impl PacketCipher {
    /// Keys for `role` from `shared_secret` on `network`; packets received
    /// may carry up to `max_contents` bytes (Bitcoin Core's limit when
    /// `None`).
    #[new]
    #[pyo3(signature = (shared_secret, role, *, network=None, max_contents=None))]
    fn new(
        shared_secret: &[u8],
        role: &str,
        network: Option<Bound<'_, PyAny>>,
        max_contents: Option<usize>,
    ) -> PyResult<Self> {
        let s = Secret::new(errors::arr32("shared secret", shared_secret)?);
        let keys = SessionKeys::from_shared_secret(&s, self::network(network.as_ref())?);
        let role = self::role(role)?;
        let mut session = Session::from_keys(&keys, role);
        if let Some(m) = max_contents {
            session.receiver.set_max_contents(m);
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
    /// `(contents, decoy, consumed)`, or `None` when more bytes are needed.
    /// `AuthError` when the tag fails; any failure poisons the receiver.
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
    /// `contents length + 17` bytes go to `open_body`. `TooLongError` over
    /// `max_contents`; any failure poisons the receiver.
    fn decrypt_length(&mut self, field: &[u8]) -> PyResult<usize> {
        let f: [u8; 3] = field
            .try_into()
            .map_err(|_| errors::MalformedError::new_err("a length field is 3 bytes"))?;
        let rest = self
            .session
            .receiver
            .decrypt_length(f)
            .map_err(errors::bip324)?;
        Ok(rest - 17)
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
            .open_in_place(aad, &mut buf)
            .map_err(errors::bip324)?;
        Ok((PyBytes::new(py, p.contents), p.kind == PacketType::Decoy))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Connection>()?;
    m.add_class::<PacketCipher>()?;
    m.add_class::<KeyPool>()?;
    m.add("REKEY_INTERVAL", b2::REKEY_INTERVAL)?;
    m.add("MAX_GARBAGE_LEN", b2::MAX_GARBAGE_LEN)?;
    Ok(())
}

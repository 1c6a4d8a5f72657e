//! Receiving: dispatch by first byte, in the order peers use, and what a
//! node accepts: strict (no unencrypted document), permissive (anything, for
//! legacy nodes) or by policy (nothing below what the policy could send).
//!
//! A policy receiver ([`Receiver::with_policy`]) classifies each document
//! with a caller-supplied function (after decryption for a mesh-wide frame;
//! as received for a plain one) and rejects it with
//! [`Error::BelowPolicy`] when it arrived below
//! [`Policy::required_floor`](policy::Policy::required_floor) for its type and link: plain where mesh-wide
//! was required, mesh-wide where per-peer was required. Plain documents the
//! policy itself sends plain (with the defaults at `Selective`: counters and
//! heartbeats) are accepted. A plain document is unauthenticated, so its
//! type is whatever its bytes claim: the policy limits what may travel
//! plain, it cannot vouch for who sent it.
//!
//! Peers look at a frame of at least 2 bytes and test 0xB0 (key exchange),
//! 0xAF (per-peer E2EE) and 0xB1 (relay envelope) first; anything else is a
//! document, which is mesh-wide encrypted when it starts with 0xAE and plain
//! otherwise.
//!
//! **Hazard** (inherited from the wire format, kept for compatibility): in an
//! unencrypted mesh a plain document whose first byte is 0xAE–0xB1 is taken
//! for an encrypted or control frame and dropped. Plain documents must not
//! start with those bytes (peat documents start with a version byte, so
//! they do not).

use super::mesh::MeshKey;
use super::policy::{self, DataType, Link, Policy, Protection};
use super::{Error, KEY_EXCHANGE_MARKER, MESH_MARKER, PEER_MARKER, RELAY_MARKER};

/// What kind of frame a byte string is, judged by its first byte exactly as
/// peers judge it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// 0xB0: a key exchange.
    KeyExchange,
    /// 0xAF: a per-peer E2EE frame.
    PeerE2ee,
    /// 0xB1: a multi-hop relay envelope (not opened here).
    RelayEnvelope,
    /// 0xAE: a mesh-wide encrypted document.
    MeshWide,
    /// Anything else: an unencrypted document.
    Plain,
}

/// Classifies `frame` by its first byte, in the peers' order.
pub fn classify(frame: &[u8]) -> FrameKind {
    if frame.len() < 2 {
        return FrameKind::Plain;
    }
    match frame[0] {
        KEY_EXCHANGE_MARKER => FrameKind::KeyExchange,
        PEER_MARKER => FrameKind::PeerE2ee,
        RELAY_MARKER => FrameKind::RelayEnvelope,
        MESH_MARKER => FrameKind::MeshWide,
        _ => FrameKind::Plain,
    }
}

/// Whether unencrypted documents are accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Reject unencrypted documents (peat-btle's `strict_encryption`).
    #[default]
    Strict,
    /// Accept them, for legacy nodes that do not encrypt.
    Permissive,
}

/// A received frame after dispatch.
#[derive(Debug, PartialEq, Eq)]
pub enum Received<'a> {
    /// A document: decrypted (mesh-wide) or accepted plain (permissive mode).
    Document {
        /// The document bytes.
        bytes: std::borrow::Cow<'a, [u8]>,
        /// How it arrived: [`Protection::MeshWide`] (decrypted here) or
        /// [`Protection::Plain`].
        protection: Protection,
    },
    /// A key exchange: hand to [`super::PeerSessions::handle_key_exchange`].
    KeyExchange(&'a [u8]),
    /// A per-peer frame: hand to [`super::PeerSessions::open_to_vec`].
    PeerE2ee(&'a [u8]),
    /// A relay envelope: hand to the relay layer.
    RelayEnvelope(&'a [u8]),
}

/// Tells a document's type from its (decrypted) bytes; supplied by the
/// application, which knows its document format.
pub type Classifier = Box<dyn Fn(&[u8]) -> DataType + Send + Sync>;

/// How documents are admitted.
enum Admission {
    Mode(Mode),
    Policy {
        policy: Policy,
        classify: Classifier,
    },
}

/// The document side of a node's receive path: an optional mesh key and
/// either a [`Mode`] or a policy.
pub struct Receiver {
    key: Option<MeshKey>,
    admission: Admission,
}

impl core::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("Receiver");
        d.field("key", &self.key.as_ref().map(|_| "set"));
        match &self.admission {
            Admission::Mode(m) => d.field("mode", m),
            Admission::Policy { policy, .. } => d.field("policy", policy),
        };
        d.finish()
    }
}

impl Receiver {
    /// A receiver in `mode`; with no key, encryption is off (as in peat-btle,
    /// strict mode only bites when a key is configured).
    pub fn new(key: Option<MeshKey>, mode: Mode) -> Self {
        Self {
            key,
            admission: Admission::Mode(mode),
        }
    }

    /// A policy receiver: every document is classified by `classify` (after
    /// decryption, or as received when plain) and rejected
    /// ([`Error::BelowPolicy`]) when it arrived below
    /// [`Policy::required_floor`](policy::Policy::required_floor) for its type and link. The policy applies
    /// with or without a mesh key.
    pub fn with_policy(
        key: Option<MeshKey>,
        policy: Policy,
        classify: impl Fn(&[u8]) -> DataType + Send + Sync + 'static,
    ) -> Self {
        Self {
            key,
            admission: Admission::Policy {
                policy,
                classify: Box::new(classify),
            },
        }
    }

    /// The mode, or `None` for a policy receiver.
    pub fn mode(&self) -> Option<Mode> {
        match self.admission {
            Admission::Mode(m) => Some(m),
            Admission::Policy { .. } => None,
        }
    }

    /// The policy of a policy receiver.
    pub fn policy(&self) -> Option<&Policy> {
        match &self.admission {
            Admission::Mode(_) => None,
            Admission::Policy { policy, .. } => Some(policy),
        }
    }

    /// True when every unencrypted document is rejected (strict mode with a
    /// key).
    pub fn is_strict(&self) -> bool {
        matches!(self.admission, Admission::Mode(Mode::Strict)) && self.key.is_some()
    }

    /// Whether a document that arrived with `received` protection over
    /// `link` is accepted: in strict mode (with a key) nothing plain; in
    /// permissive mode everything; a policy receiver accepts it at or above
    /// [`Policy::required_floor`](policy::Policy::required_floor) for the type `classify` gives it. Use it for
    /// documents opened elsewhere, e.g. by [`super::PeerSessions::open_to_vec`].
    ///
    /// # Errors
    /// [`Error::UnencryptedInStrictMode`] for a plain document in strict
    /// mode; [`Error::BelowPolicy`] for a document below the policy's floor.
    pub fn admit(&self, document: &[u8], received: Protection, link: Link) -> Result<(), Error> {
        match &self.admission {
            Admission::Mode(_) if received == Protection::Plain && self.is_strict() => {
                Err(Error::UnencryptedInStrictMode)
            }
            Admission::Mode(_) => Ok(()),
            Admission::Policy { policy, classify } => {
                let data = classify(document);
                let required = policy.required_floor(data, link);
                if policy::admits(Mode::Strict, required, received) {
                    Ok(())
                } else {
                    Err(Error::BelowPolicy {
                        data,
                        required,
                        received,
                    })
                }
            }
        }
    }

    /// Dispatches one received frame. A policy receiver, which cannot tell
    /// the link here, judges documents as if from an
    /// [`Link::UntrustedRelay`] (the highest floor with the default rules);
    /// use [`Receiver::receive_from`] when the link is known.
    ///
    /// # Errors
    /// As [`Receiver::receive_from`].
    pub fn receive<'a>(&self, frame: &'a [u8]) -> Result<Received<'a>, Error> {
        self.receive_from(frame, Link::UntrustedRelay)
    }

    /// Dispatches one frame that arrived over `link` (only a policy receiver
    /// looks at the link). Key exchanges, per-peer frames and relay envelopes
    /// are handed back undecided; documents are opened (mesh-wide) and
    /// admitted or rejected.
    ///
    /// # Errors
    /// [`Error::NoMeshKey`] for a mesh-wide frame without a key; the errors
    /// of [`MeshKey::open_to_vec`]; those of [`Receiver::admit`].
    pub fn receive_from<'a>(&self, frame: &'a [u8], link: Link) -> Result<Received<'a>, Error> {
        match classify(frame) {
            FrameKind::KeyExchange => Ok(Received::KeyExchange(frame)),
            FrameKind::PeerE2ee => Ok(Received::PeerE2ee(frame)),
            FrameKind::RelayEnvelope => Ok(Received::RelayEnvelope(frame)),
            FrameKind::MeshWide => {
                let key = self.key.as_ref().ok_or(Error::NoMeshKey)?;
                let doc = key.open_to_vec(frame)?;
                self.admit(&doc, Protection::MeshWide, link)?;
                Ok(Received::Document {
                    bytes: doc.into(),
                    protection: Protection::MeshWide,
                })
            }
            FrameKind::Plain => {
                self.admit(frame, Protection::Plain, link)?;
                Ok(Received::Document {
                    bytes: frame.into(),
                    protection: Protection::Plain,
                })
            }
        }
    }
}

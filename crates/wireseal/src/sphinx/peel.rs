//! Peeling one layer (routing node side): a consuming transition from an
//! [`Onion`] to [`Peeled::Forward`] or [`Peeled::Final`].

use super::keys::{blinding_factor, derive, KeyKind, SharedSecret};
use super::packet::Onion;
use super::{bigsize, Error, HMAC_LEN};
use crate::primitives::chacha20::KeyStream;
use crate::primitives::secp256k1::PrivateKey;
use crate::primitives::sha::{ct_eq, hmac_sha256, sha256_parts};

/// The result of peeling one layer: exactly one of the two variants, so a
/// caller can match them exhaustively.
#[derive(Debug)]
pub enum Peeled {
    /// Relay `next` to the next hop named in `payload`.
    Forward {
        /// This hop's TLV payload (without its length prefix).
        payload: Vec<u8>,
        /// The onion for the next hop.
        next: Onion,
        /// This hop's shared secret (to wrap a failure coming back).
        shared_secret: SharedSecret,
    },
    /// This hop is the final recipient.
    Final {
        /// This hop's TLV payload (without its length prefix).
        payload: Vec<u8>,
        /// This hop's shared secret (to create a failure).
        shared_secret: SharedSecret,
    },
}

impl Peeled {
    /// The hop payload.
    pub fn payload(&self) -> &[u8] {
        match self {
            Peeled::Forward { payload, .. } | Peeled::Final { payload, .. } => payload,
        }
    }

    /// This hop's shared secret.
    pub fn shared_secret(&self) -> &SharedSecret {
        match self {
            Peeled::Forward { shared_secret, .. } | Peeled::Final { shared_secret, .. } => {
                shared_secret
            }
        }
    }

    /// The tag under which a replay log records this onion.
    pub fn replay_tag(&self) -> ReplayTag {
        ReplayTag::of(self.shared_secret())
    }
}

/// What a replay log stores for an onion: SHA-256 of the hop's shared secret
/// (so the log never holds the secret itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReplayTag(pub [u8; 32]);

impl ReplayTag {
    /// The tag of a shared secret.
    pub fn of(ss: &SharedSecret) -> Self {
        Self(sha256_parts(&[b"wireseal sphinx replay", ss.expose()]))
    }
}

/// A replay log: the caller decides where it lives (memory, disk, database)
/// and for how long entries are kept (typically until the HTLC's CLTV expiry).
pub trait ReplayLog {
    /// Records `tag`; returns `false` when it was already present (a replay).
    fn insert(&mut self, tag: ReplayTag) -> bool;
}

/// An unbounded in-memory replay log (tests and short-lived nodes).
#[derive(Debug, Default)]
pub struct MemoryReplayLog(std::collections::HashSet<ReplayTag>);

impl ReplayLog for MemoryReplayLog {
    fn insert(&mut self, tag: ReplayTag) -> bool {
        self.0.insert(tag)
    }
}

impl Onion {
    /// Peels one layer with `node_key` (or a blinded private key from
    /// [`super::blinding::unblind`]).
    ///
    /// The HMAC over the routing information and `associated_data` is checked
    /// in constant time before anything is decrypted or parsed. The hop frame
    /// must end inside the payload area. Consumes the onion: its buffer becomes
    /// the next hop's onion.
    ///
    /// # Errors
    ///
    /// As [`Onion::peel_with_secret`].
    pub fn peel(self, node_key: &PrivateKey, associated_data: &[u8]) -> Result<Peeled, Error> {
        let ss = node_key.ecdh_sha256(&self.ephemeral);
        self.peel_with_secret(ss, associated_data)
    }

    /// [`Onion::peel`], then records the onion in `log`; a replayed onion is
    /// rejected. The log is written only after the HMAC has verified.
    ///
    /// # Errors
    ///
    /// [`Error::Replay`] when `log` already holds the onion's tag, otherwise
    /// as [`Onion::peel`].
    pub fn peel_with_replay_log(
        self,
        node_key: &PrivateKey,
        associated_data: &[u8],
        log: &mut impl ReplayLog,
    ) -> Result<Peeled, Error> {
        let p = self.peel(node_key, associated_data)?;
        if !log.insert(p.replay_tag()) {
            return Err(Error::Replay);
        }
        Ok(p)
    }

    /// Peels with an already computed shared secret.
    ///
    /// # Errors
    ///
    /// [`Error::Auth`] when the HMAC does not verify (wrong key, wrong
    /// associated data, tampered packet); after it verifies,
    /// [`Error::BadPayload`] for a malformed length prefix or the legacy
    /// marker, [`Error::FrameOverflow`] when the hop frame ends past the
    /// payload area, [`Error::KeyDerivation`] when the next ephemeral key
    /// cannot be derived (negligible probability).
    pub fn peel_with_secret(
        self,
        ss: SharedSecret,
        associated_data: &[u8],
    ) -> Result<Peeled, Error> {
        let Onion {
            ephemeral,
            mut routing_info,
            hmac,
        } = self;
        let mu = derive(KeyKind::Mu, ss.expose());
        let expected = hmac_sha256(mu.expose(), &[&routing_info, associated_data]);
        if !ct_eq(&expected, &hmac) {
            return Err(Error::Auth);
        }
        let area = routing_info.len();
        let rho = derive(KeyKind::Rho, ss.expose());
        let mut stream = KeyStream::new(rho.expose(), 0);
        stream.xor(&mut routing_info);

        let (len, prefix) = bigsize::read(&routing_info)?;
        if len == 0 {
            // A zero first byte marks the retired fixed-size (legacy) payload.
            return Err(Error::BadPayload);
        }
        let payload_end = usize::try_from(len)
            .ok()
            .and_then(|l| l.checked_add(prefix))
            .ok_or(Error::FrameOverflow)?;
        let frame_end = payload_end
            .checked_add(HMAC_LEN)
            .filter(|e| *e <= area)
            .ok_or(Error::FrameOverflow)?;
        let payload = routing_info[prefix..payload_end].to_vec();
        let mut next_hmac = [0u8; HMAC_LEN];
        next_hmac.copy_from_slice(&routing_info[payload_end..frame_end]);
        if next_hmac == [0u8; HMAC_LEN] {
            return Ok(Peeled::Final {
                payload,
                shared_secret: ss,
            });
        }
        // Shift the frame out and pull in the stream bytes past the area.
        routing_info.copy_within(frame_end.., 0);
        stream.fill(&mut routing_info[area - frame_end..]);
        let b = blinding_factor(&ephemeral, &ss);
        let next_ephemeral = ephemeral
            .mul_tweak_vartime(&b)
            .map_err(|_| Error::KeyDerivation)?;
        Ok(Peeled::Forward {
            payload,
            next: Onion {
                ephemeral: next_ephemeral,
                routing_info,
                hmac: next_hmac,
            },
            shared_secret: ss,
        })
    }
}

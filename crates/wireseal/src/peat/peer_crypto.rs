//! Sealing and opening per-peer E2EE frames over an established session of
//! [`PeerSessions`] (the replay rules are in its docs).

use super::nonce_history::NonceHistory;
use super::peer_frame::{peer_sealed_len, PeerHeader, PEER_HEADER_LEN};
use super::session::{Session, SessionState};
use super::sessions::{PeerSessions, Table};
use super::Error;
use crate::entropy::{CryptoRng, RngCore};
use crate::primitives::chacha20poly1305::{ChaChaKey, NONCE_LEN};
#[cfg(feature = "alloc")]
use alloc::vec::Vec;

/// A message opened from a per-peer frame.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerMessage {
    /// The sending node.
    pub sender: u32,
    /// The frame's counter: advisory only, the tag does not cover it (see
    /// [`PeerSessions`]).
    pub counter: u64,
    /// The plaintext.
    pub plaintext: Vec<u8>,
}

/// A live established session, borrowed field by field: its key to read,
/// its counters and history to move.
struct Live<'s> {
    key: &'s ChaChaKey,
    last_activity: &'s mut u64,
    outbound: &'s mut u64,
    highest_inbound: &'s mut Option<u64>,
    history: &'s mut NonceHistory,
}

/// The session with `peer` if it is established and not expired at `now`.
fn live(sessions: &mut Table, timeout: u64, now: u64, peer: u32) -> Result<Live<'_>, Error> {
    let s = sessions.get_mut(&peer).ok_or(Error::NoSession { peer })?;
    if s.expired(now, timeout) && s.state == SessionState::Established {
        return Err(Error::SessionExpired { peer });
    }
    let Session {
        state: SessionState::Established,
        key: Some(key),
        last_activity,
        outbound,
        highest_inbound,
        history,
        ..
    } = s
    else {
        return Err(Error::NoSession { peer });
    };
    Ok(Live {
        key,
        last_activity,
        outbound,
        highest_inbound,
        history,
    })
}

impl PeerSessions {
    /// Seals `plaintext` for `peer` at time `now` (ms) into
    /// `out[..peer_sealed_len(len)]`; returns that length.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when `out` is too short;
    /// [`Error::NoSession`] without an established session;
    /// [`Error::SessionExpired`] when it timed out;
    /// [`Error::Exhausted`] when the outbound counter is at
    /// `u64::MAX`. Nothing moves on any error.
    #[cfg(feature = "std")]
    pub fn seal_into(
        &mut self,
        now: u64,
        peer: u32,
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let nonces = &mut self.nonces;
        seal(
            &mut self.sessions,
            self.node_id,
            self.timeout,
            now,
            peer,
            plaintext,
            out,
            &mut || Ok(nonces.take()),
        )
    }

    /// [`Self::seal_into`] with the nonce drawn from the caller's CSPRNG
    /// `rng` (firmware: the RNG peripheral).
    ///
    /// # Errors
    /// As [`Self::seal_into`]; [`Error::Rng`] when `rng` fails
    /// (`try_fill_bytes`), with no session state moved.
    #[inline]
    pub fn seal_with_rng_into<R: RngCore + CryptoRng>(
        &mut self,
        now: u64,
        rng: &mut R,
        peer: u32,
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        seal(
            &mut self.sessions,
            self.node_id,
            self.timeout,
            now,
            peer,
            plaintext,
            out,
            &mut || {
                let mut n = [0u8; NONCE_LEN];
                rng.try_fill_bytes(&mut n).map_err(|_| Error::Rng)?;
                Ok(n)
            },
        )
    }
}

/// Seals `plaintext` from `sender` for `peer` over their live session; the
/// nonce is drawn (`draw`) only once every check has passed.
#[allow(clippy::too_many_arguments)]
#[inline]
fn seal(
    sessions: &mut Table,
    sender: u32,
    timeout: u64,
    now: u64,
    peer: u32,
    plaintext: &[u8],
    out: &mut [u8],
    draw: &mut dyn FnMut() -> Result<[u8; NONCE_LEN], Error>,
) -> Result<usize, Error> {
    {
        let n = peer_sealed_len(plaintext.len());
        let Some(out) = out.get_mut(..n) else {
            return Err(Error::BufferTooSmall { required: n });
        };
        let s = live(sessions, timeout, now, peer)?;
        if *s.outbound == u64::MAX {
            return Err(Error::Exhausted);
        }
        let header = PeerHeader {
            recipient: peer,
            sender,
            counter: *s.outbound,
            nonce: draw()?,
        };
        let (head, rest) = out.split_at_mut(PEER_HEADER_LEN);
        header.write(head);
        let (body, tag_out) = rest.split_at_mut(plaintext.len());
        body.copy_from_slice(plaintext);
        let tag = s.key.seal_in_place(&header.nonce, b"", body);
        tag_out.copy_from_slice(&tag);
        *s.outbound += 1;
        *s.last_activity = now;
        Ok(n)
    }
}

impl PeerSessions {
    /// Seals `plaintext` for `peer` at time `now` (ms) into a new frame.
    ///
    /// # Errors
    /// As [`PeerSessions::seal_into`] (never `BufferTooSmall`).
    #[cfg(feature = "std")]
    pub fn seal_to_vec(&mut self, now: u64, peer: u32, plaintext: &[u8]) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; peer_sealed_len(plaintext.len())];
        self.seal_into(now, peer, plaintext, &mut out)?;
        Ok(out)
    }

    /// Sets the counter our next frame to `peer` carries (to resume a stored
    /// session). The counter is advisory on the wire (the tag does not cover
    /// it, and receivers detect replays by nonce), so this affects no
    /// security property.
    ///
    /// # Errors
    /// [`Error::NoSession`] without an established session with `peer`.
    pub fn set_next_counter(&mut self, peer: u32, counter: u64) -> Result<(), Error> {
        match self.sessions.get_mut(&peer) {
            Some(s) if s.state == SessionState::Established => {
                s.outbound = counter;
                Ok(())
            }
            _ => Err(Error::NoSession { peer }),
        }
    }

    /// Verifies and decrypts a per-peer frame in place at time `now` (ms).
    /// Returns the plaintext (inside `frame`); the cleartext header (sender,
    /// counter) is [`PeerHeader::parse`] of the frame, before or after.
    ///
    /// A frame whose nonce the session remembers is a replay
    /// ([`Error::Replay`]), whatever its counter; the counter never
    /// rejects a frame (see [`PeerSessions`]). The nonce history, the highest
    /// counter and the activity time move only after the tag verifies; on any
    /// error the session is as it was (and on a tag failure the ciphertext is
    /// wiped).
    ///
    /// # Errors
    /// [`Error::WrongMarker`] or [`Error::Truncated`] for a frame that is not
    /// a per-peer frame; [`Error::NotForUs`]; [`Error::NoSession`] or
    /// [`Error::SessionExpired`]; [`Error::Replay`]; [`Error::Auth`] when the
    /// tag does not verify.
    #[inline]
    pub fn open_in_place<'a>(
        &mut self,
        now: u64,
        frame: &'a mut [u8],
    ) -> Result<&'a mut [u8], Error> {
        let h = PeerHeader::parse(frame)?;
        if h.recipient != self.node_id {
            return Err(Error::NotForUs {
                recipient: h.recipient,
            });
        }
        let s = live(&mut self.sessions, self.timeout, now, h.sender)?;
        // A pure lookup: a replay is refused before any decryption.
        if s.history.contains(&h.nonce) {
            return Err(Error::Replay);
        }
        let pt = s
            .key
            .open_in_place(&h.nonce, b"", &mut frame[PEER_HEADER_LEN..])?;
        // Only now, with the tag verified, does any state move.
        s.history.insert(h.nonce);
        *s.highest_inbound = Some(s.highest_inbound.map_or(h.counter, |c| c.max(h.counter)));
        *s.last_activity = now;
        Ok(pt)
    }

    /// Verifies and decrypts a per-peer frame at time `now` (ms) into a new
    /// message.
    ///
    /// # Errors
    /// As [`PeerSessions::open_in_place`].
    #[cfg(feature = "alloc")]
    pub fn open_to_vec(&mut self, now: u64, frame: &[u8]) -> Result<PeerMessage, Error> {
        let h = PeerHeader::parse(frame)?;
        let mut buf = frame.to_vec();
        let pt = self.open_in_place(now, &mut buf)?;
        Ok(PeerMessage {
            sender: h.sender,
            counter: h.counter,
            plaintext: pt.to_vec(),
        })
    }
}

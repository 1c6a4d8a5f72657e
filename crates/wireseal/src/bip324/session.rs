//! An established v2 session: one sender and one receiver.

use super::keys::{Role, SessionKeys};
use super::packet::{Next, PacketReceiver, PacketSender, PacketType};
use super::Error;

/// Both directions of an established session. After the handshake every
/// packet has empty AAD, so the calls here take none.
#[derive(Debug)]
pub struct Session {
    /// Our outbound direction.
    pub sender: PacketSender,
    /// The peer's inbound direction.
    pub receiver: PacketReceiver,
    id: [u8; 32],
}

impl Session {
    crate::visibility::pub_if_test_vectors! {
        /// **Test vectors only** (`test-vectors` feature): both directions
        /// from `keys`, for our `role`. Two sessions from the same keys
        /// reuse every nonce; real sessions come from a handshake.
        fn from_keys(keys: &SessionKeys, role: Role) -> Self {
            let (send_l, send_p, recv_l, recv_p) = match role {
                Role::Initiator => (
                    &keys.initiator_l,
                    &keys.initiator_p,
                    &keys.responder_l,
                    &keys.responder_p,
                ),
                Role::Responder => (
                    &keys.responder_l,
                    &keys.responder_p,
                    &keys.initiator_l,
                    &keys.initiator_p,
                ),
            };
            Self {
                sender: PacketSender::new(send_l, send_p),
                receiver: PacketReceiver::new(recv_l, recv_p),
                id: keys.session_id,
            }
        }
    }

    /// The same session accepting contents up to `max` bytes from the peer
    /// (see [`PacketReceiver::with_max_contents`]).
    pub fn with_max_contents(mut self, max: usize) -> Self {
        self.receiver.set_max_contents(max);
        self
    }

    /// The session id (equal on both sides; compare it out of band to rule
    /// out a man in the middle).
    pub fn id(&self) -> &[u8; 32] {
        &self.id
    }

    /// Encrypts one packet of type `kind` into `out`; returns its length.
    ///
    /// # Errors
    ///
    /// As [`PacketSender::seal_into`].
    pub fn seal_into(
        &mut self,
        contents: &[u8],
        kind: PacketType,
        out: &mut [u8],
    ) -> Result<usize, Error> {
        self.sender.seal_into(contents, kind, b"", out)
    }

    /// Encrypts one packet of type `kind` into a new `Vec`.
    ///
    /// # Errors
    ///
    /// As [`PacketSender::seal_to_vec`].
    pub fn seal_to_vec(&mut self, contents: &[u8], kind: PacketType) -> Result<Vec<u8>, Error> {
        self.sender.seal_to_vec(contents, kind, b"")
    }

    /// Opens the packet at the start of `buf` in place (see
    /// [`PacketReceiver::open_next`]).
    ///
    /// # Errors
    ///
    /// As [`PacketReceiver::open_next`]; every error poisons the receiver.
    pub fn open_next<'a>(&mut self, buf: &'a mut [u8]) -> Result<Next<'a>, Error> {
        self.receiver.open_next(b"", buf)
    }

    /// The two directions, for use from separate tasks.
    pub fn split(self) -> (PacketSender, PacketReceiver) {
        (self.sender, self.receiver)
    }
}

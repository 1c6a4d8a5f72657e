//! Key derivation: BIP324 ECDH, then HKDF-SHA256 with salt
//! `"bitcoin_v2_shared_secret" || network magic`.

use crate::keys::{EllSwiftKeypair, ELLSWIFT_LEN};
use crate::primitives::hkdf::HkdfSha256;
use crate::secret::Secret;

/// Bytes of a garbage terminator.
pub const TERMINATOR_LEN: usize = 16;

/// A network's 4-byte message start ("magic"), which salts the key
/// derivation and begins a v1 peer's first message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Network(pub [u8; 4]);

impl Network {
    /// Bitcoin mainnet.
    pub const MAINNET: Network = Network([0xf9, 0xbe, 0xb4, 0xd9]);
    /// testnet3.
    pub const TESTNET: Network = Network([0x0b, 0x11, 0x09, 0x07]);
    /// testnet4.
    pub const TESTNET4: Network = Network([0x1c, 0x16, 0x3f, 0x28]);
    /// The default signet.
    pub const SIGNET: Network = Network([0x0a, 0x03, 0xcf, 0x40]);
    /// regtest.
    pub const REGTEST: Network = Network([0xfa, 0xbf, 0xb5, 0xda]);

    /// Any other magic (a custom signet, a private network).
    pub const fn custom(magic: [u8; 4]) -> Self {
        Network(magic)
    }

    /// The magic bytes.
    pub const fn magic(&self) -> [u8; 4] {
        self.0
    }

    /// The first 16 bytes a v1 peer sends: magic then `"version"` padded
    /// with zeros to 12 bytes.
    pub fn v1_prefix(&self) -> [u8; 16] {
        let mut p = [0u8; 16];
        p[..4].copy_from_slice(&self.0);
        p[4..11].copy_from_slice(b"version");
        p
    }
}

/// Which side of the connection we are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// We opened the connection.
    Initiator,
    /// We accepted it.
    Responder,
}

/// Every secret derived from one handshake.
pub struct SessionKeys {
    /// Length key, initiator to responder.
    pub initiator_l: Secret<32>,
    /// Packet key, initiator to responder.
    pub initiator_p: Secret<32>,
    /// Length key, responder to initiator.
    pub responder_l: Secret<32>,
    /// Packet key, responder to initiator.
    pub responder_p: Secret<32>,
    /// Terminator the initiator sends after its garbage.
    pub initiator_terminator: [u8; TERMINATOR_LEN],
    /// Terminator the responder sends after its garbage.
    pub responder_terminator: [u8; TERMINATOR_LEN],
    /// The session id (not secret, but unique to the session).
    pub session_id: [u8; 32],
}

impl core::fmt::Debug for SessionKeys {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SessionKeys(redacted)")
    }
}

impl SessionKeys {
    /// Derives the session keys from the BIP324 ECDH secret.
    ///
    /// Every derived key is a zeroizing [`Secret`], as is the garbage
    /// terminator block. One thing cannot be wiped: the HKDF pseudorandom key
    /// held inside RustCrypto's `Hkdf` (an HMAC state), which the `hkdf` crate
    /// neither zeroizes on drop nor exposes; it lives on the stack only for
    /// the duration of this call.
    pub fn from_shared_secret(shared: &Secret<32>, network: Network) -> Self {
        let mut salt = [0u8; 28];
        salt[..24].copy_from_slice(b"bitcoin_v2_shared_secret");
        salt[24..].copy_from_slice(&network.0);
        let h = HkdfSha256::extract(&salt, shared.expose());
        let garbage = h.expand::<32>(b"garbage_terminators");
        let mut initiator_terminator = [0u8; TERMINATOR_LEN];
        let mut responder_terminator = [0u8; TERMINATOR_LEN];
        initiator_terminator.copy_from_slice(&garbage.expose()[..16]);
        responder_terminator.copy_from_slice(&garbage.expose()[16..]);
        Self {
            initiator_l: h.expand(b"initiator_L"),
            initiator_p: h.expand(b"initiator_P"),
            responder_l: h.expand(b"responder_L"),
            responder_p: h.expand(b"responder_P"),
            initiator_terminator,
            responder_terminator,
            session_id: *h.expand::<32>(b"session_id").expose(),
        }
    }

    /// ECDH between our key and the peer's 64-byte encoding, then HKDF. The
    /// ECDH secret is a zeroizing [`Secret`] dropped (wiped) before this
    /// returns.
    pub fn derive(
        ours: &EllSwiftKeypair,
        theirs: &[u8; ELLSWIFT_LEN],
        role: Role,
        network: Network,
    ) -> Self {
        let shared = match role {
            Role::Initiator => ours.bip324_ecdh(ours.encoding(), theirs, true),
            Role::Responder => ours.bip324_ecdh(theirs, ours.encoding(), false),
        };
        Self::from_shared_secret(&shared, network)
    }

    /// (terminator we send, terminator we expect).
    pub fn terminators(&self, role: Role) -> ([u8; TERMINATOR_LEN], [u8; TERMINATOR_LEN]) {
        match role {
            Role::Initiator => (self.initiator_terminator, self.responder_terminator),
            Role::Responder => (self.responder_terminator, self.initiator_terminator),
        }
    }
}

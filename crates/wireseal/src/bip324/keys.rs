//! Key derivation: BIP324 ECDH, then HKDF-SHA256 with salt
//! `"bitcoin_v2_shared_secret" || network magic`.

use super::Error;
use crate::keys::{EllSwiftKeypair, ELLSWIFT_LEN};
use crate::primitives::hkdf::HkdfSha256;
use crate::secret::Secret;

/// Bytes of a garbage terminator.
pub const TERMINATOR_LEN: usize = 16;

/// A network's 4-byte message start ("magic"), which salts the key
/// derivation and begins a v1 peer's first message.
///
/// Parsed from and shown as the network's name (`mainnet`, `testnet`,
/// `testnet4`, `signet`, `regtest`) or, for any other magic, 8 hex digits
/// (`0a03cf40`); parsing takes names in any case and hex with or without
/// `0x`. The command line and Python use this one table.
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

    /// The networks known by name, with their names.
    pub const KNOWN: [(&'static str, Network); 5] = [
        ("mainnet", Network::MAINNET),
        ("testnet", Network::TESTNET),
        ("testnet4", Network::TESTNET4),
        ("signet", Network::SIGNET),
        ("regtest", Network::REGTEST),
    ];

    /// Any other magic (a custom signet, a private network).
    pub const fn custom(magic: [u8; 4]) -> Self {
        Network(magic)
    }

    /// The magic bytes.
    pub const fn magic(&self) -> [u8; 4] {
        self.0
    }

    /// The network's name, if it is one of [`Self::KNOWN`].
    pub fn name(&self) -> Option<&'static str> {
        Self::KNOWN
            .iter()
            .find(|(_, n)| n == self)
            .map(|(name, _)| *name)
    }

    /// The magic as 8 lowercase hex digits.
    pub fn magic_hex(&self) -> MagicHex {
        MagicHex(self.0)
    }

    /// For messages: `signet (magic 0a03cf40)`, or `magic 01020304` for a
    /// magic without a name.
    pub(crate) fn described(&self) -> impl core::fmt::Display {
        let (name, hex) = (self.name(), self.magic_hex());
        DisplayFn(move |f: &mut core::fmt::Formatter<'_>| match name {
            Some(n) => write!(f, "{n} (magic {hex})"),
            None => write!(f, "magic {hex}"),
        })
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

/// Display through a closure.
struct DisplayFn<F>(F);

impl<F: Fn(&mut core::fmt::Formatter<'_>) -> core::fmt::Result> core::fmt::Display
    for DisplayFn<F>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        (self.0)(f)
    }
}

/// A magic shown as 8 lowercase hex digits ([`Network::magic_hex`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MagicHex([u8; 4]);

impl core::fmt::Display for MagicHex {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl core::fmt::Display for Network {
    /// The name of a known network, else the magic as 8 hex digits.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => self.magic_hex().fmt(f),
        }
    }
}

impl TryFrom<&[u8]> for Network {
    type Error = Error;

    /// A magic given as 4 raw bytes.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownNetwork`] unless `magic` is 4 bytes long.
    fn try_from(magic: &[u8]) -> Result<Self, Error> {
        magic
            .try_into()
            .map(Network)
            .map_err(|_| Error::UnknownNetwork)
    }
}

impl core::str::FromStr for Network {
    type Err = Error;

    /// A name of [`Network::KNOWN`] (any case) or 4 bytes as 8 hex digits,
    /// optionally after `0x`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownNetwork`] for anything else.
    fn from_str(s: &str) -> Result<Self, Error> {
        let s = s.trim();
        if let Some((_, n)) = Self::KNOWN
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(s))
        {
            return Ok(*n);
        }
        let hex = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .unwrap_or(s);
        let digits = hex.as_bytes();
        if digits.len() != 8 {
            return Err(Error::UnknownNetwork);
        }
        let nibble = |c: u8| (c as char).to_digit(16).ok_or(Error::UnknownNetwork);
        let mut magic = [0u8; 4];
        for (m, pair) in magic.iter_mut().zip(digits.chunks(2)) {
            *m = (nibble(pair[0])? << 4 | nibble(pair[1])?) as u8;
        }
        Ok(Network(magic))
    }
}

/// Which side of the connection we are; parsed from and shown as
/// `initiator` / `responder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// We opened the connection.
    Initiator,
    /// We accepted it.
    Responder,
}

impl Role {
    /// The role's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Initiator => "initiator",
            Role::Responder => "responder",
        }
    }
}

impl core::fmt::Display for Role {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::str::FromStr for Role {
    type Err = Error;

    /// `initiator` or `responder`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownRole`] for anything else.
    fn from_str(s: &str) -> Result<Self, Error> {
        [Role::Initiator, Role::Responder]
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or(Error::UnknownRole)
    }
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

/// HKDF-Extract with salt `"bitcoin_v2_shared_secret" || magic`.
fn extract(shared: &Secret<32>, network: Network) -> HkdfSha256 {
    let mut salt = [0u8; 28];
    salt[..24].copy_from_slice(b"bitcoin_v2_shared_secret");
    salt[24..].copy_from_slice(&network.0);
    HkdfSha256::extract(&salt, shared.expose())
}

/// The terminator we, as `role`, expect from a peer whose keys come from
/// `shared` under `network`'s magic (only the terminators are expanded).
pub(crate) fn expected_terminator(
    shared: &Secret<32>,
    network: Network,
    role: Role,
) -> [u8; TERMINATOR_LEN] {
    let block = extract(shared, network).expand::<32>(b"garbage_terminators");
    let mut t = [0u8; TERMINATOR_LEN];
    let at = match role {
        Role::Initiator => TERMINATOR_LEN,
        Role::Responder => 0,
    };
    t.copy_from_slice(&block.expose()[at..at + TERMINATOR_LEN]);
    t
}

/// The BIP324 ECDH secret between our key and the peer's encoding.
pub(crate) fn shared_secret(
    ours: &EllSwiftKeypair,
    theirs: &[u8; ELLSWIFT_LEN],
    role: Role,
) -> Secret<32> {
    match role {
        Role::Initiator => ours.bip324_ecdh(ours.encoding(), theirs, true),
        Role::Responder => ours.bip324_ecdh(theirs, ours.encoding(), false),
    }
}

impl SessionKeys {
    crate::visibility::pub_if_test_vectors! {
        /// **Test vectors only** (`test-vectors` feature): the session keys
        /// from a caller-chosen BIP324 ECDH secret, as the official vectors
        /// give it. Two sessions keyed from the same secret reuse every
        /// nonce; real sessions get their keys from a handshake.
        fn from_shared_secret(shared: &Secret<32>, network: Network) -> Self {
            Self::from_shared(shared, network)
        }
    }

    /// Derives the session keys from the BIP324 ECDH secret.
    ///
    /// Every derived key is a zeroizing [`Secret`], as is the garbage
    /// terminator block. One thing cannot be wiped: the HKDF pseudorandom key
    /// held inside RustCrypto's `Hkdf` (an HMAC state), which the `hkdf` crate
    /// neither zeroizes on drop nor exposes; it lives on the stack only for
    /// the duration of this call.
    pub(crate) fn from_shared(shared: &Secret<32>, network: Network) -> Self {
        let h = extract(shared, network);
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

    crate::visibility::pub_if_test_vectors! {
        /// **Test vectors only** (`test-vectors` feature): ECDH between our
        /// key and the peer's 64-byte encoding, then HKDF, outside a
        /// handshake (which consumes its key, so that it is used once). The
        /// ECDH secret is a zeroizing [`Secret`] dropped (wiped) before this
        /// returns.
        fn derive(
            ours: &EllSwiftKeypair,
            theirs: &[u8; ELLSWIFT_LEN],
            role: Role,
            network: Network,
        ) -> Self {
            Self::from_shared(&shared_secret(ours, theirs, role), network)
        }
    }

    /// (terminator we send, terminator we expect).
    pub fn terminators(&self, role: Role) -> ([u8; TERMINATOR_LEN], [u8; TERMINATOR_LEN]) {
        match role {
            Role::Initiator => (self.initiator_terminator, self.responder_terminator),
            Role::Responder => (self.responder_terminator, self.initiator_terminator),
        }
    }
}

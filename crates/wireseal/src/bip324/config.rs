//! [`Config`]: how a [`super::Connection`] runs its handshake and session.

use super::keys::Network;
use super::packet::{CORE_MAX_CONTENTS_LEN, MAX_CONTENTS_LEN};
use super::MAX_GARBAGE_LEN;

/// How a connection runs its handshake and session. Build it with
/// [`Config::new`] and the `with_*` methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    network: Network,
    garbage: Vec<u8>,
    decoys: Vec<Vec<u8>>,
    max_contents: usize,
}

impl Config {
    /// For `network`: no garbage, no decoys, Bitcoin Core's receive limit
    /// ([`CORE_MAX_CONTENTS_LEN`]).
    pub fn new(network: Network) -> Self {
        Self {
            network,
            garbage: Vec::new(),
            decoys: Vec::new(),
            max_contents: CORE_MAX_CONTENTS_LEN,
        }
    }

    /// Garbage sent after our key (at most [`MAX_GARBAGE_LEN`] bytes,
    /// checked by [`super::Connection::new`]).
    pub fn with_garbage(mut self, garbage: Vec<u8>) -> Self {
        self.garbage = garbage;
        self
    }

    /// Garbage of a length drawn uniformly from `0..=max_len` (at most
    /// [`MAX_GARBAGE_LEN`]), filled from the OS CSPRNG, as BIP324
    /// suggests to vary the first flight's size.
    pub fn with_random_garbage(mut self, max_len: usize) -> Self {
        let max_len = max_len.min(MAX_GARBAGE_LEN);
        let draw = u64::from_le_bytes(crate::entropy::random_array::<8>());
        self.garbage = vec![0u8; (draw % (max_len as u64 + 1)) as usize];
        crate::entropy::fill_random(&mut self.garbage);
        self
    }

    /// Contents of decoy packets sent before our version packet (each at
    /// most [`MAX_CONTENTS_LEN`] bytes, checked by [`super::Connection::new`]).
    pub fn with_decoys(mut self, decoys: Vec<Vec<u8>>) -> Self {
        self.decoys = decoys;
        self
    }

    /// The largest contents accepted from the peer, decoys included
    /// (capped at [`MAX_CONTENTS_LEN`]); a longer announced length fails
    /// with [`super::Error::TooLong`] before any room for it exists.
    pub fn with_max_contents(mut self, max: usize) -> Self {
        self.max_contents = max.min(MAX_CONTENTS_LEN);
        self
    }

    /// The network whose magic salts the keys.
    pub fn network(&self) -> Network {
        self.network
    }

    /// The garbage sent after our key.
    pub fn garbage(&self) -> &[u8] {
        &self.garbage
    }

    /// The decoys sent before our version packet.
    pub fn decoys(&self) -> &[Vec<u8>] {
        &self.decoys
    }

    /// The largest contents accepted from the peer.
    pub fn max_contents(&self) -> usize {
        self.max_contents
    }
}

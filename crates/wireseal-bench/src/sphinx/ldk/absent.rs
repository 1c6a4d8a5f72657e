//! Stands in for LDK's node (`onion.rs`) when the `rust-peers` feature is
//! off: the same calls, doing nothing; the section marks LDK's rows skipped
//! ([`crate::peers::rust_peers::mark_skipped`]).

/// LDK's node, absent.
pub struct Ldk;

/// Stands in for LDK's path, session key and packet.
pub struct Absent;

impl Ldk {
    /// A placeholder node.
    pub fn new(_seed: [u8; 32]) -> Self {
        Self
    }

    /// A fixed valid-looking node id.
    pub fn node_id(&self) -> [u8; 33] {
        [2; 33]
    }

    /// No path.
    pub fn path(_hops: &[[u8; 33]]) -> Absent {
        Absent
    }

    /// No session key.
    pub fn session_key(_session: &[u8; 32]) -> Absent {
        Absent
    }

    /// Builds nothing.
    pub fn create(
        &self,
        _session: &Absent,
        _path: &Absent,
        _hash: [u8; 32],
        _seed: [u8; 32],
    ) -> Absent {
        Absent
    }

    /// Builds nothing.
    pub fn build(
        &self,
        _session: &[u8; 32],
        _hops: &[[u8; 33]],
        _hash: [u8; 32],
        _seed: [u8; 32],
    ) -> (Vec<u8>, u64, u32) {
        (Vec::new(), 0, 0)
    }

    /// Peels nothing.
    ///
    /// # Errors
    ///
    /// Never.
    pub fn peel(
        &self,
        _onion: &[u8],
        _hash: [u8; 32],
        _amount_msat: u64,
        _cltv_expiry: u32,
    ) -> Result<Option<Vec<u8>>, String> {
        Ok(None)
    }
}

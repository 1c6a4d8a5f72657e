//! Genesis provisioning: a mesh's id and secrets from its name and a 32-byte
//! seed, as peat-btle's `MeshGenesis` derives them.
//!
//! - secret = BLAKE3 `derive_key("PEAT-mesh-encryption-v1", seed)`;
//! - beacon key base = BLAKE3 `derive_key("PEAT-beacon-key-v1", seed)`;
//! - mesh_id = upper-case hex of BLAKE3 `keyed_hash(seed, name)[0..4]`.

use super::mesh::MeshKey;
use crate::primitives::blake3::{derive_key, keyed_hash};
use crate::secret::Secret;

/// BLAKE3 context of the mesh-wide encryption secret.
pub const ENCRYPTION_CONTEXT: &str = "PEAT-mesh-encryption-v1";
/// BLAKE3 context of the encrypted-beacon key base.
pub const BEACON_CONTEXT: &str = "PEAT-beacon-key-v1";

/// What a genesis seed provisions. The seed itself is not kept.
#[derive(Debug)]
pub struct Genesis {
    mesh_id: String,
    secret: Secret<32>,
    beacon_key_base: Secret<32>,
}

impl Genesis {
    /// Derives the mesh id and secrets of mesh `name` from `seed`.
    pub fn derive(name: &str, seed: &[u8; 32]) -> Self {
        Self {
            mesh_id: mesh_id(name, seed),
            secret: derive_key(ENCRYPTION_CONTEXT, seed),
            beacon_key_base: derive_key(BEACON_CONTEXT, seed),
        }
    }

    /// The 8-hex-digit mesh id (upper case).
    pub fn mesh_id(&self) -> &str {
        &self.mesh_id
    }

    /// The 32-byte mesh-wide encryption secret (the HKDF input).
    pub fn secret(&self) -> &Secret<32> {
        &self.secret
    }

    /// The base key of encrypted beacons.
    pub fn beacon_key_base(&self) -> &Secret<32> {
        &self.beacon_key_base
    }

    /// The mesh-wide key this genesis provisions.
    pub fn mesh_key(&self) -> MeshKey {
        MeshKey::derive(&self.mesh_id, self.secret.expose())
    }
}

/// The mesh id of mesh `name` under `seed`: upper-case hex of the first 4
/// bytes of BLAKE3 `keyed_hash(seed, name)`.
pub fn mesh_id(name: &str, seed: &[u8; 32]) -> String {
    let h = keyed_hash(seed, name.as_bytes());
    let mut s = String::with_capacity(8);
    for b in &h[..4] {
        s.push_str(&format!("{b:02X}"));
    }
    s
}

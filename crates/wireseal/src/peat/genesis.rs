//! Genesis provisioning: a mesh's id and secrets from its name and a 32-byte
//! seed, as peat-btle's `MeshGenesis` derives them.
//!
//! - secret = BLAKE3 `derive_key("PEAT-mesh-encryption-v1", seed)`;
//! - beacon key base = BLAKE3 `derive_key("PEAT-beacon-key-v1", seed)`;
//! - mesh_id = upper-case hex of BLAKE3 `keyed_hash(seed, name)[0..4]`.
//!
//! Names: peat-btle stores a mesh's name behind a 16-bit length, so a name
//! has at most [`MESH_NAME_MAX_LEN`] bytes; an empty name names nothing and
//! is refused.

use super::mesh::MeshKey;
use super::mesh_id::MeshId;
use super::Error;
use crate::primitives::blake3::{derive_key, keyed_hash};
use crate::secret::Secret;

/// BLAKE3 context of the mesh-wide encryption secret.
pub const ENCRYPTION_CONTEXT: &str = "PEAT-mesh-encryption-v1";
/// BLAKE3 context of the encrypted-beacon key base.
pub const BEACON_CONTEXT: &str = "PEAT-beacon-key-v1";
/// Most bytes a mesh name may have (peat-btle writes its length as a u16).
pub const MESH_NAME_MAX_LEN: usize = u16::MAX as usize;

/// What a genesis seed provisions. The seed itself is not kept.
#[derive(Debug)]
pub struct Genesis {
    mesh_id: MeshId,
    secret: Secret<32>,
    beacon_key_base: Secret<32>,
}

impl Genesis {
    /// Derives the mesh id and secrets of mesh `name` from `seed`.
    ///
    /// # Errors
    /// [`Error::EmptyMeshName`] for an empty name; [`Error::TooLong`] for a
    /// name longer than [`MESH_NAME_MAX_LEN`] bytes.
    pub fn derive(name: &str, seed: &[u8; 32]) -> Result<Self, Error> {
        Ok(Self {
            mesh_id: mesh_id(name, seed)?,
            secret: derive_key(ENCRYPTION_CONTEXT, seed),
            beacon_key_base: derive_key(BEACON_CONTEXT, seed),
        })
    }

    /// A new mesh `name` from a fresh 32-byte seed drawn from the OS CSPRNG,
    /// as peat-btle's `MeshGenesis::create`. The seed is wiped once the
    /// secrets are derived: keep the mesh key, or derive from a seed you
    /// store ([`Genesis::derive`]) to be able to derive again.
    ///
    /// # Errors
    /// As [`Genesis::derive`].
    pub fn generate(name: &str) -> Result<Self, Error> {
        Self::derive(name, Secret::<32>::random().expose())
    }

    /// The 8-hex-digit mesh id (upper case).
    pub fn mesh_id(&self) -> &MeshId {
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

/// Checks a mesh name against peat-btle's rule: 1 to [`MESH_NAME_MAX_LEN`]
/// bytes of UTF-8.
///
/// # Errors
/// [`Error::EmptyMeshName`]; [`Error::TooLong`].
pub fn check_mesh_name(name: &str) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::EmptyMeshName);
    }
    if name.len() > MESH_NAME_MAX_LEN {
        return Err(Error::TooLong {
            len: name.len(),
            max: MESH_NAME_MAX_LEN,
        });
    }
    Ok(())
}

/// The mesh id of mesh `name` under `seed`: upper-case hex of the first 4
/// bytes of BLAKE3 `keyed_hash(seed, name)`.
///
/// # Errors
/// As [`check_mesh_name`].
pub fn mesh_id(name: &str, seed: &[u8; 32]) -> Result<MeshId, Error> {
    check_mesh_name(name)?;
    let h = keyed_hash(seed, name.as_bytes());
    Ok(MeshId::from_hash_prefix([h[0], h[1], h[2], h[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_peat_btle_can_store() {
        assert_eq!(
            Genesis::derive("", &[1; 32]).err(),
            Some(Error::EmptyMeshName)
        );
        let long = "x".repeat(MESH_NAME_MAX_LEN + 1);
        assert_eq!(
            mesh_id(&long, &[1; 32]),
            Err(Error::TooLong {
                len: 65_536,
                max: 65_535
            })
        );
        assert!(mesh_id(&long[1..], &[1; 32]).is_ok());
        assert!(mesh_id("é", &[1; 32]).is_ok());
    }

    #[test]
    fn generated_meshes_differ() {
        let a = Genesis::generate("ALPHA-TEAM").unwrap();
        let b = Genesis::generate("ALPHA-TEAM").unwrap();
        assert_ne!(a.secret().expose(), b.secret().expose());
        assert_eq!(a.mesh_id().as_str().len(), 8);
    }
}

//! Signatures already checked: a gateway hears one signed packet through
//! every gateway that uplinked it, and an XEdDSA verification costs some
//! 50 µs, so each distinct (key, packet, signature) is verified once. The
//! entry's key is a SHA-256 of everything the verification read, so a copy
//! with any byte changed is verified afresh. Bounded: the oldest entries
//! are forgotten first.

use super::super::envelope::Data;
use super::super::xeddsa::{SignedFields, VerifyingKey};
use crate::primitives::sha::sha256_parts;
use alloc::collections::{BTreeMap, VecDeque};

/// Verifications remembered at most.
pub(super) const CAPACITY: usize = 4_096;

/// Recent verification results.
#[derive(Debug, Default)]
pub(super) struct Verified {
    results: BTreeMap<[u8; 32], bool>,
    order: VecDeque<[u8; 32]>,
}

/// What a verification of `data`'s signature by `key` for packet
/// (`from`, `id`) reads, as one digest.
pub(super) fn digest(key: &[u8; 32], from: u32, id: u32, data: &Data) -> [u8; 32] {
    sha256_parts(&[
        b"wireseal xeddsa verified",
        key,
        &from.to_le_bytes(),
        &id.to_le_bytes(),
        &(data.portnum as u32).to_le_bytes(),
        &(data.payload.len() as u32).to_le_bytes(),
        &data.payload,
        &data.xeddsa_signature,
    ])
}

/// Whether `data`'s signature verifies with `vk` (`None`: a key with no
/// Ed25519 counterpart, which verifies nothing).
pub(super) fn verify(vk: Option<VerifyingKey>, from: u32, id: u32, data: &Data) -> bool {
    let fields = SignedFields {
        from,
        id,
        portnum: data.portnum as u32,
        payload: &data.payload,
    };
    vk.is_some_and(|vk| vk.verify(&fields, &data.xeddsa_signature).is_ok())
}

impl Verified {
    /// The result for `digest`, if it was verified.
    pub(super) fn get(&self, digest: &[u8; 32]) -> Option<bool> {
        self.results.get(digest).copied()
    }

    /// Remembers a result.
    pub(super) fn insert(&mut self, digest: [u8; 32], valid: bool) {
        if self.results.insert(digest, valid).is_some() {
            return;
        }
        self.order.push_back(digest);
        if self.order.len() > CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.results.remove(&old);
            }
        }
    }

    /// Results remembered now.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.results.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_keyed_by_every_byte() {
        let data = Data {
            portnum: 1,
            payload: b"hi".to_vec(),
            xeddsa_signature: vec![7; 64],
            ..Default::default()
        };
        let d = digest(&[1; 32], 5, 6, &data);
        let mut other = data.clone();
        other.xeddsa_signature[63] ^= 1;
        assert_ne!(d, digest(&[1; 32], 5, 6, &other));
        assert_ne!(d, digest(&[2; 32], 5, 6, &data));
        assert_ne!(d, digest(&[1; 32], 5, 7, &data));
        let mut v = Verified::default();
        v.insert(d, true);
        assert_eq!(v.get(&d), Some(true));
        for i in 0..(CAPACITY as u32 + 10) {
            v.insert(digest(&[1; 32], i, 0, &data), false);
        }
        assert_eq!(v.len(), CAPACITY);
        assert_eq!(v.get(&d), None, "the oldest is forgotten");
    }
}

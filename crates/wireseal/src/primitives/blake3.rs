//! BLAKE3 key derivation and keyed hashing through the `blake3` crate (used
//! by peat-btle's genesis provisioning).

use crate::secret::Secret;

/// BLAKE3 `derive_key(context, key_material)`: a 32-byte key in a [`Secret`].
pub fn derive_key(context: &str, key_material: &[u8]) -> Secret<32> {
    Secret::new(blake3::derive_key(context, key_material))
}

/// BLAKE3 `keyed_hash(key, input)`: the 32-byte keyed hash.
pub fn keyed_hash(key: &[u8; 32], input: &[u8]) -> [u8; 32] {
    *blake3::keyed_hash(key, input).as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The official BLAKE3 test vectors (`test_vectors.json`, input lengths 0 and 1):
    /// key "whats the Elvish word for friend", context
    /// "BLAKE3 2019-12-27 16:29:52 test vectors context".
    #[test]
    fn official_vectors_empty_input() {
        let key: [u8; 32] = *b"whats the Elvish word for friend";
        assert_eq!(
            hex::encode(keyed_hash(&key, b"")),
            "92b2b75604ed3c761f9d6f62392c8a9227ad0ea3f09573e783f1498a4ed60d26"
        );
        assert_eq!(
            hex::encode(
                derive_key("BLAKE3 2019-12-27 16:29:52 test vectors context", b"").expose()
            ),
            "2cc39783c223154fea8dfb7c1b1660f2ac2dcbd1c1de8277b0b0dd39b7e50d7d"
        );
        // Input length 1: the single byte 0 (the vectors use i % 251).
        assert_eq!(
            hex::encode(keyed_hash(&key, &[0])),
            "6d7878dfff2f485635d39013278ae14f1454b8c0a3a2d34bc1ab38228a80c95b"
        );
        assert_eq!(
            hex::encode(
                derive_key("BLAKE3 2019-12-27 16:29:52 test vectors context", &[0]).expose()
            ),
            "b3e2e340a117a499c6cf2398a19ee0d29cca2bb7404c73063382693bf66cb06c"
        );
    }
}

//! The Meshtastic, peat and XEdDSA operations composed directly from the
//! portable backend's crates (curve25519-dalek, x25519-dalek, sha2, hkdf,
//! aes, ccm, ctr, chacha20poly1305): what the firmware measures, checks
//! against the repository's vectors and links alone for flash figures.
//!
//! Wire rules follow `vectors/meshtastic/vectors.json` (conventions) and
//! `crates/wireseal/src/peat/mesh.rs`.

/// Meshtastic: PKC (X25519 → SHA-256 → AES-256-CCM, 8-byte tag, 13-byte
/// nonce) and channel AES-CTR.
pub mod meshtastic {
    use aes::{Aes128, Aes256, Aes256Enc};
    use ccm::aead::AeadInPlace;
    use ccm::consts::{U13, U8};
    use ccm::Ccm;
    use ctr::cipher::{KeyInit, KeyIvInit, StreamCipher};
    use sha2::{Digest, Sha256};
    use subtle::ConstantTimeEq;

    /// AES-256-CCM with Meshtastic's parameters over the encryption-only AES
    /// key schedule (CCM never runs the cipher backwards).
    pub type Ccm8 = Ccm<Aes256Enc, U8, U13>;
    /// CCM tag length.
    pub const TAG_LEN: usize = 8;
    /// The extra nonce carried after the tag.
    pub const EXTRA_LEN: usize = 4;
    /// Bytes PKC adds to a plaintext.
    pub const PKC_OVERHEAD: usize = TAG_LEN + EXTRA_LEN;

    /// The PKC key: SHA-256 of the raw X25519 output. `None` for a
    /// low-order peer key (all-zero output, RFC 7748 §6.1).
    pub fn shared_key(our_private: &[u8; 32], their_public: &[u8; 32]) -> Option<[u8; 32]> {
        let raw = x25519_dalek::x25519(*our_private, *their_public);
        if bool::from(raw.ct_eq(&[0u8; 32])) {
            return None;
        }
        Some(Sha256::digest(raw).into())
    }

    /// Expands a PKC key for CCM.
    pub fn ccm(key: &[u8; 32]) -> Ccm8 {
        Ccm8::new(key.into())
    }

    /// `LE32(packet_id) | extra | LE32(from) | 0x00`.
    pub fn nonce(packet_id: u32, extra: &[u8; 4], from: u32) -> [u8; 13] {
        let mut n = [0u8; 13];
        n[..4].copy_from_slice(&packet_id.to_le_bytes());
        n[4..8].copy_from_slice(extra);
        n[8..12].copy_from_slice(&from.to_le_bytes());
        n
    }

    /// Opens `payload = ciphertext | tag(8) | extra(4)` in place; returns
    /// the plaintext length (the plaintext is `payload[..len]`). `None` when
    /// the tag does not verify (the ciphertext is then wiped) or the payload
    /// is shorter than the overhead.
    pub fn pkc_open(ccm: &Ccm8, from: u32, packet_id: u32, payload: &mut [u8]) -> Option<usize> {
        let n = payload.len().checked_sub(PKC_OVERHEAD)?;
        let (ct, rest) = payload.split_at_mut(n);
        let tag: [u8; TAG_LEN] = rest[..TAG_LEN].try_into().ok()?;
        let extra: [u8; EXTRA_LEN] = rest[TAG_LEN..].try_into().ok()?;
        let nonce = nonce(packet_id, &extra, from);
        ccm.decrypt_in_place_detached((&nonce).into(), b"", ct, (&tag).into())
            .ok()?;
        Some(n)
    }

    /// Seals `buf[..len]` in place into `ciphertext | tag | extra`; returns
    /// the payload length. `None` when `buf` has no room for the overhead.
    pub fn pkc_seal(
        ccm: &Ccm8,
        from: u32,
        packet_id: u32,
        extra: &[u8; 4],
        buf: &mut [u8],
        len: usize,
    ) -> Option<usize> {
        let total = len.checked_add(PKC_OVERHEAD)?;
        let buf = buf.get_mut(..total)?;
        let nonce = nonce(packet_id, extra, from);
        let tag = ccm
            .encrypt_in_place_detached((&nonce).into(), b"", &mut buf[..len])
            .ok()?;
        buf[len..len + TAG_LEN].copy_from_slice(&tag);
        buf[len + TAG_LEN..].copy_from_slice(extra);
        Some(total)
    }

    /// The channel counter block: `LE64(packet_id) | LE32(from) | 0^4`.
    pub fn channel_iv(packet_id: u32, from: u32) -> [u8; 16] {
        let mut iv = [0u8; 16];
        iv[..8].copy_from_slice(&u64::from(packet_id).to_le_bytes());
        iv[8..12].copy_from_slice(&from.to_le_bytes());
        iv
    }

    /// Channel encryption and decryption (the same keystream XOR): AES-CTR
    /// with a 32-bit big-endian counter, AES-128 or AES-256 by key length.
    /// `false` for any other key length.
    pub fn channel_crypt(key: &[u8], iv: &[u8; 16], buf: &mut [u8]) -> bool {
        match key.len() {
            16 => ctr::Ctr32BE::<Aes128>::new(key.into(), iv.into()).apply_keystream(buf),
            32 => ctr::Ctr32BE::<Aes256>::new(key.into(), iv.into()).apply_keystream(buf),
            _ => return false,
        }
        true
    }

    /// A fixed-capacity shared-secret cache in caller-chosen storage: the
    /// whole 32-byte public key is the lookup key, every slot is compared in
    /// constant time on every lookup, and the least recently used slot is
    /// replaced. `V` is what a slot keeps: the 32-byte PKC key, or the
    /// expanded [`Ccm8`] (no key expansion on a hit, more RAM).
    #[derive(Clone)]
    pub struct Cache<V, const N: usize> {
        slots: [Option<Slot<V>>; N],
    }

    #[derive(Clone)]
    struct Slot<V> {
        public: [u8; 32],
        value: V,
        last_used: u32,
    }

    impl<V, const N: usize> Default for Cache<V, N> {
        fn default() -> Self {
            Self {
                slots: core::array::from_fn(|_| None),
            }
        }
    }

    /// Constant-time equality of two 32-byte keys, a word at a time (eight
    /// XORs folded by OR, then one constant-time test of the result).
    fn eq32(a: &[u8; 32], b: &[u8; 32]) -> subtle::Choice {
        let mut diff = 0u32;
        for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
            let x = u32::from_ne_bytes([x[0], x[1], x[2], x[3]]);
            let y = u32::from_ne_bytes([y[0], y[1], y[2], y[3]]);
            diff |= x ^ y;
        }
        diff.ct_eq(&0)
    }

    impl<V, const N: usize> Cache<V, N> {
        /// Bytes one slot takes.
        pub const SLOT_BYTES: usize = core::mem::size_of::<Option<Slot<V>>>();

        /// The slot index holding `public`, comparing every slot in
        /// constant time.
        pub fn find(&self, public: &[u8; 32]) -> Option<usize> {
            let mut found = subtle::CtOption::new(0u32, subtle::Choice::from(0));
            for (i, slot) in self.slots.iter().enumerate() {
                let (occupied, key) = match slot {
                    Some(s) => (1u8, &s.public),
                    None => (0u8, &[0u8; 32]),
                };
                let hit = eq32(key, public) & subtle::Choice::from(occupied);
                found = subtle::CtOption::new(i as u32, hit).or_else(|| found);
            }
            Option::from(found).map(|i: u32| i as usize)
        }

        /// The value for `public`, made by `make` on a miss (stored in the
        /// least recently used slot) and marked used at `now`. `None` when
        /// `make` fails (nothing is stored).
        pub fn get_or_insert(
            &mut self,
            public: &[u8; 32],
            now: u32,
            make: impl FnOnce() -> Option<V>,
        ) -> Option<&V> {
            let i = match self.find(public) {
                Some(i) => i,
                None => {
                    let value = make()?;
                    let i = self.victim();
                    self.slots[i] = Some(Slot {
                        public: *public,
                        value,
                        last_used: now,
                    });
                    i
                }
            };
            let slot = self.slots[i].as_mut()?;
            slot.last_used = now;
            Some(&slot.value)
        }

        /// Whether `public` is cached.
        pub fn contains(&self, public: &[u8; 32]) -> bool {
            self.find(public).is_some()
        }

        fn victim(&self) -> usize {
            let mut best = 0;
            let mut oldest = u32::MAX;
            for (i, slot) in self.slots.iter().enumerate() {
                match slot {
                    None => return i,
                    Some(s) if s.last_used < oldest => {
                        oldest = s.last_used;
                        best = i;
                    }
                    Some(_) => {}
                }
            }
            best
        }
    }
}

/// peat-btle mesh-wide frames: `0xAE 0x00 | nonce(12) | ChaCha20-Poly1305`.
pub mod peat {
    use chacha20poly1305::aead::AeadInPlace;
    use chacha20poly1305::{ChaCha20Poly1305, KeyInit};
    use hkdf::Hkdf;
    use sha2::Sha256;

    /// HKDF info of the mesh-wide key.
    pub const MESH_HKDF_INFO: &[u8] = b"PEAT-BTLE-mesh-encryption-v1";
    /// Marker, reserved byte and nonce.
    pub const HEADER_LEN: usize = 14;
    /// Poly1305 tag length.
    pub const TAG_LEN: usize = 16;

    /// HKDF-SHA256(salt = mesh id, ikm = secret, info).
    pub fn derive_key(mesh_id: &str, secret: &[u8; 32]) -> [u8; 32] {
        let mut okm = [0u8; 32];
        Hkdf::<Sha256>::new(Some(mesh_id.as_bytes()), secret)
            .expand(MESH_HKDF_INFO, &mut okm)
            .expect("32 bytes is a valid HKDF-SHA256 length");
        okm
    }

    /// The expanded cipher of a mesh key.
    pub fn cipher(key: &[u8; 32]) -> ChaCha20Poly1305 {
        ChaCha20Poly1305::new(key.into())
    }

    /// Seals `plaintext` into `out`; returns the frame length. `None` when
    /// `out` is too short.
    // `#[inline]` on `seal` and `open`: called out of line, the AEAD's
    // ChaCha20 keystream compiles to a slower loop (measured: 62 k against
    // 48 k instructions for seal + open of 633 B at opt-level 3).
    #[inline]
    pub fn seal(
        cipher: &ChaCha20Poly1305,
        nonce: &[u8; 12],
        plaintext: &[u8],
        out: &mut [u8],
    ) -> Option<usize> {
        let n = HEADER_LEN + plaintext.len() + TAG_LEN;
        let out = out.get_mut(..n)?;
        out[0] = 0xAE;
        out[1] = 0;
        out[2..HEADER_LEN].copy_from_slice(nonce);
        let (body, tag_out) = out[HEADER_LEN..].split_at_mut(plaintext.len());
        body.copy_from_slice(plaintext);
        let tag = cipher
            .encrypt_in_place_detached(nonce.into(), b"", body)
            .ok()?;
        tag_out.copy_from_slice(&tag);
        Some(n)
    }

    /// Opens a frame in place; returns the plaintext's range in `frame`.
    /// `None` for a bad marker, a short frame or a tag that does not verify.
    #[inline]
    pub fn open(cipher: &ChaCha20Poly1305, frame: &mut [u8]) -> Option<core::ops::Range<usize>> {
        if frame.len() < HEADER_LEN + TAG_LEN || frame[0] != 0xAE || frame[1] != 0 {
            return None;
        }
        let nonce: [u8; 12] = frame[2..HEADER_LEN].try_into().ok()?;
        let end = frame.len() - TAG_LEN;
        let (head, tag) = frame.split_at_mut(end);
        let tag: [u8; TAG_LEN] = (&*tag).try_into().ok()?;
        cipher
            .decrypt_in_place_detached((&nonce).into(), b"", &mut head[HEADER_LEN..], (&tag).into())
            .ok()?;
        Some(HEADER_LEN..end)
    }
}

/// XEdDSA (Signal's specification) over curve25519-dalek: the Ed25519 key
/// of an X25519 key is the birational map with sign bit 0.
pub mod xeddsa {
    use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
    use curve25519_dalek::montgomery::MontgomeryPoint;
    use curve25519_dalek::scalar::Scalar;
    use sha2::{Digest, Sha512};

    /// `−A` and the encoding of `A`, for verification.
    pub struct VerifyingKey {
        minus_a: EdwardsPoint,
        a: [u8; 32],
    }

    impl VerifyingKey {
        /// From an X25519 public key (sign bit 0). `None` when it maps to no
        /// curve point.
        pub fn from_x25519(u: &[u8; 32]) -> Option<Self> {
            let point = MontgomeryPoint(*u).to_edwards(0)?;
            Some(Self {
                minus_a: -point,
                a: point.compress().to_bytes(),
            })
        }

        /// From an Ed25519 public key encoding (RFC 8032 vectors).
        pub fn from_ed25519(a: &[u8; 32]) -> Option<Self> {
            let point = CompressedEdwardsY(*a).decompress()?;
            Some(Self {
                minus_a: -point,
                a: *a,
            })
        }

        /// Cofactorless verification: `s < q` and the encoding of
        /// `s·B − h·A` equals `R`, `h = SHA-512(R ‖ A ‖ M) mod q`.
        pub fn verify(&self, message: &[u8], signature: &[u8; 64]) -> bool {
            let (r, s) = signature.split_at(32);
            let Ok(s) = <[u8; 32]>::try_from(s) else {
                return false;
            };
            let Some(s) = Option::<Scalar>::from(Scalar::from_canonical_bytes(s)) else {
                return false;
            };
            let mut h = Sha512::new();
            h.update(r);
            h.update(self.a);
            h.update(message);
            let h = Scalar::from_bytes_mod_order_wide(&h.finalize().into());
            let check = EdwardsPoint::vartime_double_scalar_mul_basepoint(&h, &self.minus_a, &s);
            check.compress().as_bytes() == r
        }
    }

    /// XEdDSA signing with the random input `z` (hedged nonce).
    pub fn sign(private: &[u8; 32], message: &[u8], z: &[u8; 64]) -> [u8; 64] {
        let mut k = *private;
        k[0] &= 248;
        k[31] &= 127;
        k[31] |= 64;
        let mut a = Scalar::from_bytes_mod_order(k);
        let big_a = EdwardsPoint::mul_base(&a).compress();
        if big_a.as_bytes()[31] & 0x80 != 0 {
            a = -a;
        }
        let public = EdwardsPoint::mul_base(&a).compress().to_bytes();
        let mut prefix = [0xffu8; 32];
        prefix[0] = 0xfe;
        let mut h = Sha512::new();
        h.update(prefix);
        h.update(a.to_bytes());
        h.update(message);
        h.update(z);
        let r = Scalar::from_bytes_mod_order_wide(&h.finalize().into());
        let big_r = EdwardsPoint::mul_base(&r).compress();
        let mut h = Sha512::new();
        h.update(big_r.as_bytes());
        h.update(public);
        h.update(message);
        let h = Scalar::from_bytes_mod_order_wide(&h.finalize().into());
        let s = r + h * a;
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(big_r.as_bytes());
        sig[32..].copy_from_slice(s.as_bytes());
        sig
    }
}

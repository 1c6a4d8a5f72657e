//! Each part of the library's portable core called once, for the `size-*`
//! binaries (flash per part) and the wasm32 link check: the code a firmware
//! links when it uses that part.

use core::hint::black_box;
use core::str::FromStr;
use wireseal::cache::Slot;
use wireseal::entropy::{CryptoRng, RngCore};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::xeddsa::{SignedFields, VerifyingKey};
use wireseal::meshtastic::{ChannelKey, PkcEngine, PkcPacket, PkcSecret};
use wireseal::peat::{MeshId, MeshKey};

/// Stands in for a hardware RNG's data register in the size binaries: its
/// bytes come from an opaque load the compiler cannot see through, as a
/// peripheral read is. Its output is not random; it only gives the flash a
/// real RNG driver (a register read loop) would take.
pub struct RegisterRng;

impl RngCore for RegisterRng {
    fn next_u32(&mut self) -> u32 {
        black_box(0)
    }
    fn next_u64(&mut self) -> u64 {
        black_box(0)
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for b in dest {
            *b = black_box(0);
        }
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_chacha::rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

// Size binaries only (see the type's docs).
impl CryptoRng for RegisterRng {}

/// Meshtastic PKC seal and open through a 16-slot cache of 32-byte keys.
pub fn pkc(buf: &mut [u8; 64]) -> usize {
    let Ok(own) = StaticSecret::from_bytes(&black_box([0x40; 32])) else {
        return 0;
    };
    let Ok(mut e) = PkcEngine::<PkcSecret, _>::with_slots(own, Slot::array::<16>()) else {
        return 0;
    };
    let theirs = black_box([9u8; 32]);
    let p = PkcPacket {
        peer_public: &theirs,
        from: black_box(1),
        id: black_box(2),
    };
    let pt = black_box([7u8; 20]);
    let n = e
        .seal_with_rng_into(black_box(1), &mut RegisterRng, p, &pt, buf)
        .unwrap_or(0);
    let mut out = [0u8; 64];
    e.open_into(black_box(2), p, &buf[..n], &mut out)
        .unwrap_or(0)
}

/// Meshtastic channel decryption (AES-128 or AES-256 CTR by PSK length).
pub fn channel(buf: &mut [u8; 64]) -> usize {
    let psk = black_box([5u8; 32]);
    let len = black_box(16);
    match ChannelKey::from_psk(&psk[..len]) {
        Ok(k) => k
            .open_in_place(black_box(1), black_box(2), buf)
            .map_or(0, |b| b.len()),
        Err(_) => 0,
    }
}

/// peat: mesh key derivation, a mesh-wide seal and open.
pub fn peat(frame: &mut [u8; 128]) -> usize {
    let Ok(id) = MeshId::from_str(black_box("DEMO")) else {
        return 0;
    };
    let key = MeshKey::derive(&id, &black_box([4u8; 32]));
    let n = key
        .seal_with_rng_into(&mut RegisterRng, &black_box([2u8; 64]), frame)
        .unwrap_or(0);
    key.open_in_place(&mut frame[..n]).map_or(0, |p| p.len())
}

/// XEdDSA verification of a Meshtastic packet signature.
pub fn xeddsa_verify(signature: &[u8; 64]) -> bool {
    let fields = SignedFields {
        from: black_box(1),
        id: black_box(2),
        portnum: black_box(1),
        payload: &black_box([3u8; 32]),
    };
    VerifyingKey::from_x25519(&black_box([9u8; 32]))
        .is_ok_and(|k| k.verify(&fields, signature).is_ok())
}

/// peat per-peer E2EE: key exchange into the fixed session table, a frame
/// sealed and opened.
pub fn peat_sessions(frame: &mut [u8; 128]) -> usize {
    use wireseal::peat::{KeyExchangeOutcome, PeerSessions};
    let Ok(own) = StaticSecret::from_bytes(&black_box([0x40; 32])) else {
        return 0;
    };
    let mut s = PeerSessions::new(black_box(1), own);
    let mut kx = [0u8; wireseal::peat::KEY_EXCHANGE_LEN];
    kx.copy_from_slice(&black_box(s.key_exchange_frame()));
    let Ok(KeyExchangeOutcome::Established { peer, .. }) = s.handle_key_exchange(black_box(2), &kx)
    else {
        return 0;
    };
    let n = s
        .seal_with_rng_into(3, &mut RegisterRng, peer, &black_box([2u8; 64]), frame)
        .unwrap_or(0);
    s.open_in_place(4, &mut frame[..n]).map_or(0, |p| p.len())
}

//! Any bytes as an onion: parsing and peeling never panic. Bytes the fuzzer
//! made up never peel (it cannot compute the HMAC). The second half feeds the
//! frame parser after the HMAC: the input is a decrypted routing area, sealed
//! under a known shared secret; peeling never panics, and a success carries a
//! frame that ends inside the area.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::hazmat::chacha20::KeyStream;
use wireseal::hazmat::sha::hmac_sha256;
use wireseal::keys::PrivateKey;
use wireseal::sphinx::{keys, Area, Onion, Peeled, PAYMENT_AREA};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let node = PrivateKey::from_bytes(&[0x42; 32]).unwrap();
    if mode & 1 == 0 {
        for o in [Onion::parse(rest), Onion::parse_message(rest)]
            .into_iter()
            .flatten()
        {
            assert_eq!(o.to_vec(), rest);
            assert!(o.peel(&node, b"ad").is_err());
        }
        return;
    }
    // A routing area whose plaintext starts with the fuzzer's bytes.
    let mut area = vec![0u8; PAYMENT_AREA];
    let n = rest.len().min(PAYMENT_AREA);
    area[..n].copy_from_slice(&rest[..n]);
    let ss = keys::SharedSecret::new([7u8; 32]);
    let rho = keys::derive(keys::KeyKind::Rho, ss.expose());
    KeyStream::new(rho.expose(), 0).xor(&mut area);
    let mu = keys::derive(keys::KeyKind::Mu, ss.expose());
    let mac = hmac_sha256(mu.expose(), &[&area, b"ad"]);
    let mut packet = vec![0u8];
    packet.extend_from_slice(&node.public_key().serialize());
    packet.extend_from_slice(&area);
    packet.extend_from_slice(&mac);
    let onion = Onion::parse(&packet).unwrap();
    if let Ok(p) = onion.peel_with_secret(ss, b"ad") {
        assert!(!p.payload().is_empty());
        assert!(p.payload().len() + 32 < PAYMENT_AREA);
        if let Peeled::Forward { next, .. } = p {
            assert_eq!(next.area(), Area::Payment);
        }
    }
});

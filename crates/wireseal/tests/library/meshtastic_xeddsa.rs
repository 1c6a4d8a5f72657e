//! XEdDSA packet signatures: hedged, and refused when short or from a key
//! with no Ed25519 counterpart. (Against python-xeddsa both ways: the bench
//! crate's peer test `meshtastic_python_peers`.)

use wireseal::keys::StaticSecret;
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey, VerifyingKey};

#[test]
fn hedged_signatures_differ_and_both_verify() {
    let node = StaticSecret::generate();
    let signer = SigningKey::from_secret(&node);
    let f = SignedFields {
        from: 1,
        id: 2,
        portnum: 1,
        payload: b"same message",
    };
    let (a, b) = (signer.sign(&f), signer.sign(&f));
    assert_ne!(a, b, "a fresh Z per signature");
    let vk = VerifyingKey::from_x25519(node.public_key()).unwrap();
    assert!(vk.verify(&f, &a).is_ok() && vk.verify(&f, &b).is_ok());
    assert_eq!(vk.ed25519_bytes(), signer.ed25519_bytes());
    assert!(
        vk.verify(&f, &a[..63]).is_err(),
        "a short signature is refused"
    );
    // u = -1 (p - 1) has no Ed25519 counterpart.
    let mut minus_one = [0xffu8; 32];
    minus_one[0] = 0xec;
    minus_one[31] = 0x7f;
    assert!(VerifyingKey::from_x25519(&minus_one).is_err());
}

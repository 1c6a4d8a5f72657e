//! BIP324 `packet_encoding_test_vectors.csv`, every row: every intermediate
//! value of the key derivation, the sealed packet after the listed number of
//! earlier packets, and the peer opening it (the 2^24 − 1 byte row over
//! Bitcoin Core's receive limit included).

use crate::bip324_vectors_support;

use bip324_vectors_support::{csv, h, h32, h64};
use wireseal::bip324::{
    sealed_len, Error, Network, PacketType, Role, Session, SessionKeys, CORE_MAX_CONTENTS_LEN,
    MAX_CONTENTS_LEN,
};
use wireseal::hazmat::ellswift::{ellswift_decode_x, EllSwiftKeypair};
use wireseal::secret::Secret;

/// The packet type a vector's `in_ignore` column names.
fn kind(ignore: bool) -> PacketType {
    if ignore {
        PacketType::Decoy
    } else {
        PacketType::Genuine
    }
}

#[test]
fn packet_encoding_vectors() {
    let rows = csv("packet_encoding_test_vectors.csv");
    assert_eq!(rows.len(), 7);
    for r in &rows {
        let ours = EllSwiftKeypair::from_secret_and_encoding_test_vectors_only(
            &h32(&r["in_priv_ours"]),
            &h64(&r["in_ellswift_ours"]),
        )
        .unwrap();
        let theirs = h64(&r["in_ellswift_theirs"]);
        let initiating = &r["in_initiating"] == "1";
        let role = if initiating {
            Role::Initiator
        } else {
            Role::Responder
        };
        assert_eq!(hex::encode(ours.x_only_public()), r["mid_x_ours"]);
        assert_eq!(hex::encode(ellswift_decode_x(&theirs)), r["mid_x_theirs"]);
        assert_eq!(
            hex::encode(ours.ecdh_x_only(&theirs).expose()),
            r["mid_x_shared"]
        );
        let shared = if initiating {
            ours.bip324_ecdh(ours.encoding(), &theirs, true)
        } else {
            ours.bip324_ecdh(&theirs, ours.encoding(), false)
        };
        assert_eq!(hex::encode(shared.expose()), r["mid_shared_secret"]);

        let keys = SessionKeys::derive(&ours, &theirs, role, Network::MAINNET);
        assert_eq!(hex::encode(keys.initiator_l.expose()), r["mid_initiator_l"]);
        assert_eq!(hex::encode(keys.initiator_p.expose()), r["mid_initiator_p"]);
        assert_eq!(hex::encode(keys.responder_l.expose()), r["mid_responder_l"]);
        assert_eq!(hex::encode(keys.responder_p.expose()), r["mid_responder_p"]);
        let (send_t, recv_t) = keys.terminators(role);
        assert_eq!(hex::encode(send_t), r["mid_send_garbage_terminator"]);
        assert_eq!(hex::encode(recv_t), r["mid_recv_garbage_terminator"]);
        assert_eq!(hex::encode(keys.session_id), r["out_session_id"]);

        let contents = h(&r["in_contents"]).repeat(r["in_multiply"].parse().unwrap());
        let aad = h(&r["in_aad"]);
        let ignore = &r["in_ignore"] == "1";
        let idx: usize = r["in_idx"].parse().unwrap();

        // Our sender, after idx earlier packets, must produce the vector.
        let mut sender = Session::from_keys(&keys, role).sender;
        let mut earlier = Vec::new();
        for _ in 0..idx {
            earlier.push(sender.seal_to_vec(b"", PacketType::Genuine, b"").unwrap());
        }
        let mut ct = vec![0u8; sealed_len(contents.len())];
        assert_eq!(
            sender
                .seal_into(&contents, kind(ignore), &aad, &mut ct)
                .unwrap(),
            ct.len()
        );
        if r["out_ciphertext"].is_empty() {
            assert!(
                hex::encode(&ct).ends_with(&r["out_ciphertext_endswith"]),
                "row {}",
                r["in_idx"]
            );
        } else {
            assert_eq!(hex::encode(&ct), r["out_ciphertext"]);
        }

        // The peer's receiver (same keys, other role) opens it.
        let peer_role = if initiating {
            Role::Responder
        } else {
            Role::Initiator
        };
        let peer_keys =
            SessionKeys::from_shared_secret(&Secret::new(*shared.expose()), Network::MAINNET);
        let mut rx = Session::from_keys(&peer_keys, peer_role).receiver;
        let earlier_copy = earlier.clone();
        for mut p in earlier {
            match rx.open_next(b"", &mut p).unwrap() {
                wireseal::bip324::Next::Packet { packet, consumed } => {
                    assert!(packet.contents.is_empty() && packet.kind == PacketType::Genuine);
                    assert_eq!(consumed, 20);
                }
                other => panic!("{other:?}"),
            }
        }
        if contents.len() > CORE_MAX_CONTENTS_LEN {
            // The last row carries 2^24 - 1 bytes, over Bitcoin Core's
            // receive limit: refused by default (before any allocation) and
            // the receiver is poisoned; accepted once the limit is raised to
            // the wire maximum.
            let mut strict = Session::from_keys(&peer_keys, peer_role).receiver;
            for mut p in earlier_copy {
                strict.open_next(b"", &mut p).unwrap();
            }
            let mut c = ct.clone();
            assert_eq!(
                strict.open_next(&aad, &mut c),
                Err(Error::TooLong {
                    len: MAX_CONTENTS_LEN,
                    max: CORE_MAX_CONTENTS_LEN
                })
            );
            assert!(strict.is_poisoned());
            assert_eq!(strict.open_next(&aad, &mut c), Err(Error::Poisoned));
            rx = rx.with_max_contents(MAX_CONTENTS_LEN);
        }
        match rx.open_next(&aad, &mut ct).unwrap() {
            wireseal::bip324::Next::Packet { packet, .. } => {
                assert_eq!(packet.kind, kind(ignore));
                assert_eq!(packet.contents, &contents[..]);
            }
            other => panic!("{other:?}"),
        }
    }
}

//! Rejection paths and round trips of the sphinx module (expected values come
//! from the BOLT #4 vectors; the rest checks rejection and consistency).

use wireseal::batch::Batch;
use wireseal::hazmat::chacha20::KeyStream;
use wireseal::hazmat::sha::hmac_sha256;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{
    build, keys, peel_batch, Hop, MemoryReplayLog, Onion, Padding, PeelItem, Peeled, SphinxError,
    MESSAGE_AREA_LARGE, PAYMENT_AREA, PAYMENT_ONION_LEN,
};

fn node(i: u8) -> PrivateKey {
    PrivateKey::from_bytes(&[i; 32]).unwrap()
}

fn route(n: u8, payload_len: usize) -> (Vec<PrivateKey>, Vec<Vec<u8>>) {
    let keys: Vec<PrivateKey> = (1..=n).map(|i| node(0x40 + i)).collect();
    let payloads = (0..n).map(|i| vec![i + 1; payload_len]).collect();
    (keys, payloads)
}

fn make(keys_: &[PrivateKey], payloads: &[Vec<u8>], area: usize, pad: Padding) -> Onion {
    let hops: Vec<Hop> = keys_
        .iter()
        .zip(payloads)
        .map(|(k, p)| Hop {
            pubkey: k.public_key(),
            payload: p,
        })
        .collect();
    build(&node(0x99), &hops, b"ad", area, pad).unwrap().0
}

fn peel_all(mut o: Onion, keys_: &[PrivateKey], ad: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (i, k) in keys_.iter().enumerate() {
        match o.peel(k, ad).unwrap() {
            Peeled::Forward { payload, next, .. } => {
                out.push(payload);
                o = next;
            }
            Peeled::Final { payload, .. } => {
                out.push(payload);
                assert_eq!(i + 1, keys_.len());
                return out;
            }
        }
    }
    panic!("no final hop")
}

#[test]
fn round_trips_with_random_padding_and_large_area() {
    let (k, p) = route(20, 20);
    let o = make(&k, &p, PAYMENT_AREA, Padding::Random);
    assert_eq!(o.to_bytes().len(), PAYMENT_ONION_LEN);
    assert_eq!(peel_all(o, &k, b"ad"), p);
    let (k, p) = route(5, 6000);
    let o = make(&k, &p, MESSAGE_AREA_LARGE, Padding::Deterministic);
    let bytes = o.to_bytes();
    assert_eq!(bytes.len(), 32834);
    let o = Onion::parse_message(&bytes).unwrap();
    assert_eq!(peel_all(o, &k, b"ad"), p);
    assert!(matches!(
        Onion::parse(&bytes),
        Err(SphinxError::BadLength { .. })
    ));
}

#[test]
fn tampering_wrong_key_and_wrong_ad_fail_the_hmac() {
    let (k, p) = route(3, 30);
    let bytes = make(&k, &p, PAYMENT_AREA, Padding::Deterministic).to_bytes();
    for pos in [40, 700, 1333, 1340, 1365] {
        let mut b = bytes.clone();
        b[pos] ^= 0x01;
        let o = Onion::parse(&b).unwrap();
        assert_eq!(
            o.peel(&k[0], b"ad").unwrap_err(),
            SphinxError::BadHmac,
            "{pos}"
        );
    }
    let o = Onion::parse(&bytes).unwrap();
    assert_eq!(
        o.clone().peel(&k[1], b"ad").unwrap_err(),
        SphinxError::BadHmac
    );
    assert_eq!(o.peel(&k[0], b"ae").unwrap_err(), SphinxError::BadHmac);
    // Ephemeral key: a bad point or version.
    let mut b = bytes.clone();
    b[1] = 0x05;
    assert_eq!(Onion::parse(&b).unwrap_err(), SphinxError::BadEphemeralKey);
    let mut b = bytes.clone();
    b[0] = 1;
    assert_eq!(
        Onion::parse(&b).unwrap_err(),
        SphinxError::UnknownVersion(1)
    );
    // Truncated, oversized.
    assert!(matches!(
        Onion::parse(&bytes[..1365]),
        Err(SphinxError::BadLength { .. })
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        Onion::parse(&long),
        Err(SphinxError::BadLength { .. })
    ));
    assert!(Onion::parse_any(&bytes[..40]).is_err());
}

/// Forges a packet whose HMAC verifies under a known secret but whose first
/// decrypted bytes are `plain`.
fn forged(plain: &[u8]) -> (Onion, keys::SharedSecret) {
    let ss = keys::SharedSecret::new([7u8; 32]);
    let mut ri = vec![0u8; PAYMENT_AREA];
    ri[..plain.len()].copy_from_slice(plain);
    let rho = keys::derive(keys::KeyKind::Rho, ss.expose());
    KeyStream::new(rho.expose(), 0).xor(&mut ri);
    let mu = keys::derive(keys::KeyKind::Mu, ss.expose());
    let mac = hmac_sha256(mu.expose(), &[&ri, b""]);
    let mut b = vec![0u8];
    b.extend_from_slice(&node(1).public_key().serialize());
    b.extend_from_slice(&ri);
    b.extend_from_slice(&mac);
    (Onion::parse(&b).unwrap(), ss)
}

#[test]
fn frames_past_the_area_and_legacy_payloads_are_rejected() {
    // 1269 + 3 + 32 = 1304 > 1300.
    let (o, ss) = forged(&[0xfd, 0x04, 0xf5]);
    assert_eq!(
        o.peel_with_secret(ss, b"").unwrap_err(),
        SphinxError::FrameOverflow
    );
    // 1265 + 3 + 32 = 1300 fits exactly.
    let (o, ss) = forged(&[0xfd, 0x04, 0xf1]);
    assert!(matches!(
        o.peel_with_secret(ss, b""),
        Ok(Peeled::Final { .. })
    ));
    let (o, ss) = forged(&[0x00]);
    assert_eq!(
        o.peel_with_secret(ss, b"").unwrap_err(),
        SphinxError::BadPayload
    );
    let (o, ss) = forged(&[0xfd, 0x00, 0x10]); // non-canonical BigSize
    assert_eq!(
        o.peel_with_secret(ss, b"").unwrap_err(),
        SphinxError::BadPayload
    );
    let (o, ss) = forged(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    assert_eq!(
        o.peel_with_secret(ss, b"").unwrap_err(),
        SphinxError::FrameOverflow
    );
}

#[test]
fn build_rejects_bad_routes() {
    let hops: [Hop; 0] = [];
    assert_eq!(
        build(&node(9), &hops, b"", PAYMENT_AREA, Padding::Random).unwrap_err(),
        SphinxError::NoHops
    );
    let (k, p) = route(2, 700);
    let hops: Vec<Hop> = k
        .iter()
        .zip(&p)
        .map(|(k, p)| Hop {
            pubkey: k.public_key(),
            payload: p,
        })
        .collect();
    assert!(matches!(
        build(&node(9), &hops, b"", PAYMENT_AREA, Padding::Random),
        Err(SphinxError::PayloadsTooLarge {
            need: 1470,
            have: 1300
        })
    ));
    // An empty payload would be framed with length 0, the legacy marker that
    // peel rejects: build refuses it, at any position, in both entry points.
    for empty_at in 0..3 {
        let (k, mut p) = route(3, 5);
        p[empty_at].clear();
        let hops: Vec<Hop> = k
            .iter()
            .zip(&p)
            .map(|(k, p)| Hop {
                pubkey: k.public_key(),
                payload: p,
            })
            .collect();
        assert_eq!(
            build(&node(9), &hops, b"", PAYMENT_AREA, Padding::Random).unwrap_err(),
            SphinxError::BadPayload,
            "empty payload at hop {empty_at}"
        );
        let mut out = [0u8; PAYMENT_ONION_LEN];
        assert_eq!(
            wireseal::sphinx::build_into(
                &node(9),
                &hops,
                b"",
                PAYMENT_AREA,
                Padding::Random,
                &mut out
            )
            .unwrap_err(),
            SphinxError::BadPayload
        );
    }
    // One byte is the smallest payload that round-trips.
    let (k, p) = route(2, 1);
    let o = make(&k, &p, PAYMENT_AREA, Padding::Random);
    assert_eq!(peel_all(o, &k, b"ad"), p);
    let mut small = [0u8; 100];
    assert!(matches!(
        wireseal::sphinx::build_into(
            &node(9),
            &hops[..1],
            b"",
            PAYMENT_AREA,
            Padding::Random,
            &mut small
        ),
        Err(SphinxError::BufferTooSmall { required: 1366 })
    ));
}

#[test]
fn replay_log_rejects_the_second_copy_only_after_a_valid_hmac() {
    let (k, p) = route(2, 10);
    let o = make(&k, &p, PAYMENT_AREA, Padding::Random);
    let mut log = MemoryReplayLog::default();
    // A bad HMAC does not touch the log.
    let mut b = o.to_bytes();
    b[500] ^= 1;
    let bad = Onion::parse(&b).unwrap();
    assert_eq!(
        bad.peel_with_replay_log(&k[0], b"ad", &mut log)
            .unwrap_err(),
        SphinxError::BadHmac
    );
    assert!(o
        .clone()
        .peel_with_replay_log(&k[0], b"ad", &mut log)
        .is_ok());
    assert_eq!(
        o.peel_with_replay_log(&k[0], b"ad", &mut log).unwrap_err(),
        SphinxError::Replay
    );
}

#[test]
fn batch_peel_matches_serial() {
    let (k, p) = route(3, 40);
    let onions: Vec<Vec<u8>> = (0..50)
        .map(|_| make(&k, &p, PAYMENT_AREA, Padding::Random).to_bytes())
        .collect();
    let mut items: Vec<PeelItem> = onions
        .iter()
        .map(|o| PeelItem {
            onion: o,
            associated_data: b"ad",
        })
        .collect();
    let bad = vec![0u8; 10];
    items.push(PeelItem {
        onion: &bad,
        associated_data: b"ad",
    });
    for b in [Batch::all_cores(), Batch::with_threads(2)] {
        let r = peel_batch(&b, &k[0], &items);
        assert_eq!(r.len(), 51);
        for (i, x) in r.iter().enumerate().take(50) {
            let serial = Onion::parse(&onions[i])
                .unwrap()
                .peel(&k[0], b"ad")
                .unwrap();
            let x = x.as_ref().unwrap();
            assert_eq!(x.payload(), serial.payload());
            match (x, &serial) {
                (Peeled::Forward { next: a, .. }, Peeled::Forward { next: b, .. }) => {
                    assert_eq!(a, b)
                }
                _ => panic!("expected forward"),
            }
        }
        assert!(r[50].is_err());
    }
    let _ = PublicKey::from_slice(&k[0].public_key().serialize()).unwrap();
}

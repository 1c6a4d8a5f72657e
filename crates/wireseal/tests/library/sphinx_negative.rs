//! Rejection paths and round trips of the sphinx module (expected values come
//! from the BOLT #4 vectors; the rest checks rejection and consistency).

use wireseal::batch::Batch;
use wireseal::hazmat::chacha20::KeyStream;
use wireseal::hazmat::sha::hmac_sha256;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{
    area_len, blinding, build, build_into, build_to_vec, failure, keys, peel_batch, Area, Error,
    Hop, HopSecrets, MemoryReplayLog, Onion, Padding, PeelItem, Peeled, Route, PAYMENT_AREA,
    PAYMENT_ONION_LEN,
};

fn node(i: u8) -> PrivateKey {
    PrivateKey::from_bytes(&[i; 32]).unwrap()
}

fn route(n: u8, payload_len: usize) -> (Vec<PrivateKey>, Vec<Vec<u8>>) {
    let keys: Vec<PrivateKey> = (1..=n).map(|i| node(0x40 + i)).collect();
    let payloads = (0..n).map(|i| vec![i + 1; payload_len]).collect();
    (keys, payloads)
}

/// The route's hops: each key's public key with its payload.
fn hop_list<'a>(keys_: &[PrivateKey], payloads: &'a [Vec<u8>]) -> Vec<Hop<'a>> {
    keys_
        .iter()
        .zip(payloads)
        .map(|(k, p)| Hop {
            pubkey: k.public_key(),
            payload: p,
        })
        .collect()
}

fn make(keys_: &[PrivateKey], payloads: &[Vec<u8>], area: Area, pad: Padding) -> Onion {
    let hops = hop_list(keys_, payloads);
    let route = Route::new(&hops, b"ad").with_area(area).with_padding(pad);
    build(&node(0x99), &route).unwrap().0
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
    let o = make(&k, &p, Area::Payment, Padding::Random);
    assert_eq!(o.to_vec().len(), PAYMENT_ONION_LEN);
    assert_eq!(peel_all(o, &k, b"ad"), p);
    let (k, p) = route(5, 6000);
    let o = make(&k, &p, Area::MessageLarge, Padding::Deterministic);
    let bytes = o.to_vec();
    assert_eq!(bytes.len(), 32834);
    let o = Onion::parse_message(&bytes).unwrap();
    assert_eq!(peel_all(o, &k, b"ad"), p);
    assert_eq!(
        Onion::parse(&bytes).unwrap_err(),
        Error::TooLong {
            len: 32834,
            max: PAYMENT_ONION_LEN
        }
    );
}

#[test]
fn tampering_wrong_key_and_wrong_ad_fail_the_hmac() {
    let (k, p) = route(3, 30);
    let bytes = make(&k, &p, Area::Payment, Padding::Deterministic).to_vec();
    for pos in [40, 700, 1333, 1340, 1365] {
        let mut b = bytes.clone();
        b[pos] ^= 0x01;
        let o = Onion::parse(&b).unwrap();
        assert_eq!(o.peel(&k[0], b"ad").unwrap_err(), Error::Auth, "{pos}");
    }
    let o = Onion::parse(&bytes).unwrap();
    assert_eq!(o.clone().peel(&k[1], b"ad").unwrap_err(), Error::Auth);
    assert_eq!(o.peel(&k[0], b"ae").unwrap_err(), Error::Auth);
    // Ephemeral key: a bad point or version.
    let mut b = bytes.clone();
    b[1] = 0x05;
    assert_eq!(Onion::parse(&b).unwrap_err(), Error::InvalidKey);
    let mut b = bytes.clone();
    b[0] = 1;
    assert_eq!(Onion::parse(&b).unwrap_err(), Error::UnknownVersion(1));
    // Truncated, oversized.
    assert_eq!(
        Onion::parse(&bytes[..1365]).unwrap_err(),
        Error::Truncated {
            len: 1365,
            min: 1366
        }
    );
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(
        Onion::parse(&long).unwrap_err(),
        Error::TooLong {
            len: 1367,
            max: 1366
        }
    );
    assert_eq!(
        Onion::parse_message(&long).unwrap_err(),
        Error::UnsupportedSize { len: 1367 }
    );
    assert_eq!(
        Onion::parse_message(&bytes[..100]).unwrap_err(),
        Error::Truncated {
            len: 100,
            min: 1366
        }
    );
    assert_eq!(area_len(40), Err(Error::Truncated { len: 40, min: 99 }));
    assert_eq!(area_len(99), Ok(33));
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
        Error::FrameOverflow
    );
    // 1265 + 3 + 32 = 1300 fits exactly.
    let (o, ss) = forged(&[0xfd, 0x04, 0xf1]);
    assert!(matches!(
        o.peel_with_secret(ss, b""),
        Ok(Peeled::Final { .. })
    ));
    let (o, ss) = forged(&[0x00]);
    assert_eq!(o.peel_with_secret(ss, b"").unwrap_err(), Error::BadPayload);
    let (o, ss) = forged(&[0xfd, 0x00, 0x10]); // non-canonical BigSize
    assert_eq!(o.peel_with_secret(ss, b"").unwrap_err(), Error::BadPayload);
    let (o, ss) = forged(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    assert_eq!(
        o.peel_with_secret(ss, b"").unwrap_err(),
        Error::FrameOverflow
    );
}

#[test]
fn build_rejects_bad_routes() {
    let hops: [Hop; 0] = [];
    assert_eq!(
        build(&node(9), &Route::new(&hops, b"")).unwrap_err(),
        Error::NoHops
    );
    let (k, p) = route(2, 700);
    let hops = hop_list(&k, &p);
    assert_eq!(
        build(&node(9), &Route::new(&hops, b"")).unwrap_err(),
        Error::TooLong {
            len: 1470,
            max: 1300
        }
    );
    // An empty payload would be framed with length 0, the legacy marker that
    // peel rejects: build refuses it, at any position, in both entry points.
    for empty_at in 0..3 {
        let (k, mut p) = route(3, 5);
        p[empty_at].clear();
        let hops = hop_list(&k, &p);
        let route = Route::new(&hops, b"");
        let want = Error::EmptyPayload { hop: empty_at + 1 };
        assert_eq!(
            build(&node(9), &route).unwrap_err(),
            want,
            "empty payload at hop {empty_at}"
        );
        let mut out = [0u8; PAYMENT_ONION_LEN];
        assert_eq!(build_into(&node(9), &route, &mut out).unwrap_err(), want);
        assert_eq!(build_to_vec(&node(9), &route).unwrap_err(), want);
    }
    // One byte is the smallest payload that round-trips.
    let (k, p) = route(2, 1);
    let o = make(&k, &p, Area::Payment, Padding::Random);
    assert_eq!(peel_all(o, &k, b"ad"), p);
    let mut small = [0u8; 100];
    assert!(matches!(
        build_into(&node(9), &Route::new(&hops[..1], b""), &mut small),
        Err(Error::BufferTooSmall { required: 1366 })
    ));
}

#[test]
fn replay_log_rejects_the_second_copy_only_after_a_valid_hmac() {
    let (k, p) = route(2, 10);
    let o = make(&k, &p, Area::Payment, Padding::Random);
    let mut log = MemoryReplayLog::default();
    // A bad HMAC does not touch the log.
    let mut b = o.to_vec();
    b[500] ^= 1;
    let bad = Onion::parse(&b).unwrap();
    assert_eq!(
        bad.peel_with_replay_log(&k[0], b"ad", &mut log)
            .unwrap_err(),
        Error::Auth
    );
    assert!(o
        .clone()
        .peel_with_replay_log(&k[0], b"ad", &mut log)
        .is_ok());
    assert_eq!(
        o.peel_with_replay_log(&k[0], b"ad", &mut log).unwrap_err(),
        Error::Replay
    );
}

#[test]
fn batch_peel_matches_serial() {
    let (k, p) = route(3, 40);
    let onions: Vec<Vec<u8>> = (0..50)
        .map(|_| make(&k, &p, Area::Payment, Padding::Random).to_vec())
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

#[test]
fn failure_packets_reject_short_long_and_unattributable_input() {
    let secrets = HopSecrets::new(vec![keys::SharedSecret::new([3; 32])]);
    assert_eq!(
        failure::unwrap(&secrets, &[0u8; 35]).unwrap_err(),
        Error::Truncated {
            len: 35,
            min: failure::MIN_FAILURE_LEN
        }
    );
    assert_eq!(
        failure::unwrap(&secrets, &[0u8; 292]).unwrap_err(),
        Error::Auth
    );
    let ss = secrets.hop(1).unwrap();
    let long = vec![0u8; failure::MAX_MESSAGE_LEN + 1];
    assert_eq!(
        failure::create_to_vec(ss, &long).unwrap_err(),
        Error::TooLong {
            len: failure::MAX_MESSAGE_LEN + 1,
            max: failure::MAX_MESSAGE_LEN
        }
    );
    let mut small = [0u8; 10];
    assert_eq!(
        failure::create_into(ss, b"msg", &mut small).unwrap_err(),
        Error::BufferTooSmall {
            required: failure::failure_len(3)
        }
    );
    let packet = failure::create_to_vec(ss, b"msg").unwrap();
    assert_eq!(failure::unwrap(&secrets, &packet).unwrap().message, b"msg");
}

#[test]
fn recipient_data_opens_in_place_and_rejects_tampering() {
    let alice = node(0x21);
    let data: &[u8] = b"data";
    let path = blinding::blind_path(&node(0x22), &[(alice.public_key(), data)]).unwrap();
    let sealed = &path.hops[0].encrypted_data;
    assert_eq!(sealed.len(), blinding::sealed_len(4));
    assert_eq!(blinding::opened_len(sealed.len()), Ok(4));
    assert_eq!(
        blinding::opened_len(15),
        Err(Error::Truncated { len: 15, min: 16 })
    );
    let u = blinding::unblind(&alice, &path.first_path_key).unwrap();
    let mut buf = sealed.clone();
    assert_eq!(u.open_in_place(&mut buf).unwrap(), b"data");
    assert_eq!(u.open_to_vec(sealed).unwrap(), b"data");
    let mut bad = sealed.clone();
    bad[0] ^= 1;
    assert_eq!(u.open_to_vec(&bad).unwrap_err(), Error::Auth);
    assert_eq!(
        u.open_to_vec(&sealed[..15]).unwrap_err(),
        Error::Truncated { len: 15, min: 16 }
    );
}

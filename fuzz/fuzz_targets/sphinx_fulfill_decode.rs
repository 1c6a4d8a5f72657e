//! What comes back with a fulfill, at the origin
//! (`fulfill::unwrap_returned`), over routes with a blinded tail; the
//! `fulfillment_payload` padding; the reply to an onion that does not peel
//! (`malformed::Malformed::reply_for`). The first byte picks one of four.
//!
//! 0: a payload and attribution data of any length (or none), made up,
//!    over 1 to 27 hops, the last 0 to all of them blinded: never panics,
//!    never opens the payload (the fuzzer has no key), hold times only for
//!    hops before the blinded tail (at most 20), a blamed hop exactly when
//!    the attribution breaks, none when no hop can vouch.
//! 1: records to pad: padded streams are at least 256 bytes, a multiple of
//!    256, and hold the records unchanged; sealed and opened, they come back
//!    (or are ignored for an even type); refusals are the documented ones.
//! 2: a fulfill the library carries back: the final node returns records,
//!    every hop relays (inside the blinded tail by the rule), some drop the
//!    attribution data or change the payload after their layer; the origin
//!    reports what that implies.
//! 3: any bytes as an onion reaching a node: a reply only for a bad
//!    version, HMAC or key, with the `BADONION` flag and the hash of the
//!    bytes; errors only for sizes no onion has.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::hazmat::sha::sha256;
use wireseal::keys::PrivateKey;
use wireseal::sphinx::fulfill::{self, payload, Payload, Returned};
use wireseal::sphinx::malformed::{Malformed, BADONION};
use wireseal::sphinx::{keys, tlv, Attribution, Error, HopSecrets, Incoming};

const MAX_HOPS: usize = 20;

fn route(n: usize, blinded: usize) -> HopSecrets {
    HopSecrets::new(
        (0..n)
            .map(|i| keys::SharedSecret::new([0x50 + i as u8; 32]))
            .collect(),
    )
    .with_blinded_tail(blinded)
    .unwrap()
}

/// Reads the fuzzer's bytes, then zeros.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }
}

fn made_up(mut b: Bytes<'_>) {
    let n = 1 + b.u8() as usize % 27;
    let s = route(n, b.u8() as usize % (n + 1));
    let how = b.u8();
    let rest = b.0;
    let split = (how as usize >> 2) * rest.len() / 64;
    let (p, a) = rest.split_at(split.min(rest.len()));
    let p = (how & 1 == 0).then_some(p);
    let a = (how & 2 == 0).then_some(a);
    let f = fulfill::unwrap_returned(&s, p, a).unwrap();
    let h = &f.hold_times;
    assert!(
        !matches!(f.payload, Payload::Valid(_)),
        "a made-up payload opened"
    );
    assert_eq!(matches!(f.payload, Payload::Absent), p.is_none());
    assert!(h.hold_times_ms.len() <= s.attributing().min(MAX_HOPS));
    assert_eq!(h.blamed_hop.is_some(), h.attribution == Attribution::Broken);
    if let Some(b) = h.blamed_hop {
        assert_eq!(b, h.hold_times_ms.len() + 1);
    }
    if s.attributing() == 0 {
        assert!(h.hold_times_ms.is_empty() && h.blamed_hop.is_none());
    }
}

fn padding(records: &[u8]) {
    match payload::padded(records) {
        Ok(p) => {
            assert!(p.len() >= 256 && p.len() % 256 == 0, "{}", p.len());
            assert_eq!(p.len(), payload::padded_len(records.len()));
            let kept: Vec<u8> = tlv::records(&p)
                .filter_map(|r| {
                    let (t, v) = r.unwrap();
                    (t != payload::PADDING_TYPE).then(|| {
                        let mut out = Vec::new();
                        tlv::push(&mut out, t, v);
                        out
                    })
                })
                .flatten()
                .collect();
            assert_eq!(kept, records);
            let ss = keys::SharedSecret::new([9; 32]);
            let sealed = payload::seal(&ss, records).unwrap();
            let even = tlv::records(records).any(|r| r.unwrap().0 % 2 == 0);
            match payload::open(&ss, sealed) {
                Payload::Valid(r) => assert!(!even && r == records),
                Payload::Ignored(Error::UnknownEvenType(t)) => assert!(even && t % 2 == 0),
                other => panic!("{other:?}"),
            }
        }
        Err(Error::BadPayload | Error::PaddingGiven | Error::TooLong { .. }) => {}
        Err(e) => panic!("{e:?}"),
    }
}

fn carried(mut b: Bytes<'_>) {
    let n = 1 + b.u8() as usize % 24;
    let blinded = b.u8() as usize % (n + 1);
    let s = route(n, blinded);
    let value: Vec<u8> = (0..b.u8() % 40).map(|_| b.u8()).collect();
    let mut records = Vec::new();
    tlv::push(&mut records, 65537, &value);
    let roles: Vec<u8> = (0..n).map(|_| b.u8()).collect();
    let incoming = |h: usize| {
        if h > s.attributing() {
            Incoming::Blinded
        } else {
            Incoming::Unblinded
        }
    };
    let ms = |h: usize| u64::from(roles[h - 1]) * 100;
    let ss = |h: usize| s.hop(h).unwrap();
    let mut r: Returned = fulfill::create_at(ss(n), incoming(n), ms(n), Some(&records)).unwrap();
    // Role 1: drops the attribution data; role 2: changes the payload.
    for h in (1..n).rev() {
        fulfill::relay(ss(h), incoming(h), ms(h), &mut r).unwrap();
        match roles[h - 1] % 8 {
            1 => r.attribution = None,
            2 => r.payload.as_mut().unwrap()[h] ^= 0x40,
            _ => {}
        }
    }
    let a = r.attribution.as_ref().map(|a| &a.as_bytes()[..]);
    let f = fulfill::unwrap_returned(&s, r.payload.as_deref(), a).unwrap();
    let vouching = s.attributing().min(MAX_HOPS);
    let bad = |h: usize| h < n && matches!(roles[h - 1] % 8, 1 | 2);
    let changed = (1..n).any(|h| roles[h - 1] % 8 == 2);
    let want = match (1..=vouching).find(|h| bad(*h)) {
        _ if vouching == 0 => (Attribution::Absent, vec![], None),
        Some(1) if roles[0] % 8 == 1 => (Attribution::Absent, vec![], None),
        Some(h) => (Attribution::Broken, (1..h).map(ms).collect(), Some(h)),
        None => (Attribution::Valid, (1..=vouching).map(ms).collect(), None),
    };
    // A route with no hop to vouch has no data unless a blinded hop added it.
    let got = &f.hold_times;
    assert_eq!(
        (got.attribution, &got.hold_times_ms, got.blamed_hop),
        (want.0, &want.1, want.2),
        "n {n} blinded {blinded} roles {roles:?}"
    );
    let want_payload = if changed {
        Payload::Ignored(Error::Auth)
    } else {
        Payload::Valid(records)
    };
    assert_eq!(f.payload, want_payload);
}

fn onion(bytes: &[u8]) {
    let key = PrivateKey::from_bytes(&[0x31; 32]).unwrap();
    match Malformed::reply_for(bytes, &key, &[]) {
        Ok(Some(m)) => {
            assert_ne!(m.failure_code & BADONION, 0);
            assert!(m.reason().is_some());
            assert_eq!(m.sha256_of_onion, sha256(bytes));
            assert_eq!(m.failure_message().unwrap()[2..], m.sha256_of_onion);
        }
        Ok(None) => {}
        Err(Error::Truncated { .. } | Error::TooLong { .. } | Error::UnsupportedSize { .. }) => {
            assert!(bytes.len() != 1366 && bytes.len() != 32834)
        }
        Err(e) => panic!("{e:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 4 {
        0 => made_up(Bytes(rest)),
        1 => padding(rest),
        2 => carried(Bytes(rest)),
        _ => onion(rest),
    }
});

//! BOLT #4's rules for return trips that the attribution vectors do not
//! cover: hops inside a blinded path (an HTLC with a `path_key`) add no
//! attribution data, for failures and fulfills, and the origin reads it up
//! to the introduction node and blames no blinded hop; return packets over
//! 32 KiB are truncated, not refused; the final node's `invalid_onion_*`
//! replies. Expected hops, hold times and blame come from how each case is
//! set up.

use wireseal::keys::PrivateKey;
use wireseal::sphinx::failure::{self, MAX_RETURN_LEN};
use wireseal::sphinx::fulfill::{self, Payload};
use wireseal::sphinx::malformed::{BadOnion, Malformed};
use wireseal::sphinx::{
    build_to_vec, keys, Attribution, AttributionData, Error, Hop, HopSecrets, Incoming, Onion,
    Peeled, Route,
};

/// A route of `n` hops with made-up shared secrets, its last `blinded` hops
/// inside a blinded path.
fn route(n: usize, blinded: usize) -> HopSecrets {
    HopSecrets::new(
        (0..n)
            .map(|i| keys::SharedSecret::new([0x40 ^ (i as u8 + 1); 32]))
            .collect(),
    )
    .with_blinded_tail(blinded)
    .unwrap()
}

fn ms(h: usize) -> u64 {
    h as u64 * 300
}

/// How a hop acts on the way back: by the rule, or (`Ldk02`) adding
/// attribution data even inside a blinded path, as LDK 0.2 does for
/// fulfills.
#[derive(Clone, Copy, PartialEq)]
enum Hop2 {
    Rule,
    Ldk02,
}

/// Hop `failing` fails `message`; every hop passes it back with
/// [`failure::relay_in_place`] as its incoming HTLC says (hops after
/// `intro` are blinded).
fn fail_back(s: &HopSecrets, failing: usize, message: &[u8]) -> (Vec<u8>, Option<AttributionData>) {
    let intro = s.attributing();
    let incoming = |h: usize| {
        if h > intro {
            Incoming::Blinded
        } else {
            Incoming::Unblinded
        }
    };
    let (mut packet, mut a) = failure::create_at(
        s.hop(failing).unwrap(),
        incoming(failing),
        message,
        ms(failing),
    )
    .unwrap();
    for h in (1..failing).rev() {
        let n = failure::relay_in_place(s.hop(h).unwrap(), incoming(h), ms(h), &mut packet, &mut a)
            .unwrap()
            .len();
        assert_eq!(n, packet.len());
        assert_eq!(a.is_some(), h <= intro, "hop {h}");
    }
    (packet, a)
}

fn unwrap(s: &HopSecrets, p: &[u8], a: &Option<AttributionData>) -> failure::Unwrapped {
    failure::unwrap_attributed(s, p, a.as_ref().map(|a| &a.as_bytes()[..])).unwrap()
}

#[test]
fn blinded_hops_add_nothing_and_the_origin_reads_to_the_introduction_node() {
    // 7 hops; hops 5 to 7 are inside the blinded path, hop 4 introduces it.
    let s = route(7, 3);
    for failing in 1..=7 {
        let (p, a) = fail_back(&s, failing, b"\x20\x02");
        let u = unwrap(&s, &p, &a);
        assert_eq!(u.hop, Some(failing));
        assert_eq!(u.message.as_deref(), Some(&b"\x20\x02"[..]));
        assert_eq!(u.attribution, Attribution::Valid, "failing hop {failing}");
        let vouched = failing.min(4);
        assert_eq!(
            u.hold_times_ms,
            (1..=vouched).map(ms).collect::<Vec<_>>(),
            "failing hop {failing}"
        );
        assert_eq!(u.blamed_hop, None, "failing hop {failing}");
    }
}

#[test]
fn without_the_blinded_tail_the_origin_would_blame_a_blinded_hop() {
    // The same trip read as if every hop had to vouch: the first blinded
    // hop looks broken. This is what the blinded tail prevents.
    let s = route(7, 3);
    let (p, a) = fail_back(&s, 6, b"\x20\x02");
    let clear = route(7, 0);
    let u = unwrap(&clear, &p, &a);
    assert_eq!(u.hop, Some(6));
    assert_eq!(
        (u.attribution, u.blamed_hop),
        (Attribution::Broken, Some(5))
    );
}

#[test]
fn a_packet_garbled_inside_the_blinded_path_blames_nobody() {
    let s = route(7, 3);
    // Hop 6 (blinded) fails; hop 5 (blinded) flips a byte after its layer.
    let (mut p, _) =
        failure::create_at(s.hop(6).unwrap(), Incoming::Blinded, b"\x20\x02", 0).unwrap();
    let mut a = None;
    failure::relay_in_place(s.hop(5).unwrap(), Incoming::Blinded, 0, &mut p, &mut a).unwrap();
    p[50] ^= 0x04;
    for h in (1..=4).rev() {
        failure::relay_in_place(
            s.hop(h).unwrap(),
            Incoming::Unblinded,
            ms(h),
            &mut p,
            &mut a,
        )
        .unwrap();
    }
    let u = unwrap(&s, &p, &a);
    assert_eq!((u.hop, u.message.as_deref()), (None, None));
    assert_eq!(u.attribution, Attribution::Valid);
    assert_eq!(u.hold_times_ms, (1..=4).map(ms).collect::<Vec<_>>());
    assert_eq!(u.blamed_hop, None);
    // On a route without a blinded path the same garbling blames the last
    // hop (the first that could not vouch for the packet).
    let clear = route(4, 0);
    let (mut p, _) =
        failure::create_at(clear.hop(4).unwrap(), Incoming::Unblinded, b"x", 0).unwrap();
    p[50] ^= 0x04;
    let mut a = None;
    for h in (1..=3).rev() {
        failure::relay_in_place(
            clear.hop(h).unwrap(),
            Incoming::Unblinded,
            ms(h),
            &mut p,
            &mut a,
        )
        .unwrap();
    }
    let u = unwrap(&clear, &p, &a);
    assert_eq!((u.hop, u.blamed_hop), (None, Some(4)));
}

#[test]
fn a_route_blinded_from_its_first_hop_has_nothing_to_read() {
    // The origin is the introduction node: every hop received a path key.
    let s = route(3, 3);
    let (p, a) = fail_back(&s, 3, b"\x20\x02");
    assert!(a.is_none());
    let u = unwrap(&s, &p, &a);
    assert_eq!(u.hop, Some(3));
    assert_eq!((u.attribution, u.blamed_hop), (Attribution::Absent, None));
    // Garbled: nobody to blame (not even hop 1, which adds no data).
    let mut g = p.clone();
    g[40] ^= 1;
    let u = unwrap(&s, &g, &None);
    assert_eq!((u.hop, u.blamed_hop), (None, None));
    // Stray data from a hop that should have sent none is not read.
    let stray = AttributionData::new();
    let u = unwrap(&s, &p, &Some(stray));
    assert_eq!(
        (u.attribution, u.hold_times_ms.len(), u.blamed_hop),
        (Attribution::Valid, 0, None)
    );
    assert_eq!(
        route(2, 0).with_blinded_tail(3).unwrap_err(),
        Error::BlindedTail {
            blinded: 3,
            hops: 2
        }
    );
}

/// A fulfill back over `s`: the final node returns `records`; blinded hops
/// follow the rule or add data anyway (`how`).
fn fulfill_back(s: &HopSecrets, records: Option<&[u8]>, how: Hop2) -> fulfill::Returned {
    let n = s.len();
    let intro = s.attributing();
    let incoming = |h: usize| match (h > intro, how) {
        (true, Hop2::Rule) => Incoming::Blinded,
        _ => Incoming::Unblinded,
    };
    let mut r = fulfill::create_at(s.hop(n).unwrap(), incoming(n), ms(n), records).unwrap();
    for h in (1..n).rev() {
        fulfill::relay(s.hop(h).unwrap(), incoming(h), ms(h), &mut r).unwrap();
    }
    r
}

#[test]
fn fulfills_through_a_blinded_path() {
    let records = [0x03, 0x02, 0xbe, 0xef];
    for how in [Hop2::Rule, Hop2::Ldk02] {
        let s = route(6, 2);
        let r = fulfill_back(&s, Some(&records), how);
        let a = r.attribution.as_ref().map(|a| &a.as_bytes()[..]);
        let f = fulfill::unwrap_returned(&s, r.payload.as_deref(), a).unwrap();
        // Hops 1 to 4 vouch; the payload went through the blinded hops too.
        assert_eq!(f.hold_times.attribution, Attribution::Valid);
        assert_eq!(
            f.hold_times.hold_times_ms,
            (1..=4).map(ms).collect::<Vec<_>>()
        );
        assert_eq!(f.hold_times.blamed_hop, None);
        assert_eq!(f.payload, Payload::Valid(records.to_vec()));
        // Without a payload: the same hold times.
        let r = fulfill_back(&s, None, how);
        let h = fulfill::unwrap(&s, r.attribution.as_ref().map(|a| &a.as_bytes()[..])).unwrap();
        assert_eq!(h.hold_times_ms, (1..=4).map(ms).collect::<Vec<_>>());
        assert_eq!((h.attribution, h.blamed_hop), (Attribution::Valid, None));
    }
    // Read as if there were no blinded path, hops that followed the rule
    // look broken at the first blinded hop.
    let s = route(6, 2);
    let r = fulfill_back(&s, None, Hop2::Rule);
    let clear = route(6, 0);
    let h = fulfill::unwrap(&clear, r.attribution.as_ref().map(|a| &a.as_bytes()[..])).unwrap();
    assert_eq!(
        (h.attribution, h.blamed_hop),
        (Attribution::Broken, Some(5))
    );
}

#[test]
fn a_blinded_final_node_sends_no_attribution_but_its_payload() {
    let s = route(1, 1);
    let r = fulfill::create_at(
        s.hop(1).unwrap(),
        Incoming::Blinded,
        500,
        Some(&[0x05, 0x00]),
    )
    .unwrap();
    assert!(r.attribution.is_none());
    let f = fulfill::unwrap_returned(&s, r.payload.as_deref(), None).unwrap();
    assert_eq!(f.payload, Payload::Valid(vec![0x05, 0x00]));
    assert_eq!(f.hold_times.attribution, Attribution::Absent);
    // A payload over 32 KiB is a protocol violation at a relaying hop.
    let mut big = fulfill::Returned {
        payload: Some(vec![0; fulfill::MAX_PAYLOAD_LEN + 1]),
        attribution: None,
    };
    let before = big.clone();
    assert!(matches!(
        fulfill::relay(s.hop(1).unwrap(), Incoming::Unblinded, 0, &mut big),
        Err(Error::TooLong { .. })
    ));
    assert_eq!(big, before);
}

#[test]
fn return_packets_over_32_kib_are_truncated_not_refused() {
    let s = route(3, 0);
    // The longest message a failing hop may send fills 32,768 bytes.
    let longest = vec![0x11; failure::MAX_MESSAGE_LEN];
    let (created, a) =
        failure::create_at(s.hop(3).unwrap(), Incoming::Unblinded, &longest, 0).unwrap();
    assert_eq!(created.len(), MAX_RETURN_LEN);
    assert!(matches!(
        failure::create_at(
            s.hop(3).unwrap(),
            Incoming::Unblinded,
            &[0; failure::MAX_MESSAGE_LEN + 1],
            0
        ),
        Err(Error::TooLong { .. })
    ));
    // A downstream peer (of an earlier version) appended 1,000 bytes: hop 2
    // passes back the first 32,768 and its HMACs cover those.
    let mut long = created.clone();
    long.extend_from_slice(&[0xee; 1000]);
    let mut a2 = a.clone();
    let sent = failure::relay_in_place(
        s.hop(2).unwrap(),
        Incoming::Unblinded,
        200,
        &mut long,
        &mut a2,
    )
    .unwrap()
    .to_vec();
    assert_eq!(sent.len(), MAX_RETURN_LEN);
    assert_eq!(
        &long[MAX_RETURN_LEN..],
        &[0xee; 1000][..],
        "the rest untouched"
    );
    let mut same = created.clone();
    let mut a3 = a.clone();
    failure::relay_in_place(
        s.hop(2).unwrap(),
        Incoming::Unblinded,
        200,
        &mut same,
        &mut a3,
    )
    .unwrap();
    assert_eq!((&sent, &a2), (&same, &a3));
    // The other wraps truncate alike.
    let mut plain = created.clone();
    plain.extend_from_slice(&[0xee; 10]);
    assert_eq!(
        failure::wrap_in_place(s.hop(2).unwrap(), &mut plain)
            .unwrap()
            .len(),
        MAX_RETURN_LEN
    );
    let mut ad = AttributionData::new();
    let mut p = created.clone();
    p.push(0);
    assert_eq!(
        failure::wrap_attributed_in_place(s.hop(2).unwrap(), 0, &mut p, &mut ad)
            .unwrap()
            .len(),
        MAX_RETURN_LEN
    );
    // The origin still finds hop 3 and its message.
    let mut back = sent;
    failure::relay_in_place(
        s.hop(1).unwrap(),
        Incoming::Unblinded,
        100,
        &mut back,
        &mut a2,
    )
    .unwrap();
    let u = unwrap(&s, &back, &a2);
    assert_eq!(u.hop, Some(3));
    assert_eq!(u.message, Some(longest));
    assert_eq!(
        (u.attribution, u.hold_times_ms),
        (Attribution::Valid, vec![100, 200, 0])
    );
}

#[test]
fn a_final_node_that_cannot_peel_replies_invalid_onion() {
    let (alice, bob) = (
        PrivateKey::from_bytes(&[0x21; 32]).unwrap(),
        PrivateKey::from_bytes(&[0x22; 32]).unwrap(),
    );
    let session = PrivateKey::from_bytes(&[0x23; 32]).unwrap();
    let hops = [
        Hop {
            pubkey: alice.public_key(),
            payload: &[0x02, 0x01, 0x01],
        },
        Hop {
            pubkey: bob.public_key(),
            payload: &[0x02, 0x01, 0x02],
        },
    ];
    let ad = [0x44; 32];
    let (onion, secrets) = build_to_vec(&session, &Route::new(&hops, &ad)).unwrap();
    let Peeled::Forward {
        next,
        shared_secret: alice_ss,
        ..
    } = Onion::parse(&onion).unwrap().peel(&alice, &ad).unwrap()
    else {
        panic!("Alice forwards");
    };
    // Alice's onion to Bob arrives with a flipped byte: Bob, the final
    // node, cannot check its HMAC and replies invalid_onion_hmac.
    let mut received = next.to_vec();
    received[500] ^= 0x01;
    let e = Onion::parse(&received)
        .unwrap()
        .peel(&bob, &ad)
        .unwrap_err();
    let m = Malformed::for_peel_error(&e, &received).unwrap();
    assert_eq!(m.reason(), Some(BadOnion::Hmac));
    assert_eq!(m.failure_code, 0xc005);
    // Alice turns it into a failure of her own; the origin reads it from
    // hop 1, about the onion hop 1 forwarded to hop 2.
    let (p, a) = failure::create_at(
        &alice_ss,
        Incoming::Unblinded,
        &m.failure_message().unwrap(),
        0,
    )
    .unwrap();
    let u =
        failure::unwrap_attributed(&secrets, &p, a.as_ref().map(|a| &a.as_bytes()[..])).unwrap();
    assert_eq!(u.hop, Some(1));
    let msg = u.message.unwrap();
    assert_eq!(
        BadOnion::from_code(u16::from_be_bytes([msg[0], msg[1]])),
        Some(BadOnion::Hmac)
    );
    assert_eq!(&msg[2..], &m.sha256_of_onion);
    // A bad version and a bad key map to their codes too.
    let mut v = next.to_vec();
    v[0] = 1;
    let e = Onion::parse(&v)
        .and_then(|o| o.peel(&bob, &ad))
        .unwrap_err();
    assert_eq!(BadOnion::from_peel_error(&e), Some(BadOnion::Version));
    let mut k = next.to_vec();
    k[1] = 0x05;
    let e = Onion::parse(&k)
        .and_then(|o| o.peel(&bob, &ad))
        .unwrap_err();
    assert_eq!(BadOnion::from_peel_error(&e), Some(BadOnion::Key));
}

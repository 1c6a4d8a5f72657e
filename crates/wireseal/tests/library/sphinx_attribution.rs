//! Attributable failures and fulfills beyond the vectors: garbling hops,
//! hops without attribution support, missing or malformed attribution data,
//! routes longer than 20 hops, hold-time rounding and saturation, rejected
//! inputs, and the batch unwrap against one at a time. Expected hops and
//! hold times come from how each case is set up, not from the library.

use wireseal::batch::Batch;
use wireseal::hazmat::sha::hmac_sha256;
use wireseal::sphinx::failure::{self, UnwrapItem, Unwrapped};
use wireseal::sphinx::{fulfill, keys, Attribution, AttributionData, Error, HopSecrets};

/// A route of `n` hops with made-up shared secrets (no curve work needed).
fn route(n: usize, seed: u8) -> HopSecrets {
    HopSecrets::new(
        (0..n)
            .map(|i| keys::SharedSecret::new([seed ^ (i as u8 + 1); 32]))
            .collect(),
    )
}

/// How hop `hop` (1-based) treats a failure passing back.
#[derive(Clone, Copy, PartialEq)]
enum Behaviour {
    /// Wraps packet and attribution data.
    Honest,
    /// Wraps the packet only and drops the attribution data (no support).
    Legacy,
    /// Wraps honestly, then flips a byte of the packet it sends.
    Garbles,
}

/// Hop `failing` creates `message` with hold time `hold(h)` ms for hop `h`;
/// the hops before it act per `behaviour`. Returns the packet and the
/// attribution data that reach the origin.
fn fail_back(
    s: &HopSecrets,
    failing: usize,
    message: &[u8],
    hold: impl Fn(usize) -> u64,
    behaviour: impl Fn(usize) -> Behaviour,
) -> (Vec<u8>, Option<AttributionData>) {
    let (mut packet, a) =
        failure::create_attributed_to_vec(s.hop(failing).unwrap(), message, hold(failing)).unwrap();
    let mut attribution = Some(a);
    for h in (1..failing).rev() {
        let ss = s.hop(h).unwrap();
        match behaviour(h) {
            Behaviour::Legacy => {
                failure::wrap_in_place(ss, &mut packet).unwrap();
                attribution = None;
            }
            b => {
                let a = attribution.get_or_insert_with(AttributionData::new);
                failure::wrap_attributed_in_place(ss, hold(h), &mut packet, a).unwrap();
                if b == Behaviour::Garbles {
                    packet[40] ^= 0x20;
                }
            }
        }
    }
    (packet, attribution)
}

fn unwrap(s: &HopSecrets, packet: &[u8], a: &Option<AttributionData>) -> Unwrapped {
    failure::unwrap_attributed(s, packet, a.as_ref().map(|a| &a.as_bytes()[..])).unwrap()
}

fn ms(h: usize) -> u64 {
    h as u64 * 1000 + 50
}

#[test]
fn honest_routes_of_every_length_report_every_hold_time() {
    for n in [1, 2, 5, 19, 20, 21, 26, 27] {
        for failing in [1, n / 2 + 1, n] {
            let s = route(n, 0x10);
            let (p, a) = fail_back(&s, failing, b"\x10\x07", ms, |_| Behaviour::Honest);
            let u = unwrap(&s, &p, &a);
            assert_eq!(u.hop, Some(failing), "n {n} failing {failing}");
            assert_eq!(u.message.as_deref(), Some(&b"\x10\x07"[..]));
            assert_eq!(u.attribution, Attribution::Valid);
            // Hops vouch up to the failing one, and only the first 20 can.
            let expect: Vec<u64> = (1..=failing.min(20)).map(|h| h as u64 * 1000).collect();
            assert_eq!(u.hold_times_ms, expect, "n {n} failing {failing}");
            assert_eq!(u.blamed_hop, None);
        }
    }
}

#[test]
fn a_garbling_hop_is_blamed_and_the_hops_before_it_vouch() {
    for (n, garbler) in [(5, 3), (5, 1), (20, 20), (20, 7), (12, 2)] {
        let s = route(n, 0x20);
        let (p, a) = fail_back(&s, n, b"\x40\x0f", ms, |h| {
            if h == garbler {
                Behaviour::Garbles
            } else {
                Behaviour::Honest
            }
        });
        let u = unwrap(&s, &p, &a);
        if garbler == n {
            // The failing hop itself cannot garble after creating (nothing
            // wraps at it in `fail_back`): covered below.
            continue;
        }
        assert_eq!(u.hop, None, "garbled packets authenticate at no hop");
        assert_eq!(u.message, None);
        assert_eq!(u.attribution, Attribution::Broken);
        assert_eq!(u.blamed_hop, Some(garbler));
        let expect: Vec<u64> = (1..garbler).map(|h| h as u64 * 1000).collect();
        assert_eq!(u.hold_times_ms, expect);
    }
}

#[test]
fn a_hop_without_attribution_support_breaks_it_where_it_sits() {
    let s = route(8, 0x30);
    let (p, a) = fail_back(&s, 8, b"\x20\x02", ms, |h| {
        if h == 4 {
            Behaviour::Legacy
        } else {
            Behaviour::Honest
        }
    });
    let u = unwrap(&s, &p, &a);
    // The message is still authentic; hops 1-3 started a new block.
    assert_eq!(u.hop, Some(8));
    assert_eq!(u.message.as_deref(), Some(&b"\x20\x02"[..]));
    assert_eq!(u.attribution, Attribution::Broken);
    assert_eq!(u.hold_times_ms, [1000, 2000, 3000]);
    assert_eq!(u.blamed_hop, Some(4));
    // The first hop without support: nothing reaches the origin.
    let (p, a) = fail_back(&s, 8, b"\x20\x02", ms, |h| {
        if h == 1 {
            Behaviour::Legacy
        } else {
            Behaviour::Honest
        }
    });
    assert!(a.is_none());
    let u = unwrap(&s, &p, &a);
    assert_eq!(
        (u.hop, u.attribution, u.hold_times_ms.len(), u.blamed_hop),
        (Some(8), Attribution::Absent, 0, None)
    );
}

#[test]
fn unattributable_packets_blame_by_what_the_attribution_says() {
    // No attribution and no HMAC: blame the first hop.
    let s = route(6, 0x40);
    let u = failure::unwrap_attributed(&s, &[0x55; 292], None).unwrap();
    assert_eq!(
        (u.hop, u.attribution, u.blamed_hop),
        (None, Attribution::Absent, Some(1))
    );
    // Garbage attribution: hop 1's HMAC fails.
    let u = failure::unwrap_attributed(&s, &[0x55; 292], Some(&[0x66; 920])).unwrap();
    assert_eq!(
        (u.hop, u.attribution, u.blamed_hop, u.hold_times_ms.len()),
        (None, Attribution::Broken, Some(1), 0)
    );
    // Attribution valid for every hop but no packet HMAC: the last hop
    // vouched for a bad packet (hop 21 on a longer route).
    for (n, blamed) in [(6, 6), (20, 20), (21, 21), (27, 21)] {
        let s = route(n, 0x41);
        let mut plain = failure::create_to_vec(s.hop(n).unwrap(), b"\x40\x0f").unwrap();
        failure::wrap_in_place(s.hop(n).unwrap(), &mut plain).unwrap();
        plain[0] ^= 1; // the packet HMAC no longer verifies
        let (p, a) = send_back(&s, n, plain);
        let u = unwrap(&s, &p, &Some(a));
        assert_eq!(u.hop, None, "n {n}");
        assert_eq!(u.attribution, Attribution::Valid, "n {n}");
        let expect: Vec<u64> = (1..=n.min(20)).map(|h| h as u64 * 1000).collect();
        assert_eq!(u.hold_times_ms, expect, "n {n}");
        assert_eq!(u.blamed_hop, Some(blamed), "n {n}");
    }
}

/// Hop `from` sends `plain` (a packet before its own stream, HMAC
/// included, whatever it holds) back with attribution data, and every hop
/// before it wraps honestly.
fn send_back(s: &HopSecrets, from: usize, mut plain: Vec<u8>) -> (Vec<u8>, AttributionData) {
    // A hop that creates attributes the packet as it is before its stream,
    // on an empty block: what `wrap_attributed_in_place` does on one.
    let mut a = AttributionData::new();
    for h in (1..=from).rev() {
        failure::wrap_attributed_in_place(s.hop(h).unwrap(), ms(h), &mut plain, &mut a).unwrap();
    }
    (plain, a)
}

#[test]
fn malformed_attribution_data_is_a_result() {
    let s = route(3, 0x50);
    let (p, a) = fail_back(&s, 3, b"\x40\x0f", ms, |_| Behaviour::Honest);
    let full = a.unwrap();
    for bad in [&full.as_bytes()[..919], &[0u8; 0][..], &[0u8; 921][..]] {
        let u = failure::unwrap_attributed(&s, &p, Some(bad)).unwrap();
        assert_eq!(u.hop, Some(3));
        assert_eq!(u.message.as_deref(), Some(&b"\x40\x0f"[..]));
        assert_eq!(
            (u.attribution, u.blamed_hop, u.hold_times_ms.len()),
            (Attribution::Broken, Some(1), 0)
        );
        let f = fulfill::unwrap(&s, Some(bad)).unwrap();
        assert_eq!(
            (f.attribution, f.blamed_hop, f.hold_times_ms.len()),
            (Attribution::Broken, Some(1), 0)
        );
    }
    // On a 3-hop route hop 1's HMAC (position 2: HMAC index 17) covers the
    // first three hold times and the HMACs of hops 2 and 3 for their
    // positions (indices 37 and 56): one flipped bit there breaks hop 1.
    for at in [0, 3, 8, 11, 80 + 17 * 4, 80 + 37 * 4 + 3, 80 + 56 * 4] {
        let mut b = full.as_bytes().to_vec();
        b[at] ^= 1;
        let u = failure::unwrap_attributed(&s, &p, Some(&b)).unwrap();
        assert_eq!(
            (u.attribution, u.blamed_hop),
            (Attribution::Broken, Some(1)),
            "byte {at}"
        );
        assert_eq!(u.hop, Some(3), "the packet itself is intact");
    }
    // Slots no hop of this route uses are covered by nobody.
    for at in [12, 79, 80 + 18 * 4, 919] {
        let mut b = full.as_bytes().to_vec();
        b[at] ^= 1;
        let u = failure::unwrap_attributed(&s, &p, Some(&b)).unwrap();
        assert_eq!(
            (u.attribution, u.blamed_hop),
            (Attribution::Valid, None),
            "byte {at}"
        );
    }
    assert_eq!(
        AttributionData::from_slice(&[0; 919]),
        Err(Error::Truncated { len: 919, min: 920 })
    );
}

#[test]
fn a_malformed_but_authentic_message_blames_its_sender() {
    let s = route(4, 0x60);
    // Hop 2 sends a packet with a valid HMAC whose lengths do not add up
    // (failure_len 300 in a 292-byte packet).
    let ss = s.hop(2).unwrap();
    let mut plain = vec![0u8; 292];
    plain[32..34].copy_from_slice(&300u16.to_be_bytes());
    let um = keys::derive(keys::KeyKind::Um, ss.expose());
    let mac = hmac_sha256(um.expose(), &[&plain[32..]]);
    plain[..32].copy_from_slice(&mac);
    let (p, a) = send_back(&s, 2, plain);
    let u = unwrap(&s, &p, &Some(a));
    assert_eq!(u.hop, Some(2));
    assert_eq!(u.message, None);
    assert_eq!(u.attribution, Attribution::Valid);
    assert_eq!(u.hold_times_ms, [1000, 2000]);
    assert_eq!(u.blamed_hop, Some(2));
    assert_eq!(u.failure(), None);
    assert_eq!(failure::unwrap(&s, &p).unwrap_err(), Error::BadFailure);
}

#[test]
fn hold_times_round_down_and_saturate() {
    let s = route(3, 0x70);
    let holds = [99u64, 12_345, u64::MAX];
    let (p, a) = fail_back(&s, 3, b"\x20\x02", |h| holds[h - 1], |_| Behaviour::Honest);
    let u = unwrap(&s, &p, &a);
    assert_eq!(u.hold_times_ms, [0, 12_300, u32::MAX as u64 * 100]);
    let mut d = AttributionData::new();
    for h in (1..=3).rev() {
        fulfill::wrap(s.hop(h).unwrap(), holds[h - 1], &mut d);
    }
    let f = fulfill::unwrap(&s, Some(d.as_bytes())).unwrap();
    assert_eq!(f.hold_times_ms, [0, 12_300, u32::MAX as u64 * 100]);
    assert_eq!((f.attribution, f.blamed_hop), (Attribution::Valid, None));
}

#[test]
fn fulfill_breaks_at_a_hop_without_support() {
    for (n, legacy) in [(6, 3), (6, 6), (25, 10), (25, 22)] {
        let s = route(n, 0x80);
        let mut d: Option<AttributionData> = None;
        for h in (1..=n).rev() {
            if h == legacy {
                d = None;
                continue;
            }
            fulfill::wrap(
                s.hop(h).unwrap(),
                ms(h),
                d.get_or_insert_with(AttributionData::new),
            );
        }
        let f = fulfill::unwrap(&s, d.as_ref().map(|d| &d.as_bytes()[..])).unwrap();
        if legacy <= 20 {
            assert_eq!(
                (f.attribution, f.blamed_hop),
                (Attribution::Broken, Some(legacy))
            );
            let expect: Vec<u64> = (1..legacy).map(|h| h as u64 * 1000).collect();
            assert_eq!(f.hold_times_ms, expect, "n {n} legacy {legacy}");
        } else {
            // Past hop 20 nothing is attributed anyway.
            assert_eq!((f.attribution, f.blamed_hop), (Attribution::Valid, None));
            assert_eq!(f.hold_times_ms.len(), 20);
        }
    }
    let s = route(2, 0x81);
    let f = fulfill::unwrap(&s, None).unwrap();
    assert_eq!(
        (f.attribution, f.hold_times_ms.len(), f.blamed_hop),
        (Attribution::Absent, 0, None)
    );
    assert_eq!(
        fulfill::unwrap(&route(0, 0), None).unwrap_err(),
        Error::NoHops
    );
}

#[test]
fn short_packets_and_empty_routes_are_errors_and_change_nothing() {
    let s = route(2, 0x90);
    let mut short = [7u8; 35];
    let mut a = AttributionData::new();
    let before = a.clone();
    assert_eq!(
        failure::wrap_attributed_in_place(s.hop(1).unwrap(), 5, &mut short, &mut a).unwrap_err(),
        Error::Truncated { len: 35, min: 36 }
    );
    assert_eq!((short, &a), ([7u8; 35], &before));
    assert_eq!(
        failure::wrap_in_place(s.hop(1).unwrap(), &mut short).unwrap_err(),
        Error::Truncated { len: 35, min: 36 }
    );
    assert_eq!(short, [7u8; 35]);
    assert_eq!(
        failure::unwrap_attributed(&s, &short, None).unwrap_err(),
        Error::Truncated { len: 35, min: 36 }
    );
    assert_eq!(
        failure::unwrap_attributed(&route(0, 0), &[0; 292], None).unwrap_err(),
        Error::NoHops
    );
    let mut out = [0u8; 100];
    assert_eq!(
        failure::create_attributed_into(s.hop(1).unwrap(), b"m", 0, &mut out, &mut a).unwrap_err(),
        Error::BufferTooSmall { required: 292 }
    );
    assert_eq!(
        a, before,
        "a failed create leaves the attribution data alone"
    );
}

#[test]
fn batch_unwrap_equals_one_at_a_time() {
    let routes: Vec<HopSecrets> = (0..40).map(|i| route(1 + i % 27, i as u8)).collect();
    let cases: Vec<(Vec<u8>, Option<AttributionData>)> = routes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let n = s.len();
            fail_back(s, 1 + i % n, &[i as u8; 3], ms, |h| match (h + i) % 7 {
                0 => Behaviour::Garbles,
                3 => Behaviour::Legacy,
                _ => Behaviour::Honest,
            })
        })
        .collect();
    let bad = [0u8; 10];
    let mut items: Vec<UnwrapItem> = routes
        .iter()
        .zip(&cases)
        .map(|(s, (p, a))| UnwrapItem {
            secrets: s,
            packet: p,
            attribution: a.as_ref().map(|a| &a.as_bytes()[..]),
        })
        .collect();
    items.push(UnwrapItem {
        secrets: &routes[0],
        packet: &bad,
        attribution: None,
    });
    for b in [
        Batch::with_threads(1),
        Batch::with_threads(2),
        Batch::all_cores(),
    ] {
        let got = failure::unwrap_batch(&b, &items);
        assert_eq!(got.len(), items.len());
        for (g, it) in got.iter().zip(&items) {
            assert_eq!(
                g,
                &failure::unwrap_attributed(it.secrets, it.packet, it.attribution)
            );
        }
        assert!(got.last().unwrap().is_err());
    }
}

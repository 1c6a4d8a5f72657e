//! Attribution data at the origin (`failure::unwrap_attributed`,
//! `fulfill::unwrap`, `failure::unwrap_batch`).
//!
//! Even first byte: the rest is split into a failure packet and attribution
//! data of any length (or none), made up by the fuzzer, over a route of 1 to
//! 27 hops. Decoding never panics, never authenticates the packet (the
//! fuzzer does not know the hop secrets), and its result is consistent:
//! hold times only for hops that vouched (at most 20), a blamed hop exactly
//! when the message cannot be trusted or the attribution breaks, and data of
//! the wrong length breaks at hop 1.
//!
//! Odd first byte: the rest describes a return trip the library builds (the
//! failing hop, its message, every hop's hold time and behaviour: honest,
//! without attribution support, or garbling the packet after wrapping), and
//! the origin's result must be what that trip implies: the failing hop and
//! message unless garbled, the hold times of the hops before the first
//! misbehaving one, that hop blamed. With the second bit of the first byte
//! set, the same for a fulfill's hold times; with bits 1-6 all set, the
//! batch unwrap equals one at a time.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use wireseal::batch::Batch;
use wireseal::sphinx::failure::{self, UnwrapItem, Unwrapped};
use wireseal::sphinx::{fulfill, keys, Attribution, AttributionData, HopSecrets, ATTRIBUTION_LEN};

const MAX_HOPS: usize = 20;

fn route(n: usize) -> HopSecrets {
    HopSecrets::new(
        (0..n)
            .map(|i| keys::SharedSecret::new([0x30 + i as u8; 32]))
            .collect(),
    )
}

fn batch() -> &'static Batch {
    static B: OnceLock<Batch> = OnceLock::new();
    B.get_or_init(|| Batch::with_threads(2))
}

/// Reads the fuzzer's bytes, then zeros.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }
    fn u64(&mut self) -> u64 {
        (0..8).fold(0, |v, _| v << 8 | u64::from(self.u8()))
    }
}

/// The consistency every result has, whatever the input.
fn check_shape(u: &Unwrapped, n: usize) {
    let m = n.min(MAX_HOPS);
    assert!(u.hold_times_ms.len() <= m);
    assert!(u.hold_times_ms.iter().all(|t| t % 100 == 0));
    assert!(u.hop.is_none_or(|h| (1..=n).contains(&h)));
    assert!(u.message.is_none() || u.hop.is_some());
    match u.attribution {
        Attribution::Absent => assert!(u.hold_times_ms.is_empty()),
        Attribution::Broken => assert_eq!(u.blamed_hop, Some(u.hold_times_ms.len() + 1)),
        Attribution::Valid => {}
    }
    let trusted = u.message.is_some();
    assert_eq!(
        u.blamed_hop.is_some(),
        !trusted || u.attribution == Attribution::Broken
    );
    assert!(u
        .blamed_hop
        .is_none_or(|b| (1..=n.min(MAX_HOPS + 1)).contains(&b)));
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Honest,
    Legacy,
    Garbles,
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut b = Bytes(rest);
    let n = 1 + b.u8() as usize % 27;
    let secrets = route(n);
    if mode & 1 == 0 {
        let rest = b.0;
        let split = if rest.is_empty() {
            0
        } else {
            (mode as usize >> 1) * rest.len() / 128
        };
        let (packet, attr) = rest.split_at(split.min(rest.len()));
        let attr = (mode & 2 == 0).then_some(attr);
        match failure::unwrap_attributed(&secrets, packet, attr) {
            Ok(u) => {
                check_shape(&u, n);
                assert_eq!(u.hop, None, "a made-up packet authenticated");
                if attr.is_some_and(|a| a.len() != ATTRIBUTION_LEN) {
                    assert_eq!(
                        (u.attribution, u.blamed_hop),
                        (Attribution::Broken, Some(1))
                    );
                }
                if attr.is_none() {
                    assert_eq!(
                        (u.attribution, u.blamed_hop),
                        (Attribution::Absent, Some(1))
                    );
                }
            }
            Err(e) => assert!(packet.len() < failure::MIN_FAILURE_LEN, "{e:?}"),
        }
        let f = fulfill::unwrap(&secrets, attr).unwrap();
        assert!(f.hold_times_ms.len() <= n.min(MAX_HOPS));
        assert_eq!(f.blamed_hop.is_some(), f.attribution == Attribution::Broken);
        return;
    }

    // A return trip the library builds, and what it implies.
    let failing = 1 + b.u8() as usize % n;
    let msg_len = b.u8() as usize % 64;
    let message: Vec<u8> = (0..msg_len).map(|_| b.u8()).collect();
    let mut hold = Vec::with_capacity(n);
    let mut role = Vec::with_capacity(n);
    for _ in 0..n {
        let r = b.u8();
        hold.push(if r & 0x80 != 0 {
            b.u64()
        } else {
            u64::from(b.u8()) * 37
        });
        role.push(match r % 8 {
            0 => Role::Legacy,
            1 => Role::Garbles,
            _ => Role::Honest,
        });
    }
    let ms = |h: usize| (hold[h - 1] / 100).min(u64::from(u32::MAX)) * 100;
    let ss = |h: usize| secrets.hop(h).unwrap();
    let garble = |p: &mut [u8], h: usize| p[32 + (h * 7) % (p.len() - 32)] ^= 1 << (h % 8);

    let (mut packet, mut attribution) = match role[failing - 1] {
        Role::Legacy => (failure::create_to_vec(ss(failing), &message).unwrap(), None),
        _ => {
            let (p, a) =
                failure::create_attributed_to_vec(ss(failing), &message, hold[failing - 1])
                    .unwrap();
            (p, Some(a))
        }
    };
    if role[failing - 1] == Role::Garbles {
        garble(&mut packet, failing);
    }
    for h in (1..failing).rev() {
        if role[h - 1] == Role::Legacy {
            failure::wrap_in_place(ss(h), &mut packet).unwrap();
            attribution = None;
            continue;
        }
        let a = attribution.get_or_insert_with(AttributionData::new);
        failure::wrap_attributed_in_place(ss(h), hold[h - 1], &mut packet, a).unwrap();
        if role[h - 1] == Role::Garbles {
            garble(&mut packet, h);
        }
    }
    let u = failure::unwrap_attributed(
        &secrets,
        &packet,
        attribution.as_ref().map(|a| &a.as_bytes()[..]),
    )
    .unwrap();
    check_shape(&u, n);

    let garbled = role[..failing].contains(&Role::Garbles);
    let first_bad = (1..=failing).find(|h| role[h - 1] != Role::Honest);
    let (want_attr, want_hold, want_blame) = if failing > 1 && role[0] == Role::Legacy {
        (Attribution::Absent, vec![], garbled.then_some(1))
    } else if failing == 1 && role[0] == Role::Legacy {
        (Attribution::Absent, vec![], garbled.then_some(1))
    } else {
        match first_bad.filter(|b| *b <= MAX_HOPS) {
            Some(b) => (Attribution::Broken, (1..b).map(ms).collect(), Some(b)),
            None if garbled => (
                Attribution::Valid,
                (1..=n.min(MAX_HOPS)).map(ms).collect(),
                Some(n.min(MAX_HOPS + 1)),
            ),
            None => (
                Attribution::Valid,
                (1..=failing.min(MAX_HOPS)).map(ms).collect(),
                None,
            ),
        }
    };
    if garbled {
        assert_eq!((u.hop, &u.message), (None, &None));
    } else {
        assert_eq!(
            (u.hop, u.message.as_deref()),
            (Some(failing), Some(&message[..]))
        );
    }
    assert_eq!(u.attribution, want_attr);
    assert_eq!(u.hold_times_ms, want_hold);
    assert_eq!(u.blamed_hop, want_blame);

    if mode & 0x7e == 0x7e {
        let item = UnwrapItem {
            secrets: &secrets,
            packet: &packet,
            attribution: attribution.as_ref().map(|a| &a.as_bytes()[..]),
        };
        let many = failure::unwrap_batch(batch(), &[item, item]);
        assert!(many.iter().all(|r| r.as_ref() == Ok(&u)));
    }
    if mode & 2 == 0 {
        return;
    }

    // The fulfill of the same route: legacy hops drop the data.
    let mut d: Option<AttributionData> = None;
    for h in (1..=n).rev() {
        if role[h - 1] == Role::Legacy {
            d = None;
            continue;
        }
        fulfill::wrap(
            ss(h),
            hold[h - 1],
            d.get_or_insert_with(AttributionData::new),
        );
    }
    let f = fulfill::unwrap(&secrets, d.as_ref().map(|d| &d.as_bytes()[..])).unwrap();
    let legacy = (1..=n).find(|h| role[h - 1] == Role::Legacy);
    match legacy {
        Some(1) => assert_eq!(
            (f.attribution, f.hold_times_ms.len(), f.blamed_hop),
            (Attribution::Absent, 0, None)
        ),
        Some(l) if l <= MAX_HOPS => {
            assert_eq!(
                (f.attribution, f.blamed_hop),
                (Attribution::Broken, Some(l))
            );
            assert_eq!(f.hold_times_ms, (1..l).map(ms).collect::<Vec<_>>());
        }
        _ => {
            assert_eq!((f.attribution, f.blamed_hop), (Attribution::Valid, None));
            assert_eq!(
                f.hold_times_ms,
                (1..=n.min(MAX_HOPS)).map(ms).collect::<Vec<_>>()
            );
        }
    }
});

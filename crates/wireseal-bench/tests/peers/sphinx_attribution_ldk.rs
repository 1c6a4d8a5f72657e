//! Attributable failures and fulfills against LDK (`lightning` 0.2.7), both
//! ways, over random routes of 1 to 20 hops in a line of 21 LDK nodes.
//!
//! LDK's onion failure code is crate-private, so LDK takes part as whole
//! `ChannelManager`s: its origin (node 0) decodes what comes back, its
//! recipient creates failures, its forwarding nodes wrap them; wireseal
//! replaces chosen hops' messages on the way back (creating, wrapping,
//! acting without attribution support, or garbling the packet) and decodes
//! what reaches node 0 with the secrets it got by peeling LDK's onion.
//!
//! Every case is checked three ways: LDK's output at every LDK hop equals
//! wireseal's for the same input (its hold time read from its own data), and
//! LDK's origin (hold times, error code and data, the failing node, the
//! blamed position it logs) and wireseal's origin both give what the
//! route's construction implies.

use crate::sphinx_ldk_support;

use lightning::events::{Event, PathFailure};
use lightning::ln::functional_test_utils::*;
use lightning::routing::gossip::NetworkUpdate;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sphinx_ldk_support as net;
use std::time::Duration;
use wireseal::hazmat::chacha20::KeyStream;
use wireseal::sphinx::keys::{derive, KeyKind, SharedSecret};
use wireseal::sphinx::{failure, fulfill, Attribution, AttributionData};

const NODES: usize = 21;
const MAX_HOPS: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// LDK does its own work at this hop.
    Ldk,
    /// wireseal creates or wraps with attribution data.
    Wireseal,
    /// wireseal acts as a node without attribution support.
    Legacy,
    /// wireseal wraps, then flips a bit of the packet it sends.
    Garbles,
}

/// The hold time hop `ss` put in front of `data` (its own, before its
/// stream): what LDK reported, read back so wireseal can redo its step.
fn hold_units(ss: &SharedSecret, data: &[u8]) -> u32 {
    let mut front = [0u8; 4];
    front.copy_from_slice(&data[..4]);
    KeyStream::new(derive(KeyKind::AmmagExt, ss.expose()).expose(), 0).xor(&mut front);
    u32::from_be_bytes(front)
}

/// The failure message inside LDK's packet from hop `ss` (it created it).
fn message_of(ss: &SharedSecret, packet: &[u8]) -> Vec<u8> {
    let mut plain = packet.to_vec();
    failure::wrap_in_place(ss, &mut plain).unwrap();
    let len = u16::from_be_bytes([plain[32], plain[33]]) as usize;
    plain[34..34 + len].to_vec()
}

fn garble(packet: &mut [u8], k: usize) {
    packet[40 + k] ^= 0x10;
}

/// What the origin must learn: (attribution, hold times ms, blamed hop).
fn expected(
    role: &[Role],
    e: usize,
    n: usize,
    hold: &[u64],
) -> (Attribution, Vec<u64>, Option<usize>) {
    let garbled = (1..=e).any(|h| role[h] == Role::Garbles);
    if role[1] == Role::Legacy {
        return (Attribution::Absent, vec![], garbled.then_some(1));
    }
    match (1..=e).find(|h| matches!(role[*h], Role::Legacy | Role::Garbles)) {
        Some(b) if b <= MAX_HOPS => (Attribution::Broken, hold[1..b].to_vec(), Some(b)),
        _ if garbled => (
            Attribution::Valid,
            hold[1..=n.min(MAX_HOPS)].to_vec(),
            Some(n.min(MAX_HOPS + 1)),
        ),
        _ => (Attribution::Valid, hold[1..=e.min(MAX_HOPS)].to_vec(), None),
    }
}

/// One failed HTLC: node `e` fails it (LDK's recipient when `e == n` and
/// its role is `Ldk`), the hops before it act per `role`.
fn failure_case(
    nodes: &[Node],
    scids: &[u64],
    rng: &mut StdRng,
    n: usize,
    e: usize,
    role: &[Role],
) {
    let h = net::send(nodes, scids, n);
    if rng.gen_bool(0.3) {
        // LDK's hops measure their hold times on the wall clock.
        std::thread::sleep(Duration::from_millis(rng.gen_range(100..350)));
    }
    net::take_log(nodes);
    let ss = |k: usize| h.secrets.hop(k).unwrap();
    let ws_msg = [0x20, 0x02]; // temporary_node_failure: LDK names the node
    let mut hold = vec![0u64; n + 1];
    let (mut msg, mut cs) = net::recipient_fails(nodes, &h);
    let mut incoming: (Vec<u8>, Option<Vec<u8>>) = (vec![], None);
    let mut message = ws_msg.to_vec();
    for k in (1..=n).rev() {
        let ldk = (
            net::reason(&msg),
            msg.attribution_data.as_ref().map(net::ldk_bytes),
        );
        let mut out = if k > e {
            ldk
        } else if k == e && role[k] == Role::Ldk {
            // LDK's recipient: wireseal creates the same bytes.
            message = message_of(ss(k), &ldk.0);
            let units = hold_units(ss(k), ldk.1.as_ref().unwrap());
            hold[k] = u64::from(units) * 100;
            let (p, a) = failure::create_attributed_to_vec(ss(k), &message, hold[k]).unwrap();
            assert_eq!(
                (&p, a.as_bytes().to_vec()),
                (&ldk.0, ldk.1.clone().unwrap()),
                "LDK create"
            );
            ldk
        } else if k == e {
            hold[k] = rng.gen_range(0..1000) * 100;
            if role[k] == Role::Legacy {
                (failure::create_to_vec(ss(k), &message).unwrap(), None)
            } else {
                let (p, a) = failure::create_attributed_to_vec(ss(k), &message, hold[k]).unwrap();
                (p, Some(a.as_bytes().to_vec()))
            }
        } else {
            let (mut p, a) = incoming.clone();
            let mut a = match a {
                Some(a) => AttributionData::from_slice(&a).unwrap(),
                None => AttributionData::new(),
            };
            if role[k] == Role::Ldk {
                // LDK's wrap equals wireseal's with the hold time LDK chose.
                hold[k] = u64::from(hold_units(ss(k), ldk.1.as_ref().unwrap())) * 100;
                failure::wrap_attributed_in_place(ss(k), hold[k], &mut p, &mut a).unwrap();
                assert_eq!(
                    (&p, a.as_bytes().to_vec()),
                    (&ldk.0, ldk.1.clone().unwrap()),
                    "LDK wrap at {k}"
                );
                ldk
            } else if role[k] == Role::Legacy {
                failure::wrap_in_place(ss(k), &mut p).unwrap();
                (p, None)
            } else {
                hold[k] = rng.gen_range(0..1000) * 100;
                failure::wrap_attributed_in_place(ss(k), hold[k], &mut p, &mut a).unwrap();
                (p, Some(a.as_bytes().to_vec()))
            }
        };
        if k <= e && role[k] == Role::Garbles {
            garble(&mut out.0, k);
        }
        let sent = net::with_reason(&msg, &out.0, out.1.as_deref());
        incoming = out;
        if let Some((m, c)) = net::deliver_fail(nodes, k, &sent, &cs) {
            (msg, cs) = (m, c);
        }
    }

    let (want_attr, want_hold, want_blame) = expected(role, e, n, &hold);
    let garbled = (1..=e).any(|h| role[h] == Role::Garbles);
    let case = format!("n {n} e {e} roles {:?}", &role[1..=n]);

    // wireseal's origin.
    let u = failure::unwrap_attributed(&h.secrets, &incoming.0, incoming.1.as_deref()).unwrap();
    assert_eq!(u.attribution, want_attr, "{case}");
    assert_eq!(u.hold_times_ms, want_hold, "{case}");
    assert_eq!(u.blamed_hop, want_blame, "{case}");
    if garbled {
        assert_eq!((u.hop, &u.message), (None, &None), "{case}");
    } else {
        assert_eq!(
            (u.hop, u.message.as_deref()),
            (Some(e), Some(&message[..])),
            "{case}"
        );
    }

    // LDK's origin.
    let events = nodes[0].node.get_and_clear_pending_events();
    let log = net::take_log(nodes);
    let Some(Event::PaymentPathFailed {
        hold_times,
        failure: f,
        error_code,
        error_data,
        ..
    }) = events
        .iter()
        .find(|e| matches!(e, Event::PaymentPathFailed { .. }))
    else {
        panic!("{case}: no PaymentPathFailed in {events:?}");
    };
    let want_units: Vec<u32> = want_hold.iter().map(|ms| (ms / 100) as u32).collect();
    assert_eq!(hold_times, &want_units, "{case}");
    let pos_line =
        |p: usize| format!("Invalid failure HMAC in attribution data for node at pos {p}");
    if garbled {
        assert_eq!((error_code, error_data), (&None, &None), "{case}");
        let scid = match want_blame {
            Some(b) if want_attr != Attribution::Valid => scids[b],
            _ => 0,
        };
        let line = format!("Attributation data failed for channel {scid}");
        assert!(
            log.iter().any(|l| l.ends_with(&line)),
            "{case}: LDK logs no `{line}`"
        );
    } else {
        assert_eq!(
            *error_code,
            Some(u16::from_be_bytes([message[0], message[1]])),
            "{case}"
        );
        assert_eq!(error_data.as_deref(), Some(&message[2..]), "{case}");
        if message[..2] == ws_msg {
            let PathFailure::OnPath {
                network_update: Some(NetworkUpdate::NodeFailure { node_id, .. }),
            } = f
            else {
                panic!("{case}: {f:?}");
            };
            assert_eq!(*node_id, nodes[e].node.get_our_node_id(), "{case}");
        }
    }
    match (want_attr, want_blame) {
        (Attribution::Broken, Some(b)) => {
            assert!(
                log.contains(&pos_line(b - 1)),
                "{case}: LDK does not blame pos {}",
                b - 1
            )
        }
        _ => assert!(
            !log.iter().any(|l| l.starts_with("Invalid failure HMAC")),
            "{case}"
        ),
    }
    net::settle(nodes);
    eprintln!(
        "ok {case}: hop {:?} {want_attr} {want_hold:?} blamed {want_blame:?}",
        u.hop
    );
}

/// One fulfilled HTLC; hops act per `role` (`Garbles` is not used).
fn fulfill_case(nodes: &[Node], scids: &[u64], rng: &mut StdRng, n: usize, role: &[Role]) {
    let h = net::send(nodes, scids, n);
    if rng.gen_bool(0.3) {
        std::thread::sleep(Duration::from_millis(rng.gen_range(100..350)));
    }
    let ss = |k: usize| h.secrets.hop(k).unwrap();
    let mut hold = vec![0u64; n + 1];
    let (mut msg, mut cs) = net::recipient_claims(nodes, &h);
    let mut incoming: Option<Vec<u8>> = None;
    for k in (1..=n).rev() {
        let ldk = msg.attribution_data.as_ref().map(net::ldk_bytes);
        let mut a = match &incoming {
            Some(a) if k < n => AttributionData::from_slice(a).unwrap(),
            _ => AttributionData::new(),
        };
        let out = match role[k] {
            Role::Ldk => {
                let ldk = ldk.expect("LDK sends attribution data");
                hold[k] = u64::from(hold_units(ss(k), &ldk)) * 100;
                fulfill::wrap(ss(k), hold[k], &mut a);
                assert_eq!(a.as_bytes().to_vec(), ldk, "LDK fulfill at {k}");
                Some(ldk)
            }
            Role::Legacy => None,
            _ => {
                hold[k] = rng.gen_range(0..1000) * 100;
                fulfill::wrap(ss(k), hold[k], &mut a);
                Some(a.as_bytes().to_vec())
            }
        };
        msg.attribution_data = out.as_deref().map(net::ldk_attribution);
        incoming = out;
        if let Some((m, c)) = net::deliver_fulfill(nodes, k, msg.clone(), &cs) {
            (msg, cs) = (m, c);
        }
    }
    let case = format!("fulfill n {n} roles {:?}", &role[1..=n]);
    let (want_attr, want_hold, want_blame) = match (1..=n).find(|k| role[*k] == Role::Legacy) {
        Some(1) => (Attribution::Absent, vec![], None),
        Some(l) => (Attribution::Broken, hold[1..l].to_vec(), Some(l)),
        None => (Attribution::Valid, hold[1..=n].to_vec(), None),
    };
    let got = fulfill::unwrap(&h.secrets, incoming.as_deref()).unwrap();
    assert_eq!(
        (got.attribution, &got.hold_times_ms, got.blamed_hop),
        (want_attr, &want_hold, want_blame),
        "{case}"
    );
    let events = nodes[0].node.get_and_clear_pending_events();
    let Some(Event::PaymentPathSuccessful { hold_times, .. }) = events
        .iter()
        .find(|e| matches!(e, Event::PaymentPathSuccessful { .. }))
    else {
        panic!("{case}: no PaymentPathSuccessful in {events:?}");
    };
    let want_units: Vec<u32> = want_hold.iter().map(|ms| (ms / 100) as u32).collect();
    assert_eq!(hold_times, &want_units, "{case}");
    net::settle(nodes);
    eprintln!("ok {case}: {want_attr} {want_hold:?} blamed {want_blame:?}");
}

fn random_roles(rng: &mut StdRng, n: usize, garbling: bool) -> Vec<Role> {
    let mut role = vec![Role::Ldk];
    for _ in 1..=n {
        role.push(match rng.gen_range(0..10) {
            0..=4 => Role::Ldk,
            5..=7 => Role::Wireseal,
            8 => Role::Legacy,
            _ if garbling => Role::Garbles,
            _ => Role::Wireseal,
        });
    }
    role
}

#[test]
fn ldk_and_wireseal_agree_on_attributed_failures_and_fulfills() {
    let chanmon = create_chanmon_cfgs(NODES);
    let cfgs = create_node_cfgs(NODES, &chanmon);
    let mgrs = create_node_chanmgrs(NODES, &cfgs, &vec![None; NODES]);
    let nodes = create_network(NODES, &cfgs, &mgrs);
    let scids = net::line(&nodes);
    let mut rng = StdRng::seed_from_u64(0x5eed_a77b);

    // Fixed cases: all LDK over 20 hops; LDK forwarding a wireseal failure;
    // a garbling hop and a hop without support among LDK nodes.
    let all_ldk = vec![Role::Ldk; 21];
    failure_case(&nodes, &scids, &mut rng, 20, 20, &all_ldk);
    let mut r = all_ldk.clone();
    r[20] = Role::Wireseal;
    failure_case(&nodes, &scids, &mut rng, 20, 20, &r);
    let mut r = all_ldk.clone();
    r[9] = Role::Wireseal;
    failure_case(&nodes, &scids, &mut rng, 12, 9, &r);
    let mut r = all_ldk.clone();
    r[7] = Role::Garbles;
    failure_case(&nodes, &scids, &mut rng, 15, 15, &r);
    let mut r = all_ldk.clone();
    r[4] = Role::Legacy;
    failure_case(&nodes, &scids, &mut rng, 10, 10, &r);
    let mut r = all_ldk.clone();
    r[1] = Role::Legacy;
    failure_case(&nodes, &scids, &mut rng, 3, 3, &r);
    fulfill_case(&nodes, &scids, &mut rng, 20, &all_ldk);
    let mut r = all_ldk.clone();
    r[6] = Role::Legacy;
    fulfill_case(&nodes, &scids, &mut rng, 11, &r);

    // Random routes of 1 to 20 hops.
    for _ in 0..24 {
        let n = rng.gen_range(1..=20);
        let mut role = random_roles(&mut rng, n, true);
        let e = if rng.gen_bool(0.4) {
            n
        } else {
            rng.gen_range(1..=n)
        };
        if e < n && role[e] == Role::Ldk {
            // Only the recipient fails in LDK's own way here.
            role[e] = Role::Wireseal;
        }
        failure_case(&nodes, &scids, &mut rng, n, e, &role);
    }
    for _ in 0..10 {
        let n = rng.gen_range(1..=20);
        let role = random_roles(&mut rng, n, false);
        fulfill_case(&nodes, &scids, &mut rng, n, &role);
    }
}

//! Attribution data through a blinded path, against LDK (`lightning` 0.2.7):
//! LDK's origin pays a blinded path its recipient built (LDK's router finds
//! the route, as in LDK's own blinded-path tests); wireseal peels LDK's
//! onion hop by hop (the introduction node with its node key, the blinded
//! hops with the key their path key gives) to learn the route's secrets.
//!
//! * A failure inside the blinded path: LDK's blinded hops answer with
//!   `update_fail_malformed_htlc` (`invalid_onion_blinding`, no attribution
//!   data), and its introduction node, whose HTLC carried no path key,
//!   creates an `invalid_onion_blinding` failure with attribution data.
//!   wireseal's `failure::create_at` (unblinded) gives the same bytes, and
//!   `relay_in_place` the same as every LDK hop before it. wireseal's origin,
//!   told the blinded tail, names the introduction node, vouches for every
//!   hop up to it and blames nobody; LDK's origin reports the failure as
//!   inside the blinded path and the hold times of the hops before the
//!   introduction node (it stops there), the same as wireseal's.
//! * A fulfill: with LDK's own blinded hops, which still add attribution
//!   data (LDK 0.2 predates the rule), and with wireseal in their place
//!   following it (none from inside the path, so the introduction node
//!   starts a new block): both origins read the hold times up to the
//!   introduction node alike. Read without the blinded tail, wireseal's
//!   origin would blame the first blinded hop.

use crate::sphinx_ldk_support;

use lightning::blinded_path::payment::{
    BlindedPaymentPath, Bolt12RefundContext, ForwardTlvs, PaymentConstraints, PaymentContext,
    PaymentForwardNode, PaymentRelay, UnauthenticatedReceiveTlvs,
};
use lightning::commitment_signed_dance;
use lightning::events::{Event, HTLCHandlingFailureType, PathFailure};
use lightning::ln::channelmanager::{PaymentId, RecipientOnionFields, Retry};
use lightning::ln::functional_test_utils::*;
use lightning::ln::msgs::{
    BaseMessageHandler, ChannelMessageHandler, MessageSendEvent, UnsignedChannelUpdate,
};
use lightning::offers::nonce::Nonce;
use lightning::routing::router::{PaymentParameters, RouteParameters};
use lightning::sign::NodeSigner;
use lightning::types::features::BlindedHopFeatures;
use lightning::types::payment::{PaymentHash, PaymentPreimage};
use lightning::util::ser::Writeable;
use sphinx_ldk_support as net;
use wireseal::keys::PublicKey;
use wireseal::sphinx::keys::{derive, KeyKind, SharedSecret};
use wireseal::sphinx::malformed::BadOnion;
use wireseal::sphinx::{
    blinding, failure, fulfill, tlv, Attribution, AttributionData, HopSecrets, Incoming, Onion,
    Peeled,
};

const NODES: usize = 6;
const AMOUNT_MSAT: u64 = 100_000;
/// TLV types of a hop payload (BOLT #4).
const ENCRYPTED_RECIPIENT_DATA: u64 = 10;
const CURRENT_PATH_KEY: u64 = 12;

/// The hold time hop `ss` put in front of `data` (before its stream).
fn hold_ms(ss: &SharedSecret, data: &[u8]) -> u64 {
    let mut front = data[..4].to_vec();
    wireseal::hazmat::chacha20::KeyStream::new(derive(KeyKind::AmmagExt, ss.expose()).expose(), 0)
        .xor(&mut front);
    u64::from(u32::from_be_bytes(front.try_into().unwrap())) * 100
}

/// Channels 0-1, ..., 4-5; each channel's update from its lower node.
fn line<'a, 'b, 'c: 'd, 'd>(nodes: &'a Vec<Node<'b, 'c, 'd>>) -> Vec<UnsignedChannelUpdate> {
    let mut ups = Vec::new();
    for i in 1..nodes.len() {
        ups.push(
            create_announced_chan_between_nodes(nodes, i - 1, i)
                .0
                .contents,
        );
    }
    let top = nodes.iter().map(|n| n.best_block_info().1).max().unwrap();
    for n in nodes {
        let behind = top - n.best_block_info().1;
        if behind > 0 {
            connect_blocks(n, behind);
        }
    }
    ups
}

/// A payment from node 0 to node `n` through a blinded path node `intro`
/// introduces, and the route's secrets wireseal learned by peeling LDK's
/// onion (its last `n - intro` hops blinded).
struct Htlc {
    hash: PaymentHash,
    preimage: PaymentPreimage,
    secrets: HopSecrets,
}

fn send(nodes: &[Node], ups: &[UnsignedChannelUpdate], intro: usize, n: usize) -> Htlc {
    let (preimage, hash, secret) = get_payment_preimage_hash(&nodes[n], Some(AMOUNT_MSAT), None);
    let forward: Vec<PaymentForwardNode> = (intro..n)
        .map(|i| {
            let up = &ups[i];
            PaymentForwardNode {
                node_id: nodes[i].node.get_our_node_id(),
                tlvs: ForwardTlvs {
                    short_channel_id: up.short_channel_id,
                    payment_relay: PaymentRelay {
                        cltv_expiry_delta: up.cltv_expiry_delta,
                        fee_proportional_millionths: up.fee_proportional_millionths,
                        fee_base_msat: up.fee_base_msat,
                    },
                    payment_constraints: PaymentConstraints {
                        max_cltv_expiry: u32::MAX,
                        htlc_minimum_msat: 1,
                    },
                    next_blinding_override: None,
                    features: BlindedHopFeatures::empty(),
                },
                htlc_maximum_msat: u64::MAX,
            }
        })
        .collect();
    let keys = nodes[n].keys_manager;
    let payee = UnauthenticatedReceiveTlvs {
        payment_secret: secret,
        payment_constraints: PaymentConstraints {
            max_cltv_expiry: u32::MAX,
            htlc_minimum_msat: 1,
        },
        payment_context: PaymentContext::Bolt12Refund(Bolt12RefundContext {}),
    }
    .authenticate(Nonce::from_entropy_source(keys), &keys.get_expanded_key());
    let secp = lightning::bitcoin::secp256k1::Secp256k1::new();
    let path = BlindedPaymentPath::new(
        &forward,
        nodes[n].node.get_our_node_id(),
        payee,
        u64::MAX,
        TEST_FINAL_CLTV as u16,
        keys,
        &secp,
    )
    .unwrap();
    let params = RouteParameters::from_payment_params_and_value(
        PaymentParameters::blinded(vec![path]),
        AMOUNT_MSAT,
    );
    net::settle(nodes);
    nodes[0]
        .node
        .send_payment(
            hash,
            RecipientOnionFields::spontaneous_empty(),
            PaymentId(hash.0),
            params,
            Retry::Attempts(0),
        )
        .unwrap();
    check_added_monitors(&nodes[0], 1);
    let mut events = nodes[0].node.get_and_clear_pending_msg_events();
    let ev = events.remove(0);
    let MessageSendEvent::UpdateHTLCs { updates, .. } = &ev else {
        panic!("expected an HTLC update");
    };
    let secrets = peel(
        nodes,
        &updates.update_add_htlcs[0].onion_routing_packet,
        hash,
        intro,
        n,
    );
    let route: Vec<&Node> = nodes[1..=n].iter().collect();
    pass_along_path(
        &nodes[0],
        &route,
        AMOUNT_MSAT,
        hash,
        Some(secret),
        ev,
        true,
        None,
    );
    // Held long enough for every hop to report a hold time above zero.
    std::thread::sleep(std::time::Duration::from_millis(250));
    Htlc {
        hash,
        preimage,
        secrets,
    }
}

/// wireseal peels LDK's onion: hops 1 to `intro` with their node keys, the
/// blinded hops with the blinded key of the path key the hop before
/// derived from its encrypted recipient data.
fn peel(
    nodes: &[Node],
    pkt: &lightning::ln::msgs::OnionPacket,
    hash: PaymentHash,
    intro: usize,
    n: usize,
) -> HopSecrets {
    let mut onion = Some(Onion::parse(&net::onion_bytes(pkt)).unwrap());
    let (mut secrets, mut path_key): (Vec<SharedSecret>, Option<PublicKey>) = (Vec::new(), None);
    for (i, node) in nodes.iter().enumerate().take(n + 1).skip(1) {
        let key = net::node_key(node);
        let unblinded = path_key.map(|p| blinding::unblind(&key, &p).unwrap());
        let peel_key = unblinded.as_ref().map_or(&key, |u| u.blinded_privkey());
        let peeled = onion.take().unwrap().peel(peel_key, &hash.0).unwrap();
        let payload = peeled.payload().to_vec();
        assert_eq!(i > intro, unblinded.is_some(), "hop {i}");
        if i == intro {
            let p = tlv::find(&payload, CURRENT_PATH_KEY)
                .unwrap()
                .expect("the path key");
            path_key = Some(PublicKey::from_slice(p).unwrap());
        }
        if i >= intro && i < n {
            let u = blinding::unblind(&key, &path_key.unwrap()).unwrap();
            let sealed = tlv::find(&payload, ENCRYPTED_RECIPIENT_DATA)
                .unwrap()
                .unwrap();
            let data = u.open_to_vec(sealed).unwrap();
            path_key = Some(u.next_path_key_for(&data).unwrap());
        }
        match peeled {
            Peeled::Forward {
                next,
                shared_secret,
                ..
            } => {
                secrets.push(shared_secret);
                onion = Some(next);
            }
            Peeled::Final { shared_secret, .. } => {
                assert_eq!(i, n);
                secrets.push(shared_secret);
            }
        }
    }
    HopSecrets::new(secrets)
        .with_blinded_tail(n - intro)
        .unwrap()
}

/// The recipient fails; the failure comes back to node 0. Checks LDK's
/// introduction node and hops against wireseal's library, then both origins.
fn failure_case(nodes: &[Node], ups: &[UnsignedChannelUpdate], intro: usize, n: usize) {
    let h = send(nodes, ups, intro, n);
    let ss = |k: usize| h.secrets.hop(k).unwrap();
    nodes[n].node.fail_htlc_backwards(&h.hash);
    expect_and_process_pending_htlcs_and_htlc_handling_failed(
        &nodes[n],
        &[HTLCHandlingFailureType::Receive {
            payment_hash: h.hash,
        }],
    );
    check_added_monitors(&nodes[n], 1);
    // Inside the blinded path: malformed failures, no attribution data.
    let mut k = n;
    let mut u = get_htlc_update_msgs(&nodes[k], &nodes[k - 1].node.get_our_node_id());
    while k > intro {
        assert!(
            u.update_fail_htlcs.is_empty(),
            "hop {k} sends update_fail_htlc"
        );
        let m = &u.update_fail_malformed_htlcs[0];
        assert_eq!(m.failure_code, BadOnion::Blinding.code());
        // channel_id, htlc_id, then sha256_of_onion (crate-private in LDK).
        assert_eq!(m.encode()[40..72], [0; 32]);
        let (a, b) = (&nodes[k - 1], &nodes[k]);
        a.node
            .handle_update_fail_malformed_htlc(b.node.get_our_node_id(), m);
        commitment_signed_dance!(a, b, u.commitment_signed, true);
        k -= 1;
        u = get_htlc_update_msgs(&nodes[k], &nodes[k - 1].node.get_our_node_id());
    }
    // The introduction node's failure: what wireseal creates for it.
    let mut msg = u.update_fail_htlcs[0].clone();
    let mut cs = u.commitment_signed;
    let mut packet = net::reason(&msg);
    let mut data = msg.attribution_data.as_ref().map(net::ldk_bytes).unwrap();
    let mut hold = vec![0u64; n + 1];
    hold[intro] = hold_ms(ss(intro), &data);
    let mut message = BadOnion::Blinding.code().to_be_bytes().to_vec();
    message.extend_from_slice(&[0; 32]);
    let (p, a) = failure::create_at(ss(intro), Incoming::Unblinded, &message, hold[intro]).unwrap();
    assert_eq!(
        (&p, a.unwrap().as_bytes().to_vec()),
        (&packet, data.clone()),
        "LDK's introduction node"
    );
    // The hops before it: LDK's wrap equals wireseal's.
    for k in (1..=intro).rev() {
        if k < intro {
            let theirs = net::reason(&msg);
            let their_data = msg.attribution_data.as_ref().map(net::ldk_bytes).unwrap();
            hold[k] = hold_ms(ss(k), &their_data);
            let mut a = Some(AttributionData::from_slice(&data).unwrap());
            failure::relay_in_place(ss(k), Incoming::Unblinded, hold[k], &mut packet, &mut a)
                .unwrap();
            assert_eq!(
                (&packet, a.unwrap().as_bytes().to_vec()),
                (&theirs, their_data.clone()),
                "LDK hop {k}"
            );
            data = their_data;
        }
        match net::deliver_fail(nodes, k, &msg, &cs) {
            Some((m, c)) => (msg, cs) = (m, c),
            None => break,
        }
    }
    let case = format!("failure intro {intro} n {n}");
    let got = failure::unwrap_attributed(&h.secrets, &packet, Some(&data)).unwrap();
    assert_eq!(got.hop, Some(intro), "{case}");
    assert_eq!(got.message.as_deref(), Some(&message[..]), "{case}");
    assert_eq!(got.attribution, Attribution::Valid, "{case}");
    assert_eq!(got.hold_times_ms, hold[1..=intro].to_vec(), "{case}");
    assert_eq!(got.blamed_hop, None, "{case}");
    let events = nodes[0].node.get_and_clear_pending_events();
    let Some(Event::PaymentPathFailed {
        hold_times,
        failure,
        payment_failed_permanently,
        ..
    }) = events
        .iter()
        .find(|e| matches!(e, Event::PaymentPathFailed { .. }))
    else {
        panic!("{case}: no PaymentPathFailed in {events:?}");
    };
    assert!(!payment_failed_permanently, "{case}");
    assert!(
        matches!(
            failure,
            PathFailure::OnPath {
                network_update: None
            }
        ),
        "{case}: LDK blames nobody inside the blinded path: {failure:?}"
    );
    // LDK stops at the introduction node, before reading its hold time.
    let ours: Vec<u32> = got.hold_times_ms[..intro - 1]
        .iter()
        .map(|ms| (ms / 100) as u32)
        .collect();
    assert_eq!(hold_times, &ours, "{case}");
    net::settle(nodes);
    eprintln!("ok {case}: hold times {:?}", got.hold_times_ms);
}

/// The recipient claims; `rule` has wireseal's blinded hops send no
/// attribution data in place of LDK's.
fn fulfill_case(nodes: &[Node], ups: &[UnsignedChannelUpdate], intro: usize, n: usize, rule: bool) {
    let h = send(nodes, ups, intro, n);
    let ss = |k: usize| h.secrets.hop(k).unwrap();
    let htlc = net::Htlc {
        n,
        hash: h.hash,
        preimage: h.preimage,
        secrets: HopSecrets::new(Vec::new()),
    };
    let (mut msg, mut cs) = net::recipient_claims(nodes, &htlc);
    let mut hold = vec![0u64; n + 1];
    let mut last = None;
    for k in (1..=n).rev() {
        if k > intro && rule {
            // A blinded hop by the rule: its fulfill carries no data.
            let r = if k == n {
                fulfill::create_at(ss(k), Incoming::Blinded, 0, None).unwrap()
            } else {
                let mut r = fulfill::Returned::default();
                fulfill::relay(ss(k), Incoming::Blinded, 0, &mut r).unwrap();
                r
            };
            assert!(r.attribution.is_none());
            msg.attribution_data = None;
        } else if k <= intro {
            let theirs = net::ldk_bytes(msg.attribution_data.as_ref().unwrap());
            hold[k] = hold_ms(ss(k), &theirs);
        }
        last = msg.attribution_data.as_ref().map(net::ldk_bytes);
        if let Some((m, c)) = net::deliver_fulfill(nodes, k, msg.clone(), &cs) {
            (msg, cs) = (m, c);
        }
    }
    let case = format!("fulfill intro {intro} n {n} rule {rule}");
    let data = last.expect("the introduction node sends attribution data");
    let got = fulfill::unwrap(&h.secrets, Some(&data)).unwrap();
    assert_eq!(
        (got.attribution, &got.hold_times_ms, got.blamed_hop),
        (Attribution::Valid, &hold[1..=intro].to_vec(), None),
        "{case}"
    );
    let events = nodes[0].node.get_and_clear_pending_events();
    let Some(Event::PaymentPathSuccessful { hold_times, .. }) = events
        .iter()
        .find(|e| matches!(e, Event::PaymentPathSuccessful { .. }))
    else {
        panic!("{case}: no PaymentPathSuccessful in {events:?}");
    };
    let ours: Vec<u32> = got
        .hold_times_ms
        .iter()
        .map(|ms| (ms / 100) as u32)
        .collect();
    assert_eq!(hold_times, &ours, "{case}");
    if rule {
        // Read as if there were no blinded path, the first blinded hop
        // would be blamed for following the rule.
        let clear = HopSecrets::new(
            h.secrets
                .as_slice()
                .iter()
                .map(|s| SharedSecret::new(*s.expose()))
                .collect(),
        );
        let wrong = fulfill::unwrap(&clear, Some(&data)).unwrap();
        assert_eq!(
            (wrong.attribution, wrong.blamed_hop),
            (Attribution::Broken, Some(intro + 1)),
            "{case}"
        );
    }
    net::settle(nodes);
    eprintln!("ok {case}: hold times {:?}", got.hold_times_ms);
}

#[test]
fn ldk_and_wireseal_read_attribution_data_through_a_blinded_path() {
    let chanmon = create_chanmon_cfgs(NODES);
    let cfgs = create_node_cfgs(NODES, &chanmon);
    let mgrs = create_node_chanmgrs(NODES, &cfgs, &vec![None; NODES]);
    let nodes = create_network(NODES, &cfgs, &mgrs);
    let ups = line(&nodes);
    for (intro, n) in [(2, 5), (1, 3), (3, 5), (2, 3)] {
        failure_case(&nodes, &ups, intro, n);
        fulfill_case(&nodes, &ups, intro, n, false);
        fulfill_case(&nodes, &ups, intro, n, true);
    }
}

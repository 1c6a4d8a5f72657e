//! A line of LDK nodes (`lightning` 0.2.7 `ChannelManager`s from its
//! `_test_utils` network) whose `update_fail_htlc` / `update_fulfill_htlc`
//! messages the attribution tests read and replace on their way back.
//!
//! LDK's failure and attribution functions are crate-private; its public
//! surface for them is the `ChannelManager` (which creates, wraps and
//! decodes them) and the wire codec of the messages (`reason` itself is
//! crate-private in `UpdateFailHTLC`, so the tests rewrite messages through
//! their serialized bytes).
#![allow(dead_code)]

use lightning::commitment_signed_dance;
use lightning::events::{Event, HTLCHandlingFailureType};
use lightning::ln::channelmanager::{PaymentId, RecipientOnionFields};
use lightning::ln::functional_test_utils::*;
use lightning::ln::msgs::{
    BaseMessageHandler, ChannelMessageHandler, CommitmentSigned, MessageSendEvent, UpdateFailHTLC,
    UpdateFulfillHTLC,
};
use lightning::ln::onion_utils::AttributionData as LdkAttribution;
use lightning::routing::router::{Path, Route, RouteHop};
use lightning::sign::KeysManager;
use lightning::types::payment::{PaymentHash, PaymentPreimage};
use lightning::util::ser::{Readable, Writeable};
use wireseal::keys::PrivateKey;
use wireseal::sphinx::{HopSecrets, Onion, Peeled};

/// Payment amount of every test HTLC.
pub const AMOUNT_MSAT: u64 = 100_000;
/// The base fee each forwarding node charges (LDK's default config).
const FEE_MSAT: u64 = 1000;

/// Node `i`'s private key, from its seed as LDK's `KeysManager` derives it.
pub fn node_key(node: &Node) -> PrivateKey {
    let sk = KeysManager::new(&node.node_seed, 0, 0, true).get_node_secret_key();
    let k = PrivateKey::from_bytes(&sk.secret_bytes()).unwrap();
    assert_eq!(
        k.public_key().serialize(),
        node.node.get_our_node_id().serialize()
    );
    k
}

/// Opens channels 0-1, 1-2, ..., (n-1)-n; returns each channel's scid,
/// index `i` for the channel into node `i` (index 0 unused).
pub fn line<'a, 'b, 'c: 'd, 'd>(nodes: &'a Vec<Node<'b, 'c, 'd>>) -> Vec<u64> {
    let mut scids = vec![0];
    for i in 1..nodes.len() {
        let (update, _, _, _) = create_announced_chan_between_nodes(nodes, i - 1, i);
        scids.push(update.contents.short_channel_id);
    }
    // Each channel's confirmations were mined on its two nodes only: bring
    // every node to the same height, or CLTVs look wrong to some.
    let top = nodes.iter().map(|n| n.best_block_info().1).max().unwrap();
    for n in nodes {
        let behind = top - n.best_block_info().1;
        if behind > 0 {
            connect_blocks(n, behind);
        }
    }
    scids
}

/// A payment in flight from node 0 to node `n`, and what the hops derived.
pub struct Htlc {
    pub n: usize,
    pub hash: PaymentHash,
    pub preimage: PaymentPreimage,
    /// The route's shared secrets, from peeling LDK's onion with wireseal.
    pub secrets: HopSecrets,
}

/// Sends an HTLC from node 0 along nodes 1..=n (a route LDK's origin is
/// given, not one it finds) and delivers it to node `n`, peeling LDK's onion
/// with wireseal on the way to learn every hop's shared secret.
pub fn send(nodes: &[Node], scids: &[u64], n: usize) -> Htlc {
    let (preimage, hash, secret) = get_payment_preimage_hash(&nodes[n], Some(AMOUNT_MSAT), None);
    let delta = u32::from(
        test_default_channel_config()
            .channel_config
            .cltv_expiry_delta,
    );
    let hops = (1..=n)
        .map(|i| RouteHop {
            pubkey: nodes[i].node.get_our_node_id(),
            node_features: nodes[i].node.node_features(),
            short_channel_id: scids[i],
            channel_features: nodes[i].node.channel_features(),
            fee_msat: if i == n { AMOUNT_MSAT } else { FEE_MSAT },
            cltv_expiry_delta: if i == n { TEST_FINAL_CLTV } else { delta },
            maybe_announced_channel: true,
        })
        .collect();
    let route = Route {
        paths: vec![Path {
            hops,
            blinded_tail: None,
        }],
        route_params: None,
    };
    // Forget monitor updates the previous HTLC's last messages left counted.
    nodes[0]
        .chain_monitor
        .added_monitors
        .lock()
        .unwrap()
        .clear();
    nodes[0]
        .node
        .send_payment_with_route(
            route,
            hash,
            RecipientOnionFields::secret_only(secret),
            PaymentId(hash.0),
        )
        .unwrap();
    check_added_monitors(&nodes[0], 1);
    let mut events = nodes[0].node.get_and_clear_pending_msg_events();
    assert_eq!(events.len(), 1);
    let ev = events.remove(0);
    let MessageSendEvent::UpdateHTLCs { updates, .. } = &ev else {
        panic!("expected an HTLC update");
    };
    let secrets = peel_all(
        nodes,
        &updates.update_add_htlcs[0].onion_routing_packet,
        hash,
        n,
    );
    let path: Vec<&Node> = nodes[1..=n].iter().collect();
    pass_along_path(
        &nodes[0],
        &path,
        AMOUNT_MSAT,
        hash,
        Some(secret),
        ev,
        true,
        None,
    );
    Htlc {
        n,
        hash,
        preimage,
        secrets,
    }
}

/// The wire bytes of LDK's onion packet.
pub fn onion_bytes(pkt: &lightning::ln::msgs::OnionPacket) -> Vec<u8> {
    let mut bytes = vec![pkt.version];
    bytes.extend_from_slice(&pkt.public_key.unwrap().serialize());
    bytes.extend_from_slice(&pkt.hop_data);
    bytes.extend_from_slice(&pkt.hmac);
    bytes
}

/// wireseal peels LDK's onion at every hop; the last hop is final.
fn peel_all(
    nodes: &[Node],
    pkt: &lightning::ln::msgs::OnionPacket,
    hash: PaymentHash,
    n: usize,
) -> HopSecrets {
    let mut onion = Some(Onion::parse(&onion_bytes(pkt)).unwrap());
    let mut secrets = Vec::with_capacity(n);
    for (i, node) in nodes.iter().enumerate().take(n + 1).skip(1) {
        let o = onion.take().expect("a hop after the recipient");
        match o.peel(&node_key(node), &hash.0).unwrap() {
            Peeled::Forward {
                next,
                shared_secret,
                ..
            } => {
                assert!(i < n, "hop {i} forwards past the recipient");
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
}

/// `update_fail_htlc`'s failure packet, from its wire encoding
/// (`channel_id(32) | htlc_id(8) | len(2) | reason | TLVs`).
pub fn reason(msg: &UpdateFailHTLC) -> Vec<u8> {
    let b = msg.encode();
    let len = u16::from_be_bytes([b[40], b[41]]) as usize;
    b[42..42 + len].to_vec()
}

/// `msg` with `reason` and attribution data (920 bytes, TLV 1) replaced,
/// as the bench rewrites it.
pub fn with_reason(
    msg: &UpdateFailHTLC,
    reason: &[u8],
    attribution: Option<&[u8]>,
) -> UpdateFailHTLC {
    if let Some(a) = attribution {
        assert_eq!(a.len(), 920);
    }
    wireseal_bench::with_reason(msg, reason, attribution)
}

/// The 920 bytes of LDK's attribution data.
pub fn ldk_bytes(a: &LdkAttribution) -> Vec<u8> {
    a.encode()
}

/// LDK's attribution data from 920 bytes.
pub fn ldk_attribution(b: &[u8]) -> LdkAttribution {
    LdkAttribution::read(&mut &b[..]).unwrap()
}

/// The single HTLC update node `from` has for node `to`.
fn update(nodes: &[Node], from: usize, to: usize) -> lightning::ln::msgs::CommitmentUpdate {
    get_htlc_update_msgs(&nodes[from], &nodes[to].node.get_our_node_id())
}

/// Node `n` fails the HTLC back (LDK's `incorrect_or_unknown_payment_details`);
/// returns its `update_fail_htlc` to node n-1 and the commitment.
pub fn recipient_fails(nodes: &[Node], h: &Htlc) -> (UpdateFailHTLC, Vec<CommitmentSigned>) {
    nodes[h.n].node.fail_htlc_backwards(&h.hash);
    expect_and_process_pending_htlcs_and_htlc_handling_failed(
        &nodes[h.n],
        &[HTLCHandlingFailureType::Receive {
            payment_hash: h.hash,
        }],
    );
    check_added_monitors(&nodes[h.n], 1);
    let u = update(nodes, h.n, h.n - 1);
    (u.update_fail_htlcs[0].clone(), u.commitment_signed)
}

/// Delivers node `k`'s failure `msg` to node `k - 1` and runs the dance;
/// returns node `k - 1`'s own `update_fail_htlc` toward node `k - 2`, or
/// `None` at the origin.
pub fn deliver_fail(
    nodes: &[Node],
    k: usize,
    msg: &UpdateFailHTLC,
    cs: &[CommitmentSigned],
) -> Option<(UpdateFailHTLC, Vec<CommitmentSigned>)> {
    let (a, b) = (&nodes[k - 1], &nodes[k]);
    a.node
        .handle_update_fail_htlc(b.node.get_our_node_id(), msg);
    let cs = cs.to_vec();
    if k == 1 {
        commitment_signed_dance!(a, b, cs, false);
        return None;
    }
    commitment_signed_dance!(a, b, cs, true);
    let u = update(nodes, k - 1, k - 2);
    Some((u.update_fail_htlcs[0].clone(), u.commitment_signed))
}

/// Node `n` claims the HTLC; returns its `update_fulfill_htlc`.
pub fn recipient_claims(nodes: &[Node], h: &Htlc) -> (UpdateFulfillHTLC, Vec<CommitmentSigned>) {
    nodes[h.n].node.claim_funds(h.preimage);
    let ev = nodes[h.n].node.get_and_clear_pending_events();
    assert!(matches!(ev[..], [Event::PaymentClaimed { .. }]), "{ev:?}");
    check_added_monitors(&nodes[h.n], 1);
    let u = update(nodes, h.n, h.n - 1);
    (u.update_fulfill_htlcs[0].clone(), u.commitment_signed)
}

/// Delivers node `k`'s fulfill to node `k - 1`; returns node `k - 1`'s
/// fulfill toward node `k - 2`, or `None` at the origin.
pub fn deliver_fulfill(
    nodes: &[Node],
    k: usize,
    msg: UpdateFulfillHTLC,
    cs: &[CommitmentSigned],
) -> Option<(UpdateFulfillHTLC, Vec<CommitmentSigned>)> {
    let (a, b) = (&nodes[k - 1], &nodes[k]);
    a.node
        .handle_update_fulfill_htlc(b.node.get_our_node_id(), msg);
    let cs = cs.to_vec();
    if k == 1 {
        check_added_monitors(a, 0);
        commitment_signed_dance!(a, b, cs, false);
        return None;
    }
    let ev = a.node.get_and_clear_pending_events();
    assert!(matches!(ev[..], [Event::PaymentForwarded { .. }]), "{ev:?}");
    check_added_monitors(a, 1);
    let mut msgs = a.node.get_and_clear_pending_msg_events();
    assert_eq!(msgs.len(), 1);
    let MessageSendEvent::UpdateHTLCs {
        node_id, updates, ..
    } = msgs.remove(0)
    else {
        panic!("expected the fulfill upstream");
    };
    assert_eq!(node_id, nodes[k - 2].node.get_our_node_id());
    commitment_signed_dance!(a, b, cs, false);
    Some((
        updates.update_fulfill_htlcs[0].clone(),
        updates.commitment_signed,
    ))
}

/// Forgets the monitor updates node 0 counted (the origin adds one after
/// it hands out a fulfilled payment's events).
pub fn settle(nodes: &[Node]) {
    nodes[0]
        .chain_monitor
        .added_monitors
        .lock()
        .unwrap()
        .clear();
}

/// Every log line node 0 recorded since the last call (and forgets them).
pub fn take_log(nodes: &[Node]) -> Vec<String> {
    let mut lines = nodes[0].logger.lines.lock().unwrap();
    let out = lines.keys().map(|(_, l)| l.clone()).collect();
    lines.clear();
    out
}

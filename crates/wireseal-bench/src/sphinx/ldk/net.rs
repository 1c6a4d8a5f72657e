//! Three LDK nodes (`lightning` 0.2.7 `ChannelManager`s, a logger that
//! drops everything, monitors that persist nothing) in a line 0 - 1 - 2,
//! for timing what LDK does with attribution data. LDK's failure and
//! attribution functions are crate-private, so its work is timed inside
//! the `ChannelManager` calls that do it:
//!
//! * the origin's decode of a failure: node 0 receiving a 20-hop attributed
//!   failure from node 1, minus the same exchange carrying an
//!   `update_fail_malformed_htlc` (whose decode does no crypto);
//! * a forwarding hop's wrap: node 1 failing HTLCs back from node 2 to
//!   node 0, the cost per HTLC from batches of 1 and of [`BATCH`] HTLCs (it
//!   includes LDK's bookkeeping of each HTLC, so it bounds the wrap from
//!   above).
//!
//! Dropping the network frees its nodes.

use super::node::{open, ready, Node};
use lightning::bitcoin::block::{Header, Version as BlockVersion};
use lightning::bitcoin::hash_types::TxMerkleNode;
use lightning::bitcoin::hashes::{sha256, Hash, HashEngine};
use lightning::bitcoin::secp256k1::PublicKey;
use lightning::bitcoin::{Block, CompactTarget, Network};
use lightning::chain::{BestBlock, Listen};
use lightning::events::{Event, PathFailure};
use lightning::ln::channelmanager::{PaymentId, RecipientOnionFields};
use lightning::ln::msgs::{
    ChannelMessageHandler, CommitmentUpdate, MessageSendEvent, UpdateFailHTLC,
    UpdateFailMalformedHTLC,
};
use lightning::routing::gossip::NetworkUpdate;
use lightning::routing::router::{Path, Route, RouteHop};
use lightning::types::features::{ChannelFeatures, NodeFeatures};
use lightning::types::payment::{PaymentHash, PaymentPreimage, PaymentSecret};
use lightning::util::ser::{LengthReadable, Writeable};
use std::time::{Duration, Instant};

/// HTLCs failed back together for the per-HTLC figure.
pub const BATCH: usize = 32;
/// Amount of every HTLC (below the dust limit: no HTLC outputs to sign).
const AMOUNT_MSAT: u64 = 100_000;

fn deliver(to: &Node, from: &Node, u: &CommitmentUpdate) {
    for m in &u.update_add_htlcs {
        to.cm.handle_update_add_htlc(from.id, m);
    }
    for m in &u.update_fail_htlcs {
        to.cm.handle_update_fail_htlc(from.id, m);
    }
    for m in &u.update_fail_malformed_htlcs {
        to.cm.handle_update_fail_malformed_htlc(from.id, m);
    }
}

/// `x`'s `revoke_and_ack` for `y`, and its `commitment_signed` if any.
fn raa_cs(
    x: &Node,
    y: &Node,
) -> (
    lightning::ln::msgs::RevokeAndACK,
    Option<lightning::ln::msgs::CommitmentSigned>,
) {
    let (mut raa, mut cs) = (None, None);
    let msgs = x.msgs_to(y);
    let seen = format!("{msgs:?}");
    for m in msgs {
        match m {
            MessageSendEvent::SendRevokeAndACK { msg, .. } => raa = Some(msg),
            MessageSendEvent::UpdateHTLCs { updates, .. } => {
                cs = updates.commitment_signed.into_iter().next()
            }
            _ => {}
        }
    }
    let raa = raa.unwrap_or_else(|| panic!("LDK node sends no revoke_and_ack: {seen}"));
    (raa, cs)
}

/// The rest of a commitment dance after `b` got `a`'s updates and
/// `commitment_signed`: `b` revokes and signs, `a` revokes.
fn finish(a: &Node, b: &Node) {
    let (raa, cs) = raa_cs(b, a);
    a.cm.handle_revoke_and_ack(b.id, &raa);
    a.cm.handle_commitment_signed(b.id, &cs.expect("LDK signs back"));
    let (raa, _) = raa_cs(a, b);
    b.cm.handle_revoke_and_ack(a.id, &raa);
}

/// `a` sends `u` to `b`: the whole commitment dance.
fn commit(a: &Node, b: &Node, u: &CommitmentUpdate) {
    deliver(b, a, u);
    b.cm.handle_commitment_signed(a.id, &u.commitment_signed[0]);
    finish(a, b);
}

/// An `update_fail_htlc` with `reason` and attribution data (920 bytes,
/// or none) replaced, through its wire encoding (`reason` is crate-private
/// in LDK).
pub fn with_reason(
    msg: &UpdateFailHTLC,
    reason: &[u8],
    attribution: Option<&[u8]>,
) -> UpdateFailHTLC {
    let mut b = msg.encode()[..40].to_vec();
    b.extend_from_slice(&(reason.len() as u16).to_be_bytes());
    b.extend_from_slice(reason);
    if let Some(a) = attribution {
        b.extend_from_slice(&[0x01, 0xfd, 0x03, 0x98]);
        b.extend_from_slice(a);
    }
    UpdateFailHTLC::read_from_fixed_length_buffer(&mut &b[..]).expect("a valid message")
}

/// The malformed-onion failure of the same HTLC (`invalid_onion_hmac`).
fn malformed(msg: &UpdateFailHTLC) -> UpdateFailMalformedHTLC {
    let mut b = msg.encode()[..40].to_vec();
    b.extend_from_slice(&[0; 32]);
    b.extend_from_slice(&0xc005u16.to_be_bytes());
    UpdateFailMalformedHTLC::read_from_fixed_length_buffer(&mut &b[..]).expect("a valid message")
}

/// The serialized 1366-byte onion of an `update_add_htlc`.
fn onion_bytes(u: &CommitmentUpdate) -> Vec<u8> {
    let p = &u.update_add_htlcs[0].onion_routing_packet;
    let mut out = vec![p.version];
    out.extend_from_slice(&p.public_key.expect("valid key").serialize());
    out.extend_from_slice(&p.hop_data);
    out.extend_from_slice(&p.hmac);
    out
}

fn hop(pubkey: PublicKey, scid: u64, fee_msat: u64, cltv: u32) -> RouteHop {
    RouteHop {
        pubkey,
        node_features: NodeFeatures::empty(),
        short_channel_id: scid,
        channel_features: ChannelFeatures::empty(),
        fee_msat,
        cltv_expiry_delta: cltv,
        maybe_announced_channel: false,
    }
}

/// What LDK's origin reported about a failure: the hold times (units of
/// 100 ms) and the node its network update names, if any.
pub struct Outcome {
    /// Hold times, in path order.
    pub hold_times: Vec<u32>,
    /// The node a `NodeFailure` update names.
    pub failing_node: Option<PublicKey>,
}

/// Three LDK nodes in a line, channels 0-1 and 1-2 open.
pub struct Net {
    n: [Node; 3],
    scid01: u64,
    scid12: u64,
    count: u64,
}

impl Net {
    /// Builds and connects the nodes and confirms both channels.
    pub fn new() -> Self {
        let n = [Node::new(0x61), Node::new(0x62), Node::new(0x63)];
        let txs = vec![open(&n[0], &n[1]), open(&n[1], &n[2])];
        let header = Header {
            version: BlockVersion::TWO,
            prev_blockhash: BestBlock::from_network(Network::Regtest).block_hash,
            merkle_root: TxMerkleNode::all_zeros(),
            time: 42,
            bits: CompactTarget::from_consensus(0x207f_ffff),
            nonce: 42,
        };
        let block = Block {
            header,
            txdata: txs,
        };
        for x in &n {
            Listen::block_connected(&x.cm, &block, 1);
        }
        ready(&n[0], &n[1]);
        ready(&n[1], &n[2]);
        let scid = |x: &Node, peer: &Node| {
            x.cm.list_channels()
                .iter()
                .find(|c| c.counterparty.node_id == peer.id)
                .and_then(|c| c.short_channel_id)
                .expect("a confirmed channel")
        };
        let (scid01, scid12) = (scid(&n[0], &n[1]), scid(&n[1], &n[2]));
        Self {
            n,
            scid01,
            scid12,
            count: 0,
        }
    }

    /// Starts every node's randomness again from `seed` (node `i` from
    /// `SHA-256(seed || i)`), so what follows depends on `seed` and not on
    /// what the nodes drew before.
    pub fn reseed(&self, seed: &[u8]) {
        for (i, node) in self.n.iter().enumerate() {
            let mut e = sha256::Hash::engine();
            e.input(seed);
            e.input(&[i as u8]);
            node.reseed(sha256::Hash::from_engine(e).to_byte_array());
        }
    }

    /// Node 1's private key and public key.
    pub fn forwarder(&self) -> ([u8; 32], [u8; 33]) {
        (self.n[1].secret(), self.n[1].id.serialize())
    }

    fn next_hash(&mut self) -> (PaymentPreimage, PaymentHash) {
        self.count += 1;
        let mut p = [0u8; 32];
        p[..8].copy_from_slice(&self.count.to_le_bytes());
        let h = sha256::Hash::hash(&p).to_byte_array();
        (PaymentPreimage(p), PaymentHash(h))
    }

    fn pay_hash(
        &mut self,
        hops: Vec<RouteHop>,
        hash: PaymentHash,
        secret: PaymentSecret,
    ) -> CommitmentUpdate {
        let route = Route {
            paths: vec![Path {
                hops,
                blinded_tail: None,
            }],
            route_params: None,
        };
        self.n[0]
            .cm
            .send_payment_with_route(
                route,
                hash,
                RecipientOnionFields::secret_only(secret),
                PaymentId(hash.0),
            )
            .expect("LDK sends the HTLC");
        self.n[0].update_to(&self.n[1])
    }

    /// One origin decode: node 0 sends an HTLC along node 1 and the
    /// `fake` hops (19 of them for a 20-hop route); `fail` gets the onion
    /// and the payment hash and returns the failure packet and attribution
    /// data the route's last hop sent back (or `None` for the malformed
    /// baseline). Returns the time node 0 spends on the failure, up to its
    /// events.
    pub fn origin_decode(
        &mut self,
        fake: &[[u8; 33]],
        fail: impl FnOnce(&[u8], &[u8; 32]) -> Option<(Vec<u8>, Option<Vec<u8>>)>,
    ) -> Duration {
        self.origin_run(fake, fail).0
    }

    /// [`Net::origin_decode`], returning what LDK's origin reported instead
    /// of the time.
    pub fn origin_decode_events(
        &mut self,
        fake: &[[u8; 33]],
        fail: impl FnOnce(&[u8], &[u8; 32]) -> Option<(Vec<u8>, Option<Vec<u8>>)>,
    ) -> Outcome {
        let events = self.origin_run(fake, fail).1;
        for e in events {
            if let Event::PaymentPathFailed {
                hold_times,
                failure,
                ..
            } = e
            {
                let failing_node = match failure {
                    PathFailure::OnPath {
                        network_update: Some(NetworkUpdate::NodeFailure { node_id, .. }),
                    } => Some(node_id),
                    _ => None,
                };
                return Outcome {
                    hold_times,
                    failing_node,
                };
            }
        }
        unreachable!("origin_run checks for the event")
    }

    fn origin_run(
        &mut self,
        fake: &[[u8; 33]],
        fail: impl FnOnce(&[u8], &[u8; 32]) -> Option<(Vec<u8>, Option<Vec<u8>>)>,
    ) -> (Duration, Vec<Event>) {
        let mut hops = vec![hop(self.n[1].id, self.scid01, 1000, 72)];
        let last = fake.len();
        for (i, k) in fake.iter().enumerate() {
            let fee = if i + 1 == last { AMOUNT_MSAT } else { 0 };
            let k = PublicKey::from_slice(k).expect("a valid key");
            hops.push(hop(k, 0x00ab_0000 + i as u64, fee, 40));
        }
        let secret = PaymentSecret([7; 32]);
        let (_, hash) = self.next_hash();
        let u = self.pay_hash(hops, hash, secret);
        let (a, b) = (&self.n[0], &self.n[1]);
        let reply = fail(&onion_bytes(&u), &hash.0);
        commit(a, b, &u);
        b.cm.process_pending_htlc_forwards();
        b.events();
        let back = b.update_to(a);
        let theirs = &back.update_fail_htlcs[0];
        let mut timed = Duration::ZERO;
        match &reply {
            Some((reason, attribution)) => {
                let m = with_reason(theirs, reason, attribution.as_deref());
                let t0 = Instant::now();
                a.cm.handle_update_fail_htlc(b.id, &m);
                timed += t0.elapsed();
            }
            None => {
                let m = malformed(theirs);
                let t0 = Instant::now();
                a.cm.handle_update_fail_malformed_htlc(b.id, &m);
                timed += t0.elapsed();
            }
        }
        let t0 = Instant::now();
        a.cm.handle_commitment_signed(b.id, &back.commitment_signed[0]);
        let (raa, cs) = raa_cs(a, b);
        timed += t0.elapsed();
        b.cm.handle_revoke_and_ack(a.id, &raa);
        b.cm.handle_commitment_signed(a.id, &cs.expect("LDK signs back"));
        let (raa, _) = raa_cs(b, a);
        let t0 = Instant::now();
        a.cm.handle_revoke_and_ack(b.id, &raa);
        a.cm.process_pending_htlc_forwards();
        let events = a.events();
        timed += t0.elapsed();
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::PaymentPathFailed { .. })),
            "LDK's origin reports the failure"
        );
        (timed, events)
    }

    /// Node 1 fails `count` HTLCs back from node 2 to node 0 in one
    /// commitment update; returns the time node 1 spends on them.
    pub fn forward_fail(&mut self, count: usize) -> Duration {
        let mut hashes = Vec::with_capacity(count);
        for _ in 0..count {
            let (_, hash) = self.next_hash();
            let secret = self.n[2]
                .cm
                .create_inbound_payment_for_hash(hash, Some(AMOUNT_MSAT), 7200, None)
                .expect("an inbound payment");
            let hops = vec![
                hop(self.n[1].id, self.scid01, 1000, 72),
                hop(self.n[2].id, self.scid12, AMOUNT_MSAT, 144),
            ];
            let u = self.pay_hash(hops, hash, secret);
            let [a, b, c] = &self.n;
            commit(a, b, &u);
            b.cm.process_pending_htlc_forwards();
            let u = b.update_to(c);
            commit(b, c, &u);
            c.cm.process_pending_htlc_forwards();
            c.events();
            hashes.push(hash);
        }
        let [a, b, c] = &self.n;
        for h in &hashes {
            c.cm.fail_htlc_backwards(h);
        }
        c.cm.process_pending_htlc_forwards();
        c.events();
        let back = c.update_to(b);
        assert_eq!(back.update_fail_htlcs.len(), count);
        let t0 = Instant::now();
        for m in &back.update_fail_htlcs {
            b.cm.handle_update_fail_htlc(c.id, m);
        }
        b.cm.handle_commitment_signed(c.id, &back.commitment_signed[0]);
        let (raa, cs) = raa_cs(b, c);
        let mut timed = t0.elapsed();
        c.cm.handle_revoke_and_ack(b.id, &raa);
        c.cm.handle_commitment_signed(b.id, &cs.expect("LDK signs back"));
        let (raa, _) = raa_cs(c, b);
        let t0 = Instant::now();
        b.cm.handle_revoke_and_ack(c.id, &raa);
        b.cm.process_pending_htlc_forwards();
        let up = b.update_to(a);
        timed += t0.elapsed();
        assert_eq!(
            up.update_fail_htlcs.len(),
            count,
            "node 1 fails every HTLC back"
        );
        b.events();
        commit(b, a, &up);
        a.cm.process_pending_htlc_forwards();
        a.events();
        timed
    }
}

impl Default for Net {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The network carries HTLCs both ways the bench uses.
    #[test]
    fn origin_decode_and_forward_fail_run() {
        let mut net = Net::new();
        for count in [1, 3, 1] {
            assert!(net.forward_fail(count) > Duration::ZERO);
        }
        let fake: Vec<[u8; 33]> = (0..19u8)
            .map(|i| {
                wireseal::keys::PrivateKey::from_bytes(&[0x70 + i; 32])
                    .unwrap()
                    .public_key()
                    .serialize()
            })
            .collect();
        assert!(net.origin_decode(&fake, |_, _| None) > Duration::ZERO);
        assert!(net.forward_fail(2) > Duration::ZERO);
    }

    /// After a reseed the origin draws the same session key (the onion's
    /// ephemeral key) whatever it drew before; another seed, another key.
    #[test]
    fn reseeding_repeats_the_session_key() {
        let mut net = Net::new();
        let fake = [wireseal::keys::PrivateKey::from_bytes(&[0x70; 32])
            .unwrap()
            .public_key()
            .serialize()];
        let ephemeral = |net: &mut Net, seed: &[u8]| {
            net.reseed(seed);
            let mut key = Vec::new();
            net.origin_decode(&fake, |onion, _| {
                key = onion[1..34].to_vec();
                None
            });
            key
        };
        let a = ephemeral(&mut net, b"one");
        let b = ephemeral(&mut net, b"two");
        assert_ne!(a, b);
        assert_eq!(ephemeral(&mut net, b"one"), a);
    }
}

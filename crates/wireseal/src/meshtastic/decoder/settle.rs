//! The stateful step, run once per envelope in input order: PKC direct
//! messages to our node, the signature policy, the node table and the
//! replay window.

use super::judge::{judge, Writes};
use super::parse::{identity, nodeinfo_key};
use super::{Ahead, Checked, Decoded, Decoder, Decryption, KeyEvent, Pending, Pkc, Undecoded};
use crate::meshtastic::envelope;
use crate::meshtastic::pkc_ahead::FreshKeys;
use crate::meshtastic::{PkcPacket, MAX_PAYLOAD_LEN};
#[allow(unused_imports)]
use crate::prelude::*;
use zeroize::Zeroize;

impl Decoder {
    /// The stateful step for one parsed envelope `d` at time `now` (`fresh`:
    /// the keys a batch derived, empty outside batches). Returns whether the
    /// node table's entry for the sender changed.
    pub(super) fn settle(
        &mut self,
        now: u64,
        d: &mut Decoded,
        pending: &mut Pending,
        fresh: &mut FreshKeys,
    ) -> bool {
        let mut announced = pending.announced;
        let mut changed = false;
        if let Some(pkc) = pending.pkc.take() {
            changed = self.open_pkc(now, d, pkc, fresh);
            if let Some(key) = d.data.as_ref().and_then(nodeinfo_key) {
                announced = key;
                d.identity = Some(identity(d, key));
            }
        }
        let Some(data) = &d.data else {
            return changed;
        };
        let j = judge(
            &self.nodes,
            self.policy,
            d,
            data,
            announced,
            pending.signature,
        );
        d.signature = j.signature;
        d.verdict = Some(j.verdict);
        d.key_event = d.key_event.or(j.conflict);
        self.finish(d, j.writes, pending.signature) || changed
    }

    /// The end of the stateful step for a decoded packet whose verdict is
    /// in `d`: a signature verified in the stateless step remembered, the
    /// node table's `writes` applied (their key event into `d`), the replay
    /// window. Returns whether the sender's entry changed.
    pub(super) fn finish(
        &mut self,
        d: &mut Decoded,
        writes: Writes,
        checked: Option<Checked>,
    ) -> bool {
        if let Some(c) = checked.filter(|c| c.fresh) {
            self.verified.insert(c.digest, c.valid);
        }
        let mut changed = false;
        if writes != Writes::default() {
            let (event, c) = writes.apply(&mut self.nodes, d.from);
            d.key_event = d.key_event.or(event);
            changed = c;
        }
        if let Some(w) = &mut self.replay {
            if !w.accept(d.from, d.id) {
                d.error = Some(Undecoded::Replay);
            }
        }
        changed
    }

    /// Opens a PKC direct message to one of our nodes (with what a batch
    /// opened ahead, when that used the key picked here). Returns whether
    /// the sender's key was pinned.
    fn open_pkc(&mut self, now: u64, d: &mut Decoded, pkc: Pkc, fresh: &mut FreshKeys) -> bool {
        let Some(engine) = self.engines.get_mut(pkc.engine) else {
            d.error = Some(Undecoded::NoNodeKey);
            return false;
        };
        let (key, tentative) = match (self.nodes.get(d.from), pkc.offered) {
            (Some(k), Some(o)) if k.public_key != o => {
                d.key_event = Some(KeyEvent::Conflict {
                    node: d.from,
                    pinned: k.public_key,
                    offered: o,
                });
                (k.public_key, false)
            }
            (Some(k), _) => (k.public_key, false),
            (None, Some(o)) => (o, true),
            (None, None) => {
                d.error = Some(Undecoded::UnknownSender);
                return false;
            }
        };
        let packet = PkcPacket {
            peer_public: &key,
            from: d.from,
            id: d.id,
        };
        let mut buf = [0u8; MAX_PAYLOAD_LEN];
        let settled = pkc
            .ahead
            .and_then(|a: Ahead| a.settle(engine, now, packet, fresh));
        let decoded = match settled {
            Some(decoded) => decoded,
            None => engine
                .open_into(now, packet, &pkc.ciphertext, &mut buf)
                .and_then(|n| envelope::decode_data(&buf[..n])),
        };
        buf.zeroize();
        match decoded {
            Ok(data) => {
                d.data = Some(data);
                d.decryption = Decryption::Pkc;
                if tentative {
                    d.key_event = self.nodes.offer(d.from, &key);
                    return matches!(
                        d.key_event,
                        Some(KeyEvent::Learned { .. } | KeyEvent::Renumbered { .. })
                    );
                }
                false
            }
            Err(e) => {
                d.error = Some(Undecoded::Failed(e));
                false
            }
        }
    }
}

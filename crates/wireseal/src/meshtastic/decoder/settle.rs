//! The stateful step, run once per envelope in input order: PKC direct
//! messages to our node, the signature policy, the node table and the
//! replay window.

use super::{
    batch, identity, nodeinfo_key, verify, Checked, Decoded, Decoder, Decryption, KeyEvent, Parsed,
    Signature, Undecoded,
};
use crate::meshtastic::envelope::{self, Data, ADMIN_APP, NODEINFO_APP};
use crate::meshtastic::identity::node_number;
use crate::meshtastic::policy::{signable_fits, Concern, SignaturePolicy, Verdict};
use crate::meshtastic::xeddsa::{VerifyingKey, SIGNATURE_LEN};
use crate::meshtastic::{PkcPacket, MAX_PAYLOAD_LEN};
#[allow(unused_imports)]
use crate::prelude::*;
use zeroize::Zeroize;

/// What the policy step decides for one decoded packet.
struct Judged {
    signature: Signature,
    verdict: Verdict,
    key_event: Option<KeyEvent>,
}

impl Decoder {
    /// The stateful step for one parsed envelope.
    pub(super) fn settle(&mut self, now: u64, parsed: &mut Parsed) {
        let d = &mut parsed.head;
        let mut announced = parsed.announced;
        if let Some((engine, ciphertext, offered)) = parsed.pkc.take() {
            self.open_pkc(now, engine, d, &ciphertext, offered, parsed.ahead.take());
            if let Some(key) = d.data.as_ref().and_then(nodeinfo_key) {
                announced = key;
                d.identity = Some(identity(d, key));
            }
        }
        let Some(data) = d.data.take() else {
            return;
        };
        if let Some(c) = parsed.signature.filter(|c| c.fresh) {
            self.verified.insert(c.digest, c.valid);
        }
        let j = self.judge(d, &data, announced, parsed.signature);
        d.data = Some(data);
        d.signature = j.signature;
        d.verdict = Some(j.verdict);
        d.key_event = d.key_event.or(j.key_event);
        if let Some(w) = &mut self.replay {
            if !w.accept(d.from, d.id) {
                d.error = Some(Undecoded::Replay);
            }
        }
    }

    /// The signature check and the policy's verdict; pins a key the packet
    /// vouches for and remembers signers (see [`crate::meshtastic::policy`]).
    /// At most one table lookup for a packet without a signature or an
    /// announced key.
    fn judge(
        &mut self,
        d: &Decoded,
        data: &Data,
        announced: Option<[u8; 32]>,
        checked: Option<Checked>,
    ) -> Judged {
        let policy = self.policy;
        let signature_len = data.xeddsa_signature.len();
        let nodeinfo = data.portnum == NODEINFO_APP;
        let (signature, verdict) = if signature_len == SIGNATURE_LEN {
            let valid = |key: &[u8; 32], vk: Option<VerifyingKey>| match checked {
                Some(c) if c.key == *key => c.valid,
                _ => verify(vk, d.from, d.id, data),
            };
            match (self.nodes.get(d.from), announced) {
                (Some(pinned), _) if valid(&pinned.public_key, pinned.verifying_key) => {
                    (Signature::Valid, Verdict::Accept)
                }
                (Some(_), _) => (Signature::Invalid, Verdict::Drop(Concern::InvalidSignature)),
                // First contact: only a key that hashes to the sender's number.
                (None, Some(k))
                    if nodeinfo
                        && node_number(&k) == d.from
                        && valid(&k, VerifyingKey::from_x25519(&k).ok()) =>
                {
                    (Signature::Valid, Verdict::Accept)
                }
                (None, _) if nodeinfo => (Signature::Invalid, Verdict::Drop(Concern::FirstContact)),
                (None, _) if policy == SignaturePolicy::Strict => {
                    (Signature::UnknownKey, Verdict::Drop(Concern::Unverifiable))
                }
                (None, _) => (Signature::UnknownKey, Verdict::Accept),
            }
        } else if signature_len != 0 {
            (
                Signature::Malformed,
                Verdict::Drop(Concern::MalformedSignature),
            )
        } else {
            (Signature::Absent, self.unsigned_verdict(d, data))
        };
        let verdict = match verdict {
            v if v.is_drop() => v,
            _ if d.decryption == Decryption::Plain && data.portnum == ADMIN_APP => {
                Verdict::Drop(Concern::PlainAdmin)
            }
            v => v,
        };
        // Keys: pinned on first use unless the packet is dropped; a pinned
        // key is never replaced (another one is reported).
        let key_event =
            announced.and_then(|k| match self.nodes.get(d.from).map(|n| n.public_key) {
                Some(pinned) if pinned != k => Some(KeyEvent::Conflict {
                    node: d.from,
                    pinned,
                    offered: k,
                }),
                Some(_) => None,
                None if verdict.is_drop() => None,
                None => self.nodes.offer(d.from, &k),
            });
        if signature == Signature::Valid {
            self.nodes.mark_signer(d.from);
        }
        Judged {
            signature,
            verdict,
            key_event,
        }
    }

    /// The verdict on a packet without a signature.
    fn unsigned_verdict(&self, d: &Decoded, data: &Data) -> Verdict {
        if d.decryption == Decryption::Pkc {
            return Verdict::Accept;
        }
        if self.policy == SignaturePolicy::Strict {
            return Verdict::Drop(Concern::Unsigned);
        }
        if !d.is_broadcast() || !self.nodes.is_signer(d.from) {
            return Verdict::Accept;
        }
        if data.portnum == NODEINFO_APP {
            // NodeInfoModule drops it whatever the policy.
            return Verdict::Drop(Concern::Downgrade);
        }
        match (signable_fits(data), self.policy) {
            (false, _) => Verdict::Accept,
            (true, SignaturePolicy::Balanced) => Verdict::Drop(Concern::Downgrade),
            (true, _) => Verdict::Flag(Concern::Downgrade),
        }
    }

    /// Opens a PKC direct message to our node whose engine is `engine`.
    fn open_pkc(
        &mut self,
        now: u64,
        engine: usize,
        d: &mut Decoded,
        ciphertext: &[u8],
        offered: Option<[u8; 32]>,
        ahead: Option<Box<batch::Ahead>>,
    ) {
        let Some(engine) = self.engines.get_mut(engine) else {
            d.error = Some(Undecoded::NoNodeKey);
            return;
        };
        let (key, tentative) = match (self.nodes.get(d.from), offered) {
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
                return;
            }
        };
        let packet = PkcPacket {
            peer_public: &key,
            from: d.from,
            id: d.id,
        };
        let mut buf = [0u8; MAX_PAYLOAD_LEN];
        let decoded = match ahead.and_then(|a| (*a).settle(engine, packet)) {
            Some(decoded) => decoded,
            None => engine
                .open_into(now, packet, ciphertext, &mut buf)
                .and_then(|n| envelope::decode_data(&buf[..n])),
        };
        match decoded {
            Ok(data) => {
                d.data = Some(data);
                d.decryption = Decryption::Pkc;
                if tentative {
                    d.key_event = self.nodes.offer(d.from, &key);
                }
            }
            Err(e) => d.error = Some(Undecoded::Failed(e)),
        }
        buf.zeroize();
    }
}

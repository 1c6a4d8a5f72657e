//! The signature check and the policy's verdict on one decoded packet,
//! read off the node table (a pure function of it), and the writes to the
//! table the verdict calls for. A batch judges its packets on every thread
//! against the table as the batch found it and applies the writes in input
//! order.

use super::nodes::NodeTable;
use super::verified::verify;
use super::{Checked, Decoded, Decryption, KeyEvent, Signature};
use crate::meshtastic::envelope::{Data, ADMIN_APP, NODEINFO_APP};
use crate::meshtastic::identity::node_number;
use crate::meshtastic::policy::{signable_fits, Concern, SignaturePolicy, Verdict};
use crate::meshtastic::xeddsa::{VerifyingKey, SIGNATURE_LEN};

/// What the policy step decides for one decoded packet.
pub(super) struct Judged {
    pub(super) signature: Signature,
    pub(super) verdict: Verdict,
    /// The announced key conflicts with the pinned one (nothing is written).
    pub(super) conflict: Option<KeyEvent>,
    /// What the node table is to learn.
    pub(super) writes: Writes,
}

/// Writes to the node table about a packet's sender, applied in input
/// order ([`NodeTable::offer`], then [`NodeTable::mark_signer`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Writes {
    /// A key to offer for the sender, who has none pinned.
    pub(super) pin: Option<[u8; 32]>,
    /// The sender's signature verified: it signs.
    pub(super) signer: bool,
}

impl Writes {
    /// Applies the writes for node `from`: the key event of the pin, and
    /// whether the node's entry changed (a key pinned, or a new signer).
    pub(super) fn apply(self, nodes: &mut NodeTable, from: u32) -> (Option<KeyEvent>, bool) {
        let event = self.pin.and_then(|k| nodes.offer(from, &k));
        let pinned = matches!(
            event,
            Some(KeyEvent::Learned { .. } | KeyEvent::Renumbered { .. })
        );
        let signer = self.signer && !nodes.is_signer(from) && nodes.mark_signer(from);
        (event, pinned || signer)
    }
}

/// The signature check and the policy's verdict on `d` (whose `Data` is
/// `data`) as a node with `policy` and the node table `nodes` judges it; a
/// key the packet vouches for is to be pinned and a verified signer
/// remembered (see [`crate::meshtastic::policy`]). `checked` is a
/// verification done earlier, used when it was done with the key judged by.
/// At most one table lookup for a packet without a signature or an
/// announced key.
pub(super) fn judge(
    nodes: &NodeTable,
    policy: SignaturePolicy,
    d: &Decoded,
    data: &Data,
    announced: Option<[u8; 32]>,
    checked: Option<Checked>,
) -> Judged {
    let signature_len = data.xeddsa_signature.len();
    let (signature, verdict) = if signature_len == SIGNATURE_LEN {
        signed_verdict(nodes, policy, d, data, announced, checked)
    } else if signature_len != 0 {
        (
            Signature::Malformed,
            Verdict::Drop(Concern::MalformedSignature),
        )
    } else {
        (Signature::Absent, unsigned_verdict(nodes, policy, d, data))
    };
    let verdict = match verdict {
        v if v.is_drop() => v,
        _ if d.decryption == Decryption::Plain && data.portnum == ADMIN_APP => {
            Verdict::Drop(Concern::PlainAdmin)
        }
        v => v,
    };
    // Keys: pinned on first use unless the packet is dropped; a pinned key
    // is never replaced (another one is reported).
    let mut writes = Writes {
        pin: None,
        signer: signature == Signature::Valid,
    };
    let conflict = announced.and_then(|k| match nodes.get(d.from).map(|n| n.public_key) {
        Some(pinned) if pinned != k => Some(KeyEvent::Conflict {
            node: d.from,
            pinned,
            offered: k,
        }),
        Some(_) => None,
        None => {
            writes.pin = Some(k).filter(|_| !verdict.is_drop());
            None
        }
    });
    Judged {
        signature,
        verdict,
        conflict,
        writes,
    }
}

/// The verdict on a packet with a 64-byte signature.
fn signed_verdict(
    nodes: &NodeTable,
    policy: SignaturePolicy,
    d: &Decoded,
    data: &Data,
    announced: Option<[u8; 32]>,
    checked: Option<Checked>,
) -> (Signature, Verdict) {
    let nodeinfo = data.portnum == NODEINFO_APP;
    let valid = |key: &[u8; 32], vk: Option<VerifyingKey>| match checked {
        Some(c) if c.key == *key => c.valid,
        _ => verify(vk, d.from, d.id, data),
    };
    match (nodes.get(d.from), announced) {
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
}

/// The verdict on a packet without a signature.
fn unsigned_verdict(
    nodes: &NodeTable,
    policy: SignaturePolicy,
    d: &Decoded,
    data: &Data,
) -> Verdict {
    if d.decryption == Decryption::Pkc {
        return Verdict::Accept;
    }
    if policy == SignaturePolicy::Strict {
        return Verdict::Drop(Concern::Unsigned);
    }
    if !d.is_broadcast() || !nodes.is_signer(d.from) {
        return Verdict::Accept;
    }
    if data.portnum == NODEINFO_APP {
        // NodeInfoModule drops it whatever the policy.
        return Verdict::Drop(Concern::Downgrade);
    }
    match (signable_fits(data), policy) {
        (false, _) => Verdict::Accept,
        (true, SignaturePolicy::Balanced) => Verdict::Drop(Concern::Downgrade),
        (true, _) => Verdict::Flag(Concern::Downgrade),
    }
}

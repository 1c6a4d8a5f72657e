//! One batch of checked MeshCore records as the rows each table receives:
//! one packet per hash (the first opened copy, else the first), one
//! reception per (hash, observer, path, direction), one node row per key
//! with what the batch says of it folded into one. Rows are sorted by their
//! table's key, so gateways writing overlapping batches to one PostgreSQL
//! lock rows in one order.

use super::Clean;

/// A reception's key.
fn reception_key<'x>(c: &'x Clean) -> (i64, &'x str, &'x str, &'x str) {
    (c.hash, &c.observer_id, &c.path, c.direction)
}

/// What a batch says about one node.
#[derive(Debug)]
pub(in crate::store) struct NodeRow<'c, 'a> {
    /// Its key.
    pub key: &'a [u8; 32],
    /// `valid` when a verified advert is in the batch; else `invalid` when
    /// only forged adverts name it; else none (messages we opened).
    pub signature: Option<&'static str>,
    /// The verified advert with the latest timestamp (the last of those).
    pub advert: Option<&'c Clean<'a>>,
    /// Earliest record about it.
    pub first_seen_ms: i64,
    /// Latest proof it was heard (a verified advert, a message we opened);
    /// for a batch of forged adverts only, the latest of those (used only
    /// when the row is new).
    pub last_heard_ms: i64,
}

/// The rows of one batch.
#[derive(Debug)]
pub(in crate::store) struct Plan<'c, 'a> {
    /// One record per hash.
    pub packets: Vec<&'c Clean<'a>>,
    /// One record per reception key, the first in the batch.
    pub receptions: Vec<&'c Clean<'a>>,
    /// One row per node key.
    pub nodes: Vec<NodeRow<'c, 'a>>,
}

impl<'c, 'a> Plan<'c, 'a> {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// The rows of `rows` (records in the order they were received).
    pub fn new(rows: &'c [Clean<'a>]) -> Self {
        let mut packets: Vec<&Clean> = rows.iter().collect();
        packets.sort_unstable_by_key(|c| (c.hash, -c.decrypted, c.index));
        packets.dedup_by_key(|c| c.hash);
        let mut receptions: Vec<&Clean> = rows.iter().collect();
        receptions.sort_by(|a, b| {
            reception_key(a)
                .cmp(&reception_key(b))
                .then(a.index.cmp(&b.index))
        });
        receptions.dedup_by(|b, a| reception_key(a) == reception_key(b));
        let mut updates: Vec<&Clean> = rows.iter().filter(|c| c.node.is_some()).collect();
        updates.sort_by_key(|c| (c.node.map(|n| n.public_key), c.index));
        let nodes = updates
            .chunk_by(|a, b| a.node.map(|n| n.public_key) == b.node.map(|n| n.public_key))
            .filter_map(fold)
            .collect();
        Self {
            packets,
            receptions,
            nodes,
        }
    }
}

/// The updates of one node in a batch, as one row.
fn fold<'c, 'a>(group: &[&'c Clean<'a>]) -> Option<NodeRow<'c, 'a>> {
    let key = &group.first()?.node?.public_key;
    let sig = |c: &Clean| c.node.and_then(|n| n.signature);
    let advert = group
        .iter()
        .filter(|c| sig(c) == Some("valid"))
        .max_by_key(|c| (c.node.and_then(|n| n.advert_timestamp), c.index))
        .copied();
    let proven = |c: &&&Clean| sig(c) != Some("invalid");
    let heard = group.iter().filter(proven).map(|c| c.rx_time_ms).max();
    let signature = match (advert, heard) {
        (Some(_), _) => Some("valid"),
        (None, Some(_)) => None,
        (None, None) => Some("invalid"),
    };
    Some(NodeRow {
        key,
        signature,
        advert,
        first_seen_ms: group.iter().map(|c| c.rx_time_ms).min().unwrap_or(0),
        last_heard_ms: heard
            .unwrap_or_else(|| group.iter().map(|c| c.rx_time_ms).max().unwrap_or(0)),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{check, MeshcoreNodeUpdate, MeshcoreRecord};
    use super::*;
    use crate::store::record::Caps;

    fn rec(hash: u8, observer: &str, decrypted: bool, t: u64) -> MeshcoreRecord {
        let mut r = MeshcoreRecord {
            packet: Default::default(),
            reception: Default::default(),
            node: None,
        };
        r.packet.hash = [hash; 8];
        r.packet.decrypted = decrypted;
        r.reception.observer_id = observer.into();
        r.reception.rx_time_ms = t;
        r
    }

    fn advert(key: u8, sig: &'static str, ts: u32, name: &str, t: u64) -> MeshcoreRecord {
        let mut r = rec(key, "o", false, t);
        r.node = Some(MeshcoreNodeUpdate {
            public_key: [key; 32],
            signature: Some(sig),
            name: Some(name.into()),
            advert_timestamp: (sig == "valid").then_some(ts),
            ..Default::default()
        });
        r
    }

    #[test]
    fn one_packet_per_hash_the_opened_copy_first_and_every_reception() {
        let recs = [
            rec(2, "a", false, 10),
            rec(1, "a", false, 11),
            rec(2, "b", true, 12),
            rec(2, "b", true, 13),
            rec(2, "c", false, 14),
        ];
        let mut caps = Caps::default();
        let rows: Vec<_> = (recs.iter().enumerate())
            .map(|(i, r)| check(i, r, &mut caps).unwrap())
            .collect();
        let plan = Plan::new(&rows);
        let p: Vec<_> = plan.packets.iter().map(|c| c.index).collect();
        assert_eq!(p, [1, 2]);
        let r: Vec<_> = plan.receptions.iter().map(|c| c.index).collect();
        assert_eq!(r, [1, 0, 2, 4]);
    }

    #[test]
    fn a_node_folds_its_adverts_and_messages() {
        let recs = [
            advert(7, "valid", 200, "new", 30),
            advert(7, "valid", 100, "old", 40),
            advert(7, "invalid", 0, "forged", 50),
            advert(8, "invalid", 0, "forged", 60),
            advert(8, "invalid", 0, "forged", 70),
        ];
        let mut caps = Caps::default();
        let rows: Vec<_> = (recs.iter().enumerate())
            .map(|(i, r)| check(i, r, &mut caps).unwrap())
            .collect();
        let plan = Plan::new(&rows);
        assert_eq!(plan.nodes.len(), 2);
        let a = &plan.nodes[0];
        assert_eq!(
            (a.signature, a.first_seen_ms, a.last_heard_ms),
            (Some("valid"), 30, 40)
        );
        assert_eq!(a.advert.and_then(|c| c.name.as_deref()), Some("new"));
        let b = &plan.nodes[1];
        assert_eq!(
            (b.signature, b.first_seen_ms, b.last_heard_ms),
            (Some("invalid"), 60, 70)
        );
        assert!(b.advert.is_none());
    }
}

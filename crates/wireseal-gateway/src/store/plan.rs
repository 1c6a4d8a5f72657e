//! One batch of checked records as the rows each table receives: one packet
//! per (`from`, key), one reception per key, one node row per sender, one
//! key per (node, key). Rows are sorted by their table's key, so two gateways
//! writing overlapping batches to one PostgreSQL lock rows in the same order
//! and cannot deadlock each other.

use super::record::Clean;

/// A reception's key.
fn reception_key<'x>(c: &'x Clean) -> (i64, i64, &'x str, i64, i32) {
    (c.from, c.id, &c.gateway_id, c.relay_node, c.transport)
}

/// The rows of one batch.
#[derive(Debug)]
pub(super) struct Plan<'c, 'a> {
    /// One record per (`from`, `id`): the first decoded copy, else the first.
    pub packets: Vec<&'c Clean<'a>>,
    /// One record per reception key, the first in the batch.
    pub receptions: Vec<&'c Clean<'a>>,
    /// One row per sender.
    pub nodes: Vec<NodeRow<'c, 'a>>,
    /// Every distinct (node, key) announced.
    pub keys: Vec<KeyRow<'a>>,
}

/// What a batch says about one sender.
#[derive(Debug)]
pub(super) struct NodeRow<'c, 'a> {
    /// The node number.
    pub node: i64,
    /// Earliest reception of its packets in the batch.
    pub first_seen_ms: i64,
    /// Latest reception of its packets in the batch.
    pub last_seen_ms: i64,
    /// The first key the batch announces for it (pinned when the node has
    /// none yet).
    pub key: Option<&'a [u8; 32]>,
    /// The last update in the batch that announces `key` (or no key, when the
    /// batch announces none): its names and identity are taken when `key` is
    /// the node's pinned key.
    pub info: Option<&'c Clean<'a>>,
}

/// One (node, key) pair.
#[derive(Debug)]
pub(super) struct KeyRow<'a> {
    /// The node number.
    pub node: i64,
    /// The key.
    pub key: &'a [u8; 32],
    /// Earliest reception announcing it in the batch.
    pub first_seen_ms: i64,
}

impl<'c, 'a> Plan<'c, 'a> {
    /// The rows of `rows` (records in the order they were received).
    pub fn new(rows: &'c [Clean<'a>]) -> Self {
        let decoded_first = |c: &Clean| (c.from, c.id, c.portnum.is_none(), c.index);
        let mut packets: Vec<&Clean> = rows.iter().collect();
        packets.sort_unstable_by_key(|c| decoded_first(c));
        packets.dedup_by_key(|c| (c.from, c.id));

        let mut receptions: Vec<&Clean> = rows.iter().collect();
        receptions.sort_by(|a, b| {
            reception_key(a)
                .cmp(&reception_key(b))
                .then(a.index.cmp(&b.index))
        });
        receptions.dedup_by(|b, a| reception_key(a) == reception_key(b));

        let mut by_node: Vec<&Clean> = rows.iter().collect();
        by_node.sort_by_key(|c| (c.from, c.index));
        let mut nodes = Vec::new();
        let mut keys: Vec<KeyRow> = Vec::new();
        for group in by_node.chunk_by(|a, b| a.from == b.from) {
            let key = group.iter().find_map(|c| c.key);
            let info = group
                .iter()
                .rev()
                .find(|c| c.has_update && c.key == key)
                .copied();
            nodes.push(NodeRow {
                node: group[0].from,
                first_seen_ms: group.iter().map(|c| c.rx_time_ms).min().unwrap_or(0),
                last_seen_ms: group.iter().map(|c| c.rx_time_ms).max().unwrap_or(0),
                key,
                info,
            });
            let start = keys.len();
            for c in group {
                if let Some(k) = c.key {
                    match keys[start..].iter_mut().find(|r| r.key == k) {
                        Some(r) => r.first_seen_ms = r.first_seen_ms.min(c.rx_time_ms),
                        None => keys.push(KeyRow {
                            node: c.from,
                            key: k,
                            first_seen_ms: c.rx_time_ms,
                        }),
                    }
                }
            }
            keys[start..].sort_unstable_by_key(|r| r.key);
        }
        Self {
            packets,
            receptions,
            nodes,
            keys,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::record::{check, Caps, NodeUpdate, Record};
    use super::*;

    fn rec(from: u32, id: u32, gw: &str, portnum: Option<u32>, t: u64) -> Record {
        let mut r = Record {
            packet: Default::default(),
            reception: Default::default(),
            node: None,
        };
        r.packet.from = from;
        r.packet.key = id.into();
        r.packet.portnum = portnum;
        r.reception.gateway_id = gw.into();
        r.reception.rx_time_ms = t;
        r
    }

    #[test]
    fn dedup_keeps_first_decoded_packet_and_every_distinct_reception() {
        let mut recs = [
            rec(2, 9, "!g1", None, 10),
            rec(1, 5, "!g1", Some(1), 11),
            rec(2, 9, "!g2", Some(3), 12),
            rec(2, 9, "!g2", Some(3), 13),
            rec(2, 9, "!g3", Some(4), 14),
        ];
        recs[3].reception.relay_node = 7;
        let mut caps = Caps::default();
        let rows: Vec<_> = recs
            .iter()
            .enumerate()
            .map(|(i, r)| check(i, r, &mut caps).unwrap())
            .collect();
        let plan = Plan::new(&rows);
        let p: Vec<_> = plan
            .packets
            .iter()
            .map(|c| (c.from, c.id, c.index))
            .collect();
        assert_eq!(p, [(1, 5, 1), (2, 9, 2)]);
        let r: Vec<_> = plan.receptions.iter().map(|c| c.index).collect();
        assert_eq!(r, [1, 0, 2, 3, 4]);
        let n: Vec<_> = plan
            .nodes
            .iter()
            .map(|n| (n.node, n.first_seen_ms, n.last_seen_ms))
            .collect();
        assert_eq!(n, [(1, 11, 11), (2, 10, 14)]);
    }

    #[test]
    fn node_takes_its_first_key_and_the_last_update_that_announces_it() {
        let k1 = [1u8; 32];
        let k2 = [2u8; 32];
        let mut recs = [
            rec(4, 1, "!g", Some(4), 30),
            rec(4, 2, "!g", Some(4), 20),
            rec(4, 3, "!g", Some(4), 40),
            rec(4, 4, "!g", Some(4), 50),
        ];
        let upd = |k: [u8; 32], name: &str| NodeUpdate {
            public_key: Some(k),
            long_name: Some(name.as_bytes().to_vec()),
            ..Default::default()
        };
        recs[0].node = Some(upd(k1, "first"));
        recs[1].node = Some(upd(k2, "impostor"));
        recs[2].node = Some(upd(k1, "renamed"));
        recs[3].node = Some(upd(k2, "impostor again"));
        let mut caps = Caps::default();
        let rows: Vec<_> = recs
            .iter()
            .enumerate()
            .map(|(i, r)| check(i, r, &mut caps).unwrap())
            .collect();
        let plan = Plan::new(&rows);
        assert_eq!(plan.nodes.len(), 1);
        let n = &plan.nodes[0];
        assert_eq!(n.key, Some(&k1));
        assert_eq!(n.info.unwrap().long_name.as_deref(), Some("renamed"));
        let k: Vec<_> = plan
            .keys
            .iter()
            .map(|k| (k.key[0], k.first_seen_ms))
            .collect();
        assert_eq!(k, [(1, 30), (2, 20)]);
    }
}

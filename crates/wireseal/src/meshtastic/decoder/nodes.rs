//! The node table: public keys learned from the feed, first key pinned,
//! which nodes have proven that they sign, and the nodes firmware 2.8
//! renumbered (one key under an older number and under `crc32(key)`).

use super::super::identity::{node_number, Identity};
use super::super::xeddsa::VerifyingKey;
use super::outcome::KeyEvent;
#[allow(unused_imports)]
use crate::prelude::*;

/// The nodes by number: on `std` builds (wasm32 too) a hash map with aHash
/// and a random per-table seed (node numbers come from the feed, so the seed
/// keeps them from being ground to collide; cheaper than SipHash on the
/// decoder's per-packet lookups); without `std` a B-tree.
#[cfg(wireseal_hash_index)]
type Nodes = std::collections::HashMap<u32, NodeKey, crate::cache::IndexHasher>;
#[cfg(not(wireseal_hash_index))]
type Nodes = alloc::collections::BTreeMap<u32, NodeKey>;
/// Public key → the node it was first pinned for, stored the same way.
#[cfg(wireseal_hash_index)]
type ByKey = std::collections::HashMap<[u8; 32], u32, crate::cache::IndexHasher>;
#[cfg(not(wireseal_hash_index))]
type ByKey = alloc::collections::BTreeMap<[u8; 32], u32>;

/// Default number of nodes a table remembers.
pub const DEFAULT_NODE_CAPACITY: usize = 65_536;

/// A pinned node key and its Ed25519 verifying key (mapped once).
#[derive(Debug, Clone, Copy)]
pub struct NodeKey {
    /// The node's X25519 public key.
    pub public_key: [u8; 32],
    /// Its XEdDSA verifying key, `None` when the key has no Ed25519
    /// counterpart (such a node's signatures are reported invalid).
    pub verifying_key: Option<VerifyingKey>,
    /// Whether a signature of this node has verified (the firmware's
    /// "known signer": its unsigned signable broadcasts are downgrades).
    pub signer: bool,
    /// The older number of this node, when it was seen with this key under
    /// that number first and this number is `crc32` of the key (firmware
    /// 2.8 renumbers every node so).
    pub renumbered_from: Option<u32>,
    /// The `crc32` number this node's key has since been seen under.
    pub renumbered_to: Option<u32>,
}

impl NodeKey {
    fn new(public_key: [u8; 32]) -> Self {
        Self {
            public_key,
            verifying_key: VerifyingKey::from_x25519(&public_key).ok(),
            signer: false,
            renumbered_from: None,
            renumbered_to: None,
        }
    }

    /// How node `node`'s number relates to this key (see [`Identity`]).
    pub fn identity(&self, node: u32) -> Identity {
        Identity::of(node, Some(&self.public_key), self.signer)
    }
}

/// Node number → pinned public key. The first key seen for a node is
/// pinned; a different key later is reported ([`KeyEvent::Conflict`]) and
/// never adopted. A key already pinned under another number, where one of
/// the two numbers is `crc32` of the key, is a node firmware 2.8 renumbered:
/// the key is pinned for the new number too and the two are linked
/// ([`KeyEvent::Renumbered`]). Bounded: once `capacity` nodes are known, new
/// nodes are reported ([`KeyEvent::TableFull`]) and not recorded (evicting a
/// pinned key would let a flood of made-up nodes unpin a real one).
#[derive(Debug, Clone)]
pub struct NodeTable {
    nodes: Nodes,
    /// Public key → the node it was first pinned for.
    by_key: ByKey,
    capacity: usize,
}

/// An empty map: hashed by a randomly seeded hasher where the library has
/// hash indexes, otherwise a B-tree.
#[cfg(wireseal_hash_index)]
fn new_map<K, V>() -> std::collections::HashMap<K, V, crate::cache::IndexHasher> {
    std::collections::HashMap::with_hasher(crate::cache::index_hasher())
}

#[cfg(not(wireseal_hash_index))]
fn new_map<K: Ord, V>() -> alloc::collections::BTreeMap<K, V> {
    alloc::collections::BTreeMap::new()
}

impl Default for NodeTable {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_NODE_CAPACITY)
    }
}

impl NodeTable {
    /// A table remembering at most `capacity` nodes.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            nodes: new_map(),
            by_key: new_map(),
            capacity,
        }
    }

    /// The pinned key of `node`.
    pub fn get(&self, node: u32) -> Option<&NodeKey> {
        self.nodes.get(&node)
    }

    /// How `node`'s number relates to its pinned key; `None` when no key
    /// is pinned.
    pub fn identity(&self, node: u32) -> Option<Identity> {
        self.get(node).map(|k| k.identity(node))
    }

    /// Whether a signature of `node` has verified.
    pub fn is_signer(&self, node: u32) -> bool {
        self.nodes.get(&node).is_some_and(|k| k.signer)
    }

    /// Every node with its pinned key, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &NodeKey)> + '_ {
        self.nodes.iter().map(|(n, k)| (*n, k))
    }

    /// Number of nodes known.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node is known.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Offers `public_key` for `node`: pins it when the node is new (and
    /// links it to the node's other number when firmware 2.8 renumbered
    /// it), reports a conflict when another key is pinned, and says nothing
    /// when it is the pinned key.
    pub fn offer(&mut self, node: u32, public_key: &[u8; 32]) -> Option<KeyEvent> {
        match self.nodes.get(&node) {
            Some(k) if k.public_key == *public_key => None,
            Some(k) => Some(KeyEvent::Conflict {
                node,
                pinned: k.public_key,
                offered: *public_key,
            }),
            None if self.nodes.len() >= self.capacity => Some(KeyEvent::TableFull { node }),
            None => {
                self.nodes.insert(node, NodeKey::new(*public_key));
                let other = *self.by_key.entry(*public_key).or_insert(node);
                let crc = node_number(public_key);
                let (from, to) = match other {
                    _ if other == node => return Some(KeyEvent::Learned { node }),
                    _ if node == crc => (other, node),
                    _ if other == crc => (node, other),
                    // The same key under two numbers, neither its crc32: a
                    // copied key, not a renumbering.
                    _ => return Some(KeyEvent::Learned { node }),
                };
                self.by_key.insert(*public_key, to);
                if let Some(k) = self.nodes.get_mut(&from) {
                    k.renumbered_to = Some(to);
                }
                if let Some(k) = self.nodes.get_mut(&to) {
                    k.renumbered_from = Some(from);
                }
                Some(KeyEvent::Renumbered { node, from, to })
            }
        }
    }

    /// Marks `node` as a signer (a signature of it verified with its pinned
    /// key); returns false when no key is pinned for it.
    pub fn mark_signer(&mut self, node: u32) -> bool {
        match self.nodes.get_mut(&node) {
            Some(k) => {
                k.signer = true;
                true
            }
            None => false,
        }
    }

    /// Forgets `node` (an operator-confirmed key change), and its link to
    /// another number; returns whether it was known.
    pub fn forget(&mut self, node: u32) -> bool {
        let Some(k) = self.nodes.remove(&node) else {
            return false;
        };
        if self.by_key.get(&k.public_key) == Some(&node) {
            self.by_key.remove(&k.public_key);
        }
        for other in [k.renumbered_from, k.renumbered_to].into_iter().flatten() {
            if let Some(o) = self.nodes.get_mut(&other) {
                o.renumbered_from = o.renumbered_from.filter(|&n| n != node);
                o.renumbered_to = o.renumbered_to.filter(|&n| n != node);
                self.by_key.entry(o.public_key).or_insert(other);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_renumbered_node_is_linked_and_another_key_is_a_conflict() {
        let key = [9u8; 32];
        let crc = node_number(&key);
        let old = crc ^ 0x5a5a;
        let mut t = NodeTable::default();
        assert_eq!(t.offer(old, &key), Some(KeyEvent::Learned { node: old }));
        let ev = t.offer(crc, &key);
        assert_eq!(
            ev,
            Some(KeyEvent::Renumbered {
                node: crc,
                from: old,
                to: crc
            })
        );
        assert_eq!(t.get(old).unwrap().renumbered_to, Some(crc));
        assert_eq!(t.get(crc).unwrap().renumbered_from, Some(old));
        assert_eq!(t.identity(crc), Some(Identity::Matches));
        // The old number again with the same key: nothing new.
        assert_eq!(t.offer(old, &key), None);
        // Another key under the new number stays a conflict.
        assert!(matches!(
            t.offer(crc, &[8; 32]),
            Some(KeyEvent::Conflict { .. })
        ));
        // Seen in the other order (the crc32 number first): linked the same.
        let mut t = NodeTable::default();
        t.offer(crc, &key);
        let ev = t.offer(old, &key);
        assert_eq!(
            ev,
            Some(KeyEvent::Renumbered {
                node: old,
                from: old,
                to: crc
            })
        );
        // A key under two numbers, neither its crc32: not a renumbering.
        let mut t = NodeTable::default();
        t.offer(old, &key);
        assert_eq!(
            t.offer(old ^ 1, &key),
            Some(KeyEvent::Learned { node: old ^ 1 })
        );
        assert_eq!(t.get(old).unwrap().renumbered_to, None);
        assert!(t.forget(old) && t.get(old ^ 1).is_some());
    }
}

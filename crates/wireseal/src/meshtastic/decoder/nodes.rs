//! The node table: public keys learned from the feed, first key pinned,
//! and which nodes have proven that they sign.

use super::super::identity::Identity;
use super::super::xeddsa::VerifyingKey;
use super::outcome::KeyEvent;
#[allow(unused_imports)]
use crate::prelude::*;

/// The table's hasher: aHash with a random per-table seed (node numbers come
/// from the feed, so the seed keeps them from being ground to collide),
/// cheaper than SipHash on the decoder's per-packet lookups.
/// The nodes by number: a randomly seeded hash map on `std`, a B-tree with
/// `alloc` only.
#[cfg(feature = "std")]
type Nodes = std::collections::HashMap<u32, NodeKey, ahash::RandomState>;
#[cfg(not(feature = "std"))]
type Nodes = alloc::collections::BTreeMap<u32, NodeKey>;

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
}

impl NodeKey {
    fn new(public_key: [u8; 32]) -> Self {
        Self {
            public_key,
            verifying_key: VerifyingKey::from_x25519(&public_key).ok(),
            signer: false,
        }
    }

    /// How node `node`'s number relates to this key (see [`Identity`]).
    pub fn identity(&self, node: u32) -> Identity {
        Identity::of(node, Some(&self.public_key), self.signer)
    }
}

/// Node number → pinned public key. The first key seen for a node is
/// pinned; a different key later is reported ([`KeyEvent::Conflict`]) and
/// never adopted. Bounded: once `capacity` nodes are known, new nodes are
/// reported ([`KeyEvent::TableFull`]) and not recorded (evicting a pinned
/// key would let a flood of made-up nodes unpin a real one).
#[derive(Debug, Clone)]
pub struct NodeTable {
    nodes: Nodes,
    capacity: usize,
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
            nodes: Nodes::default(),
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

    /// Offers `public_key` for `node`: pins it when the node is new, reports
    /// a conflict when another key is pinned, and says nothing when it is
    /// the pinned key.
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
                Some(KeyEvent::Learned { node })
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

    /// Forgets `node` (an operator-confirmed key change); returns whether it was known.
    pub fn forget(&mut self, node: u32) -> bool {
        self.nodes.remove(&node).is_some()
    }
}

//! The node table: public keys learned from the feed, first key pinned.

use super::super::xeddsa::VerifyingKey;
use super::outcome::KeyEvent;
use std::collections::HashMap;

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
}

impl NodeKey {
    fn new(public_key: [u8; 32]) -> Self {
        Self {
            public_key,
            verifying_key: VerifyingKey::from_x25519(&public_key).ok(),
        }
    }
}

/// Node number → pinned public key. The first key seen for a node is
/// pinned; a different key later is reported ([`KeyEvent::Conflict`]) and
/// never adopted. Bounded: once `capacity` nodes are known, new nodes are
/// reported ([`KeyEvent::TableFull`]) and not recorded (evicting a pinned
/// key would let a flood of made-up nodes unpin a real one).
#[derive(Debug, Clone)]
pub struct NodeTable {
    nodes: HashMap<u32, NodeKey>,
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
            nodes: HashMap::new(),
            capacity,
        }
    }

    /// The pinned key of `node`.
    pub fn get(&self, node: u32) -> Option<&NodeKey> {
        self.nodes.get(&node)
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

    /// Forgets `node` (an operator-confirmed key change); returns whether it was known.
    pub fn forget(&mut self, node: u32) -> bool {
        self.nodes.remove(&node).is_some()
    }
}

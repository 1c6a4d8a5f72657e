//! The session table of builds without an allocator: a fixed array of
//! [`CORE_MAX_SESSIONS`] entries with the map operations the session code
//! uses (`std` builds use a `HashMap`, `alloc` builds a `BTreeMap`).

#[cfg(not(feature = "alloc"))]
use super::session::Session;

/// Sessions a node keeps at most in builds without an allocator (peat-btle's
/// default cap; [`super::PeerSessions::with_max_sessions`] can lower it).
pub const CORE_MAX_SESSIONS: usize = 16;

/// Up to [`CORE_MAX_SESSIONS`] sessions by peer node id.
#[cfg(not(feature = "alloc"))]
pub(crate) struct FixedTable {
    entries: [Option<(u32, Session)>; CORE_MAX_SESSIONS],
}

#[cfg(not(feature = "alloc"))]
impl FixedTable {
    pub(crate) fn new() -> Self {
        Self {
            entries: [const { None }; CORE_MAX_SESSIONS],
        }
    }

    fn position(&self, peer: u32) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| matches!(e, Some((p, _)) if *p == peer))
    }

    pub(crate) fn get(&self, peer: &u32) -> Option<&Session> {
        self.iter().find(|(p, _)| *p == peer).map(|(_, s)| s)
    }

    pub(crate) fn get_mut(&mut self, peer: &u32) -> Option<&mut Session> {
        self.entries.iter_mut().find_map(|e| match e {
            Some((p, s)) if *p == *peer => Some(s),
            _ => None,
        })
    }

    pub(crate) fn contains_key(&self, peer: &u32) -> bool {
        self.position(*peer).is_some()
    }

    /// Inserts or replaces the session of `peer`. With every entry taken by
    /// other peers it stores nothing and hands `session` back; the session
    /// code makes room first (`make_room`, capped at the table's size), so
    /// that does not happen.
    pub(crate) fn insert(&mut self, peer: u32, session: Session) -> Option<Session> {
        let at = self
            .position(peer)
            .or_else(|| self.entries.iter().position(Option::is_none));
        match at {
            Some(i) => self.entries[i].replace((peer, session)).map(|(_, old)| old),
            None => Some(session),
        }
    }

    pub(crate) fn remove(&mut self, peer: &u32) -> Option<Session> {
        let i = self.position(*peer)?;
        self.entries[i].take().map(|(_, s)| s)
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.iter().filter(|e| e.is_some()).count()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&u32, &Session)> {
        self.entries.iter().flatten().map(|(p, s)| (p, s))
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &Session> {
        self.iter().map(|(_, s)| s)
    }
}

//! Where a page of a list that holds both meshes ends, given back as
//! `before=`: the last row's time and key. A Meshtastic node's is
//! `MS.NODE`, a MeshCore node's `MS.KEY` (64 hex digits); a Meshtastic
//! packet's `MS.FROM.ID`, a MeshCore packet's `MS.HASH` (the hash as a
//! signed number). Rows of one time are listed Meshtastic's first, then
//! MeshCore's, each by key, newest first.

use super::{ApiError, Params};

fn bad() -> ApiError {
    ApiError::BadRequest("before: the `next` of the previous page".into())
}

/// After which node a page of nodes starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum NodeCursor {
    /// A Meshtastic node last seen at `ms`.
    Meshtastic { ms: i64, node: i64 },
    /// A MeshCore node last heard at `ms`.
    Meshcore { ms: i64, key: [u8; 32] },
}

impl NodeCursor {
    /// The request's `before`, if given.
    pub fn of(p: &Params) -> Result<Option<Self>, ApiError> {
        let Some(c) = p.get("before") else {
            return Ok(None);
        };
        let (ms, rest) = c.split_once('.').ok_or_else(bad)?;
        let ms = ms.parse().map_err(|_| bad())?;
        if let Some(key) = crate::meshcore::feed::public_key(rest) {
            return Ok(Some(NodeCursor::Meshcore { ms, key }));
        }
        let node = rest.parse().map_err(|_| bad())?;
        Ok(Some(NodeCursor::Meshtastic { ms, node }))
    }

    /// As `next` gives it.
    pub fn text(&self) -> String {
        match self {
            NodeCursor::Meshtastic { ms, node } => format!("{ms}.{node}"),
            NodeCursor::Meshcore { ms, key } => format!("{ms}.{}", hex::encode(key)),
        }
    }
}

/// After which packet a page of packets starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PacketCursor {
    /// A Meshtastic packet first seen at `ms`.
    Meshtastic { ms: i64, from: i64, id: i64 },
    /// A MeshCore packet first seen at `ms`.
    Meshcore { ms: i64, hash: i64 },
}

impl PacketCursor {
    /// The request's `before`, if given.
    pub fn of(p: &Params) -> Result<Option<Self>, ApiError> {
        let Some(c) = p.get("before") else {
            return Ok(None);
        };
        let parts: Vec<i64> = c
            .split('.')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        match parts[..] {
            [ms, from, id] => Ok(Some(PacketCursor::Meshtastic { ms, from, id })),
            [ms, hash] => Ok(Some(PacketCursor::Meshcore { ms, hash })),
            _ => Err(bad()),
        }
    }

    /// As `next` gives it.
    pub fn text(&self) -> String {
        match self {
            PacketCursor::Meshtastic { ms, from, id } => format!("{ms}.{from}.{id}"),
            PacketCursor::Meshcore { ms, hash } => format!("{ms}.{hash}"),
        }
    }
}

/// One row of a merged page: Meshtastic's or MeshCore's.
pub(super) enum Either<A, B> {
    Meshtastic(A),
    Meshcore(B),
}

/// The first `limit` rows of two lists each newest first (`a`'s rows at a
/// time before `b`'s), merged newest first.
pub(super) fn merge<A, B>(
    a: Vec<A>,
    b: Vec<B>,
    limit: usize,
    time_a: impl Fn(&A) -> i64,
    time_b: impl Fn(&B) -> i64,
) -> Vec<Either<A, B>> {
    let mut out = Vec::with_capacity(limit.min(a.len() + b.len()));
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while out.len() < limit {
        let take_a = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => time_a(x) >= time_b(y),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        match take_a {
            true => out.extend(a.next().map(Either::Meshtastic)),
            false => out.extend(b.next().map(Either::Meshcore)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip() {
        let p = |q: &str| Params::parse(q).unwrap();
        let key = "ab".repeat(32);
        let n = NodeCursor::of(&p(&format!("before=5.{key}")))
            .unwrap()
            .unwrap();
        assert_eq!(
            n,
            NodeCursor::Meshcore {
                ms: 5,
                key: [0xab; 32]
            }
        );
        assert_eq!(n.text(), format!("5.{key}"));
        let n = NodeCursor::of(&p("before=5.77")).unwrap().unwrap();
        assert_eq!(n.text(), "5.77");
        for bad in ["before=5", "before=x.1", "before=5.zz", "before=5.1.2"] {
            assert!(NodeCursor::of(&p(bad)).is_err(), "{bad}");
        }
        let c = PacketCursor::of(&p("before=9.-3")).unwrap().unwrap();
        assert_eq!(c, PacketCursor::Meshcore { ms: 9, hash: -3 });
        assert_eq!(
            PacketCursor::of(&p("before=9.1.2"))
                .unwrap()
                .unwrap()
                .text(),
            "9.1.2"
        );
        assert!(PacketCursor::of(&p("before=9")).is_err());
        assert!(PacketCursor::of(&p("before=1.2.3.4")).is_err());
    }

    #[test]
    fn merged_newest_first_meshtastic_first_at_one_time() {
        let got = merge(vec![9, 5, 5, 1], vec![7, 5, 2], 5, |x| *x, |y| *y);
        let seen: Vec<(char, i64)> = got
            .into_iter()
            .map(|e| match e {
                Either::Meshtastic(x) => ('t', x),
                Either::Meshcore(y) => ('c', y),
            })
            .collect();
        assert_eq!(seen, [('t', 9), ('c', 7), ('t', 5), ('t', 5), ('c', 5)]);
    }
}

//! The JSON API over the store: `/api/nodes`, `/api/nodes/{!id}` (or a
//! MeshCore node's 64-hex key), `/api/packets` and `/api/stats`, both
//! meshes in each list, every row with its `mesh` and a `mesh=` filter
//! ([`mesh::Mesh`]'s names). Every query is parameterised, walks an index
//! (`nodes_by_last_seen`, `packets_recent`, `packets_by_from`, their
//! MeshCore twins, the primary keys) and has a `LIMIT`; pages are cut by a
//! cursor (`next`, given back as `before`), never by an offset. Names are
//! the store's and the library's: node ids as `!hex`, MeshCore keys and
//! hashes as hex, outcomes as their `as_str`.

mod columns;
mod cursor;
mod mesh;
mod meshcore;
mod packets;
mod query;
pub(crate) mod reader;
mod rows;

use crate::http::response::{reply, JSON};
use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use reader::Reader;
use serde_json::{json, Value};
use std::sync::Arc;

/// Packets or nodes in one page at most.
pub const MAX_LIMIT: i64 = 1000;
/// Receptions listed with each packet at most (all are counted).
pub const MAX_RECEPTIONS: i64 = 32;
/// The longest span `/api/stats` covers, in minutes.
pub const MAX_STATS_MINUTES: i64 = 24 * 60;

/// (minute, channel) groups `/api/stats` gives at most (of each mesh).
const STATS_GROUPS: i64 = 20_000;

/// The rows of `sql` with `p`, as `T`: every query of the read side, for
/// either mesh.
async fn run<T: columns::FromRow>(
    r: &std::sync::Arc<reader::Reader>,
    sql: String,
    p: Vec<reader::Param>,
) -> Result<Vec<T>, ApiError> {
    r.query(sql, p).await.map_err(ApiError::Unavailable)
}

/// Why a request got no data.
#[derive(Debug)]
pub(crate) enum ApiError {
    /// A parameter is unknown or not what it should be.
    BadRequest(String),
    /// No such endpoint or node, or no store.
    NotFound(String),
    /// The store could not be read.
    Unavailable(reader::ReadError),
}

impl ApiError {
    fn response(self) -> Response<Full<Bytes>> {
        let (status, msg) = match self {
            ApiError::BadRequest(m) => (StatusCode::BAD_REQUEST, m),
            ApiError::NotFound(m) => (StatusCode::NOT_FOUND, m),
            ApiError::Unavailable(e) => (StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
        };
        reply(status, JSON, json!({ "error": msg }).to_string())
    }
}

/// The request's query string, decoded: each `name=value` once.
pub(crate) struct Params(Vec<(String, String)>);

impl Params {
    pub(crate) fn parse(q: &str) -> Result<Self, ApiError> {
        let mut v: Vec<(String, String)> = Vec::new();
        for pair in q.split('&').filter(|p| !p.is_empty()) {
            let (k, val) = pair.split_once('=').unwrap_or((pair, ""));
            let (k, val) = (decode(k)?, decode(val)?);
            if v.iter().any(|(n, _)| *n == k) {
                return Err(ApiError::BadRequest(format!("{k} given twice")));
            }
            v.push((k, val));
        }
        Ok(Params(v))
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn only(&self, allowed: &[&str]) -> Result<(), ApiError> {
        match self.0.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            Some((k, _)) => Err(ApiError::BadRequest(format!(
                "unknown parameter {k:?}; known: {}",
                allowed.join(", ")
            ))),
            None => Ok(()),
        }
    }

    /// The `mesh` parameter, when given: one of [`mesh::Mesh::NAMES`].
    fn mesh(&self) -> Result<Option<mesh::Mesh>, ApiError> {
        self.get("mesh")
            .map(|m| {
                m.parse::<mesh::Mesh>()
                    .map_err(|e| ApiError::BadRequest(format!("mesh: {e}")))
            })
            .transpose()
    }

    fn int(&self, name: &str, min: i64, max: i64) -> Result<Option<i64>, ApiError> {
        self.get(name)
            .map(|v| match v.parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(ApiError::BadRequest(format!(
                    "{name}: a whole number from {min} to {max}"
                ))),
            })
            .transpose()
    }
}

/// Percent-decoding (`+` is a space), into UTF-8.
fn decode(s: &str) -> Result<String, ApiError> {
    let bad = || ApiError::BadRequest("a parameter that is not percent-encoded UTF-8".into());
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b.get(i + 1..i + 3).ok_or_else(bad)?;
                let hex = std::str::from_utf8(hex).map_err(|_| bad())?;
                out.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| bad())
}

/// `{"FIELD": [ITEMS], "next": NEXT}`, each item serialised as it is
/// made: a page of a thousand rows never has all its JSON built as values
/// at once.
pub(crate) fn list(
    field: &str,
    items: impl ExactSizeIterator<Item = Value>,
    next: &Value,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + 512 * items.len());
    out.extend_from_slice(format!("{{{}:[", Value::from(field)).as_bytes());
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // Writing a value to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut out, &item);
    }
    out.extend_from_slice(format!("],\"next\":{next}}}").as_bytes());
    out
}

/// Answers `path` (under `/api/`) with `query`.
pub(crate) async fn handle(
    reader: Option<&Arc<Reader>>,
    extra: Value,
    path: &str,
    query: &str,
) -> Response<Full<Bytes>> {
    let result = async {
        let params = Params::parse(query)?;
        let Some(r) = reader else {
            return Err(ApiError::NotFound(
                "the gateway runs without a store (--store)".into(),
            ));
        };
        match path.strip_prefix("/api/") {
            Some("nodes") => query::nodes(r, &params).await,
            Some("packets") => packets::packets(r, &params).await,
            Some("stats") => query::stats(r, &params, extra).await,
            Some(p) if p.starts_with("nodes/") => {
                let id = decode(&p["nodes/".len()..])?;
                if let Some(key) = crate::meshcore::feed::public_key(&id) {
                    params.only(&[])?;
                    return meshcore::node(r, key).await;
                }
                let node: wireseal::meshtastic::NodeId = id
                    .parse()
                    .map_err(|e| ApiError::BadRequest(format!("{e}")))?;
                query::node(r, node.0, &params).await
            }
            _ => Err(ApiError::NotFound("no such endpoint".into())),
        }
    }
    .await;
    match result {
        Ok(body) => reply(StatusCode::OK, JSON, body),
        Err(e) => e.response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters() {
        let p = Params::parse("node=%210a0b0c0d&channel=Long+Fast&limit=5").unwrap();
        assert_eq!(p.get("node"), Some("!0a0b0c0d"));
        assert_eq!(p.get("channel"), Some("Long Fast"));
        assert_eq!(p.int("limit", 1, 10).unwrap(), Some(5));
        assert!(p.int("limit", 1, 4).is_err());
        assert!(p.only(&["node", "channel"]).is_err());
        assert_eq!(
            Params::parse("mesh=meshcore").unwrap().mesh().unwrap(),
            Some(mesh::Mesh::Meshcore)
        );
        assert!(Params::parse("mesh=%3Cscript%3E").unwrap().mesh().is_err());
        assert!(Params::parse("a=1&a=2").is_err());
        assert!(Params::parse("a=%zz").is_err());
        assert!(Params::parse("a=%ff").is_err());
        assert!(Params::parse("a=%4").is_err());
    }

    #[test]
    fn lists_are_json() {
        let items = vec![json!({"id": "!0a0b0c0d", "n": 1}), json!({"id": "\"<x>"})];
        let v: Value =
            serde_json::from_slice(&list("nodes", items.clone().into_iter(), &json!("5.7")))
                .unwrap();
        assert_eq!(v, json!({"nodes": items, "next": "5.7"}));
        let v: Value =
            serde_json::from_slice(&list("packets", Vec::new().into_iter(), &Value::Null)).unwrap();
        assert_eq!(v, json!({"packets": [], "next": null}));
    }
}

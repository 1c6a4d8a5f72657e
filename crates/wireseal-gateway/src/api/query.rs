//! The API's queries and the JSON they give.

use super::cursor::{merge, Either, NodeCursor};
use super::mesh::Mesh;
use super::reader::{Param, Reader};
use super::rows::{ChannelCount, Count, Key, MinuteCount, Node, OurNode, Payload, SignatureCount};
use super::{run, ApiError, Params, MAX_LIMIT, MAX_STATS_MINUTES, STATS_GROUPS};
use base64::Engine as _;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use wireseal::meshtastic::decoder::Signature;
use wireseal::meshtastic::NodeId;

/// Channels `/api/stats` totals at most.
const STATS_CHANNELS: usize = 100;

/// Packets of a node looked at for its signing status and our keys.
const RECENT: i64 = 1000;

/// A node number as `!hex`; `null` when it is none.
pub(super) fn id(n: Option<i64>) -> Value {
    n.and_then(|v| u32::try_from(v).ok())
        .map_or(Value::Null, |v| NodeId(v).to_string().into())
}

fn b64(b: Option<&[u8]>) -> Value {
    b.map_or(Value::Null, |b| {
        base64::engine::general_purpose::STANDARD.encode(b).into()
    })
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

const NODE_COLUMNS: &str = "node, long_name, short_name, public_key, identity, key_conflicts, \
     renumbered_from, renumbered_to, first_seen_ms, last_seen_ms";

/// Packets of a node whose signatures give its signing status.
const SIGNING_PACKETS: i64 = 10;

/// The signing status of node `n.node` as column `signing`: the first of
/// [`SIGNING`] that its last [`SIGNING_PACKETS`] packets show (through
/// `packets_by_from`), as a rank from 1; NULL for a node with no packet
/// stored.
fn signing_rank() -> String {
    let cases: String = SIGNING
        .iter()
        .enumerate()
        .map(|(i, s)| format!(" WHEN '{s}' THEN {}", i + 1))
        .collect();
    format!(
        "(SELECT min(CASE signature{cases} ELSE {} END) FROM (SELECT signature FROM packets \
         WHERE from_node = n.node ORDER BY first_seen_ms DESC LIMIT {SIGNING_PACKETS}) AS recent) \
         AS signing",
        SIGNING.len()
    )
}

/// Signature statuses by precedence: a bad signature among a node's recent
/// packets outweighs good ones, a verified one outweighs one that could not
/// be checked, and `absent` (nothing signed, or no status) comes last.
const SIGNING: [&str; 5] = [
    Signature::Invalid.as_str(),
    Signature::Malformed.as_str(),
    Signature::Valid.as_str(),
    Signature::UnknownKey.as_str(),
    Signature::Absent.as_str(),
];

fn signing(rank: Option<i64>) -> Value {
    rank.and_then(|r| usize::try_from(r - 1).ok())
        .and_then(|i| SIGNING.get(i))
        .map_or(Value::Null, |s| (*s).into())
}

fn node_json(n: &Node) -> Value {
    json!({
        "mesh": "meshtastic",
        "id": id(Some(n.node)),
        "num": n.node,
        "long_name": n.long_name,
        "short_name": n.short_name,
        "public_key": b64(n.public_key.as_deref()),
        "identity": n.identity,
        "key_conflicts": n.key_conflicts,
        "renumbered_from": id(n.renumbered_from),
        "renumbered_to": id(n.renumbered_to),
        "first_seen_ms": n.first_seen_ms,
        "last_seen_ms": n.last_seen_ms,
        "signing": signing(n.signing),
    })
}

/// Up to `limit` Meshtastic nodes, last seen first, after `after`, each
/// with its signing status.
async fn meshtastic_nodes(
    r: &Arc<Reader>,
    after: Option<&NodeCursor>,
    limit: i64,
) -> Result<Vec<Node>, ApiError> {
    let (filter, mut params) = match after {
        Some(NodeCursor::Meshtastic { ms, node }) => (
            "WHERE (last_seen_ms, node) < ($1, $2)",
            vec![Param::Int(*ms), Param::Int(*node)],
        ),
        // Meshtastic's nodes of that time came before MeshCore's.
        Some(NodeCursor::Meshcore { ms, .. }) => ("WHERE last_seen_ms < $1", vec![Param::Int(*ms)]),
        None => ("", Vec::new()),
    };
    let n = params.len() + 1;
    params.push(Param::Int(limit));
    // The page is cut first, so the signing status is read for its nodes
    // alone.
    let sql = format!(
        "SELECT {NODE_COLUMNS}, {} FROM (SELECT {NODE_COLUMNS} FROM nodes {filter} \
         ORDER BY last_seen_ms DESC, node DESC LIMIT ${n}) AS n ORDER BY last_seen_ms DESC, node DESC",
        signing_rank()
    );
    run(r, sql, params).await
}

/// `/api/nodes?limit=&before=&mesh=`: nodes of both meshes (or the one
/// `mesh` names), last heard first; Meshtastic's with their signing status.
pub(super) async fn nodes(r: &Arc<Reader>, p: &Params) -> Result<Vec<u8>, ApiError> {
    p.only(&["limit", "before", "mesh"])?;
    let limit = p.int("limit", 1, MAX_LIMIT)?.unwrap_or(100);
    let mesh = p.mesh()?;
    let after = NodeCursor::of(p)?;
    let mt = match mesh {
        Some(Mesh::Meshcore) => Vec::new(),
        _ => meshtastic_nodes(r, after.as_ref(), limit).await?,
    };
    let mc = match mesh {
        Some(Mesh::Meshtastic) => Vec::new(),
        _ => super::meshcore::nodes(r, after.as_ref(), limit).await?,
    };
    let page = merge(
        mt,
        mc,
        limit as usize,
        |n| n.last_seen_ms,
        |n| n.last_heard_ms,
    );
    let next = match page.last() {
        Some(l) if page.len() as i64 == limit => json!(match l {
            Either::Meshtastic(n) => NodeCursor::Meshtastic {
                ms: n.last_seen_ms,
                node: n.node,
            },
            Either::Meshcore(n) => NodeCursor::Meshcore {
                ms: n.last_heard_ms,
                key: n.public_key.as_slice().try_into().unwrap_or([0; 32]),
            },
        }
        .text()),
        _ => Value::Null,
    };
    let items = page.iter().map(|e| match e {
        Either::Meshtastic(n) => node_json(n),
        Either::Meshcore(n) => super::meshcore::node_json(n),
    });
    Ok(super::list("nodes", items, &next))
}

/// `/api/nodes/{!id}`: one node with its keys, signing status, last
/// position and which of our nodes it sent direct messages to.
pub(super) async fn node(r: &Arc<Reader>, node: u32, p: &Params) -> Result<Vec<u8>, ApiError> {
    p.only(&[])?;
    let n = Param::Int(node.into());
    let rows: Vec<Node> = run(
        r,
        format!(
            "SELECT {NODE_COLUMNS}, {} FROM nodes AS n WHERE node = $1",
            signing_rank()
        ),
        vec![n.clone()],
    )
    .await?;
    let Some(row) = rows.first() else {
        return Err(ApiError::NotFound(format!(
            "{} is not in the store",
            NodeId(node)
        )));
    };
    let mut out = node_json(row);
    let keys: Vec<Key> = run(
        r,
        "SELECT public_key, first_seen_ms FROM node_keys WHERE node = $1 \
         ORDER BY first_seen_ms LIMIT 16"
            .into(),
        vec![n.clone()],
    )
    .await?;
    let signatures: Vec<SignatureCount> = run(
        r,
        format!(
            "SELECT signature, count(*) AS packets FROM (SELECT signature FROM packets WHERE from_node = $1 \
             ORDER BY first_seen_ms DESC LIMIT {RECENT}) AS recent GROUP BY signature"
        ),
        vec![n.clone()],
    )
    .await?;
    let ours: Vec<OurNode> = run(
        r,
        format!(
            "SELECT DISTINCT our_node FROM (SELECT our_node FROM packets WHERE from_node = $1 \
             ORDER BY first_seen_ms DESC LIMIT {RECENT}) AS recent WHERE our_node IS NOT NULL"
        ),
        vec![n.clone()],
    )
    .await?;
    let position: Vec<Payload> = run(
        r,
        format!(
            "SELECT payload, first_seen_ms FROM packets WHERE from_node = $1 AND portnum = {} \
             ORDER BY first_seen_ms DESC LIMIT 1",
            wireseal::meshtastic::envelope::POSITION_APP
        ),
        vec![n],
    )
    .await?;
    let o = out.as_object_mut().expect("an object");
    o.insert(
        "keys".into(),
        keys.iter()
            .map(|k| json!({ "public_key": b64(Some(&k.public_key)), "first_seen_ms": k.first_seen_ms }))
            .collect(),
    );
    o.insert(
        "signature".into(),
        Value::Object(
            signatures
                .iter()
                .map(|s| {
                    let status = s.signature.as_deref().unwrap_or("unknown");
                    (status.to_owned(), s.packets.into())
                })
                .collect::<Map<_, _>>(),
        ),
    );
    o.insert(
        "talks_to".into(),
        ours.iter().map(|o| id(Some(o.our_node))).collect(),
    );
    o.insert(
        "position".into(),
        position.first().map_or(Value::Null, |p| {
            position_json(p.payload.as_deref(), p.first_seen_ms)
        }),
    );
    Ok(out.to_string().into_bytes())
}

/// The position a position packet's `payload` holds, seen `at`; `null`
/// when it holds none.
pub(super) fn position_json(payload: Option<&[u8]>, at: i64) -> Value {
    let Some(pos) = payload.and_then(|b| wireseal::meshtastic::envelope::decode_position(b).ok())
    else {
        return Value::Null;
    };
    match (pos.latitude_i, pos.longitude_i) {
        (Some(lat), Some(lon)) => json!({
            "latitude": f64::from(lat) * 1e-7,
            "longitude": f64::from(lon) * 1e-7,
            "altitude": pos.altitude,
            "seen_ms": at,
        }),
        _ => Value::Null,
    }
}

/// `/api/stats?minutes=`: packets per channel and per minute over the last
/// minutes (60 by default), nodes heard, and the gateway's counts.
pub(super) async fn stats(r: &Arc<Reader>, p: &Params, extra: Value) -> Result<Vec<u8>, ApiError> {
    p.only(&["minutes"])?;
    let minutes = p.int("minutes", 1, MAX_STATS_MINUTES)?.unwrap_or(60);
    let since = now_ms() - minutes * 60_000;
    let mut per_minute: Vec<MinuteCount> = run(
        r,
        format!(
            "SELECT first_seen_ms / 60000 AS minute, channel_id, count(*) AS packets FROM packets \
             WHERE first_seen_ms >= $1 GROUP BY minute, channel_id ORDER BY minute \
             LIMIT {STATS_GROUPS}"
        ),
        vec![Param::Int(since)],
    )
    .await?;
    let mut channels = channel_totals(r, since, &per_minute).await?;
    let meshcore = super::meshcore::per_minute(r, since).await?;
    channels.extend(sums(&meshcore));
    channels.sort_by_key(|s| std::cmp::Reverse(s.packets));
    channels.truncate(STATS_CHANNELS);
    per_minute.extend(meshcore);
    per_minute.sort_by_key(|m| m.minute);
    let nodes: Vec<Count> = run(
        r,
        "SELECT count(*) AS n FROM nodes WHERE last_seen_ms >= $1".into(),
        vec![Param::Int(since)],
    )
    .await?;
    let heard = nodes.first().map(|n| n.n);
    let meshcore_heard = super::meshcore::nodes_heard(r, since).await?;
    Ok(json!({
        "since_ms": since,
        "minutes": minutes,
        "channels": channels.iter().map(|c| json!({
            "channel_id": c.channel_id,
            "packets": c.packets,
        })).collect::<Vec<_>>(),
        "per_minute": per_minute.iter().map(|m| json!({
            "minute_ms": m.minute * 60_000,
            "channel_id": m.channel_id,
            "packets": m.packets,
        })).collect::<Vec<_>>(),
        "nodes_heard": heard.map_or(Value::Null, |n| (n + meshcore_heard).into()),
        "gateway": extra,
    })
    .to_string()
    .into_bytes())
}

/// The packets of the busiest channels since `since`, most first: the
/// sums of `per_minute` when every minute came back (one pass over the
/// window), else a query of their own.
async fn channel_totals(
    r: &Arc<Reader>,
    since: i64,
    per_minute: &[MinuteCount],
) -> Result<Vec<ChannelCount>, ApiError> {
    if (per_minute.len() as i64) >= STATS_GROUPS {
        return run(
            r,
            format!(
                "SELECT channel_id, count(*) AS packets FROM packets WHERE first_seen_ms >= $1 \
                 GROUP BY channel_id ORDER BY count(*) DESC LIMIT {STATS_CHANNELS}"
            ),
            vec![Param::Int(since)],
        )
        .await;
    }
    Ok(sums(per_minute))
}

/// The packets of each channel of `per_minute`, most first.
fn sums(per_minute: &[MinuteCount]) -> Vec<ChannelCount> {
    let mut sums: Vec<ChannelCount> = Vec::new();
    for m in per_minute {
        match sums.iter_mut().find(|s| s.channel_id == m.channel_id) {
            Some(s) => s.packets += m.packets,
            None => sums.push(ChannelCount {
                channel_id: m.channel_id.clone(),
                packets: m.packets,
            }),
        }
    }
    sums.sort_by_key(|s| std::cmp::Reverse(s.packets));
    sums.truncate(STATS_CHANNELS);
    sums
}

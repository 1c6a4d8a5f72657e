//! The API's queries and the JSON they give.

use super::reader::{Cell, Param, Reader};
use super::{ApiError, Params, MAX_LIMIT, MAX_RECEPTIONS, MAX_STATS_MINUTES};
use base64::Engine as _;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use wireseal::meshtastic::NodeId;

/// Packets of a node looked at for its signing status and our keys.
const RECENT: i64 = 1000;

async fn run(r: &Arc<Reader>, sql: String, p: Vec<Param>) -> Result<Vec<Vec<Cell>>, ApiError> {
    r.query(sql, p).await.map_err(ApiError::Unavailable)
}

fn id(c: &Cell) -> Value {
    c.int()
        .and_then(|v| u32::try_from(v).ok())
        .map_or(Value::Null, |v| NodeId(v).to_string().into())
}

fn b64(c: &Cell) -> Value {
    c.blob().map_or(Value::Null, |b| {
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

fn node_json(r: &[Cell]) -> Value {
    json!({
        "id": id(&r[0]),
        "num": r[0].json(),
        "long_name": r[1].json(),
        "short_name": r[2].json(),
        "public_key": b64(&r[3]),
        "identity": r[4].json(),
        "key_conflicts": r[5].json(),
        "renumbered_from": id(&r[6]),
        "renumbered_to": id(&r[7]),
        "first_seen_ms": r[8].json(),
        "last_seen_ms": r[9].json(),
    })
}

/// Parses a cursor `A.B[.C]` of whole numbers.
fn cursor<const N: usize>(p: &Params) -> Result<Option<[i64; N]>, ApiError> {
    let Some(c) = p.get("before") else {
        return Ok(None);
    };
    let parts: Vec<i64> = c
        .split('.')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| ApiError::BadRequest("before: the `next` of the previous page".into()))?;
    <[i64; N]>::try_from(parts)
        .map(Some)
        .map_err(|_| ApiError::BadRequest("before: the `next` of the previous page".into()))
}

/// `/api/nodes?limit=&before=`: nodes, last heard first.
pub(super) async fn nodes(r: &Arc<Reader>, p: &Params) -> Result<Value, ApiError> {
    p.only(&["limit", "before"])?;
    let limit = p.int("limit", 1, MAX_LIMIT)?.unwrap_or(100);
    let (filter, mut params) = match cursor::<2>(p)? {
        Some([ms, node]) => (
            "WHERE (last_seen_ms, node) < ($1, $2)",
            vec![Param::Int(ms), Param::Int(node)],
        ),
        None => ("", Vec::new()),
    };
    let n = params.len() + 1;
    params.push(Param::Int(limit));
    let sql = format!(
        "SELECT {NODE_COLUMNS} FROM nodes {filter} ORDER BY last_seen_ms DESC, node DESC LIMIT ${n}"
    );
    let rows = run(r, sql, params).await?;
    let next = match rows.last() {
        Some(l) if rows.len() as i64 == limit => {
            json!(format!("{}.{}", l[9].json(), l[0].json()))
        }
        _ => Value::Null,
    };
    Ok(json!({
        "nodes": rows.iter().map(|r| node_json(r)).collect::<Vec<_>>(),
        "next": next,
    }))
}

/// `/api/nodes/{!id}`: one node with its keys, signing status, last
/// position and which of our nodes it sent direct messages to.
pub(super) async fn node(r: &Arc<Reader>, node: u32, p: &Params) -> Result<Value, ApiError> {
    p.only(&[])?;
    let n = Param::Int(node.into());
    let rows = run(
        r,
        format!("SELECT {NODE_COLUMNS} FROM nodes WHERE node = $1"),
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
    let keys = run(
        r,
        "SELECT public_key, first_seen_ms FROM node_keys WHERE node = $1 \
         ORDER BY first_seen_ms LIMIT 16"
            .into(),
        vec![n.clone()],
    )
    .await?;
    let signatures = run(
        r,
        format!(
            "SELECT signature, count(*) FROM (SELECT signature FROM packets WHERE from_node = $1 \
             ORDER BY first_seen_ms DESC LIMIT {RECENT}) AS recent GROUP BY signature"
        ),
        vec![n.clone()],
    )
    .await?;
    let ours = run(
        r,
        format!(
            "SELECT DISTINCT our_node FROM (SELECT our_node FROM packets WHERE from_node = $1 \
             ORDER BY first_seen_ms DESC LIMIT {RECENT}) AS recent WHERE our_node IS NOT NULL"
        ),
        vec![n.clone()],
    )
    .await?;
    let position = run(
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
            .map(|k| json!({ "public_key": b64(&k[0]), "first_seen_ms": k[1].json() }))
            .collect(),
    );
    o.insert(
        "signature".into(),
        Value::Object(
            signatures
                .iter()
                .map(|s| (s[0].text().unwrap_or("unknown").to_owned(), s[1].json()))
                .collect::<Map<_, _>>(),
        ),
    );
    o.insert("talks_to".into(), ours.iter().map(|o| id(&o[0])).collect());
    o.insert(
        "position".into(),
        position
            .first()
            .map_or(Value::Null, |p| position_json(&p[0], &p[1])),
    );
    Ok(out)
}

fn position_json(payload: &Cell, at: &Cell) -> Value {
    let Some(pos) = payload
        .blob()
        .and_then(|b| wireseal::meshtastic::envelope::decode_position(b).ok())
    else {
        return Value::Null;
    };
    match (pos.latitude_i, pos.longitude_i) {
        (Some(lat), Some(lon)) => json!({
            "latitude": f64::from(lat) * 1e-7,
            "longitude": f64::from(lon) * 1e-7,
            "altitude": pos.altitude,
            "seen_ms": at.json(),
        }),
        _ => Value::Null,
    }
}

/// `/api/packets?since=&node=&channel=&portnum=&limit=&before=`: packets,
/// newest first, each with its receptions counted and listed.
pub(super) async fn packets(r: &Arc<Reader>, p: &Params) -> Result<Value, ApiError> {
    p.only(&["since", "node", "channel", "portnum", "limit", "before"])?;
    let limit = p.int("limit", 1, MAX_LIMIT)?.unwrap_or(100);
    let mut filters = Vec::new();
    let mut params = Vec::new();
    // `f` gets the number of the first of `v`'s parameters.
    let mut add = |f: &dyn Fn(usize) -> String, v: Vec<Param>| {
        filters.push(f(params.len() + 1));
        params.extend(v);
    };
    if let Some(s) = p.int("since", 0, i64::MAX)? {
        add(&|i| format!("first_seen_ms >= ${i}"), vec![Param::Int(s)]);
    }
    if let Some([ms, from, id]) = cursor::<3>(p)? {
        add(
            &|i| {
                format!(
                    "(first_seen_ms, from_node, packet_id) < (${i}, ${}, ${})",
                    i + 1,
                    i + 2
                )
            },
            vec![Param::Int(ms), Param::Int(from), Param::Int(id)],
        );
    }
    if let Some(n) = p.get("node") {
        let n: NodeId = n
            .parse()
            .map_err(|e| ApiError::BadRequest(format!("node: {e}")))?;
        add(
            &|i| format!("from_node = ${i}"),
            vec![Param::Int(n.0.into())],
        );
    }
    if let Some(c) = p.get("channel") {
        add(
            &|i| format!("channel_id = ${i}"),
            vec![Param::Text(c.to_owned())],
        );
    }
    if let Some(n) = p.int("portnum", 0, i64::from(u32::MAX))? {
        add(&|i| format!("portnum = ${i}"), vec![Param::Int(n)]);
    }
    // The page's oldest time first, from the time index alone; the page
    // is then read within that range, so the tie-breaking columns of the
    // order never make the database sort the whole table.
    let where_ = |f: &[String]| match f.is_empty() {
        true => String::new(),
        false => format!("WHERE {}", f.join(" AND ")),
    };
    let edge = run(
        r,
        format!(
            "SELECT first_seen_ms FROM packets {} ORDER BY first_seen_ms DESC LIMIT 1 OFFSET {}",
            where_(&filters),
            limit - 1
        ),
        params.clone(),
    )
    .await?;
    if let Some(ms) = edge.first().and_then(|e| e[0].int()) {
        params.push(Param::Int(ms));
        filters.push(format!("first_seen_ms >= ${}", params.len()));
    }
    params.push(Param::Int(limit));
    let where_ = where_(&filters);
    let sql = format!(
        "SELECT from_node, packet_id, to_node, channel_id, channel_name, decryption, portnum, \
         text, signature, identity, error, our_node, first_seen_ms, payload FROM packets {where_} \
         ORDER BY first_seen_ms DESC, from_node DESC, packet_id DESC LIMIT ${}",
        params.len()
    );
    let rows = run(r, sql, params).await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let key = vec![
            Param::Int(row[0].int().unwrap_or(0)),
            Param::Int(row[1].int().unwrap_or(0)),
        ];
        let count = run(
            r,
            "SELECT count(*) FROM receptions WHERE from_node = $1 AND packet_id = $2".into(),
            key.clone(),
        )
        .await?;
        let list = run(
            r,
            format!(
                "SELECT gateway_id, rx_time_ms, rssi, snr, hop_start, hop_limit, relay_node \
                 FROM receptions WHERE from_node = $1 AND packet_id = $2 \
                 ORDER BY rx_time_ms LIMIT {MAX_RECEPTIONS}"
            ),
            key,
        )
        .await?;
        out.push(json!({
            "from": id(&row[0]),
            "id": row[1].json(),
            "to": id(&row[2]),
            "channel_id": row[3].json(),
            "channel_name": row[4].json(),
            "decryption": row[5].json(),
            "portnum": row[6].json(),
            "text": row[7].json(),
            "signature": row[8].json(),
            "identity": row[9].json(),
            "error": row[10].json(),
            "our_node": id(&row[11]),
            "first_seen_ms": row[12].json(),
            "position": match row[6].int() {
                Some(p) if p == i64::from(wireseal::meshtastic::envelope::POSITION_APP) => {
                    position_json(&row[13], &row[12])
                }
                _ => Value::Null,
            },
            "receptions": {
                "count": count.first().map_or(Value::Null, |c| c[0].json()),
                "list": list.iter().map(|g| json!({
                    "gateway_id": g[0].json(),
                    "rx_time_ms": g[1].json(),
                    "rssi": g[2].json(),
                    "snr": g[3].json(),
                    "hop_start": g[4].json(),
                    "hop_limit": g[5].json(),
                    "relay_node": g[6].json(),
                })).collect::<Vec<_>>(),
            },
        }));
    }
    let next = match rows.last() {
        Some(l) if rows.len() as i64 == limit => {
            json!(format!("{}.{}.{}", l[12].json(), l[0].json(), l[1].json()))
        }
        _ => Value::Null,
    };
    Ok(json!({ "packets": out, "next": next }))
}

/// `/api/stats?minutes=`: packets per channel and per minute over the last
/// minutes (60 by default), nodes heard, and the gateway's counts.
pub(super) async fn stats(r: &Arc<Reader>, p: &Params, extra: Value) -> Result<Value, ApiError> {
    p.only(&["minutes"])?;
    let minutes = p.int("minutes", 1, MAX_STATS_MINUTES)?.unwrap_or(60);
    let since = now_ms() - minutes * 60_000;
    let channels = run(
        r,
        "SELECT channel_id, count(*) FROM packets WHERE first_seen_ms >= $1 \
         GROUP BY channel_id ORDER BY count(*) DESC LIMIT 100"
            .into(),
        vec![Param::Int(since)],
    )
    .await?;
    let per_minute = run(
        r,
        "SELECT first_seen_ms / 60000 AS minute, channel_id, count(*) FROM packets \
         WHERE first_seen_ms >= $1 GROUP BY minute, channel_id ORDER BY minute LIMIT 20000"
            .into(),
        vec![Param::Int(since)],
    )
    .await?;
    let nodes = run(
        r,
        "SELECT count(*) FROM nodes WHERE last_seen_ms >= $1".into(),
        vec![Param::Int(since)],
    )
    .await?;
    Ok(json!({
        "since_ms": since,
        "minutes": minutes,
        "channels": channels.iter().map(|c| json!({
            "channel_id": c[0].json(),
            "packets": c[1].json(),
        })).collect::<Vec<_>>(),
        "per_minute": per_minute.iter().map(|m| json!({
            "minute_ms": m[0].int().map(|v| v * 60_000),
            "channel_id": m[1].json(),
            "packets": m[2].json(),
        })).collect::<Vec<_>>(),
        "nodes_heard": nodes.first().map_or(Value::Null, |n| n[0].json()),
        "gateway": extra,
    }))
}

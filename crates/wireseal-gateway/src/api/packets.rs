//! `/api/packets`: a page of packets of both meshes (or the one `mesh`
//! names), newest first, with their receptions counted and listed, read in
//! two queries per mesh whatever the page's size (the page, within the time
//! range of its oldest row, and the receptions of all its packets).

use super::cursor::{merge, Either, PacketCursor};
use super::mesh::Mesh;
use super::query::{id, position_json};
use super::reader::{Param, Reader};
use super::rows::{Packet, Reception};
use super::run;
use super::{ApiError, Params, MAX_LIMIT, MAX_RECEPTIONS};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use wireseal::meshtastic::NodeId;

/// Receptions by packet: (`from_node`, `packet_id`) to how many gateways
/// heard it and the receptions listed.
type Receptions = HashMap<(i64, i64), (i64, Vec<Reception>)>;

/// Each packet's receptions, by (`from_node`, `packet_id`): how many, and
/// the first [`MAX_RECEPTIONS`] by time. One query for the whole page: the
/// packets' keys as parameters (each term walks the receptions' primary
/// key), the count and the rank by time as window functions.
async fn receptions(r: &Arc<Reader>, packets: &[&Packet]) -> Result<Receptions, ApiError> {
    let mut out = Receptions::with_capacity(packets.len());
    if packets.is_empty() {
        return Ok(out);
    }
    let mut params = Vec::with_capacity(2 * packets.len());
    let mut terms = Vec::with_capacity(packets.len());
    for p in packets {
        params.push(Param::Int(p.from_node));
        params.push(Param::Int(p.packet_id));
        terms.push(format!(
            "(from_node = ${} AND packet_id = ${})",
            params.len() - 1,
            params.len()
        ));
    }
    let sql = format!(
        "SELECT from_node, packet_id, heard, gateway_id, rx_time_ms, rssi, snr, hop_start, \
         hop_limit, relay_node FROM (SELECT from_node, packet_id, gateway_id, rx_time_ms, rssi, \
         snr, hop_start, hop_limit, relay_node, \
         count(*) OVER (PARTITION BY from_node, packet_id) AS heard, \
         row_number() OVER (PARTITION BY from_node, packet_id ORDER BY rx_time_ms, gateway_id, \
         relay_node) AS pos FROM receptions WHERE {}) AS r WHERE pos <= {MAX_RECEPTIONS} \
         ORDER BY from_node, packet_id, pos",
        terms.join(" OR ")
    );
    let rows: Vec<Reception> = run(r, sql, params).await?;
    for g in rows {
        let e = out.entry((g.from_node, g.packet_id)).or_default();
        e.0 = g.heard;
        e.1.push(g);
    }
    Ok(out)
}

fn reception_json(g: &Reception) -> Value {
    json!({
        "gateway_id": g.gateway_id,
        "rx_time_ms": g.rx_time_ms,
        "rssi": g.rssi,
        "snr": g.snr,
        "hop_start": g.hop_start,
        "hop_limit": g.hop_limit,
        "relay_node": g.relay_node,
    })
}

/// A packet and its receptions (how many, and those listed).
fn packet_json(p: &Packet, (count, list): (i64, Vec<Reception>)) -> Value {
    let position = match p.portnum {
        Some(n) if n == i64::from(wireseal::meshtastic::envelope::POSITION_APP) => {
            position_json(p.payload.as_deref(), p.first_seen_ms)
        }
        _ => Value::Null,
    };
    json!({
        "mesh": "meshtastic",
        "from": id(Some(p.from_node)),
        "id": p.packet_id,
        "to": id(Some(p.to_node)),
        "channel_id": p.channel_id,
        "channel_name": p.channel_name,
        "decryption": p.decryption,
        "portnum": p.portnum,
        "text": p.text,
        "signature": p.signature,
        "identity": p.identity,
        "error": p.error,
        "our_node": id(p.our_node),
        "first_seen_ms": p.first_seen_ms,
        "position": position,
        "receptions": {
            "count": count,
            "list": list.iter().map(reception_json).collect::<Vec<_>>(),
        },
    })
}

/// The conditions of a page's query, each with its parameters numbered in
/// the order they are added.
#[derive(Default)]
struct Filters {
    terms: Vec<String>,
    params: Vec<Param>,
}

impl Filters {
    /// Adds the term `f` makes from the number of the first of `v`.
    fn add(&mut self, f: impl FnOnce(usize) -> String, v: Vec<Param>) {
        self.terms.push(f(self.params.len() + 1));
        self.params.extend(v);
    }

    /// `WHERE` and the terms, or nothing.
    fn clause(&self) -> String {
        match self.terms.is_empty() {
            true => String::new(),
            false => format!("WHERE {}", self.terms.join(" AND ")),
        }
    }

    /// The filters the request's parameters ask for, after `after`.
    fn of(p: &Params, after: Option<&PacketCursor>) -> Result<Self, ApiError> {
        let mut f = Filters::default();
        if let Some(s) = p.int("since", 0, i64::MAX)? {
            f.add(|i| format!("first_seen_ms >= ${i}"), vec![Param::Int(s)]);
        }
        match after {
            Some(&PacketCursor::Meshtastic { ms, from, id }) => f.add(
                |i| {
                    format!(
                        "(first_seen_ms, from_node, packet_id) < (${i}, ${}, ${})",
                        i + 1,
                        i + 2
                    )
                },
                vec![Param::Int(ms), Param::Int(from), Param::Int(id)],
            ),
            // Meshtastic's packets of that time came before MeshCore's.
            Some(&PacketCursor::Meshcore { ms, .. }) => {
                f.add(|i| format!("first_seen_ms < ${i}"), vec![Param::Int(ms)])
            }
            None => {}
        }
        if let Some(n) = p.get("node") {
            let n: NodeId = n
                .parse()
                .map_err(|e| ApiError::BadRequest(format!("node: {e}")))?;
            f.add(
                |i| format!("from_node = ${i}"),
                vec![Param::Int(n.0.into())],
            );
        }
        if let Some(c) = p.get("channel") {
            f.add(
                |i| format!("channel_id = ${i}"),
                vec![Param::Text(c.to_owned())],
            );
        }
        if let Some(n) = p.int("portnum", 0, i64::from(u32::MAX))? {
            f.add(|i| format!("portnum = ${i}"), vec![Param::Int(n)]);
        }
        Ok(f)
    }
}

/// The query of a page of `limit` packets under `f`, and its parameters.
///
/// The page is read within the time range of its oldest row, found from
/// the time index alone (the same filters, the same parameters), so the
/// tie-breaking columns of the order never make the database sort the whole
/// table; a short last page has no such row and reads from time 0 (times
/// are never negative).
fn page_query(mut f: Filters, limit: i64) -> (String, Vec<Param>) {
    let oldest = format!(
        "first_seen_ms >= COALESCE((SELECT first_seen_ms FROM packets {} \
         ORDER BY first_seen_ms DESC LIMIT 1 OFFSET {}), 0)",
        f.clause(),
        limit - 1
    );
    f.terms.push(oldest);
    f.params.push(Param::Int(limit));
    let sql = format!(
        "SELECT from_node, packet_id, to_node, channel_id, channel_name, decryption, portnum, \
         text, signature, identity, error, our_node, first_seen_ms, payload FROM packets {} \
         ORDER BY first_seen_ms DESC, from_node DESC, packet_id DESC LIMIT ${}",
        f.clause(),
        f.params.len()
    );
    (sql, f.params)
}

/// Filters that only Meshtastic packets have.
const MESHTASTIC_FILTERS: [&str; 3] = ["node", "channel", "portnum"];

/// `/api/packets?since=&node=&channel=&portnum=&limit=&before=&mesh=`:
/// packets of both meshes (`node`, `channel` and `portnum` ask for
/// Meshtastic's), newest first, each with its receptions counted and
/// listed.
pub(super) async fn packets(r: &Arc<Reader>, p: &Params) -> Result<Vec<u8>, ApiError> {
    p.only(&[
        "since", "node", "channel", "portnum", "limit", "before", "mesh",
    ])?;
    let limit = p.int("limit", 1, MAX_LIMIT)?.unwrap_or(100);
    let after = PacketCursor::of(p)?;
    let mesh = p.mesh()?;
    let meshtastic_only = MESHTASTIC_FILTERS.iter().any(|k| p.get(k).is_some());
    if meshtastic_only && mesh == Some(Mesh::Meshcore) {
        return Err(ApiError::BadRequest(
            "node, channel and portnum filter Meshtastic packets, not mesh=meshcore".into(),
        ));
    }
    let filters = Filters::of(p, after.as_ref())?;
    let mt: Vec<Packet> = match mesh {
        Some(Mesh::Meshcore) => Vec::new(),
        _ => {
            let (sql, params) = page_query(filters, limit);
            run(r, sql, params).await?
        }
    };
    let mc = match (mesh, meshtastic_only) {
        (Some(Mesh::Meshtastic), _) | (_, true) => Vec::new(),
        _ => {
            let since = p.int("since", 0, i64::MAX)?;
            super::meshcore::packets(r, since, after.as_ref(), limit).await?
        }
    };
    let page = merge(
        mt,
        mc,
        limit as usize,
        |p| p.first_seen_ms,
        |p| p.first_seen_ms,
    );
    let (mut heard, mut mc_heard) = page_receptions(r, &page).await?;
    let next = match page.last() {
        Some(l) if page.len() as i64 == limit => json!(match l {
            Either::Meshtastic(p) => PacketCursor::Meshtastic {
                ms: p.first_seen_ms,
                from: p.from_node,
                id: p.packet_id,
            },
            Either::Meshcore(p) => PacketCursor::Meshcore {
                ms: p.first_seen_ms,
                hash: p.hash,
            },
        }
        .text()),
        _ => Value::Null,
    };
    let items = page.iter().map(|e| match e {
        Either::Meshtastic(p) => {
            let h = heard
                .remove(&(p.from_node, p.packet_id))
                .unwrap_or_default();
            packet_json(p, h)
        }
        Either::Meshcore(p) => {
            let h = mc_heard.remove(&p.hash).unwrap_or_default();
            super::meshcore::packet_json(p, h)
        }
    });
    Ok(super::list("packets", items, &next))
}

/// The receptions of a page's packets, each mesh's in one query.
async fn page_receptions(
    r: &Arc<Reader>,
    page: &[Either<Packet, super::rows::McPacket>],
) -> Result<(Receptions, super::meshcore::Receptions), ApiError> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for e in page {
        match e {
            Either::Meshtastic(p) => a.push(p),
            Either::Meshcore(p) => b.push(p),
        }
    }
    Ok((
        receptions(r, &a).await?,
        super::meshcore::receptions(r, &b).await?,
    ))
}

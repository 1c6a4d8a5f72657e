//! `/api/packets`: a page of packets, newest first, with their receptions
//! counted and listed, read in two queries whatever the page's size (the
//! page, within the time range of its oldest row, and the receptions of all
//! its packets).

use super::query::{cursor, id, position_json, run};
use super::reader::{Cell, Param, Reader};
use super::{ApiError, Params, MAX_LIMIT, MAX_RECEPTIONS};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use wireseal::meshtastic::NodeId;

/// Receptions by packet: (`from_node`, `packet_id`) to the count and the
/// rows listed.
type Receptions = HashMap<(i64, i64), (i64, Vec<Vec<Cell>>)>;

/// Each packet's receptions, by (`from_node`, `packet_id`): how many, and
/// the first [`MAX_RECEPTIONS`] by time (`gateway_id`, `rx_time_ms`,
/// `rssi`, `snr`, `hop_start`, `hop_limit`, `relay_node`). One query for
/// the whole page: the packets' keys as parameters (each term walks the
/// receptions' primary key), the count and the rank by time as window
/// functions.
async fn receptions(r: &Arc<Reader>, rows: &[Vec<Cell>]) -> Result<Receptions, ApiError> {
    let mut out = Receptions::with_capacity(rows.len());
    if rows.is_empty() {
        return Ok(out);
    }
    let mut params = Vec::with_capacity(2 * rows.len());
    let mut terms = Vec::with_capacity(rows.len());
    for row in rows {
        params.push(Param::Int(row[0].int().unwrap_or(0)));
        params.push(Param::Int(row[1].int().unwrap_or(0)));
        terms.push(format!(
            "(from_node = ${} AND packet_id = ${})",
            params.len() - 1,
            params.len()
        ));
    }
    let sql = format!(
        "SELECT from_node, packet_id, n, gateway_id, rx_time_ms, rssi, snr, hop_start, hop_limit, \
         relay_node FROM (SELECT from_node, packet_id, gateway_id, rx_time_ms, rssi, snr, \
         hop_start, hop_limit, relay_node, count(*) OVER (PARTITION BY from_node, packet_id) AS n, \
         row_number() OVER (PARTITION BY from_node, packet_id ORDER BY rx_time_ms, gateway_id, \
         relay_node) AS pos FROM receptions WHERE {}) AS r WHERE pos <= {MAX_RECEPTIONS} \
         ORDER BY from_node, packet_id, pos",
        terms.join(" OR ")
    );
    for mut g in run(r, sql, params).await? {
        let key = (g[0].int().unwrap_or(0), g[1].int().unwrap_or(0));
        let e = out.entry(key).or_default();
        e.0 = g[2].int().unwrap_or(0);
        e.1.push(g.split_off(3));
    }
    Ok(out)
}

fn reception_json(g: &[Cell]) -> Value {
    json!({
        "gateway_id": g[0].json(),
        "rx_time_ms": g[1].json(),
        "rssi": g[2].json(),
        "snr": g[3].json(),
        "hop_start": g[4].json(),
        "hop_limit": g[5].json(),
        "relay_node": g[6].json(),
    })
}

/// `/api/packets?since=&node=&channel=&portnum=&limit=&before=`: packets,
/// newest first, each with its receptions counted and listed.
pub(super) async fn packets(r: &Arc<Reader>, p: &Params) -> Result<Vec<u8>, ApiError> {
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
    // The page is read within the time range of its oldest row, found from
    // the time index alone (the same filters, the same parameters), so the
    // tie-breaking columns of the order never make the database sort the
    // whole table; a short last page has no such row and reads from time 0
    // (times are never negative).
    let where_ = |f: &[String]| match f.is_empty() {
        true => String::new(),
        false => format!("WHERE {}", f.join(" AND ")),
    };
    filters.push(format!(
        "first_seen_ms >= COALESCE((SELECT first_seen_ms FROM packets {} \
         ORDER BY first_seen_ms DESC LIMIT 1 OFFSET {}), 0)",
        where_(&filters),
        limit - 1
    ));
    params.push(Param::Int(limit));
    let where_ = where_(&filters);
    let sql = format!(
        "SELECT from_node, packet_id, to_node, channel_id, channel_name, decryption, portnum, \
         text, signature, identity, error, our_node, first_seen_ms, payload FROM packets {where_} \
         ORDER BY first_seen_ms DESC, from_node DESC, packet_id DESC LIMIT ${}",
        params.len()
    );
    let rows = run(r, sql, params).await?;
    let mut receptions = receptions(r, &rows).await?;
    let packet = |row: &Vec<Cell>| {
        let key = (row[0].int().unwrap_or(0), row[1].int().unwrap_or(0));
        let (count, list) = receptions.remove(&key).unwrap_or_default();
        json!({
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
                "count": count,
                "list": list.iter().map(|g| reception_json(g)).collect::<Vec<_>>(),
            },
        })
    };
    let next = match rows.last() {
        Some(l) if rows.len() as i64 == limit => {
            json!(format!("{}.{}.{}", l[12].json(), l[0].json(), l[1].json()))
        }
        _ => Value::Null,
    };
    Ok(super::list("packets", rows.iter().map(packet), &next))
}

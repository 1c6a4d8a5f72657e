//! The Grafana dashboard in docs/grafana parses, and every metric its
//! queries name is one the gateway exports.

use serde_json::Value;
use std::collections::BTreeSet;
use wireseal_gateway::metrics::NAMES;

fn strings<'a>(v: &'a Value, key: &str, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match x.as_str() {
                    Some(s) if k == key => out.push(s),
                    _ => strings(x, key, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, key, out)),
        _ => {}
    }
}

/// Every `wireseal_gateway_…` name in `expr`, a histogram's series
/// (`_bucket`, `_sum`, `_count`) as their family.
fn metrics(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some(i) = rest.find("wireseal_gateway_") {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let name = &tail[..end];
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| name.strip_suffix(s).filter(|f| NAMES.contains(f)))
            .unwrap_or(name);
        out.push(family.to_owned());
        rest = &tail[end..];
    }
    out
}

#[test]
fn the_dashboard_parses_and_names_only_exported_metrics() {
    let path = crate::support::root().join("docs/grafana/wireseal-gateway.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let dash: Value = serde_json::from_str(&text).unwrap();
    let panels = dash["panels"].as_array().unwrap();
    assert!(panels.len() >= 10, "{} panels", panels.len());
    for p in panels {
        assert!(
            !p["targets"].as_array().unwrap().is_empty(),
            "{}",
            p["title"]
        );
    }
    let mut exprs = Vec::new();
    strings(&dash, "expr", &mut exprs);
    strings(&dash, "query", &mut exprs);
    let mut used = BTreeSet::new();
    for e in &exprs {
        let names = metrics(e);
        assert!(!names.is_empty() || e.is_empty(), "{e}");
        for n in names {
            assert!(NAMES.contains(&n.as_str()), "{n} in {e} is not exported");
            used.insert(n);
        }
    }
    // The families an operator watches first are all on it.
    for must in [
        "wireseal_gateway_messages_total",
        "wireseal_gateway_packets_total",
        "wireseal_gateway_packet_signatures_total",
        "wireseal_gateway_store_writes_total",
        "wireseal_gateway_held_messages",
        "wireseal_gateway_oldest_held_message_age_seconds",
        "wireseal_gateway_store_lag_seconds",
        "wireseal_gateway_flood_refused_total",
        "wireseal_gateway_broker_connected",
        "wireseal_gateway_broker_connects_total",
        "wireseal_gateway_decode_duration_seconds",
    ] {
        assert!(used.contains(must), "{must} is not on the dashboard");
    }
    assert_eq!(
        metrics("rate(wireseal_gateway_decode_duration_seconds_bucket[5m])"),
        ["wireseal_gateway_decode_duration_seconds"]
    );
}

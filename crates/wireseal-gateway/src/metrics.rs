//! The gateway's counts in the Prometheus text exposition format, encoded
//! by `prometheus-client` at each scrape straight from [`Counters`] and
//! [`Health`] (nothing copied, nothing kept between scrapes). Every name
//! starts with `wireseal_gateway_`; counters end in `_total`, times are in
//! seconds; label values are the library's names (`as_str`).

use crate::counters::{Counters, Named};
use crate::health::Health;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use std::fmt;
use std::sync::Arc;

/// The `Content-Type` of [`render`]'s text.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// Every metric family the gateway exports, by its full name as a scrape
/// shows it (counters with `_total`, the histogram without its suffixes).
pub const NAMES: [&str; 33] = [
    "wireseal_gateway_messages_total",
    "wireseal_gateway_malformed_messages_total",
    "wireseal_gateway_oversized_messages_total",
    "wireseal_gateway_own_output_ignored_total",
    "wireseal_gateway_packets_total",
    "wireseal_gateway_packet_signatures_total",
    "wireseal_gateway_undecoded_packets_total",
    "wireseal_gateway_packet_kinds_total",
    "wireseal_gateway_node_identities_total",
    "wireseal_gateway_policy_verdicts_total",
    "wireseal_gateway_key_events_total",
    "wireseal_gateway_control_packets_total",
    "wireseal_gateway_unusable_ids_total",
    "wireseal_gateway_flood_refused_total",
    "wireseal_gateway_decode_duration_seconds",
    "wireseal_gateway_broker_connected",
    "wireseal_gateway_subscribed",
    "wireseal_gateway_broker_connects_total",
    "wireseal_gateway_broker_connection_errors_total",
    "wireseal_gateway_outputs_total",
    "wireseal_gateway_publish_dropped_total",
    "wireseal_gateway_output_errors_total",
    "wireseal_gateway_acks_total",
    "wireseal_gateway_held_messages",
    "wireseal_gateway_oldest_held_message_age_seconds",
    "wireseal_gateway_store_writable",
    "wireseal_gateway_store_writes_total",
    "wireseal_gateway_store_lag_seconds",
    "wireseal_gateway_store_duplicates_total",
    "wireseal_gateway_store_rejected_total",
    "wireseal_gateway_store_capped_total",
    "wireseal_gateway_store_unavailable_total",
    "wireseal_gateway_store_pruned_total",
];

/// The decode-time histogram's buckets: 10 µs to about 38 ms.
pub fn decode_histogram() -> Histogram {
    Histogram::new(exponential_buckets(1e-5, 2.5, 10))
}

/// The store-lag histogram's buckets: 1 ms to about 60 s.
pub fn store_lag_histogram() -> Histogram {
    Histogram::new(exponential_buckets(1e-3, 2.5, 13))
}

#[derive(Debug)]
struct Gateway {
    counters: Arc<Counters>,
    health: Arc<Health>,
}

const P: &str = "wireseal_gateway_";

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, v: u64) -> fmt::Result {
    let name = format!("{P}{name}");
    e.encode_descriptor(&name, help, None, MetricType::Counter)?
        .encode_counter::<NoLabelSet, _, u64>(&v, None)
}

fn gauge(e: &mut DescriptorEncoder, name: &str, help: &str, v: u64) -> fmt::Result {
    let name = format!("{P}{name}");
    e.encode_descriptor(&name, help, None, MetricType::Gauge)?
        .encode_gauge(&v)
}

fn family<'a>(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    label: &str,
    values: impl IntoIterator<Item = (&'a str, u64)>,
) -> fmt::Result {
    let name = format!("{P}{name}");
    let mut m = e.encode_descriptor(&name, help, None, MetricType::Counter)?;
    for (value, v) in values {
        let labels = [(label, value)];
        m.encode_family(&labels)?
            .encode_counter::<NoLabelSet, _, u64>(&v, None)?;
    }
    Ok(())
}

fn named<const N: usize>(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    label: &str,
    n: &Named<N>,
) -> fmt::Result {
    family(e, name, help, label, n.iter())
}

impl Collector for Gateway {
    fn encode(&self, mut e: DescriptorEncoder) -> fmt::Result {
        let c = &*self.counters;
        let h = &*self.health;
        let e = &mut e;
        counter(
            e,
            "messages",
            "MQTT messages taken from the broker.",
            c.messages.get(),
        )?;
        counter(
            e,
            "malformed_messages",
            "Messages that are not envelopes.",
            c.malformed.get(),
        )?;
        counter(
            e,
            "oversized_messages",
            "Messages over the envelope's size limit.",
            c.oversized.get(),
        )?;
        counter(
            e,
            "own_output_ignored",
            "Messages on the gateway's own output topics.",
            c.own_output.get(),
        )?;
        named(
            e,
            "packets",
            "Packets by decryption outcome.",
            "decryption",
            &c.decryption,
        )?;
        named(
            e,
            "packet_signatures",
            "Packets by signature status.",
            "signature",
            &c.signature,
        )?;
        named(
            e,
            "undecoded_packets",
            "Packets not decoded, by reason.",
            "reason",
            &c.error,
        )?;
        named(e, "packet_kinds", "Packets by kind.", "kind", &c.kind)?;
        named(
            e,
            "node_identities",
            "NodeInfo packets by identity check.",
            "identity",
            &c.identity,
        )?;
        named(
            e,
            "policy_verdicts",
            "Decoded packets by signature-policy verdict.",
            "verdict",
            &c.policy,
        )?;
        named(e, "key_events", "Node-table events.", "event", &c.key_event)?;
        counter(
            e,
            "control_packets",
            "Administration and key-verification packets.",
            c.control.get(),
        )?;
        counter(
            e,
            "unusable_ids",
            "Packets whose channel or gateway id was replaced by the fixed label.",
            c.unusable_ids.get(),
        )?;
        counter(
            e,
            "flood_refused",
            "Packets refused by the flood guard.",
            c.flood_refused.get(),
        )?;
        c.decode_seconds.encode(e.encode_descriptor(
            &format!("{P}decode_duration"),
            "Time to decode one MQTT message.",
            Some(&Unit::Seconds),
            MetricType::Histogram,
        )?)?;
        gauge(
            e,
            "broker_connected",
            "1 while connected to the broker.",
            u64::from(h.connected()),
        )?;
        gauge(
            e,
            "subscribed",
            "1 while the subscription is in place.",
            u64::from(h.subscribed()),
        )?;
        counter(
            e,
            "broker_connects",
            "Connections made to the broker.",
            c.connects.get(),
        )?;
        counter(
            e,
            "broker_connection_errors",
            "Failed attempts to reach the broker and connections lost.",
            c.connection_errors.get(),
        )?;
        family(
            e,
            "outputs",
            "Records written to each output.",
            "output",
            [
                ("json_lines", c.json_lines.get()),
                ("republish", c.republished.get()),
                ("firmware_json", c.firmware_json.get()),
            ],
        )?;
        counter(
            e,
            "publish_dropped",
            "Publications dropped on a full output queue.",
            c.publish_dropped.get(),
        )?;
        counter(
            e,
            "output_errors",
            "Failures of the output connection.",
            c.output_errors.get(),
        )?;
        family(
            e,
            "acks",
            "Acknowledgements to the broker, by result.",
            "result",
            [
                ("sent", c.acks.get()),
                ("dropped", c.ack_dropped.get()),
                ("closed_connection", c.acks_for_closed_connection.get()),
            ],
        )?;
        gauge(
            e,
            "held_messages",
            "Messages taken and not yet acknowledged.",
            c.held.get(),
        )?;
        e.encode_descriptor(
            &format!("{P}oldest_held_message_age_seconds"),
            "Seconds since the oldest message not yet acknowledged was taken (0 while none is held).",
            None,
            MetricType::Gauge,
        )?
        .encode_gauge(&c.oldest_held_age(now_ms()))?;
        gauge(
            e,
            "store_writable",
            "1 while the store takes writes (1 without a store).",
            u64::from(h.store_writable()),
        )?;
        family(
            e,
            "store_writes",
            "Rows the store inserted or completed.",
            "table",
            [
                ("packets", c.stored_packets.get()),
                ("receptions", c.stored_receptions.get()),
            ],
        )?;
        c.store_lag_seconds.encode(e.encode_descriptor(
            &format!("{P}store_lag"),
            "Time from a message reaching the store's writer to its commit.",
            Some(&Unit::Seconds),
            MetricType::Histogram,
        )?)?;
        counter(
            e,
            "store_duplicates",
            "Receptions already stored.",
            c.store_duplicates.get(),
        )?;
        counter(
            e,
            "store_rejected",
            "Records the store refused.",
            c.store_rejected.get(),
        )?;
        counter(
            e,
            "store_capped",
            "Fields the store shortened or rewrote.",
            c.store_capped.get(),
        )?;
        counter(
            e,
            "store_unavailable",
            "Failed attempts to write to the store.",
            c.store_unavailable.get(),
        )?;
        family(
            e,
            "store_pruned",
            "Rows removed by retention.",
            "table",
            [
                ("packets", c.pruned_packets.get()),
                ("receptions", c.pruned_receptions.get()),
            ],
        )
    }
}

/// A registry that encodes `counters` and `health` at each scrape.
pub fn registry(counters: Arc<Counters>, health: Arc<Health>) -> Registry {
    let mut r = Registry::default();
    r.register_collector(Box::new(Gateway { counters, health }));
    r
}

/// One scrape's text.
pub fn render(registry: &Registry) -> String {
    let mut out = String::with_capacity(16 * 1024);
    // Writing to a String cannot fail; a collector's error leaves what was
    // written so far.
    let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, registry);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_named_and_every_name_is_a_family() {
        let c = Arc::new(Counters::default());
        c.messages.add(3);
        c.decryption.bump("pkc");
        c.decode_seconds.observe(0.001);
        let text = render(&registry(c, Arc::new(Health::default())));
        let families: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# TYPE "))
            .filter_map(|l| l.split(' ').next())
            .collect();
        assert_eq!(families, NAMES, "{text}");
        assert!(
            text.contains("\nwireseal_gateway_messages_total 3\n"),
            "{text}"
        );
        assert!(text.contains("wireseal_gateway_packets_total{decryption=\"pkc\"} 1\n"));
        assert!(text.contains("wireseal_gateway_decode_duration_seconds_count 1\n"));
    }

    #[test]
    fn store_lag_and_the_oldest_held_message() {
        let c = Arc::new(Counters::default());
        let h = Arc::new(Health::default());
        let r = registry(c.clone(), h);
        assert!(render(&r).contains("\nwireseal_gateway_oldest_held_message_age_seconds 0.0\n"));
        c.oldest_held_ms.set(now_ms() - 90_000);
        let text = render(&r);
        let age: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("wireseal_gateway_oldest_held_message_age_seconds "))
            .and_then(|v| v.parse().ok())
            .expect("the gauge");
        assert!((90.0..120.0).contains(&age), "{age}");
        c.store_lag_seconds.observe(0.004);
        c.store_lag_seconds.observe(0.004);
        c.store_lag_seconds.observe(30.0);
        let text = render(&r);
        assert!(
            text.contains("wireseal_gateway_store_lag_seconds_count 3\n"),
            "{text}"
        );
        // (upper bound, count) of every bucket, in order.
        let buckets: Vec<(f64, u64)> = text
            .lines()
            .filter_map(|l| l.strip_prefix("wireseal_gateway_store_lag_seconds_bucket{le=\""))
            .filter_map(|l| {
                let (le, n) = l.split_once("\"} ")?;
                Some((le.parse().ok()?, n.parse().ok()?))
            })
            .collect();
        assert_eq!(buckets.first(), Some(&(0.001, 0)), "{text}");
        let at_5ms = buckets.iter().find(|b| b.0 >= 0.004).expect("a bucket");
        assert!(at_5ms.0 < 0.01 && at_5ms.1 == 2, "{buckets:?}");
        assert_eq!(buckets.last().map(|b| b.1), Some(3), "{buckets:?}");
    }
}

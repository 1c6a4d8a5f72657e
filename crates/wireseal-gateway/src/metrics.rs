//! The gateway's counts in the Prometheus text exposition format, encoded
//! by `prometheus-client` at each scrape straight from [`Counters`] and
//! [`Health`] (nothing copied, nothing kept between scrapes). Every name
//! starts with `wireseal_gateway_`; counters end in `_total`, times are in
//! seconds; label values are the library's names (`as_str`).

use crate::counters::Counters;
use crate::health::Health;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// The `Content-Type` of [`render`]'s text.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// Reads one count.
type Read = fn(&Counters) -> u64;

/// Where a metric's value comes from.
#[derive(Clone, Copy)]
enum Source {
    /// A counter.
    Counter(Read),
    /// A gauge of the counts (a level such as the messages held).
    Level(Read),
    /// A gauge of the probes' state.
    Gauge(fn(&Health) -> u64),
    /// The age of the oldest message held, in seconds (a float gauge).
    OldestHeldAge,
    /// Counters by the library's names (`as_str`), under one label.
    Named(&'static str, fn(&Counters) -> Vec<(&'static str, u64)>),
    /// Counters under one label with the values listed.
    Family(&'static str, &'static [(&'static str, Read)]),
    /// A histogram in seconds.
    Seconds(fn(&Counters) -> &Histogram),
}

/// Where a metric's counts sit in [`Counters::snapshot`] (what `--stats`
/// and the summary print).
#[derive(Clone, Copy)]
enum Snap {
    /// Not in the snapshot (the probes' state, times).
    No,
    /// At this path of keys: one count, or a family's counts as an object
    /// keyed by label value.
    At(&'static [&'static str]),
    /// A family's counts in the object at this path, each keyed by the
    /// prefix and its label value.
    Prefixed(&'static [&'static str], &'static str),
}

/// One metric family: its full name as a scrape shows it (counters with
/// `_total`, histograms without their suffixes), its help, its source and
/// its place in the snapshot.
#[derive(Clone, Copy)]
struct Metric {
    name: &'static str,
    help: &'static str,
    source: Source,
    snap: Snap,
}

const fn m(name: &'static str, help: &'static str, source: Source, snap: Snap) -> Metric {
    Metric {
        name,
        help,
        source,
        snap,
    }
}

use Snap::{At, No, Prefixed};
use Source::{Counter, Family, Gauge, Level, Named as ByName, OldestHeldAge, Seconds};

/// Every metric family the gateway exports, in the order a scrape shows
/// them: the one place a metric is declared, for the scrape and the
/// snapshot alike.
const METRICS: [Metric; 43] = [
    m(
        "wireseal_gateway_messages_total",
        "MQTT messages taken from the broker.",
        Counter(|c| c.messages.get()),
        At(&["messages"]),
    ),
    m(
        "wireseal_gateway_envelopes_total",
        "Messages whose envelope decoded: one packet each.",
        Counter(|c| c.packets.get()),
        At(&["packets"]),
    ),
    m(
        "wireseal_gateway_malformed_messages_total",
        "Messages that are not envelopes.",
        Counter(|c| c.malformed.get()),
        At(&["malformed"]),
    ),
    m(
        "wireseal_gateway_oversized_messages_total",
        "Messages over the envelope's size limit.",
        Counter(|c| c.oversized.get()),
        At(&["oversized"]),
    ),
    m(
        "wireseal_gateway_own_output_ignored_total",
        "Messages on the gateway's own output topics.",
        Counter(|c| c.own_output.get()),
        At(&["output", "own_output_ignored"]),
    ),
    m(
        "wireseal_gateway_packets_total",
        "Packets by decryption outcome.",
        ByName("decryption", |c| c.decryption.iter().collect()),
        At(&["decryption"]),
    ),
    m(
        "wireseal_gateway_packet_signatures_total",
        "Packets by signature status.",
        ByName("signature", |c| c.signature.iter().collect()),
        At(&["signature"]),
    ),
    m(
        "wireseal_gateway_undecoded_packets_total",
        "Packets not decoded, by reason.",
        ByName("reason", |c| c.error.iter().collect()),
        At(&["error"]),
    ),
    m(
        "wireseal_gateway_packet_kinds_total",
        "Packets by kind.",
        ByName("kind", |c| c.kind.iter().collect()),
        At(&["kind"]),
    ),
    m(
        "wireseal_gateway_node_identities_total",
        "NodeInfo packets by identity check.",
        ByName("identity", |c| c.identity.iter().collect()),
        At(&["identity"]),
    ),
    m(
        "wireseal_gateway_policy_verdicts_total",
        "Decoded packets by signature-policy verdict.",
        ByName("verdict", |c| c.policy.iter().collect()),
        At(&["policy"]),
    ),
    m(
        "wireseal_gateway_key_events_total",
        "Node-table events.",
        ByName("event", |c| c.key_event.iter().collect()),
        At(&["key_event"]),
    ),
    m(
        "wireseal_gateway_control_packets_total",
        "Administration and key-verification packets.",
        Counter(|c| c.control.get()),
        At(&["control"]),
    ),
    m(
        "wireseal_gateway_unusable_ids_total",
        "Packets whose channel or gateway id was replaced by the fixed label.",
        Counter(|c| c.unusable_ids.get()),
        At(&["unusable_ids"]),
    ),
    m(
        "wireseal_gateway_flood_refused_total",
        "Packets refused by the flood guard.",
        Counter(|c| c.flood_refused.get()),
        At(&["flood_refused"]),
    ),
    m(
        "wireseal_gateway_meshcore_messages_total",
        "MQTT messages taken on the MeshCore topics.",
        Counter(|c| c.meshcore.messages.get()),
        At(&["meshcore", "messages"]),
    ),
    m(
        "wireseal_gateway_meshcore_packets_total",
        "MeshCore packets read, by payload type.",
        ByName("payload_type", |c| c.meshcore.packets.iter().collect()),
        At(&["meshcore", "packets"]),
    ),
    m(
        "wireseal_gateway_meshcore_decrypted_total",
        "MeshCore packets a channel key or one of our identities opened, by payload type.",
        ByName("payload_type", |c| c.meshcore.decrypted.iter().collect()),
        At(&["meshcore", "decrypted"]),
    ),
    m(
        "wireseal_gateway_meshcore_dropped_total",
        "MeshCore messages dropped, by reason.",
        ByName("reason", |c| c.meshcore.dropped.iter().collect()),
        At(&["meshcore", "dropped"]),
    ),
    m(
        "wireseal_gateway_meshcore_duplicates_total",
        "Copies of a MeshCore packet already taken from another observer.",
        Counter(|c| c.meshcore.duplicates.get()),
        At(&["meshcore", "duplicates"]),
    ),
    m(
        "wireseal_gateway_meshcore_receptions_total",
        "MeshCore receptions handed to the sinks.",
        Counter(|c| c.meshcore.receptions.get()),
        At(&["meshcore", "receptions"]),
    ),
    m(
        "wireseal_gateway_meshcore_peers",
        "MeshCore peers the decoder knows (keys of verified adverts).",
        Level(|c| c.meshcore.peers.get()),
        At(&["meshcore", "peers"]),
    ),
    m(
        "wireseal_gateway_meshcore_peers_refused_total",
        "Verified MeshCore adverts whose key was not kept: the peer limit is reached.",
        Counter(|c| c.meshcore.peers_refused.get()),
        At(&["meshcore", "peers_refused"]),
    ),
    m(
        "wireseal_gateway_decode_duration_seconds",
        "Time to decode one MQTT message.",
        Seconds(|c| &c.decode_seconds),
        No,
    ),
    m(
        "wireseal_gateway_broker_connected",
        "1 while connected to the broker.",
        Gauge(|h| u64::from(h.connected())),
        No,
    ),
    m(
        "wireseal_gateway_subscribed",
        "1 while the subscription is in place.",
        Gauge(|h| u64::from(h.subscribed())),
        No,
    ),
    m(
        "wireseal_gateway_broker_connects_total",
        "Connections made to the broker.",
        Counter(|c| c.connects.get()),
        At(&["connection", "connects"]),
    ),
    m(
        "wireseal_gateway_broker_connection_errors_total",
        "Failed attempts to reach the broker and connections lost.",
        Counter(|c| c.connection_errors.get()),
        At(&["connection", "errors"]),
    ),
    m(
        "wireseal_gateway_outputs_total",
        "Records written to each output.",
        Family(
            "output",
            &[
                ("json_lines", |c| c.json_lines.get()),
                ("republish", |c| c.republished.get()),
                ("firmware_json", |c| c.firmware_json.get()),
            ],
        ),
        At(&["output"]),
    ),
    m(
        "wireseal_gateway_publish_dropped_total",
        "Publications dropped on a full output queue.",
        Counter(|c| c.publish_dropped.get()),
        At(&["output", "publish_dropped"]),
    ),
    m(
        "wireseal_gateway_output_errors_total",
        "Failures of the output connection.",
        Counter(|c| c.output_errors.get()),
        At(&["output", "errors"]),
    ),
    m(
        "wireseal_gateway_acks_total",
        "Acknowledgements to the broker, by result.",
        Family(
            "result",
            &[
                ("sent", |c| c.acks.get()),
                ("dropped", |c| c.ack_dropped.get()),
                ("closed_connection", |c| c.acks_for_closed_connection.get()),
            ],
        ),
        At(&["acks"]),
    ),
    m(
        "wireseal_gateway_held_messages",
        "Messages taken and not yet acknowledged.",
        Level(|c| c.held.get()),
        At(&["held"]),
    ),
    m(
        "wireseal_gateway_oldest_held_message_age_seconds",
        "Seconds since the oldest message not yet acknowledged was taken (0 while none is held).",
        OldestHeldAge,
        No,
    ),
    m(
        "wireseal_gateway_http_connections_total",
        "Connections to the read side, by admission: full, spare (over the limits: one probe \
         answered) or refused (closed unread).",
        ByName("admission", |c| c.http_connections.iter().collect()),
        At(&["http", "connections"]),
    ),
    m(
        "wireseal_gateway_store_writable",
        "1 while the store takes writes (1 without a store).",
        Gauge(|h| u64::from(h.store_writable())),
        No,
    ),
    m(
        "wireseal_gateway_store_writes_total",
        "Rows the store inserted or completed.",
        Family(
            "table",
            &[
                ("packets", |c| c.stored_packets.get()),
                ("receptions", |c| c.stored_receptions.get()),
                ("meshcore_packets", |c| c.stored_meshcore_packets.get()),
                ("meshcore_receptions", |c| {
                    c.stored_meshcore_receptions.get()
                }),
            ],
        ),
        At(&["store"]),
    ),
    m(
        "wireseal_gateway_store_lag_seconds",
        "Time from a message reaching the store's writer to its commit.",
        Seconds(|c| &c.store_lag_seconds),
        No,
    ),
    m(
        "wireseal_gateway_store_duplicates_total",
        "Receptions already stored.",
        Counter(|c| c.store_duplicates.get()),
        At(&["store", "duplicates"]),
    ),
    m(
        "wireseal_gateway_store_rejected_total",
        "Records the store refused.",
        Counter(|c| c.store_rejected.get()),
        At(&["store", "rejected"]),
    ),
    m(
        "wireseal_gateway_store_capped_total",
        "Fields the store shortened or rewrote.",
        Counter(|c| c.store_capped.get()),
        At(&["store", "capped"]),
    ),
    m(
        "wireseal_gateway_store_unavailable_total",
        "Failed attempts to write to the store.",
        Counter(|c| c.store_unavailable.get()),
        At(&["store", "unavailable"]),
    ),
    m(
        "wireseal_gateway_store_pruned_total",
        "Rows removed by retention.",
        Family(
            "table",
            &[
                ("packets", |c| c.pruned_packets.get()),
                ("receptions", |c| c.pruned_receptions.get()),
            ],
        ),
        Prefixed(&["store"], "pruned_"),
    ),
];

/// Every metric family the gateway exports, by its full name as a scrape
/// shows it (counters with `_total`, histograms without their suffixes).
pub const NAMES: [&str; METRICS.len()] = {
    let mut names = [""; METRICS.len()];
    let mut i = 0;
    while i < METRICS.len() {
        names[i] = METRICS[i].name;
        i += 1;
    }
    names
};

#[derive(Debug)]
struct Gateway {
    counters: Arc<Counters>,
    health: Arc<Health>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn counters_of<'a>(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    label: &str,
    values: impl IntoIterator<Item = (&'a str, u64)>,
) -> fmt::Result {
    let mut m = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (value, v) in values {
        let labels = [(label, value)];
        m.encode_family(&labels)?
            .encode_counter::<NoLabelSet, _, u64>(&v, None)?;
    }
    Ok(())
}

impl Gateway {
    /// Encodes one metric family.
    fn metric(&self, e: &mut DescriptorEncoder, metric: &Metric) -> fmt::Result {
        let (c, h) = (&*self.counters, &*self.health);
        let help = metric.help;
        // prometheus-client adds the suffixes of counters and units itself.
        let base = metric.name.strip_suffix("_total").unwrap_or(metric.name);
        match metric.source {
            Counter(get) => e
                .encode_descriptor(base, help, None, MetricType::Counter)?
                .encode_counter::<NoLabelSet, _, u64>(&get(c), None),
            Level(get) => e
                .encode_descriptor(base, help, None, MetricType::Gauge)?
                .encode_gauge(&get(c)),
            Gauge(get) => e
                .encode_descriptor(base, help, None, MetricType::Gauge)?
                .encode_gauge(&get(h)),
            OldestHeldAge => e
                .encode_descriptor(base, help, None, MetricType::Gauge)?
                .encode_gauge(&c.oldest_held_age(now_ms())),
            ByName(label, get) => counters_of(e, base, help, label, get(c)),
            Family(label, values) => counters_of(
                e,
                base,
                help,
                label,
                values.iter().map(|(n, get)| (*n, get(c))),
            ),
            Seconds(get) => {
                let base = base.strip_suffix("_seconds").unwrap_or(base);
                get(c).encode(e.encode_descriptor(
                    base,
                    help,
                    Some(&Unit::Seconds),
                    MetricType::Histogram,
                )?)
            }
        }
    }
}

impl Collector for Gateway {
    fn encode(&self, mut e: DescriptorEncoder) -> fmt::Result {
        METRICS.iter().try_for_each(|m| self.metric(&mut e, m))
    }
}

impl Source {
    /// The counts of a counter, a level or a family (label value first;
    /// `None` for a single count); nothing for gauges of state and times.
    fn counts(&self, c: &Counters) -> Vec<(Option<&'static str>, u64)> {
        match *self {
            Counter(get) | Level(get) => vec![(None, get(c))],
            ByName(_, get) => get(c).into_iter().map(|(n, v)| (Some(n), v)).collect(),
            Family(_, values) => values.iter().map(|(n, get)| (Some(*n), get(c))).collect(),
            Gauge(_) | OldestHeldAge | Seconds(_) => Vec::new(),
        }
    }
}

/// The object at `path` under `root`, made where missing.
fn object_at<'a>(root: &'a mut Map<String, Value>, path: &[&str]) -> &'a mut Map<String, Value> {
    path.iter().fold(root, |map, key| {
        let slot = map
            .entry((*key).to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        match slot {
            Value::Object(inner) => inner,
            _ => unreachable!("made an object above"),
        }
    })
}

impl Counters {
    /// Every count as one JSON object (what `--stats` and the summary
    /// print), laid out by the metric table: the same counts a scrape
    /// shows, keyed by the library's names.
    pub fn snapshot(&self) -> Value {
        let mut root = Map::new();
        for metric in &METRICS {
            let (path, prefix) = match metric.snap {
                No => continue,
                At(path) => (path, ""),
                Prefixed(path, prefix) => (path, prefix),
            };
            for (label, v) in metric.source.counts(self) {
                match (label, path.split_last()) {
                    (Some(label), _) => {
                        object_at(&mut root, path).insert(format!("{prefix}{label}"), v.into());
                    }
                    (None, Some((key, parents))) => {
                        object_at(&mut root, parents).insert((*key).to_owned(), v.into());
                    }
                    (None, None) => {}
                }
            }
        }
        Value::Object(root)
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

    /// The snapshot's layout, written out here by hand: the table puts
    /// every count where `--stats` readers find it.
    #[test]
    fn the_snapshot_follows_the_table() {
        let c = Counters::default();
        c.messages.add(5);
        c.packets.add(4);
        c.error.bump("wrong_channel_key");
        c.republished.bump();
        c.pruned_receptions.add(2);
        c.stored_meshcore_packets.add(3);
        c.meshcore.peers.set(7);
        c.held.set(1);
        let s = c.snapshot();
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            k.sort();
            k
        };
        assert_eq!(
            keys(&s),
            [
                "acks",
                "connection",
                "control",
                "decryption",
                "error",
                "flood_refused",
                "held",
                "http",
                "identity",
                "key_event",
                "kind",
                "malformed",
                "meshcore",
                "messages",
                "output",
                "oversized",
                "packets",
                "policy",
                "signature",
                "store",
                "unusable_ids"
            ]
        );
        assert_eq!(
            keys(&s["output"]),
            [
                "errors",
                "firmware_json",
                "json_lines",
                "own_output_ignored",
                "publish_dropped",
                "republish"
            ]
        );
        assert_eq!(
            keys(&s["store"]),
            [
                "capped",
                "duplicates",
                "meshcore_packets",
                "meshcore_receptions",
                "packets",
                "pruned_packets",
                "pruned_receptions",
                "receptions",
                "rejected",
                "unavailable"
            ]
        );
        assert_eq!(keys(&s["acks"]), ["closed_connection", "dropped", "sent"]);
        assert_eq!(
            keys(&s["http"]["connections"]),
            ["full", "refused", "spare"]
        );
        assert_eq!(keys(&s["connection"]), ["connects", "errors"]);
        assert_eq!(
            keys(&s["meshcore"]),
            [
                "decrypted",
                "dropped",
                "duplicates",
                "messages",
                "packets",
                "peers",
                "peers_refused",
                "receptions"
            ]
        );
        assert_eq!(
            (s["messages"].as_u64(), s["packets"].as_u64()),
            (Some(5), Some(4))
        );
        assert_eq!(s["error"]["wrong_channel_key"], 1);
        assert_eq!(s["error"]["no_channel"], 0);
        assert_eq!(s["output"]["republish"], 1);
        assert_eq!(s["store"]["pruned_receptions"], 2);
        assert_eq!(s["store"]["meshcore_packets"], 3);
        assert_eq!(
            (s["meshcore"]["peers"].as_u64(), s["held"].as_u64()),
            (Some(7), Some(1))
        );
        assert_eq!(s["meshcore"]["packets"]["grp_txt"], 0);
    }

    #[test]
    fn meshcore_families_by_the_librarys_names() {
        let c = Arc::new(Counters::default());
        c.meshcore.packets.bump("grp_txt");
        c.meshcore.drop_for("reserved_hash_size");
        let text = render(&registry(c, Arc::new(Health::default())));
        for line in [
            "wireseal_gateway_meshcore_packets_total{payload_type=\"grp_txt\"} 1\n",
            "wireseal_gateway_meshcore_packets_total{payload_type=\"advert\"} 0\n",
            "wireseal_gateway_meshcore_dropped_total{reason=\"reserved_hash_size\"} 1\n",
            "wireseal_gateway_store_writes_total{table=\"meshcore_receptions\"} 0\n",
        ] {
            assert!(text.contains(line), "{line}{text}");
        }
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

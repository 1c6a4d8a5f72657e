//! The gateway with `--store`: a persistent MQTT session at QoS 1, each
//! message decoded and handed to the store's writer, and acknowledged only
//! once the batch holding its rows is committed. While the database is away
//! the writer holds what it has (at most `--store-buffer` messages); when
//! full, the gateway stops reading from the broker, which keeps the rest.

use super::store::{Event, Store, StoreUrl, StoreWriter, WriterConfig};
use super::{decode_one, enough, mqtt, report, Args, Retries};
use anyhow::{anyhow, bail, Context, Result};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use wireseal::meshtastic::record::PacketRecord;
use wireseal::meshtastic::Decoder;

/// How often the log repeats that the store is still unavailable at start.
const NOTICE: Duration = Duration::from_secs(60);

/// Opens the store at `url`, creating or migrating its schema; while the
/// database cannot be reached, retries (100 ms doubling to 10 s, said in
/// the log at the first failure and then once a minute) until it can or
/// `stop` is set.
///
/// # Errors
/// A URL that is not a store's, a schema that cannot be used, or `stop`.
pub(super) fn open(url: &str, stop: &AtomicBool) -> Result<Store> {
    let url: StoreUrl = url.parse()?;
    let since = Instant::now();
    let mut wait = Duration::from_millis(100);
    let mut notice: Option<Instant> = None;
    loop {
        match Store::open(&url) {
            Ok(s) => {
                if notice.is_some() {
                    eprintln!(
                        "wireseal gateway: store available after {:.1} s",
                        since.elapsed().as_secs_f64()
                    );
                }
                eprintln!("wireseal gateway: store: {url}");
                return Ok(s);
            }
            Err(e) if e.is_retryable() => {
                if stop.load(Ordering::SeqCst) {
                    bail!("stopped while the store was unavailable: {e}");
                }
                if notice.is_none_or(|t| t.elapsed() >= NOTICE) {
                    notice = Some(Instant::now());
                    eprintln!(
                        "wireseal gateway: store unavailable: {url}: {e}; retrying in {} ms, \
                         failing for {} s (nothing is read from the broker meanwhile)",
                        wait.as_millis(),
                        since.elapsed().as_secs()
                    );
                }
                let end = Instant::now() + wait;
                while Instant::now() < end && !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                wait = (wait * 2).min(Duration::from_secs(10));
            }
            Err(e) => return Err(anyhow!(e)).context(format!("--store {url}")),
        }
    }
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Counts what a writer's event says.
fn count(stats: &mut report::Stats, s: &super::store::Committed) {
    stats.add("stored_packets", s.packets);
    stats.add("stored_receptions", s.receptions);
    stats.add("store_duplicates", s.duplicates);
    stats.add("store_rejected", s.rejected.len() as u64);
    stats.add("store_capped", s.capped);
}

/// Runs the gateway with `store` until SIGINT or `--max-packets` (then
/// commits and acknowledges what it holds, exit 0), `--max-retries`, or an
/// error of the store that retrying cannot mend (exit 1).
pub(super) async fn drive(
    a: &Args,
    mut decoder: Decoder,
    settings: mqtt::Settings,
    filter: String,
    stop: Arc<AtomicBool>,
    store: Store,
) -> Result<()> {
    let buffer = a.store_buffer.max(1);
    let cfg = WriterConfig {
        buffer,
        max_batch: buffer.min(WriterConfig::default().max_batch),
        ..WriterConfig::default()
    };
    // Each token names the connection its message came on: an
    // acknowledgement due on a connection that has closed is not sent on
    // the next (the broker delivers that message again; a broker that lost
    // the session may have given its packet id to another message).
    let mut connection = 0u64;
    let mut writer: StoreWriter<Option<(mqtt::Ack, u64)>> =
        StoreWriter::start(store, cfg).context("starting the store's thread")?;
    let mut client = mqtt::Client::new(&settings);
    let mut stats = report::Stats::default();
    let mut log = report::Log::default();
    let mut retries = Retries::default();
    let to = format!("{}:{}", settings.endpoint.host, settings.endpoint.port);
    let start = Instant::now();
    let mut backoff = Duration::from_millis(100);
    let period = Duration::from_secs(a.stats.unwrap_or(1).max(1));
    let mut next_stats = a.stats.map(|_| Instant::now() + period);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut line = Vec::with_capacity(512);
    let mut ticker = tokio::time::interval(Duration::from_millis(200));
    let mut closing = false;
    loop {
        if !closing && (stop.load(Ordering::SeqCst) || enough(a, &stats)) {
            writer.close();
            closing = true;
        }
        if let Some(t) = next_stats.filter(|t| Instant::now() >= *t) {
            out.flush()?;
            stats.set("store_held", writer.held() as u64);
            eprintln!("{}", serde_json::json!({ "stats": stats.to_json() }));
            next_stats = Some(t + period);
        }
        tokio::select! {
            ev = client.poll(), if !closing && writer.has_room() => match ev {
                Ok(mqtt::Incoming::Connected) => {
                    connection += 1;
                    backoff = Duration::from_millis(100);
                    retries.connected(&to);
                    client.subscribe(&filter, true)?;
                    eprintln!("wireseal gateway: connected to {to}");
                }
                Ok(mqtt::Incoming::Subscribed { granted }) => {
                    super::subscribed(granted, &filter, " at QoS 1")?;
                }
                Ok(mqtt::Incoming::Publish { topic, payload, ack }) => {
                    let now = start.elapsed().as_millis() as u64;
                    let d = decode_one(&mut decoder, &mut stats, &mut log, now, &topic, &payload);
                    let record = d.as_ref().map(|d| {
                        super::store::ingest::record(&decoder, d, &topic, unix_ms())
                    });
                    if let Some(d) = d.as_ref().filter(|_| a.json || a.publish.is_some()) {
                        line.clear();
                        PacketRecord::new(&decoder, d).write_json(&mut line);
                        if a.json {
                            out.write_all(&line)?;
                            out.write_all(b"\n")?;
                        }
                        if let Some(p) = &a.publish {
                            let topic = format!("{p}/{}/!{:08x}", d.channel_id, d.from);
                            if !client.publish(&topic, line.clone()) {
                                stats.bump("publish_dropped");
                            }
                        }
                    }
                    if writer.push(record, ack.map(|a| (a, connection))).is_err() {
                        // has_room() said yes, so the writer has stopped;
                        // its event says why.
                        stats.bump("store_refused");
                    }
                }
                Ok(mqtt::Incoming::Other | mqtt::Incoming::Disconnected) => {}
                Err(why) => {
                    out.flush()?;
                    retries.connection_failed(&why, &to, a.max_retries, backoff, &mut log, &mut stats)?;
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(10));
                }
            },
            e = writer.next_event() => match e {
                Some(Event::Committed { acks, summary }) => {
                    count(&mut stats, &summary);
                    for r in &summary.rejected {
                        log.line("store-rejected", &format!("a message was not stored: {}", r.reason));
                    }
                    for (t, on) in acks.into_iter().flatten() {
                        if on != connection {
                            stats.bump("acks_for_closed_connection");
                        } else if !client.ack(t) {
                            stats.bump("ack_dropped");
                        }
                    }
                }
                Some(ev @ Event::Unavailable { .. }) => {
                    stats.bump("store_unavailable");
                    let held = writer.held();
                    log.line("store", &format!("store unavailable: {ev}"));
                    if closing && stop.load(Ordering::SeqCst) {
                        eprintln!(
                            "wireseal gateway: store: stopping with {held} messages not stored and \
                             not acknowledged; the broker delivers them again to the next session \
                             with this --client-id"
                        );
                        break;
                    }
                }
                Some(ev @ Event::Restored { .. }) => eprintln!("wireseal gateway: store: {ev}"),
                Some(ev @ Event::Stopped { .. }) => {
                    out.flush()?;
                    eprintln!("{}", serde_json::json!({ "summary": stats.to_json() }));
                    bail!("{ev}");
                }
                None => break,
            },
            _ = ticker.tick() => out.flush()?,
        }
    }
    out.flush()?;
    stats.set("store_held", writer.held() as u64);
    drop(writer);
    // The acknowledgements queued go out before the disconnection.
    if client.disconnect() {
        let end = Instant::now() + Duration::from_secs(5);
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match tokio::time::timeout(left, client.poll()).await {
                Ok(Ok(mqtt::Incoming::Disconnected)) | Ok(Err(_)) | Err(_) => break,
                Ok(Ok(_)) => {}
            }
        }
    }
    eprintln!("{}", serde_json::json!({ "summary": stats.to_json() }));
    Ok(())
}

//! `wireseal meshtastic gateway`: decode a live Meshtastic MQTT feed
//! (channel packets, PKC direct messages to our node, XEdDSA signatures and
//! the firmware's signature policy) and write one JSON object per packet.
//! The decoding and the record are the library's
//! ([`wireseal::meshtastic::Decoder`],
//! [`wireseal::meshtastic::record::PacketRecord`]); this module owns the
//! broker connection, time, signals and output. See docs/gateway.md.

pub mod decode;
mod mqtt;
mod report;
pub mod setup;
pub mod store;
mod stored;
mod tls;

use anyhow::{bail, Context, Result};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wireseal::meshtastic::decoder::KeyEvent;
use wireseal::meshtastic::record::PacketRecord;
use wireseal::meshtastic::{Decoder, ReplayWindow};

/// How often the log says that the gateway is still retrying.
const RETRY_NOTICE: Duration = Duration::from_secs(60);

/// Arguments of `wireseal meshtastic gateway`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The broker: mqtt://HOST[:PORT] (1883) or mqtts://HOST[:PORT] (8883, TLS).
    #[arg(long, value_name = "URL")]
    broker: String,
    /// PEM file of the CA certificates that sign the broker's certificate (mqtts://; default: the system's roots).
    #[arg(long, value_name = "FILE")]
    ca_file: Option<std::path::PathBuf>,
    /// PEM client certificate chain, for brokers that require one (mqtts://; needs --client-key).
    #[arg(long, value_name = "FILE", requires = "client_key")]
    client_cert: Option<std::path::PathBuf>,
    /// PEM private key of --client-cert (read capped at 64 KiB; neither its path nor contents are shown).
    #[arg(long, value_name = "FILE", requires = "client_cert")]
    client_key: Option<std::path::PathBuf>,
    /// MQTT protocol version.
    #[arg(long, value_enum, default_value = "3")]
    mqtt_version: mqtt::Version,
    /// Topic filter to subscribe to (msh/# includes the PKI topics of direct messages).
    #[arg(long, default_value = "msh/#")]
    topic: String,
    /// Subscribe as $share/GROUP/<topic>, so gateways in one group split the feed.
    #[arg(long, value_name = "GROUP")]
    shared: Option<String>,
    /// Also publish each JSON object under PREFIX/<channel_id>/<!from>.
    #[arg(long, value_name = "PREFIX")]
    publish: Option<String>,
    /// Channels, our node and key, signature policy.
    #[command(flatten)]
    decoder: setup::DecoderArgs,
    /// MQTT username.
    #[arg(long, value_name = "NAME", conflicts_with = "username_env")]
    username: Option<String>,
    /// MQTT username from this environment variable.
    #[arg(long, value_name = "VAR")]
    username_env: Option<String>,
    /// MQTT password from this file.
    #[arg(long, value_name = "FILE", conflicts_with = "password_env")]
    password_file: Option<std::path::PathBuf>,
    /// MQTT password from this environment variable.
    #[arg(long, value_name = "VAR")]
    password_env: Option<String>,
    /// Print counts per outcome to stderr every SECONDS.
    #[arg(long, value_name = "SECONDS")]
    stats: Option<u64>,
    /// Refuse (sender, id) pairs already seen (also drops copies of one packet from several gateways).
    #[arg(long)]
    replay_window: bool,
    /// Stop after this many packets (for scripts and tests).
    #[arg(long, value_name = "N")]
    max_packets: Option<u64>,
    /// Give up (exit 1) after N failed attempts in a row to reach the broker (default: retry without limit, said in the log every minute).
    #[arg(long, value_name = "N")]
    max_retries: Option<u64>,
    /// Store every packet and reception in a database: sqlite:PATH (or a bare path), postgres://… or postgresql://… (needs --client-id). Messages are taken at QoS 1 and acknowledged once stored.
    #[arg(long, value_name = "URL", requires = "client_id")]
    store: Option<String>,
    /// With --store: messages received and not yet committed held at most; when full the gateway stops reading from the broker.
    #[arg(long, value_name = "N", default_value = "40000", requires = "store")]
    store_buffer: usize,
    /// With --store: also write the JSON lines to stdout.
    #[arg(long, requires = "store")]
    json: bool,
    /// MQTT client id (default: a fresh one per run). With --store, the same id across restarts resumes the broker's session, so what was not stored is delivered again.
    #[arg(long, value_name = "ID")]
    client_id: Option<String>,
}

fn credentials(a: &Args) -> Result<Option<(String, String)>> {
    let user = match (&a.username, &a.username_env) {
        (Some(u), _) => Some(u.clone()),
        (None, Some(v)) => {
            Some(std::env::var(v).with_context(|| format!("environment variable {v} is not set"))?)
        }
        (None, None) => None,
    };
    let pass = match (&a.password_file, &a.password_env) {
        (None, None) => None,
        (f, v) => Some(crate::util::secret::read_secret_text(
            None,
            f.as_deref(),
            v.as_deref(),
            ["--password", "--password-file", "--password-env"],
        )?),
    };
    Ok(match (user, pass) {
        (None, None) => None,
        (Some(u), p) => Some((u, p.map(|p| p.to_string()).unwrap_or_default())),
        (None, Some(_)) => bail!("an MQTT password needs --username or --username-env"),
    })
}

/// Runs the gateway until SIGINT (exit 0 with a summary), `--max-packets`,
/// or `--max-retries` failed connection attempts (exit 1).
pub fn run(a: Args) -> Result<()> {
    let mut decoder = a.decoder.decoder()?;
    if a.replay_window {
        decoder = decoder.with_replay_window(ReplayWindow::default());
    }
    let endpoint = mqtt::Endpoint::parse(&a.broker)?;
    let files = tls::Files {
        ca: a.ca_file.as_deref(),
        client_cert: a.client_cert.as_deref(),
        client_key: a.client_key.as_deref(),
    };
    let tls = match (endpoint.tls, files.any()) {
        (true, _) => Some(tls::client_config(files)?),
        (false, true) => bail!("--ca-file, --client-cert and --client-key need an mqtts:// broker"),
        (false, false) => None,
    };
    let filter = match &a.shared {
        Some(g) if g.is_empty() || g.contains(['/', '+', '#']) => {
            bail!("--shared: a group name without '/', '+' or '#'")
        }
        Some(g) => format!("$share/{g}/{}", a.topic),
        None => a.topic.clone(),
    };
    let settings = mqtt::Settings {
        endpoint,
        version: a.mqtt_version,
        client_id: match &a.client_id {
            Some(id) if id.is_empty() || id.len() > 256 => {
                bail!("--client-id: 1 to 256 bytes")
            }
            Some(id) => id.clone(),
            None => format!(
                "wireseal-gw-{}-{:08x}",
                std::process::id(),
                u32::from_le_bytes(wireseal::entropy::random_array())
            ),
        },
        credentials: credentials(&a)?,
        max_packet: 1 << 20,
        tls,
        persistent: a.store.is_some().then_some(a.store_buffer.max(1)),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    ctrlc::set_handler(move || s.store(true, Ordering::SeqCst))
        .context("installing the SIGINT handler")?;
    if let Some(url) = &a.store {
        // Opened before the runtime: the PostgreSQL store runs its own.
        let store = stored::open(url, &stop)?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        return rt.block_on(stored::drive(&a, decoder, settings, filter, stop, store));
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(drive(a, decoder, settings, filter, stop))
}

/// Decodes one message: counts it, logs what deserves a line, and returns
/// the decoded packet (`None` for an envelope that does not parse).
fn decode_one(
    decoder: &mut Decoder,
    stats: &mut report::Stats,
    log: &mut report::Log,
    now: u64,
    topic: &str,
    payload: &[u8],
) -> Option<wireseal::meshtastic::decoder::Decoded> {
    match decoder.decode(now, payload) {
        Ok(d) => {
            stats.record(&d);
            if let Some(KeyEvent::Conflict { node, .. }) = d.key_event {
                log.line(
                    "key-conflict",
                    &format!("node !{node:08x} announced a key other than its pinned one (kept the pinned key)"),
                );
            }
            if let Some(e) = d.error {
                if !matches!(e.reason(), "pkc-not-for-us" | "replay") {
                    log.line(
                        e.reason(),
                        &format!("packet {:#010x} from !{:08x} on {topic}", d.id, d.from),
                    );
                }
            }
            Some(d)
        }
        Err(e) => {
            let kind = if matches!(e, wireseal::meshtastic::Error::TooLong { .. }) {
                "oversized"
            } else {
                "malformed"
            };
            stats.bump(kind);
            log.line(kind, &format!("{} bytes on {topic}: {e}", payload.len()));
            None
        }
    }
}

/// Whether `--max-packets` is reached.
/// Reports the broker's answer to our subscription: from now on messages
/// published to `filter` reach the gateway. A refused subscription ends the
/// run (nothing would ever arrive).
///
/// # Errors
/// When the broker refused the subscription.
fn subscribed(granted: bool, filter: &str, qos: &str) -> Result<()> {
    if !granted {
        bail!("the broker refused the subscription to {filter}{qos}");
    }
    eprintln!("wireseal gateway: subscribed to {filter}{qos}");
    Ok(())
}

fn enough(a: &Args, stats: &report::Stats) -> bool {
    a.max_packets.is_some_and(|m| {
        stats.get("packets") + stats.get("malformed") + stats.get("oversized") >= m
    })
}

/// Failed attempts to reach the broker since the last connection.
#[derive(Debug, Default)]
struct Retries {
    attempts: u64,
    since: Option<Instant>,
    last_notice: Option<Instant>,
}

impl Retries {
    /// Records a failure. Returns whether it printed the retry notice (the
    /// first failure, then once a minute), or an error once `max` attempts
    /// failed.
    fn failed(&mut self, why: &str, to: &str, max: Option<u64>, wait: Duration) -> Result<bool> {
        let now = Instant::now();
        self.attempts += 1;
        let since = *self.since.get_or_insert(now);
        if max.is_some_and(|m| self.attempts >= m) {
            bail!(
                "gave up after {} failed attempt(s) to reach the broker at {to}: {why}",
                self.attempts
            );
        }
        let limit = match max {
            Some(m) => format!("attempt {} of {m}", self.attempts),
            None => format!(
                "attempt {}, no retry limit (--max-retries N gives up)",
                self.attempts
            ),
        };
        let due = self
            .last_notice
            .is_none_or(|t| now.duration_since(t) >= RETRY_NOTICE);
        if due {
            self.last_notice = Some(now);
            let waited = now.duration_since(since).as_secs();
            eprintln!(
                "wireseal gateway: connection: cannot reach the broker at {to} ({why}); \
                 retrying in {} ms, {limit}, failing for {waited} s",
                wait.as_millis()
            );
        }
        Ok(due)
    }

    /// A failed connection, as both loops handle it: counted, logged in
    /// words with the wait before the next attempt, or, past `max`, the
    /// run's summary printed and the error returned.
    fn connection_failed(
        &mut self,
        why: &str,
        to: &str,
        max: Option<u64>,
        wait: Duration,
        log: &mut report::Log,
        stats: &mut report::Stats,
    ) -> Result<()> {
        stats.bump("connection_errors");
        match self.failed(why, to, max, wait) {
            Ok(true) => {}
            Ok(false) => log.line(
                "connection",
                &format!("{why}; retrying in {} ms", wait.as_millis()),
            ),
            Err(e) => {
                eprintln!("{}", serde_json::json!({ "summary": stats.to_json() }));
                return Err(e);
            }
        }
        Ok(())
    }

    /// Connected again: says after how many attempts, and starts over.
    fn connected(&mut self, to: &str) {
        if self.attempts > 0 {
            eprintln!(
                "wireseal gateway: connection: reached the broker at {to} after {} failed attempt(s)",
                self.attempts
            );
        }
        *self = Retries::default();
    }
}

async fn drive(
    a: Args,
    mut decoder: Decoder,
    settings: mqtt::Settings,
    filter: String,
    stop: Arc<AtomicBool>,
) -> Result<()> {
    let mut client = mqtt::Client::new(&settings);
    let mut stats = report::Stats::default();
    let mut log = report::Log::default();
    let mut retries = Retries::default();
    let to = format!("{}:{}", settings.endpoint.host, settings.endpoint.port);
    let start = Instant::now();
    let mut backoff = Duration::from_millis(100);
    let mut next_stats = a
        .stats
        .map(|s| Instant::now() + Duration::from_secs(s.max(1)));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut line = Vec::with_capacity(512);
    let mut ticker = tokio::time::interval(Duration::from_millis(200));
    loop {
        if stop.load(Ordering::SeqCst) || enough(&a, &stats) {
            break;
        }
        if let Some(t) = next_stats {
            if Instant::now() >= t {
                out.flush()?;
                eprintln!("{}", serde_json::json!({ "stats": stats.to_json() }));
                next_stats = Some(t + Duration::from_secs(a.stats.unwrap_or(1).max(1)));
            }
        }
        let ev = tokio::select! {
            ev = client.poll() => ev,
            _ = ticker.tick() => { out.flush()?; continue; }
        };
        match ev {
            Ok(mqtt::Incoming::Connected) => {
                backoff = Duration::from_millis(100);
                retries.connected(&to);
                client.subscribe(&filter, false)?;
                eprintln!("wireseal gateway: connected to {to}");
            }
            Ok(mqtt::Incoming::Subscribed { granted }) => subscribed(granted, &filter, "")?,
            Ok(mqtt::Incoming::Publish { topic, payload, .. }) => {
                let now = start.elapsed().as_millis() as u64;
                let decoded = decode_one(&mut decoder, &mut stats, &mut log, now, &topic, &payload);
                if let Some(d) = decoded {
                    line.clear();
                    PacketRecord::new(&decoder, &d).write_json(&mut line);
                    line.push(b'\n');
                    out.write_all(&line)?;
                    if let Some(p) = &a.publish {
                        line.pop();
                        let topic = format!("{p}/{}/!{:08x}", d.channel_id, d.from);
                        if !client.publish(&topic, line.clone()) {
                            stats.bump("publish_dropped");
                        }
                    }
                }
            }
            Ok(mqtt::Incoming::Other | mqtt::Incoming::Disconnected) => {}
            Err(why) => {
                out.flush()?;
                retries.connection_failed(
                    &why,
                    &to,
                    a.max_retries,
                    backoff,
                    &mut log,
                    &mut stats,
                )?;
                let sleep = tokio::time::sleep(backoff);
                tokio::pin!(sleep);
                loop {
                    tokio::select! {
                        _ = &mut sleep => break,
                        _ = tokio::time::sleep(Duration::from_millis(50)) => if stop.load(Ordering::SeqCst) { break },
                    }
                }
                backoff = (backoff * 2).min(Duration::from_secs(10));
            }
        }
    }
    out.flush()?;
    eprintln!("{}", serde_json::json!({ "summary": stats.to_json() }));
    Ok(())
}

//! [`Gateway`]: the settings checked and prepared, the sinks, the listeners,
//! and [`Gateway::run`], which opens the store, connects and runs the one
//! event loop ([`crate::event_loop`]) until it is stopped.

use crate::announce::{Announcer, Listener};
use crate::config::{Config, ConfigError, FirmwareRoot, MqttVersion};
use crate::counters::Counters;
use crate::event::Event;
use crate::event_loop::Parts;
use crate::flood::FloodLimits;
use crate::log::{Log, LogTarget};
use crate::page::TileUrl;
use crate::prepared::Prepared;
use crate::run_error::RunError;
use crate::sink::{FirmwareJson, JsonLines, Republish, Sink, StoreSink};
use crate::stop::Stop;
use crate::store::{Retention, Store, StoreUrl, WriterConfig};
use crate::{keys, mqtt, setup, tls};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wireseal::meshtastic::untrusted::safe_level;

/// The gateway: build it from settings, add sinks and listeners, run it.
pub struct Gateway {
    prepared: Prepared,
    sinks: Vec<Box<dyn Sink>>,
    announce: Announcer,
    counters: Arc<Counters>,
    health: Arc<crate::health::Health>,
    stop: Stop,
    notes: Vec<String>,
}

/// Checks a topic prefix: levels without wildcards or control characters.
fn prefix(setting: &'static str, p: &str) -> Result<String, ConfigError> {
    let p = p.trim_end_matches('/');
    if p.is_empty() || p.split('/').any(|l| safe_level(l).is_err()) {
        return Err(ConfigError::new(
            setting,
            format!(
                "{p:?}: topic levels without '+', '#', '$' at the start, or control characters"
            ),
        ));
    }
    Ok(p.to_owned())
}

fn credentials(c: &Config) -> Result<Option<(String, String)>, ConfigError> {
    let user = match (&c.username, &c.username_env) {
        (Some(u), _) => Some(u.clone()),
        (None, Some(v)) => Some(
            std::env::var(v)
                .map_err(|_| ConfigError::new("username-env", format!("{v} is not set")))?,
        ),
        (None, None) => None,
    };
    let pass = keys::secret_text(
        c.password_file.as_deref(),
        c.password_env.as_deref(),
        "password-file",
    )?;
    match (user, pass) {
        (None, None) => Ok(None),
        (Some(u), p) => Ok(Some((u, p.map(|p| p.to_string()).unwrap_or_default()))),
        (None, Some(_)) => Err(ConfigError::new(
            "password-file",
            "an MQTT password needs --username or --username-env",
        )),
    }
}

/// The store's URL, checked: a SQLite file in a directory that exists.
fn store_url(u: &StoreUrl) -> Result<StoreUrl, ConfigError> {
    if let StoreUrl::Sqlite(p) = u {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        if !dir.is_dir() {
            return Err(ConfigError::new(
                "store",
                format!(
                    "sqlite:{}: the directory {} does not exist",
                    p.display(),
                    dir.display()
                ),
            ));
        }
    }
    Ok(u.clone())
}

/// The broker's settings: its URL, TLS, the client id and credentials.
fn broker_settings(c: &Config, store: Option<&StoreUrl>) -> Result<mqtt::Settings, ConfigError> {
    let endpoint = c.broker.clone().ok_or_else(|| {
        ConfigError::new(
            "broker",
            "required: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]",
        )
    })?;
    let files = tls::Files {
        ca: c.ca_file.as_deref(),
        client_cert: c.client_cert.as_deref(),
        client_key: c.client_key.as_deref(),
    };
    let tls = match (endpoint.tls, files.any()) {
        (true, _) => Some(tls::client_config(files)?),
        (false, true) => {
            return Err(ConfigError::new(
                "ca-file",
                "--ca-file, --client-cert and --client-key need an mqtts:// broker",
            ))
        }
        (false, false) => None,
    };
    Ok(mqtt::Settings {
        endpoint,
        version: c.mqtt_version.unwrap_or(MqttVersion::V311),
        client_id: client_id(c, store)?,
        credentials: credentials(c)?,
        max_packet: 1 << 20,
        tls,
        persistent: None,
    })
}

/// The topic filters: Meshtastic's, then the MeshCore feeds', each shared
/// in a group when `shared` names one.
fn filters(c: &Config) -> Result<Vec<String>, ConfigError> {
    let topic = c.topic.clone().unwrap_or_else(|| "msh/#".into());
    let group = match &c.shared {
        Some(g) if g.is_empty() || g.contains(['/', '+', '#']) => {
            return Err(ConfigError::new(
                "shared",
                "a group name without '/', '+' or '#'",
            ))
        }
        g => g.as_deref(),
    };
    Ok(std::iter::once(&topic)
        .chain(&c.meshcore_topic)
        .map(|f| crate::meshcore::topics::subscription(f, group))
        .collect())
}

/// The MQTT client id: the one given (needed with a store, whose session
/// resumes across restarts), or a random one.
fn client_id(c: &Config, store: Option<&StoreUrl>) -> Result<String, ConfigError> {
    match (&c.client_id, store) {
        (Some(id), _) if id.is_empty() || id.len() > 256 => {
            Err(ConfigError::new("client-id", "1 to 256 bytes"))
        }
        (Some(id), _) => Ok(id.clone()),
        (None, Some(_)) => Err(ConfigError::new(
            "store",
            "needs --client-id: the same id across restarts resumes the broker's session",
        )),
        (None, None) => Ok(format!(
            "wireseal-gw-{}-{:08x}",
            std::process::id(),
            u32::from_le_bytes(wireseal::entropy::random_array())
        )),
    }
}

/// The store writer's settings: the buffer and the retention.
fn writer(c: &Config, store: Option<&StoreUrl>) -> Result<WriterConfig, ConfigError> {
    let buffer = c.store_buffer.unwrap_or(40_000).max(1);
    let retention = c.retain.map(Retention::keep);
    if retention.is_some() && store.is_none() {
        return Err(ConfigError::new("retain", "needs --store"));
    }
    Ok(WriterConfig {
        buffer,
        max_batch: buffer.min(WriterConfig::default().max_batch),
        retention,
        ..WriterConfig::default()
    })
}

/// The copies window and the flood guard's limits.
fn guards(c: &Config) -> Result<(Duration, FloodLimits), ConfigError> {
    let dedup_window = c.dedup_window.unwrap_or(Duration::from_secs(600));
    let rate = c.flood_rate.unwrap_or(10.0);
    if !rate.is_finite() || rate < 0.0 {
        return Err(ConfigError::new(
            "flood-rate",
            "a number of messages per second, 0 for no limit",
        ));
    }
    let flood = FloodLimits {
        rate,
        burst: c.flood_burst.unwrap_or(100).max(1),
        ..FloodLimits::default()
    };
    Ok((dedup_window, flood))
}

/// The status page's tile server: only with the page (`http`).
fn tiles(c: &Config) -> Result<Option<TileUrl>, ConfigError> {
    match (&c.map_tiles, c.http) {
        (Some(_), None) => Err(ConfigError::new(
            "map-tiles",
            "the tiles are for the status page: give --http too",
        )),
        (tiles, _) => Ok(tiles.clone()),
    }
}

/// Every setting checked and prepared; the notes to log at start.
fn prepare(c: &Config) -> Result<(Prepared, Vec<String>), ConfigError> {
    let store = c.store.as_ref().map(store_url).transpose()?;
    let mqtt = broker_settings(c, store.as_ref())?;
    let (dedup_window, flood) = guards(c)?;
    let (decoder, notes) = setup::decoder(c)?;
    let meshcore = setup::meshcore(c)?;
    let firmware_root = match &c.firmware_json {
        Some(FirmwareRoot::Fixed(r)) => Some(FirmwareRoot::Fixed(prefix("firmware-json", r)?)),
        other => other.clone(),
    };
    let prepared = Prepared {
        mqtt,
        filters: filters(c)?,
        decoder,
        meshcore,
        print_records: c.print_records.unwrap_or(store.is_none()),
        writer: writer(c, store.as_ref())?,
        store,
        publish: c
            .publish
            .as_deref()
            .map(|p| prefix("publish", p))
            .transpose()?,
        firmware_root,
        stats: c.stats.map(|s| Duration::from_secs(s.max(1))),
        max_packets: c.max_packets,
        max_retries: c.max_retries,
        dedup_window,
        flood,
        http: c.http,
        map_tiles: tiles(c)?,
    };
    Ok((prepared, notes))
}

impl Gateway {
    /// Checks `config` and prepares everything that can fail before the
    /// first connection: the decoder (channels, keys), TLS files, the store's
    /// URL, credentials.
    ///
    /// # Errors
    /// The first setting that cannot be used, by name.
    pub fn new(config: Config) -> Result<Self, ConfigError> {
        let (prepared, notes) = prepare(&config)?;
        // The probes' state follows every event, before any other listener
        // hears of it.
        let health = Arc::new(crate::health::Health::default());
        let observer = health.clone();
        let listeners: Vec<Listener> = vec![Box::new(move |e: &Event| observer.observe(e))];
        Ok(Self {
            prepared,
            sinks: Vec::new(),
            announce: Announcer {
                listeners,
                log: Log::new(LogTarget::Stderr),
            },
            counters: Arc::new(Counters::default()),
            health,
            stop: Stop::default(),
            notes,
        })
    }

    /// Adds a sink of the caller's (after the gateway's own).
    pub fn add_sink(&mut self, sink: Box<dyn Sink>) {
        self.sinks.push(sink);
    }

    /// Calls `f` with every event, on the gateway's thread (keep it short:
    /// send it on a channel).
    pub fn on_event(&mut self, f: impl Fn(&Event) + Send + Sync + 'static) {
        self.announce.listeners.push(Box::new(f));
    }

    /// The events on a channel.
    pub fn events(&mut self) -> std::sync::mpsc::Receiver<Event> {
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        self.on_event(move |e| {
            if let Ok(tx) = tx.lock() {
                let _ = tx.send(e.clone());
            }
        });
        rx
    }

    /// Where the log goes (standard error by default).
    pub fn log_to(&mut self, target: LogTarget) {
        self.announce.log = Log::new(target);
    }

    /// The handle that stops the gateway.
    pub fn stop_handle(&self) -> Stop {
        self.stop.clone()
    }

    /// The counts, readable while it runs.
    pub fn counters(&self) -> Arc<Counters> {
        self.counters.clone()
    }

    /// Runs until stopped ([`Stop`]), `max-packets` messages, `max-retries`
    /// failed attempts, a fatal store error, or a closed output; returns the
    /// counts (also printed to the log as `{"summary": …}`).
    ///
    /// # Errors
    /// See [`RunError`].
    pub fn run(mut self) -> Result<serde_json::Value, RunError> {
        for n in std::mem::take(&mut self.notes) {
            self.announce.log.always(&format!("note: {n}"));
        }
        // The one runtime: the event loop, the output connection, the read
        // side's server and PostgreSQL's connection are tasks on its two
        // workers, so a probe never waits behind the loop. The loop is a
        // task rather than this thread's `block_on`: a worker that polls
        // the sockets runs it straight away, where waking this thread for
        // every readiness took a futex round trip per message (about 40 %
        // more of the gateway's CPU per message, docs/gateway.md).
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("wireseal-gateway")
            // The blocking threads run the read side's SQLite queries (at
            // most this many at once) and name lookups when connecting.
            // Capped, a burst of API requests reuses the same threads
            // instead of starting new ones, each with an allocator arena
            // of its own that keeps its memory: 50 page-like clients added
            // 25-28 MiB of RSS uncapped and 18-19 MiB capped.
            .max_blocking_threads(crate::http::API_AT_ONCE)
            .enable_all()
            .build()
            .map_err(RunError::Runtime)?;
        // Served until `run` returns (dropping it stops it).
        let _http = self.serve_http(rt.handle())?;
        let store = match self.prepared.store.clone() {
            Some(url) => match self.open_store(&url, rt.handle())? {
                Some(s) => Some(s),
                None => return Ok(self.summary()),
            },
            None => None,
        };
        let mut own: Vec<Box<dyn Sink>> = Vec::new();
        if let Some(s) = store {
            own.push(Box::new(StoreSink::new(
                s,
                self.prepared.writer.clone(),
                self.counters.clone(),
            )));
        }
        if self.prepared.print_records {
            own.push(Box::new(JsonLines::stdout()));
        }
        if let Some(p) = self.prepared.publish.clone() {
            own.push(Box::new(Republish::new(p)));
        }
        if let Some(r) = self.prepared.firmware_root.clone() {
            own.push(Box::new(FirmwareJson::new(r)));
        }
        own.append(&mut self.sinks);
        self.sinks = own;
        if self.sinks.iter().any(|s| s.durable()) {
            self.prepared.mqtt.persistent = Some(self.prepared.writer.buffer);
        }
        let ingest = rt.spawn(crate::event_loop::run(Parts {
            prepared: self.prepared,
            sinks: self.sinks,
            announce: self.announce,
            counters: self.counters,
            stop: self.stop,
        }));
        match rt.block_on(ingest) {
            Ok(result) => result,
            // The runtime outlives the wait, so the task cannot have been
            // cancelled: it panicked, and the panic goes on here.
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }

    /// Starts the read side when `--http` asks for it.
    fn serve_http(
        &mut self,
        runtime: &tokio::runtime::Handle,
    ) -> Result<Option<crate::http::Server>, RunError> {
        let Some(addr) = self.prepared.http else {
            return Ok(None);
        };
        let state = crate::http::State {
            counters: self.counters.clone(),
            health: self.health.clone(),
            registry: crate::metrics::registry(self.counters.clone(), self.health.clone()),
            page: crate::page::Page::new(self.prepared.map_tiles.as_ref()),
            reader: self
                .prepared
                .store
                .as_ref()
                .map(|u| Arc::new(crate::api::reader::Reader::new(u))),
        };
        let server = crate::http::Server::start_on(addr, state, runtime)
            .map_err(|source| RunError::Http { addr, source })?;
        self.announce.emit(Event::HttpListening {
            addr: server.addr(),
        });
        Ok(Some(server))
    }

    /// Opens the store, waiting while it cannot be reached (and only then);
    /// `None` when stopped meanwhile.
    fn open_store(
        &mut self,
        url: &StoreUrl,
        runtime: &tokio::runtime::Handle,
    ) -> Result<Option<Store>, RunError> {
        let mut backoff = crate::retry::Backoff::default();
        loop {
            match Store::open_on(url, runtime) {
                Ok(s) => {
                    self.announce.emit(Event::StoreOpened {
                        store: url.to_string(),
                    });
                    return Ok(Some(s));
                }
                Err(e) if e.is_retryable() => {
                    let f = backoff.failed();
                    if f.notice {
                        self.announce.emit(Event::StoreWaiting {
                            store: url.to_string(),
                            reason: e.to_string(),
                            retry_in: f.wait,
                            failing_for: f.failing_for,
                        });
                    }
                    let end = Instant::now() + f.wait;
                    while Instant::now() < end {
                        if self.stop.requested() {
                            return Ok(None);
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
                Err(e) => return Err(RunError::Store(e)),
            }
        }
    }

    /// The counts, also written to the log as `{"summary": …}`.
    pub(crate) fn summary(&mut self) -> serde_json::Value {
        let s = self.counters.snapshot();
        self.announce
            .log
            .raw(&serde_json::json!({ "summary": s }).to_string());
        s
    }
}

//! The one event loop: it waits for the next event (a message or a
//! connection change from the broker, a durable sink's notice, the end of a
//! back-off, a stop, a tick) and hands it to [`Ingest`]'s step for it; then
//! it disconnects in order. The broker connection, back-off, statistics,
//! stopping and the acknowledgement order live in [`Ingest`].

use crate::announce::Announcer;
use crate::counters::Counters;
use crate::ingest::{Ingest, Step};
use crate::mqtt;
use crate::prepared::Prepared;
use crate::run_error::RunError;
use crate::sink::{Notice, Sink};
use crate::stop::Stop;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the loop runs with: the settings prepared, the sinks in order, and
/// where events, counts and stops go.
pub(crate) struct Parts {
    pub prepared: Prepared,
    pub sinks: Vec<Box<dyn Sink>>,
    pub announce: Announcer,
    pub counters: Arc<Counters>,
    pub stop: Stop,
}

/// Runs until a stop, `max-packets`, a closed output or an error; returns
/// the counts (also written to the log as `{"summary": …}`).
pub(crate) async fn run(parts: Parts) -> Result<serde_json::Value, RunError> {
    let Parts {
        prepared,
        sinks,
        announce,
        counters,
        stop,
    } = parts;
    let mut client = mqtt::Client::new(&prepared.mqtt);
    let (output, output_task) = match sinks.iter().any(|s| s.publishes()) {
        true => {
            let (sender, out) = mqtt::output(&prepared.mqtt);
            (Some(sender), Some(tokio::spawn(mqtt::drive_output(out))))
        }
        false => (None, None),
    };
    let (ntx, mut nrx) = tokio::sync::mpsc::unbounded_channel::<Notice>();
    let mut ingest = Ingest::new(prepared, sinks, announce, counters, stop, &ntx, output);
    drop(ntx);
    let mut ticker = tokio::time::interval(Duration::from_millis(200));
    let stop = ingest.stop.clone();
    let durable = ingest.has_durable();
    loop {
        if ingest.before_wait().is_break() {
            break;
        }
        let can_read = ingest.can_read();
        let reconnecting = ingest.reconnect_at.is_some();
        let wake = ingest
            .reconnect_at
            .unwrap_or_else(tokio::time::Instant::now);
        let step: Step = tokio::select! {
            ev = client.poll(), if can_read => ingest.on_incoming(ev, &client),
            n = nrx.recv(), if durable => ingest.on_notice(n, &client),
            _ = tokio::time::sleep_until(wake), if reconnecting => {
                ingest.reconnect_at = None;
                Step::Continue(())
            }
            _ = stop.wait() => Step::Continue(()),
            _ = ticker.tick() => ingest.on_tick(),
        };
        if step.is_break() {
            break;
        }
    }
    finish(ingest, client, output_task).await
}

/// Flushes the sinks, lets the output and the acknowledgements queued go
/// out before disconnecting, and writes the summary.
async fn finish(
    mut ingest: Ingest,
    client: mqtt::Client,
    output_task: Option<tokio::task::JoinHandle<u64>>,
) -> Result<serde_json::Value, RunError> {
    for s in ingest.sinks.iter_mut() {
        let _ = s.flush();
    }
    ingest.sinks.clear();
    let counters = ingest.counters.clone();
    if let (Some(o), Some(task)) = (&ingest.output, output_task) {
        // What is queued goes out before the disconnection.
        if o.disconnect() {
            if let Ok(Ok(failures)) = tokio::time::timeout(Duration::from_secs(5), task).await {
                counters.output_errors.add(failures);
            }
        }
    }
    if ingest.failure.is_none() && client.disconnect() {
        drain(client).await;
    }
    let s = counters.snapshot();
    let line = serde_json::json!({ "summary": s }).to_string();
    ingest.announce.log.raw(&line);
    match ingest.failure {
        Some(e) => Err(e),
        None => Ok(s),
    }
}

/// Polls the client until it has disconnected (at most 5 s), so that the
/// acknowledgements queued go out first.
async fn drain(mut client: mqtt::Client) {
    let end = Instant::now() + Duration::from_secs(5);
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match tokio::time::timeout(left, client.poll()).await {
            Ok(Ok(mqtt::Incoming::Disconnected)) | Ok(Err(_)) | Err(_) => break,
            Ok(Ok(_)) => {}
        }
    }
}

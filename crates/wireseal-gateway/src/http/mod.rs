//! The read side over HTTP (`--http ADDR`): `/healthz`, `/readyz`,
//! `/metrics`, the JSON API over the store (`/api/…`) and the status page
//! at `/`. Read-only: `GET` and `HEAD`, nothing else; no secret is ever
//! served. It runs on its own thread and runtime, so a slow client never
//! holds up the event loop; connections are limited in number and time.

pub(crate) mod response;

use crate::counters::Counters;
use crate::health::Health;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, ALLOW};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::registry::Registry;
use response::{reply, TEXT};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, Semaphore};

/// Connections served at once; more wait in the kernel's backlog.
const MAX_CONNECTIONS: usize = 256;
/// How long a client may take to send its request's head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one connection may stay open.
const CONNECTION_LIFETIME: Duration = Duration::from_secs(120);
/// API requests answered at once (as many as the store's read pool); more
/// wait their turn, so the rows and JSON held at any time stay bounded
/// however many clients ask.
const API_AT_ONCE: usize = 2;

/// Parses `--http`: `HOST:PORT`, `[V6]:PORT`, or a bare `PORT` (or
/// `:PORT`), which listens on loopback only.
///
/// # Errors
/// Anything else, in words.
pub fn parse_addr(s: &str) -> Result<SocketAddr, String> {
    let port = s.strip_prefix(':').unwrap_or(s);
    if let Ok(p) = port.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], p)));
    }
    s.parse()
        .map_err(|_| format!("{s:?}: PORT, HOST:PORT or [IPv6]:PORT with a numeric address"))
}

/// What the handlers read.
pub(crate) struct State {
    pub(crate) counters: Arc<Counters>,
    pub(crate) health: Arc<Health>,
    pub(crate) registry: Registry,
    pub(crate) page: crate::page::Page,
    pub(crate) reader: Option<Arc<crate::api::reader::Reader>>,
}

impl State {
    /// The gateway's counts and health, as `/api/stats` gives them.
    fn gateway(&self) -> serde_json::Value {
        serde_json::json!({
            "counts": self.counters.snapshot(),
            "subscribed": self.health.subscribed(),
            "broker_connected": self.health.connected(),
            "store_writable": self.health.store_writable(),
            "ready": self.health.ready().is_ok(),
        })
    }
}

/// The running server; dropping it stops it.
pub struct Server {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Binds `addr` and serves on a thread of its own.
    ///
    /// # Errors
    /// The address cannot be bound, or the runtime or thread cannot start.
    pub(crate) fn start(addr: SocketAddr, state: State) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            // The store's reads run on these: as many as its read pool.
            .max_blocking_threads(2)
            .thread_name("wireseal-http")
            .enable_all()
            .build()?;
        let (tx, rx) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("wireseal-http".into())
            .spawn(move || rt.block_on(serve(listener, Arc::new(state), rx)))?;
        Ok(Self {
            addr,
            stop: Some(tx),
            thread: Some(thread),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn serve(
    listener: std::net::TcpListener,
    state: Arc<State>,
    mut stop: oneshot::Receiver<()>,
) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let api = Arc::new(Semaphore::new(API_AT_ONCE));
    loop {
        let permit = tokio::select! {
            _ = &mut stop => return,
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => return,
            },
        };
        let stream = tokio::select! {
            _ = &mut stop => return,
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(_) => {
                    // Out of descriptors or similar: wait rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let (state, api) = (state.clone(), api.clone());
        tokio::spawn(async move {
            let svc = service_fn(move |req| {
                let (state, api) = (state.clone(), api.clone());
                async move { Ok::<_, Infallible>(route(&state, &api, req).await) }
            });
            let conn = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .max_buf_size(64 * 1024)
                .serve_connection(TokioIo::new(stream), svc);
            let _ = tokio::time::timeout(CONNECTION_LIFETIME, conn).await;
            drop(permit);
        });
    }
}

async fn route(state: &State, api: &Semaphore, req: Request<Incoming>) -> Response<Full<Bytes>> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = reply(
            StatusCode::METHOD_NOT_ALLOWED,
            TEXT,
            "read-only: GET and HEAD\n",
        );
        r.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    match req.uri().path() {
        "/healthz" => reply(StatusCode::OK, TEXT, "ok\n"),
        "/readyz" => match state.health.ready() {
            Ok(()) => reply(StatusCode::OK, TEXT, "ready\n"),
            Err(why) => reply(
                StatusCode::SERVICE_UNAVAILABLE,
                TEXT,
                format!("not ready: {why}\n"),
            ),
        },
        "/metrics" => reply(
            StatusCode::OK,
            crate::metrics::CONTENT_TYPE,
            crate::metrics::render(&state.registry),
        ),
        p if p.starts_with("/api/") => {
            // The semaphore is never closed.
            let _turn = api.acquire().await;
            crate::api::handle(
                state.reader.as_ref(),
                state.gateway(),
                p,
                req.uri().query().unwrap_or(""),
            )
            .await
        }
        p => state
            .page
            .file(p)
            .unwrap_or_else(|| reply(StatusCode::NOT_FOUND, TEXT, "not found\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(parse_addr("9100").unwrap().to_string(), "127.0.0.1:9100");
        assert_eq!(parse_addr(":9100").unwrap().to_string(), "127.0.0.1:9100");
        assert_eq!(parse_addr("0.0.0.0:80").unwrap().to_string(), "0.0.0.0:80");
        assert_eq!(parse_addr("[::1]:80").unwrap().to_string(), "[::1]:80");
        assert!(parse_addr("localhost:80").is_err());
        assert!(parse_addr("70000").is_err());
    }
}

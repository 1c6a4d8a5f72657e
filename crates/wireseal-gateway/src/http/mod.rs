//! The read side over HTTP (`--http ADDR`): `/healthz`, `/readyz`,
//! `/metrics`, the JSON API over the store (`/api/…`) and the status page
//! at `/`. Read-only: `GET` and `HEAD`, nothing else; no secret is ever
//! served. It runs as tasks on the gateway's one runtime
//! (`Server::start_on`), on its workers, never on the event loop's thread;
//! the store's reads run on that runtime's blocking threads, a few at a
//! time. Connections are limited in
//! number, per client address and in time, and probes are never queued
//! behind other clients (the `admit` module).

pub(crate) mod admit;
pub(crate) mod response;

use crate::counters::Counters;
use crate::health::Health;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, ALLOW, RETRY_AFTER};
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
use tokio::task::JoinSet;

/// API requests answered at once (as many as the store's read pool); more
/// wait their turn, so the rows and JSON held at any time stay bounded
/// however many clients ask.
pub(crate) const API_AT_ONCE: usize = crate::api::reader::POOL;

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
}

impl Server {
    /// Binds `addr` and serves as tasks on `handle`'s runtime: the accept
    /// loop and each connection are tasks, the store's reads (at most
    /// [`API_AT_ONCE`] at a time) run on its blocking threads. The runtime
    /// must have its I/O and time drivers enabled and be driven while the
    /// server runs.
    ///
    /// # Errors
    /// The address cannot be bound.
    pub(crate) fn start_on(
        addr: SocketAddr,
        state: State,
        handle: &tokio::runtime::Handle,
    ) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let listener = {
            let _in_runtime = handle.enter();
            tokio::net::TcpListener::from_std(listener)?
        };
        let (tx, rx) = oneshot::channel();
        handle.spawn(serve(listener, Arc::new(state), rx));
        Ok(Self {
            addr,
            stop: Some(tx),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Server {
    /// Stops accepting and cuts every open connection, as soon as the
    /// runtime next runs its task.
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// Accepts until told to stop, never waiting for a place: each connection
/// is served as [`admit`] says, as a task that ends when the server stops.
async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<State>,
    mut stop: oneshot::Receiver<()>,
) {
    let limits = admit::Limits::new();
    let api = Arc::new(Semaphore::new(API_AT_ONCE));
    let mut connections = JoinSet::new();
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut stop => return,
            // Finished connections are reaped as they end.
            Some(_) = connections.join_next() => continue,
            r = listener.accept() => match r {
                Ok(c) => c,
                Err(_) => {
                    // Out of descriptors or similar: wait rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let (state, api) = (state.clone(), api.clone());
        let admission = limits.admit(peer.ip());
        state.counters.http_connections.bump_at(admission.index());
        match admission {
            admit::Admission::Full(held) => {
                connections.spawn(async move {
                    full(stream, state, api).await;
                    drop(held);
                });
            }
            admit::Admission::Spare(permit) => {
                connections.spawn(async move {
                    spare(stream, state, api).await;
                    drop(permit);
                });
            }
            admit::Admission::Refused => drop(stream),
        }
    }
}

/// Serves a connection in full: keep-alive, any request.
async fn full(stream: tokio::net::TcpStream, state: Arc<State>, api: Arc<Semaphore>) {
    let svc = service_fn(move |req| {
        let (state, api) = (state.clone(), api.clone());
        async move { Ok::<_, Infallible>(route(&state, &api, req).await) }
    });
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(admit::HEAD_TIMEOUT)
        .max_buf_size(64 * 1024)
        .serve_connection(TokioIo::new(stream), svc);
    let _ = tokio::time::timeout(admit::CONNECTION_LIFETIME, conn).await;
}

/// Serves one request of a connection over the limits: a probe is
/// answered, anything else gets 503.
async fn spare(stream: tokio::net::TcpStream, state: Arc<State>, api: Arc<Semaphore>) {
    let svc = service_fn(move |req| {
        let (state, api) = (state.clone(), api.clone());
        async move {
            Ok::<_, Infallible>(match is_probe(req.uri().path()) {
                true => route(&state, &api, req).await,
                false => busy(),
            })
        }
    });
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(admit::SPARE_HEAD_TIMEOUT)
        .keep_alive(false)
        .max_buf_size(8 * 1024)
        .serve_connection(TokioIo::new(stream), svc);
    let _ = tokio::time::timeout(admit::SPARE_LIFETIME, conn).await;
}

/// Whether `path` is one a probe or a scrape reads: cheap, from memory,
/// never the store.
fn is_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics")
}

/// 503: too many connections for anything but a probe.
fn busy() -> Response<Full<Bytes>> {
    let mut r = reply(
        StatusCode::SERVICE_UNAVAILABLE,
        TEXT,
        "busy: too many connections; try again\n",
    );
    r.headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from_static("1"));
    r
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
    use std::io::{Read, Write};
    use std::net::TcpStream;

    fn state() -> State {
        let counters = Arc::new(Counters::default());
        let health = Arc::new(Health::default());
        State {
            registry: crate::metrics::registry(counters.clone(), health.clone()),
            counters,
            health,
            page: crate::page::Page::new(None),
            reader: None,
        }
    }

    /// `GET path` on a new connection: the response's status line.
    fn status_line(addr: SocketAddr, path: &str) -> std::io::Result<String> {
        let mut s = TcpStream::connect(addr)?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        )?;
        let mut out = String::new();
        s.read_to_string(&mut out)?;
        Ok(out.lines().next().unwrap_or("").to_owned())
    }

    #[test]
    fn serves_on_the_callers_runtime_and_stops_when_dropped() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server =
            Server::start_on(SocketAddr::from(([127, 0, 0, 1], 0)), state(), rt.handle()).unwrap();
        let addr = server.addr();
        assert_eq!(status_line(addr, "/healthz").unwrap(), "HTTP/1.1 200 OK");
        assert!(status_line(addr, "/page.css").unwrap().ends_with("200 OK"));
        // A client in the middle of a request when the server stops.
        let mut idle = TcpStream::connect(addr).unwrap();
        idle.write_all(b"GET / HTTP/1.1\r\n").unwrap();
        idle.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        drop(server);
        // Its connection is cut (closed or reset, not left to time out)
        // and nothing listens any more.
        let mut rest = Vec::new();
        match idle.read_to_end(&mut rest) {
            Ok(0) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            r => panic!("{r:?}, {rest:?}"),
        }
        let end = std::time::Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(addr).is_ok() {
            assert!(std::time::Instant::now() < end, "still listening");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

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

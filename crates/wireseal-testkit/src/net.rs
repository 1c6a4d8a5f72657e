//! Free loopback ports and readiness waits.

use super::Error;
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// A loopback TCP port nothing listened on a moment ago.
///
/// # Errors
/// When the system gives no port.
pub fn free_port() -> Result<u16, Error> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free loopback port: {e}"))
}

/// `n` distinct free loopback ports (held together while they are chosen).
///
/// # Errors
/// When the system gives no port.
pub fn free_ports(n: usize) -> Result<Vec<u16>, Error> {
    let held: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("no free loopback port: {e}"))?;
    held.iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("no free loopback port: {e}"))
}

/// Waits until `ready` says so, checking every 20 ms, for at most `timeout`.
///
/// # Errors
/// `what` and the time waited, when `ready` never did.
pub fn wait_until(
    timeout: Duration,
    what: &str,
    mut ready: impl FnMut() -> bool,
) -> Result<(), Error> {
    let end = Instant::now() + timeout;
    loop {
        if ready() {
            return Ok(());
        }
        if Instant::now() >= end {
            return Err(format!("{what}: not ready after {timeout:?}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until something accepts TCP connections on loopback `port`.
///
/// # Errors
/// When nothing does within `timeout`.
pub fn wait_listening(port: u16, timeout: Duration) -> Result<(), Error> {
    wait_until(timeout, &format!("a listener on port {port}"), || {
        TcpStream::connect(("127.0.0.1", port)).is_ok()
    })
}

//! A raw MQTT 3.1.1 publisher: the packets written by hand (so a test or a
//! bench row measures the broker and the subscriber, not a client library),
//! QoS 0 or QoS 1 with the broker's acknowledgements counted.

use super::Error;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Appends an MQTT remaining-length field.
pub fn remaining_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let b = (n % 128) as u8;
        n /= 128;
        out.push(if n > 0 { b | 0x80 } else { b });
        if n == 0 {
            return;
        }
    }
}

/// CONNECT (MQTT 3.1.1, clean session, keep-alive 60 s).
pub fn connect_packet(client_id: &str) -> Vec<u8> {
    let mut body = b"\x00\x04MQTT\x04\x02\x00\x3c".to_vec();
    body.extend((client_id.len() as u16).to_be_bytes());
    body.extend(client_id.as_bytes());
    let mut p = vec![0x10];
    remaining_len(&mut p, body.len());
    p.extend(body);
    p
}

/// Appends a PUBLISH: QoS 0 when `pkid` is `None`, else QoS 1 with it.
pub fn publish_packet(out: &mut Vec<u8>, topic: &str, payload: &[u8], pkid: Option<u16>) {
    out.push(if pkid.is_some() { 0x32 } else { 0x30 });
    let id_len = if pkid.is_some() { 2 } else { 0 };
    remaining_len(out, 2 + topic.len() + id_len + payload.len());
    out.extend((topic.len() as u16).to_be_bytes());
    out.extend(topic.as_bytes());
    if let Some(id) = pkid {
        out.extend(id.to_be_bytes());
    }
    out.extend(payload);
}

/// Reads one MQTT packet: its first byte and the rest (`None` at the end of
/// the stream or on an error).
fn read_packet(r: &mut impl Read) -> Option<(u8, Vec<u8>)> {
    let mut head = [0u8; 1];
    r.read_exact(&mut head).ok()?;
    let (mut len, mut shift) = (0usize, 0);
    let mut b = [0u8; 1];
    loop {
        r.read_exact(&mut b).ok()?;
        len |= usize::from(b[0] & 0x7f) << shift;
        shift += 7;
        if b[0] & 0x80 == 0 {
            break;
        }
    }
    let mut rest = vec![0u8; len];
    r.read_exact(&mut rest).ok()?;
    Some((head[0], rest))
}

/// A connected publisher.
pub struct Publisher {
    stream: TcpStream,
}

impl Publisher {
    /// Connects to the broker on loopback `port` as `client_id`.
    ///
    /// # Errors
    /// When the broker cannot be reached or refuses.
    pub fn connect(port: u16, client_id: &str) -> Result<Self, Error> {
        let err = |e: std::io::Error| format!("publishing to mosquitto: {e}");
        let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(err)?;
        s.set_nodelay(true).map_err(err)?;
        s.write_all(&connect_packet(client_id)).map_err(err)?;
        let mut connack = [0u8; 4];
        s.read_exact(&mut connack).map_err(err)?;
        if connack != [0x20, 0x02, 0x00, 0x00] {
            return Err(format!("mosquitto refused the publisher: {connack:02x?}"));
        }
        Ok(Self { stream: s })
    }

    /// Writes packets already built ([`publish_packet`]).
    ///
    /// # Errors
    /// When the connection fails.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.stream
            .write_all(bytes)
            .map_err(|e| format!("publishing: {e}"))
    }

    /// Counts the PUBACKs of the next `n` QoS 1 messages on another thread
    /// (waiting up to 120 s for each packet).
    ///
    /// # Errors
    /// When the connection cannot be shared.
    pub fn count_acks(&self, n: usize) -> Result<std::thread::JoinHandle<usize>, Error> {
        let mut r = self
            .stream
            .try_clone()
            .map_err(|e| format!("publisher: {e}"))?;
        Ok(std::thread::spawn(move || {
            let _ = r.set_read_timeout(Some(Duration::from_secs(120)));
            let mut acks = 0;
            while acks < n {
                let Some((head, _)) = read_packet(&mut r) else {
                    break;
                };
                acks += usize::from(head == 0x40);
            }
            acks
        }))
    }

    /// Reads and drops whatever the broker sends, on another thread, until
    /// the connection ends.
    ///
    /// # Errors
    /// When the connection cannot be shared.
    pub fn drain(&self) -> Result<std::thread::JoinHandle<()>, Error> {
        let mut r = self
            .stream
            .try_clone()
            .map_err(|e| format!("publisher: {e}"))?;
        Ok(std::thread::spawn(move || {
            let mut sink = [0u8; 1 << 16];
            while r.read(&mut sink).is_ok_and(|n| n > 0) {}
        }))
    }

    /// Sends DISCONNECT.
    pub fn disconnect(mut self) {
        let _ = self.stream.write_all(&[0xe0, 0x00]);
    }
}

/// Messages received: (topic, payload).
type Received = std::sync::Arc<std::sync::Mutex<Vec<(String, Vec<u8>)>>>;

/// A subscriber at QoS 0 that keeps every message it receives (topic and
/// payload) until dropped.
pub struct Subscriber {
    stream: TcpStream,
    got: Received,
}

impl Subscriber {
    /// Connects to the broker on loopback `port` and subscribes to
    /// `filters`; returns once the broker acknowledged the subscription.
    ///
    /// # Errors
    /// When the broker cannot be reached or refuses.
    pub fn connect(port: u16, client_id: &str, filters: &[&str]) -> Result<Self, Error> {
        let err = |e: std::io::Error| format!("subscribing to mosquitto: {e}");
        let mut p = Publisher::connect(port, client_id)?;
        let mut body = vec![0x00, 0x01];
        for f in filters {
            body.extend((f.len() as u16).to_be_bytes());
            body.extend(f.as_bytes());
            body.push(0);
        }
        let mut sub = vec![0x82];
        remaining_len(&mut sub, body.len());
        sub.extend(body);
        p.write(&sub)?;
        let mut r = p.stream.try_clone().map_err(err)?;
        let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let g = got.clone();
        std::thread::spawn(move || {
            while let Some((head, rest)) = read_packet(&mut r) {
                match head & 0xf0 {
                    0x90 => drop(ready_tx.send(())),
                    0x30 if rest.len() >= 2 => {
                        let n = usize::from(u16::from_be_bytes([rest[0], rest[1]]));
                        if rest.len() >= 2 + n {
                            let topic = String::from_utf8_lossy(&rest[2..2 + n]).into_owned();
                            if let Ok(mut v) = g.lock() {
                                v.push((topic, rest[2 + n..].to_vec()));
                            }
                        }
                    }
                    _ => {}
                }
            }
        });
        ready_rx
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| "the broker did not acknowledge the subscription".to_owned())?;
        Ok(Self {
            stream: p.stream,
            got,
        })
    }

    /// The messages received so far.
    pub fn messages(&self) -> Vec<(String, Vec<u8>)> {
        self.got.lock().map(|v| v.clone()).unwrap_or_default()
    }

    /// Waits until at least `n` messages arrived (or `timeout`); returns them.
    pub fn wait(&self, n: usize, timeout: Duration) -> Vec<(String, Vec<u8>)> {
        let end = Instant::now() + timeout;
        loop {
            let v = self.messages();
            if v.len() >= n || Instant::now() > end {
                return v;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        let _ = self.stream.write_all(&[0xe0, 0x00]);
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// Publishes `msgs` (topic, payload) at QoS 1 to the broker on `port`,
/// `per_second` at most (in slices of a hundredth of a second), and returns
/// how many the broker acknowledged (waiting up to 120 s after the last).
///
/// # Errors
/// When the broker cannot be reached.
pub fn publish_qos1(
    port: u16,
    msgs: &[(String, Vec<u8>)],
    per_second: usize,
) -> Result<usize, Error> {
    let id = format!("wireseal-test-pub-{}-{}", std::process::id(), port);
    let mut p = Publisher::connect(port, &id)?;
    let acks = p.count_acks(msgs.len())?;
    let slice = (per_second / 100).max(1);
    let start = Instant::now();
    for (k, chunk) in msgs.chunks(slice).enumerate() {
        let mut bytes = Vec::new();
        for (j, (topic, payload)) in chunk.iter().enumerate() {
            let pkid = ((k * slice + j) % 65_535 + 1) as u16;
            publish_packet(&mut bytes, topic, payload, Some(pkid));
        }
        p.write(&bytes)?;
        let due = start + Duration::from_millis(10 * (k as u64 + 1));
        if let Some(d) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(d);
        }
    }
    let n = acks.join().unwrap_or(0);
    p.disconnect();
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaining_length_is_mqtt_varint() {
        let enc = |n| {
            let mut v = Vec::new();
            remaining_len(&mut v, n);
            v
        };
        assert_eq!(enc(0), [0]);
        assert_eq!(enc(127), [0x7f]);
        assert_eq!(enc(128), [0x80, 0x01]);
        assert_eq!(enc(16_383), [0xff, 0x7f]);
        assert_eq!(enc(16_384), [0x80, 0x80, 0x01]);
    }

    #[test]
    fn publish_packet_layout() {
        let mut v = Vec::new();
        publish_packet(&mut v, "a/b", b"xy", None);
        assert_eq!(v, b"\x30\x07\x00\x03a/bxy");
        let mut v = Vec::new();
        publish_packet(&mut v, "a/b", b"xy", Some(0x0102));
        assert_eq!(v, b"\x32\x09\x00\x03a/b\x01\x02xy");
    }
}

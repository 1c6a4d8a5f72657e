//! The MQTT side of the gateway: one client over MQTT 3.1.1 or 5 (rumqttc),
//! plain TCP or TLS (rustls, configured by [`super::tls`]).

use anyhow::{bail, Context, Result};
use rumqttc::tokio_rustls::rustls::ClientConfig;
use rumqttc::v5;
use std::sync::Arc;
use std::time::Duration;

/// MQTT protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Version {
    /// MQTT 3.1.1.
    #[value(name = "3")]
    V311,
    /// MQTT 5.
    #[value(name = "5")]
    V5,
}

/// Where and how to connect.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// Host name or address.
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// TLS (`mqtts://`).
    pub tls: bool,
}

impl Endpoint {
    /// Parses `mqtt://HOST[:PORT]` (port 1883) or `mqtts://HOST[:PORT]` (8883).
    pub fn parse(url: &str) -> Result<Self> {
        let (tls, rest) = if let Some(r) = url.strip_prefix("mqtts://") {
            (true, r)
        } else if let Some(r) = url.strip_prefix("mqtt://") {
            (false, r)
        } else {
            bail!("--broker: expected mqtt://HOST:PORT or mqtts://HOST:PORT, got {url:?}");
        };
        let rest = rest.trim_end_matches('/');
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
                h,
                p.parse::<u16>()
                    .with_context(|| format!("--broker: bad port {p:?}"))?,
            ),
            _ => (rest, if tls { 8883 } else { 1883 }),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            bail!("--broker: no host in {url:?}");
        }
        Ok(Self {
            host: host.to_owned(),
            port,
            tls,
        })
    }
}

/// Connection settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The broker.
    pub endpoint: Endpoint,
    /// Protocol version.
    pub version: Version,
    /// Client id.
    pub client_id: String,
    /// Username and password.
    pub credentials: Option<(String, String)>,
    /// Largest incoming MQTT packet accepted by the client (larger ones
    /// are a protocol error in rumqttc, so this is kept generous; the
    /// decoder caps envelopes far below it).
    pub max_packet: usize,
    /// The TLS configuration; `Some` exactly when the endpoint is `mqtts://`.
    pub tls: Option<Arc<ClientConfig>>,
    /// `Some(buffer)` for a persistent session acknowledged by the caller:
    /// clean session off (MQTT 5: the session outlives the connection),
    /// subscriptions at QoS 1, and each QoS 1 message acknowledged only by
    /// [`Client::ack`]; `buffer` is the most messages the caller holds
    /// unacknowledged. `None`: a clean session at QoS 0.
    pub persistent: Option<usize>,
}

/// What acknowledges one QoS 1 message (its packet id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ack(u16);

/// How long the broker keeps an MQTT 5 session after the connection ends.
const SESSION_EXPIRY_S: u32 = 7 * 24 * 3600;

/// What one poll of the connection produced.
#[derive(Debug)]
pub enum Incoming {
    /// (Re)connected: subscribe now.
    Connected,
    /// A message.
    Publish {
        /// Its topic.
        topic: String,
        /// Its payload.
        payload: Vec<u8>,
        /// What acknowledges it: `Some` for a QoS 1 message of a
        /// persistent session (the caller must acknowledge it), else `None`.
        ack: Option<Ack>,
    },
    /// The broker answered a subscription: `granted` when it accepted every
    /// filter (messages published from now on reach us).
    Subscribed {
        /// Whether every filter was accepted.
        granted: bool,
    },
    /// The disconnection asked by [`Client::disconnect`] was sent.
    Disconnected,
    /// Anything else (acks, pings).
    Other,
}

/// An MQTT client of either version.
pub enum Client {
    /// MQTT 3.1.1.
    V3(rumqttc::AsyncClient, Box<rumqttc::EventLoop>),
    /// MQTT 5.
    V5(v5::AsyncClient, Box<v5::EventLoop>),
}

fn transport(tls: &Option<Arc<ClientConfig>>) -> rumqttc::Transport {
    match tls {
        Some(c) => {
            rumqttc::Transport::tls_with_config(rumqttc::TlsConfiguration::Rustls(c.clone()))
        }
        None => rumqttc::Transport::Tcp,
    }
}

/// Room in the client's queue of requests: every message held may be
/// acknowledged at once.
fn requests(s: &Settings) -> usize {
    1024 + s.persistent.unwrap_or(0)
}

impl Client {
    /// A client; it connects on the first [`Client::poll`].
    pub fn new(s: &Settings) -> Self {
        let e = &s.endpoint;
        match s.version {
            Version::V311 => {
                let mut o = rumqttc::MqttOptions::new(&s.client_id, &e.host, e.port);
                o.set_keep_alive(Duration::from_secs(30))
                    .set_clean_session(s.persistent.is_none())
                    .set_manual_acks(s.persistent.is_some())
                    .set_max_packet_size(s.max_packet, s.max_packet)
                    .set_transport(transport(&s.tls));
                if let Some((u, p)) = &s.credentials {
                    o.set_credentials(u, p);
                }
                let (c, l) = rumqttc::AsyncClient::new(o, requests(s));
                Client::V3(c, Box::new(l))
            }
            Version::V5 => {
                let mut o = v5::MqttOptions::new(&s.client_id, &e.host, e.port);
                if let Some(buffer) = s.persistent {
                    o.set_connect_properties(v5::mqttbytes::v5::ConnectProperties {
                        session_expiry_interval: Some(SESSION_EXPIRY_S),
                        ..v5::mqttbytes::v5::ConnectProperties::new()
                    });
                    // The broker sends at most this many unacknowledged.
                    let most = u16::try_from(buffer).unwrap_or(u16::MAX).max(1);
                    o.set_receive_maximum(Some(most));
                }
                o.set_keep_alive(Duration::from_secs(30))
                    .set_clean_start(s.persistent.is_none())
                    .set_manual_acks(s.persistent.is_some())
                    .set_max_packet_size(Some(s.max_packet as u32))
                    .set_transport(transport(&s.tls));
                if let Some((u, p)) = &s.credentials {
                    o.set_credentials(u, p);
                }
                let (c, l) = v5::AsyncClient::new(o, requests(s));
                Client::V5(c, Box::new(l))
            }
        }
    }

    /// Waits for the next event; an error (in words) means the connection
    /// is down (the next call reconnects).
    pub async fn poll(&mut self) -> Result<Incoming, String> {
        match self {
            Client::V3(_, l) => match l.poll().await {
                Ok(rumqttc::Event::Incoming(rumqttc::Packet::ConnAck(_))) => {
                    Ok(Incoming::Connected)
                }
                Ok(rumqttc::Event::Incoming(rumqttc::Packet::Publish(p))) => {
                    Ok(Incoming::Publish {
                        ack: (p.qos != rumqttc::QoS::AtMostOnce).then_some(Ack(p.pkid)),
                        topic: p.topic,
                        payload: p.payload.to_vec(),
                    })
                }
                Ok(rumqttc::Event::Incoming(rumqttc::Packet::SubAck(s))) => {
                    Ok(Incoming::Subscribed {
                        granted: s
                            .return_codes
                            .iter()
                            .all(|c| matches!(c, rumqttc::SubscribeReasonCode::Success(_))),
                    })
                }
                Ok(rumqttc::Event::Outgoing(rumqttc::Outgoing::Disconnect)) => {
                    Ok(Incoming::Disconnected)
                }
                Ok(_) => Ok(Incoming::Other),
                Err(e) => Err(describe_v3(&e)),
            },
            Client::V5(_, l) => match l.poll().await {
                Ok(v5::Event::Incoming(v5::mqttbytes::v5::Packet::ConnAck(_))) => {
                    Ok(Incoming::Connected)
                }
                Ok(v5::Event::Incoming(v5::mqttbytes::v5::Packet::Publish(p))) => {
                    Ok(Incoming::Publish {
                        ack: (p.qos != v5::mqttbytes::QoS::AtMostOnce).then_some(Ack(p.pkid)),
                        topic: String::from_utf8_lossy(&p.topic).into_owned(),
                        payload: p.payload.to_vec(),
                    })
                }
                Ok(v5::Event::Incoming(v5::mqttbytes::v5::Packet::SubAck(s))) => {
                    Ok(Incoming::Subscribed {
                        granted: s.return_codes.iter().all(|c| {
                            matches!(c, v5::mqttbytes::v5::SubscribeReasonCode::Success(_))
                        }),
                    })
                }
                Ok(v5::Event::Outgoing(rumqttc::Outgoing::Disconnect)) => {
                    Ok(Incoming::Disconnected)
                }
                Ok(_) => Ok(Incoming::Other),
                Err(e) => Err(describe_v5(&e)),
            },
        }
    }

    /// Subscribes to `filter` (queued; sent by the next polls): at QoS 1 in
    /// a persistent session, else at QoS 0.
    pub fn subscribe(&self, filter: &str, persistent: bool) -> Result<()> {
        match self {
            Client::V3(c, _) => {
                let q = match persistent {
                    true => rumqttc::QoS::AtLeastOnce,
                    false => rumqttc::QoS::AtMostOnce,
                };
                c.try_subscribe(filter, q)?
            }
            Client::V5(c, _) => {
                let q = match persistent {
                    true => v5::mqttbytes::QoS::AtLeastOnce,
                    false => v5::mqttbytes::QoS::AtMostOnce,
                };
                c.try_subscribe(filter, q)?
            }
        }
        Ok(())
    }

    /// Acknowledges a message (queued; sent by the next polls, in the order
    /// asked). False when the queue is full, which the queue's size
    /// ([`Settings::persistent`]'s buffer and more) rules out.
    pub fn ack(&self, ack: Ack) -> bool {
        match self {
            Client::V3(c, _) => {
                let mut p = rumqttc::Publish::new("", rumqttc::QoS::AtLeastOnce, Vec::new());
                p.pkid = ack.0;
                c.try_ack(&p).is_ok()
            }
            Client::V5(c, _) => {
                let mut p = v5::mqttbytes::v5::Publish::new(
                    "",
                    v5::mqttbytes::QoS::AtLeastOnce,
                    Vec::new(),
                    None,
                );
                p.pkid = ack.0;
                c.try_ack(&p).is_ok()
            }
        }
    }

    /// Asks to disconnect after the requests queued before (acknowledgements
    /// included); [`Incoming::Disconnected`] says it was sent.
    pub fn disconnect(&self) -> bool {
        match self {
            Client::V3(c, _) => c.try_disconnect().is_ok(),
            Client::V5(c, _) => c.try_disconnect().is_ok(),
        }
    }

    /// Publishes `payload` on `topic` at QoS 0; false when the queue is full.
    pub fn publish(&self, topic: &str, payload: Vec<u8>) -> bool {
        match self {
            Client::V3(c, _) => c
                .try_publish(topic, rumqttc::QoS::AtMostOnce, false, payload)
                .is_ok(),
            Client::V5(c, _) => c
                .try_publish(topic, v5::mqttbytes::QoS::AtMostOnce, false, payload)
                .is_ok(),
        }
    }
}

/// An I/O failure in words (the OS message without Rust's debug text).
fn describe_io(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::ConnectionRefused => "connection refused; is a broker listening there?".into(),
        K::ConnectionReset | K::ConnectionAborted | K::UnexpectedEof | K::BrokenPipe => {
            "the broker closed the connection".into()
        }
        K::TimedOut => "the connection timed out".into(),
        K::NotFound => "the host name does not resolve".into(),
        K::AddrNotAvailable => "the address is not available".into(),
        _ => match e.get_ref() {
            // A wrapped error (name resolution, TLS): its own message.
            Some(inner) => inner.to_string(),
            None => e.to_string(),
        },
    }
}

/// `CamelCase` (a return code's name) as lower-case words.
fn words(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn describe_tls(e: &rumqttc::TlsError) -> String {
    match e {
        rumqttc::TlsError::Io(io) => format!("TLS: {}", describe_io(io)),
        other => format!("TLS: {other}"),
    }
}

/// An MQTT 3.1.1 connection failure in words.
fn describe_v3(e: &rumqttc::ConnectionError) -> String {
    use rumqttc::{ConnectionError as E, StateError as S};
    match e {
        E::Io(io) | E::MqttState(S::Io(io)) => describe_io(io),
        E::ConnectionRefused(code) => format!(
            "the broker refused the connection: {}",
            words(&format!("{code:?}"))
        ),
        E::NetworkTimeout => "the broker did not answer in time".into(),
        E::FlushTimeout => "sending to the broker timed out".into(),
        E::Tls(t) => describe_tls(t),
        E::NotConnAck(_) => "the broker did not answer the connection request".into(),
        E::MqttState(S::AwaitPingResp) => "the broker stopped answering pings".into(),
        E::MqttState(other) => format!("MQTT protocol error: {other}"),
        other => other.to_string(),
    }
}

/// An MQTT 5 connection failure in words.
fn describe_v5(e: &v5::ConnectionError) -> String {
    use v5::{ConnectionError as E, StateError as S};
    match e {
        E::Io(io) | E::MqttState(S::Io(io)) => describe_io(io),
        E::ConnectionRefused(code) => format!(
            "the broker refused the connection: {}",
            words(&format!("{code:?}"))
        ),
        E::Timeout(_) => "the broker did not answer in time".into(),
        E::Tls(t) => describe_tls(t),
        E::NotConnAck(_) => "the broker did not answer the connection request".into(),
        E::MqttState(S::AwaitPingResp) => "the broker stopped answering pings".into(),
        E::MqttState(other) => format!("MQTT protocol error: {other}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_in_words() {
        use std::io::{Error, ErrorKind};
        let aborted = Error::new(ErrorKind::ConnectionAborted, "connection closed by peer");
        let v3 = rumqttc::ConnectionError::MqttState(rumqttc::StateError::Io(aborted));
        let text = describe_v3(&v3);
        assert_eq!(text, "the broker closed the connection");
        let refused = rumqttc::ConnectionError::ConnectionRefused(
            rumqttc::ConnectReturnCode::BadUserNamePassword,
        );
        assert_eq!(
            describe_v3(&refused),
            "the broker refused the connection: bad user name password"
        );
        let io = rumqttc::ConnectionError::Io(Error::from(ErrorKind::ConnectionRefused));
        assert!(describe_v3(&io).starts_with("connection refused"));
        for t in [text, describe_v3(&refused), describe_v3(&io)] {
            assert!(!t.contains('{') && !t.contains("kind:"), "{t}");
        }
    }

    #[test]
    fn broker_urls() {
        let e = Endpoint::parse("mqtt://127.0.0.1:18830").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.tls),
            ("127.0.0.1", 18830, false)
        );
        let e = Endpoint::parse("mqtts://mqtt.example.org").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.tls),
            ("mqtt.example.org", 8883, true)
        );
        let e = Endpoint::parse("mqtt://[::1]:1884").unwrap();
        assert_eq!((e.host.as_str(), e.port), ("::1", 1884));
        assert!(Endpoint::parse("http://x").is_err());
        assert!(Endpoint::parse("mqtt://:1883").is_err());
    }
}

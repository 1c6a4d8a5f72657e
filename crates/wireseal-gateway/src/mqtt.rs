//! The MQTT side of the gateway: one client over MQTT 3.1.1 or 5 (rumqttc),
//! plain TCP or TLS (rustls, configured by [`super::tls`]).

use crate::config::MqttVersion as Version;
use crate::endpoint::Endpoint;
use crate::mqtt_words::{describe_v3, describe_v5};
use rumqttc::v5;
use rustls::ClientConfig;
use std::sync::Arc;
use std::time::Duration;

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

/// Publications the output connection queues at most (the rest are
/// dropped and counted).
pub const OUTPUT_QUEUE: usize = 16_384;

/// The publishing side of a client: cheap to clone, usable while another
/// task polls the connection.
#[derive(Clone)]
pub enum Sender {
    /// MQTT 3.1.1.
    V3(rumqttc::AsyncClient),
    /// MQTT 5.
    V5(v5::AsyncClient),
}

impl Sender {
    /// Publishes `payload` on `topic` at QoS 0; false when the queue is full.
    pub fn publish(&self, topic: &str, payload: Vec<u8>) -> bool {
        match self {
            Sender::V3(c) => c
                .try_publish(topic, rumqttc::QoS::AtMostOnce, false, payload)
                .is_ok(),
            Sender::V5(c) => c
                .try_publish(topic, v5::mqttbytes::QoS::AtMostOnce, false, payload)
                .is_ok(),
        }
    }

    /// Asks to disconnect after what is queued.
    pub fn disconnect(&self) -> bool {
        match self {
            Sender::V3(c) => c.try_disconnect().is_ok(),
            Sender::V5(c) => c.try_disconnect().is_ok(),
        }
    }
}

/// The connection the gateway publishes on (records and the firmware's
/// JSON): a second client, clean session, QoS 0, client id `ID-out`, with a
/// queue of [`OUTPUT_QUEUE`], polled by a task of its own, so publishing
/// never waits behind the feed's reads (rumqttc serves one request per
/// poll but reads ten messages) and never delays an acknowledgement.
pub fn output(s: &Settings) -> (Sender, Client) {
    let mut o = s.clone();
    o.client_id = format!("{}-out", s.client_id);
    o.persistent = None;
    let c = Client::with_queue(&o, OUTPUT_QUEUE);
    (c.sender(), c)
}

/// Polls the output connection until it is asked to disconnect, waiting a
/// second after each failure; returns the failures.
pub async fn drive_output(mut c: Client) -> u64 {
    let mut failures = 0;
    loop {
        match c.poll().await {
            Ok(Incoming::Disconnected) => return failures,
            Ok(_) => {}
            Err(_) => {
                failures += 1;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

impl Client {
    /// A client; it connects on the first [`Client::poll`].
    pub fn new(s: &Settings) -> Self {
        Self::with_queue(s, requests(s))
    }

    /// The publishing side of this client.
    pub fn sender(&self) -> Sender {
        match self {
            Client::V3(c, _) => Sender::V3(c.clone()),
            Client::V5(c, _) => Sender::V5(c.clone()),
        }
    }

    fn with_queue(s: &Settings, queue: usize) -> Self {
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
                let (c, l) = rumqttc::AsyncClient::new(o, queue);
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
                let (c, l) = v5::AsyncClient::new(o, queue);
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

    /// Subscribes to `filters` in one request (queued; sent by the next
    /// polls): at QoS 1 in a persistent session, else at QoS 0. The broker
    /// answers with one acknowledgement for all of them.
    ///
    /// # Errors
    /// When the client's queue refuses the request.
    pub fn subscribe(&self, filters: &[String], persistent: bool) -> Result<(), String> {
        match self {
            Client::V3(c, _) => {
                let q = match persistent {
                    true => rumqttc::QoS::AtLeastOnce,
                    false => rumqttc::QoS::AtMostOnce,
                };
                let f = filters
                    .iter()
                    .map(|f| rumqttc::SubscribeFilter::new(f.clone(), q));
                c.try_subscribe_many(f).map_err(|e| e.to_string())?
            }
            Client::V5(c, _) => {
                let q = match persistent {
                    true => v5::mqttbytes::QoS::AtLeastOnce,
                    false => v5::mqttbytes::QoS::AtMostOnce,
                };
                let f = filters
                    .iter()
                    .map(|f| v5::mqttbytes::v5::Filter::new(f.clone(), q));
                c.try_subscribe_many(f).map_err(|e| e.to_string())?
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
}

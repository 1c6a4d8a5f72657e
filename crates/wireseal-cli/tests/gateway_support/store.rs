//! Helpers for the `--store` tests: a PostgreSQL server of the test's own
//! (the store's unit tests' [`pg::PgServer`]), a QoS 1 publisher that counts
//! the broker's acknowledgements, channel envelopes made with the library,
//! and the stored tables read back with each database's own client.

#[path = "../../src/commands/gateway/store/tests/pg_server.rs"]
pub mod pg;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use wireseal::meshtastic::channel::ChannelKey;
use wireseal::meshtastic::envelope::{self, Data, MeshPacket, PayloadVariant, ServiceEnvelope};

/// Why PostgreSQL's server cannot be used here, if it cannot.
pub fn missing_postgres() -> Option<String> {
    let found = std::env::var_os("WIRESEAL_PG_BIN").is_some()
        || std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| e.path().join("bin/postgres").exists());
    (!found).then(|| {
        "the PostgreSQL server is not installed (apt-get install postgresql; \
         scripts/setup-peers.sh does)"
            .into()
    })
}

/// A LongFast text message from `from` with packet id `id`, as gateway
/// `gw` heard it through relay `relay`: its topic and envelope.
pub fn text_envelope(from: u32, id: u32, gw: &str, relay: u32) -> (String, Vec<u8>) {
    let key = ChannelKey::from_psk(&[1]).expect("the default key");
    let data = Data {
        portnum: envelope::TEXT_MESSAGE_APP,
        payload: format!("message {id} from {from:08x}").into_bytes(),
        ..Default::default()
    };
    let body = key
        .seal_to_vec(from, id, &envelope::encode_data(&data))
        .expect("a short payload");
    let env = ServiceEnvelope {
        packet: Some(MeshPacket {
            from,
            to: u32::MAX,
            id,
            channel: u32::from(key.hash("LongFast")),
            payload_variant: Some(PayloadVariant::Encrypted(body)),
            rx_time: 1_760_000_000 + id,
            rx_rssi: -90,
            hop_limit: 2,
            hop_start: 3,
            relay_node: relay,
            ..Default::default()
        }),
        channel_id: "LongFast".into(),
        gateway_id: gw.into(),
    };
    (
        format!("msh/EU_868/2/e/LongFast/{gw}"),
        envelope::encode_to_vec(&env),
    )
}

/// `packets` packets from 50 nodes, each heard by every gateway of `gws`
/// (one message per gateway, gateways interleaved): the messages, and the
/// distinct (from, id) and (from, id, gateway) the store must hold.
pub type Load = (
    Vec<(String, Vec<u8>)>,
    BTreeSet<(u32, u32)>,
    BTreeSet<(u32, u32, String)>,
);

/// See [`Load`].
pub fn load(packets: u32, gws: &[&str]) -> Load {
    let mut msgs = Vec::new();
    let mut p = BTreeSet::new();
    let mut r = BTreeSet::new();
    for i in 0..packets {
        let from = 0x3000_0000 + i % 50;
        let id = 0x0100_0000 + i.wrapping_mul(2_654_435_761) % 0x00ff_ffff;
        p.insert((from, id));
        for gw in gws {
            msgs.push(text_envelope(from, id, gw, 0));
            r.insert((from, id, (*gw).to_owned()));
        }
    }
    (msgs, p, r)
}

fn remaining_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let b = (n % 128) as u8;
        n /= 128;
        out.push(if n > 0 { b | 0x80 } else { b });
        if n == 0 {
            return;
        }
    }
}

/// Publishes `msgs` at QoS 1 to the broker on `port`, `per_second` at most
/// (in slices of a hundredth of a second, shorter than the store's batch
/// wait, so that a gateway stopped at any moment holds messages not yet
/// committed), and returns how many the broker
/// acknowledged (waiting up to 60 s after the last for the rest).
pub fn publish_qos1(port: u16, msgs: &[(String, Vec<u8>)], per_second: usize) -> usize {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to mosquitto");
    s.set_nodelay(true).unwrap();
    let id = format!("wireseal-test-pub-{}", std::process::id());
    let mut body = b"\x00\x04MQTT\x04\x02\x00\x3c".to_vec();
    body.extend((id.len() as u16).to_be_bytes());
    body.extend(id.as_bytes());
    let mut connect = vec![0x10];
    remaining_len(&mut connect, body.len());
    connect.extend(body);
    s.write_all(&connect).unwrap();
    let mut connack = [0u8; 4];
    s.read_exact(&mut connack).unwrap();
    assert_eq!(connack, [0x20, 2, 0, 0], "mosquitto accepted the publisher");
    let mut r = s.try_clone().unwrap();
    let n = msgs.len();
    let reader = std::thread::spawn(move || {
        r.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let mut acks = 0;
        let mut head = [0u8; 1];
        while acks < n && r.read_exact(&mut head).is_ok() {
            let (mut len, mut shift) = (0usize, 0);
            let mut b = [0u8; 1];
            loop {
                if r.read_exact(&mut b).is_err() {
                    return acks;
                }
                len |= usize::from(b[0] & 0x7f) << shift;
                shift += 7;
                if b[0] & 0x80 == 0 {
                    break;
                }
            }
            let mut rest = vec![0u8; len];
            if r.read_exact(&mut rest).is_err() {
                return acks;
            }
            acks += usize::from(head[0] == 0x40);
        }
        acks
    });
    let slice = (per_second / 100).max(1);
    let start = Instant::now();
    for (k, chunk) in msgs.chunks(slice).enumerate() {
        let mut bytes = Vec::new();
        for (j, (topic, payload)) in chunk.iter().enumerate() {
            let pkid = ((k * slice + j) % 65_535 + 1) as u16;
            bytes.push(0x32);
            remaining_len(&mut bytes, 2 + topic.len() + 2 + payload.len());
            bytes.extend((topic.len() as u16).to_be_bytes());
            bytes.extend(topic.as_bytes());
            bytes.extend(pkid.to_be_bytes());
            bytes.extend(payload);
        }
        s.write_all(&bytes).unwrap();
        let due = start + Duration::from_millis(10 * (k as u64 + 1));
        if let Some(d) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(d);
        }
    }
    let acks = reader.join().unwrap();
    let _ = s.write_all(&[0xe0, 0]);
    acks
}

/// A store the test reads back.
pub enum Db {
    /// A SQLite file.
    Sqlite(std::path::PathBuf),
    /// A PostgreSQL database (libpq URL).
    Pg(String),
}

impl Db {
    /// The `--store` URL.
    pub fn url(&self) -> String {
        match self {
            Db::Sqlite(p) => format!("sqlite:{}", p.display()),
            Db::Pg(u) => u.clone(),
        }
    }

    /// The rows of `sql`, every column as text (the query casts).
    pub fn rows(&self, sql: &str) -> Vec<Vec<Option<String>>> {
        match self {
            Db::Sqlite(p) => {
                let c = rusqlite::Connection::open(p).expect("open the SQLite store");
                let mut st = c.prepare(sql).expect(sql);
                let n = st.column_count();
                st.query_map([], |row| {
                    (0..n)
                        .map(|i| row.get::<_, Option<String>>(i))
                        .collect::<Result<Vec<_>, _>>()
                })
                .expect(sql)
                .map(|r| r.expect("a row"))
                .collect()
            }
            Db::Pg(url) => {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async {
                    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                        .await
                        .expect("connect to the test's PostgreSQL");
                    tokio::spawn(conn);
                    let msgs = client.simple_query(sql).await.expect(sql);
                    msgs.into_iter()
                        .filter_map(|m| match m {
                            tokio_postgres::SimpleQueryMessage::Row(r) => {
                                Some((0..r.len()).map(|i| r.get(i).map(str::to_owned)).collect())
                            }
                            _ => None,
                        })
                        .collect()
                })
            }
        }
    }

    /// One number.
    pub fn count(&self, sql: &str) -> u64 {
        self.rows(sql)[0][0]
            .as_deref()
            .and_then(|v| v.parse().ok())
            .expect("a count")
    }

    /// Every stored (from, id).
    pub fn packets(&self) -> BTreeSet<(u32, u32)> {
        self.rows("SELECT CAST(from_node AS TEXT), CAST(packet_id AS TEXT) FROM packets")
            .into_iter()
            .map(|r| (num(&r[0]), num(&r[1])))
            .collect()
    }

    /// Every stored (from, id, gateway) reception, and how many rows.
    pub fn receptions(&self) -> (BTreeSet<(u32, u32, String)>, u64) {
        let rows = self.rows(
            "SELECT CAST(from_node AS TEXT), CAST(packet_id AS TEXT), gateway_id FROM receptions",
        );
        let n = rows.len() as u64;
        let set = rows
            .into_iter()
            .map(|r| (num(&r[0]), num(&r[1]), r[2].clone().unwrap_or_default()))
            .collect();
        (set, n)
    }

    /// Waits until `receptions` rows are stored (or `timeout` passes);
    /// returns the last count.
    pub fn wait_receptions(&self, receptions: u64, timeout: Duration) -> u64 {
        let end = Instant::now() + timeout;
        loop {
            let n = self.count("SELECT CAST(COUNT(*) AS TEXT) FROM receptions");
            if n >= receptions || Instant::now() > end {
                return n;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn num(v: &Option<String>) -> u32 {
    v.as_deref()
        .and_then(|v| v.parse().ok())
        .expect("a node number or packet id")
}

/// The gateway's `--store` arguments for `db`.
pub fn store_args(db: &Db, client_id: &str) -> Vec<String> {
    vec![
        "--store".into(),
        db.url(),
        "--client-id".into(),
        client_id.into(),
    ]
}

/// Whether the peers are here: Mosquitto and the Python feed, and with
/// `postgres` the PostgreSQL server (else the test fails, or skips under
/// `WIRESEAL_ALLOW_MISSING_PEERS=1`).
pub fn peers(postgres: bool) -> bool {
    let why = super::missing_peer().or_else(|| postgres.then(missing_postgres).flatten());
    match why {
        Some(why) => {
            super::skip_or_fail(&why);
            false
        }
        None => true,
    }
}

/// Starts a gateway with `key` on `broker`, storing into `db` as
/// `client_id`, with `extra` arguments; returns once it subscribed.
pub fn start_storing(
    broker: &super::Broker,
    key: &tempfile::NamedTempFile,
    db: &Db,
    client_id: &str,
    extra: &[&str],
) -> super::Gateway {
    let mut more = store_args(db, client_id);
    more.extend(extra.iter().map(|s| s.to_string()));
    let more: Vec<&str> = more.iter().map(String::as_str).collect();
    let gw = super::Gateway::start(&super::args(&broker.url(), key, &more));
    gw.wait_stderr("subscribed", Duration::from_secs(30));
    gw
}

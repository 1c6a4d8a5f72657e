//! `firmware-json`: the 2.7 firmware's MQTT JSON, back. The table
//! `vectors/meshtastic/firmware-json.json` (envelopes built with the
//! `meshtastic` protobufs, each with the JSON the firmware's serializer
//! published for it, written from that code) goes through a real Mosquitto
//! and the gateway; what arrives on `<root>/2/json/…` is compared byte for
//! byte. Then a consumer reads the objects the way a Home Assistant MQTT
//! sensor's `value_template` does (Jinja2, interop/meshtastic/ha_consumer.py).

use crate::support::{peers, root, Running};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;
use wireseal_gateway::config::FirmwareRoot;
use wireseal_gateway::Config;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::{publish_qos1, Subscriber};

fn vectors() -> Value {
    let p = root().join("vectors/meshtastic/firmware-json.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A gateway publishing the firmware's JSON under the vectors' root, with
/// their channels and our node's key.
fn gateway(broker: &Mosquitto, v: &Value, dir: &tempfile::TempDir) -> Running {
    gateway_under(broker, v, dir, v["root"].as_str().unwrap().into())
}

/// The same, publishing under `root`.
fn gateway_under(
    broker: &Mosquitto,
    v: &Value,
    dir: &tempfile::TempDir,
    root: FirmwareRoot,
) -> Running {
    let key = dir.path().join("node.key");
    std::fs::write(&key, v["our_private_hex"].as_str().unwrap()).unwrap();
    Running::start(Config {
        broker: Some(broker.url().parse().unwrap()),
        channel: v["channels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect(),
        key_file: vec![format!("{}={}", v["our_node"], key.display())],
        firmware_json: Some(root),
        print_records: Some(false),
        ..Config::default()
    })
}

fn messages(v: &Value) -> Vec<(String, Vec<u8>)> {
    v["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["topic"].as_str().unwrap().to_owned(),
                hex::decode(x["envelope"].as_str().unwrap()).unwrap(),
            )
        })
        .collect()
}

/// The firmware's text with wireseal's own fields after its last key.
fn expected(x: &Value) -> String {
    let fw = x["json"].as_str().unwrap();
    let extra = x["extra"].as_object().unwrap();
    let mut keys: Vec<&String> = extra.keys().collect();
    keys.sort();
    let tail: Vec<String> = keys
        .iter()
        .map(|k| format!("\"{k}\":{}", extra[*k]))
        .collect();
    format!("{},{}}}", &fw[..fw.len() - 1], tail.join(","))
}

#[test]
fn the_firmwares_json_byte_for_byte() {
    if !peers(false) {
        return;
    }
    let v = vectors();
    let broker = Mosquitto::start().unwrap();
    let sub = Subscriber::connect(broker.port, "fw-watch", &["msh/US/2/json/#"]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let gw = gateway(&broker, &v, &dir);
    the_vectors_arrive(&v, &broker, &sub, gw);
}

/// Without a root, each envelope's JSON goes under the root of the topic
/// it came on (`msh/US/2/e/…` gives `msh/US/2/json/…`), as the firmware
/// published it: the same bytes on the same topics as above.
#[test]
fn the_firmwares_json_under_each_envelopes_own_root() {
    if !peers(false) {
        return;
    }
    let v = vectors();
    assert!(v["vectors"][0]["topic"]
        .as_str()
        .unwrap()
        .starts_with("msh/US/2/e/"));
    let broker = Mosquitto::start().unwrap();
    let sub = Subscriber::connect(broker.port, "fw-watch", &["msh/US/2/json/#"]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let gw = gateway_under(&broker, &v, &dir, FirmwareRoot::Envelope);
    the_vectors_arrive(&v, &broker, &sub, gw);
}

/// Publishes the vectors' envelopes and compares what arrives on the JSON
/// topics with the firmware's text, byte for byte.
fn the_vectors_arrive(v: &Value, broker: &Mosquitto, sub: &Subscriber, gw: Running) {
    let msgs = messages(v);
    assert_eq!(publish_qos1(broker.port, &msgs, 1_000).unwrap(), msgs.len());
    let want: Vec<(String, String)> = v["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| !x["json"].is_null())
        .map(|x| (x["json_topic"].as_str().unwrap().to_owned(), expected(x)))
        .collect();
    let got = sub.wait(want.len(), Duration::from_secs(30));
    let s = gw.stop().unwrap();
    assert_eq!(s["output"]["firmware_json"], want.len() as u64, "{s}");
    let got: Vec<(String, String)> = got
        .into_iter()
        .map(|(t, p)| (t, String::from_utf8(p).expect("UTF-8")))
        .collect();
    let whats: Vec<&str> = v["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| !x["json"].is_null())
        .map(|x| x["what"].as_str().unwrap())
        .collect();
    for ((w, g), what) in want.iter().zip(&got).zip(whats) {
        assert_eq!(g, w, "{what}");
    }
    assert_eq!(got.len(), want.len());
}

#[test]
fn home_assistant_templates_read_it() {
    if !peers(false) {
        return;
    }
    let ok = Command::new("python3")
        .args(["-c", "import jinja2, paho.mqtt"])
        .status()
        .is_ok_and(|s| s.success());
    if !wireseal_testkit::peer_present(
        (!ok).then(|| "python3 with jinja2 and paho-mqtt is missing".into()),
    ) {
        return;
    }
    let v = vectors();
    let broker = Mosquitto::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let gw = gateway(&broker, &v, &dir);
    let published = v["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| !x["json"].is_null())
        .count();
    let templates = serde_json::json!({
        "text": "{% if value_json.type == 'text' and value_json.from == 287454020 %}{{ value_json.payload.text }}{% endif %}",
        "battery": "{% if value_json.payload.battery_level is defined %}{{ value_json.payload.battery_level }}%{% endif %}",
        "voltage": "{% if value_json.type == 'telemetry' and value_json.payload.battery_level is defined %}{{ value_json.payload.voltage | round(2) }}{% endif %}",
        "temperature": "{% if value_json.payload.temperature is defined %}{{ value_json.payload.temperature | round(1) }}{% endif %}",
        "latitude": "{% if value_json.type == 'position' %}{{ (value_json.payload.latitude_i / 10000000) | round(5) }}{% endif %}",
        "gateway": "{% if value_json.type == 'nodeinfo' %}{{ value_json.sender }} {{ value_json.payload.longname }}{% endif %}",
        "dm": "{% if value_json.wireseal_decryption == 'pkc' %}{{ value_json.payload.text }}{% endif %}",
    });
    let mut child = Command::new("python3")
        .arg(root().join("interop/meshtastic/ha_consumer.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let settings = serde_json::json!({"port": broker.port, "topic": "msh/US/2/json/#", "count": published, "templates": templates});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(settings.to_string().as_bytes())
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready", "the consumer subscribed");
    let msgs = messages(&v);
    assert_eq!(publish_qos1(broker.port, &msgs, 1_000).unwrap(), msgs.len());
    line.clear();
    out.read_line(&mut line).unwrap();
    assert!(child.wait().unwrap().success());
    gw.stop().unwrap();
    let r: Value = serde_json::from_str(&line).expect("the consumer's results");
    assert_eq!(r["text"], serde_json::json!(["Hello Meshtastic!"]), "{r}");
    assert_eq!(r["battery"], serde_json::json!(["87%"]), "{r}");
    assert_eq!(r["voltage"], serde_json::json!(["3.72"]), "{r}");
    assert_eq!(r["temperature"], serde_json::json!(["23.6"]), "{r}");
    assert_eq!(r["latitude"], serde_json::json!(["52.34568"]), "{r}");
    assert_eq!(
        r["gateway"],
        serde_json::json!(["!12345678 Base Camp", "!12345678"]),
        "{r}"
    );
    assert_eq!(r["dm"], serde_json::json!(["a direct message"]), "{r}");
}

//! The gateway over TLS, against a real Mosquitto TLS listener with
//! throwaway certificates: the broker's CA from `ca-file`, a user name and
//! password, a client certificate, MQTT 5; and the refusals that must be
//! loud (an untrusted broker, a wrong password, unusable files).

use crate::support::{check, config, kept, key_file, peers, root, Running, OUR_NODE};
use std::path::PathBuf;
use std::time::Duration;
use wireseal_gateway::{Config, Event, Gateway, MqttVersion};
use wireseal_testkit::feed;
use wireseal_testkit::mosquitto::{Mosquitto, Settings, TlsListener};
use wireseal_testkit::pki::Pki;

fn tls_broker(l: TlsListener) -> Mosquitto {
    Mosquitto::start_with(Settings {
        tls: Some(l),
        ..Settings::default()
    })
    .unwrap()
}

/// The gateway on the TLS listener with `extra` decodes a whole feed
/// published on the plain listener.
fn decodes_a_feed_over_tls(broker: &Mosquitto, extra: impl Fn(Config) -> Config) {
    let (key, public) = key_file();
    let lines = feed::make(&root(), OUR_NODE, &public, 1, 0x2000);
    let gw = Running::start(extra(config(&broker.tls_url(), &key)));
    feed::publish(&root(), broker.port, &lines);
    check(&lines, &gw.take(kept(&lines), Duration::from_secs(60)), &[]);
    gw.stop().unwrap();
}

fn login(right: &'static str, given: &str) -> (Mosquitto, tempfile::TempDir, PathBuf) {
    let broker = tls_broker(TlsListener {
        require_client_cert: false,
        login: Some(("gw", right)),
    });
    let dir = tempfile::tempdir().unwrap();
    let pass = dir.path().join("pass");
    std::fs::write(&pass, format!("{given}\n")).unwrap();
    (broker, dir, pass)
}

#[test]
fn tls_with_the_brokers_ca_and_a_password() {
    if !peers(false) {
        return;
    }
    let (broker, _dir, pass) = login("a long pass phrase", "a long pass phrase");
    let ca = broker.pki.as_ref().unwrap().ca.clone();
    decodes_a_feed_over_tls(&broker, |c| Config {
        ca_file: Some(ca.clone()),
        username: Some("gw".into()),
        password_file: Some(pass.clone()),
        ..c
    });
}

#[test]
fn tls_with_a_client_certificate_over_mqtt5() {
    if !peers(false) {
        return;
    }
    let broker = tls_broker(TlsListener {
        require_client_cert: true,
        login: None,
    });
    let pki = broker.pki.as_ref().unwrap();
    decodes_a_feed_over_tls(&broker, |c| Config {
        ca_file: Some(pki.ca.clone()),
        client_cert: Some(pki.client_cert.clone()),
        client_key: Some(pki.client_key.clone()),
        mqtt_version: Some(MqttVersion::V5),
        ..c
    });
}

/// A gateway that cannot log in: its connection failures are events with
/// the reason in words, and nothing is decoded.
fn refused(broker: &Mosquitto, extra: impl Fn(Config) -> Config) -> Vec<Event> {
    let (key, public) = key_file();
    let gw = Running::spawn(extra(config(&broker.tls_url(), &key)));
    gw.wait_for("connection-failed", Duration::from_secs(20));
    feed::publish(
        &root(),
        broker.port,
        &feed::make(&root(), OUR_NODE, &public, 1, 0x2000),
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(gw.records.try_iter().count(), 0, "nothing decoded");
    let seen = gw.seen();
    let s = gw.stop().unwrap();
    assert!(s["connection"]["errors"].as_u64().unwrap() >= 1, "{s}");
    assert_eq!(s["packets"], 0, "{s}");
    seen
}

fn reasons(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ConnectionFailed { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn an_untrusted_broker_is_refused_and_said_so() {
    if !peers(false) {
        return;
    }
    let broker = tls_broker(TlsListener::default());
    let other = broker.pki.as_ref().unwrap().other_ca.clone();
    let seen = refused(&broker, |c| Config {
        ca_file: Some(other.clone()),
        ..c
    });
    let r = reasons(&seen);
    assert!(r.iter().any(|l| l.contains("UnknownIssuer")), "{r:?}");
}

#[test]
fn a_wrong_password_is_refused_and_not_shown() {
    if !peers(false) {
        return;
    }
    let (broker, _dir, pass) = login("the right one", "wrong-pass-0123");
    let ca = broker.pki.as_ref().unwrap().ca.clone();
    let seen = refused(&broker, |c| Config {
        ca_file: Some(ca.clone()),
        username: Some("gw".into()),
        password_file: Some(pass.clone()),
        ..c
    });
    let r = reasons(&seen);
    assert!(r.iter().any(|l| l.contains("refused")), "{r:?}");
    assert!(
        seen.iter().all(|e| !e.to_string().contains("wrong-pass")),
        "{seen:?}"
    );
}

#[test]
fn unusable_tls_files_stop_the_gateway_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::write(dir.path());
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "KEEP-THIS-SECRET not a certificate\n").unwrap();
    let (key, _) = key_file();
    let build = |broker: &str, f: &dyn Fn(Config) -> Config| {
        Gateway::new(f(config(broker, &key)))
            .err()
            .map(|e| e.to_string())
    };
    let tls = "mqtts://127.0.0.1:1";
    assert_eq!(
        build(tls, &|c| Config {
            ca_file: Some(pki.ca.clone()),
            ..c
        }),
        None
    );
    let e = build(tls, &|c| Config {
        ca_file: Some(junk.clone()),
        ..c
    })
    .unwrap();
    assert!(
        e.starts_with("--ca-file") && e.contains("no usable CA certificate"),
        "{e}"
    );
    let e = build(tls, &|c| Config {
        ca_file: Some(dir.path().join("absent.pem")),
        ..c
    })
    .unwrap();
    assert!(e.starts_with("--ca-file"), "{e}");
    let e = build("mqtt://127.0.0.1:1", &|c| Config {
        ca_file: Some(pki.ca.clone()),
        ..c
    })
    .unwrap();
    assert!(e.contains("mqtts://"), "{e}");
    let e = build(tls, &|c| Config {
        ca_file: Some(pki.ca.clone()),
        client_cert: Some(pki.client_cert.clone()),
        client_key: Some(junk.clone()),
        ..c
    })
    .unwrap();
    assert!(e.starts_with("--client-key"), "{e}");
    assert!(!e.contains("KEEP-THIS") && !e.contains("junk.pem"), "{e}");
    let e = build(tls, &|c| Config {
        ca_file: Some(pki.ca.clone()),
        client_cert: Some(pki.client_cert.clone()),
        ..c
    })
    .unwrap();
    assert!(e.contains("--client-key"), "{e}");
}

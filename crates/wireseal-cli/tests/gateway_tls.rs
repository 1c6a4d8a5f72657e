//! `wireseal meshtastic gateway` over TLS, against a real Mosquitto TLS
//! listener with throwaway certificates: the broker's CA from `--ca-file`,
//! a user name and password, a client certificate, MQTT 5; and the refusals
//! that must be loud (an untrusted broker, a wrong password, unusable files).

mod gateway_support;

use gateway_support::pki::Pki;
use gateway_support::{
    args, check, key_file, make_feed, missing_peer, publish, skip_or_fail, Broker, Gateway,
    TlsListener, OUR_NODE,
};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The gateway on the broker's TLS listener with `extra` decodes a whole feed
/// published on the plain listener, and exits 0 on SIGINT.
fn decodes_a_feed_over_tls(broker: &Broker, extra: &[&str]) {
    let (key, public) = key_file();
    let feed = make_feed(OUR_NODE, &public, 1, 0x2000);
    let n = feed
        .iter()
        .filter(|l| l["expect"].get("dropped").is_none())
        .count();
    let gw = Gateway::start(&args(&broker.tls_url(), &key, extra));
    gw.wait_stderr("subscribed", Duration::from_secs(20));
    publish(broker.port, &feed);
    let got = gw.take(n, Duration::from_secs(60));
    check(&feed, &got, &[]);
    let (status, _) = gw.interrupt();
    assert!(status.success(), "SIGINT exits 0");
}

/// The summary line printed on SIGINT.
fn summary(rest: &[String]) -> serde_json::Value {
    let line = rest
        .iter()
        .rev()
        .find(|l| l.contains("\"summary\""))
        .expect("a summary on SIGINT");
    serde_json::from_str::<serde_json::Value>(line).unwrap()["summary"].clone()
}

/// A broker whose TLS listener wants user `gw` with password `right`, and the
/// gateway's flags for it: the CA, the user and `given` as the password (in
/// a file under the returned directory).
fn login(right: &'static str, given: &str) -> (Broker, tempfile::TempDir, Vec<String>) {
    let broker = Broker::start_tls(TlsListener {
        require_client_cert: false,
        login: Some(("gw", right)),
    });
    let dir = tempfile::tempdir().unwrap();
    let pass = dir.path().join("pass");
    std::fs::write(&pass, format!("{given}\n")).unwrap();
    let ca = broker.pki.as_ref().unwrap().ca.clone();
    let flags = [
        "--ca-file",
        p(&ca),
        "--username",
        "gw",
        "--password-file",
        p(&pass),
    ]
    .map(String::from)
    .to_vec();
    (broker, dir, flags)
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn tls_with_the_brokers_ca_and_a_password() {
    if let Some(why) = missing_peer() {
        return skip_or_fail(&why);
    }
    let (broker, _dir, flags) = login("a long pass phrase", "a long pass phrase");
    decodes_a_feed_over_tls(&broker, &strs(&flags));
}

#[test]
fn tls_with_a_client_certificate_over_mqtt5() {
    if let Some(why) = missing_peer() {
        return skip_or_fail(&why);
    }
    let broker = Broker::start_tls(TlsListener {
        require_client_cert: true,
        login: None,
    });
    let pki = broker.pki.as_ref().unwrap();
    decodes_a_feed_over_tls(
        &broker,
        &[
            "--ca-file",
            p(&pki.ca),
            "--client-cert",
            p(&pki.client_cert),
            "--client-key",
            p(&pki.client_key),
            "--mqtt-version",
            "5",
        ],
    );
}

/// Starts a gateway that cannot log in, waits for the log line containing
/// `what`, checks that nothing is decoded meanwhile, and returns the lines.
fn refused(broker: &Broker, extra: &[&str], what: &str) -> Vec<String> {
    let (key, public) = key_file();
    let gw = Gateway::start(&args(&broker.tls_url(), &key, extra));
    let mut seen = gw.wait_stderr(what, Duration::from_secs(20));
    publish(broker.port, &make_feed(OUR_NODE, &public, 1, 0x2000));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(gw.stdout.try_iter().count(), 0, "nothing decoded");
    let (status, rest) = gw.interrupt();
    assert!(status.success(), "SIGINT exits 0");
    let s = summary(&rest);
    assert!(s["connection_errors"].as_u64().unwrap() >= 1, "{s}");
    assert_eq!(s["packets"].as_u64().unwrap_or(0), 0, "{s}");
    seen.extend(rest);
    seen
}

#[test]
fn an_untrusted_broker_is_refused_and_said_so() {
    if let Some(why) = missing_peer() {
        return skip_or_fail(&why);
    }
    let broker = Broker::start_tls(TlsListener::default());
    let pki = broker.pki.as_ref().unwrap();
    let lines = refused(&broker, &["--ca-file", p(&pki.other_ca)], "certificate");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("connection") && l.contains("UnknownIssuer")),
        "{lines:?}"
    );
}

#[test]
fn a_wrong_password_is_refused_and_not_shown() {
    if let Some(why) = missing_peer() {
        return skip_or_fail(&why);
    }
    let (broker, _dir, flags) = login("the right one", "wrong-pass-0123");
    let lines = refused(&broker, &strs(&flags), "refused");
    assert!(lines.iter().all(|l| !l.contains("wrong-pass")), "{lines:?}");
}

/// Runs the gateway with `extra` against `broker` (a closed port);
/// `--max-packets 0` makes a gateway that got past its start-up checks exit 0
/// at once.
fn start_up_with(broker: &str, extra: &[&str]) -> (bool, String) {
    let (key, _) = key_file();
    let mut a = args(broker, &key, &["--max-packets", "0"]);
    a.extend(extra.iter().map(|s| s.to_string()));
    let out = Command::new(env!("CARGO_BIN_EXE_wireseal"))
        .args(["meshtastic", "gateway"])
        .args(&a)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`start_up_with`] an `mqtts://` broker.
fn start_up(extra: &[&str]) -> (bool, String) {
    start_up_with("mqtts://127.0.0.1:1", extra)
}

#[test]
fn unusable_tls_files_stop_the_gateway_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::write(dir.path());
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "KEEP-THIS-SECRET not a certificate\n").unwrap();

    let (ok, err) = start_up(&["--ca-file", p(&pki.ca)]);
    assert!(ok, "usable files pass the start-up checks: {err}");

    let (ok, err) = start_up(&["--ca-file", p(&junk)]);
    assert!(
        !ok && err.contains("--ca-file") && err.contains("no usable CA certificate"),
        "{err}"
    );
    let (ok, err) = start_up(&["--ca-file", p(&dir.path().join("absent.pem"))]);
    assert!(!ok && err.contains("--ca-file"), "{err}");
    let (ok, err) = start_up_with("mqtt://127.0.0.1:1", &["--ca-file", p(&pki.ca)]);
    assert!(!ok && err.contains("mqtts://"), "{err}");

    let (ok, err) = start_up(&[
        "--ca-file",
        p(&pki.ca),
        "--client-cert",
        p(&pki.client_cert),
        "--client-key",
        p(&junk),
    ]);
    assert!(!ok && err.contains("--client-key"), "{err}");
    assert!(
        !err.contains("KEEP-THIS") && !err.contains("junk.pem"),
        "{err}"
    );

    let (ok, err) = start_up(&[
        "--ca-file",
        p(&pki.ca),
        "--client-cert",
        p(&pki.client_cert),
    ]);
    assert!(!ok && err.contains("--client-key"), "{err}");
}

//! The status page opened in headless Chromium (Debian's `chromium`)
//! against a gateway whose store a real Mosquitto filled: the DOM shows the
//! published nodes and packets, a node name made of markup stays text and
//! runs nothing, and the console logs nothing.

use crate::api::{filled, HOSTILE, NAMED, NODES};
use crate::http::serving;
use crate::support::peers;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wireseal_testkit::chromium;
use wireseal_testkit::db::Db;
use wireseal_testkit::mosquitto::Mosquitto;

/// The page's DOM after its scripts ran, and what Chromium logged.
pub fn render(url: &str) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chromium::program().unwrap())
        .args(chromium::HEADLESS)
        .args([
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=8000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_page_shows_the_feed_and_runs_none_of_it() {
    if !peers(false) || !wireseal_testkit::peer_present(chromium::program().err()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let broker = Mosquitto::start().unwrap();
    let (gw, addr, _key) = filled(&broker, &db, "page");
    let (dom, log) = render(&format!("http://{addr}/"));
    gw.stop().unwrap();
    assert!(dom.contains("data-loaded=\"1\""), "{dom}\n{log}");
    for n in 0..NODES {
        assert!(
            dom.contains(&format!("data-node=\"!{:08x}\"", NAMED + n)),
            "node {n}: {dom}"
        );
    }
    // The node table shows each node's signing status.
    assert_eq!(
        dom.matches("data-signing=\"absent\"").count(),
        NODES as usize,
        "{dom}"
    );
    assert!(dom.contains("<th>signing</th>"), "{dom}");
    assert!(dom.contains("data-first-render-ms="), "{dom}");
    let packets = db.count("SELECT count(*) FROM packets") as usize;
    assert_eq!(dom.matches("data-packet=").count(), packets.min(100));
    // The hostile name is on the page as text, and nothing of it ran.
    let escaped = HOSTILE
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    assert!(dom.contains(&escaped), "{dom}");
    assert!(!dom.contains("data-pwned=\"1\""), "{dom}");
    assert!(!dom.contains("<title>pwned"), "{dom}");
    assert!(dom.contains("<title>wireseal gateway</title>"), "{dom}");
    assert!(dom.contains("class=\"badge ok\""), "{dom}");
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "{console:#?}");
}

/// The page's head as the gateway serves it: its `Content-Security-Policy`
/// and body.
fn page(addr: std::net::SocketAddr) -> (String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET / HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let csp = head
        .lines()
        .find_map(|l| l.strip_prefix("content-security-policy: "))
        .unwrap_or_else(|| panic!("no policy: {head}"))
        .to_owned();
    (csp, body.to_owned())
}

/// Without a tile server the page names no other origin; with one, its
/// policy allows images from that origin alone and the map carries the URL.
#[test]
fn a_tile_server_is_the_only_other_origin_and_only_when_set() {
    let base = wireseal_gateway::Config {
        broker: Some("mqtt://127.0.0.1:1".parse().unwrap()),
        print_records: Some(false),
        ..Default::default()
    };
    let (gw, addr) = serving(base.clone());
    let (csp, body) = page(addr);
    gw.stop().unwrap();
    assert!(csp.contains("img-src 'self' data:;"), "{csp}");
    assert!(
        !csp.contains("http") && !body.contains("data-tiles"),
        "{csp}"
    );
    let (gw, addr) = serving(wireseal_gateway::Config {
        map_tiles: Some(
            "https://tiles.example.net/osm/{z}/{x}/{y}.png"
                .parse()
                .unwrap(),
        ),
        ..base
    });
    let (csp, body) = page(addr);
    gw.stop().unwrap();
    assert!(
        csp.contains("img-src 'self' data: https://tiles.example.net;"),
        "{csp}"
    );
    assert_eq!(csp.matches("http").count(), 1, "{csp}");
    for d in [
        "script-src 'self';",
        "connect-src 'self';",
        "style-src 'self';",
    ] {
        assert!(csp.contains(d), "{csp}");
    }
    assert!(
        body.contains("data-tiles=\"https://tiles.example.net/osm/{z}/{x}/{y}.png\""),
        "{body}"
    );
}

//! Mistakes a new operator makes stop the gateway at start with the
//! setting's name and the reason; only servers that can come back are
//! waited for.

use crate::support::{key_file, peers};
use std::time::{Duration, Instant};
use wireseal_gateway::config::ConfigText;
use wireseal_gateway::{Gateway, RunError};
use wireseal_testkit::postgres::PgServer;

/// The settings as the file or the command line give them, parsed and
/// built into a gateway: the first error in words.
fn refused(c: ConfigText) -> String {
    match c.parse().and_then(Gateway::new) {
        Ok(_) => panic!("the settings were taken"),
        Err(e) => e.to_string(),
    }
}

fn base() -> ConfigText {
    ConfigText {
        broker: "mqtt://127.0.0.1:1".into(),
        ..ConfigText::default()
    }
}

#[test]
fn bad_settings_are_refused_by_name() {
    let e = refused(ConfigText {
        store: Some("sqlite:/no/such/dir/x.db".into()),
        client_id: Some("gw".into()),
        ..base()
    });
    assert!(
        e.starts_with("--store") && e.contains("does not exist"),
        "{e}"
    );
    for url in [
        "mqtt://[::1",
        "mqtt://host:99999",
        "http://host",
        "mqtt://user:pw@host",
    ] {
        let e = refused(ConfigText {
            broker: url.into(),
            ..base()
        });
        assert!(e.starts_with("--broker"), "{url}: {e}");
        assert!(!e.contains("pw@"), "{e}");
    }
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.key");
    std::fs::write(&junk, "SECRET-LOOKING not a key").unwrap();
    let e = refused(ConfigText {
        key_file: vec![junk.display().to_string()],
        ..base()
    });
    assert!(e.starts_with("--key-file") && !e.contains("SECRET"), "{e}");
    let e = refused(ConfigText {
        store: Some("sqlite:x.db".into()),
        ..base()
    });
    assert!(e.contains("--client-id"), "{e}");
    let e = refused(ConfigText {
        retain: Some("30d".into()),
        ..base()
    });
    assert!(e.starts_with("--retain"), "{e}");
    let e = refused(ConfigText {
        retain: Some("thirty days".into()),
        store: Some("sqlite:x.db".into()),
        client_id: Some("gw".into()),
        ..base()
    });
    assert!(e.starts_with("--retain"), "{e}");
    for p in ["out/#", "out/+/x", "$SYS/x", "a\nb"] {
        let e = refused(ConfigText {
            publish: Some(p.into()),
            ..base()
        });
        assert!(e.starts_with("--publish"), "{p}: {e}");
    }
    let e = refused(ConfigText {
        channel: vec!["LongFast".into()],
        ..base()
    });
    assert!(e.starts_with("--channel"), "{e}");
    let (key, _) = key_file();
    let e = refused(ConfigText {
        key_file: vec![key.path().display().to_string()],
        node: Some("!zz".into()),
        ..base()
    });
    assert!(e.starts_with("--node"), "{e}");
    let e = ConfigText::from_toml("broker = 5").unwrap_err().to_string();
    assert!(e.starts_with("--config"), "{e}");
}

/// A tile server for the status page is the operator's URL, checked at
/// start: an `http(s)` origin with `{z}`, `{x}` and `{y}`, and only with
/// `--http`.
#[test]
fn a_tile_server_is_checked_at_start() {
    let with = |url: &str, http: bool| ConfigText {
        map_tiles: Some(url.into()),
        http: http.then(|| "127.0.0.1:0".into()),
        ..base()
    };
    for bad in [
        "file:///tiles/{z}/{x}/{y}.png",
        "https://tiles.example/{z}/{x}.png",
        "https://tiles.example/{z}/{x}/{y}.png' https://evil.example",
        "https://tiles.example/{z}/{x}/{y}.png;script-src",
        "https://user@tiles.example/{z}/{x}/{y}.png",
    ] {
        let e = refused(with(bad, true));
        assert!(e.starts_with("--map-tiles: "), "{bad}: {e}");
    }
    let e = refused(with("https://tiles.example/{z}/{x}/{y}.png", false));
    assert!(e.starts_with("--map-tiles") && e.contains("--http"), "{e}");
    let ok = with("https://tiles.example/{z}/{x}/{y}.png", true);
    assert!(Gateway::new(ok.parse().unwrap()).is_ok());
    let c = ConfigText::from_toml("map-tiles = \"https://t.example/{z}/{x}/{y}.png\"").unwrap();
    assert_eq!(
        c.map_tiles.as_deref(),
        Some("https://t.example/{z}/{x}/{y}.png")
    );
}

/// A store that refuses the gateway for good is an error at once, not a
/// wait: a SQLite file that cannot be created, a PostgreSQL database that
/// does not exist.
#[test]
fn stores_that_cannot_come_back_are_not_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_db = dir.path().join("not-a-db");
    std::fs::write(&not_a_db, vec![0x55u8; 8192]).unwrap();
    let t = Instant::now();
    let gw = Gateway::new(
        ConfigText {
            store: Some(format!("sqlite:{}", not_a_db.display())),
            client_id: Some("gw".into()),
            ..base()
        }
        .parse()
        .unwrap(),
    )
    .unwrap();
    let e = gw.run().unwrap_err();
    assert!(matches!(e, RunError::Store(_)), "{e}");
    assert!(t.elapsed() < Duration::from_secs(5));
    if !peers(true) {
        return;
    }
    let pg = PgServer::start().unwrap();
    let gw = Gateway::new(
        ConfigText {
            store: Some(pg.tcp_url("no_such_database")),
            client_id: Some("gw".into()),
            ..base()
        }
        .parse()
        .unwrap(),
    )
    .unwrap();
    let t = Instant::now();
    let e = gw.run().unwrap_err().to_string();
    assert!(e.contains("does not exist"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(10));
}

//! The scenarios on SQLite files on disk.

use super::probe::{Probe, SqliteProbe};
use super::{hostile, migration, scenarios};
use crate::store::{Durability, SqliteStore, Store, StoreError, StoreUrl};
use std::path::{Path, PathBuf};

fn open() -> (tempfile::TempDir, PathBuf, Store, SqliteProbe) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gateway.db");
    let url: StoreUrl = format!("sqlite:{}", path.display()).parse().unwrap();
    let store = Store::open(&url).expect("open the SQLite store");
    let probe = SqliteProbe::open(&path);
    (dir, path, store, probe)
}

#[test]
fn sqlite_every_kind_once() {
    let (_d, _p, mut s, mut p) = open();
    scenarios::every_kind_once(&mut s, &mut p);
}

#[test]
fn sqlite_first_decoded_kept() {
    let (_d, _p, mut s, mut p) = open();
    scenarios::first_decoded_kept(&mut s, &mut p);
}

#[test]
fn sqlite_distinct_receptions() {
    let (_d, _p, mut s, mut p) = open();
    scenarios::distinct_receptions(&mut s, &mut p);
}

#[test]
fn sqlite_keys_pinned() {
    let (_d, _p, mut s, mut p) = open();
    scenarios::keys_pinned(&mut s, &mut p);
}

#[test]
fn sqlite_hostile_rows() {
    let (_d, _p, mut s, mut p) = open();
    hostile::hostile_rows(&mut s, &mut p);
}

#[test]
fn sqlite_refused_row_isolated() {
    let (_d, _p, mut s, mut p) = open();
    hostile::refused_row_isolated(&mut s, &mut p);
}

#[test]
fn sqlite_three_gateways_at_once() {
    let (_d, path, _s, mut p) = open();
    let url = StoreUrl::Sqlite(path);
    scenarios::concurrent_gateways(&|| Store::open(&url).unwrap(), &mut p);
}

#[test]
fn sqlite_wal_and_full_sync() {
    let (_d, _p, _s, mut p) = open();
    assert_eq!(p.text("PRAGMA journal_mode").as_deref(), Some("wal"));
    let (_d2, path, store, _p2) = open();
    let Store::Sqlite(s) = store else {
        unreachable!()
    };
    assert_eq!(s.path(), path);
    // synchronous: 2 is FULL.
    let sync: i64 = s
        .conn()
        .query_row("PRAGMA synchronous", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sync, 2);
}

#[test]
fn sqlite_migrates_from_empty_and_from_v1() {
    let (_d, _path, _s, mut fresh) = open();
    let fresh_schema = fresh.schema();
    assert!(
        fresh_schema
            .iter()
            .any(|l| l.contains("packets_by_portnum")),
        "{fresh_schema:?}"
    );
    assert_eq!(
        fresh.int("SELECT max(version) FROM schema_version"),
        Some(crate::store::schema::CURRENT)
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    drop(SqliteStore::open_at(&path, Durability::Full, 1).unwrap());
    let mut p = SqliteProbe::open(&path);
    assert_eq!(p.int("SELECT max(version) FROM schema_version"), Some(1));
    migration::fill_v1(&mut p);
    let mut store = Store::open(&StoreUrl::Sqlite(path.clone())).expect("migrate 1 -> current");
    migration::migrated_v1(&mut store, &mut p, &fresh_schema);
    drop(store);
    // Opening again changes nothing.
    let _again = Store::open(&StoreUrl::Sqlite(path)).unwrap();
    assert_eq!(
        p.count("SELECT count(*) FROM schema_version"),
        crate::store::schema::CURRENT
    );
}

#[test]
fn sqlite_migrates_the_earlier_releases_databases() {
    let (_d, _path, _s, mut fresh) = open();
    let fresh_schema = fresh.schema();
    for r in &migration::RELEASES {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("release.db");
        std::fs::copy(migration::fixture(r.sqlite), &path).unwrap();
        let mut p = SqliteProbe::open(&path);
        assert_eq!(
            p.int("SELECT max(version) FROM schema_version"),
            Some(r.version)
        );
        let mut store = Store::open(&StoreUrl::Sqlite(path)).expect("migrate to current");
        (r.check)(&mut store, &mut p, &fresh_schema);
    }
}

#[test]
fn sqlite_newer_schema_refused() {
    let (_d, path, store, mut p) = open();
    drop(store);
    p.exec("INSERT INTO schema_version (version, applied_ms) VALUES (99, 0)");
    match Store::open(&StoreUrl::Sqlite(path)) {
        Err(StoreError::Schema(m)) => assert!(m.contains("newer"), "{m}"),
        other => panic!("expected a schema error, got {other:?}"),
    }
}

#[test]
fn sqlite_foreign_tables_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute_batch("CREATE TABLE packets (x TEXT)").unwrap();
    drop(c);
    match Store::open(&StoreUrl::Sqlite(path)) {
        Err(StoreError::Schema(m)) => assert!(m.contains("already exists"), "{m}"),
        other => panic!("expected a schema error, got {other:?}"),
    }
}

#[test]
fn store_urls() {
    let p = |s: &str| s.parse::<StoreUrl>();
    assert!(
        matches!(p("sqlite:/var/lib/gw.db"), Ok(StoreUrl::Sqlite(x)) if x == Path::new("/var/lib/gw.db"))
    );
    assert!(
        matches!(p("sqlite:///var/lib/gw.db"), Ok(StoreUrl::Sqlite(x)) if x == Path::new("/var/lib/gw.db"))
    );
    assert!(matches!(p("gw.db"), Ok(StoreUrl::Sqlite(x)) if x == Path::new("gw.db")));
    assert!(matches!(p("sqlite:"), Err(StoreError::Url(_))));
    assert!(matches!(p("mysql://x/y"), Err(StoreError::Url(_))));
    let u = p("postgres://gw:s3cret@db.example:5433/mesh").unwrap();
    let shown = u.to_string();
    assert!(!shown.contains("s3cret"), "{shown}");
    assert!(shown.contains("mesh") && shown.contains("db.example") && shown.contains("5433"));
    let u = p("postgresql:///mesh?host=/run/postgresql&user=gw").unwrap();
    assert!(u.to_string().contains("/run/postgresql"), "{u}");
    match p("postgres://gw:s3cret@db.example:notaport/mesh") {
        Err(StoreError::Url(m)) => assert!(!m.contains("s3cret"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// A file that is not a database is refused for good, and the error carries
/// SQLite's own as its source.
#[test]
fn sqlite_refusal_carries_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not-a-db");
    std::fs::write(&path, vec![0x55u8; 8192]).unwrap();
    let e = match Store::open(&StoreUrl::Sqlite(path)) {
        Err(e) => e,
        Ok(_) => panic!("a file that is not a database was opened"),
    };
    assert!(matches!(e, StoreError::Refused(_)), "{e}");
    let source = std::error::Error::source(&e).expect("a source");
    assert!(
        source.downcast_ref::<rusqlite::Error>().is_some(),
        "{source:?}"
    );
}

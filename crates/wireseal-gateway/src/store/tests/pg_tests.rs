//! The scenarios on a PostgreSQL server the test starts (one server, one
//! database per scenario and method), over loopback TCP and the unix socket.

use super::probe::{PgProbe, Probe};
use super::{hostile, migration, scenarios};
use crate::store::{postgres, PgMethod, PgStore, Store, StoreError, StoreUrl};
use wireseal_testkit::postgres::PgServer;

fn open(url: &str, method: PgMethod) -> Store {
    let StoreUrl::Postgres(c) = url.parse().expect("a PostgreSQL URL") else {
        panic!("{url} is not a PostgreSQL URL")
    };
    Store::Postgres(Box::new(
        PgStore::open(*c, method).unwrap_or_else(|e| panic!("{url}: {e}")),
    ))
}

type Scenario = fn(&mut Store, &mut dyn Probe);

#[test]
fn postgres_scenarios() {
    let server = PgServer::start().expect("a PostgreSQL server");
    let list: [(&str, Scenario); 6] = [
        ("every_kind_once", scenarios::every_kind_once),
        ("first_decoded_kept", scenarios::first_decoded_kept),
        ("distinct_receptions", scenarios::distinct_receptions),
        ("keys_pinned", scenarios::keys_pinned),
        ("hostile_rows", hostile::hostile_rows),
        ("refused_row_isolated", hostile::refused_row_isolated),
    ];
    for (m, method) in [PgMethod::Unnest, PgMethod::Copy].into_iter().enumerate() {
        for (i, (name, run)) in list.iter().enumerate() {
            let db = format!("{name}_{m}");
            server.create_db(&db).expect("createdb");
            let url = if (i + m) % 2 == 0 {
                server.tcp_url(&db)
            } else {
                server.socket_url(&db)
            };
            let mut store = open(&url, method);
            let mut probe = PgProbe::connect(&server.tcp_url(&db));
            run(&mut store, &mut probe);
        }
        let db = format!("concurrent_{m}");
        server.create_db(&db).expect("createdb");
        let url = server.socket_url(&db);
        let mut probe = PgProbe::connect(&url);
        scenarios::concurrent_gateways(&|| open(&url, method), &mut probe);
    }
}

#[test]
fn postgres_migrates_from_empty_and_from_v1() {
    let server = PgServer::start().expect("a PostgreSQL server");
    server.create_db("fresh").expect("createdb");
    let _fresh_store = open(&server.tcp_url("fresh"), PgMethod::Unnest);
    let mut fresh = PgProbe::connect(&server.tcp_url("fresh"));
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

    server.create_db("old").expect("createdb");
    let mut p = PgProbe::connect(&server.tcp_url("old"));
    {
        let (rt, client) = p.client();
        rt.block_on(postgres::migrate(client, 1))
            .expect("a version-1 schema");
    }
    assert_eq!(p.int("SELECT max(version) FROM schema_version"), Some(1));
    migration::fill_v1(&mut p);
    let mut store = open(&server.socket_url("old"), PgMethod::Unnest);
    migration::migrated_v1(&mut store, &mut p, &fresh_schema);
    drop(store);
    let _again = open(&server.tcp_url("old"), PgMethod::Copy);
    assert_eq!(
        p.count("SELECT count(*) FROM schema_version"),
        crate::store::schema::CURRENT
    );

    for r in &migration::RELEASES {
        let db = format!("release_v{}", r.version);
        server.create_db(&db).expect("createdb");
        server
            .run_sql_file(&db, &migration::fixture(r.postgres))
            .expect("load the release's database");
        let mut probe = PgProbe::connect(&server.tcp_url(&db));
        assert_eq!(
            probe.int("SELECT max(version) FROM schema_version"),
            Some(r.version)
        );
        let mut store = open(&server.socket_url(&db), PgMethod::Unnest);
        (r.check)(&mut store, &mut probe, &fresh_schema);
    }

    p.exec("INSERT INTO schema_version (version, applied_ms) VALUES (99, 0)");
    let StoreUrl::Postgres(c) = server.tcp_url("old").parse().unwrap() else {
        unreachable!()
    };
    match PgStore::open(*c, PgMethod::Unnest) {
        Err(StoreError::Schema(m)) => assert!(m.contains("newer"), "{m}"),
        other => panic!("expected a schema error, got {other:?}"),
    }
}

#[test]
fn postgres_unreachable_is_unavailable() {
    let server = PgServer::start().expect("a PostgreSQL server");
    let url = server.tcp_url("postgres");
    drop(server);
    let StoreUrl::Postgres(c) = url.parse().unwrap() else {
        unreachable!()
    };
    match PgStore::open(*c, PgMethod::Unnest) {
        Err(e @ StoreError::Unavailable(_)) => assert!(e.is_retryable()),
        other => panic!("expected unavailable, got {other:?}"),
    }
}

#[test]
fn postgres_on_the_callers_runtime() {
    let server = PgServer::start().expect("a PostgreSQL server");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    server.create_db("shared").expect("createdb");
    let url: StoreUrl = server.socket_url("shared").parse().unwrap();
    let mut store = Store::open_on(&url, rt.handle()).expect("open on the runtime");
    // The connection is a task of the caller's runtime.
    assert_eq!(rt.metrics().num_alive_tasks(), 1);
    let mut probe = PgProbe::connect(&server.tcp_url("shared"));
    scenarios::every_kind_once(&mut store, &mut probe);
    assert_eq!(store.prune(u64::MAX, 1_000).map(|(p, _)| p > 0), Ok(true));
    drop(store);
    let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while rt.metrics().num_alive_tasks() > 0 {
        assert!(
            std::time::Instant::now() < end,
            "the connection outlived its store"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // Several stores on the one runtime, each used from a thread of its own.
    server.create_db("shared_concurrent").expect("createdb");
    let url: StoreUrl = server.tcp_url("shared_concurrent").parse().unwrap();
    let mut probe = PgProbe::connect(&server.tcp_url("shared_concurrent"));
    scenarios::concurrent_gateways(
        &|| Store::open_on(&url, rt.handle()).expect("open on the runtime"),
        &mut probe,
    );
}

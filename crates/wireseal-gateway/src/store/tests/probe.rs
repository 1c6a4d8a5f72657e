//! Reads the store's tables back through each database's own client, so the
//! scenarios check what is stored, not what the store says it stored.

use crate::store::{Committed, Record, Store};
use std::path::Path;

/// Writes one batch, which must commit.
pub fn write(store: &mut Store, batch: &[Record]) -> Committed {
    store.write_batch(batch).expect("batch committed")
}

/// A text column of the packet from `from`.
pub fn packet_text(p: &mut dyn Probe, col: &str, from: u32) -> Option<String> {
    p.text(&format!(
        "SELECT {col} FROM packets WHERE from_node = {from}"
    ))
}

/// A text column of node `node`.
pub fn node_text(p: &mut dyn Probe, col: &str, node: u32) -> Option<String> {
    p.text(&format!("SELECT {col} FROM nodes WHERE node = {node}"))
}

/// Queries on a store's database.
pub trait Probe {
    /// The integer (or NULL as `None`) in the first column of the first row.
    fn int(&mut self, sql: &str) -> Option<i64>;
    /// The text (or NULL) in the first column of the first row.
    fn text(&mut self, sql: &str) -> Option<String>;
    /// The bytes (or NULL) in the first column of the first row.
    fn bytes(&mut self, sql: &str) -> Option<Vec<u8>>;
    /// Runs statements.
    fn exec(&mut self, sql: &str);
    /// The tables, columns, keys and indexes, one line each, sorted.
    fn schema(&mut self) -> Vec<String>;
    /// Which database it is.
    fn dialect(&self) -> &'static str;

    /// `int` of a count.
    fn count(&mut self, sql: &str) -> i64 {
        self.int(sql).unwrap_or(-1)
    }
}

/// A second connection to a SQLite file.
pub struct SqliteProbe(pub rusqlite::Connection);

impl SqliteProbe {
    /// Opens `path`.
    pub fn open(path: &Path) -> Self {
        Self(rusqlite::Connection::open(path).expect("open the SQLite file"))
    }
}

impl Probe for SqliteProbe {
    fn int(&mut self, sql: &str) -> Option<i64> {
        self.0
            .query_row(sql, [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
    fn text(&mut self, sql: &str) -> Option<String> {
        self.0
            .query_row(sql, [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
    fn bytes(&mut self, sql: &str) -> Option<Vec<u8>> {
        self.0
            .query_row(sql, [], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
    fn exec(&mut self, sql: &str) {
        self.0
            .execute_batch(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    fn schema(&mut self) -> Vec<String> {
        let mut st = self
            .0
            .prepare(
                "SELECT m.name || ' ' || p.name || ' ' || p.type || ' notnull=' || p.\"notnull\" \
                 || ' pk=' || p.pk FROM sqlite_master m, pragma_table_info(m.name) p \
                 WHERE m.type = 'table' \
                 UNION ALL SELECT 'index ' || name || ' on ' || tbl_name || ' ' || coalesce(sql, '') \
                 FROM sqlite_master WHERE type = 'index' ORDER BY 1",
            )
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }
    fn dialect(&self) -> &'static str {
        "sqlite"
    }
}

/// A client connection to a PostgreSQL database.
pub struct PgProbe {
    rt: tokio::runtime::Runtime,
    client: tokio_postgres::Client,
}

impl PgProbe {
    /// Connects to `url`.
    pub fn connect(url: &str) -> Self {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let client = rt.block_on(async {
            let (c, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .unwrap_or_else(|e| panic!("connecting to {url}: {e}"));
            tokio::spawn(async move {
                let _ = conn.await;
            });
            c
        });
        Self { rt, client }
    }

    /// The client, for raw statements.
    pub fn client(&mut self) -> (&tokio::runtime::Runtime, &mut tokio_postgres::Client) {
        (&self.rt, &mut self.client)
    }

    fn one(&mut self, sql: &str) -> tokio_postgres::Row {
        self.rt
            .block_on(self.client.query_one(sql, &[]))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
}

impl Probe for PgProbe {
    fn int(&mut self, sql: &str) -> Option<i64> {
        let row = self.one(sql);
        row.try_get::<_, Option<i64>>(0)
            .or_else(|_| row.try_get::<_, Option<i32>>(0).map(|v| v.map(i64::from)))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
    fn text(&mut self, sql: &str) -> Option<String> {
        self.one(sql).get(0)
    }
    fn bytes(&mut self, sql: &str) -> Option<Vec<u8>> {
        self.one(sql).get(0)
    }
    fn exec(&mut self, sql: &str) {
        self.rt
            .block_on(self.client.batch_execute(sql))
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    fn schema(&mut self) -> Vec<String> {
        let sql = "SELECT table_name || ' ' || column_name || ' ' || data_type || ' ' \
                   || is_nullable || ' ' || ordinal_position \
                   FROM information_schema.columns WHERE table_schema = 'public' \
                   UNION ALL SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' \
                   || pg_get_constraintdef(oid) FROM pg_constraint \
                   WHERE connamespace = 'public'::regnamespace \
                   UNION ALL SELECT 'index ' || indexdef FROM pg_indexes \
                   WHERE schemaname = 'public' ORDER BY 1";
        self.rt
            .block_on(self.client.query(sql, &[]))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .iter()
            .map(|r| r.get(0))
            .collect()
    }
    fn dialect(&self) -> &'static str {
        "postgres"
    }
}

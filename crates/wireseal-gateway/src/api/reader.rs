//! Read-only queries on the store for the HTTP API: SQLite through a small
//! pool of read-only connections on blocking threads, PostgreSQL through a
//! pool of as many `tokio-postgres` connections, each made when first
//! needed (and again after it is lost) and keeping its prepared statements,
//! so a request's queries neither wait for another request's nor parse and
//! plan their SQL again. One SQL text serves both: parameters are written `$1`, `$2`,
//! … in the order they first appear (SQLite numbers named parameters that
//! way). Every row comes back as a struct of its shape ([`FromRow`]), its
//! fields read by column name.

use super::columns::{ColumnError, FromRow};
use crate::store::StoreUrl;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_postgres::types::ToSql;

/// Why the store could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// SQLite refused the query or the connection.
    #[error("SQLite: {0}")]
    Sqlite(#[source] rusqlite::Error),
    /// PostgreSQL refused the query, or the connection failed.
    #[error("PostgreSQL: {0}")]
    Postgres(#[source] tokio_postgres::Error),
    /// No answer within the time a query may take.
    #[error("the store did not answer within {} s", .0.as_secs())]
    Timeout(Duration),
    /// The blocking thread running the query ended without an answer.
    #[error("the query's thread ended: {0}")]
    Thread(#[source] tokio::task::JoinError),
    /// A column of a row is not what its shape needs.
    #[error(transparent)]
    Column(#[from] ColumnError),
}

/// A query's parameter.
#[derive(Debug, Clone)]
pub(crate) enum Param {
    Int(i64),
    Text(String),
    Blob(Vec<u8>),
}

/// Read connections kept for reuse: the HTTP side answers as many API
/// requests at once.
pub(crate) const POOL: usize = 2;
/// Prepared statements kept per PostgreSQL read connection: the API's SQL
/// texts are the code's own, a few dozen; beyond this many all are dropped.
const STATEMENTS_KEPT: usize = 64;
/// The page cache of each read connection, in KiB.
const READ_CACHE_KIB: i64 = 512;
/// How long one query may take.
const QUERY_TIMEOUT: Duration = Duration::from_secs(10);

/// The store, read.
pub(crate) enum Reader {
    Sqlite(Arc<SqliteReader>),
    Postgres {
        config: Box<tokio_postgres::Config>,
        pool: Mutex<Vec<PgReadConnection>>,
    },
}

/// A PostgreSQL read connection and the statements prepared on it, by SQL
/// text.
pub(crate) struct PgReadConnection {
    client: tokio_postgres::Client,
    statements: HashMap<String, tokio_postgres::Statement>,
}

/// A SQLite file and the read connections kept for it.
pub(crate) struct SqliteReader {
    path: PathBuf,
    pool: Mutex<Vec<rusqlite::Connection>>,
}

impl Reader {
    pub(crate) fn new(url: &StoreUrl) -> Self {
        match url {
            StoreUrl::Sqlite(p) => Reader::Sqlite(Arc::new(SqliteReader {
                path: p.clone(),
                pool: Mutex::new(Vec::new()),
            })),
            StoreUrl::Postgres(c) => Reader::Postgres {
                config: c.clone(),
                pool: Mutex::new(Vec::new()),
            },
        }
    }

    /// Runs `sql` with `params`; every row, as `T`. SQLite's queries run on
    /// the runtime's blocking threads: callers bound how many at once.
    pub(crate) async fn query<T: FromRow>(
        &self,
        sql: String,
        params: Vec<Param>,
    ) -> Result<Vec<T>, ReadError> {
        match self {
            Reader::Sqlite(s) => {
                let s = s.clone();
                tokio::task::spawn_blocking(move || s.query(&sql, &params))
                    .await
                    .map_err(ReadError::Thread)?
            }
            Reader::Postgres { config, pool } => {
                let taken = pool.lock().ok().and_then(|mut p| p.pop());
                let mut c = match taken {
                    Some(c) if !c.client.is_closed() => c,
                    _ => PgReadConnection::connect(config).await?,
                };
                let rows = match c.query(&sql, &params).await {
                    // The server ended the session since it was last used:
                    // once more on a new one.
                    Err(ReadError::Postgres(e)) if c.client.is_closed() || ended(&e) => {
                        c = PgReadConnection::connect(config).await?;
                        c.query(&sql, &params).await
                    }
                    rows => rows,
                };
                if let Ok(mut p) = pool.lock() {
                    if p.len() < POOL {
                        p.push(c);
                    }
                }
                Ok(rows?
                    .iter()
                    .map(|r| T::from_row(r))
                    .collect::<Result<_, _>>()?)
            }
        }
    }
}

impl PgReadConnection {
    /// A new connection, driven as a task of the current runtime.
    async fn connect(config: &tokio_postgres::Config) -> Result<Self, ReadError> {
        let (client, conn) = in_time(config.connect(tokio_postgres::NoTls)).await?;
        tokio::spawn(conn);
        Ok(Self {
            client,
            statements: HashMap::new(),
        })
    }

    /// Runs `sql` with `params`, prepared on this connection the first time.
    async fn query(
        &mut self,
        sql: &str,
        params: &[Param],
    ) -> Result<Vec<tokio_postgres::Row>, ReadError> {
        let statement = match self.statements.get(sql) {
            Some(s) => s.clone(),
            None => {
                let s = in_time(self.client.prepare(sql)).await?;
                if self.statements.len() >= STATEMENTS_KEPT {
                    self.statements.clear();
                }
                self.statements.insert(sql.to_owned(), s.clone());
                s
            }
        };
        pg_query(&self.client, &statement, params).await
    }
}

async fn pg_query(
    c: &tokio_postgres::Client,
    statement: &tokio_postgres::Statement,
    params: &[Param],
) -> Result<Vec<tokio_postgres::Row>, ReadError> {
    let refs: Vec<&(dyn ToSql + Sync)> = params
        .iter()
        .map(|p| -> &(dyn ToSql + Sync) {
            match p {
                Param::Int(v) => v,
                Param::Text(v) => v,
                Param::Blob(v) => v,
            }
        })
        .collect();
    in_time(c.query(statement, &refs)).await
}

impl SqliteReader {
    fn query<T: FromRow>(&self, sql: &str, params: &[Param]) -> Result<Vec<T>, ReadError> {
        let taken = self.pool.lock().ok().and_then(|mut p| p.pop());
        let conn = match taken {
            Some(c) => c,
            None => open_read(&self.path).map_err(ReadError::Sqlite)?,
        };
        let out = sqlite_rows(&conn, sql, params);
        if let Ok(mut p) = self.pool.lock() {
            if p.len() < POOL {
                p.push(conn);
            }
        }
        out
    }
}

/// Whether `e` says the server ended the session (a FATAL error, sent as
/// the answer to the query that was waiting, or the connection closed).
fn ended(e: &tokio_postgres::Error) -> bool {
    e.is_closed()
        || e.as_db_error()
            .and_then(tokio_postgres::error::DbError::parsed_severity)
            == Some(tokio_postgres::error::Severity::Fatal)
}

/// `f`'s result, or [`ReadError::Timeout`] after [`QUERY_TIMEOUT`].
async fn in_time<T>(
    f: impl std::future::Future<Output = Result<T, tokio_postgres::Error>>,
) -> Result<T, ReadError> {
    tokio::time::timeout(QUERY_TIMEOUT, f)
        .await
        .map_err(|_| ReadError::Timeout(QUERY_TIMEOUT))?
        .map_err(ReadError::Postgres)
}

/// A read-only connection to the SQLite file at `path`.
fn open_read(path: &std::path::Path) -> Result<rusqlite::Connection, rusqlite::Error> {
    use rusqlite::OpenFlags;
    let c = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(QUERY_TIMEOUT)?;
    // A small page cache per reader, for the database and for the temporary
    // tables of sorts and groups: the API reads a few index pages per
    // request, and the pool's memory stays bounded.
    c.pragma_update(None, "cache_size", -READ_CACHE_KIB)?;
    c.execute_batch(&format!("PRAGMA temp.cache_size = -{READ_CACHE_KIB}"))?;
    Ok(c)
}

fn sqlite_rows<T: FromRow>(
    conn: &rusqlite::Connection,
    sql: &str,
    params: &[Param],
) -> Result<Vec<T>, ReadError> {
    let mut st = conn.prepare_cached(sql).map_err(ReadError::Sqlite)?;
    for (i, p) in params.iter().enumerate() {
        match p {
            Param::Int(v) => st.raw_bind_parameter(i + 1, v),
            Param::Text(v) => st.raw_bind_parameter(i + 1, v),
            Param::Blob(v) => st.raw_bind_parameter(i + 1, v),
        }
        .map_err(ReadError::Sqlite)?;
    }
    let mut rows = st.raw_query();
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(ReadError::Sqlite)? {
        out.push(T::from_row(r).map_err(ReadError::Column)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::columns::row_shape;
    use super::*;

    row_shape! {
        /// A row of the test's table.
        Thing {
            id: i64,
            name: Option<String>,
            weight: Option<f64>,
            data: Vec<u8>,
        }
    }

    fn sqlite_file() -> (tempfile::TempDir, Arc<Reader>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE t (data BLOB, weight REAL, name TEXT, id INTEGER);
             INSERT INTO t VALUES (x'0102', 2.5, 'a', 7), (x'', NULL, NULL, 8);",
        )
        .unwrap();
        let r = Arc::new(Reader::new(&StoreUrl::Sqlite(path)));
        (dir, r)
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn rows_are_read_by_column_name_whatever_their_order() {
        let (_dir, r) = sqlite_file();
        let rows: Vec<Thing> = block_on(r.query(
            "SELECT name, id, data, weight FROM t WHERE id >= $1 ORDER BY id".into(),
            vec![Param::Int(7)],
        ))
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].id, rows[0].name.as_deref(), rows[0].weight),
            (7, Some("a"), Some(2.5))
        );
        assert_eq!(rows[0].data, [1, 2]);
        assert_eq!(
            (rows[1].id, rows[1].name.as_deref(), rows[1].weight),
            (8, None, None)
        );
    }

    #[test]
    fn a_missing_null_or_mistyped_column_is_named() {
        let (_dir, r) = sqlite_file();
        let err = |sql: &str| {
            block_on(r.query::<Thing>(sql.into(), Vec::new()))
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        let e = err("SELECT id, name, weight FROM t");
        assert!(e.starts_with("column data: not in the row"), "{e}");
        let e = err("SELECT id, name, weight, NULL AS data FROM t");
        assert!(e.starts_with("column data: NULL"), "{e}");
        let e = err("SELECT name AS id, name, weight, data FROM t");
        assert!(e.starts_with("column id: text where an integer"), "{e}");
    }

    /// The connections kept and the statements prepared on each, for a
    /// PostgreSQL reader.
    fn kept(r: &Reader) -> Vec<usize> {
        match r {
            Reader::Postgres { pool, .. } => pool
                .lock()
                .unwrap()
                .iter()
                .map(|c| c.statements.len())
                .collect(),
            Reader::Sqlite(_) => panic!("not PostgreSQL"),
        }
    }

    #[test]
    fn postgres_reads_keep_their_connections_and_statements_and_reconnect() {
        let pg = wireseal_testkit::postgres::PgServer::start().expect("a PostgreSQL server");
        pg.fresh_db("reader").unwrap();
        let url: StoreUrl = pg.tcp_url("reader").parse().unwrap();
        let r = Arc::new(Reader::new(&url));
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let sql = "SELECT $1::int8 AS id, 'a'::text AS name, NULL::float8 AS weight, \
                   '\\x0102'::bytea AS data";
        let one = |n: i64| {
            let r = r.clone();
            async move { r.query::<Thing>(sql.into(), vec![Param::Int(n)]).await }
        };
        // Two at once: two connections, each preparing the statement.
        let (a, b) = rt.block_on(async { tokio::join!(one(1), one(2)) });
        assert_eq!((a.unwrap()[0].id, b.unwrap()[0].id), (1, 2));
        assert_eq!(kept(&r), [1, 1]);
        // Again, one after the other: nothing new made or prepared.
        for n in 3..6 {
            assert_eq!(rt.block_on(one(n)).unwrap()[0].data, [1, 2]);
        }
        assert_eq!(kept(&r), [1, 1]);
        // The server ends every other session: the next reads connect again,
        // whether or not the ended sessions were seen closed before.
        let end: Vec<Thing> = rt
            .block_on(
                r.query(
                    "SELECT count(*) AS id, NULL::text AS name, NULL::float8 AS weight, \
                 ''::bytea AS data FROM (SELECT pg_terminate_backend(pid) FROM \
                 pg_stat_activity WHERE datname = 'reader' AND pid <> pg_backend_pid()) AS t"
                        .into(),
                    Vec::new(),
                ),
            )
            .unwrap();
        assert_eq!(end[0].id, 1);
        let rows = rt.block_on(async { tokio::join!(one(7), one(8)) });
        assert_eq!((rows.0.unwrap()[0].id, rows.1.unwrap()[0].id), (7, 8));
        assert_eq!(kept(&r).len(), 2);
    }
}

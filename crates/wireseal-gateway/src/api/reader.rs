//! Read-only queries on the store for the HTTP API: SQLite through a small
//! pool of read-only connections on blocking threads, PostgreSQL through
//! one `tokio-postgres` connection made when first needed and again after
//! it is lost. One SQL text serves both: parameters are written `$1`, `$2`,
//! … in the order they first appear (SQLite numbers named parameters that
//! way).

use crate::store::StoreUrl;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_postgres::types::{ToSql, Type};

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Cell {
    pub(crate) fn int(&self) -> Option<i64> {
        match self {
            Cell::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Cell::Text(v) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn blob(&self) -> Option<&[u8]> {
        match self {
            Cell::Blob(v) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        match self {
            Cell::Null | Cell::Blob(_) => serde_json::Value::Null,
            Cell::Int(v) => (*v).into(),
            Cell::Real(v) => {
                serde_json::Number::from_f64(*v).map_or(serde_json::Value::Null, Into::into)
            }
            Cell::Text(v) => v.as_str().into(),
        }
    }
}

/// A query's parameter.
#[derive(Debug, Clone)]
pub(crate) enum Param {
    Int(i64),
    Text(String),
}

/// Read connections kept for reuse (SQLite).
const POOL: usize = 2;
/// The page cache of each read connection, in KiB.
const READ_CACHE_KIB: i64 = 512;
/// How long one query may take.
const QUERY_TIMEOUT: Duration = Duration::from_secs(10);

/// The store, read.
pub(crate) enum Reader {
    Sqlite {
        path: PathBuf,
        pool: Mutex<Vec<rusqlite::Connection>>,
    },
    Postgres {
        config: Box<tokio_postgres::Config>,
        client: tokio::sync::Mutex<Option<tokio_postgres::Client>>,
    },
}

impl Reader {
    pub(crate) fn new(url: &StoreUrl) -> Self {
        match url {
            StoreUrl::Sqlite(p) => Reader::Sqlite {
                path: p.clone(),
                pool: Mutex::new(Vec::new()),
            },
            StoreUrl::Postgres(c) => Reader::Postgres {
                config: c.clone(),
                client: tokio::sync::Mutex::new(None),
            },
        }
    }

    /// Runs `sql` with `params`; every row's cells.
    pub(crate) async fn query(
        self: &Arc<Self>,
        sql: String,
        params: Vec<Param>,
    ) -> Result<Vec<Vec<Cell>>, String> {
        match &**self {
            Reader::Sqlite { .. } => {
                let me = self.clone();
                tokio::task::spawn_blocking(move || me.sqlite(&sql, &params))
                    .await
                    .map_err(|e| e.to_string())?
            }
            Reader::Postgres { config, client } => {
                let mut guard = client.lock().await;
                if guard.as_ref().is_none_or(|c| c.is_closed()) {
                    let (c, conn) =
                        tokio::time::timeout(QUERY_TIMEOUT, config.connect(tokio_postgres::NoTls))
                            .await
                            .map_err(|_| "the store did not answer in time".to_owned())?
                            .map_err(|e| e.to_string())?;
                    tokio::spawn(conn);
                    *guard = Some(c);
                }
                let Some(c) = guard.as_ref() else {
                    return Err("no connection".into());
                };
                let boxed: Vec<Box<dyn ToSql + Sync + Send>> = params
                    .into_iter()
                    .map(|p| -> Box<dyn ToSql + Sync + Send> {
                        match p {
                            Param::Int(v) => Box::new(v),
                            Param::Text(v) => Box::new(v),
                        }
                    })
                    .collect();
                let refs: Vec<&(dyn ToSql + Sync)> =
                    boxed.iter().map(|b| &**b as &(dyn ToSql + Sync)).collect();
                let rows = tokio::time::timeout(QUERY_TIMEOUT, c.query(&sql, &refs))
                    .await
                    .map_err(|_| "the store did not answer in time".to_owned())?
                    .map_err(|e| e.to_string())?;
                rows.iter().map(pg_row).collect()
            }
        }
    }

    fn sqlite(&self, sql: &str, params: &[Param]) -> Result<Vec<Vec<Cell>>, String> {
        let Reader::Sqlite { path, pool } = self else {
            return Err("not SQLite".into());
        };
        let taken = pool.lock().map_err(|e| e.to_string())?.pop();
        let conn = match taken {
            Some(c) => c,
            None => {
                use rusqlite::OpenFlags;
                let c = rusqlite::Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .map_err(|e| e.to_string())?;
                c.busy_timeout(QUERY_TIMEOUT).map_err(|e| e.to_string())?;
                // A small page cache per reader, for the database and for
                // the temporary tables of sorts and groups: the API reads a
                // few index pages per request, and the pool's memory stays
                // bounded.
                c.pragma_update(None, "cache_size", -READ_CACHE_KIB)
                    .map_err(|e| e.to_string())?;
                c.execute_batch(&format!("PRAGMA temp.cache_size = -{READ_CACHE_KIB}"))
                    .map_err(|e| e.to_string())?;
                c
            }
        };
        let out = sqlite_rows(&conn, sql, params);
        if let Ok(mut p) = pool.lock() {
            if p.len() < POOL {
                p.push(conn);
            }
        }
        out
    }
}

fn sqlite_rows(
    conn: &rusqlite::Connection,
    sql: &str,
    params: &[Param],
) -> Result<Vec<Vec<Cell>>, String> {
    use rusqlite::types::ValueRef;
    let mut st = conn.prepare_cached(sql).map_err(|e| e.to_string())?;
    for (i, p) in params.iter().enumerate() {
        match p {
            Param::Int(v) => st.raw_bind_parameter(i + 1, v),
            Param::Text(v) => st.raw_bind_parameter(i + 1, v),
        }
        .map_err(|e| e.to_string())?;
    }
    let n = st.column_count();
    let mut rows = st.raw_query();
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(|e| e.to_string())? {
        let mut row = Vec::with_capacity(n);
        for i in 0..n {
            row.push(match r.get_ref(i).map_err(|e| e.to_string())? {
                ValueRef::Null => Cell::Null,
                ValueRef::Integer(v) => Cell::Int(v),
                ValueRef::Real(v) => Cell::Real(v),
                ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
            });
        }
        out.push(row);
    }
    Ok(out)
}

fn pg_row(r: &tokio_postgres::Row) -> Result<Vec<Cell>, String> {
    let e = |e: tokio_postgres::Error| e.to_string();
    (0..r.len())
        .map(|i| {
            let t = r.columns()[i].type_();
            Ok(if *t == Type::INT8 {
                r.try_get::<_, Option<i64>>(i)
                    .map_err(e)?
                    .map_or(Cell::Null, Cell::Int)
            } else if *t == Type::INT4 {
                r.try_get::<_, Option<i32>>(i)
                    .map_err(e)?
                    .map_or(Cell::Null, |v| Cell::Int(v.into()))
            } else if *t == Type::INT2 {
                r.try_get::<_, Option<i16>>(i)
                    .map_err(e)?
                    .map_or(Cell::Null, |v| Cell::Int(v.into()))
            } else if *t == Type::FLOAT4 {
                r.try_get::<_, Option<f32>>(i)
                    .map_err(e)?
                    .map_or(Cell::Null, |v| Cell::Real(v.into()))
            } else if *t == Type::FLOAT8 {
                r.try_get::<_, Option<f64>>(i)
                    .map_err(e)?
                    .map_or(Cell::Null, Cell::Real)
            } else if *t == Type::BYTEA {
                r.try_get::<_, Option<Vec<u8>>>(i)
                    .map_err(e)?
                    .map_or(Cell::Null, Cell::Blob)
            } else {
                r.try_get::<_, Option<String>>(i)
                    .map_err(e)?
                    .map_or(Cell::Null, Cell::Text)
            })
        })
        .collect()
}

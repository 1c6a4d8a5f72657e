//! A database read back with its own client: SQLite through rusqlite,
//! PostgreSQL through tokio-postgres' simple protocol, every value as text.

use std::time::{Duration, Instant};

/// A database a test reads.
#[derive(Debug, Clone)]
pub enum Db {
    /// A SQLite file.
    Sqlite(std::path::PathBuf),
    /// A PostgreSQL database (libpq URL).
    Pg(String),
}

impl Db {
    /// The URL a store takes: `sqlite:PATH` or the PostgreSQL URL.
    pub fn url(&self) -> String {
        match self {
            Db::Sqlite(p) => format!("sqlite:{}", p.display()),
            Db::Pg(u) => u.clone(),
        }
    }

    /// The rows of `sql`, every column as text (NULL as `None`).
    ///
    /// # Panics
    /// When the database cannot be read or the query fails.
    pub fn rows(&self, sql: &str) -> Vec<Vec<Option<String>>> {
        match self {
            Db::Sqlite(p) => {
                let c = rusqlite::Connection::open(p).expect("open the SQLite file");
                let mut st = c.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
                let n = st.column_count();
                st.query_map([], |row| {
                    (0..n)
                        .map(|i| {
                            row.get_ref(i).map(|v| match v {
                                rusqlite::types::ValueRef::Null => None,
                                rusqlite::types::ValueRef::Integer(i) => Some(i.to_string()),
                                rusqlite::types::ValueRef::Real(f) => Some(f.to_string()),
                                rusqlite::types::ValueRef::Text(t) => {
                                    Some(String::from_utf8_lossy(t).into_owned())
                                }
                                rusqlite::types::ValueRef::Blob(b) => {
                                    Some(b.iter().map(|x| format!("{x:02x}")).collect::<String>())
                                }
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()
                })
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
                .map(|r| r.expect("a row"))
                .collect()
            }
            Db::Pg(url) => {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime");
                rt.block_on(async {
                    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                        .await
                        .unwrap_or_else(|e| panic!("connecting to the test's PostgreSQL: {e}"));
                    tokio::spawn(conn);
                    let msgs = client
                        .simple_query(sql)
                        .await
                        .unwrap_or_else(|e| panic!("{sql}: {e}"));
                    msgs.into_iter()
                        .filter_map(|m| match m {
                            tokio_postgres::SimpleQueryMessage::Row(r) => {
                                Some((0..r.len()).map(|i| r.get(i).map(str::to_owned)).collect())
                            }
                            _ => None,
                        })
                        .collect()
                })
            }
        }
    }

    /// Runs statements.
    ///
    /// # Panics
    /// When they fail.
    pub fn exec(&self, sql: &str) {
        match self {
            Db::Sqlite(p) => rusqlite::Connection::open(p)
                .and_then(|c| c.execute_batch(sql))
                .unwrap_or_else(|e| panic!("{sql}: {e}")),
            Db::Pg(_) => drop(self.rows(sql)),
        }
    }

    /// The number in the first column of the first row (a count).
    ///
    /// # Panics
    /// When there is none.
    pub fn count(&self, sql: &str) -> u64 {
        self.rows(sql)[0][0]
            .as_deref()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{sql}: not a count"))
    }

    /// Waits until `sql` counts at least `n` (or `timeout` passes); returns
    /// the last count.
    pub fn wait_count(&self, sql: &str, n: u64, timeout: Duration) -> u64 {
        let end = Instant::now() + timeout;
        loop {
            let c = self.count(sql);
            if c >= n || Instant::now() > end {
                return c;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

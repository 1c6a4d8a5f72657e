//! A PostgreSQL server of the test's own: Debian's binaries
//! (`WIRESEAL_PG_BIN`, else the newest `/usr/lib/postgresql/*/bin`),
//! `initdb` into a temporary directory, a free loopback port and a unix
//! socket in that directory, the server's default settings
//! (`synchronous_commit` on). PostgreSQL refuses to run as root, so under
//! root the server runs as the `postgres` user (which Debian's package
//! creates). A fast shutdown when dropped.

use super::net::free_port;
use super::Error;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The directory of the server's programs.
///
/// # Errors
/// When no server is installed.
pub fn bin_dir() -> Result<PathBuf, Error> {
    if let Some(d) = std::env::var_os("WIRESEAL_PG_BIN") {
        return Ok(d.into());
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("postgres").exists().then_some((v, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|f| f.1).ok_or_else(|| {
        "the PostgreSQL server is not installed (no /usr/lib/postgresql/*/bin/postgres): \
         apt-get install postgresql (scripts/setup-peers.sh does), or set WIRESEAL_PG_BIN"
            .into()
    })
}

/// Why the server cannot be used here, if it cannot.
pub fn missing() -> Option<Error> {
    bin_dir().err()
}

fn id(args: &[&str]) -> Result<u32, Error> {
    let out = Command::new("id")
        .args(args)
        .output()
        .map_err(|e| format!("id(1): {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|_| {
            format!(
                "id {args:?} printed no number: PostgreSQL will not run as root and there is no \
             `postgres` user to run it as (Debian's postgresql package creates one)"
            )
        })
}

/// A running server.
pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    user: Option<(u32, u32)>,
    child: Option<Child>,
}

/// Ports tried before a server that cannot bind is an error.
const PORT_TRIES: usize = 4;

impl PgServer {
    /// Creates a cluster and starts the server on it.
    ///
    /// # Errors
    /// When the server is missing, `initdb` fails or the server is not
    /// ready within 60 s.
    pub fn start() -> Result<Self, Error> {
        let bin = bin_dir()?;
        let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
        let user = match rustix::process::geteuid().is_root() {
            true => Some((id(&["-u", "postgres"])?, id(&["-g", "postgres"])?)),
            false => None,
        };
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid))
                .map_err(|e| format!("chown {}: {e}", dir.path().display()))?;
        }
        let mut s = Self {
            dir,
            bin,
            port: free_port()?,
            user,
            child: None,
        };
        let data = s.data();
        s.ok("initdb", |c| {
            c.arg("-D").arg(&data).args([
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "-N",
            ])
        })?;
        // The port was free when chosen; another server started since may
        // hold it: another port then.
        for _ in 0..PORT_TRIES {
            match s.run() {
                Err(e) if e.contains("Address already in use") => s.port = free_port()?,
                done => return done.map(|()| s),
            }
        }
        s.run().map(|()| s)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The directory of the unix socket.
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(self.bin.join(program));
        if let Some((uid, gid)) = self.user {
            c.uid(uid).gid(gid);
        }
        c.current_dir(self.dir.path());
        c
    }

    /// Runs a client program of the server's with `f`'s arguments.
    fn ok(&self, program: &str, f: impl FnOnce(&mut Command) -> &mut Command) -> Result<(), Error> {
        let mut c = self.command(program);
        let out = f(&mut c).output().map_err(|e| format!("{program}: {e}"))?;
        match out.status.success() {
            true => Ok(()),
            false => Err(format!(
                "{program}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
        }
    }

    /// Starts the server on the cluster and waits until it takes connections.
    ///
    /// # Errors
    /// When it exits or is not ready within 60 s.
    pub fn run(&mut self) -> Result<(), Error> {
        if self.child.is_some() {
            return Ok(());
        }
        let log_path = self.dir.path().join("server.log");
        let log = std::fs::File::create(&log_path).map_err(|e| format!("server log: {e}"))?;
        if let Some((uid, gid)) = self.user {
            std::os::unix::fs::chown(&log_path, Some(uid), Some(gid))
                .map_err(|e| format!("chown server log: {e}"))?;
        }
        let child = self
            .command("postgres")
            .arg("-D")
            .arg(self.data())
            .arg("-k")
            .arg(self.socket_dir())
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(["-c", "max_connections=40"])
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| format!("server log: {e}"))?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("postgres does not start: {e}"))?;
        self.child = Some(child);
        let end = Instant::now() + Duration::from_secs(60);
        let port = self.port.to_string();
        loop {
            let dir = self.socket_dir().to_owned();
            if self
                .ok("pg_isready", |c| {
                    c.arg("-h").arg(&dir).args(["-p", &port, "-q"])
                })
                .is_ok()
            {
                return Ok(());
            }
            if let Some(st) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                self.child = None;
                return Err(format!("postgres exited ({st}):\n{}", self.log()));
            }
            if Instant::now() > end {
                return Err(format!("postgres not ready after 60 s:\n{}", self.log()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// Immediate shutdown (SIGQUIT: no checkpoint, crash recovery at the next
    /// start), as a server that went away under load.
    pub fn crash(&mut self) {
        self.signal(rustix::process::Signal::QUIT);
    }

    fn signal(&mut self, sig: rustix::process::Signal) {
        if let Some(mut c) = self.child.take() {
            let pid = rustix::process::Pid::from_child(&c);
            let _ = rustix::process::kill_process(pid, sig);
            let end = Instant::now() + Duration::from_secs(20);
            while c.try_wait().ok().flatten().is_none() {
                if Instant::now() > end {
                    let _ = c.kill();
                    let _ = c.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// CPU time used so far by the server's processes now alive (the
    /// postmaster and its children).
    pub fn cpu(&self) -> Duration {
        self.child
            .as_ref()
            .map_or(Duration::ZERO, |c| super::proc::cpu(c.id(), true))
    }

    /// A URL over loopback TCP.
    pub fn tcp_url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// A URL over the unix socket.
    pub fn socket_url(&self, db: &str) -> String {
        format!(
            "postgresql:///{db}?host={}&port={}&user=postgres",
            self.socket_dir().display(),
            self.port
        )
    }

    /// Creates database `name`.
    ///
    /// # Errors
    /// `createdb`'s message.
    pub fn create_db(&self, name: &str) -> Result<(), Error> {
        self.client("createdb", name)
    }

    /// Creates database `name` as a copy of database `template` (which no
    /// one may be connected to).
    ///
    /// # Errors
    /// `createdb`'s message.
    pub fn create_db_from(&self, name: &str, template: &str) -> Result<(), Error> {
        let port = self.port.to_string();
        let dir = self.socket_dir().to_owned();
        self.ok("createdb", |c| {
            c.arg("-h")
                .arg(&dir)
                .args(["-p", &port, "-U", "postgres", "-T", template, name])
        })
    }

    /// Drops database `name` if it exists.
    ///
    /// # Errors
    /// `dropdb`'s message.
    pub fn drop_db(&self, name: &str) -> Result<(), Error> {
        let port = self.port.to_string();
        let dir = self.socket_dir().to_owned();
        self.ok("dropdb", |c| {
            c.arg("-h")
                .arg(&dir)
                .args(["-p", &port, "-U", "postgres", "--if-exists", name])
        })
    }

    /// Drops database `name` if it exists and creates it again, empty.
    ///
    /// # Errors
    /// The client programs' messages.
    pub fn fresh_db(&self, name: &str) -> Result<(), Error> {
        self.drop_db(name)?;
        self.create_db(name)
    }

    /// Runs the SQL file `path` in database `db` with `psql` (stopping at the
    /// first error).
    ///
    /// # Errors
    /// `psql`'s message.
    pub fn run_sql_file(&self, db: &str, path: &Path) -> Result<(), Error> {
        let port = self.port.to_string();
        let dir = self.socket_dir().to_owned();
        let sql = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let copy = self.dir.path().join("input.sql");
        std::fs::write(&copy, sql).map_err(|e| format!("{}: {e}", copy.display()))?;
        if let Some((uid, gid)) = self.user {
            std::os::unix::fs::chown(&copy, Some(uid), Some(gid))
                .map_err(|e| format!("chown {}: {e}", copy.display()))?;
        }
        self.ok("psql", |c| {
            c.arg("-h")
                .arg(&dir)
                .args([
                    "-p",
                    &port,
                    "-U",
                    "postgres",
                    "-q",
                    "-v",
                    "ON_ERROR_STOP=1",
                    "-d",
                    db,
                    "-f",
                ])
                .arg(&copy)
        })
    }

    fn client(&self, program: &str, name: &str) -> Result<(), Error> {
        let port = self.port.to_string();
        let dir = self.socket_dir().to_owned();
        self.ok(program, |c| {
            c.arg("-h")
                .arg(&dir)
                .args(["-p", &port, "-U", "postgres", name])
        })
    }
}

impl Drop for PgServer {
    /// A fast shutdown (SIGINT), then a kill if it takes over 20 s.
    fn drop(&mut self) {
        self.signal(rustix::process::Signal::INT);
    }
}

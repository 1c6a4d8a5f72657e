//! A PostgreSQL server of the tests' own: Debian's binaries, `initdb` into a
//! temporary directory, listening on a free loopback port and on a unix
//! socket in that directory, stopped when dropped. PostgreSQL refuses to run
//! as root, so under root the server runs as the `postgres` user (which
//! Debian's package creates). Anything missing fails the test with what to
//! install.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running server.
pub struct PgServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    user: Option<(u32, u32)>,
    child: Option<Child>,
}

fn bin_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("WIRESEAL_PG_BIN") {
        return d.into();
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
    match found.pop() {
        Some((_, b)) => b,
        None => panic!(
            "the PostgreSQL server is not installed (no /usr/lib/postgresql/*/bin/postgres): \
             apt-get install postgresql (scripts/setup-peers.sh does), or set WIRESEAL_PG_BIN"
        ),
    }
}

fn id(flag: &str) -> u32 {
    let out = Command::new("id")
        .args([flag, "postgres"])
        .output()
        .expect("running id(1)");
    assert!(
        out.status.success(),
        "PostgreSQL will not run as root and there is no `postgres` user to run it as \
         (Debian's postgresql package creates one)"
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("id(1) printed a number")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl PgServer {
    /// Creates a cluster and starts it.
    pub fn start() -> Self {
        let bin = bin_dir();
        let dir = tempfile::tempdir().expect("temporary directory");
        let user = rustix::process::geteuid()
            .is_root()
            .then(|| (id("-u"), id("-g")));
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).expect("chown");
        }
        let mut s = Self {
            dir,
            bin,
            port: free_port(),
            user,
            child: None,
        };
        let out = s
            .command("initdb")
            .args(["-D"])
            .arg(s.data())
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "-N",
            ])
            .output()
            .expect("running initdb");
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        s.run();
        s
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

    /// Starts the server on the cluster and waits until it takes connections.
    pub fn run(&mut self) {
        assert!(self.child.is_none(), "server already running");
        let log = std::fs::File::create(self.dir.path().join("server.log")).expect("log file");
        if let Some((uid, gid)) = self.user {
            std::os::unix::fs::chown(self.dir.path().join("server.log"), Some(uid), Some(gid))
                .expect("chown log");
        }
        let child = self
            .command("postgres")
            .arg("-D")
            .arg(self.data())
            .arg("-k")
            .arg(self.socket_dir())
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(["-c", "max_connections=40", "-c", "shared_buffers=64MB"])
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log file"))
            .stderr(log)
            .spawn()
            .expect("starting postgres");
        self.child = Some(child);
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            let ready = self
                .command("pg_isready")
                .arg("-h")
                .arg(self.socket_dir())
                .args(["-p", &self.port.to_string(), "-q"])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return;
            }
            if let Some(st) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                panic!("postgres exited ({st}):\n{}", self.log());
            }
            assert!(
                Instant::now() < end,
                "postgres not ready after 60 s:\n{}",
                self.log()
            );
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
        if let Some(mut c) = self.child.take() {
            let pid = rustix::process::Pid::from_child(&c);
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::QUIT);
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
    /// postmaster and its children), from /proc.
    pub fn cpu(&self) -> Duration {
        let Some(c) = &self.child else {
            return Duration::ZERO;
        };
        let root = c.id();
        let mut ticks = 0;
        for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            let Some((pid, rest)) = stat.split_once(" (") else {
                continue;
            };
            let f: Vec<&str> = rest
                .rsplit_once(") ")
                .map_or(vec![], |r| r.1.split(' ').collect());
            if f.len() < 13 {
                continue;
            }
            if pid.parse() == Ok(root) || f[1].parse() == Ok(root) {
                ticks += f[11].parse::<u64>().unwrap_or(0) + f[12].parse::<u64>().unwrap_or(0);
            }
        }
        Duration::from_millis(ticks * 10)
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
    pub fn create_db(&self, name: &str) {
        let out = self
            .command("createdb")
            .arg("-h")
            .arg(self.socket_dir())
            .args(["-p", &self.port.to_string(), "-U", "postgres", name])
            .output()
            .expect("running createdb");
        assert!(
            out.status.success(),
            "createdb {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.crash();
    }
}

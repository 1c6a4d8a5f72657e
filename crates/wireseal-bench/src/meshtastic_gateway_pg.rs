//! A PostgreSQL server for the gateway's store rows: Debian's binaries
//! (`WIRESEAL_PG_BIN`, else the newest `/usr/lib/postgresql/*/bin`),
//! `initdb` into a directory under the system's temporary directory, a free loopback port and a
//! unix socket in that directory, default settings (`synchronous_commit`
//! on). Under root the server runs as the `postgres` user, which Debian's
//! package creates. Stopped (fast shutdown) and removed when dropped. Also
//! the CPU time and peak memory of a process, from /proc.

use crate::peers::Skip;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// CPU time (user + system) of process `pid` and, with `children`, of the
/// processes whose parent it is and of those that ended and it waited for;
/// zero for what /proc does not show.
pub(crate) fn cpu(pid: u32, children: bool) -> Duration {
    let mut ticks = 0;
    let mut add = |stat: &str| {
        let Some((p, rest)) = stat.split_once(" (") else {
            return;
        };
        let f: Vec<&str> = rest
            .rsplit_once(") ")
            .map_or(vec![], |r| r.1.split(' ').collect());
        let field = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        let own = p.parse() == Ok(pid);
        if f.len() > 14 && (own || (children && f[1].parse() == Ok(pid))) {
            ticks += field(11) + field(12);
            if own && children {
                ticks += field(13) + field(14);
            }
        }
    };
    if !children {
        add(&std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default());
    } else {
        for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            add(&std::fs::read_to_string(e.path().join("stat")).unwrap_or_default());
        }
    }
    Duration::from_millis(ticks * 10)
}

/// Peak resident memory of process `pid` so far (`VmHWM`), in KiB.
pub(crate) fn peak_rss_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

fn bin_dir() -> Result<PathBuf, Skip> {
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
        Skip::new(
            "the PostgreSQL server is not installed (apt-get install postgresql, or set \
             WIRESEAL_PG_BIN)",
        )
    })
}

fn id(args: &[&str]) -> Result<u32, Skip> {
    let out = Command::new("id")
        .args(args)
        .output()
        .map_err(|e| Skip::new(format!("id(1): {e}")))?;
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .map_err(|_| Skip::new(format!("id {args:?} printed no number")))
}

/// A running server with one database, `mesh`.
pub(crate) struct PgServer {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
    user: Option<(u32, u32)>,
    child: Option<Child>,
}

impl PgServer {
    /// Creates the cluster and the database and starts the server.
    pub(crate) fn start() -> Result<Self, Skip> {
        let bin = bin_dir()?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| Skip::new(format!("no free loopback port: {e}")))?
            .port();
        // The temporary directory, not the cache: under root the server's
        // user must reach it.
        let dir =
            std::env::temp_dir().join(format!("wireseal-bench-pg-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Skip::new(format!("{}: {e}", dir.display())))?;
        let user = match id(&["-u"])? {
            0 => Some((id(&["-u", "postgres"])?, id(&["-g", "postgres"])?)),
            _ => None,
        };
        if let Some((u, g)) = user {
            std::os::unix::fs::chown(&dir, Some(u), Some(g))
                .map_err(|e| Skip::new(format!("chown {}: {e}", dir.display())))?;
        }
        let mut s = Self {
            dir,
            bin,
            port,
            user,
            child: None,
        };
        s.ok("initdb", |c| {
            c.arg("-D").arg(s.dir.join("data")).args([
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "-N",
            ])
        })?;
        let log = std::fs::File::create(s.dir.join("server.log"))
            .map_err(|e| Skip::new(format!("server log: {e}")))?;
        let child = s
            .command("postgres")
            .arg("-D")
            .arg(s.dir.join("data"))
            .arg("-k")
            .arg(&s.dir)
            .args(["-h", "127.0.0.1", "-p", &port.to_string()])
            .args(["-c", "max_connections=20"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| Skip::new(format!("postgres does not start: {e}")))?;
        s.child = Some(child);
        let end = Instant::now() + Duration::from_secs(60);
        while s
            .ok("pg_isready", |c| {
                c.arg("-h").arg(&s.dir).args(["-p", &port.to_string()])
            })
            .is_err()
        {
            if Instant::now() > end {
                return Err(Skip::new("postgres not ready after 60 s"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        s.ok("createdb", |c| {
            c.arg("-h")
                .arg(&s.dir)
                .args(["-p", &port.to_string(), "-U", "postgres", "mesh"])
        })?;
        Ok(s)
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(self.bin.join(program));
        if let Some((u, g)) = self.user {
            c.uid(u).gid(g);
        }
        c.current_dir(&self.dir);
        c
    }

    fn ok(&self, program: &str, f: impl FnOnce(&mut Command) -> &mut Command) -> Result<(), Skip> {
        let mut c = self.command(program);
        let out = f(&mut c)
            .output()
            .map_err(|e| Skip::new(format!("{program}: {e}")))?;
        match out.status.success() {
            true => Ok(()),
            false => Err(Skip::new(format!(
                "{program}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
        }
    }

    /// The `--store` URL of database `mesh`, over the unix socket.
    pub(crate) fn url(&self) -> String {
        format!(
            "postgresql:///mesh?host={}&port={}&user=postgres",
            self.dir.display(),
            self.port
        )
    }

    /// CPU time of the server's processes now alive.
    pub(crate) fn cpu(&self) -> Duration {
        self.child
            .as_ref()
            .map_or(Duration::ZERO, |c| cpu(c.id(), true))
    }

    /// Drops database `mesh` and creates it again, empty.
    pub(crate) fn fresh_db(&self) -> Result<(), Skip> {
        let port = self.port.to_string();
        for program in ["dropdb", "createdb"] {
            self.ok(program, |c| {
                c.arg("-h")
                    .arg(&self.dir)
                    .args(["-p", &port, "-U", "postgres", "mesh"])
            })?;
        }
        Ok(())
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-INT", &c.id().to_string()])
                .status();
            let end = Instant::now() + Duration::from_secs(20);
            while c.try_wait().ok().flatten().is_none() && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

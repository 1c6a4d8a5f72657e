//! A Mosquitto broker of the test's own: a plain, anonymous listener on a
//! free loopback port, optionally a TLS listener with a fresh
//! [`Pki`] and a password file; stopped when dropped.

use super::net::{free_ports, wait_listening};
use super::pki::Pki;
use super::Error;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The `mosquitto` program: on the `PATH`, else where Debian installs it.
///
/// # Errors
/// When neither runs.
pub fn program() -> Result<PathBuf, Error> {
    let runs = |p: &Path| {
        Command::new(p)
            .arg("-h")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    };
    [
        PathBuf::from("mosquitto"),
        PathBuf::from("/usr/sbin/mosquitto"),
    ]
    .into_iter()
    .find(|p| runs(p))
    .ok_or_else(|| "mosquitto is not installed (apt-get install mosquitto)".into())
}

/// What the TLS listener asks of its clients.
#[derive(Debug, Default, Clone, Copy)]
pub struct TlsListener {
    /// A client certificate signed by the test CA.
    pub require_client_cert: bool,
    /// This user name and password.
    pub login: Option<(&'static str, &'static str)>,
}

/// How the broker is set up.
#[derive(Debug, Clone, Copy, Default)]
pub struct Settings {
    /// `max_inflight_messages`: QoS 1 messages in flight to one client at
    /// most (0: no limit).
    pub max_inflight: u32,
    /// A TLS listener beside the plain one.
    pub tls: Option<TlsListener>,
    /// Log connections and errors to `mosquitto.log` in the broker's
    /// directory ([`Mosquitto::log`]).
    pub log: bool,
}

/// A running broker.
pub struct Mosquitto {
    /// The plain, anonymous listener.
    pub port: u16,
    /// The TLS listener (0 when there is none).
    pub tls_port: u16,
    /// The certificates of the TLS listener and its clients.
    pub pki: Option<Pki>,
    child: Child,
    dir: tempfile::TempDir,
}

impl Mosquitto {
    /// A broker with one plain listener, no limit on messages in flight or
    /// queued.
    ///
    /// # Errors
    /// When Mosquitto is missing or does not listen.
    pub fn start() -> Result<Mosquitto, Error> {
        Self::start_with(Settings::default())
    }

    /// A broker set up as `s` says.
    ///
    /// # Errors
    /// When Mosquitto is missing or does not listen.
    pub fn start_with(s: Settings) -> Result<Mosquitto, Error> {
        let exe = program()?;
        let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
        let ports = free_ports(2)?;
        let (port, second) = (ports[0], ports[1]);
        let log = match s.log {
            true => format!(
                "log_dest file {}\nlog_type error\nlog_type warning\nlog_type notice\nlog_type information\nconnection_messages true\n",
                dir.path().join("mosquitto.log").display()
            ),
            false => "log_dest none\n".into(),
        };
        let mut conf = format!(
            "per_listener_settings true\npersistence false\n{log}\
             max_inflight_messages {}\nmax_queued_messages 0\n\
             listener {port} 127.0.0.1\nallow_anonymous true\n",
            s.max_inflight
        );
        let (tls_port, pki) = match s.tls {
            None => (0, None),
            Some(l) => {
                let pki = Pki::write(dir.path());
                conf += &format!(
                    "listener {second} 127.0.0.1\ncafile {}\ncertfile {}\nkeyfile {}\nrequire_certificate {}\n",
                    pki.ca.display(),
                    pki.server_cert.display(),
                    pki.server_key.display(),
                    l.require_client_cert
                );
                match l.login {
                    Some((user, pass)) => {
                        let file = dir.path().join("passwd");
                        let ok = Command::new("mosquitto_passwd")
                            .args(["-c", "-b"])
                            .arg(&file)
                            .args([user, pass])
                            .status()
                            .map_err(|e| format!("mosquitto_passwd: {e}"))?;
                        if !ok.success() {
                            return Err("mosquitto_passwd failed".into());
                        }
                        conf +=
                            &format!("allow_anonymous false\npassword_file {}\n", file.display());
                    }
                    None => conf += "allow_anonymous true\n",
                }
                (second, Some(pki))
            }
        };
        std::fs::write(dir.path().join("mosquitto.conf"), conf)
            .map_err(|e| format!("mosquitto.conf: {e}"))?;
        Self::launch(&exe, port, tls_port, pki, dir)
    }

    fn launch(
        exe: &Path,
        port: u16,
        tls_port: u16,
        pki: Option<Pki>,
        dir: tempfile::TempDir,
    ) -> Result<Mosquitto, Error> {
        let child = Command::new(exe)
            .arg("-c")
            .arg(dir.path().join("mosquitto.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("mosquitto does not start: {e}"))?;
        let b = Mosquitto {
            port,
            tls_port,
            pki,
            child,
            dir,
        };
        for p in [port, tls_port].into_iter().filter(|&p| p != 0) {
            wait_listening(p, Duration::from_secs(10))?;
        }
        Ok(b)
    }

    /// `mqtt://127.0.0.1:PORT` of the plain listener.
    pub fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }

    /// `mqtts://127.0.0.1:PORT` of the TLS listener.
    pub fn tls_url(&self) -> String {
        format!("mqtts://127.0.0.1:{}", self.tls_port)
    }

    /// The broker's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the broker logged (with [`Settings::log`]).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("mosquitto.log")).unwrap_or_default()
    }

    /// Stops the broker and starts a new one on the same ports and files.
    ///
    /// # Errors
    /// When the new one does not listen.
    pub fn restart(mut self) -> Result<Mosquitto, Error> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let exe = program()?;
        let dir = std::mem::replace(
            &mut self.dir,
            tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?,
        );
        std::thread::sleep(Duration::from_millis(300));
        Self::launch(&exe, self.port, self.tls_port, self.pki.take(), dir)
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

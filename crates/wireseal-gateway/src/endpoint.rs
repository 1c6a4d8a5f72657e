//! The broker's address as the gateway takes it: `mqtt://HOST[:PORT]` or
//! `mqtts://HOST[:PORT]`, parsed once with the other settings.

use std::fmt;
use std::str::FromStr;

/// Why a broker URL cannot be used. The messages never repeat the URL: it
/// may hold a password.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    /// `user:password@` in the URL.
    #[error(
        "a user name or password in the URL: give them with --username and \
         --password-file (or --password-env)"
    )]
    UserInfo,
    /// Not `mqtt://` or `mqtts://`.
    #[error("expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")]
    Scheme,
    /// `[` without its `]`.
    #[error("an IPv6 address without its closing ']'")]
    Bracket,
    /// Brackets around something that is not an IPv6 address.
    #[error("the address in brackets is not an IPv6 address")]
    NotIpv6,
    /// Something other than `:PORT` after a bracketed address.
    #[error("text after the address")]
    AfterAddress,
    /// Nothing between the scheme and the port.
    #[error("no host")]
    NoHost,
    /// A host with a path, spaces or other characters a name cannot hold.
    #[error("the host is not a name or an address (no path or brackets)")]
    Host,
    /// A port that is not a number from 1 to 65535.
    #[error("the port is not a number from 1 to 65535")]
    Port,
}

/// Where and how to connect (`"mqtts://mqtt.example.org".parse()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Host name or address.
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// TLS (`mqtts://`).
    pub tls: bool,
}

impl FromStr for Endpoint {
    type Err = EndpointError;

    /// Parses `mqtt://HOST[:PORT]` (port 1883) or `mqtts://HOST[:PORT]`
    /// (8883); an IPv6 address in brackets (`mqtt://[::1]:1883`).
    ///
    /// # Errors
    /// [`EndpointError`]: another scheme, no host, a host that is not a
    /// name or an address (`[::1` without its bracket, user info, a path),
    /// or a bad port.
    fn from_str(url: &str) -> Result<Self, EndpointError> {
        if url.contains('@') {
            return Err(EndpointError::UserInfo);
        }
        let (tls, rest) = if let Some(r) = url.strip_prefix("mqtts://") {
            (true, r)
        } else if let Some(r) = url.strip_prefix("mqtt://") {
            (false, r)
        } else {
            return Err(EndpointError::Scheme);
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            let (h, after) = v6.split_once(']').ok_or(EndpointError::Bracket)?;
            if h.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(EndpointError::NotIpv6);
            }
            match after {
                "" => (h, None),
                p if p.starts_with(':') => (h, Some(&p[1..])),
                _ => return Err(EndpointError::AfterAddress),
            }
        } else {
            match rest.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            }
        };
        if host.is_empty() {
            return Err(EndpointError::NoHost);
        }
        let name_ok = host.len() <= 253
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b':'));
        if !name_ok {
            return Err(EndpointError::Host);
        }
        let port = match port {
            None if tls => 8883,
            None => 1883,
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => return Err(EndpointError::Port),
            },
        };
        Ok(Self {
            host: host.to_owned(),
            port,
            tls,
        })
    }
}

impl fmt::Display for Endpoint {
    /// `HOST:PORT`, as the log names the broker (`[ADDR]:PORT` for IPv6).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls() {
        let e: Endpoint = "mqtt://127.0.0.1:18830".parse().unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.tls),
            ("127.0.0.1", 18830, false)
        );
        let e: Endpoint = "mqtts://mqtt.example.org".parse().unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.tls),
            ("mqtt.example.org", 8883, true)
        );
        let e: Endpoint = "mqtt://[::1]:1884".parse().unwrap();
        assert_eq!((e.host.as_str(), e.port), ("::1", 1884));
        let e: Endpoint = "mqtt://[::1]/".parse().unwrap();
        assert_eq!((e.host.as_str(), e.port), ("::1", 1883));
        for (bad, why) in [
            ("http://x", EndpointError::Scheme),
            ("mqtt://:1883", EndpointError::NoHost),
            ("mqtt://[::1", EndpointError::Bracket),
            ("mqtt://[nothost]:1", EndpointError::NotIpv6),
            ("mqtt://[::1]x", EndpointError::AfterAddress),
            ("mqtt://user:pw@host", EndpointError::UserInfo),
            ("mqtt://host/path", EndpointError::Host),
            ("mqtt://host:0", EndpointError::Port),
            ("mqtt://host:99999", EndpointError::Port),
            ("mqtt://ho st", EndpointError::Host),
            ("mqtt://", EndpointError::NoHost),
        ] {
            assert_eq!(bad.parse::<Endpoint>(), Err(why), "{bad}");
        }
    }

    #[test]
    fn the_log_names_host_and_port() {
        let e: Endpoint = "mqtt://[::1]:1884".parse().unwrap();
        assert_eq!(e.to_string(), "[::1]:1884");
        let e: Endpoint = "mqtts://mqtt.example.org".parse().unwrap();
        assert_eq!(e.to_string(), "mqtt.example.org:8883");
    }
}

//! MQTT connection failures in words: the OS message without Rust's debug
//! text, a return code's name in lower case.

use rumqttc::v5;

/// An I/O failure in words (the OS message without Rust's debug text).
fn describe_io(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::ConnectionRefused => "connection refused; is a broker listening there?".into(),
        K::ConnectionReset | K::ConnectionAborted | K::UnexpectedEof | K::BrokenPipe => {
            "the broker closed the connection".into()
        }
        K::TimedOut => "the connection timed out".into(),
        K::NotFound => "the host name does not resolve".into(),
        K::AddrNotAvailable => "the address is not available".into(),
        _ => match e.get_ref() {
            // A wrapped error (name resolution, TLS): its own message.
            Some(inner) => inner.to_string(),
            None => e.to_string(),
        },
    }
}

/// `CamelCase` (a return code's name) as lower-case words.
fn words(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn describe_tls(e: &rumqttc::TlsError) -> String {
    match e {
        rumqttc::TlsError::Io(io) => format!("TLS: {}", describe_io(io)),
        other => format!("TLS: {other}"),
    }
}

/// An MQTT 3.1.1 connection failure in words.
pub fn describe_v3(e: &rumqttc::ConnectionError) -> String {
    use rumqttc::{ConnectionError as E, StateError as S};
    match e {
        E::Io(io) | E::MqttState(S::Io(io)) => describe_io(io),
        E::ConnectionRefused(code) => format!(
            "the broker refused the connection: {}",
            words(&format!("{code:?}"))
        ),
        E::NetworkTimeout => "the broker did not answer in time".into(),
        E::FlushTimeout => "sending to the broker timed out".into(),
        E::Tls(t) => describe_tls(t),
        E::NotConnAck(_) => "the broker did not answer the connection request".into(),
        E::MqttState(S::AwaitPingResp) => "the broker stopped answering pings".into(),
        E::MqttState(other) => format!("MQTT protocol error: {other}"),
        other => other.to_string(),
    }
}

/// An MQTT 5 connection failure in words.
pub fn describe_v5(e: &v5::ConnectionError) -> String {
    use v5::{ConnectionError as E, StateError as S};
    match e {
        E::Io(io) | E::MqttState(S::Io(io)) => describe_io(io),
        E::ConnectionRefused(code) => format!(
            "the broker refused the connection: {}",
            words(&format!("{code:?}"))
        ),
        E::Timeout(_) => "the broker did not answer in time".into(),
        E::Tls(t) => describe_tls(t),
        E::NotConnAck(_) => "the broker did not answer the connection request".into(),
        E::MqttState(S::AwaitPingResp) => "the broker stopped answering pings".into(),
        E::MqttState(other) => format!("MQTT protocol error: {other}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_in_words() {
        use std::io::{Error, ErrorKind};
        let aborted = Error::new(ErrorKind::ConnectionAborted, "connection closed by peer");
        let v3 = rumqttc::ConnectionError::MqttState(rumqttc::StateError::Io(aborted));
        let text = describe_v3(&v3);
        assert_eq!(text, "the broker closed the connection");
        let refused = rumqttc::ConnectionError::ConnectionRefused(
            rumqttc::ConnectReturnCode::BadUserNamePassword,
        );
        assert_eq!(
            describe_v3(&refused),
            "the broker refused the connection: bad user name password"
        );
        let io = rumqttc::ConnectionError::Io(Error::from(ErrorKind::ConnectionRefused));
        assert!(describe_v3(&io).starts_with("connection refused"));
        for t in [text, describe_v3(&refused), describe_v3(&io)] {
            assert!(!t.contains('{') && !t.contains("kind:"), "{t}");
        }
    }
}

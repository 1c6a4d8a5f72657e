//! Which connections the read side serves, and how far: probes are never
//! queued behind other clients, and no client holds more than its share.
//!
//! The listener accepts every connection at once; nothing waits in the
//! kernel's backlog. A connection is served in full while fewer than
//! [`MAX_CONNECTIONS`] are, and fewer than [`PER_ADDRESS`] of those come
//! from its address (an IPv6 client's /64). Any other is read with a short
//! deadline ([`SPARE_HEAD_TIMEOUT`], [`SPARE_LIFETIME`]) for one request:
//! a probe (`/healthz`, `/readyz`, `/metrics`) is answered, anything else
//! gets 503. At most [`SPARE`] such connections are read at once; beyond
//! them a connection is closed unread.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Connections served in full at once.
pub(crate) const MAX_CONNECTIONS: usize = 256;
/// Of those, at most this many from one address.
pub(crate) const PER_ADDRESS: usize = 64;
/// How long a client served in full may take to send a request head.
pub(crate) const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one connection may stay open.
pub(crate) const CONNECTION_LIFETIME: Duration = Duration::from_secs(120);
/// Connections over those limits read at once, for a probe.
pub(crate) const SPARE: usize = 512;
/// How long such a connection may take to send its request head.
pub(crate) const SPARE_HEAD_TIMEOUT: Duration = Duration::from_secs(1);
/// How long such a connection may stay open.
pub(crate) const SPARE_LIFETIME: Duration = Duration::from_secs(2);

/// How a new connection is served.
pub(crate) enum Admission {
    /// In full: any request, keep-alive, [`HEAD_TIMEOUT`].
    Full(Held),
    /// One request, answered only when it is a probe.
    Spare(OwnedSemaphorePermit),
    /// Not at all: closed at once.
    Refused,
}

impl Admission {
    /// Every admission's name, in the order of [`Admission::index`]: the
    /// label values of the connection counts.
    pub(crate) const NAMES: [&'static str; 3] = ["full", "spare", "refused"];

    /// The admission's position in [`Admission::NAMES`].
    pub(crate) const fn index(&self) -> usize {
        match self {
            Admission::Full(_) => 0,
            Admission::Spare(_) => 1,
            Admission::Refused => 2,
        }
    }
}

/// A connection served in full: its place among all and its address's.
pub(crate) struct Held {
    _slot: OwnedSemaphorePermit,
    _share: Share,
}

/// One of an address's connections; given back when dropped.
struct Share {
    key: IpAddr,
    counts: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = counts.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// The connections held, in all and by address.
pub(crate) struct Limits {
    slots: Arc<Semaphore>,
    spare: Arc<Semaphore>,
    /// Connections served in full by address; an address is here only
    /// while it has one, so the map holds [`MAX_CONNECTIONS`] at most.
    counts: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Limits {
    pub(crate) fn new() -> Self {
        Self {
            slots: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            spare: Arc::new(Semaphore::new(SPARE)),
            counts: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// How a connection from `peer` is served; never waits.
    pub(crate) fn admit(&self, peer: IpAddr) -> Admission {
        if let Some(share) = self.share(peer) {
            if let Ok(slot) = self.slots.clone().try_acquire_owned() {
                return Admission::Full(Held {
                    _slot: slot,
                    _share: share,
                });
            }
        }
        match self.spare.clone().try_acquire_owned() {
            Ok(p) => Admission::Spare(p),
            Err(_) => Admission::Refused,
        }
    }

    /// A share for `peer` while it has fewer than [`PER_ADDRESS`].
    fn share(&self, peer: IpAddr) -> Option<Share> {
        let key = address_key(peer);
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let n = counts.entry(key).or_insert(0);
        if *n >= PER_ADDRESS {
            return None;
        }
        *n += 1;
        Some(Share {
            key,
            counts: self.counts.clone(),
        })
    }
}

/// The address a client's share is counted under: an IPv4 address as it
/// is (an IPv4-mapped IPv6 one too), an IPv6 address's /64.
fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn one_address_gets_its_share_then_spare_connections_then_none() {
        let l = Limits::new();
        let mut held = Vec::new();
        for _ in 0..PER_ADDRESS {
            match l.admit(ip("192.0.2.1")) {
                Admission::Full(h) => held.push(h),
                _ => panic!("within the share"),
            }
        }
        // The same client over IPv4-mapped IPv6 is the same address.
        let mut spare = Vec::new();
        for a in ["192.0.2.1", "::ffff:192.0.2.1"] {
            match l.admit(ip(a)) {
                Admission::Spare(p) => spare.push(p),
                _ => panic!("{a}: over the share"),
            }
        }
        // Another address is served in full meanwhile.
        assert!(matches!(l.admit(ip("192.0.2.2")), Admission::Full(_)));
        while spare.len() < SPARE {
            match l.admit(ip("192.0.2.1")) {
                Admission::Spare(p) => spare.push(p),
                _ => panic!("spare connections left"),
            }
        }
        assert!(matches!(l.admit(ip("192.0.2.1")), Admission::Refused));
        // A connection that ends gives its place back.
        held.pop();
        assert!(matches!(l.admit(ip("192.0.2.1")), Admission::Full(_)));
        drop(held);
        assert!(l.counts.lock().unwrap().is_empty());
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_64() {
        let l = Limits::new();
        let held: Vec<_> = (0..PER_ADDRESS)
            .map(
                |i| match l.admit(ip(&format!("2001:db8:1:2::{:x}", i + 1))) {
                    Admission::Full(h) => h,
                    _ => panic!("within the share"),
                },
            )
            .collect();
        assert!(matches!(
            l.admit(ip("2001:db8:1:2:ffff::1")),
            Admission::Spare(_)
        ));
        assert!(matches!(l.admit(ip("2001:db8:1:3::1")), Admission::Full(_)));
        drop(held);
    }

    #[test]
    fn the_total_is_capped_across_addresses() {
        let l = Limits::new();
        let held: Vec<_> = (0..MAX_CONNECTIONS)
            .map(
                |i| match l.admit(ip(&format!("10.0.{}.{}", i / 200, i % 200))) {
                    Admission::Full(h) => h,
                    _ => panic!("under the cap"),
                },
            )
            .collect();
        assert!(matches!(l.admit(ip("10.9.9.9")), Admission::Spare(_)));
        drop(held);
        assert!(matches!(l.admit(ip("10.9.9.9")), Admission::Full(_)));
    }
}

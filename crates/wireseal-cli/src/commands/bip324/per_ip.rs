//! Connections held per IP address, for `--max-per-ip`.
//!
//! The table only has entries for addresses with a connection open, so it
//! never holds more than `--max-connections` of them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Open connections per address.
#[derive(Debug, Default)]
pub(super) struct PerIp {
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One connection counted against its address; dropping it frees the count.
#[derive(Debug)]
pub(super) struct IpSlot {
    table: Arc<PerIp>,
    ip: IpAddr,
}

impl PerIp {
    /// Counts a connection from `ip` unless it already has `max` open.
    pub(super) fn try_take(table: &Arc<PerIp>, ip: IpAddr, max: usize) -> Option<IpSlot> {
        let mut open = table.open.lock().ok()?;
        let n = open.entry(ip).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(IpSlot {
            table: Arc::clone(table),
            ip,
        })
    }

    /// Connections open from `ip`.
    #[cfg(test)]
    fn open(&self, ip: IpAddr) -> usize {
        self.open.lock().unwrap().get(&ip).copied().unwrap_or(0)
    }
}

impl Drop for IpSlot {
    fn drop(&mut self) {
        if let Ok(mut open) = self.table.open.lock() {
            if let Some(n) = open.get_mut(&self.ip) {
                *n -= 1;
                if *n == 0 {
                    open.remove(&self.ip);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_per_address_and_release_on_drop() {
        let t = Arc::new(PerIp::default());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let s1 = PerIp::try_take(&t, a, 2).unwrap();
        let s2 = PerIp::try_take(&t, a, 2).unwrap();
        assert!(PerIp::try_take(&t, a, 2).is_none());
        let s3 = PerIp::try_take(&t, b, 2).unwrap();
        drop(s1);
        assert_eq!(t.open(a), 1);
        let s4 = PerIp::try_take(&t, a, 2).unwrap();
        drop((s2, s3, s4));
        assert!(t.open.lock().unwrap().is_empty());
    }
}

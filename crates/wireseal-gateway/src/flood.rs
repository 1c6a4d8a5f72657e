//! The per-node flood guard: each node may send `rate` packets per second
//! on average and `burst` at once (a token bucket per node); what it sends
//! beyond that is refused, counted per node, and reported once per interval.
//! A node looping map reports at 49 per second (seen on public feeds for
//! days) fills a store in hours without it. Packets, not messages, are
//! counted: the copies of one packet that several gateways publish share
//! the first copy's decision and cost nothing more.
//!
//! Sans-IO: the caller gives the time (`now`, milliseconds on its clock), so
//! a test runs a minute of traffic in microseconds. Memory is bounded: at
//! most `max_nodes` buckets (the least recently heard node is forgotten
//! first, which only gives it a full bucket again) and at most
//! `max_report_nodes` nodes named in a report.

use std::collections::{BTreeMap, HashMap};

/// How the guard limits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloodLimits {
    /// Packets per second per node, on average; 0 turns the guard off.
    pub rate: f64,
    /// Packets a node may send at once above its rate.
    pub burst: u32,
    /// How often the refusals are reported, milliseconds.
    pub report_every_ms: u64,
    /// Nodes tracked at most.
    pub max_nodes: usize,
}

impl Default for FloodLimits {
    fn default() -> Self {
        Self {
            rate: 10.0,
            burst: 100,
            report_every_ms: 60_000,
            max_nodes: 65_536,
        }
    }
}

/// What was refused in one interval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FloodReport {
    /// Messages refused in the interval.
    pub refused: u64,
    /// Nodes that had messages refused.
    pub nodes: usize,
    /// The nodes that had the most refused, most first (at most 10).
    pub top: Vec<(u32, u64)>,
    /// The interval, milliseconds.
    pub interval_ms: u64,
}

/// Packets whose decision a node's bucket remembers (their copies get it).
const RECENT: usize = 16;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: u64,
    /// When this node was last heard (the eviction order's key).
    heard: u64,
    /// The last packets' keys and whether each passed.
    recent: [(i64, bool); RECENT],
    next: usize,
}

/// The guard.
#[derive(Debug, Clone)]
pub struct FloodGuard {
    limits: FloodLimits,
    buckets: HashMap<u32, Bucket>,
    /// Nodes by when they were last heard (time, node), for eviction.
    recency: BTreeMap<(u64, u32), ()>,
    /// Refused per node since the last report.
    refused: HashMap<u32, u64>,
    refused_total: u64,
    last_report: Option<u64>,
}

/// Nodes named in one report at most.
const TOP: usize = 10;
/// Nodes whose refusals are counted per report interval at most (others
/// still count in the total).
const MAX_REFUSED_NODES: usize = 4_096;

impl FloodGuard {
    /// A guard with `limits`.
    pub fn new(limits: FloodLimits) -> Self {
        Self {
            limits,
            buckets: HashMap::new(),
            recency: BTreeMap::new(),
            refused: HashMap::new(),
            refused_total: 0,
            last_report: None,
        }
    }

    /// The limits.
    pub fn limits(&self) -> FloodLimits {
        self.limits
    }

    /// Nodes tracked now.
    pub fn tracked(&self) -> usize {
        self.buckets.len()
    }

    /// Whether a message from `node` at `now`, a copy of packet `key`
    /// ([`PacketKey::as_i64`](wireseal::meshtastic::packet_key::PacketKey::as_i64)),
    /// may pass; a refusal is counted. A copy of one of the node's last
    /// packets gets that packet's decision without using the node's rate.
    pub fn admit(&mut self, now: u64, node: u32, key: i64) -> bool {
        if self.limits.rate <= 0.0 {
            return true;
        }
        self.last_report.get_or_insert(now);
        let burst = f64::from(self.limits.burst.max(1));
        let b = match self.buckets.get_mut(&node) {
            Some(b) => {
                self.recency.remove(&(b.heard, node));
                let dt = now.saturating_sub(b.at) as f64 / 1000.0;
                b.tokens = (b.tokens + dt * self.limits.rate).min(burst);
                b.at = now.max(b.at);
                b
            }
            None => {
                if self.buckets.len() >= self.limits.max_nodes.max(1) {
                    if let Some(((t, oldest), ())) = self.recency.pop_first() {
                        let _ = t;
                        self.buckets.remove(&oldest);
                    }
                }
                self.buckets.entry(node).or_insert(Bucket {
                    tokens: burst,
                    at: now,
                    heard: now,
                    recent: [(0, false); RECENT],
                    next: 0,
                })
            }
        };
        b.heard = now;
        self.recency.insert((now, node), ());
        let known = b
            .recent
            .iter()
            .find(|(k, _)| *k == key && key != 0)
            .map(|r| r.1);
        let pass = match known {
            Some(p) => p,
            None => {
                let p = b.tokens >= 1.0;
                if p {
                    b.tokens -= 1.0;
                }
                b.recent[b.next] = (key, p);
                b.next = (b.next + 1) % RECENT;
                p
            }
        };
        if pass {
            return true;
        }
        self.refused_total += 1;
        if self.refused.len() < MAX_REFUSED_NODES || self.refused.contains_key(&node) {
            *self.refused.entry(node).or_insert(0) += 1;
        }
        false
    }

    /// Once per report interval, what was refused in it (`None` when the
    /// interval is not over or nothing was refused).
    pub fn report(&mut self, now: u64) -> Option<FloodReport> {
        let since = *self.last_report.get_or_insert(now);
        if now.saturating_sub(since) < self.limits.report_every_ms {
            return None;
        }
        self.last_report = Some(now);
        if self.refused_total == 0 {
            return None;
        }
        let mut top: Vec<(u32, u64)> = self.refused.drain().collect();
        let nodes = top.len();
        top.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        top.truncate(TOP);
        Some(FloodReport {
            refused: std::mem::take(&mut self.refused_total),
            nodes,
            top,
            interval_ms: now - since,
        })
    }
}

/// One simulated minute ([`loud_minute`]): what passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Minute {
    /// Packets of the loud node that passed.
    pub loud_passed: u64,
    /// Its limit: `burst + 60 × rate`.
    pub loud_limit: u64,
    /// Copies the other nodes sent.
    pub others_sent: u64,
    /// Copies of theirs that passed.
    pub others_passed: u64,
}

/// A minute of traffic through a guard with `limits`, on a simulated clock:
/// one node (`0xbad`) sends 50 packets per second, and `others` nodes one
/// packet every 10 s each, every one of theirs heard by three gateways.
/// The scenario the tests and `wireseal bench` measure; the guard is
/// returned for its report.
pub fn loud_minute(limits: FloodLimits, others: u32) -> (Minute, FloodGuard) {
    let mut g = FloodGuard::new(limits);
    let mut m = Minute {
        loud_passed: 0,
        loud_limit: u64::from(limits.burst) + (limits.rate * 60.0) as u64,
        others_sent: 0,
        others_passed: 0,
    };
    for ms in (0..60_000u64).step_by(20) {
        m.loud_passed += u64::from(g.admit(ms, 0xbad, ms as i64 + 1));
        if ms % 10_000 < 20 {
            for n in 0..others {
                for _ in 0..3 {
                    m.others_sent += 1;
                    let passed = g.admit(ms + u64::from(n), 0x1000 + n, ms as i64 + 1);
                    m.others_passed += u64::from(passed);
                }
            }
        }
    }
    (m, g)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One node at 50 packets per second for 60 s, beside 20 others at one
    /// packet every 10 s through three gateways: the loud node gets its
    /// burst and its rate, no more; every other copy passes at once.
    #[test]
    fn a_loud_node_is_held_to_its_limit_and_the_others_pass() {
        let limits = FloodLimits {
            rate: 2.0,
            burst: 20,
            ..FloodLimits::default()
        };
        let (m, mut g) = loud_minute(limits, 20);
        assert_eq!(m.loud_limit, 140);
        assert!(m.loud_passed <= m.loud_limit, "{m:?}");
        assert!(m.loud_passed >= m.loud_limit - 2, "{m:?}");
        assert_eq!(m.others_passed, m.others_sent);
        let r = g.report(60_000).expect("a report after a minute");
        assert_eq!(r.refused, 3_000 - m.loud_passed);
        assert_eq!((r.nodes, r.top[0].0), (1, 0xbad));
        assert_eq!(g.report(60_001), None, "once per interval");
    }

    #[test]
    fn bounded_and_off() {
        let mut g = FloodGuard::new(FloodLimits {
            max_nodes: 100,
            ..FloodLimits::default()
        });
        for n in 0..10_000 {
            assert!(g.admit(u64::from(n), n, 1));
        }
        assert_eq!((g.tracked(), g.recency.len()), (100, 100));
        let mut off = FloodGuard::new(FloodLimits {
            rate: 0.0,
            ..FloodLimits::default()
        });
        assert!((0..1_000).all(|i| off.admit(0, i % 2, i64::from(i))));
    }
}

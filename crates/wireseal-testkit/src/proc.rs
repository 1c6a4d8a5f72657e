//! Process figures from /proc: CPU time and memory.

use std::time::Duration;

/// CPU time (user + system) of process `pid` and, with `children`, of the
/// processes whose parent it is and of those that ended and it waited for;
/// zero for what /proc does not show.
pub fn cpu(pid: u32, children: bool) -> Duration {
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

/// CPU time of this process (all threads).
pub fn own_cpu() -> Duration {
    cpu(std::process::id(), false)
}

fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let l = s.lines().find(|l| l.starts_with(field))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// Peak resident memory of process `pid` so far (`VmHWM`), in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmHWM:")
}

/// Resident memory of process `pid` now (`VmRSS`), in KiB.
pub fn rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS:")
}

//! Sealing an arena's side on the device: each session's key epochs, then
//! every packet's descriptor and parts written beside the packets on the
//! engine's threads, with nothing to look up but its session's epochs.

use super::{Memory, Reserved, Side};
use crate::exec::{DeviceError, Direction, Executor};
use crate::layout::{
    write_parts, Counts, KeyDesc, PacketDesc, Regions, KEY_DESC, PACKET_DESC, TASK_DESC,
};
use crate::plan::{before_rekey, parts};
use wireseal::batch::Batch;
use wireseal::bip324::state::DirectionState;
use wireseal::bip324::PacketSender;

/// A side's counts with its sessions' key entries, and its regions.
pub(super) fn layout(side: &Side, work: &[SessionWork]) -> (Counts, Regions) {
    let mut counts = side.counts;
    counts.keys = work.iter().map(|w| w.keys.len()).sum();
    (counts, Regions::new(&counts))
}

/// Writes a side's descriptors and keys beside its packets (laid out as
/// [`layout`] says) and starts it on its slot.
pub(super) fn start(
    side: &Side,
    exec: &mut dyn Executor,
    batch: &Batch,
    work: &[SessionWork],
    (counts, r): (&Counts, &Regions),
    task_bytes: u32,
) -> Result<(), DeviceError> {
    let Memory::Device { slot, .. } = side.memory else {
        return Err(DeviceError("the arena's side is in host memory".into()));
    };
    // Each session's first key entry.
    let mut bases = Vec::with_capacity(work.len());
    let mut keys = 0u32;
    for w in work {
        bases.push(keys);
        keys += w.keys.len() as u32;
    }
    let packets = &side.packets[..side.counts.packets];
    let buf = exec.input(slot, r.total())?;
    let [d_packets, d_tasks, d_multi, d_mtasks, d_keys, _] = r.split(buf);
    let entries = work.iter().flat_map(|w| &w.keys);
    for (k, out) in entries.zip(d_keys.chunks_exact_mut(KEY_DESC)) {
        out.copy_from_slice(k.bytes());
    }
    let epochs = Epochs {
        work,
        bases: &bases,
    };
    let mut pieces = cut(packets, counts, d_packets, d_tasks, d_multi, d_mtasks);
    batch.for_each_mut_coarse(&mut pieces, |p| {
        write(p, packets, &epochs, task_bytes);
    });
    exec.submit(slot, Direction::Seal, r, counts, task_bytes)
}

/// One key epoch of a session: from its `start`-th packet in the arena,
/// key entry `key`, the two ciphers' message indices at that packet.
#[derive(Debug, Clone, Copy)]
struct Epoch {
    start: u32,
    key: u32,
    packet: u32,
    length: u32,
}

/// A session's share of sealing an arena's side on a device: its state
/// before its packets (for the library to seal them from should the device
/// fail), and its key epochs, each with its key entry (`Epoch::key` counts
/// from the session's first entry).
#[derive(Default)]
pub(super) struct SessionWork {
    pub(super) state: Option<DirectionState>,
    epochs: Vec<Epoch>,
    keys: Vec<KeyDesc>,
}

impl SessionWork {
    /// The share of `n` packets, and the sender moved past them (its key
    /// schedule checked to hold them beforehand).
    pub(super) fn of(sender: &mut PacketSender, n: u32) -> Self {
        let mut w = Self::default();
        if n == 0 {
            return w;
        }
        let mut s = sender.export_state();
        let mut at = 0usize;
        while at < n as usize {
            let step = before_rekey(&s, n as usize - at);
            w.epochs.push(Epoch {
                start: at as u32,
                key: w.keys.len() as u32,
                packet: s.packet_position().index,
                length: s.length_position().index,
            });
            w.keys.push(KeyDesc::of(&s));
            s.advance(step as u64)
                .expect("checked against the key schedule");
            at += step;
        }
        w.state = Some(sender.export_state());
        sender
            .advance(u64::from(n))
            .expect("checked against the key schedule");
        w
    }
}

/// Every session's epochs, and its first key entry in the chunk.
struct Epochs<'a> {
    work: &'a [SessionWork],
    bases: &'a [u32],
}

/// Packets `range` of the arena and their slices of the descriptor
/// regions.
struct Piece<'b> {
    range: core::ops::Range<usize>,
    packets: &'b mut [u8],
    tasks: &'b mut [u8],
    multi: &'b mut [u8],
    mtasks: &'b mut [u8],
}

/// Most packets one core writes at a time.
const PIECE: usize = 1024;

/// The arena's packets in pieces of [`PIECE`], each with its slices.
fn cut<'b>(
    packets: &[Reserved],
    counts: &Counts,
    mut d_packets: &'b mut [u8],
    mut d_tasks: &'b mut [u8],
    mut d_multi: &'b mut [u8],
    mut d_mtasks: &'b mut [u8],
) -> Vec<Piece<'b>> {
    let at = |i: usize| -> (usize, usize, usize) {
        packets
            .get(i)
            .map_or((counts.tasks, counts.multi, counts.mtasks), |p| {
                (p.task as usize, p.multi as usize, p.mtask as usize)
            })
    };
    let take = |s: &mut &'b mut [u8], n: usize| {
        let (a, b) = core::mem::take(s).split_at_mut(n);
        *s = b;
        a
    };
    let mut out = Vec::with_capacity(packets.len().div_ceil(PIECE));
    let mut start = 0;
    while start < packets.len() {
        let end = (start + PIECE).min(packets.len());
        let (t0, m0, mt0) = at(start);
        let (t1, m1, mt1) = at(end);
        out.push(Piece {
            range: start..end,
            packets: take(&mut d_packets, (end - start) * PACKET_DESC),
            tasks: take(&mut d_tasks, (t1 - t0) * TASK_DESC),
            multi: take(&mut d_multi, (m1 - m0) * 4),
            mtasks: take(&mut d_mtasks, (mt1 - mt0) * 4),
        });
        start = end;
    }
    out
}

/// Writes one piece's descriptors and parts.
fn write(p: &mut Piece<'_>, packets: &[Reserved], epochs: &Epochs<'_>, task_bytes: u32) {
    let mut tasks = p.tasks.chunks_exact_mut(TASK_DESC);
    let mut multi = p.multi.chunks_exact_mut(4);
    let mut mtasks = p.mtasks.chunks_exact_mut(4);
    for (i, out) in p.range.clone().zip(p.packets.chunks_exact_mut(PACKET_DESC)) {
        let r = &packets[i];
        let list = &epochs.work[r.session as usize].epochs;
        let e = list[list.partition_point(|e| e.start <= r.ordinal) - 1];
        let k = r.ordinal - e.start;
        PacketDesc {
            offset: r.offset as u64,
            len: r.len,
            key: epochs.bases[r.session as usize] + e.key,
            index: e.packet + k,
            chunk: e.length + k,
            header: u32::from(r.header),
            first_task: r.task,
        }
        .write(out);
        let n = parts(r.len, task_bytes);
        write_parts(i as u32, r.task, n, &mut tasks, &mut multi, &mut mtasks);
    }
}

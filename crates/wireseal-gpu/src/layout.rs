//! The staging buffer's layout, shared with `kernel/bip324.cu` (the
//! structures `ws_key`, `ws_packet`, `ws_task` and `ws_args`; a test compares
//! every size and offset with the host build of the C source).
//!
//! One chunk of a batch is one buffer. A seal's ([`Regions::new`]) is
//! written by the host and copied to the device in one piece:
//!
//! | region | contents |
//! |---|---|
//! | data | the packets, each in its slot, its body (offset + 3) on a multiple of 16 |
//! | packets | one 32-byte `ws_packet` per packet |
//! | tasks | one 8-byte `ws_task` (packet, part) per part, in packet order |
//! | multi | the packets of more than one part (`u32` each) |
//! | mtasks | their parts (`u32` indices into tasks) |
//! | keys | one 80-byte `ws_key` per session epoch the chunk touches |
//!
//! Data comes first, so a packet's place in the buffer is known before the
//! descriptors are counted (what lets callers write contents straight into
//! the buffer, `crate::arena`). What comes back from the device is data.
//!
//! An open's ([`Regions::framed`]) holds what the host knows: each
//! session's received bytes as one run, a 48-byte `ws_run` per session,
//! and its key entry (with room for the later epochs the device derives);
//! the device frames the runs and writes the rest, each list sized for the
//! most packets the runs' bytes can hold:
//!
//! | region | contents |
//! |---|---|
//! | data | the runs, one after the other, as they are on the wire |
//! | runs | one `ws_run` per session |
//! | totals | four `u32`, zero: the entries the device claims in each list |
//! | keys | per run: its epoch's `ws_key` (the host's), then the device's |
//! | lens | per packet (device): its contents bytes (`u32`), its status in the top byte (1 verified, 2 failed), each run's from the place the host gives it |
//! | status | per packet (device) |
//! | packets, tasks, multi, mtasks | as for a seal (device), each run's entries together |
//!
//! Data, runs, totals and keys go to the device; data and runs, then lens,
//! come back (the keys never do). Data comes first here too, so received bytes
//! can be written into place before the runs are counted
//! (`crate::arena::OpenArena`). Regions start on 256-byte boundaries.

use crate::direction::Direction;
use core::ops::Range;
use wireseal::bip324::state::DirectionState;
use wireseal::bip324::OVERHEAD;
use wireseal::secret::Secret;

/// Bytes of a `ws_packet`.
pub(crate) const PACKET_DESC: usize = 32;
/// Bytes of a `ws_task`.
pub(crate) const TASK_DESC: usize = 8;
/// Bytes of a `ws_key`.
pub(crate) const KEY_DESC: usize = 80;
/// Bytes of a `ws_run`.
pub(crate) const RUN_DESC: usize = 48;
/// Device scratch per task: 8 `u32` (a part's Poly1305 value in 5).
pub(crate) const PARTIAL: usize = 32;
const REGION_ALIGN: usize = 256;
/// Bodies (header + contents) start on this boundary, so a device reads
/// and writes whole 64-byte blocks with 16-byte accesses.
pub(crate) const BODY_ALIGN: usize = 16;

/// Where the packet after one ending at `cursor` starts in the data
/// region: its body, 3 bytes on, on a [`BODY_ALIGN`] boundary.
pub(crate) fn place(cursor: usize) -> usize {
    (cursor + 3).next_multiple_of(BODY_ALIGN) - 3
}

/// Bytes a packet with `len` contents bytes occupies in the data region.
pub(crate) fn wire_len(len: u32) -> usize {
    len as usize + OVERHEAD
}

/// One `ws_packet`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PacketDesc {
    /// Offset of the length field in the data region.
    pub offset: u64,
    /// Contents bytes.
    pub len: u32,
    /// Index of its `ws_key`.
    pub key: u32,
    /// Packet index in its epoch (the nonce's first word).
    pub index: u32,
    /// Length-cipher chunk in its epoch.
    pub chunk: u32,
    /// Header byte to seal.
    pub header: u32,
    /// Its first part in the task list.
    pub first_task: u32,
}

impl PacketDesc {
    pub(crate) fn write(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.offset.to_le_bytes());
        let words = [
            self.len,
            self.key,
            self.index,
            self.chunk,
            self.header,
            self.first_task,
        ];
        put_words(&mut out[8..], &words);
    }
}

/// Writes `words` little-endian from the start of `out`.
fn put_words(out: &mut [u8], words: &[u32]) {
    for (v, at) in words.iter().zip(out.chunks_exact_mut(4)) {
        at.copy_from_slice(&v.to_le_bytes());
    }
}

/// The part entries of packet `index`, whose `parts` parts start at task
/// `first_task`: one `ws_task` each, and for a packet of several parts its
/// entry in the multi list and its parts' in the mtasks list, each taken
/// from the front of its region's entries.
pub(crate) fn write_parts<'b>(
    index: u32,
    first_task: u32,
    parts: u32,
    tasks: &mut impl Iterator<Item = &'b mut [u8]>,
    multi: &mut impl Iterator<Item = &'b mut [u8]>,
    mtasks: &mut impl Iterator<Item = &'b mut [u8]>,
) {
    for part in 0..parts {
        let t = tasks.next().expect("an entry per part");
        t[..4].copy_from_slice(&index.to_le_bytes());
        t[4..].copy_from_slice(&part.to_le_bytes());
        if parts > 1 {
            let m = mtasks
                .next()
                .expect("an entry per part of a multi-part packet");
            m.copy_from_slice(&(first_task + part).to_le_bytes());
        }
    }
    if parts > 1 {
        let m = multi.next().expect("an entry per multi-part packet");
        m.copy_from_slice(&index.to_le_bytes());
    }
}

/// One `ws_key`: a session direction's keys for one epoch of each cipher,
/// in a zeroizing buffer.
pub(crate) struct KeyDesc(Secret<KEY_DESC>);

impl KeyDesc {
    /// The keys `state` stands at.
    pub(crate) fn of(state: &DirectionState) -> Self {
        let mut k = Secret::new([0u8; KEY_DESC]);
        let b = k.expose_mut();
        b[..32].copy_from_slice(state.packet_key().expose());
        b[32..64].copy_from_slice(state.length_key().expose());
        b[64..72].copy_from_slice(&state.packet_position().epoch.to_le_bytes());
        b[72..80].copy_from_slice(&state.length_position().epoch.to_le_bytes());
        Self(k)
    }

    pub(crate) fn bytes(&self) -> &[u8; KEY_DESC] {
        self.0.expose()
    }
}

/// The regions of one chunk's buffer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Regions {
    pub packets: Range<usize>,
    pub tasks: Range<usize>,
    pub multi: Range<usize>,
    pub mtasks: Range<usize>,
    pub keys: Range<usize>,
    pub status: Range<usize>,
    pub data: Range<usize>,
    /// An open's: its `ws_run`s, packet lengths and totals.
    pub runs: Range<usize>,
    pub lens: Range<usize>,
    pub totals: Range<usize>,
}

/// Lays regions out one after the other, each on a [`REGION_ALIGN`]
/// boundary.
struct Cursor(usize);

impl Cursor {
    fn next(&mut self, len: usize) -> Range<usize> {
        let r = self.0..self.0 + len;
        self.0 = (self.0 + len).next_multiple_of(REGION_ALIGN);
        r
    }
}

impl Regions {
    /// A seal's layout for these counts.
    pub(crate) fn new(c: &Counts) -> Self {
        let mut at = Cursor(0);
        let data = at.next(c.data);
        let packets = at.next(c.packets * PACKET_DESC);
        let tasks = at.next(c.tasks * TASK_DESC);
        let multi = at.next(c.multi * 4);
        let mtasks = at.next(c.mtasks * 4);
        let keys = at.next(c.keys * KEY_DESC);
        let end = keys.end;
        Self {
            data,
            status: end..end,
            packets,
            tasks,
            multi,
            mtasks,
            keys,
            runs: end..end,
            lens: end..end,
            totals: end..end,
        }
    }

    /// An open's layout for these counts (each list's the most there can
    /// be; `c.runs` runs).
    pub(crate) fn framed(c: &Counts) -> Self {
        let mut at = Cursor(0);
        let data = at.next(c.data);
        let runs = at.next(c.runs * RUN_DESC);
        let totals = at.next(16);
        let keys = at.next(c.keys * KEY_DESC);
        let lens = at.next(c.packets * 4);
        let status = at.next(c.packets);
        let packets = at.next(c.packets * PACKET_DESC);
        let tasks = at.next(c.tasks * TASK_DESC);
        let multi = at.next(c.multi * 4);
        let mtasks = at.next(c.mtasks * 4);
        Self {
            packets,
            tasks,
            multi,
            mtasks,
            keys,
            status,
            data,
            runs,
            lens,
            totals,
        }
    }

    /// Whether the device frames this chunk's packets (an open).
    pub(crate) fn is_framed(&self) -> bool {
        !self.totals.is_empty()
    }

    /// A seal's `buf` cut into the regions the host writes: packets,
    /// tasks, multi, mtasks, keys, data.
    pub(crate) fn split<'b>(&self, buf: &'b mut [u8]) -> [&'b mut [u8]; 6] {
        let mut cut = Cut::new(buf);
        // In memory order.
        let data = cut.take(&self.data);
        [
            cut.take(&self.packets),
            cut.take(&self.tasks),
            cut.take(&self.multi),
            cut.take(&self.mtasks),
            cut.take(&self.keys),
            data,
        ]
    }

    /// An open's `buf` cut into the regions the host writes: data, runs
    /// and keys (the totals zeroed).
    pub(crate) fn split_framed<'b>(&self, buf: &'b mut [u8]) -> [&'b mut [u8]; 3] {
        let mut cut = Cut::new(buf);
        let data = cut.take(&self.data);
        let runs = cut.take(&self.runs);
        cut.take(&self.totals).fill(0);
        [data, runs, cut.take(&self.keys)]
    }

    /// Bytes of the whole buffer.
    pub(crate) fn total(&self) -> usize {
        self.keys.end.max(self.mtasks.end)
    }

    /// What goes to the device: everything the host wrote.
    pub(crate) fn input(&self) -> Range<usize> {
        if self.is_framed() {
            self.data.start..self.keys.end
        } else {
            0..self.total()
        }
    }

    /// What the device sends back, in up to two ranges: a seal's data; an
    /// open's data and runs, then its packet lengths.
    pub(crate) fn output(&self) -> [Range<usize>; 2] {
        if self.is_framed() {
            [self.data.start..self.runs.end, self.lens.clone()]
        } else {
            let end = self.data.end;
            [self.data.clone(), end..end]
        }
    }
}

/// A buffer taken apart region by region, in memory order.
struct Cut<'b> {
    rest: &'b mut [u8],
    at: usize,
}

impl<'b> Cut<'b> {
    fn new(buf: &'b mut [u8]) -> Self {
        Self { rest: buf, at: 0 }
    }

    fn take(&mut self, range: &Range<usize>) -> &'b mut [u8] {
        let (_, tail) = core::mem::take(&mut self.rest).split_at_mut(range.start - self.at);
        let (mine, tail) = tail.split_at_mut(range.len());
        self.rest = tail;
        self.at = range.end;
        mine
    }
}

/// One `ws_run`: what the host says about a session's run in an open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RunDesc {
    /// Offset of its first length field in the data region.
    pub offset: u64,
    /// Its bytes.
    pub len: u32,
    /// Most packets the session may still open.
    pub limit: u32,
    /// Its first key entry, and how many it may use.
    pub key: u32,
    pub keys: u32,
    /// Packet index and length-cipher chunk in their epochs.
    pub index: u32,
    pub chunk: u32,
    /// The receiver's limit on a packet's contents bytes.
    pub max: u32,
    /// Its first entry in the lens list (it has room for `limit`).
    pub lens: u32,
}

impl RunDesc {
    /// Writes the host's fields (the device's are left as they are: the
    /// device writes each before it reads it).
    pub(crate) fn write(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.offset.to_le_bytes());
        let words = [
            self.len, self.limit, self.key, self.keys, self.index, self.chunk, self.max,
        ];
        put_words(&mut out[8..], &words);
        out[RUN_LENS..RUN_LENS + 4].copy_from_slice(&self.lens.to_le_bytes());
    }
}

/// The device's count of a run's whole packets, from its `ws_run`.
pub(crate) fn run_count(run: &[u8]) -> u32 {
    u32::from_le_bytes(run[RUN_COUNT..RUN_COUNT + 4].try_into().expect("4 bytes"))
}

/// Offsets of a `ws_run`'s `lens` (the host's) and `count` (the
/// device's).
pub(crate) const RUN_LENS: usize = 36;
pub(crate) const RUN_COUNT: usize = 40;

/// How many entries of each kind a chunk holds, and its data bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub packets: usize,
    pub tasks: usize,
    pub multi: usize,
    pub mtasks: usize,
    pub keys: usize,
    pub data: usize,
    /// An open's runs (one per session).
    pub runs: usize,
}

impl Counts {
    /// Adds every count of `o` (data bytes too).
    pub(crate) fn add(&mut self, o: &Counts) {
        self.packets += o.packets;
        self.tasks += o.tasks;
        self.multi += o.multi;
        self.mtasks += o.mtasks;
        self.keys += o.keys;
        self.data += o.data;
        self.runs += o.runs;
    }
}

/// `ws_args`: where each region is on the device, and the counts.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Args {
    pub packets: u64,
    pub tasks: u64,
    pub multi: u64,
    pub mtasks: u64,
    pub keys: u64,
    pub data: u64,
    pub status: u64,
    pub partials: u64,
    pub ntasks: u32,
    pub nmulti: u32,
    pub nmtasks: u32,
    pub task_bytes: u32,
    pub runs: u64,
    pub lens: u64,
    pub totals: u64,
    pub nruns: u32,
    pub reserved: u32,
}

impl Args {
    /// The arguments for a buffer at device address `base` laid out as `r`,
    /// with scratch for the parts at `partials` (an open's counts are the
    /// most there can be: the kernels read the framed ones from `totals`).
    pub(crate) fn new(base: u64, partials: u64, r: &Regions, c: &Counts, task_bytes: u32) -> Self {
        let at = |range: &Range<usize>| base + range.start as u64;
        let framed = r.is_framed();
        let open = |range: &Range<usize>| if framed { at(range) } else { 0 };
        Self {
            runs: open(&r.runs),
            lens: open(&r.lens),
            totals: open(&r.totals),
            nruns: c.runs as u32,
            reserved: 0,
            packets: at(&r.packets),
            tasks: at(&r.tasks),
            multi: at(&r.multi),
            mtasks: at(&r.mtasks),
            keys: at(&r.keys),
            data: at(&r.data),
            status: at(&r.status),
            partials,
            ntasks: c.tasks as u32,
            nmulti: c.multi as u32,
            nmtasks: c.mtasks as u32,
            task_bytes,
        }
    }
}

/// The kernels, in the order a chunk runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    SealParts,
    SealFinish,
    OpenFrame,
    OpenParts,
    OpenVerify,
    OpenDecrypt,
}

impl Kernel {
    /// The kernel's name in `kernel/bip324.cu`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::SealParts => "ws_seal_parts",
            Kernel::SealFinish => "ws_seal_finish",
            Kernel::OpenParts => "ws_open_parts",
            Kernel::OpenVerify => "ws_open_verify",
            Kernel::OpenDecrypt => "ws_open_decrypt",
            Kernel::OpenFrame => "ws_open_frame",
        }
    }

    /// Every kernel.
    pub(crate) const ALL: [Kernel; 6] = [
        Kernel::SealParts,
        Kernel::SealFinish,
        Kernel::OpenFrame,
        Kernel::OpenParts,
        Kernel::OpenVerify,
        Kernel::OpenDecrypt,
    ];

    /// The launches of a seal or an open of `args`, with the number of
    /// items (threads' worth of work) of each: an open's part kernels the
    /// most there can be (each reads the framed count and leaves the rest
    /// idle). Kernels with nothing to do are left out.
    pub(crate) fn sequence(dir: Direction, args: &Args) -> Vec<(Kernel, u32)> {
        let all: &[(Kernel, u32)] = if dir == Direction::Open {
            &[
                (Kernel::OpenFrame, args.nruns),
                (Kernel::OpenParts, args.ntasks),
                (Kernel::OpenVerify, args.nmulti),
                (Kernel::OpenDecrypt, args.nmtasks),
            ]
        } else {
            &[
                (Kernel::SealParts, args.ntasks),
                (Kernel::SealFinish, args.nmulti),
            ]
        };
        all.iter().copied().filter(|(_, n)| *n > 0).collect()
    }
}

/// One packet reserved in a seal arena: where it is placed in the data
/// region, and its entries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reserved {
    pub(crate) session: u32,
    /// Its index among its session's packets in the arena.
    pub(crate) ordinal: u32,
    pub(crate) len: u32,
    pub(crate) header: u8,
    /// Its length field's offset in the data region.
    pub(crate) offset: usize,
    /// Tasks, multi-part packets and their parts before it.
    pub(crate) task: u32,
    pub(crate) multi: u32,
    pub(crate) mtask: u32,
}

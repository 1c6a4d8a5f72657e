//! The engine's edges on the host-built kernels, each against the library:
//! a tampered byte anywhere in a packet of several parts, a key schedule
//! that ends inside a batch, contents that do not match their sizes,
//! receive limits, genuine-only batches against the library's own batch
//! seal, open chunks of whole runs at any byte budget, runs the device
//! frames across several epochs of both ciphers, the CPU/GPU
//! threshold, and a device that fails mid-batch.

use super::{
    contents, host_engine, open_both, outgoing, seal_both, state_in_the_last_epoch, twin_pairs,
    Pair, SealCase,
};
use crate::engine::{Engine, Path};
use crate::exec::{DeviceError, DeviceInfo, Direction, Executor};
use crate::host::HostExec;
use crate::jobs::{Outgoing, SealJob};
use crate::layout::{Counts, Regions};
use crate::Config;
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use wireseal::batch::Batch;
use wireseal::bip324::batch::{seal_batch_into, SealJob as LibSealJob};
use wireseal::bip324::state::{DirectionState, STATE_LEN, STATE_VERSION};
use wireseal::bip324::{PacketReceiver, PacketSender, MAX_CONTENTS_LEN, OVERHEAD};

fn pairs(rng: &mut StdRng, n: usize) -> (Vec<Pair>, Vec<Pair>) {
    (0..n).map(|i| twin_pairs(rng, i % 2 == 0)).unzip()
}

fn case(rng: &mut StdRng, sizes: &[u32]) -> SealCase {
    let packets = outgoing(rng, sizes, 0.2);
    let contents = contents(rng, &packets);
    SealCase { packets, contents }
}

/// `n` twin sessions and a case of `packets` mixed-size packets for each.
fn sessions(rng: &mut StdRng, n: usize, packets: usize) -> (Vec<Pair>, Vec<Pair>, Vec<SealCase>) {
    let (ours, theirs) = pairs(rng, n);
    let cases = (0..n)
        .map(|_| {
            let s = super::sizes(rng, packets);
            case(rng, &s)
        })
        .collect();
    (ours, theirs, cases)
}

#[test]
fn a_flipped_bit_anywhere_fails_that_packet_only() {
    let mut rng = StdRng::seed_from_u64(1);
    let config = Config {
        task_bytes: 128,
        ..Config::default()
    };
    // Session 0 carries the tampered packet (3000 bytes: 24 parts) in the
    // middle of its run; the others are clean.
    let sizes = [40u32, 3000, 7, 600, 1];
    let packet_at = 40 + 20; // the 3000-byte packet's offset in the wire
    for flip in [
        0usize,
        2,
        3,
        4,
        100,
        128 + 4,
        1500,
        3000 + 3,
        3000 + 4,
        3000 + 19,
    ] {
        let mut engine = host_engine(config.clone(), 2, 4, 8);
        let (mut ours, mut theirs) = pairs(&mut rng, 3);
        let cases: Vec<SealCase> = (0..3).map(|_| case(&mut rng, &sizes)).collect();
        let (mut wires, _) = seal_both(&mut engine, &mut ours, &mut theirs, &cases);
        wires[0][packet_at + flip] ^= 0x10;
        open_both(&mut engine, &mut ours, &mut theirs, &wires);
        // A flip in the length field may instead announce more bytes than
        // the run holds (the library then waits for them).
        assert!(ours[0].rx.is_poisoned() || flip < 3, "flip at {flip}");
        assert!(!ours[1].rx.is_poisoned() && !ours[2].rx.is_poisoned());
    }
}

#[test]
fn a_key_schedule_that_ends_inside_a_batch_ends_as_the_librarys() {
    let mut rng = StdRng::seed_from_u64(2);
    let s = state_in_the_last_epoch(&mut rng, 215);
    assert_eq!(s.messages_left(), 8);
    let pair = || Pair {
        tx: PacketSender::from_state(&s),
        rx: PacketReceiver::from_state(&s),
    };
    let (mut ours, mut theirs) = (vec![pair()], vec![pair()]);
    let mut engine = host_engine(Config::default(), 1, 2, 2);
    let cases = [case(&mut rng, &[5; 12])];
    let (wires, _) = seal_both(&mut engine, &mut ours, &mut theirs, &cases);
    // Eight packets, then Exhausted.
    assert_eq!(wires[0].len(), 8 * 25);
    let report = open_both(&mut engine, &mut ours, &mut theirs, &wires);
    assert_eq!(report.gpu_packets, 8);
}

#[test]
fn contents_that_do_not_match_their_sizes_fail_where_the_librarys_batch_fails() {
    let mut rng = StdRng::seed_from_u64(3);
    let mut engine = host_engine(Config::default(), 2, 2, 2);
    let (mut ours, mut theirs) = pairs(&mut rng, 3);
    let mut short = case(&mut rng, &[10, 20, 30, 40]);
    short.contents.truncate(45);
    let mut long = case(&mut rng, &[10, 20]);
    long.packets
        .insert(1, Outgoing::genuine(MAX_CONTENTS_LEN as u32 + 1));
    let fine = case(&mut rng, &[100; 50]);
    let (wires, _) = seal_both(&mut engine, &mut ours, &mut theirs, &[short, long, fine]);
    assert_eq!(wires[0].len(), 10 + 20 + 2 * 20);
    assert_eq!(wires[1].len(), 10 + 20);
    open_both(&mut engine, &mut ours, &mut theirs, &wires);
}

#[test]
fn genuine_only_batches_equal_the_librarys_batch_seal() {
    let mut rng = StdRng::seed_from_u64(4);
    let mut engine = host_engine(Config::default(), 3, 5, 7);
    let (mut ours, mut theirs) = pairs(&mut rng, 40);
    let sizes: Vec<Vec<u32>> = (0..40).map(|_| super::sizes(&mut rng, 60)).collect();
    let data: Vec<Vec<u8>> = sizes
        .iter()
        .map(|s| {
            let mut d = vec![0u8; s.iter().map(|&x| x as usize).sum()];
            rng.fill(&mut d[..]);
            d
        })
        .collect();
    let packets: Vec<Vec<Outgoing>> = sizes
        .iter()
        .map(|s| s.iter().map(|&l| Outgoing::genuine(l)).collect())
        .collect();
    let (mut a, mut b): (Vec<Vec<u8>>, Vec<Vec<u8>>) = (vec![Vec::new(); 40], vec![Vec::new(); 40]);
    let mut ja: Vec<SealJob<'_>> = ours
        .iter_mut()
        .zip(&data)
        .zip(&packets)
        .zip(a.iter_mut())
        .map(|(((p, d), k), out)| SealJob {
            sender: &mut p.tx,
            contents: d,
            packets: k,
            out,
            result: Ok(0),
        })
        .collect();
    engine.seal(&mut ja);
    let ra: Vec<_> = ja.iter().map(|j| j.result).collect();
    let mut jb: Vec<LibSealJob<'_>> = theirs
        .iter_mut()
        .zip(&data)
        .zip(&sizes)
        .zip(b.iter_mut())
        .map(|(((p, d), s), out)| LibSealJob {
            sender: &mut p.tx,
            contents: d,
            sizes: s,
            out,
            result: Ok(0),
        })
        .collect();
    seal_batch_into(&Batch::with_threads(2), &mut jb);
    let rb: Vec<_> = jb.iter().map(|j| j.result).collect();
    drop((ja, jb));
    assert_eq!(ra, rb);
    assert!(
        a == b,
        "the wire bytes differ from the library's batch seal"
    );
}

#[test]
fn receive_limits_stop_the_gpu_where_the_library_stops() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut engine = host_engine(Config::default(), 1, 3, 3);
    let (mut ours, mut theirs) = pairs(&mut rng, 2);
    for p in ours.iter_mut().chain(theirs.iter_mut()) {
        let rx = std::mem::replace(&mut p.rx, PacketReceiver::from_state(&p.tx.export_state()));
        p.rx = rx.with_max_contents(1000);
    }
    let cases = [
        case(&mut rng, &[10, 999, 1000, 1001, 5]),
        case(&mut rng, &[1000; 5]),
    ];
    let (wires, _) = seal_both(&mut engine, &mut ours, &mut theirs, &cases);
    let report = open_both(&mut engine, &mut ours, &mut theirs, &wires);
    assert_eq!(report.gpu_packets, 3 + 5);
    assert!(ours[0].rx.is_poisoned() && !ours[1].rx.is_poisoned());
}

#[test]
fn open_chunks_of_whole_runs_agree_with_the_library_at_any_budget() {
    // An open chunk is cut from whole runs by bytes (512 a packet of
    // `chunk_packets`): one packet's worth holds a single run, larger than
    // the budget, per chunk; a few hold several runs, the last cut short.
    for (chunk_packets, seed) in [(1usize, 11u64), (3, 12), (40, 13)] {
        let mut rng = StdRng::seed_from_u64(seed);
        let config = Config {
            chunk_packets,
            min_gpu_batch: 0,
            min_gpu_bytes: 0,
            streams: 2,
            ..Config::default()
        };
        let mut engine = host_engine(config, 2, 3, 5);
        let (mut ours, mut theirs, cases) = sessions(&mut rng, 7, 12);
        let (mut wires, _) = seal_both(&mut engine, &mut ours, &mut theirs, &cases);
        // One run ends in a partial packet, one is empty.
        let cut = wires[2].len() - 7;
        wires[2].truncate(cut);
        wires[5].clear();
        let report = open_both(&mut engine, &mut ours, &mut theirs, &wires);
        assert_eq!((report.path, report.device_error), (Path::Gpu, None));
        assert!(
            report.chunks > 1,
            "{chunk_packets}: {} chunks",
            report.chunks
        );
        assert!(report.gpu_packets >= 5 * 12, "{}", report.gpu_packets);
    }
}

#[test]
fn runs_framed_on_the_device_cross_epochs_as_the_library_does() {
    // Runs of small packets that span several epochs of both ciphers, the
    // two ciphers at different places in their epochs (so they rekey
    // after different packets, each rekey a new key entry the device
    // derives), one run cut inside a packet: every packet is framed,
    // opened and handed back by the device path, as the library opens it.
    let mut rng = StdRng::seed_from_u64(21);
    let mut engine = host_engine(Config::default(), 1, 4, 8);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for (packet_index, length_index) in [(0u32, 0u32), (223, 0), (5, 200), (100, 223)] {
        let mut b = [0u8; STATE_LEN];
        b[0] = STATE_VERSION;
        rng.fill_bytes(&mut b[1..33]);
        rng.fill_bytes(&mut b[45..77]);
        b[33..41].copy_from_slice(&2u64.to_le_bytes());
        b[77..85].copy_from_slice(&7u64.to_le_bytes());
        // The length cipher's state comes first, then the packet cipher's.
        b[41..45].copy_from_slice(&length_index.to_le_bytes());
        b[85..89].copy_from_slice(&packet_index.to_le_bytes());
        let s = DirectionState::from_bytes(&b).expect("a valid state");
        assert_eq!(s.packet_position().index, packet_index);
        assert_eq!(s.length_position().index, length_index);
        for list in [&mut ours, &mut theirs] {
            list.push(Pair {
                tx: PacketSender::from_state(&s),
                rx: PacketReceiver::from_state(&s),
            });
        }
    }
    // The first run is all empty packets: as many as its bytes can hold,
    // so its lists and key entries are exactly as large as planned.
    let cases: Vec<SealCase> = (0..ours.len())
        .map(|i| {
            let most = if i == 0 { 1 } else { 40 };
            let sizes: Vec<u32> = (0..900).map(|_| rng.gen_range(0..most)).collect();
            case(&mut rng, &sizes)
        })
        .collect();
    let (mut wires, _) = seal_both(&mut engine, &mut ours, &mut theirs, &cases);
    let cut = wires[3].len() - 10;
    wires[3].truncate(cut);
    let report = open_both(&mut engine, &mut ours, &mut theirs, &wires);
    assert_eq!((report.path, report.device_error), (Path::Gpu, None));
    assert_eq!(report.gpu_packets, 4 * 900 - 1);
}

#[test]
fn small_batches_run_on_the_cpu_and_large_ones_on_the_gpu() {
    let mut rng = StdRng::seed_from_u64(6);
    let mut config = Config::default();
    let (mut ours, mut theirs) = pairs(&mut rng, 4);
    let mut engine = host_engine(config.clone(), 2, 2, 2);
    engine.set_min_gpu_batch(100);
    config.min_gpu_batch = 100;
    // Opens of 100 packets' worth of the smallest packets on the wire.
    engine.set_min_gpu_bytes(100 * OVERHEAD);
    config.min_gpu_bytes = 100 * OVERHEAD;
    assert_eq!(
        engine.config(),
        &Config {
            streams: 2,
            ..config
        }
    );
    let small: Vec<SealCase> = (0..4).map(|_| case(&mut rng, &[50; 24])).collect();
    let (wires, _) = seal_both(&mut engine, &mut ours, &mut theirs, &small);
    let r = open_both(&mut engine, &mut ours, &mut theirs, &wires);
    assert_eq!(
        (r.path, r.gpu_packets),
        (Path::Gpu, 4 * 24),
        "{} bytes",
        r.requested
    );
    let tiny: Vec<SealCase> = (0..4).map(|_| case(&mut rng, &[1; 2])).collect();
    let (wires, _) = seal_both(&mut engine, &mut ours, &mut theirs, &tiny);
    let r = open_both(&mut engine, &mut ours, &mut theirs, &wires);
    assert_eq!((r.path, r.gpu_packets), (Path::Cpu, 0));
    // One job alone takes the calling thread's path; a cut packet and a
    // flipped bit end it as the library's batch ends it.
    for damage in 0..3 {
        let one = [case(&mut rng, &[3, 70, 9])];
        let (mut wires, _) = seal_both(&mut engine, &mut ours[..1], &mut theirs[..1], &one);
        match damage {
            1 => wires[0].truncate(50),
            2 => wires[0][30] ^= 4,
            _ => {}
        }
        let r = open_both(&mut engine, &mut ours[..1], &mut theirs[..1], &wires);
        assert_eq!(r.path, Path::Cpu);
    }
    let cpu = Engine::cpu_only(Config::default());
    assert!(cpu.device().is_err());
}

/// A device that fails on its `nth` finish.
pub(super) struct Failing {
    pub(super) inner: HostExec,
    pub(super) nth: usize,
    pub(super) finishes: usize,
    /// Fail the `nth` submit instead (before the kernels run).
    pub(super) at_submit: bool,
}

impl Executor for Failing {
    fn info(&self) -> DeviceInfo {
        self.inner.info()
    }
    fn slots(&self) -> usize {
        self.inner.slots()
    }
    fn input(&mut self, slot: usize, len: usize) -> Result<&mut [u8], DeviceError> {
        self.inner.input(slot, len)
    }
    fn submit(
        &mut self,
        slot: usize,
        dir: Direction,
        r: &Regions,
        c: &Counts,
        t: u32,
    ) -> Result<(), DeviceError> {
        if self.at_submit {
            self.finishes += 1;
            if self.finishes == self.nth {
                return Err(DeviceError("injected".into()));
            }
        }
        self.inner.submit(slot, dir, r, c, t)
    }
    fn finish(&mut self, slot: usize, r: &Regions) -> Result<&[u8], DeviceError> {
        if self.at_submit {
            return self.inner.finish(slot, r);
        }
        self.finishes += 1;
        if self.finishes == self.nth {
            return Err(DeviceError("injected".into()));
        }
        self.inner.finish(slot, r)
    }
    fn output(&mut self, slot: usize) -> Result<&[u8], DeviceError> {
        self.inner.output(slot)
    }

    fn time_kernels(
        &mut self,
        _: usize,
        _: Direction,
        _: &Regions,
        _: &Counts,
        _: u32,
        _: usize,
    ) -> Result<f64, DeviceError> {
        unreachable!()
    }
}

#[test]
fn a_device_error_mid_batch_is_finished_by_the_library() {
    for (open, nth) in [(false, 1), (false, 3), (true, 2), (true, 5)] {
        let mut rng = StdRng::seed_from_u64(7 + nth as u64);
        let config = Config {
            chunk_packets: 50,
            min_gpu_batch: 0,
            min_gpu_bytes: 0,
            streams: 2,
            ..Config::default()
        };
        let mut failing = Engine::with(
            config.clone(),
            Ok(Box::new(Failing {
                inner: HostExec::new(2, 3, 3),
                nth,
                finishes: 0,
                at_submit: false,
            })),
        );
        let mut healthy = host_engine(config, 2, 3, 3);
        let (mut ours, mut theirs, cases) = sessions(&mut rng, 9, 40);
        let sealer = if open { &mut healthy } else { &mut failing };
        let (wires, r) = seal_both(sealer, &mut ours, &mut theirs, &cases);
        let r = if open {
            open_both(&mut failing, &mut ours, &mut theirs, &wires)
        } else {
            r
        };
        assert!(r.device_error.is_some(), "open {open}, finish {nth}");
        assert!(r.gpu_packets < 9 * 40 && r.path == Path::Gpu);
        assert!(failing.device().is_err(), "disabled after the error");
        // Later batches run on the CPU, still the library's bytes.
        let (wires, r) = seal_both(&mut failing, &mut ours, &mut theirs, &cases);
        assert_eq!(r.path, Path::Cpu);
        open_both(&mut failing, &mut ours, &mut theirs, &wires);
    }
}

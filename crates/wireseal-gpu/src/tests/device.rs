//! The same comparison with the library on a CUDA device, when there is
//! one: batches of 25K and of 130K packets over 1,024 sessions, on 4
//! streams and on 1, several chunk and part sizes, and both arenas.
//! Without a device it says `skipped: no CUDA device`.

use super::arena::round;
use super::arena_sides;
use super::differential::agree;
use super::open_arena;
use super::twin_pairs;
use crate::engine::Engine;
use crate::Config;
use rand::rngs::StdRng;
use rand::SeedableRng;

#[test]
fn the_device_agrees_with_the_library() {
    match Engine::new(Config::default()).device() {
        Ok(info) => println!("device: {info}"),
        Err(why) if why.is_no_device() => {
            // The reason starts with "no CUDA device".
            println!("skipped: {why}");
            return;
        }
        Err(why) => panic!("a CUDA device is there but cannot be used: {why}"),
    }
    // (streams, chunk packets, task bytes)
    let shapes = [
        (4usize, 16384usize, 512u32),
        (1, 1000, 64),
        (3, 4096, 128),
        (4, 65536, 512),
    ];
    let mut make = |round: usize| {
        let (streams, chunk_packets, task_bytes) = shapes[round];
        Engine::new(Config {
            min_gpu_batch: 0,
            min_gpu_bytes: 0,
            streams,
            chunk_packets,
            task_bytes,
            ..Config::default()
        })
    };
    let (sealed, opened) = agree(&mut make, 1024, 3, 10..41, 0x0d3c_1ce5);
    let (big, big_opened) = agree(&mut make_big(&shapes[3]), 1024, 1, 100..156, 0xb16);
    println!(
        "{} packets sealed and {} opened on the device across 1024 sessions, byte for byte the \
         library's",
        sealed + big,
        opened + big_opened
    );
}

fn make_big(shape: &(usize, usize, u32)) -> impl FnMut(usize) -> Engine {
    let (streams, chunk_packets, task_bytes) = *shape;
    move |_| {
        Engine::new(Config {
            min_gpu_batch: 0,
            min_gpu_bytes: 0,
            streams,
            chunk_packets,
            task_bytes,
            ..Config::default()
        })
    }
}

/// The arena on the device: 130,000 packets over 1,024 sessions, their
/// contents written into the device's staging memory, each sealed packet
/// and each sender's state compared with the library.
#[test]
fn the_device_seals_an_arena_as_the_library_does() {
    let Some(mut engine) = device_engine() else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(0xa4e4a);
    let (mut ours, mut theirs): (Vec<_>, Vec<_>) =
        (0..1024).map(|i| twin_pairs(&mut rng, i % 3 == 0)).unzip();
    for n in [130_000, 64, 1] {
        assert!(!round(&mut engine, &mut rng, &mut ours, &mut theirs, n));
    }
    // Both sides out on the device at once.
    assert_eq!(
        arena_sides::rounds(&mut engine, &mut rng, &mut ours, &mut theirs),
        0
    );
    println!(
        "an arena of 130,000 packets sealed on the device, and seven sides with two out at \
         once, byte for byte the library's"
    );
}

/// The open arena on the device: 1,024 sessions' received bytes (about
/// 30,000 mixed packets, one session tampered, one cut inside a packet,
/// one over its receiver's limit, one holding a packet's length) written
/// into the device's staging memory, each session's result, packets and
/// receiver compared with the library's batch open.
#[test]
fn the_device_opens_an_arena_as_the_library_does() {
    let Some(mut engine) = device_engine() else {
        return;
    };
    let mut rng = StdRng::seed_from_u64(0xa7ed);
    for sessions in [1024, 7] {
        let (mut ours, mut theirs): (Vec<_>, Vec<_>) = (0..sessions)
            .map(|i| twin_pairs(&mut rng, i % 3 == 0))
            .unzip();
        assert!(!open_arena::round(
            &mut engine,
            &mut rng,
            &mut ours,
            &mut theirs
        ));
    }
    println!("arenas of 1,024 and 7 sessions opened on the device, as the library opens them");
}

/// An engine on the device, or `None` (and why, printed) without one.
fn device_engine() -> Option<Engine> {
    let engine = Engine::new(Config::default());
    if let Err(why) = engine.device() {
        assert!(
            why.is_no_device(),
            "a CUDA device is there but cannot be used: {why}"
        );
        println!("skipped: {why}");
        return None;
    }
    Some(engine)
}

//! Any bytes through peat's dispatch: `classify` and both receiver modes
//! never panic and agree on the frame kind.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::peat::{classify, FrameKind, MeshKey, Mode, Received, Receiver};

fuzz_target!(|data: &[u8]| {
    let kind = classify(data);
    for mode in [Mode::Strict, Mode::Permissive] {
        let rx = Receiver::new(
            Some(MeshKey::derive(&"DEMO".parse().unwrap(), &[0x42; 32])),
            mode,
        );
        let Ok(r) = rx.receive(data) else { continue };
        let ok = match (&r, kind) {
            (Received::KeyExchange(b), FrameKind::KeyExchange)
            | (Received::PeerE2ee(b), FrameKind::PeerE2ee)
            | (Received::RelayEnvelope(b), FrameKind::RelayEnvelope) => *b == data,
            (Received::Document { .. }, FrameKind::MeshWide | FrameKind::Plain) => true,
            _ => false,
        };
        assert!(ok, "receive disagrees with classify ({kind:?})");
    }
    let plain = Receiver::new(None, Mode::Permissive);
    let _ = plain.receive(data);
});

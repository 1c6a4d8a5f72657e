//! Any bytes as a BIP324 packet stream: the receiver never panics, asks for
//! more only with a total larger than what it has, and once a packet fails
//! every later call fails (poisoned). Keys are fixed; the first packet of
//! the stream is a genuine one when the input's first byte is odd, so the
//! decoder also runs past a valid packet into fuzzed bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::bip324::{Next, PacketReceiver, PacketSender, PacketType};
use wireseal::secret::Secret;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let (lk, pk) = (Secret::new([7u8; 32]), Secret::new([9u8; 32]));
    let mut rx = PacketReceiver::new(&lk, &pk);
    let mut buf = Vec::new();
    if first & 1 == 1 {
        let mut tx = PacketSender::new(&lk, &pk);
        buf = tx
            .seal_to_vec(rest.get(..8).unwrap_or(rest), PacketType::Genuine, b"")
            .unwrap();
    }
    buf.extend_from_slice(rest);
    let mut at = 0;
    let mut failed = false;
    for _ in 0..64 {
        match rx.open_next(b"", &mut buf[at..]) {
            Ok(Next::NeedMore(total)) => {
                assert!(!failed);
                assert!(total > buf.len() - at, "asks for what it has");
                return;
            }
            Ok(Next::Packet { consumed, .. }) => {
                assert!(!failed && consumed > 0);
                at += consumed;
            }
            Err(_) if failed => return,
            Err(_) => {
                failed = true;
                assert!(rx.is_poisoned());
            }
        }
    }
});

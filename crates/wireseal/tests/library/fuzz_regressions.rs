//! Inputs the fuzz targets (fuzz/, docs/fuzzing.md) stopped on, kept as
//! tests. Each names its target and what the input showed.

use wireseal::keys::StaticSecret;
use wireseal::peat::{KeyExchange, KeyExchangeOutcome, PeerSessions, KEY_EXCHANGE_LEN};

/// `peat_key_exchange`, first recorded run: a 41-byte key-exchange frame
/// whose flag byte (0xa2) has bits other than bit 0 set. The decoder keeps
/// only bit 0 and ignores the reserved byte and the tail, as peers do, so
/// the frame re-encodes with flag byte 0 and a zero reserved byte: the
/// target's own assertion (byte-for-byte re-encoding) was wrong, the library
/// right. Pinned here so the documented behaviour stays.
#[test]
fn peat_key_exchange_ignores_flag_bits_other_than_ephemeral() {
    let frame: [u8; 41] = [
        0xb0, 0x00, 0x03, 0x00, 0x00, 0x00, 0xa2, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
        0x11, 0x12, 0xb0, 0x7f, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x13,
    ];
    let kx = KeyExchange::decode(&frame).unwrap();
    assert_eq!(kx.sender, 3);
    assert!(!kx.ephemeral, "bit 0 of 0xa2 is clear");
    let enc = kx.encode();
    assert_eq!(enc.len(), KEY_EXCHANGE_LEN);
    assert_eq!((enc[0], enc[1], enc[6]), (0xb0, 0, 0));
    assert_eq!(&enc[2..6], &frame[2..6]);
    assert_eq!(&enc[7..], &frame[7..KEY_EXCHANGE_LEN]);

    let mut odd = frame;
    odd[6] = 0xa3;
    assert!(KeyExchange::decode(&odd).unwrap().ephemeral);
    assert_eq!(KeyExchange::decode(&odd).unwrap().encode()[6], 1);

    // The key (bytes 7..39) is not one of the eight low-order points, and
    // the sender (3) is not us (1): the session table takes it.
    let mut us = PeerSessions::new(1, StaticSecret::from_bytes(&[0x11; 32]).unwrap());
    let outcome = us.handle_key_exchange(0, &frame);
    assert!(
        matches!(outcome, Ok(KeyExchangeOutcome::Established { .. })),
        "{outcome:?}"
    );
    assert_eq!(us.len(), 1);
}

//! Any bytes as a failure packet: attributing it never panics and never
//! succeeds on bytes the fuzzer made up (it does not know the hop secrets).
//! With an odd first byte the input is instead a failure message that a hop
//! of the route creates and the hops before it wrap: unwrap must name that
//! hop (counted from 1) and return the message.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::sphinx::{failure, keys, HopSecrets};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let hops = 1 + (mode as usize >> 1) % 27;
    let secrets = HopSecrets::new(
        (0..hops)
            .map(|i| keys::SharedSecret::new([i as u8 + 1; 32]))
            .collect(),
    );
    if mode & 1 == 0 {
        assert!(failure::unwrap(&secrets, rest).is_err());
        return;
    }
    let failing = 1 + rest.first().map_or(0, |b| *b as usize % hops);
    let Ok(mut packet) = failure::create_to_vec(secrets.hop(failing).unwrap(), rest) else {
        return;
    };
    for h in (1..failing).rev() {
        failure::wrap_in_place(secrets.hop(h).unwrap(), &mut packet).unwrap();
    }
    let f = failure::unwrap(&secrets, &packet).unwrap();
    assert_eq!(f.hop, failing);
    assert_eq!(f.message, rest);
});

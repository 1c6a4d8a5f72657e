//! Any bytes as a failure packet: attributing it never panics and never
//! succeeds on bytes the fuzzer made up (it does not know the hop secrets).
//! With an odd first byte the input is instead a failure message that a hop
//! of the route creates and the hops before it wrap: unwrap must name that
//! hop and return the message.
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
    let failing = rest.first().map_or(0, |b| *b as usize % hops);
    let Ok(mut packet) = failure::create_to_vec(secrets.get(failing).unwrap(), rest) else {
        return;
    };
    for i in (0..failing).rev() {
        failure::wrap_in_place(secrets.get(i).unwrap(), &mut packet);
    }
    let f = failure::unwrap(&secrets, &packet).unwrap();
    assert_eq!(f.hop, failing);
    assert_eq!(f.message, rest);
});

//! Any bytes: the AES Crypt header parsers never panic, and the sans-IO
//! parser (`parse_header`) and the incremental reader (`read_header`) agree:
//! same header (reading exactly its length), same error, or "need more" for
//! the one and truncation for the other. Run under default and tight limits.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wireseal::aescrypt::io::read_header;
use wireseal::aescrypt::{parse_header, Error, Limits, Parse};

fuzz_target!(|data: &[u8]| {
    let tight = Limits {
        max_header_len: 512,
        max_extensions: 4,
        max_iterations: 1000,
    };
    for limits in [Limits::default(), tight] {
        let mut rest = data;
        let read = read_header(&mut rest, &limits)
            .map_err(|e| e.format().expect("no I/O error reading memory"));
        match (parse_header(data, &limits), read) {
            (Ok(Parse::Done(a)), Ok(b)) => {
                assert_eq!(a, b);
                assert!(a.len <= data.len());
                assert_eq!(rest.len(), data.len() - a.len, "read exactly the header");
                assert!(a.extensions.len() <= limits.max_extensions);
                assert!(a
                    .iterations
                    .is_none_or(|i| i >= 1 && i <= limits.max_iterations));
            }
            (Ok(Parse::NeedMore(n)), Err(Error::Truncated { len, min })) => {
                assert!(n > data.len());
                assert_eq!((len, min), (data.len(), n));
            }
            (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
            (a, b) => panic!("parsers disagree: {a:?} vs {b:?}"),
        }
    }
});

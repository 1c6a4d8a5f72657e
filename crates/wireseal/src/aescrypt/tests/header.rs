use super::*;
use crate::aescrypt::header_parser::parse_header;
use crate::aescrypt::header_writer::{header_len, write_header};
use crate::aescrypt::io::read_header;

#[test]
fn incremental_parse_reports_what_it_needs() {
    let mut v = Vec::new();
    let ext = [
        Extension::new("CREATED_BY", b"x").unwrap(),
        Extension::container(128).unwrap(),
    ];
    write_header(&mut v, Version::V3, &ext, 1000, &[7u8; 16]);
    assert_eq!(v.len(), header_len(Version::V3, &ext));
    let l = Limits::default();
    for cut in 0..v.len() {
        match parse_header(&v[..cut], &l).unwrap() {
            Parse::NeedMore(n) => assert!(n > cut && n <= v.len(), "{cut} {n}"),
            Parse::Done(_) => panic!("done early at {cut}"),
        }
    }
    let Parse::Done(h) = parse_header(&v, &l).unwrap() else {
        panic!()
    };
    assert_eq!(h.iterations, Some(1000));
    assert_eq!(h.extension("CREATED_BY"), Some(&b"x"[..]));
    assert!(h.extensions[1].is_container());
    assert_eq!(h.len, v.len());
    assert!(matches!(parse_header(b"AEZ", &l), Err(Error::NotAesCrypt)));
    assert!(matches!(
        parse_header(b"AES\x04\x00", &l),
        Err(Error::UnsupportedVersion(4))
    ));
    let strict = Limits {
        max_header_len: 64,
        ..l
    };
    assert!(matches!(
        parse_header(&v, &strict),
        Err(Error::TooLong { .. })
    ));
    let low = Limits {
        max_iterations: 999,
        ..l
    };
    assert!(matches!(
        parse_header(&v, &low),
        Err(Error::TooManyIterations { .. })
    ));
}

/// A v2 header of `n` one-byte extensions, then the IV.
fn tiny_extensions(n: usize) -> Vec<u8> {
    let mut v = b"AES\x02\x00".to_vec();
    for _ in 0..n {
        v.extend_from_slice(&[0, 1, b'x']);
    }
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(&[5u8; 16]);
    v
}

/// Hands out one byte per `read`, the worst case for a reader.
struct Trickle<'a>(&'a [u8]);
impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some((&b, rest)) = self.0.split_first() else {
            return Ok(0);
        };
        let Some(first) = buf.first_mut() else {
            return Ok(0);
        };
        *first = b;
        self.0 = rest;
        Ok(1)
    }
}

/// The number of extensions is capped, and parsing is incremental: a
/// header of ~350,000 one-byte extensions (what fits in 1 MiB), read one
/// byte at a time, parses in linear time. (Re-parsing from the start on
/// every read would take ~10^11 steps here: this test would not finish.)
#[test]
fn many_tiny_extensions_are_capped_and_parsed_in_linear_time() {
    let l = Limits::default();
    assert_eq!(l.max_extensions, 1024);
    let ok = tiny_extensions(1024);
    let h = read_header(&mut Trickle(&ok), &l).unwrap();
    assert_eq!(h.extensions.len(), 1024);
    assert_eq!(h.len, ok.len());
    assert_eq!(h.public_iv, [5u8; 16]);
    let Parse::Done(p) = parse_header(&ok, &l).unwrap() else {
        panic!()
    };
    assert_eq!(p, h);

    let over = tiny_extensions(1025);
    assert!(matches!(
        fmt(read_header(&mut Trickle(&over), &l)),
        Err(Error::TooManyExtensions { limit: 1024 })
    ));
    assert!(matches!(
        parse_header(&over, &l),
        Err(Error::TooManyExtensions { limit: 1024 })
    ));

    // The most 1 MiB of header can hold, with the count cap lifted.
    let n = ((1 << 20) - 5) / 3;
    let huge = tiny_extensions(n);
    let lifted = Limits {
        max_extensions: usize::MAX,
        ..l
    };
    let h = read_header(&mut Trickle(&huge), &lifted).unwrap();
    assert_eq!(h.extensions.len(), n);
    assert_eq!(h.len, huge.len());
    // One more extension crosses the 1 MiB header limit.
    assert!(matches!(
        fmt(read_header(&mut &tiny_extensions(n + 1)[..], &lifted)),
        Err(Error::TooLong { max, .. }) if max == 1 << 20
    ));
    // And the default count cap stops the same header after 1024.
    assert!(matches!(
        fmt(read_header(&mut &huge[..], &l)),
        Err(Error::TooManyExtensions { limit: 1024 })
    ));
}

#[test]
fn read_header_stops_at_the_header_and_reports_truncation() {
    let l = Limits::default();
    let mut v = tiny_extensions(3);
    let hlen = v.len();
    v.extend_from_slice(b"rest");
    let mut r = &v[..];
    let h = read_header(&mut r, &l).unwrap();
    assert_eq!(h.len, hlen);
    assert_eq!(r, b"rest", "nothing past the header was consumed");
    for cut in 0..hlen {
        assert!(
            matches!(
                fmt(read_header(&mut &v[..cut], &l)),
                Err(Error::Truncated { len, min }) if len == cut && min > cut && min <= hlen
            ),
            "{cut}"
        );
    }
    assert!(matches!(
        fmt(read_header(&mut &b"AZ"[..], &l)),
        Err(Error::NotAesCrypt)
    ));
    assert!(matches!(
        fmt(read_header(&mut &b"AES\x00\x10"[..], &l)),
        Err(Error::Malformed(_))
    ));
}

#[test]
fn extension_rules() {
    assert!(Extension::new("", b"x").is_err());
    assert!(Extension::new("a\0b", b"x").is_err());
    assert!(Extension::new("a", &vec![0u8; 70_000]).is_err());
    let e = Extension::new("ID", b"val").unwrap();
    assert_eq!(e.identifier(), Some(&b"ID"[..]));
    assert_eq!(e.value(), Some(&b"val"[..]));
    assert!(!e.is_container());
}

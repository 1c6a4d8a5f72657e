//! BOLT #4 `onion-test.json`: the payment onion built byte for byte (by
//! `build` and `build_into`) and peeled by every hop in order.

use crate::common;
use crate::sphinx_support;

use common::hx;
use sphinx_support::{build_det, hop_list, hops_of, key};
use wireseal::sphinx::{
    area_len, build_into, build_to_vec, onion_len, Area, Onion, Padding, Peeled, Route,
    PAYMENT_AREA,
};

#[test]
fn onion_test_build_and_peel_every_hop() {
    let v = common::load_json("bolt04/onion-test.json");
    let g = &v["generate"];
    let session = key(&g["session_key"]);
    let ad = hx(g, "associated_data");
    let hops = hops_of(&g["hops"]);
    let expected = hx(&v, "onion");
    let (onion, _) = build_det(&session, &hops, &ad);
    assert_eq!(hex::encode(onion.to_vec()), hex::encode(&expected));

    // build_into writes the same bytes, with the default area and padding
    // (BOLT #4's `pad`-key stream, which the vector uses).
    let hs = hop_list(&hops);
    let route = Route::new(&hs, &ad);
    assert_eq!(
        (route.area(), route.padding()),
        (Area::Payment, Padding::Deterministic)
    );
    let mut buf = vec![0u8; 1400];
    let (n, _) = build_into(&session, &route, &mut buf).unwrap();
    assert_eq!(&buf[..n], &expected[..]);
    // So does build_to_vec, and the size helpers agree with the packet.
    let (bytes, _) = build_to_vec(&session, &route).unwrap();
    assert_eq!(bytes, expected);
    assert_eq!(route.onion_len(), expected.len());
    assert_eq!(onion_len(PAYMENT_AREA), expected.len());
    assert_eq!(area_len(expected.len()), Ok(PAYMENT_AREA));

    // Peel with each node key from "decode", in order.
    let keys_ = v["decode"].as_array().unwrap();
    assert_eq!(keys_.len(), hops.len());
    let mut cur = Onion::parse(&expected).unwrap();
    for (i, k) in keys_.iter().enumerate() {
        let node = key(k);
        assert_eq!(node.public_key(), hops[i].0);
        match cur.peel(&node, &ad).unwrap() {
            Peeled::Forward { payload, next, .. } => {
                assert!(i + 1 < hops.len());
                assert_eq!(payload, hops[i].1);
                cur = next;
            }
            Peeled::Final { payload, .. } => {
                assert_eq!(i + 1, hops.len());
                assert_eq!(payload, hops[i].1);
                return;
            }
        }
    }
    panic!("no final hop");
}

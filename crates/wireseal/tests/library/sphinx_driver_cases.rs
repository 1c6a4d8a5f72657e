//! `vectors/sphinx/driver_cases.json` through the library: the area and
//! padding names the command line and Python read the same way (their tests
//! run the same table).

use serde_json::Value;
use wireseal::sphinx::{self, Area, Hop, Padding, Route};

fn table() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/sphinx/driver_cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn areas_parse_as_the_table_says() {
    let session = wireseal::keys::PrivateKey::from_bytes(&[0x41; 32]).unwrap();
    let hop = Hop {
        pubkey: session.public_key(),
        payload: &[1, 2],
    };
    for case in table()["areas"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        match text.parse::<Area>() {
            Ok(area) => {
                let want = case["onion_len"].as_u64().expect(text) as usize;
                assert_eq!(area.onion_len(), want, "{text}");
                let route = Route::new(std::slice::from_ref(&hop), &[]).with_area(area);
                let (onion, _) = sphinx::build_to_vec(&session, &route).unwrap();
                assert_eq!(onion.len(), want, "{text}");
                assert_eq!(area.to_string().parse::<Area>().unwrap(), area);
            }
            Err(e) => assert_eq!(
                Some(e.kind().as_str()),
                case["error"].as_str(),
                "{text}: {e}"
            ),
        }
    }
}

#[test]
fn paddings_parse_as_the_table_says() {
    for case in table()["paddings"].as_array().unwrap() {
        let text = case["text"].as_str().unwrap();
        match text.parse::<Padding>() {
            Ok(p) => {
                assert!(case.get("error").is_none(), "{text} parsed");
                assert_eq!(p.to_string(), text);
            }
            Err(e) => assert_eq!(
                Some(e.kind().as_str()),
                case["error"].as_str(),
                "{text}: {e}"
            ),
        }
    }
    assert_eq!(Padding::default(), Padding::Deterministic);
}

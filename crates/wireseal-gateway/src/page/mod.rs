//! The status page at `/`: one HTML page with its script and style, built
//! into the binary and served by the gateway itself (no CDN, no network:
//! it works offline). The script reads the JSON API, draws messages per
//! minute per channel and node positions as SVG, refreshes itself, and puts
//! feed text on the page only through `textContent`; the
//! `Content-Security-Policy` allows scripts, styles and requests from the
//! gateway alone, so markup in a node's name can never run.
//!
//! With a tile server ([`TileUrl`], `--map-tiles`, the operator's setting and
//! never the feed's), positions are drawn over its map tiles and the policy
//! allows images from that one origin too; without it the page loads
//! nothing from anywhere else.

mod tiles;

pub use tiles::{TileUrl, TileUrlError};

use crate::http::response::reply;
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderValue, CONTENT_SECURITY_POLICY};
use hyper::{Response, StatusCode};

const INDEX: &str = include_str!("index.html");
/// Where the tile URL goes in the page, as an attribute of the map.
const MAP: &str = "<svg id=\"map\"";

/// The page as served: its HTML and its policy, made once.
pub(crate) struct Page {
    index: Bytes,
    csp: HeaderValue,
}

impl Page {
    /// The page, with positions over `tiles` when given.
    pub(crate) fn new(tiles: Option<&TileUrl>) -> Self {
        let images = tiles.map_or(String::new(), |t| format!(" {}", t.origin()));
        let csp = format!(
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
             img-src 'self' data:{images}; base-uri 'none'; form-action 'none'; \
             frame-ancestors 'none'"
        );
        let index = match tiles {
            Some(t) => INDEX.replacen(
                MAP,
                &format!("{MAP} data-tiles=\"{}\"", t.url().replace('&', "&amp;")),
                1,
            ),
            None => INDEX.to_owned(),
        };
        Self {
            index: Bytes::from(index),
            // A tile URL holds visible ASCII only (see `TileUrl`'s `FromStr`).
            csp: HeaderValue::from_str(&csp)
                .unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'")),
        }
    }

    /// The page's file at `path`, if it is one.
    pub(crate) fn file(&self, path: &str) -> Option<Response<Full<Bytes>>> {
        let (ty, body): (&'static str, Bytes) = match path {
            "/" | "/index.html" => ("text/html; charset=utf-8", self.index.clone()),
            "/page.js" => (
                "text/javascript; charset=utf-8",
                Bytes::from_static(include_bytes!("page.js")),
            ),
            "/page.css" => (
                "text/css; charset=utf-8",
                Bytes::from_static(include_bytes!("page.css")),
            ),
            _ => return None,
        };
        let mut r = reply(StatusCode::OK, ty, body);
        r.headers_mut()
            .insert(CONTENT_SECURITY_POLICY, self.csp.clone());
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csp(p: &Page) -> String {
        let r = p.file("/").unwrap();
        r.headers()[CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn offline_by_default_and_one_tile_origin_when_set() {
        let plain = Page::new(None);
        let policy = csp(&plain);
        assert!(policy.contains("img-src 'self' data:;"), "{policy}");
        assert!(!policy.contains("http"), "{policy}");
        assert!(!String::from_utf8_lossy(&plain.index).contains("data-tiles"));

        let t: TileUrl = "https://tile.example.org:8443/osm/{z}/{x}/{y}.png?k=1&s=a"
            .parse()
            .unwrap();
        let map = Page::new(Some(&t));
        let policy = csp(&map);
        assert!(
            policy.contains("img-src 'self' data: https://tile.example.org:8443;"),
            "{policy}"
        );
        assert_eq!(policy.matches("https://").count(), 1, "{policy}");
        for d in [
            "script-src 'self'",
            "connect-src 'self'",
            "default-src 'none'",
        ] {
            assert!(policy.contains(d), "{policy}");
        }
        let html = String::from_utf8_lossy(&map.index).into_owned();
        assert!(
            html.contains(
                "<svg id=\"map\" data-tiles=\"https://tile.example.org:8443/osm/{z}/{x}/{y}.png?k=1&amp;s=a\""
            ),
            "{html}"
        );
        for p in ["/page.js", "/page.css"] {
            assert_eq!(map.file(p).unwrap().status(), StatusCode::OK);
        }
        assert!(map.file("/other").is_none());
    }
}

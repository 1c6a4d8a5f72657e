//! The status page at `/`: one HTML page with its script and style, built
//! into the binary and served by the gateway itself (no CDN, no network:
//! it works offline). The script reads the JSON API, draws messages per
//! minute per channel and node positions as SVG, refreshes itself, and puts
//! feed text on the page only through `textContent`; the
//! `Content-Security-Policy` allows scripts, styles and requests from the
//! gateway alone, so markup in a node's name can never run.

use crate::http::reply;
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderValue, CONTENT_SECURITY_POLICY};
use hyper::{Response, StatusCode};

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; \
    frame-ancestors 'none'";

/// The page's files by path.
pub(crate) fn file(path: &str) -> Option<Response<Full<Bytes>>> {
    let (ty, body): (&'static str, &'static str) = match path {
        "/" | "/index.html" => ("text/html; charset=utf-8", include_str!("index.html")),
        "/page.js" => ("text/javascript; charset=utf-8", include_str!("page.js")),
        "/page.css" => ("text/css; charset=utf-8", include_str!("page.css")),
        _ => return None,
    };
    let mut r = reply(StatusCode::OK, ty, body);
    r.headers_mut()
        .insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    Some(r)
}

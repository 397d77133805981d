//! The block explorer: a single-page application served at `/explorer/` in development mode
//! (and by the validator config's `explorer` setting elsewhere).
//!
//! The pages are static files compiled into the binary with `include_bytes!`, so the node serves
//! them offline with no other step; the page then reads the chain through this same API, like
//! any client (same rate limits, no private route). Its script is a committed build of
//! `crates/rpc/explorer/src` and the TypeScript SDK's proof verification (`docs/explorer.md`
//! gives the rebuild command; `crates/rpc/explorer/test/bundle.test.mjs` checks the committed
//! bundle matches its sources). Third-party code in the bundle is listed with its licence in
//! `THIRD-PARTY-LICENSES.txt`, served beside it.
//!
//! Every asset is answered with a content security policy that lets the page load nothing but
//! its own files and talk to nothing but this node: no CDN, no inline script.

use crate::error::HttpError;
use axum::{
    Router,
    http::{HeaderValue, Uri, header},
    response::{IntoResponse, Redirect, Response},
    routing::get,
};
use drover_types::ErrorCode;

/// Where the explorer is served (its index is `EXPLORER_PATH` followed by `/`).
pub(crate) const EXPLORER_PATH: &str = "/explorer";

/// The content security policy of every explorer answer: own files only, API calls to this
/// node only, and SVG charts drawn by the script.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// One embedded file: its name under [`EXPLORER_PATH`], its content type and its bytes.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

/// The explorer's files, the page's index first.
const ASSETS: [Asset; 4] = [
    Asset {
        name: "index.html",
        content_type: "text/html; charset=utf-8",
        bytes: include_bytes!("../explorer/assets/index.html"),
    },
    Asset {
        name: "explorer.css",
        content_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../explorer/assets/explorer.css"),
    },
    Asset {
        name: "explorer.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../explorer/assets/explorer.js"),
    },
    Asset {
        name: "THIRD-PARTY-LICENSES.txt",
        content_type: "text/plain; charset=utf-8",
        bytes: include_bytes!("../explorer/assets/THIRD-PARTY-LICENSES.txt"),
    },
];

/// The explorer's routes, to merge into the router.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(EXPLORER_PATH, get(|| async { Redirect::permanent(&format!("{EXPLORER_PATH}/")) }))
        .route(&format!("{EXPLORER_PATH}/"), get(|| async { answer(&ASSETS[0]) }))
        .route(&format!("{EXPLORER_PATH}/{{file}}"), get(file))
}

/// An asset by name. The URI is read as is (no path extractor) so that no request, however
/// encoded, gets an answer other than a file or the API's JSON 404.
async fn file(uri: Uri) -> Response {
    let name = uri.path().strip_prefix(EXPLORER_PATH).and_then(|rest| rest.strip_prefix('/')).unwrap_or_default();
    match ASSETS.iter().find(|asset| asset.name == name) {
        Some(asset) => answer(asset),
        None => HttpError::new(ErrorCode::NotFound, format!("the explorer has no file {name:?}")).into_response(),
    }
}

fn answer(asset: &Asset) -> Response {
    let mut response = asset.bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    // A new binary may carry new assets: the browser revalidates rather than keep a stale page.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        RpcConfig,
        mock::{MockBackend, api, get},
    };
    use axum::http::StatusCode;

    fn app(dev_mode: bool, explorer: bool) -> Router {
        api(MockBackend::default(), RpcConfig { dev_mode, explorer, ..RpcConfig::default() })
    }

    #[tokio::test]
    async fn served_in_dev_mode_or_when_configured_only() {
        for (dev_mode, explorer, served) in [(false, false, false), (true, false, true), (false, true, true)] {
            let answer = get(&app(dev_mode, explorer), "/explorer/").await;
            if served {
                assert_eq!(answer.status, StatusCode::OK, "dev {dev_mode} explorer {explorer}");
            } else {
                answer.assert_error(404, ErrorCode::NotFound);
            }
        }
    }

    #[tokio::test]
    async fn every_asset_is_served_with_its_type_and_policy() {
        let app = app(true, false);
        for asset in &ASSETS {
            let answer = get(&app, &format!("/explorer/{}", asset.name)).await;
            assert_eq!(answer.status, StatusCode::OK, "{}", asset.name);
            assert_eq!(answer.header(header::CONTENT_TYPE), Some(asset.content_type));
            assert_eq!(answer.header(header::CONTENT_SECURITY_POLICY), Some(CONTENT_SECURITY_POLICY));
            assert_eq!(answer.header(header::X_CONTENT_TYPE_OPTIONS), Some("nosniff"));
            assert_eq!(answer.body.len(), asset.bytes.len(), "{}", asset.name);
        }
        let index = get(&app, "/explorer/").await.text();
        assert!(index.contains("explorer.js") && index.contains("explorer.css"), "{index}");
        assert!(get(&app, EXPLORER_PATH).await.status.is_redirection());
    }

    #[tokio::test]
    async fn unknown_files_are_json_404s() {
        let app = app(true, false);
        for path in
            ["/explorer/nope.js", "/explorer/%2e%2e%2fCargo.toml", "/explorer/assets/explorer.js", "/explorer//"]
        {
            get(&app, path).await.assert_error(404, ErrorCode::NotFound);
        }
    }
}

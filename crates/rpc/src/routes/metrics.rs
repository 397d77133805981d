//! `GET /metrics`: the node's Prometheus text followed by the HTTP layer's registry, served as
//! text format 0.0.4. OpenMetrics `# EOF` markers from the node's part are dropped, since the
//! exposition goes on after it.

use crate::{backend::Backend, error::HttpError, openapi::errors, state::AppState};
use axum::{
    extract::State,
    http::header,
    response::{IntoResponse, Response},
};
use drover_types::{ErrorCode, api::paths};
use utoipa_axum::{router::OpenApiRouter, routes};

/// Content type of the exposition.
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::new().routes(routes!(metrics))
}

/// `GET /metrics`: the node's metrics, then the HTTP layer's, in Prometheus text format.
#[utoipa::path(
    get,
    path = paths::METRICS,
    tag = "health",
    summary = "Prometheus metrics",
    description = "Text format 0.0.4: node metrics (consensus, storage, mempool, chain) then \
        `drover_rpc_requests_total{route,method,status}`, \
        `drover_rpc_request_duration_seconds{route}`, `drover_rpc_rate_limited_total{limiter}` \
        and `drover_rpc_submit_waits_in_flight`. \
        `route` is a route template (`unmatched` for paths no route serves) and `method` a \
        standard method name (`other` for any other), so clients cannot add series.",
    responses((status = 200, description = "Prometheus text.", body = String, content_type = "text/plain")),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn metrics<B: Backend>(State(state): State<AppState<B>>) -> Result<Response, HttpError> {
    let node = state.backend.metrics();
    let mut text = String::with_capacity(node.len() + 4096);
    for line in node.lines().filter(|line| line.trim() != "# EOF") {
        text.push_str(line);
        text.push('\n');
    }
    state.metrics.set_submit_waits_in_flight(state.submit_waits_in_flight());
    state
        .metrics
        .encode_into(&mut text)
        .map_err(|_| HttpError::new(ErrorCode::Internal, "metrics could not be encoded"))?;
    Ok(([(header::CONTENT_TYPE, METRICS_CONTENT_TYPE)], text).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::*;
    use axum::http::StatusCode;

    #[tokio::test]
    async fn node_metrics_then_route_labelled_counters() {
        let app = app(&MockBackend::default());
        get(&app, &format!("/account/{}", key(0).address())).await;
        get(&app, "/account/0x12").await;
        get(&app, "/no/such/route").await;
        let answer = get(&app, "/metrics").await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.header(header::CONTENT_TYPE), Some(METRICS_CONTENT_TYPE));
        let text = answer.text();
        assert!(text.starts_with("# TYPE drover_chain_height gauge\ndrover_chain_height 0\n"), "{text}");
        assert!(!text.contains("# EOF"), "{text}");
        for line in [
            r#"drover_rpc_requests_total{route="/account/{address}",method="GET",status="200"} 1"#,
            r#"drover_rpc_requests_total{route="/account/{address}",method="GET",status="400"} 1"#,
            r#"drover_rpc_requests_total{route="unmatched",method="GET",status="404"} 1"#,
            r#"drover_rpc_request_duration_seconds_count{route="/account/{address}"} 2"#,
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
        assert!(!text.contains("0x12"), "raw URIs must not become labels");
    }

    /// The `drover_rpc_requests_total` series of an exposition.
    fn request_series(text: &str) -> Vec<String> {
        text.lines()
            .filter(|line| line.starts_with("drover_rpc_requests_total{"))
            .map(|line| line.rsplit_once(' ').map_or(line, |(labels, _)| labels).to_owned())
            .collect()
    }

    async fn garbage(app: &axum::Router, round: u32) {
        for i in 0..20 {
            let method = format!("X{round}GARBAGE{i}");
            for uri in [format!("/no/such/{round}/{i}"), "/height".to_owned(), format!("/account/0x{i:02}")] {
                let request = axum::http::Request::builder()
                    .method(method.as_str())
                    .uri(&uri)
                    .body(axum::body::Body::empty())
                    .unwrap();
                send(app, request).await;
            }
            get(app, &format!("/garbage-{round}-{i}?q={i}")).await;
        }
    }

    #[tokio::test]
    async fn client_chosen_methods_and_paths_add_no_series() {
        // No global limit in the way: its 429s would be series of their own.
        let config = crate::RpcConfig { global_rate_limit_per_sec: 1_000_000, ..crate::RpcConfig::default() };
        let app = crate::mock::api(MockBackend::default(), config);
        garbage(&app, 1).await;
        let first = request_series(&get(&app, "/metrics").await.text());
        // The first round created the few series any garbage falls into; more garbage, with
        // other methods and paths, creates none.
        garbage(&app, 2).await;
        let text = get(&app, "/metrics").await.text();
        let second = request_series(&text);
        // `/metrics` itself was counted by the second scrape: the one series that may appear.
        let metrics_route = r#"drover_rpc_requests_total{route="/metrics",method="GET",status="200"}"#;
        let without_scrape =
            |series: &[String]| series.iter().filter(|s| s.as_str() != metrics_route).cloned().collect::<Vec<_>>();
        assert_eq!(without_scrape(&first), without_scrape(&second), "{text}");
        for series in &second {
            assert!(!series.contains("GARBAGE") && !series.contains("garbage"), "{series}");
            assert!(!series.contains("/no/such"), "{series}");
        }
        for line in [
            r#"drover_rpc_requests_total{route="unmatched",method="other",status="404"} 40"#,
            r#"drover_rpc_requests_total{route="/height",method="other",status="405"} 40"#,
            r#"drover_rpc_requests_total{route="unmatched",method="GET",status="404"} 40"#,
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
    }
}

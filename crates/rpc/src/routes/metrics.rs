//! `GET /metrics`: the node's Prometheus text followed by the HTTP layer's registry, served as
//! text format 0.0.4. OpenMetrics `# EOF` markers from the node's part are dropped, since the
//! exposition goes on after it.

use crate::{backend::Backend, error::HttpError, state::AppState};
use axum::{
    extract::State,
    http::header,
    response::{IntoResponse, Response},
};
use drover_types::ErrorCode;

/// Content type of the exposition.
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

#[utoipa::path(
    get,
    path = "/metrics",
    tag = "health",
    summary = "Prometheus metrics",
    description = "Text format 0.0.4: node metrics (consensus, storage, mempool, chain) then \
        `drover_rpc_requests_total{route,method,status}`, \
        `drover_rpc_request_duration_seconds{route}` and `drover_rpc_rate_limited_total{limiter}`.",
    responses((status = 200, description = "Prometheus text.", body = String, content_type = "text/plain"))
)]
pub async fn metrics<B: Backend>(State(state): State<AppState<B>>) -> Result<Response, HttpError> {
    let node = state.backend.metrics();
    let mut text = String::with_capacity(node.len() + 4096);
    for line in node.lines().filter(|line| line.trim() != "# EOF") {
        text.push_str(line);
        text.push('\n');
    }
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
        assert_eq!(
            answer.header(header::CONTENT_TYPE),
            Some(METRICS_CONTENT_TYPE)
        );
        let text = answer.text();
        assert!(
            text.starts_with("# TYPE drover_chain_height gauge\ndrover_chain_height 0\n"),
            "{text}"
        );
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
}

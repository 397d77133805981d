//! Runners: `GET /runners/active`, `/runner/{address}` and `/account/{address}/delegations`.
//!
//! An address that never registered is 404 with 7000; a deregistered runner is still served
//! (health `deregistered`, with its unbonding stake) so its delegators can follow their funds.

use crate::{backend::Backend, error::HttpError, extract::AddressParam, pagination::Page, state::AppState};
use axum::{Json, extract::State};
use drover_types::{
    ErrorCode,
    api::{DelegationList, RunnerInfo, RunnerList},
};

/// `GET /runners/active`: one page of healthy runners in registration order.
#[utoipa::path(
    get,
    path = "/runners/active",
    tag = "runners",
    summary = "Healthy runners in registration order",
    description = "Runners that are registered, not paused and whose last heartbeat is within the gap; each with \
        its stake, delegated stake, rate card, capabilities and reputation.",
    params(
        ("offset" = Option<u64>, Query, description = "Runners to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `runners`.", body = RunnerList))
)]
pub async fn active<B: Backend>(State(state): State<AppState<B>>, page: Page) -> Result<Json<RunnerList>, HttpError> {
    Ok(Json(state.backend.active_runners(page).await?))
}

/// `GET /runner/{address}`: a runner's record (404 with 7000 if it never registered).
#[utoipa::path(
    get,
    path = "/runner/{address}",
    tag = "runners",
    summary = "A runner's record",
    params(("address" = String, Path, description = "The runner: 20 bytes of hex.")),
    responses((status = 200, description = "The runner.", body = RunnerInfo))
)]
pub async fn runner<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<RunnerInfo>, HttpError> {
    state
        .backend
        .runner(address)
        .await?
        .map(Json)
        .ok_or_else(|| HttpError::new(ErrorCode::RunnerNotFound, format!("{address} has never registered as a runner")))
}

/// `GET /account/{address}/delegations`: one page of an account's delegations.
#[utoipa::path(
    get,
    path = "/account/{address}/delegations",
    tag = "runners",
    summary = "An account's delegations to runners",
    description = "Active delegations and those still unbonding, in runner order; an account without any gets an \
        empty list.",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("offset" = Option<u64>, Query, description = "Delegations to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `delegations`.", body = DelegationList))
)]
pub async fn delegations<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    page: Page,
) -> Result<Json<DelegationList>, HttpError> {
    Ok(Json(state.backend.delegations(address, page).await?))
}

#[cfg(test)]
mod tests {
    use crate::mock::*;
    use axum::http::StatusCode;
    use drover_types::{
        Address, ErrorCode,
        api::{CapabilitiesInfo, DelegationInfo, RateCardInfo, RunnerInfo},
    };
    use serde_json::json;

    fn runner(n: u8, health: &str) -> RunnerInfo {
        RunnerInfo {
            address: Address([n; 20]),
            stake: 1_000_000_000,
            delegated_stake: u128::MAX,
            rate_card: RateCardInfo { price_per_job: 5 },
            capabilities: CapabilitiesInfo { job_types: vec!["echo".into()], max_concurrent_jobs: 2 },
            health: health.into(),
            registered_height: 1,
            last_heartbeat_height: 2,
            reputation: 80,
            active_jobs: 0,
            unbonding: Vec::new(),
        }
    }

    fn backend() -> MockBackend {
        MockBackend::with(|data| {
            data.runners = vec![runner(1, "healthy"), runner(2, "paused"), runner(3, "healthy")];
            data.delegations.insert(
                Address([9; 20]),
                vec![DelegationInfo { runner: Address([1; 20]), amount: 7, since_height: 3, pending: Vec::new() }],
            );
        })
    }

    #[tokio::test]
    async fn runners_and_delegations() {
        let app = app(&backend());
        let active = get(&app, "/runners/active?limit=1&offset=1").await.json();
        assert_eq!((active["total_count"].clone(), active["limit"].clone()), (json!(2), json!(1)));
        assert_eq!(active["runners"][0]["address"], json!(Address([3; 20]).to_hex()));
        assert_eq!(active["runners"][0]["delegated_stake"], json!(u128::MAX.to_string()));
        assert_eq!(active["runners"][0]["rate_card"], json!({"price_per_job": "5"}));
        let one = get(&app, &format!("/runner/{}", Address([2; 20]).to_hex())).await;
        assert_eq!(one.status, StatusCode::OK);
        assert_eq!(one.json()["health"], json!("paused"));
        get(&app, &format!("/runner/{}", Address([4; 20]).to_hex())).await.assert_error(404, ErrorCode::RunnerNotFound);
        get(&app, "/runner/0x12").await.assert_error(400, ErrorCode::InvalidAddress);
        let list = get(&app, &format!("/account/{}/delegations", Address([9; 20]).to_hex())).await.json();
        assert_eq!(list["delegations"][0]["amount"], json!("7"));
        assert_eq!(list["total_count"], json!(1));
        let none = get(&app, &format!("/account/{}/delegations", Address([8; 20]).to_hex())).await.json();
        assert_eq!(none["delegations"], json!([]));
        get(&app, "/account/zz/delegations").await.assert_error(400, ErrorCode::InvalidAddress);
    }
}

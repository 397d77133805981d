//! Governance: `GET /governance/params`, `/governance/proposals` and
//! `/governance/proposal/{id}`.
//!
//! Parameters are the values in force for the next block, each with its default and the
//! bounds no proposal can cross. Proposals list in id order, filtered by `?status=` (`voting`,
//! `passed`, `rejected`, `executed`, `expired`; anything else is 400); one proposal carries a
//! page of its votes (`?offset=&limit=`) and its timeline. An unknown id is 404 (1002).

use crate::{
    backend::Backend, error::HttpError, extract::ApiQuery, openapi::errors, pagination::Page, state::AppState,
};
use axum::{
    Json,
    extract::{Path, State},
};
use drover_types::{
    ErrorCode,
    api::{GovernanceParams, ProposalDetail, ProposalList, paths},
    governance::ProposalStatus,
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag(
        "governance",
        "Chain parameters and the proposals that change them",
    ))
    .routes(routes!(params))
    .routes(routes!(proposals))
    .routes(routes!(proposal))
}

/// `GET /governance/params`: the live chain parameters and their bounds.
#[utoipa::path(
    get,
    path = paths::GOVERNANCE_PARAMS,
    tag = "governance",
    summary = "Chain parameters",
    description = "Every parameter execution reads from state, with the value in force for the next block, its \
        genesis default and the bounds a proposal must stay within; and the weight locked for voting.",
    responses((status = 200, description = "The parameters.", body = GovernanceParams)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn params<B: Backend>(State(state): State<AppState<B>>) -> Result<Json<GovernanceParams>, HttpError> {
    Ok(Json(state.backend.governance_params().await?))
}

/// Query of `GET /governance/proposals`.
#[derive(Debug, Deserialize)]
pub struct ProposalQuery {
    /// Only proposals with this status.
    status: Option<String>,
}

/// `GET /governance/proposals`: one page of proposals.
#[utoipa::path(
    get,
    path = paths::GOVERNANCE_PROPOSALS,
    tag = "governance",
    summary = "Proposals",
    description = "Proposals in id order, optionally only those with one status (a status filter looks through \
        the 1,024 latest proposals).",
    params(
        ("status" = Option<String>, Query, description = "voting, passed, rejected, executed or expired."),
        ("offset" = Option<u64>, Query, description = "Proposals to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `proposals`.", body = ProposalList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest])))),
)]
pub async fn proposals<B: Backend>(
    State(state): State<AppState<B>>,
    ApiQuery(query): ApiQuery<ProposalQuery>,
    page: Page,
) -> Result<Json<ProposalList>, HttpError> {
    let status = query
        .status
        .map(|word| {
            ProposalStatus::parse(&word).ok_or_else(|| {
                HttpError::new(
                    ErrorCode::BadRequest,
                    format!("status {word:?} is not one of voting, passed, rejected, executed, expired"),
                )
            })
        })
        .transpose()?;
    Ok(Json(state.backend.proposals(status, page).await?))
}

/// `GET /governance/proposal/{id}`: a proposal, a page of its votes and its timeline.
#[utoipa::path(
    get,
    path = paths::GOVERNANCE_PROPOSAL,
    tag = "governance",
    summary = "A proposal",
    description = "The proposal with its tally, a page of its votes in the order cast and its timeline (made, vote \
        ends, executable, expires, closed).",
    params(
        ("id" = u64, Path, description = "The proposal's id."),
        ("offset" = Option<u64>, Query, description = "Votes to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Votes per page (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The proposal.", body = ProposalDetail)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::NotFound])))),
)]
pub async fn proposal<B: Backend>(
    State(state): State<AppState<B>>,
    Path(id): Path<String>,
    page: Page,
) -> Result<Json<ProposalDetail>, HttpError> {
    let id: u64 =
        id.parse().map_err(|_| HttpError::new(ErrorCode::BadRequest, format!("proposal id {id:?} is not a number")))?;
    state
        .backend
        .proposal(id, page)
        .await?
        .map(Json)
        .ok_or_else(|| HttpError::new(ErrorCode::NotFound, format!("no proposal has id {id}")))
}

#[cfg(test)]
mod tests {
    use crate::backend::governance::mock::{GovernanceMock, proposal};
    use crate::mock::*;
    use drover_types::ErrorCode;

    #[tokio::test]
    async fn params_proposals_and_errors() {
        let backend = MockBackend::with(|data: &mut GovernanceMock| {
            data.proposals = vec![proposal(0, "voting"), proposal(1, "executed")]
        });
        let app = app(&backend);
        let params = get(&app, "/governance/params").await.json();
        assert_eq!(params["params"][0]["name"], "target_cycles");
        assert_eq!(params["params"][0]["value"], "10000000");
        let list = get(&app, "/governance/proposals?status=executed").await.json();
        assert_eq!((list["total_count"].as_u64(), list["proposals"][0]["id"].as_u64()), (Some(1), Some(1)));
        let one = get(&app, "/governance/proposal/0").await.json();
        assert_eq!(
            (one["status"].as_str(), one["changes"]["target_cycles"].as_str()),
            (Some("voting"), Some("20000000"))
        );
        get(&app, "/governance/proposal/7").await.assert_error(404, ErrorCode::NotFound);
        get(&app, "/governance/proposal/x").await.assert_error(400, ErrorCode::BadRequest);
        get(&app, "/governance/proposals?status=won").await.assert_error(400, ErrorCode::BadRequest);
    }
}

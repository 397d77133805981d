//! Chain: `GET /chain-info` and `GET /basefee`.
//!
//! The suggested max fee of each market is twice its basefee plus the suggested tip: the
//! basefee can rise by at most 1/8 per block, so doubling keeps a transaction admissible through
//! about six consecutive full blocks, and unused headroom is never charged.

use crate::{backend::Backend, openapi::errors, state::AppState};
use axum::{Json, extract::State};
use drover_types::api::{BasefeeInfo, ChainInfo, paths};
use utoipa_axum::{router::OpenApiRouter, routes};

/// Suggested tip per cycle, in base units: the smallest non-zero tip, enough to be ordered
/// ahead of untipped transactions.
pub const SUGGESTED_TIP_PER_CYCLE: u128 = 1;
/// Suggested tip per cell, in base units, chosen like [`SUGGESTED_TIP_PER_CYCLE`].
pub const SUGGESTED_TIP_PER_CELL: u128 = 1;

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("chain", "Chain identity and fee market"))
        .routes(routes!(chain_info))
        .routes(routes!(basefee))
}

/// `GET /chain-info`: chain id, network name, genesis hash and node version.
#[utoipa::path(
    get,
    path = paths::CHAIN_INFO,
    tag = "chain",
    summary = "Chain id, network name, genesis hash and node version",
    responses((status = 200, description = "Chain identity.", body = ChainInfo)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn chain_info<B: Backend>(State(state): State<AppState<B>>) -> Json<ChainInfo> {
    Json(state.backend.chain_info())
}

pub(crate) fn suggested_max_fee(basefee: u128, tip: u128) -> u128 {
    basefee.saturating_mul(2).saturating_add(tip)
}

/// `GET /basefee`: the next block's basefees and the suggested fees, as decimal strings.
#[utoipa::path(
    get,
    path = paths::BASEFEE,
    tag = "chain",
    summary = "Basefees of the next block and suggested fees",
    description = "Decimal strings, in base units per cycle / per cell. \
        `suggested_max_fee_* = 2 × basefee_* + suggested_tip_*`.",
    responses((status = 200, description = "Basefees and suggestions.", body = BasefeeInfo)),
    extensions(("x-errors" = json!(errors(&[])))),
)]
pub async fn basefee<B: Backend>(State(state): State<AppState<B>>) -> Json<BasefeeInfo> {
    let fees = state.backend.basefees();
    Json(BasefeeInfo {
        basefee_cycle: fees.cycle.to_string(),
        basefee_cell: fees.cell.to_string(),
        suggested_tip_per_cycle: SUGGESTED_TIP_PER_CYCLE.to_string(),
        suggested_tip_per_cell: SUGGESTED_TIP_PER_CELL.to_string(),
        suggested_max_fee_per_cycle: suggested_max_fee(fees.cycle, SUGGESTED_TIP_PER_CYCLE).to_string(),
        suggested_max_fee_per_cell: suggested_max_fee(fees.cell, SUGGESTED_TIP_PER_CELL).to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::chain::mock::{ChainMock, MOCK_IDENTITY};
    use crate::mock::*;

    #[tokio::test]
    async fn chain_info_shape() {
        let body = get(&app(&MockBackend::default()), "/chain-info").await.json();
        assert_eq!(body["chain_id"], CHAIN_ID);
        assert_eq!(body["network"], "drover-test");
        assert_eq!(body["genesis_hash"], block(0).hash.to_hex());
        assert_eq!(body["identity"], MOCK_IDENTITY);
        assert_eq!(body["version"], "0.1.0-test");
    }

    #[tokio::test]
    async fn basefee_values_are_decimal_strings() {
        let mock = MockBackend::with(|data: &mut ChainMock| data.basefees.cell = u128::MAX);
        let body = get(&app(&mock), "/basefee").await.json();
        assert_eq!(
            body,
            serde_json::json!({
                "basefee_cycle": "7",
                "basefee_cell": u128::MAX.to_string(),
                "suggested_tip_per_cycle": "1",
                "suggested_tip_per_cell": "1",
                "suggested_max_fee_per_cycle": "15",
                "suggested_max_fee_per_cell": u128::MAX.to_string(),
            })
        );
        assert_eq!(suggested_max_fee(0, 0), 0);
    }
}

//! Accounts: `GET /account/{address}`.

use crate::{backend::Backend, error::HttpError, extract::AddressParam, openapi::errors, state::AppState};
use axum::{Json, extract::State};
use drover_types::{
    ErrorCode,
    api::{AccountInfo, paths},
};
use utoipa_axum::{router::OpenApiRouter, routes};

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("accounts", "Account state")).routes(routes!(account))
}

/// `GET /account/{address}`: nonce and balance (404 with 3000 when the address holds no state).
#[utoipa::path(
    get,
    path = paths::ACCOUNT,
    tag = "accounts",
    summary = "Nonce and balance of an address",
    description = "State at the latest finalized block. `balance` is in base units (1 DRV = 10^9).",
    params(("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case.")),
    responses((status = 200, description = "The account.", body = AccountInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::AccountNotFound])))),
)]
pub async fn account<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
) -> Result<Json<AccountInfo>, HttpError> {
    state
        .backend
        .account(address)
        .await?
        .map(Json)
        .ok_or_else(|| HttpError::new(ErrorCode::AccountNotFound, format!("address {address} holds no state")))
}

#[cfg(test)]
mod tests {
    use crate::mock::*;
    use axum::http::StatusCode;
    use drover_types::ErrorCode;

    #[tokio::test]
    async fn account_shape_and_errors() {
        let app = app(&MockBackend::default());
        let address = key(0).address();
        let answer = get(&app, &format!("/account/{address}")).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(
            answer.json(),
            serde_json::json!({"address": address.to_hex(), "nonce": 0, "balance": 1_000_000_000_000u64})
        );
        let upper_without_prefix = hex::encode_upper(address.0);
        assert_eq!(get(&app, &format!("/account/{upper_without_prefix}")).await.status, StatusCode::OK);

        get(&app, "/account/0x0000000000000000000000000000000000000abc")
            .await
            .assert_error(404, ErrorCode::AccountNotFound);
        for bad in ["0x12", "zz", "0x0000000000000000000000000000000000000abc00"] {
            get(&app, &format!("/account/{bad}")).await.assert_error(400, ErrorCode::InvalidAddress);
        }
    }
}

//! Tokens: `GET /tokens`, `/token/{token_id}`, `/token/{token_id}/balance/{address}`,
//! `/token/{token_id}/allowance/{owner}/{spender}` and `/account/{address}/tokens`.
//!
//! Token ids are written like addresses, so a malformed id is refused like a malformed address
//! (400, 3001); an id no token has is 404 with 1002. A holder that never held the token has a
//! balance of `"0"`, not a 404: a wallet asks before the first transfer arrives.

use crate::{
    backend::Backend,
    error::HttpError,
    extract::{AddressParam, AddressParams},
    openapi::errors,
    pagination::Page,
    state::AppState,
};
use axum::{Json, extract::State};
use drover_types::{
    Address, ErrorCode,
    api::{AccountTokens, TokenAllowance, TokenBalance, TokenInfo, TokenList, paths},
};
use utoipa_axum::{router::OpenApiRouter, routes};

fn unknown(id: &Address) -> HttpError {
    HttpError::new(ErrorCode::NotFound, format!("no token has the id {id}"))
}

/// This family's routes, as their handlers' `#[utoipa::path]` declare them (see [`super`]).
pub(crate) fn router<B: Backend>() -> OpenApiRouter<AppState<B>> {
    OpenApiRouter::with_openapi(crate::openapi::tag("tokens", "Native fungible tokens: metadata, balances, allowances"))
        .routes(routes!(tokens))
        .routes(routes!(token))
        .routes(routes!(balance))
        .routes(routes!(allowance))
        .routes(routes!(account_tokens))
}

/// `GET /tokens`: one page of tokens in creation order.
#[utoipa::path(
    get,
    path = paths::TOKENS,
    tag = "tokens",
    summary = "Tokens in creation order",
    params(
        ("offset" = Option<u64>, Query, description = "Tokens to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `tokens`.", body = TokenList)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest])))),
)]
pub async fn tokens<B: Backend>(State(state): State<AppState<B>>, page: Page) -> Result<Json<TokenList>, HttpError> {
    Ok(Json(state.backend.tokens(page).await?))
}

/// `GET /token/{token_id}`: a token's metadata and supply (404 with 1002 for an unknown id).
#[utoipa::path(
    get,
    path = paths::TOKEN,
    tag = "tokens",
    summary = "A token's metadata and supply",
    description = "Amounts are decimal strings of base units.",
    params(("token_id" = String, Path, description = "The token id: 20 bytes of hex.")),
    responses((status = 200, description = "The token.", body = TokenInfo)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::NotFound])))),
)]
pub async fn token<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(id): AddressParam,
) -> Result<Json<TokenInfo>, HttpError> {
    state.backend.token(id).await?.map(Json).ok_or_else(|| unknown(&id))
}

/// `GET /token/{token_id}/balance/{address}`: a holder's balance (`"0"` if it never held any).
#[utoipa::path(
    get,
    path = paths::TOKEN_BALANCE,
    tag = "tokens",
    summary = "A holder's balance of a token",
    description = "`\"0\"` for an address that never held the token.",
    params(
        ("token_id" = String, Path, description = "The token id: 20 bytes of hex."),
        ("address" = String, Path, description = "The holder: 20 bytes of hex."),
    ),
    responses((status = 200, description = "The balance.", body = TokenBalance)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::NotFound])))),
)]
pub async fn balance<B: Backend>(
    State(state): State<AppState<B>>,
    path: AddressParams<2>,
) -> Result<Json<TokenBalance>, HttpError> {
    let AddressParams([token_id, address]) = path;
    let balance = state.backend.token_balance(token_id, address).await?.ok_or_else(|| unknown(&token_id))?;
    Ok(Json(TokenBalance { token_id, address, balance }))
}

/// `GET /token/{token_id}/allowance/{owner}/{spender}`: what a spender may still move.
#[utoipa::path(
    get,
    path = paths::TOKEN_ALLOWANCE,
    tag = "tokens",
    summary = "What a spender may still move of an owner's tokens",
    params(
        ("token_id" = String, Path, description = "The token id: 20 bytes of hex."),
        ("owner" = String, Path, description = "The holder who approved: 20 bytes of hex."),
        ("spender" = String, Path, description = "The spender: 20 bytes of hex."),
    ),
    responses((status = 200, description = "The allowance.", body = TokenAllowance)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::InvalidAddress, ErrorCode::NotFound])))),
)]
pub async fn allowance<B: Backend>(
    State(state): State<AppState<B>>,
    path: AddressParams<3>,
) -> Result<Json<TokenAllowance>, HttpError> {
    let AddressParams([token_id, owner, spender]) = path;
    let allowance = state.backend.token_allowance(token_id, owner, spender).await?.ok_or_else(|| unknown(&token_id))?;
    Ok(Json(TokenAllowance { token_id, owner, spender, allowance }))
}

/// `GET /account/{address}/tokens`: one page of the tokens an address holds.
#[utoipa::path(
    get,
    path = paths::ACCOUNT_TOKENS,
    tag = "tokens",
    summary = "The tokens an address holds",
    description = "Every token the address has a non-zero balance of, with the balance; an address holding none \
        gets an empty list.",
    params(
        ("address" = String, Path, description = "20 bytes of hex, `0x` optional, any case."),
        ("offset" = Option<u64>, Query, description = "Holdings to skip (default 0)."),
        ("limit" = Option<u64>, Query, description = "Page size (default 50, at most 1,000)."),
    ),
    responses((status = 200, description = "The list envelope with `tokens`.", body = AccountTokens)),
    extensions(("x-errors" = json!(errors(&[ErrorCode::BadRequest, ErrorCode::InvalidAddress])))),
)]
pub async fn account_tokens<B: Backend>(
    State(state): State<AppState<B>>,
    AddressParam(address): AddressParam,
    page: Page,
) -> Result<Json<AccountTokens>, HttpError> {
    Ok(Json(state.backend.account_tokens(address, page).await?))
}

#[cfg(test)]
mod tests {
    use crate::backend::tokens::mock::{TokensMock, gold};
    use crate::mock::*;
    use axum::http::StatusCode;
    use drover_types::{Address, ErrorCode};
    use serde_json::json;

    fn backend() -> MockBackend {
        MockBackend::with(|data: &mut TokensMock| {
            data.tokens = (1..=3).map(gold).collect();
            data.token_balances.insert((Address([1; 20]), Address([0xbb; 20])), 2_500);
            data.token_allowances.insert((Address([1; 20]), Address([0xbb; 20]), Address([0xcc; 20])), 7);
        })
    }

    #[tokio::test]
    async fn token_records_and_amounts_as_decimal_strings() {
        let app = app(&backend());
        let token = Address([1; 20]).to_hex();
        let info = get(&app, &format!("/token/{token}")).await;
        assert_eq!(info.status, StatusCode::OK);
        assert_eq!(info.json()["supply"], json!(u128::MAX.to_string()));
        assert_eq!(info.json()["max_supply"], json!(null));
        assert_eq!(info.json()["symbol"], json!("GLD1"));

        let holder = Address([0xbb; 20]).to_hex();
        let balance = get(&app, &format!("/token/{token}/balance/{holder}")).await.json();
        assert_eq!(balance, json!({"token_id": token, "address": holder, "balance": "2500"}));
        let stranger = Address([0xdd; 20]).to_hex();
        assert_eq!(get(&app, &format!("/token/{token}/balance/{stranger}")).await.json()["balance"], json!("0"));
        let spender = Address([0xcc; 20]).to_hex();
        let allowance = get(&app, &format!("/token/{token}/allowance/{holder}/{spender}")).await.json();
        assert_eq!(allowance, json!({"token_id": token, "owner": holder, "spender": spender, "allowance": "7"}));
        let none = get(&app, &format!("/token/{token}/allowance/{spender}/{holder}")).await.json();
        assert_eq!(none["allowance"], json!("0"));
    }

    #[tokio::test]
    async fn unknown_tokens_are_404_and_bad_addresses_400() {
        let app = app(&backend());
        let unknown = Address([9; 20]).to_hex();
        let holder = Address([0xbb; 20]).to_hex();
        for path in [
            format!("/token/{unknown}"),
            format!("/token/{unknown}/balance/{holder}"),
            format!("/token/{unknown}/allowance/{holder}/{holder}"),
        ] {
            get(&app, &path).await.assert_error(404, ErrorCode::NotFound);
        }
        let token = Address([1; 20]).to_hex();
        for path in [
            "/token/0x12".to_owned(),
            format!("/token/{token}/balance/zz"),
            format!("/token/zz/balance/{holder}"),
            format!("/token/{token}/allowance/{holder}/0x1234"),
            "/account/0x12/tokens".to_owned(),
        ] {
            get(&app, &path).await.assert_error(400, ErrorCode::InvalidAddress);
        }
    }

    #[tokio::test]
    async fn token_list_pages() {
        let app = app(&backend());
        let page = get(&app, "/tokens?offset=1&limit=1").await.json();
        assert_eq!(page["total_count"], json!(3));
        assert_eq!((page["offset"].clone(), page["limit"].clone()), (json!(1), json!(1)));
        assert_eq!(page["tokens"].as_array().unwrap().len(), 1);
        assert_eq!(page["tokens"][0]["symbol"], json!("GLD2"));
        assert_eq!(get(&app, "/tokens").await.json()["limit"], json!(50));
        assert_eq!(get(&app, "/tokens?limit=5000").await.json()["limit"], json!(1000));
        get(&app, "/tokens?offset=-1").await.assert_error(400, ErrorCode::BadRequest);
        let holder = Address([0xbb; 20]).to_hex();
        let held = get(&app, &format!("/account/{holder}/tokens")).await.json();
        assert_eq!(held["total_count"], json!(1));
        assert_eq!(held["tokens"][0]["balance"], json!("2500"));
    }
}

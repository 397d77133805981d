//! Vault: keeps native tokens for its depositors, as an ordinary token holder (`docs/tokens.md`,
//! "Actors"). Manifest: `storage.kv`, `token.use`, `events.emit`.
//!
//! - `deposit(token: 20 bytes ++ amount: u128 LE)` takes `amount` of `token` from the caller,
//!   who approved the vault for at least that much, and credits the caller's share; answers the
//!   new share.
//! - `withdraw(token ++ amount)` pays `amount` of the caller's share back; answers what is left.
//! - `share(token ++ account: 20 bytes)` answers an account's share (u128 LE).
//! - `held(token)` answers what the vault holds of `token`, asked of the tokens actor.
//!
//! A refused token call reverts the handler with the tokens actor's reason, so a share never
//! moves without its tokens.
#![no_std]
extern crate alloc;

use alloc::vec::Vec;
use drover_actor_sdk::{Address, HandlerResult, Revert, caller, emit, handlers, self_address, storage, tokens};

// A no_std actor brings its own allocator (natively, the tests use std's).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

fn address(bytes: &[u8]) -> Result<Address, Revert> {
    bytes.try_into().map(Address).map_err(|_| Revert::from("expected a 20-byte address"))
}

fn token_and_amount(input: &[u8]) -> Result<(Address, u128), Revert> {
    if input.len() != 36 {
        return Err("expected token (20 bytes) ++ amount (u128 LE)".into());
    }
    let amount = u128::from_le_bytes(input[20..].try_into().map_err(|_| Revert::from("bad amount"))?);
    Ok((address(&input[..20])?, amount))
}

fn share_key(token: &Address, account: &Address) -> Vec<u8> {
    [&b"s"[..], &token.0, &account.0].concat()
}

fn share_of(token: &Address, account: &Address) -> u128 {
    storage::get(&share_key(token, account))
        .and_then(|v| <[u8; 16]>::try_from(v.as_slice()).ok())
        .map_or(0, u128::from_le_bytes)
}

fn set_share(token: &Address, account: &Address, share: u128) {
    let key = share_key(token, account);
    if share == 0 {
        storage::remove(&key);
    } else {
        storage::set(&key, &share.to_le_bytes());
    }
}

handlers! {
    fn deposit(input: &[u8]) -> HandlerResult {
        let (token, amount) = token_and_amount(input)?;
        let from = caller();
        tokens::transfer_from(&token, &from, &self_address(), amount)?;
        let share = share_of(&token, &from).checked_add(amount).ok_or(Revert::from("share overflows"))?;
        set_share(&token, &from, share);
        emit(b"deposit", &[&token.0[..], &from.0, &amount.to_le_bytes()].concat());
        Ok(share.to_le_bytes().to_vec())
    }

    fn withdraw(input: &[u8]) -> HandlerResult {
        let (token, amount) = token_and_amount(input)?;
        let to = caller();
        let share = share_of(&token, &to).checked_sub(amount).ok_or(Revert::from("share too small"))?;
        set_share(&token, &to, share);
        tokens::transfer(&token, &to, amount)?;
        Ok(share.to_le_bytes().to_vec())
    }

    fn share(input: &[u8]) -> HandlerResult {
        if input.len() != 40 {
            return Err("expected token (20 bytes) ++ account (20 bytes)".into());
        }
        Ok(share_of(&address(&input[..20])?, &address(&input[20..])?).to_le_bytes().to_vec())
    }

    fn held(input: &[u8]) -> HandlerResult {
        Ok(tokens::balance(&address(input)?, &self_address())?.to_le_bytes().to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::{boxed::Box, vec};
    use drover_actor_sdk::mock;

    const TOKEN: Address = Address([7; 20]);
    const ALICE: Address = Address([1; 20]);
    const VAULT: Address = Address([2; 20]);

    fn input(amount: u128) -> Vec<u8> {
        [&TOKEN.0[..], &amount.to_le_bytes()].concat()
    }

    /// The tokens actor as the mock answers it: `balance` answers 42, `transfer_from` and
    /// `transfer` succeed when `moves` is set and are refused as a short balance otherwise.
    fn tokens_actor(moves: bool) {
        mock::reset();
        mock::with(|env| {
            env.caller = ALICE;
            env.self_address = VAULT;
            env.on_call = Some(Box::new(move |to, handler, _payload, _value| {
                assert_eq!(to, tokens::TOKENS);
                match handler {
                    "balance" => (0, vec![0x18, 42]),
                    _ if moves => (0, vec![]),
                    _ => (2, b"E1402: short".to_vec()),
                }
            }));
        });
    }

    #[test]
    fn deposits_and_withdrawals_move_shares_with_the_tokens() {
        tokens_actor(true);
        assert_eq!(mock::run(deposit, &input(10)), Ok(10u128.to_le_bytes().to_vec()));
        assert_eq!(mock::run(deposit, &input(5)), Ok(15u128.to_le_bytes().to_vec()));
        let query = [&TOKEN.0[..], &ALICE.0].concat();
        assert_eq!(mock::run(share, &query), Ok(15u128.to_le_bytes().to_vec()));
        assert_eq!(mock::run(withdraw, &input(16)), Err(b"share too small".to_vec()));
        assert_eq!(mock::run(withdraw, &input(15)), Ok(0u128.to_le_bytes().to_vec()));
        assert_eq!(mock::run(held, &TOKEN.0), Ok(42u128.to_le_bytes().to_vec()));
        assert!(mock::with(|env| env.storage.is_empty()), "an emptied share leaves nothing behind");
    }

    #[test]
    fn a_refused_token_call_reverts_the_deposit() {
        tokens_actor(false);
        assert_eq!(mock::run(deposit, &input(10)), Err(b"E1402: short".to_vec()));
        assert_eq!(mock::run(deposit, b"short"), Err(b"expected token (20 bytes) ++ amount (u128 LE)".to_vec()));
    }
}

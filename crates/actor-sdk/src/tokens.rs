//! Holding native tokens as an actor (entitlement `token.use`): calls of the tokens system actor
//! at `0x00…0c` with their argument maps (`docs/tokens.md`). The actor itself is the holder, so
//! a `transfer` moves the actor's own tokens and `transfer_from` spends an allowance someone gave
//! the actor. A refused token call (E14xx) undoes only that call: these helpers answer it as a
//! [`Revert`] carrying the tokens actor's `"E14xx: message"`, so a handler that cannot go on
//! without the call writes `tokens::transfer(..)?` and reverts with that reason.

use crate::{Address, Revert, args::Args, call, system_address};

/// The tokens system actor.
pub const TOKENS: Address = system_address(0x0c);

fn token_call(handler: &str, args: Args) -> Result<alloc::vec::Vec<u8>, Revert> {
    call(&TOKENS, handler, &args.encode(), 0, 0).into_result()
}

/// Moves `amount` of `token` from this actor to `to`.
pub fn transfer(token: &Address, to: &Address, amount: u128) -> Result<(), Revert> {
    let args = Args::new().address("token", token).address("to", to).uint("amount", amount);
    token_call("transfer", args).map(drop)
}

/// Moves `amount` of `token` from `from` to `to`, spending the allowance `from` gave this actor.
pub fn transfer_from(token: &Address, from: &Address, to: &Address, amount: u128) -> Result<(), Revert> {
    let args = Args::new().address("token", token).address("from", from).address("to", to).uint("amount", amount);
    token_call("transfer_from", args).map(drop)
}

/// Lets `spender` move up to `amount` of this actor's `token` (replacing any earlier allowance).
pub fn approve(token: &Address, spender: &Address, amount: u128) -> Result<(), Revert> {
    let args = Args::new().address("token", token).address("spender", spender).uint("amount", amount);
    token_call("approve", args).map(drop)
}

/// `account`'s balance of `token` (writes nothing: works in read-only calls).
pub fn balance(token: &Address, account: &Address) -> Result<u128, Revert> {
    let answer = token_call("balance", Args::new().address("token", token).address("account", account))?;
    crate::args::decode_uint(&answer).ok_or_else(|| Revert::from("the tokens actor answered a malformed balance"))
}

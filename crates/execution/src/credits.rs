//! Who received what in a transaction: the value each successful transaction moved to an
//! account, native currency or native tokens, for the node's account history.
//!
//! A credit is recorded where value arrives: the transaction's own value (a plain transfer, or
//! the value of a call or a deploy), every move of the actor host (an actor's `transfer` host
//! call, the value of a nested call, a system actor paying out), and every native token credit
//! (a transfer, a `transfer_from`, a mint, a creation's initial supply). Credits are journaled
//! with the events: what a call rolls back, it never credited, and a transaction that does not
//! succeed reports none.
//!
//! Credits are not part of any receipt or root: they are a by-product the node indexes
//! (`node/src/indexes.rs`), so recording them changes no execution output. Every credit is the
//! result of a paid operation (a transfer, at least `CYCLES_TRANSFER` = 9,000 cycles for an
//! actor's; a call, a token operation), so a transaction cannot record more of them than its
//! cycles pay for.

use drover_types::Address;

/// What a credit moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Asset {
    /// Native currency, base units.
    Native,
    /// The native token with this id, in its smallest units.
    Token(Address),
}

/// One arrival of value at an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Credit {
    /// Who received it.
    pub to: Address,
    /// Whose balance it came from (`None`: minted).
    pub from: Option<Address>,
    /// Native currency or a token.
    pub asset: Asset,
    /// How much; never zero.
    pub amount: u128,
}

impl Credit {
    /// A native move of `amount` from `from` to `to` (`None` when nothing moves).
    pub(crate) fn native(from: Address, to: Address, amount: u128) -> Option<Self> {
        (amount > 0).then_some(Credit { to, from: Some(from), asset: Asset::Native, amount })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Chain, RICH, example};
    use drover_types::{
        TxStatus,
        system_call::SystemCall,
        token::{NewToken, TOKENS_ADDRESS, TokenCall, token_id},
    };

    const ALICE: Address = Address([0xa1; 20]);
    const BOB: Address = Address([0xb0; 20]);

    fn native(from: Address, to: Address, amount: u128) -> Credit {
        Credit { to, from: Some(from), asset: Asset::Native, amount }
    }

    #[test]
    fn a_transfer_a_call_value_and_an_actors_moves_are_credited_unless_rolled_back() {
        let mut chain = Chain::new(&[(ALICE, RICH)]);
        let transfer = chain.tx(ALICE, Some(BOB), Vec::new(), 500);
        // A zero-value transfer moves nothing.
        let empty = chain.tx(ALICE, Some(BOB), Vec::new(), 0);
        let outcome = chain.block(&[transfer, empty]);
        assert_eq!(outcome.credits, [vec![native(ALICE, BOB, 500)], vec![]]);

        let proxy = chain.deploy(ALICE, example("proxy"), &["storage.kv", "actor.call", "econ.transfer"], 1_000);
        let counter = chain.deploy(ALICE, example("counter"), &["storage.kv"], 0);
        let forward = [&counter.0[..], &400u128.to_le_bytes(), b"increment"].concat();
        // The call's own value, then what the proxy passes on with its nested call.
        let call = chain.call_tx(ALICE, proxy, "forward", &forward, 7);
        let outcome = chain.block(&[call]);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success);
        assert_eq!(outcome.credits, [vec![native(ALICE, proxy, 7), native(proxy, counter, 400)]]);
        // A reverted transaction credited nothing.
        let outcome = chain.call(ALICE, proxy, "forward_then_revert", &forward);
        assert_eq!(outcome.receipts[0].status, TxStatus::Reverted);
        assert_eq!(outcome.credits, [vec![]]);
        // A callee that reverts took nothing; the caller's transaction still succeeds.
        let bump = [&counter.0[..], &5u128.to_le_bytes(), b"bump_and_revert"].concat();
        let outcome = chain.call(ALICE, proxy, "forward", &bump);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success);
        assert_eq!(outcome.credits, [vec![]]);

        // An actor's `transfer` host call.
        chain.limits = crate::testing::LARGE_LIMITS;
        let bulk = chain.deploy(ALICE, example("bulk"), &["storage.kv", "actor.call", "econ.transfer"], 1_000);
        let outcome = chain.call(ALICE, bulk, "pay", &[2u32.to_le_bytes(), 0u32.to_le_bytes()].concat());
        let payee = |n: u8| {
            let mut address = [0; 20];
            address[0] = 0xbe;
            address[19] = n;
            Address(address)
        };
        assert_eq!(outcome.credits, [vec![native(bulk, payee(0), 1), native(bulk, payee(1), 1)]]);
    }

    #[test]
    fn token_mints_and_transfers_are_credited() {
        let mut chain = Chain::new(&[(ALICE, RICH)]);
        let create = TokenCall::Create(NewToken {
            name: "Gold".into(),
            symbol: "GLD".into(),
            decimals: 0,
            initial_supply: 1_000,
            max_supply: None,
            mintable: true,
        });
        let gold = token_id(&ALICE, "GLD");
        let token = |call: &TokenCall, chain: &mut Chain| {
            let tx = chain.tx(ALICE, Some(TOKENS_ADDRESS), call.message().encode(), 0);
            chain.block(&[tx]).credits
        };
        let minted = Credit { to: ALICE, from: None, asset: Asset::Token(gold), amount: 1_000 };
        assert_eq!(token(&create, &mut chain), [vec![minted]]);
        let moved = Credit { to: BOB, from: Some(ALICE), asset: Asset::Token(gold), amount: 30 };
        assert_eq!(token(&TokenCall::Transfer { token: gold, to: BOB, amount: 30 }, &mut chain), [vec![moved]]);
        let minted = Credit { to: BOB, from: None, asset: Asset::Token(gold), amount: 5 };
        assert_eq!(token(&TokenCall::Mint { token: gold, to: BOB, amount: 5 }, &mut chain), [vec![minted]]);
        // Moving tokens to oneself credits nothing; a refused transfer neither.
        assert_eq!(token(&TokenCall::Transfer { token: gold, to: ALICE, amount: 30 }, &mut chain), [vec![]]);
        assert_eq!(token(&TokenCall::Transfer { token: gold, to: BOB, amount: 10_000 }, &mut chain), [vec![]]);
    }
}

//! Token rules end to end through `execute_block` (each block also runs through a reader that
//! checks every key is read once), plus a property test of supply conservation.

use crate::RejectReason;
use crate::testing::{Chain, RICH, State, example, listed};
use drover_state::token::{
    Holding, TokenRecord, decode_amount, holding_entry, holding_key, holdings_listing, record_key, state_key,
};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, ExecError, Receipt, TxStatus,
    args::ArgsBuilder,
    exec_error::ExecCode,
    payload::Message,
    token::{NewToken, TOKENS_ADDRESS, TokenCall, token_id},
};
use proptest::prelude::*;

const ALICE: Address = Address([0xa1; 20]);
const BOB: Address = Address([0xb0; 20]);
const CAROL: Address = Address([0xc0; 20]);

fn gold(initial_supply: u128, max_supply: Option<u128>, mintable: bool) -> TokenCall {
    TokenCall::Create(NewToken {
        name: "Gold".into(),
        symbol: "GLD".into(),
        decimals: 18,
        initial_supply,
        max_supply,
        mintable,
    })
}

fn chain() -> Chain {
    Chain::new(&[(ALICE, RICH), (BOB, RICH), (CAROL, RICH)])
}

/// Sends `call` from `sender` in its own block; returns the receipt.
fn send(chain: &mut Chain, sender: Address, call: &TokenCall) -> Receipt {
    let tx = chain.tx(sender, Some(TOKENS_ADDRESS), call.message().encode(), 0);
    chain.block(&[tx]).receipts.remove(0)
}

fn ok(chain: &mut Chain, sender: Address, call: &TokenCall) -> Receipt {
    let receipt = send(chain, sender, call);
    assert_eq!(receipt.status, TxStatus::Success, "{call:?}: {:?}", receipt.error);
    receipt
}

fn refused(chain: &mut Chain, sender: Address, call: &TokenCall, code: ExecCode) -> ExecError {
    let before = chain.state.clone();
    let receipt = send(chain, sender, call);
    assert_eq!(receipt.status, TxStatus::Failed, "{call:?}");
    let error = receipt.error.expect("a failed receipt has an error");
    assert_eq!(error.code, code, "{call:?}: {}", error.message);
    assert!(receipt.events.is_empty());
    assert!(receipt.fee.total() > 0, "a refused token call still pays");
    assert_eq!(token_state(&chain.state), token_state(&before), "a refused call changes no token state");
    error
}

/// The tokens actor's entries of `state`: its storage and the holdings.
fn token_state(state: &State) -> Vec<(Vec<u8>, Vec<u8>)> {
    state
        .iter()
        .filter(|(key, _)| {
            drover_state::keys::storage_entry(key).is_some_and(|(actor, _)| actor == TOKENS_ADDRESS)
                || holding_entry(key).is_some()
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn record(chain: &Chain, token: &Address) -> TokenRecord {
    TokenRecord::decode(&chain.state[&state_key(&record_key(token))]).expect("a token record")
}

fn holding(chain: &Chain, token: &Address, holder: &Address) -> Holding {
    chain.state.get(&state_key(&holding_key(token, holder))).map_or(Holding::default(), |b| Holding::decode(b).unwrap())
}

fn balance(chain: &Chain, token: &Address, holder: &Address) -> u128 {
    holding(chain, token, holder).balance
}

fn allowance(chain: &Chain, token: &Address, owner: &Address, spender: &Address) -> u128 {
    let key = state_key(&drover_state::token::allowance_key(token, owner, spender));
    chain.state.get(&key).map_or(0, |b| decode_amount(b).unwrap())
}

/// The tokens `holder`'s listing names, in slot order (its invariants checked).
fn held(chain: &Chain, holder: &Address) -> Vec<Address> {
    listed(&chain.state, &holdings_listing(holder)).iter().map(|item| Address::from_slice(item).unwrap()).collect()
}

#[test]
fn create_mints_to_the_creator_and_answers_the_id() {
    let mut chain = chain();
    let receipt = ok(&mut chain, ALICE, &gold(1_000, Some(10_000), true));
    let id = token_id(&ALICE, "GLD");
    let topics: Vec<_> = receipt.events.iter().map(|e| e.topic.as_str()).collect();
    assert_eq!(topics, ["token.created", "token.mint"]);
    assert!(receipt.events.iter().all(|e| e.address == id));
    let token = record(&chain, &id);
    assert_eq!((token.supply, token.max_supply, token.owner, token.creator), (1_000, Some(10_000), ALICE, ALICE));
    assert_eq!(
        chain.state.get(&state_key(&drover_state::token::token_by_seq_key(0))).cloned(),
        Some(drover_state::encode_address(&id))
    );
    assert_eq!(token.created_height, chain.height - 1);
    assert_eq!(balance(&chain, &id, &ALICE), 1_000);
    assert_eq!(held(&chain, &ALICE), [id]);
    // The receipt's cost is the transaction's intrinsic cost plus the operation's.
    let message = gold(1_000, Some(10_000), true).message().encode();
    assert_eq!(receipt.cycles_used, 21_000 + message.len() as u64 + gold(1_000, Some(10_000), true).cost().0);

    refused(&mut chain, ALICE, &gold(1, None, false), ExecCode::TokenSymbolTaken);
    // Another creator may use the same symbol: another id.
    ok(&mut chain, BOB, &gold(0, None, false));
    let second = drover_state::encode_address(&token_id(&BOB, "GLD"));
    assert_eq!(chain.state.get(&state_key(&drover_state::token::token_by_seq_key(1))).cloned(), Some(second));
    assert!(held(&chain, &BOB).is_empty(), "a zero initial supply creates no holding");
}

#[test]
fn create_refuses_bad_metadata_and_supply_above_the_cap() {
    let mut chain = chain();
    let bad = |name: &str, symbol: &str, decimals: u64| {
        TokenCall::Create(NewToken {
            name: name.into(),
            symbol: symbol.into(),
            decimals,
            initial_supply: 1,
            max_supply: None,
            mintable: false,
        })
    };
    for call in [bad("", "GLD", 0), bad("Gold", "gld", 0), bad("Gold", "GLD", 37), bad("Gold", &"A".repeat(17), 0)] {
        refused(&mut chain, ALICE, &call, ExecCode::TokenMetadata);
    }
    refused(&mut chain, ALICE, &gold(11, Some(10), true), ExecCode::TokenMaxSupply);
}

#[test]
fn transfer_approve_transfer_from_mint_burn() {
    let mut chain = chain();
    ok(&mut chain, ALICE, &gold(1_000, Some(2_000), true));
    let token = token_id(&ALICE, "GLD");
    let receipt = ok(&mut chain, ALICE, &TokenCall::Transfer { token, to: BOB, amount: 300 });
    assert_eq!(receipt.events[0].topic, "token.transfer");
    assert_eq!((balance(&chain, &token, &ALICE), balance(&chain, &token, &BOB)), (700, 300));
    assert_eq!(held(&chain, &BOB), [token]);

    refused(&mut chain, BOB, &TokenCall::Transfer { token, to: CAROL, amount: 301 }, ExecCode::TokenBalance);
    let unknown = Address([0xee; 20]);
    refused(&mut chain, BOB, &TokenCall::Transfer { token: unknown, to: CAROL, amount: 1 }, ExecCode::UnknownToken);

    ok(&mut chain, BOB, &TokenCall::Approve { token, spender: CAROL, amount: 100 });
    assert_eq!(allowance(&chain, &token, &BOB, &CAROL), 100);
    let too_much = TokenCall::TransferFrom { token, from: BOB, to: CAROL, amount: 101 };
    refused(&mut chain, CAROL, &too_much, ExecCode::TokenAllowance);
    ok(&mut chain, CAROL, &TokenCall::TransferFrom { token, from: BOB, to: CAROL, amount: 60 });
    assert_eq!(allowance(&chain, &token, &BOB, &CAROL), 40);
    assert_eq!((balance(&chain, &token, &BOB), balance(&chain, &token, &CAROL)), (240, 60));
    // An allowance above the balance still cannot move more than the balance.
    ok(&mut chain, BOB, &TokenCall::Approve { token, spender: CAROL, amount: 1_000 });
    let above_balance = TokenCall::TransferFrom { token, from: BOB, to: CAROL, amount: 241 };
    refused(&mut chain, CAROL, &above_balance, ExecCode::TokenBalance);
    ok(&mut chain, BOB, &TokenCall::Approve { token, spender: CAROL, amount: 0 });
    assert_eq!(allowance(&chain, &token, &BOB, &CAROL), 0);

    ok(&mut chain, ALICE, &TokenCall::Mint { token, to: CAROL, amount: 1_000 });
    assert_eq!(record(&chain, &token).supply, 2_000);
    refused(&mut chain, ALICE, &TokenCall::Mint { token, to: CAROL, amount: 1 }, ExecCode::TokenMaxSupply);
    refused(&mut chain, BOB, &TokenCall::Mint { token, to: BOB, amount: 1 }, ExecCode::TokenNotOwner);
    ok(&mut chain, CAROL, &TokenCall::Burn { token, amount: 1_060 });
    assert_eq!(record(&chain, &token).supply, 940);
    assert!(held(&chain, &CAROL).is_empty(), "an emptied holding is not listed");
    refused(&mut chain, CAROL, &TokenCall::Burn { token, amount: 1 }, ExecCode::TokenBalance);

    ok(&mut chain, ALICE, &gold_like("SLV", 5, false));
    let silver = token_id(&ALICE, "SLV");
    refused(&mut chain, ALICE, &TokenCall::Mint { token: silver, to: ALICE, amount: 1 }, ExecCode::TokenNotMintable);
    let total: u128 = [ALICE, BOB, CAROL].iter().map(|h| balance(&chain, &token, h)).sum();
    assert_eq!(total, record(&chain, &token).supply);
}

fn gold_like(symbol: &str, initial_supply: u128, mintable: bool) -> TokenCall {
    TokenCall::Create(NewToken {
        name: symbol.into(),
        symbol: symbol.into(),
        decimals: 0,
        initial_supply,
        max_supply: None,
        mintable,
    })
}

#[test]
fn frozen_accounts_neither_send_receive_nor_burn_and_owners_hand_over() {
    let mut chain = chain();
    ok(&mut chain, ALICE, &gold(1_000, None, true));
    let token = token_id(&ALICE, "GLD");
    ok(&mut chain, ALICE, &TokenCall::Transfer { token, to: BOB, amount: 10 });
    refused(&mut chain, BOB, &TokenCall::Freeze { token, account: BOB }, ExecCode::TokenNotOwner);
    ok(&mut chain, ALICE, &TokenCall::Freeze { token, account: BOB });
    ok(&mut chain, ALICE, &TokenCall::Freeze { token, account: CAROL });
    assert!(holding(&chain, &token, &CAROL).frozen, "an account without a balance can be frozen");
    refused(&mut chain, BOB, &TokenCall::Transfer { token, to: ALICE, amount: 1 }, ExecCode::TokenFrozen);
    refused(&mut chain, ALICE, &TokenCall::Transfer { token, to: BOB, amount: 1 }, ExecCode::TokenFrozen);
    refused(&mut chain, ALICE, &TokenCall::Mint { token, to: CAROL, amount: 1 }, ExecCode::TokenFrozen);
    refused(&mut chain, BOB, &TokenCall::Burn { token, amount: 1 }, ExecCode::TokenFrozen);
    ok(&mut chain, ALICE, &TokenCall::Unfreeze { token, account: BOB });
    ok(&mut chain, ALICE, &TokenCall::Unfreeze { token, account: CAROL });
    assert_eq!(chain.state.get(&state_key(&holding_key(&token, &CAROL))), None, "an empty holding is not stored");
    ok(&mut chain, BOB, &TokenCall::Transfer { token, to: ALICE, amount: 1 });

    ok(&mut chain, ALICE, &TokenCall::SetOwner { token, owner: BOB });
    assert_eq!(record(&chain, &token).owner, BOB);
    refused(&mut chain, ALICE, &TokenCall::Mint { token, to: ALICE, amount: 1 }, ExecCode::TokenNotOwner);
    ok(&mut chain, BOB, &TokenCall::Mint { token, to: ALICE, amount: 1 });
}

#[test]
fn a_self_transfer_moves_nothing_but_follows_the_rules() {
    let mut chain = chain();
    ok(&mut chain, ALICE, &gold(5, None, false));
    let token = token_id(&ALICE, "GLD");
    ok(&mut chain, ALICE, &TokenCall::Transfer { token, to: ALICE, amount: 5 });
    assert_eq!(balance(&chain, &token, &ALICE), 5);
    assert_eq!(held(&chain, &ALICE), [token]);
    refused(&mut chain, ALICE, &TokenCall::Transfer { token, to: ALICE, amount: 6 }, ExecCode::TokenBalance);
}

#[test]
fn a_holders_tokens_are_listed_in_numbered_slots() {
    let mut chain = chain();
    let symbols = ["A", "B", "C"];
    for symbol in symbols {
        ok(&mut chain, ALICE, &gold_like(symbol, 10, false));
    }
    // In the order the holder first held them; a removal moves the last one into its slot.
    let ids: Vec<_> = symbols.iter().map(|s| token_id(&ALICE, s)).collect();
    assert_eq!(held(&chain, &ALICE), ids);
    ok(&mut chain, ALICE, &TokenCall::Burn { token: ids[0], amount: 10 });
    assert_eq!(held(&chain, &ALICE), [ids[2], ids[1]]);
    ok(&mut chain, ALICE, &TokenCall::Transfer { token: ids[1], to: BOB, amount: 10 });
    assert_eq!(held(&chain, &ALICE), [ids[2]]);
    assert_eq!(held(&chain, &BOB), [ids[1]]);
    // A frozen holder without a balance keeps a holding but is not listed.
    ok(&mut chain, ALICE, &TokenCall::Freeze { token: ids[2], account: CAROL });
    assert!(held(&chain, &CAROL).is_empty());
    assert!(holding(&chain, &ids[2], &CAROL).frozen);
}

#[test]
fn bad_arguments_unknown_handlers_value_and_short_limits_are_refused() {
    let mut chain = chain();
    ok(&mut chain, ALICE, &gold(5, None, false));
    let token = token_id(&ALICE, "GLD");
    // A call that is not one of the actor's calls is invalid: no block holds it.
    let refusal = |chain: &mut Chain, handler: &str, payload: Vec<u8>, value: u128| {
        let message = Message { handler: handler.into(), payload };
        let tx = chain.tx(ALICE, Some(TOKENS_ADDRESS), message.encode(), value);
        chain.refusal(&tx)
    };
    let transfer = |args: ArgsBuilder| args.encode();
    let base = || ArgsBuilder::new().address("token", &token).address("to", &BOB);
    let cases = [
        ("missing amount", "transfer", transfer(base())),
        ("amount as text", "transfer", transfer(base().text("amount", "5"))),
        ("negative-looking amount", "transfer", transfer(base().bytes("amount", &[0xff]))),
        ("short address", "transfer", ArgsBuilder::new().bytes("token", &[1; 19]).encode()),
        ("unknown key", "transfer", transfer(base().u128("amount", 1).bool("memo", true))),
        ("not a map", "transfer", vec![0x80]),
        ("non-canonical", "transfer", vec![0xa1, 0x61, b'a', 0x18, 0x01]),
        ("decimals above u64", "create", ArgsBuilder::new().u128("decimals", u128::MAX).encode()),
        ("unknown handler", "steal", ArgsBuilder::new().encode()),
    ];
    for (what, handler, payload) in cases {
        assert_eq!(refusal(&mut chain, handler, payload, 0), Some(RejectReason::InvalidPayload), "{what}");
    }
    // So is value sent to the tokens actor (the pool answers 2012 for it).
    let burn = TokenCall::Burn { token, amount: 1 };
    assert_eq!(refusal(&mut chain, burn.handler(), burn.encode_args(), 1), Some(RejectReason::InvalidPayload));

    // A limit below the operation's cost runs out of cycles, changes nothing and pays it all.
    let call = TokenCall::Transfer { token, to: BOB, amount: 1 };
    let message = call.message().encode();
    let intrinsic = 21_000 + message.len() as u64;
    let mut tx = chain.tx(ALICE, Some(TOKENS_ADDRESS), message, 0);
    tx.tx.cycles_limit = intrinsic + call.cost().0 - 1;
    let receipt = chain.block(&[tx]).receipts.remove(0);
    assert_eq!(receipt.error.map(|e| e.code), Some(ExecCode::OutOfCycles));
    assert_eq!(receipt.cycles_used, intrinsic + call.cost().0 - 1);
    assert_eq!(balance(&chain, &token, &BOB), 0);
}

#[test]
fn an_actor_holds_approves_and_swaps_tokens() {
    let mut chain = chain();
    ok(&mut chain, ALICE, &gold(1_000, None, false));
    ok(&mut chain, BOB, &gold_like("SLV", 1_000, false));
    let (gld, slv) = (token_id(&ALICE, "GLD"), token_id(&BOB, "SLV"));
    // The exchange swaps GLD for SLV at 2 SLV per GLD; it needs `token.use`, not `actor.call`.
    let exchange = chain.deploy(CAROL, example("exchange"), &["storage.kv", "token.use"], 0);
    let init = [&slv.0[..], &gld.0, &2u64.to_le_bytes()].concat();
    let setup = chain.call(CAROL, exchange, "init", &init);
    assert_eq!(setup.receipts[0].status, TxStatus::Success, "{:?}", setup.receipts[0].error);
    // Bob stocks the exchange with SLV (an actor is an ordinary token holder).
    ok(&mut chain, BOB, &TokenCall::Transfer { token: slv, to: exchange, amount: 500 });
    assert_eq!(held(&chain, &exchange), [slv]);

    ok(&mut chain, ALICE, &TokenCall::Approve { token: gld, spender: exchange, amount: 100 });
    let swap = chain.call(ALICE, exchange, "swap", &100u64.to_le_bytes());
    assert_eq!(swap.receipts[0].status, TxStatus::Success, "{:?}", swap.receipts[0].error);
    let topics: Vec<_> = swap.receipts[0].events.iter().map(|e| e.topic.as_str()).collect();
    assert_eq!(topics, ["token.transfer", "token.transfer"]);
    assert_eq!(balance(&chain, &gld, &ALICE), 900);
    assert_eq!(balance(&chain, &gld, &exchange), 100);
    assert_eq!(balance(&chain, &slv, &ALICE), 200);
    assert_eq!(balance(&chain, &slv, &exchange), 300);

    // Without an approval the first token call fails and the whole swap is undone.
    let swap = chain.call(ALICE, exchange, "swap", &1u64.to_le_bytes());
    assert_ne!(swap.receipts[0].status, TxStatus::Success);
    assert_eq!(balance(&chain, &slv, &ALICE), 200);
    // Asking for more than the exchange holds also undoes everything.
    ok(&mut chain, ALICE, &TokenCall::Approve { token: gld, spender: exchange, amount: 500 });
    let swap = chain.call(ALICE, exchange, "swap", &151u64.to_le_bytes());
    assert_ne!(swap.receipts[0].status, TxStatus::Success);
    assert_eq!((balance(&chain, &gld, &ALICE), balance(&chain, &slv, &ALICE)), (900, 200));

    // Without `token.use` the actor may not call the tokens actor, even with `actor.call`.
    let (deploy, plain) = chain.deploy_tx(CAROL, example("exchange"), &["storage.kv", "actor.call"], b"plain", 0);
    assert_eq!(chain.block(&[deploy]).receipts[0].status, TxStatus::Success);
    let setup = chain.call(CAROL, plain, "init", &init);
    assert_eq!(setup.receipts[0].status, TxStatus::Success);
    let swap = chain.call(ALICE, plain, "swap", &1u64.to_le_bytes());
    assert_eq!(swap.receipts[0].error.as_ref().map(|e| e.code), Some(ExecCode::NotEntitled));
}

/// One step of a random token workload.
#[derive(Clone, Debug)]
enum Op {
    Transfer(usize, usize, u128),
    Approve(usize, usize, u128),
    TransferFrom(usize, usize, usize, u128),
    Mint(usize, u128),
    Burn(usize, u128),
    Freeze(usize, bool),
}

fn op() -> impl Strategy<Value = Op> {
    let who = 0..3usize;
    let amount = prop_oneof![0..50u128, Just(u128::MAX), Just(u128::MAX / 2)];
    prop_oneof![
        (who.clone(), who.clone(), amount.clone()).prop_map(|(a, b, n)| Op::Transfer(a, b, n)),
        (who.clone(), who.clone(), amount.clone()).prop_map(|(a, b, n)| Op::Approve(a, b, n)),
        (who.clone(), who.clone(), who.clone(), amount.clone()).prop_map(|(s, a, b, n)| Op::TransferFrom(s, a, b, n)),
        (who.clone(), amount.clone()).prop_map(|(a, n)| Op::Mint(a, n)),
        (who.clone(), amount).prop_map(|(a, n)| Op::Burn(a, n)),
        (who, any::<bool>()).prop_map(|(a, f)| Op::Freeze(a, f)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever the operations and whether each succeeds, the balances sum to the supply and
    /// every holder's list names exactly its non-zero balances.
    #[test]
    fn supply_is_conserved(ops in proptest::collection::vec(op(), 1..24)) {
        let people = [ALICE, BOB, CAROL];
        let mut chain = chain();
        ok(&mut chain, ALICE, &gold(100, None, true));
        let token = token_id(&ALICE, "GLD");
        // All operations of a case share a few blocks, so they also interact within a block.
        for chunk in ops.chunks(6) {
            let txs: Vec<_> = chunk.iter().map(|op| {
                let (sender, call) = match *op {
                    Op::Transfer(a, b, amount) => (people[a], TokenCall::Transfer { token, to: people[b], amount }),
                    Op::Approve(a, b, amount) => (people[a], TokenCall::Approve { token, spender: people[b], amount }),
                    Op::TransferFrom(s, a, b, amount) => {
                        (people[s], TokenCall::TransferFrom { token, from: people[a], to: people[b], amount })
                    }
                    Op::Mint(a, amount) => (ALICE, TokenCall::Mint { token, to: people[a], amount }),
                    Op::Burn(a, amount) => (people[a], TokenCall::Burn { token, amount }),
                    Op::Freeze(a, true) => (ALICE, TokenCall::Freeze { token, account: people[a] }),
                    Op::Freeze(a, false) => (ALICE, TokenCall::Unfreeze { token, account: people[a] }),
                };
                chain.tx(sender, Some(TOKENS_ADDRESS), call.message().encode(), 0)
            }).collect();
            chain.block(&txs);
            let total: u128 = people.iter().map(|p| balance(&chain, &token, p)).sum();
            prop_assert_eq!(total, record(&chain, &token).supply);
            for person in people {
                let listed = held(&chain, &person);
                prop_assert_eq!(listed.contains(&token), balance(&chain, &token, &person) > 0);
            }
        }
    }
}

#[test]
fn the_keys_a_block_prefetches_are_all_that_token_and_registry_calls_read() {
    use crate::{FeeParams, execute_block, prefetch_keys, testing::vm};
    use drover_types::runner::{Capabilities, MIN_RUNNER_STAKE, RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall};
    let mut chain = chain();
    ok(&mut chain, ALICE, &gold(1_000, None, true));
    let token = token_id(&ALICE, "GLD");
    ok(&mut chain, ALICE, &TokenCall::Approve { token, spender: BOB, amount: 50 });
    let calls = [
        (ALICE, TokenCall::Transfer { token, to: Address([0x77; 20]), amount: 5 }),
        (BOB, TokenCall::TransferFrom { token, from: ALICE, to: CAROL, amount: 7 }),
        (ALICE, TokenCall::Mint { token, to: BOB, amount: 3 }),
        (ALICE, TokenCall::Burn { token, amount: 1 }),
        (ALICE, TokenCall::Freeze { token, account: CAROL }),
        (CAROL, TokenCall::Approve { token, spender: ALICE, amount: 9 }),
        (BOB, gold_like("SLV", 10, false)),
    ];
    let mut txs: Vec<_> = calls
        .iter()
        .map(|(sender, call)| chain.tx(*sender, Some(TOKENS_ADDRESS), call.message().encode(), 0))
        .collect();
    let register = RegistryCall::Register {
        rate_card: RateCard::default(),
        capabilities: Capabilities { job_types: vec!["echo".into()], max_concurrent_jobs: 1 },
    };
    txs.push(chain.tx(CAROL, Some(RUNNER_REGISTRY_ADDRESS), register.message().encode(), MIN_RUNNER_STAKE));
    txs.push(chain.tx(
        ALICE,
        Some(RUNNER_REGISTRY_ADDRESS),
        RegistryCall::Delegate { runner: CAROL }.message().encode(),
        5,
    ));
    let env = chain.env();
    let keys = prefetch_keys(&env, &txs);
    let snapshot: State =
        keys.iter().filter_map(|key| chain.state.get(key).map(|value| (key.clone(), value.clone()))).collect();
    let run = |state: &State| execute_block(vm(), &env, &FeeParams::default(), state, &txs).expect("complete state");
    let (prefetched, full) = (run(&snapshot), run(&chain.state));
    assert!(full.receipts.iter().all(|r| r.status == TxStatus::Success), "{:?}", full.receipts);
    assert_eq!(prefetched, full, "a call read a key the block did not prefetch");
}

#[test]
fn a_transaction_runs_the_call_the_rule_decoded_without_decoding_its_payload_again() {
    use crate::block::{basefees_in_force, params_in_force, run_tx};
    use crate::{FeeParams, overlay::Overlay, testing::vm};
    use drover_types::system_actors::AnySystemCall;
    use drover_types::validity::{self, ActorWork, BlockLimits, ChainContext};
    let mut chain = chain();
    // The payload asks for a balance; the call handed on with it, a create, is what runs.
    let token = token_id(&ALICE, "GLD");
    let tx = chain.tx(ALICE, Some(TOKENS_ADDRESS), TokenCall::Balance { token, account: ALICE }.message().encode(), 0);
    let env = chain.env();
    let mut overlay = Overlay::new(&chain.state);
    let basefees = basefees_in_force(&FeeParams::default(), &mut overlay).unwrap();
    let chain_params = params_in_force(&FeeParams::default(), &mut overlay).unwrap();
    let params = FeeParams::default().governed(&chain_params);
    let limits = BlockLimits { cycles: params.block_limit_cycles(), cells: params.block_limit_cells() };
    let context = ChainContext { chain_id: env.chain_id, basefees, limits };
    let (intrinsic, work) = validity::check(&tx.tx, &context, 0, RICH).expect("a valid transaction");
    let Some(ActorWork::SystemCall(message, AnySystemCall::TokenCall(TokenCall::Balance { .. }))) = work else {
        panic!("the rule decodes a balance call: {work:?}");
    };
    let carried = ActorWork::SystemCall(message, AnySystemCall::TokenCall(gold(1_000, None, false)));
    let result = run_tx(vm(), &env, (&context, &chain_params), &mut overlay, &tx, (intrinsic, Some(carried)));
    let result = result.unwrap_or_else(|_| panic!("the transaction runs"));
    assert_eq!(result.status, TxStatus::Success, "{:?}", result.error);
    let created = overlay.get(&state_key(&record_key(&token))).unwrap();
    assert!(created.is_some(), "the carried create ran");
}

//! Builders shared by the unit tests: addresses, transfers and in-memory states.

use crate::{BlockEnv, FeeParams, Writes, genesis_writes};
use drover_state::{Account, keys};
use drover_types::{Address, Transaction, VerifiedTransaction, keccak256};
use drover_vm::Vm;
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub(crate) const CHAIN_ID: u64 = 100;

pub(crate) type State = BTreeMap<Vec<u8>, Vec<u8>>;

pub(crate) fn address(n: u8) -> Address {
    let mut bytes = [0xa0; 20];
    bytes[19] = n;
    Address(bytes)
}

/// The whitepaper's transfer shape (limit 21,000 cycles, max fees 10 and 2, tips 1 and 0).
pub(crate) fn transfer_tx(nonce: u64, to: Address, value: u128) -> Transaction {
    Transaction {
        chain_id: CHAIN_ID,
        nonce,
        to: Some(to),
        value,
        cycles_limit: 21_000,
        cells_limit: 0,
        max_fee_per_cycle: 10,
        max_fee_per_cell: 2,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload: Vec::new(),
        signature: None,
    }
}

/// `tx` as if its signature had recovered `sender` (execution never looks at signatures).
pub(crate) fn verified(sender: Address, tx: Transaction) -> VerifiedTransaction {
    let mut preimage = sender.0.to_vec();
    preimage.extend_from_slice(&tx.nonce.to_be_bytes());
    preimage.extend_from_slice(&tx.value.to_be_bytes());
    VerifiedTransaction { tx, hash: keccak256(&preimage), sender, encoded: Vec::new() }
}

pub(crate) fn transfer(sender: Address, nonce: u64, to: Address, value: u128) -> VerifiedTransaction {
    verified(sender, transfer_tx(nonce, to, value))
}

pub(crate) fn env(proposer: Address) -> BlockEnv {
    BlockEnv { chain_id: CHAIN_ID, height: 7, timestamp_ms: 1_700_000_000_000, proposer }
}

/// The genesis state with these balances and the default fee parameters.
pub(crate) fn genesis(balances: &[(Address, u128)]) -> State {
    let mut state = State::new();
    let writes = genesis_writes(balances, &FeeParams::default()).expect("valid genesis");
    apply(&mut state, writes);
    state
}

pub(crate) fn apply(state: &mut State, writes: Writes) {
    for (key, value) in writes {
        match value {
            Some(value) => state.insert(key, value),
            None => state.remove(&key),
        };
    }
}

pub(crate) fn account(state: &State, address: Address) -> Option<Account> {
    state.get(&keys::account_key(&address)).map(|bytes| Account::decode(bytes).expect("valid account"))
}

pub(crate) fn balance(state: &State, address: Address) -> u128 {
    account(state, address).map_or(0, |account| account.balance)
}

pub(crate) fn total_supply(state: &State) -> u128 {
    state
        .iter()
        .filter(|(key, _)| keys::account_address(key).is_some())
        .map(|(_, bytes)| Account::decode(bytes).expect("valid account").balance)
        .sum()
}

/// One VM for all tests (it only caches compiled code).
pub(crate) fn vm() -> &'static Vm {
    static VM: OnceLock<Vm> = OnceLock::new();
    VM.get_or_init(Vm::new)
}

/// A complete state that records every read, to count lookups and catch a key read twice.
pub(crate) struct Recording<'a> {
    state: &'a State,
    keys: std::cell::RefCell<std::collections::BTreeSet<Vec<u8>>>,
    queries: std::cell::RefCell<std::collections::BTreeSet<crate::NextKeyQuery>>,
}

impl<'a> Recording<'a> {
    pub(crate) fn new(state: &'a State) -> Self {
        Recording { state, keys: Default::default(), queries: Default::default() }
    }

    /// Keys and next-key queries read so far.
    pub(crate) fn distinct_reads(&self) -> usize {
        self.keys.borrow().len() + self.queries.borrow().len()
    }
}

impl crate::StateRead for Recording<'_> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, crate::ReadFault> {
        assert!(self.keys.borrow_mut().insert(key.to_vec()), "key 0x{} read twice", hex::encode(key));
        crate::StateRead::get(self.state, key)
    }

    fn next_entry(&self, query: &crate::NextKeyQuery) -> Result<Option<crate::Entry>, crate::ReadFault> {
        assert!(self.queries.borrow_mut().insert(query.clone()), "{query:?} asked twice");
        crate::StateRead::next_entry(self.state, query)
    }
}

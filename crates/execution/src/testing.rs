//! Builders shared by the unit tests: addresses, transfers, in-memory states and a [`Chain`] that
//! executes blocks of actor and system-actor transactions over one.

use crate::{BlockEnv, BlockOutcome, FeeParams, Writes, build_block, execute_block, genesis_writes};
use drover_state::{Account, keys};
use drover_types::{
    Address, H256, Transaction, TxStatus, VerifiedTransaction, keccak256,
    payload::{Deploy, Manifest, Message, actor_address},
};
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
    BlockEnv { chain_id: CHAIN_ID, height: 7, timestamp_ms: 1_700_000_000_000, proposer, parent: H256([7; 32]) }
}

/// The genesis state with these balances and the default fee parameters.
pub(crate) fn genesis(balances: &[(Address, u128)]) -> State {
    let mut state = State::new();
    let fees = FeeParams::default();
    let writes = genesis_writes(balances, &fees, &fees.genesis_chain_params()).expect("valid genesis");
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

/// The items of `listing` in slot order, after checking its invariants in `state`: every slot
/// below the count holds an item whose place is that slot, and no slot or place of another item
/// is stored (`drover_state::listing`).
pub(crate) fn listed(state: &State, listing: &drover_state::listing::Listing) -> Vec<Vec<u8>> {
    use drover_state::listing::{decode_item, decode_place};
    let count = state.get(&listing.count_key()).map_or(0, |bytes| drover_state::decode_count(bytes).unwrap());
    let items: Vec<Vec<u8>> = (0..count)
        .map(|slot| {
            let item = decode_item(&state[&listing.slot_key(slot)]).expect("a slot below the count");
            assert_eq!(state.get(&listing.place_key(&item)).map(|b| decode_place(b).unwrap()), Some(slot));
            item
        })
        .collect();
    assert!(!state.contains_key(&listing.slot_key(count)), "a slot at the count");
    assert!(count > 0 || !state.contains_key(&listing.count_key()), "a stored count of zero");
    items
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

pub(crate) const RICH: u128 = 1_000_000_000_000_000;
pub(crate) const CYCLES_LIMIT: u64 = 15_000_000;
pub(crate) const CELLS_LIMIT: u64 = 400_000;
pub(crate) const PROPOSER: Address = Address([0x99; 20]);

pub(crate) fn example(name: &str) -> Vec<u8> {
    let path = format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"));
    wat::parse_file(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub(crate) fn inline(text: &str) -> Vec<u8> {
    wat::parse_str(text).expect("valid wat")
}

/// Runs `txs` through a [`Recording`] reader; returns the outcome and the number of reads,
/// after checking that no key or next-key query was read twice.
pub(crate) fn read_once(state: &State, env: &BlockEnv, txs: &[VerifiedTransaction]) -> (BlockOutcome, usize) {
    let reader = Recording::new(state);
    let outcome = execute_block(vm(), env, &FeeParams::default(), &reader, txs).expect("complete state");
    (outcome, reader.distinct_reads())
}

pub(crate) struct Chain {
    pub(crate) state: State,
    pub(crate) height: u64,
    pub(crate) nonces: BTreeMap<Address, u64>,
}

impl Chain {
    pub(crate) fn new(balances: &[(Address, u128)]) -> Self {
        Chain { state: genesis(balances), height: 1, nonces: BTreeMap::new() }
    }

    pub(crate) fn env(&self) -> BlockEnv {
        BlockEnv {
            chain_id: CHAIN_ID,
            height: self.height,
            timestamp_ms: self.height * 1_000,
            proposer: PROPOSER,
            parent: drover_types::keccak256(&self.height.to_be_bytes()),
        }
    }

    /// Executes a block (reading each key once, as over the plain state), applies it.
    pub(crate) fn block(&mut self, txs: &[VerifiedTransaction]) -> BlockOutcome {
        let env = self.env();
        let full = execute_block(vm(), &env, &FeeParams::default(), &self.state, txs)
            .expect("a complete state answers everything");
        let (recorded, _) = read_once(&self.state, &env, txs);
        assert_eq!(recorded, full, "how the state is read must not change the outcome");
        // The proposer's filter keeps every transaction that passes its pre-checks.
        let (selection, _) = build_block(vm(), &env, &FeeParams::default(), &self.state, txs).unwrap();
        // (A pre-check failure is the only receipt that uses nothing.)
        let prechecked = full.receipts.iter().filter(|r| r.cycles_used > 0).count();
        assert_eq!(selection.included.len(), prechecked);
        apply(&mut self.state, full.writes.clone());
        self.height += 1;
        full
    }

    pub(crate) fn tx(
        &mut self,
        sender: Address,
        to: Option<Address>,
        payload: Vec<u8>,
        value: u128,
    ) -> VerifiedTransaction {
        let nonce = self.nonces.entry(sender).or_default();
        let tx = Transaction {
            chain_id: CHAIN_ID,
            nonce: *nonce,
            to,
            value,
            cycles_limit: CYCLES_LIMIT,
            cells_limit: CELLS_LIMIT,
            max_fee_per_cycle: 10,
            max_fee_per_cell: 10,
            tip_per_cycle: 1,
            tip_per_cell: 0,
            payload,
            signature: None,
        };
        *nonce += 1;
        // Distinct hashes for identical transactions of different senders and nonces.
        verified(sender, tx)
    }

    pub(crate) fn deploy_tx(
        &mut self,
        sender: Address,
        code: Vec<u8>,
        manifest: &[&str],
        salt: &[u8],
        value: u128,
    ) -> (VerifiedTransaction, Address) {
        let deploy = Deploy {
            code,
            manifest: Manifest { entitlements: manifest.iter().map(|s| s.to_string()).collect() },
            salt: salt.to_vec(),
            init: None,
        };
        let address = actor_address(&sender, &deploy.salt, &deploy.code);
        (self.tx(sender, None, deploy.encode(), value), address)
    }

    pub(crate) fn deploy(&mut self, sender: Address, code: Vec<u8>, manifest: &[&str], value: u128) -> Address {
        let (tx, address) = self.deploy_tx(sender, code, manifest, b"", value);
        let outcome = self.block(&[tx]);
        assert_eq!(outcome.receipts[0].status, TxStatus::Success, "{:?}", outcome.receipts[0].error);
        address
    }

    pub(crate) fn call_tx(
        &mut self,
        sender: Address,
        to: Address,
        handler: &str,
        payload: &[u8],
        value: u128,
    ) -> VerifiedTransaction {
        let message = Message { handler: handler.into(), payload: payload.to_vec() };
        self.tx(sender, Some(to), message.encode(), value)
    }

    pub(crate) fn call(&mut self, sender: Address, to: Address, handler: &str, payload: &[u8]) -> BlockOutcome {
        let tx = self.call_tx(sender, to, handler, payload, 0);
        self.block(&[tx])
    }
}

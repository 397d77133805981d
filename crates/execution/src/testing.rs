//! Builders shared by the unit tests: addresses, transfers, in-memory states (read plainly, or
//! through a reader that records or counts every lookup), a [`Chain`] that executes blocks of
//! actor and system-actor transactions over one, and the cost audit's measure of what a block's
//! transactions made the node do against what they paid ([`Work`], [`Chain::audit`]).

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

    /// Whether `key` was read.
    pub(crate) fn read(&self, key: &[u8]) -> bool {
        self.keys.borrow().contains(key)
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

/// The cost audit's measure of a state lookup, in cycles: an operation whose lookups come to more
/// than one per this many cycles it paid sells database work below its price. A lookup costs the
/// node 1–5 µs on a warm cache (`docs/performance.md`), 250–1,250 cycles at the VM's measured
/// 252 M cycles/s.
pub(crate) const AUDIT_CYCLES_PER_LOOKUP: u64 = 500;

/// The cost audit's measure of bytes moved: an operation that reads and writes more bytes than
/// this many per cycle it paid sells copying, encoding and hashing below its price. Moving a
/// byte takes well under a nanosecond, a cycle some 4 ns of VM time; the VM charges a host copy
/// one cycle per byte (`CYCLES_PER_BYTE_COPIED`) and wasm's own bulk copies one per 64 bytes.
pub(crate) const AUDIT_BYTES_PER_CYCLE: u64 = 4;

/// The cost audit's measure of growth: an operation that adds more than this many bytes to the
/// state (and the receipts' events) per cell it paid sells storage below its price. A cell buys
/// a byte of what a record holds; its key and bookkeeping come on top, at most some 40 bytes
/// for a record of one byte (a 1-byte storage key under its 36 bytes of prefix and owner).
pub(crate) const AUDIT_GROWTH_BYTES_PER_CELL: u64 = 64;

/// What a [`Counting`] reader was asked: lookups of each kind and the bytes they answered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reads {
    /// Point reads.
    pub(crate) gets: u64,
    /// Next-key queries.
    pub(crate) nexts: u64,
    /// Key and value bytes the answers carried.
    pub(crate) bytes: u64,
}

impl Reads {
    /// Lookups of either kind.
    pub(crate) fn lookups(&self) -> u64 {
        self.gets + self.nexts
    }
}

/// A complete state that counts every lookup made of it and the bytes answered, repeated
/// lookups included: the work a block or a read costs the node's database.
pub(crate) struct Counting<'a> {
    state: &'a State,
    reads: std::cell::Cell<Reads>,
}

impl<'a> Counting<'a> {
    pub(crate) fn new(state: &'a State) -> Self {
        Counting { state, reads: Default::default() }
    }

    /// What was read so far.
    pub(crate) fn reads(&self) -> Reads {
        self.reads.get()
    }

    fn count(&self, next: bool, bytes: usize) {
        let mut reads = self.reads.get();
        if next {
            reads.nexts += 1;
        } else {
            reads.gets += 1;
        }
        reads.bytes += bytes as u64;
        self.reads.set(reads);
    }
}

impl crate::StateRead for Counting<'_> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, crate::ReadFault> {
        let value = crate::StateRead::get(self.state, key)?;
        self.count(false, value.as_ref().map_or(0, Vec::len));
        Ok(value)
    }

    fn next_entry(&self, query: &crate::NextKeyQuery) -> Result<Option<crate::Entry>, crate::ReadFault> {
        let entry = crate::StateRead::next_entry(self.state, query)?;
        self.count(true, entry.as_ref().map_or(0, |(key, value)| key.len() + value.len()));
        Ok(entry)
    }
}

/// The work a block's transactions made the node do, beyond what an empty block does, and what
/// they paid: the cost audit's two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Work {
    /// State lookups (point reads and next-key queries).
    pub(crate) lookups: u64,
    /// Key and value bytes the lookups answered.
    pub(crate) read_bytes: u64,
    /// Key and value bytes written to the state, and topic and data bytes of the events kept.
    pub(crate) written_bytes: u64,
    /// Bytes the state and the kept events grew by (negative when they shrank).
    pub(crate) growth_bytes: i64,
    /// Cycles the transactions used (and paid for).
    pub(crate) cycles: u64,
    /// Cells the transactions used (and paid for).
    pub(crate) cells: u64,
}

impl Work {
    /// What `txs` did as a block over `state`, run on `vm`.
    fn of_block(vm: &Vm, env: &BlockEnv, state: &State, txs: &[VerifiedTransaction]) -> (BlockOutcome, Work) {
        let reader = Counting::new(state);
        let outcome = execute_block(vm, env, &FeeParams::default(), &reader, txs).expect("complete state");
        let reads = reader.reads();
        let size = |key: &[u8], value: Option<&Vec<u8>>| value.map_or(0, |value| (key.len() + value.len()) as i64);
        let events: u64 = outcome
            .receipts
            .iter()
            .flat_map(|receipt| &receipt.events)
            .chain(outcome.system_runs.iter().flat_map(|run| &run.events))
            .map(|event| (event.topic.len() + event.data.len()) as u64)
            .sum();
        let written: u64 =
            outcome.writes.iter().map(|(key, value)| (key.len() + value.as_ref().map_or(0, Vec::len)) as u64).sum();
        let growth: i64 =
            outcome.writes.iter().map(|(key, value)| size(key, value.as_ref()) - size(key, state.get(key))).sum();
        let work = Work {
            lookups: reads.lookups(),
            read_bytes: reads.bytes,
            written_bytes: written + events,
            growth_bytes: growth + events as i64,
            cycles: outcome.receipts.iter().map(|receipt| receipt.cycles_used).sum(),
            cells: outcome.receipts.iter().map(|receipt| receipt.cells_used).sum(),
        };
        (outcome, work)
    }

    /// Panics unless the work is within the audit's measures of what was paid:
    /// [`AUDIT_CYCLES_PER_LOOKUP`], [`AUDIT_BYTES_PER_CYCLE`], [`AUDIT_GROWTH_BYTES_PER_CELL`].
    #[track_caller]
    pub(crate) fn assert_paid(&self, what: &str) {
        assert!(self.lookups * AUDIT_CYCLES_PER_LOOKUP <= self.cycles, "{what}: more lookups than paid for: {self:?}");
        assert!(
            self.read_bytes + self.written_bytes <= AUDIT_BYTES_PER_CYCLE * self.cycles,
            "{what}: more bytes moved than paid for: {self:?}"
        );
        assert!(
            self.growth_bytes <= (AUDIT_GROWTH_BYTES_PER_CELL * self.cells) as i64,
            "{what}: more growth than paid for: {self:?}"
        );
    }
}

pub(crate) const RICH: u128 = 1_000_000_000_000_000;
/// Limits of the harness's transactions: twenty fit one block's cycles (tests that need more
/// say so with [`Chain::tx_with_limits`], or set [`Chain::limits`]).
pub(crate) const CYCLES_LIMIT: u64 = 1_000_000;
pub(crate) const CELLS_LIMIT: u64 = 40_000;
/// Limits of a transaction that has a block to itself (three quarters of its cycles).
pub(crate) const LARGE_LIMITS: (u64, u64) = (15_000_000, 400_000);
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
    /// Limits `(cycles, cells)` of the transactions [`Chain::tx`] makes.
    pub(crate) limits: (u64, u64),
}

impl Chain {
    pub(crate) fn new(balances: &[(Address, u128)]) -> Self {
        Chain { state: genesis(balances), height: 1, nonces: BTreeMap::new(), limits: (CYCLES_LIMIT, CELLS_LIMIT) }
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

    /// Builds a block of `txs`, which must all be valid, executes it (reading each key once, as
    /// over the plain state) and applies it.
    pub(crate) fn block(&mut self, txs: &[VerifiedTransaction]) -> BlockOutcome {
        let env = self.env();
        let (selection, built) = build_block(vm(), &env, &FeeParams::default(), &self.state, txs).unwrap();
        assert!(selection.dropped.is_empty(), "invalid transactions: {:?}", selection.dropped);
        let full = execute_block(vm(), &env, &FeeParams::default(), &self.state, txs)
            .expect("a complete state answers everything");
        assert_eq!(built, full, "building is executing the kept transactions");
        let (recorded, _) = read_once(&self.state, &env, txs);
        assert_eq!(recorded, full, "how the state is read must not change the outcome");
        apply(&mut self.state, full.writes.clone());
        self.height += 1;
        full
    }

    /// Why the validity rule refuses `tx` as the next block's only transaction (`None`: it is
    /// valid). A refused transaction's nonce is handed out again; the state is left as it was.
    /// A block holding it is invalid.
    pub(crate) fn refusal(&mut self, tx: &VerifiedTransaction) -> Option<crate::RejectReason> {
        let env = self.env();
        let txs = std::slice::from_ref(tx);
        let (selection, _) = build_block(vm(), &env, &FeeParams::default(), &self.state, txs).unwrap();
        let reason = selection.dropped.first().map(|(_, rejection)| rejection.reason);
        if reason.is_some() {
            let verdict = execute_block(vm(), &env, &FeeParams::default(), &self.state, txs);
            assert!(matches!(verdict, Err(crate::BlockError::Invalid(_))), "{verdict:?}");
            self.nonces.insert(tx.sender, tx.tx.nonce);
        }
        reason
    }

    /// Executes `txs` as the next block and applies it, like [`Chain::block`] but over a
    /// [`Counting`] reader and a VM that has compiled nothing yet (every module is read from the
    /// state): answers the outcome and the work the transactions did beyond an empty block's.
    pub(crate) fn audit(&mut self, txs: &[VerifiedTransaction]) -> (BlockOutcome, Work) {
        let env = self.env();
        let (_, empty) = Work::of_block(&Vm::new(), &env, &self.state, &[]);
        let (outcome, full) = Work::of_block(&Vm::new(), &env, &self.state, txs);
        apply(&mut self.state, outcome.writes.clone());
        self.height += 1;
        let work = Work {
            lookups: full.lookups.saturating_sub(empty.lookups),
            read_bytes: full.read_bytes.saturating_sub(empty.read_bytes),
            written_bytes: full.written_bytes.saturating_sub(empty.written_bytes),
            growth_bytes: full.growth_bytes - empty.growth_bytes,
            ..full
        };
        (outcome, work)
    }

    pub(crate) fn tx(
        &mut self,
        sender: Address,
        to: Option<Address>,
        payload: Vec<u8>,
        value: u128,
    ) -> VerifiedTransaction {
        self.tx_with_limits(sender, to, payload, value, self.limits)
    }

    /// A transaction with limits `(cycles, cells)` of its own.
    pub(crate) fn tx_with_limits(
        &mut self,
        sender: Address,
        to: Option<Address>,
        payload: Vec<u8>,
        value: u128,
        (cycles_limit, cells_limit): (u64, u64),
    ) -> VerifiedTransaction {
        let nonce = self.nonces.entry(sender).or_default();
        let tx = Transaction {
            chain_id: CHAIN_ID,
            nonce: *nonce,
            to,
            value,
            cycles_limit,
            cells_limit,
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

    /// A call of the native system actor `to` with limits that cover exactly an operation
    /// costing `cost`, as clients set them.
    pub(crate) fn system_tx(
        &mut self,
        sender: Address,
        to: Address,
        message: Message,
        cost: (u64, u64),
        value: u128,
    ) -> VerifiedTransaction {
        let payload = message.encode();
        let limits = drover_types::params::system_call_limits(payload.len(), cost);
        self.tx_with_limits(sender, Some(to), payload, value, limits)
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
            manifest: Manifest::new(manifest.iter().map(|s| s.to_string()).collect()),
            salt: salt.to_vec(),
            init: None,
        };
        let address = actor_address(&sender, &deploy.salt, &deploy.code);
        let payload = deploy.encode();
        // The harness's limits on top of the deploy's intrinsic cost, which grows with its code.
        let bytes = payload.len() as u64;
        let limits = (
            self.limits.0 + bytes * drover_types::params::DEPLOY_CYCLES_PER_PAYLOAD_BYTE,
            self.limits.1 + bytes + drover_types::params::ACTOR_RECORD_CELLS,
        );
        (self.tx_with_limits(sender, None, payload, value, limits), address)
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

    /// A call without value with limits `(cycles, cells)` of its own.
    pub(crate) fn call_tx_with_limits(
        &mut self,
        sender: Address,
        to: Address,
        handler: &str,
        payload: &[u8],
        limits: (u64, u64),
    ) -> VerifiedTransaction {
        let message = Message { handler: handler.into(), payload: payload.to_vec() };
        self.tx_with_limits(sender, Some(to), message.encode(), 0, limits)
    }

    pub(crate) fn call(&mut self, sender: Address, to: Address, handler: &str, payload: &[u8]) -> BlockOutcome {
        let tx = self.call_tx(sender, to, handler, payload, 0);
        self.block(&[tx])
    }
}

//! [`MockHost`]: an in-memory [`Host`] for tests (feature `testing`).
//!
//! It shows the contract a real host follows. Atomicity: every invocation (top-level or nested)
//! runs inside a checkpoint of the whole state and is rolled back unless its status is success;
//! a real host journals individual writes instead of cloning the state, with the same effect.
//! Reentrancy: [`Host::call`] invokes the VM again with `self`. Mailbox messages and timers are
//! queued and run by [`MockHost::deliver_mailbox`] and [`MockHost::advance_to`], as the executor
//! does at the start of later blocks.

use crate::{
    Outcome, Status, Vm,
    cache::CompiledModule,
    entitlements::Entitlements,
    error::{HostError, VmError},
    host::{CallRequest, Host, OutgoingMessage, StorageEntry, TimerRequest},
    invocation::CallContext,
    invocation::Invocation,
};
use drover_types::{Address, exec_error::ExecCode};

/// Pending timers per actor the mock holds (the chain's `max_pending_timers_per_actor` at genesis).
const MOCK_MAX_PENDING_TIMERS: usize = 1_024;
use std::{
    collections::{BTreeMap, VecDeque},
    ops::Bound,
    sync::Arc,
};

/// A deployed actor.
#[derive(Clone)]
pub struct MockActor {
    /// The compiled code.
    pub module: Arc<CompiledModule>,
    /// What the actor's manifest grants.
    pub entitlements: Entitlements,
}

/// Everything a checkpoint saves.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct MockState {
    /// Balances by address, base units.
    pub balances: BTreeMap<Address, u128>,
    /// Storage values by actor and key.
    pub storage: BTreeMap<(Address, Vec<u8>), Vec<u8>>,
    /// `(actor, topic, data)` in emission order.
    pub events: Vec<(Address, Vec<u8>, Vec<u8>)>,
    /// Messages sent and not yet delivered, FIFO.
    pub mailbox: VecDeque<OutgoingMessage>,
    /// Pending timers by id.
    pub timers: BTreeMap<u64, TimerRequest>,
    /// The last timer id handed out (ids start at 1).
    pub next_timer_id: u64,
}

/// An in-memory host with nested calls through the VM.
pub struct MockHost {
    /// The engine every call runs on.
    pub vm: Arc<Vm>,
    /// Deployed actors by address.
    pub actors: BTreeMap<Address, MockActor>,
    /// Balances, storage, events, mailbox and timers.
    pub state: MockState,
    /// Height the calls see; [`MockHost::advance_to`] moves it.
    pub block_height: u64,
    /// Timestamp the calls see, Unix milliseconds.
    pub timestamp_ms: u64,
    checkpoints: Vec<MockState>,
}

/// The sender of top-level calls unless a test says otherwise.
pub const MOCK_SENDER: Address = Address([0xee; 20]);

impl MockHost {
    /// A host with no actors and empty state, at height 1 and timestamp 1,000 ms.
    pub fn new(vm: Arc<Vm>) -> Self {
        MockHost {
            vm,
            actors: BTreeMap::new(),
            state: MockState::default(),
            block_height: 1,
            timestamp_ms: 1_000,
            checkpoints: Vec::new(),
        }
    }

    /// Validates, compiles and installs `code` at `address`.
    pub fn deploy(&mut self, address: Address, code: &[u8], entitlements: Entitlements) -> Result<(), VmError> {
        let module = self.vm.compile(code)?;
        self.actors.insert(address, MockActor { module, entitlements });
        Ok(())
    }

    /// A top-level call from [`MOCK_SENDER`] with generous budgets; adjust fields as needed and
    /// pass it to [`MockHost::run`].
    pub fn request(&self, to: Address, handler: &str, payload: &[u8]) -> CallRequest {
        CallRequest {
            context: CallContext {
                self_address: to,
                caller: MOCK_SENDER,
                origin: MOCK_SENDER,
                block_height: self.block_height,
                timestamp_ms: self.timestamp_ms,
                value: 0,
                depth: 0,
            },
            handler: handler.into(),
            payload: payload.to_vec(),
            cycles_limit: 10_000_000,
            cells_limit: 1_000_000,
            read_only: false,
        }
    }

    /// Runs a top-level call: like a transaction, its effects stay only if it succeeds.
    pub fn run(&mut self, request: CallRequest) -> Outcome {
        self.call(request).unwrap_or_else(|e| Outcome {
            status: Status::Trap(e.into()),
            result: Vec::new(),
            cycles_used: 0,
            cells_used: 0,
        })
    }

    /// Shorthand for `run(request(to, handler, payload))`.
    pub fn call_actor(&mut self, to: Address, handler: &str, payload: &[u8]) -> Outcome {
        let request = self.request(to, handler, payload);
        self.run(request)
    }

    /// Delivers the messages queued so far (not those their handlers send), FIFO.
    pub fn deliver_mailbox(&mut self) -> Vec<Outcome> {
        let queued: Vec<_> = self.state.mailbox.drain(..).collect();
        queued
            .into_iter()
            .map(|m| {
                let mut request = self.request(m.to, &m.handler, &m.payload);
                request.context.caller = m.from;
                request.context.origin = m.from;
                request.context.value = m.value;
                request.cycles_limit = m.cycles_limit;
                // The value was escrowed at send; it reaches the recipient only on success.
                self.credit(m.from, m.value);
                self.run(request)
            })
            .collect()
    }

    /// Moves to `height` and fires the timers due by then, by height then id.
    pub fn advance_to(&mut self, height: u64) -> Vec<Outcome> {
        self.block_height = height;
        self.timestamp_ms = height * 1_000;
        let mut due: Vec<_> =
            self.state.timers.iter().filter(|(_, t)| t.height <= height).map(|(id, t)| (t.height, *id)).collect();
        due.sort();
        let fired: Vec<_> = due.into_iter().filter_map(|(_, id)| self.state.timers.remove(&id)).collect();
        fired
            .into_iter()
            .map(|t| {
                let mut request = self.request(t.owner, &t.handler, &t.payload);
                request.context.caller = t.owner;
                request.context.origin = t.owner;
                request.cycles_limit = t.cycles_limit;
                self.run(request)
            })
            .collect()
    }

    /// The value under `key` in `actor`'s storage.
    pub fn storage(&self, actor: Address, key: &[u8]) -> Option<&[u8]> {
        self.state.storage.get(&(actor, key.to_vec())).map(Vec::as_slice)
    }

    /// Balance of `address`, 0 when it has none.
    pub fn balance_of(&self, address: Address) -> u128 {
        self.state.balances.get(&address).copied().unwrap_or(0)
    }

    /// Adds `amount` to the balance of `address` (saturating).
    pub fn credit(&mut self, address: Address, amount: u128) {
        let balance = self.state.balances.entry(address).or_default();
        *balance = balance.saturating_add(amount);
    }

    fn debit(&mut self, address: Address, amount: u128) -> Result<(), HostError> {
        let balance = self.balance_of(address);
        let left = balance.checked_sub(amount).ok_or_else(|| {
            HostError::new(ExecCode::ActorBalance, format!("balance {balance} cannot cover {amount}"))
        })?;
        self.state.balances.insert(address, left);
        Ok(())
    }

    fn checkpoint(&mut self) {
        self.checkpoints.push(self.state.clone());
    }

    fn commit(&mut self) {
        self.checkpoints.pop();
    }

    fn rollback(&mut self) {
        if let Some(saved) = self.checkpoints.pop() {
            self.state = saved;
        }
    }
}

impl Host for MockHost {
    fn storage_get(&mut self, actor: &Address, key: &[u8]) -> Result<Option<Vec<u8>>, HostError> {
        Ok(self.storage(*actor, key).map(<[u8]>::to_vec))
    }

    fn storage_set(&mut self, actor: &Address, key: &[u8], value: &[u8]) -> Result<(), HostError> {
        self.state.storage.insert((*actor, key.to_vec()), value.to_vec());
        Ok(())
    }

    fn storage_remove(&mut self, actor: &Address, key: &[u8]) -> Result<bool, HostError> {
        Ok(self.state.storage.remove(&(*actor, key.to_vec())).is_some())
    }

    fn storage_next(&mut self, actor: &Address, after: Option<&[u8]>) -> Result<Option<StorageEntry>, HostError> {
        // The mock's storage order is the keys' byte order.
        let start = match after {
            Some(after) => Bound::Excluded((*actor, after.to_vec())),
            None => Bound::Included((*actor, Vec::new())),
        };
        Ok(self
            .state
            .storage
            .range((start, Bound::Unbounded))
            .next()
            .filter(|((owner, _), _)| owner == actor)
            .map(|((_, key), value)| (key.clone(), value.clone())))
    }

    fn emit(&mut self, actor: &Address, topic: &[u8], data: &[u8]) -> Result<(), HostError> {
        self.state.events.push((*actor, topic.to_vec(), data.to_vec()));
        Ok(())
    }

    fn balance(&mut self, address: &Address) -> Result<u128, HostError> {
        Ok(self.balance_of(*address))
    }

    fn account_exists(&mut self, address: &Address) -> Result<bool, HostError> {
        Ok(self.balance_of(*address) > 0)
    }

    fn transfer(&mut self, from: &Address, to: &Address, amount: u128) -> Result<(), HostError> {
        self.debit(*from, amount)?;
        self.credit(*to, amount);
        Ok(())
    }

    fn send(&mut self, message: OutgoingMessage) -> Result<(), HostError> {
        if !self.actors.contains_key(&message.to) {
            return Err(HostError::new(ExecCode::NoActor, format!("{} holds no actor", message.to)));
        }
        self.debit(message.from, message.value)?;
        self.state.mailbox.push_back(message);
        Ok(())
    }

    fn call(&mut self, request: CallRequest) -> Result<Outcome, HostError> {
        let callee = request.context.self_address;
        let actor = self
            .actors
            .get(&callee)
            .cloned()
            .ok_or_else(|| HostError::new(ExecCode::NoActor, format!("{callee} holds no actor")))?;
        self.checkpoint();
        if request.context.value > 0 {
            if let Err(e) = self.debit(request.context.caller, request.context.value) {
                self.rollback();
                return Err(e);
            }
            self.credit(callee, request.context.value);
        }
        let invocation = Invocation {
            handler: &request.handler,
            payload: &request.payload,
            context: request.context,
            entitlements: actor.entitlements,
            cycles_limit: request.cycles_limit,
            cells_limit: request.cells_limit,
            read_only: request.read_only,
            load_cycles: 0,
        };
        let vm = Arc::clone(&self.vm);
        let outcome = vm.invoke(&actor.module, &invocation, self);
        if outcome.is_success() {
            self.commit();
        } else {
            self.rollback();
        }
        Ok(outcome)
    }

    fn timer_schedule(&mut self, timer: TimerRequest) -> Result<u64, HostError> {
        let pending = self.state.timers.values().filter(|t| t.owner == timer.owner).count();
        if pending >= MOCK_MAX_PENDING_TIMERS {
            return Err(HostError::new(ExecCode::TooManyTimers, format!("{pending} timers pending")));
        }
        self.state.next_timer_id += 1;
        let id = self.state.next_timer_id;
        self.state.timers.insert(id, timer);
        Ok(id)
    }

    fn timer_cancel(&mut self, owner: &Address, id: u64) -> Result<bool, HostError> {
        match self.state.timers.get(&id) {
            Some(t) if t.owner == *owner => {
                self.state.timers.remove(&id);
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

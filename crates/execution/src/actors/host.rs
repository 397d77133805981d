//! [`ActorHost`]: the VM's [`Host`] over the block's journaled overlay.
//!
//! Every effect goes through the overlay (storage, balances, mailbox, timers) or the host's
//! event list, and [`Host::call`] takes a checkpoint of both before it moves the value and runs
//! the callee, rolling back to it unless the callee succeeds. Top-level invocations use the
//! same `call`, so a transaction, a timer fire and a delivery all get the VM contract's
//! atomicity from one place.
//!
//! A call to a native system actor (`drover_types::system_actors` lists them) goes to its
//! handlers (`crate::system_actors`) instead of the VM, through the same `call`, so transactions
//! and actors reach it alike.
//!
//! A read the state cannot answer (a [`ReadFault`](crate::ReadFault)) or a corrupt record is
//! kept in [`ActorHost::fatal`] and fails the operation with E1900, which the VM propagates
//! through every caller, ending the whole invocation; the executor then ends the block (or the
//! read-only call) without an outcome.

use crate::credits::{Asset, Credit};
use crate::native::NativeHost;
use crate::overlay::{Checkpoint, Overlay, ReadError, StateError};
use crate::{BlockEnv, StateRead};
use drover_state::{
    ActorRecord, Basefees, MARKER, MailQueue, MailboxUsage, MessageRecord, RecordError, TimerRecord, decode_count,
    encode_count, keys,
    timer::{timer_id, timer_id_parts},
};
use drover_types::{
    Address, Event, H256,
    api::{TraceStep, TracedValue},
    cbor::CborError,
    chain_params::ChainParams,
    exec_error::ExecCode,
    params::SYSTEM_RUN_CELLS_LIMIT,
    system_actors::AnySystemCall,
};
use drover_vm::{
    CallRequest, CompiledModule, Entitlements, Host, HostError, Invocation, LibraryRequest, Outcome, OutgoingMessage,
    Status, StorageEntry, TimerRequest, Vm, VmError, validate_manifest,
};
use std::{collections::HashSet, sync::Arc};

/// A corrupt-record error for `key` that is not a CBOR decoding failure.
pub(crate) fn corrupt(key: Vec<u8>, what: impl Into<String>) -> StateError {
    StateError { key, source: RecordError(CborError::malformed(what)) }
}

/// The actor record at `address`, if any.
pub(crate) fn actor_record<S: StateRead>(
    overlay: &mut Overlay<'_, S>,
    address: &Address,
) -> Result<Option<ActorRecord>, ReadError> {
    overlay.record(&keys::actor_key(address), ActorRecord::decode)
}

/// The host of one block's actor executions.
pub(crate) struct ActorHost<'h, 'a, S> {
    pub(crate) overlay: &'h mut Overlay<'a, S>,
    pub(crate) vm: &'h Vm,
    pub(crate) basefees: Basefees,
    /// The block being executed.
    pub(crate) env: BlockEnv,
    /// The chain parameters in force for the block (read from state at its start).
    pub(crate) params: ChainParams,
    /// Hash of the transaction being executed (`None` in the deferred work and read-only calls).
    pub(crate) tx_hash: Option<H256>,
    /// Events of the current work, in emission order (rolled back with the state).
    pub(crate) events: Vec<Event>,
    /// Value the current work moved to accounts, in order (rolled back with the state). A
    /// transaction's are reported for the account history; the deferred work's are dropped with
    /// its host.
    pub(crate) credits: Vec<Credit>,
    /// Code hashes of the modules this host's work has run (each paid its load price once).
    loaded: HashSet<H256>,
    /// A read that failed, or a corrupt record, met while running: the block cannot be
    /// executed.
    pub(crate) fatal: Option<ReadError>,
    /// Records the execution when a trace was asked for (read-only calls only).
    pub(crate) tracer: Option<super::trace::Tracer>,
}

/// A rollback point of state, events and credits.
#[derive(Clone, Copy)]
pub(crate) struct Saved {
    state: Checkpoint,
    events: usize,
    credits: usize,
}

fn no_actor(address: &Address) -> HostError {
    HostError::new(ExecCode::NoActor, format!("{address} holds no actor"))
}

fn short(address: &Address, balance: u128, amount: u128) -> HostError {
    HostError::new(ExecCode::ActorBalance, format!("{address} holds {balance}, cannot cover {amount}"))
}

impl<'h, 'a, S: StateRead> ActorHost<'h, 'a, S> {
    pub(crate) fn new(
        overlay: &'h mut Overlay<'a, S>,
        vm: &'h Vm,
        basefees: Basefees,
        env: BlockEnv,
        params: ChainParams,
    ) -> Self {
        ActorHost {
            overlay,
            vm,
            basefees,
            env,
            params,
            tx_hash: None,
            events: Vec::new(),
            credits: Vec::new(),
            fatal: None,
            loaded: HashSet::new(),
            tracer: None,
        }
    }

    /// Records a step of the running handler when tracing (built only when the trace keeps it).
    fn trace(&mut self, step: impl FnOnce() -> TraceStep) {
        if let Some(tracer) = &mut self.tracer {
            tracer.step(step);
        }
    }

    /// Compiles code a deploy, an upgrade or a library publish carries, within the live
    /// `max_code_bytes` (the VM's own bound is the cap a vote may raise it to).
    pub(crate) fn compile_code(&self, code: &[u8]) -> Result<Arc<CompiledModule>, VmError> {
        drover_vm::check_code_limit(code, self.params.max_code_bytes)?;
        self.vm.compile(code)
    }

    pub(crate) fn save(&self) -> Saved {
        Saved { state: self.overlay.checkpoint(), events: self.events.len(), credits: self.credits.len() }
    }

    pub(crate) fn restore(&mut self, saved: Saved) {
        self.overlay.rollback(saved.state);
        self.events.truncate(saved.events);
        self.credits.truncate(saved.credits);
    }

    /// Turns a read failure into the host error that stops the actor, remembering corruption.
    pub(crate) fn absorb<T>(&mut self, read: Result<T, ReadError>) -> Result<T, HostError> {
        read.map_err(|error| self.read_failure(error))
    }

    fn read_failure(&mut self, error: ReadError) -> HostError {
        let message = match &error {
            ReadError::Fault(fault) => fault.to_string(),
            ReadError::Corrupt(error) => error.to_string(),
        };
        self.fatal.get_or_insert(error);
        HostError::internal(message)
    }

    fn fail_corrupt(&mut self, error: StateError) -> HostError {
        self.read_failure(ReadError::Corrupt(error))
    }

    /// Runs a top-level invocation: like [`Host::call`], with a refusal (no actor, value not
    /// covered, state unreadable) as a trap that used nothing.
    pub(crate) fn run(&mut self, request: CallRequest) -> Outcome {
        self.call(request).unwrap_or_else(refused_as_trap)
    }

    /// Runs a transaction's top-level call of a native system actor as `call`, what the
    /// validity rule decoded its handler and arguments as: like [`run`](Self::run) of the same
    /// request, without decoding them again.
    pub(crate) fn run_system(&mut self, request: CallRequest, call: AnySystemCall) -> Outcome {
        let outcome = self.traced(
            (request, call),
            |tracer, (request, _)| {
                tracer.enter(request.context.self_address, &request.handler, None, request.context.value)
            },
            |host, (request, call)| Ok(crate::system_actors::call_decoded(host, &request, call)),
        );
        outcome.unwrap_or_else(refused_as_trap)
    }

    /// Runs `work` on `input` between the tracer's entry (as `enter` tells it) and its exit, when
    /// a tracer watches; `work` alone otherwise.
    fn traced<I>(
        &mut self,
        input: I,
        enter: impl FnOnce(&mut super::trace::Tracer, &I),
        work: impl FnOnce(&mut Self, I) -> Result<Outcome, HostError>,
    ) -> Result<Outcome, HostError> {
        let Some(tracer) = &mut self.tracer else {
            return work(self, input);
        };
        enter(tracer, &input);
        let result = work(self, input);
        if let Some(tracer) = &mut self.tracer {
            tracer.exit(&result);
        }
        result
    }

    /// Moves `amount` from `from` to `to` (E1212 when `from` cannot cover it).
    pub(crate) fn move_value(&mut self, from: &Address, to: &Address, amount: u128) -> Result<(), HostError> {
        if amount == 0 {
            return Ok(());
        }
        self.debit(from, amount)?;
        self.credit(to, amount)?;
        self.credits.extend(Credit::native(*from, *to, amount));
        Ok(())
    }

    pub(crate) fn debit(&mut self, address: &Address, amount: u128) -> Result<(), HostError> {
        let account = self.overlay.account(*address);
        let mut account = self.absorb(account)?;
        account.balance = account.balance.checked_sub(amount).ok_or_else(|| short(address, account.balance, amount))?;
        self.overlay.set(*address, account);
        Ok(())
    }

    pub(crate) fn credit(&mut self, address: &Address, amount: u128) -> Result<(), HostError> {
        let account = self.overlay.account(*address);
        let mut account = self.absorb(account)?;
        // Impossible while the supply fits in u128, which genesis guarantees.
        account.balance = account
            .balance
            .checked_add(amount)
            .ok_or_else(|| HostError::internal(format!("crediting {address} overflows")))?;
        self.overlay.set(*address, account);
        Ok(())
    }

    /// What loading `module` costs now: its load price at its first use by this host's work (a
    /// transaction, or a block's deferred work), nothing after. Kept outside the journal: a
    /// rolled-back call still loaded the module.
    fn load_cycles(&mut self, module: &CompiledModule) -> u64 {
        if self.loaded.insert(module.code_hash()) { module.load_cycles() } else { 0 }
    }

    /// The compiled module of an actor, from the VM's cache or compiled from its stored code.
    fn module(&mut self, address: &Address, record: &ActorRecord) -> Result<Arc<CompiledModule>, HostError> {
        self.module_at(&record.code_hash, keys::actor_code_key(address))
    }

    /// The compiled module with hash `code_hash`, from the VM's cache or compiled from the code
    /// stored under `key` (an actor's or a library's).
    fn module_at(&mut self, code_hash: &H256, key: Vec<u8>) -> Result<Arc<CompiledModule>, HostError> {
        let vm = self.vm;
        let overlay = &mut *self.overlay;
        let mut failure = None;
        let loaded = vm.load(code_hash, || match overlay.get(&key) {
            Ok(Some(code)) => Ok(code),
            Ok(None) => Err(HostError::internal("the code is missing")),
            Err(error) => {
                failure = Some(error);
                Err(HostError::internal("the code could not be read"))
            }
        });
        match (loaded, failure) {
            (Ok(module), _) => Ok(module),
            (Err(_), Some(error)) => Err(self.read_failure(error)),
            // Stored code was validated at deploy and hashes to its record: anything else is a
            // corrupt database.
            (Err(error), None) => Err(self.fail_corrupt(corrupt(key, error.to_string()))),
        }
    }

    fn entitlements(&mut self, address: &Address, record: &ActorRecord) -> Result<Entitlements, HostError> {
        validate_manifest(&record.entitlements)
            .map_err(|e: VmError| self.fail_corrupt(corrupt(keys::actor_key(address), e.to_string())))
    }

    fn count(&mut self, key: &[u8]) -> Result<u64, HostError> {
        let count = self.overlay.record(key, decode_count);
        Ok(self.absorb(count)?.unwrap_or(0))
    }

    /// Writes a count, deleting the key at zero so that an idle actor leaves nothing behind.
    fn set_count(&mut self, key: Vec<u8>, count: u64) {
        self.overlay.put(key, (count > 0).then(|| encode_count(count)));
    }

    /// Keeps the actor's storage entry count (served without a scan) in step with a new entry
    /// (`added`) or a removed one. Bookkeeping of the node, not charged to the actor.
    fn count_storage_entries(&mut self, actor: &Address, added: bool) -> Result<(), HostError> {
        let count_key = keys::actor_storage_count_key(actor);
        let count = self.count(&count_key)?;
        let count = if added { count.saturating_add(1) } else { count.saturating_sub(1) };
        self.set_count(count_key, count);
        Ok(())
    }

    /// Removes a pending timer's records (not its height's count: sequence numbers are never
    /// reused) and takes it off its owner's listing, which lowers the owner's count (the removal
    /// was paid for when the timer was scheduled).
    pub(crate) fn forget_timer(&mut self, height: u64, seq: u32, owner: &Address) -> Result<(), HostError> {
        self.overlay.put(keys::timer_key(height, seq), None);
        if let Some(id) = timer_id(height, seq) {
            crate::listing::remove(self, &keys::timers_listing(owner), &id.to_be_bytes())?;
        }
        Ok(())
    }

    /// Removes a queued message's records and lowers its recipient's usage.
    pub(crate) fn forget_message(&mut self, seq: u64, message: &MessageRecord) -> Result<(), HostError> {
        self.overlay.put(keys::message_key(seq), None);
        self.overlay.put(keys::mailbox_entry_key(&message.to, seq), None);
        let usage_key = keys::mailbox_usage_key(&message.to);
        let usage = self.overlay.record(&usage_key, MailboxUsage::decode);
        let usage = self.absorb(usage)?.unwrap_or_default();
        let usage = MailboxUsage {
            count: usage.count.saturating_sub(1),
            bytes: usage.bytes.saturating_sub(message.size_bytes()),
        };
        self.overlay.put(usage_key, (!usage.is_empty()).then(|| usage.encode()));
        Ok(())
    }
}

impl<S: StateRead> ActorHost<'_, '_, S> {
    /// Refuses a budget above the live `max_attached_cycles` (E1504): what an actor attaches
    /// must fit a quarter of the block's deferred budget, the timers' share, so that no message
    /// or timer waits behind the others for ever (`super::Deferred`). A job's callback is
    /// bounded when the job is submitted (`max_callback_cycles`, E1609).
    fn attachable(&self, cycles: u64) -> Result<(), HostError> {
        let limit = self.params.max_attached_cycles;
        if cycles > limit {
            return Err(HostError::new(
                ExecCode::AttachedCycles,
                format!("attached budget of {cycles} cycles, above the limit of {limit} (max_attached_cycles)"),
            ));
        }
        Ok(())
    }

    /// Queues `message`, its delivery budget bought from its sender at `basefees`.
    fn queue_message(&mut self, message: OutgoingMessage, basefees: Basefees) -> Result<(), HostError> {
        let recipient = actor_record(self.overlay, &message.to);
        if self.absorb(recipient)?.is_none() {
            return Err(no_actor(&message.to));
        }
        let size = (message.handler.len() + message.payload.len()) as u64;
        let usage_key = keys::mailbox_usage_key(&message.to);
        let usage = self.overlay.record(&usage_key, MailboxUsage::decode);
        let usage = self.absorb(usage)?.unwrap_or_default();
        let bytes = usage.bytes.saturating_add(size);
        let capacity = self.params.mailbox_capacity_bytes;
        if bytes > capacity {
            return Err(HostError::new(
                ExecCode::MailboxFull,
                format!("{}'s mailbox holds {} bytes; {size} more would pass {capacity}", message.to, usage.bytes),
            ));
        }
        let prepaid = u128::from(message.cycles_limit)
            .checked_mul(basefees.cycle)
            .and_then(|c| u128::from(SYSTEM_RUN_CELLS_LIMIT).checked_mul(basefees.cell).and_then(|k| c.checked_add(k)))
            .and_then(|fee| fee.checked_add(message.value))
            .ok_or_else(|| HostError::new(ExecCode::ActorBalance, "the message's budget and value overflow"))?;
        self.debit(&message.from, prepaid)?;
        let queue = self.overlay.record(&keys::mail_queue_key(), MailQueue::decode);
        let mut queue = self.absorb(queue)?.unwrap_or_default();
        let seq = queue.tail;
        queue.tail = queue.tail.checked_add(1).ok_or_else(|| HostError::internal("the mail queue is exhausted"))?;
        let record = MessageRecord {
            from: message.from,
            to: message.to,
            handler: message.handler,
            payload: message.payload,
            value: message.value,
            cycles_limit: message.cycles_limit,
            prepaid: prepaid - message.value,
            basefee_cycle: basefees.cycle,
            basefee_cell: basefees.cell,
        };
        self.overlay.put(keys::mailbox_entry_key(&record.to, seq), Some(MARKER.to_vec()));
        self.overlay.put(keys::message_key(seq), Some(record.encode()));
        self.overlay.put(keys::mail_queue_key(), Some(queue.encode()));
        let usage = MailboxUsage { count: usage.count.saturating_add(1), bytes };
        self.overlay.put(usage_key, Some(usage.encode()));
        Ok(())
    }
}

impl<S: StateRead> NativeHost for ActorHost<'_, '_, S> {
    type Saved = Saved;

    fn read_record<T>(
        &mut self,
        key: &[u8],
        decode: impl FnOnce(&[u8]) -> Result<T, drover_state::RecordError>,
    ) -> Result<Option<T>, HostError> {
        let value = self.overlay.record(key, decode);
        self.absorb(value)
    }

    fn write_record(&mut self, key: Vec<u8>, value: Option<Vec<u8>>) {
        self.overlay.put(key, value);
    }

    fn emit_event(&mut self, event: Event) {
        self.events.push(event);
    }

    fn token_credited(&mut self, token: &Address, from: Option<&Address>, to: &Address, amount: u128) {
        if amount > 0 {
            self.credits.push(Credit { to: *to, from: from.copied(), asset: Asset::Token(*token), amount });
        }
    }

    fn balance_of(&mut self, address: &Address) -> Result<u128, HostError> {
        Host::balance(self, address)
    }

    fn burn(&mut self, address: &Address, amount: u128) -> Result<(), HostError> {
        self.debit(address, amount)
    }

    fn move_value(&mut self, from: &Address, to: &Address, amount: u128) -> Result<(), HostError> {
        ActorHost::move_value(self, from, to, amount)
    }

    fn env(&self) -> &BlockEnv {
        &self.env
    }

    fn params(&self) -> ChainParams {
        self.params
    }

    fn basefees(&self) -> Basefees {
        self.basefees
    }

    fn tx_hash(&self) -> Option<H256> {
        self.tx_hash
    }

    fn compile(&mut self, code: &[u8]) -> Result<H256, HostError> {
        self.compile_code(code).map(|module| module.code_hash()).map_err(|e| {
            let e = e.to_exec_error();
            HostError::new(e.code, e.message)
        })
    }

    fn is_actor(&mut self, address: &Address) -> Result<bool, HostError> {
        let record = actor_record(self.overlay, address);
        Ok(self.absorb(record)?.is_some())
    }

    fn enqueue(&mut self, message: OutgoingMessage, basefees: Basefees) -> Result<(), HostError> {
        self.queue_message(message, basefees)
    }

    fn save(&self) -> Saved {
        ActorHost::save(self)
    }

    fn restore(&mut self, saved: Saved) {
        ActorHost::restore(self, saved);
    }
}

impl<S: StateRead> Host for ActorHost<'_, '_, S> {
    fn storage_get(&mut self, actor: &Address, key: &[u8]) -> Result<Option<Vec<u8>>, HostError> {
        let value = self.overlay.get(&keys::storage_key(actor, key));
        let value = self.absorb(value)?;
        self.trace(|| TraceStep::StorageGet { key: key.to_vec(), value: value.as_deref().map(TracedValue::of) });
        Ok(value)
    }

    fn storage_set(&mut self, actor: &Address, user_key: &[u8], value: &[u8]) -> Result<(), HostError> {
        let limit = self.params.max_storage_value_bytes;
        if value.len() as u64 > limit {
            return Err(HostError::new(
                ExecCode::HostCallArgument,
                format!("storage value of {} bytes, above the limit of {limit} (max_storage_value_bytes)", value.len()),
            ));
        }
        let key = keys::storage_key(actor, user_key);
        let present = self.overlay.get(&key);
        if self.absorb(present)?.is_none() {
            self.count_storage_entries(actor, true)?;
        }
        self.overlay.put(key, Some(value.to_vec()));
        self.trace(|| TraceStep::StorageSet { key: user_key.to_vec(), value: TracedValue::of(value) });
        Ok(())
    }

    fn storage_remove(&mut self, actor: &Address, user_key: &[u8]) -> Result<bool, HostError> {
        let key = keys::storage_key(actor, user_key);
        let present = self.overlay.get(&key);
        let present = self.absorb(present)?.is_some();
        if present {
            self.overlay.put(key, None);
            self.count_storage_entries(actor, false)?;
        }
        self.trace(|| TraceStep::StorageRemove { key: user_key.to_vec(), present });
        Ok(present)
    }

    fn storage_next(&mut self, actor: &Address, after: Option<&[u8]>) -> Result<Option<StorageEntry>, HostError> {
        let entry = self.next_storage_entry(actor, after)?;
        self.trace(|| TraceStep::StorageNext {
            after: after.map(<[u8]>::to_vec),
            key: entry.as_ref().map(|(key, _)| key.clone()),
            value: entry.as_ref().map(|(_, value)| TracedValue::of(value)),
        });
        Ok(entry)
    }

    fn emit(&mut self, actor: &Address, topic: &[u8], data: &[u8]) -> Result<(), HostError> {
        // Receipts carry topics as text.
        let topic = String::from_utf8(topic.to_vec())
            .map_err(|_| HostError::new(ExecCode::HostCallArgument, "event topic is not UTF-8"))?;
        self.trace(|| TraceStep::Event { topic: topic.clone(), data: TracedValue::of(data) });
        self.events.push(Event { address: *actor, topic, data: data.to_vec() });
        Ok(())
    }

    fn balance(&mut self, address: &Address) -> Result<u128, HostError> {
        let account = self.overlay.account(*address);
        Ok(self.absorb(account)?.balance)
    }

    fn account_exists(&mut self, address: &Address) -> Result<bool, HostError> {
        let account = self.overlay.account(*address);
        Ok(!self.absorb(account)?.is_empty())
    }

    fn transfer(&mut self, from: &Address, to: &Address, amount: u128) -> Result<(), HostError> {
        self.move_value(from, to, amount)?;
        self.trace(|| TraceStep::Transfer { to: *to, amount });
        Ok(())
    }

    fn send(&mut self, message: OutgoingMessage) -> Result<(), HostError> {
        self.attachable(message.cycles_limit)?;
        // Taken before the message moves, and only when tracing: blocks run untraced.
        let step = self.tracer.is_some().then(|| TraceStep::Send {
            to: message.to,
            handler: message.handler.clone(),
            payload_len: message.payload.len() as u64,
            value: message.value,
            cycles: message.cycles_limit,
        });
        self.queue_message(message, self.basefees)?;
        if let Some(step) = step {
            self.trace(|| step);
        }
        Ok(())
    }

    fn call(&mut self, request: CallRequest) -> Result<Outcome, HostError> {
        self.traced(
            request,
            |tracer, request| tracer.enter(request.context.self_address, &request.handler, None, request.context.value),
            Self::run_call,
        )
    }

    fn library_call(&mut self, request: LibraryRequest) -> Result<Outcome, HostError> {
        self.traced(
            request,
            |tracer, request| tracer.enter(request.publisher, &request.call.handler, Some(&request.name), 0),
            Self::run_library_call,
        )
    }

    fn timer_schedule(&mut self, timer: TimerRequest) -> Result<u64, HostError> {
        let step = self.tracer.is_some().then(|| TraceStep::TimerSchedule {
            height: timer.height,
            handler: timer.handler.clone(),
            cycles: timer.cycles_limit,
        });
        let id = self.schedule_timer(timer)?;
        if let Some(step) = step {
            self.trace(|| step);
        }
        Ok(id)
    }

    fn timer_cancel(&mut self, owner: &Address, id: u64) -> Result<bool, HostError> {
        let cancelled = self.cancel_timer(owner, id)?;
        self.trace(|| TraceStep::TimerCancel { id, cancelled });
        Ok(cancelled)
    }
}

/// The host calls behind [`Host`]'s, untraced.
impl<S: StateRead> ActorHost<'_, '_, S> {
    fn next_storage_entry(&mut self, actor: &Address, after: Option<&[u8]>) -> Result<Option<StorageEntry>, HostError> {
        let range = keys::storage_range(actor);
        let mut cursor = after.map(|after| keys::storage_key(actor, after));
        loop {
            let entry = self.overlay.next_entry(&range, cursor.as_deref());
            let Some((key, value)) = self.absorb(entry)? else {
                return Ok(None);
            };
            match keys::storage_entry(&key) {
                Some((owner, user_key)) if owner == *actor => return Ok(Some((user_key.to_vec(), value))),
                // Another actor whose spread collides (a 2^56 search to arrange on purpose).
                _ => cursor = Some(key),
            }
        }
    }

    fn run_call(&mut self, request: CallRequest) -> Result<Outcome, HostError> {
        let callee = request.context.self_address;
        if let Some(outcome) = crate::system_actors::call(self, &request) {
            return Ok(outcome);
        }
        let record = actor_record(self.overlay, &callee);
        let record = self.absorb(record)?.ok_or_else(|| no_actor(&callee))?;
        let entitlements = self.entitlements(&callee, &record)?;
        let saved = self.save();
        let prepared = self
            .move_value(&request.context.caller, &callee, request.context.value)
            .and_then(|()| self.module(&callee, &record));
        let module = match prepared {
            Ok(module) => module,
            Err(error) => {
                self.restore(saved);
                return Err(error);
            }
        };
        let invocation = Invocation {
            handler: &request.handler,
            payload: &request.payload,
            context: request.context,
            entitlements,
            cycles_limit: request.cycles_limit,
            cells_limit: request.cells_limit,
            read_only: request.read_only,
            load_cycles: self.load_cycles(&module),
        };
        let vm = self.vm;
        let outcome = vm.invoke(&module, &invocation, self);
        if !outcome.is_success() {
            self.restore(saved);
        }
        Ok(outcome)
    }

    fn run_library_call(&mut self, request: LibraryRequest) -> Result<Outcome, HostError> {
        use drover_state::library::{LibraryRecord, LibraryVersion, code_key, library_key, version_key};
        use drover_types::library::LIBRARY_ADDRESS;
        let LibraryRequest { publisher, name, version, call, entitlements } = request;
        let unknown = |what: String| Outcome {
            status: Status::Trap(drover_types::ExecError::new(ExecCode::UnknownLibrary, what)),
            result: Vec::new(),
            cycles_used: 0,
            cells_used: 0,
        };
        let record = self.read_storage(&LIBRARY_ADDRESS, &library_key(&publisher, &name), LibraryRecord::decode)?;
        let Some(record) = record.filter(|r| !r.removed) else {
            return Ok(unknown(format!("{publisher} has no library {name:?} (or removed it)")));
        };
        let chosen = match version {
            0 => Some(record.latest),
            v if record.runs(v) => {
                self.read_storage(&LIBRARY_ADDRESS, &version_key(&publisher, &name, v), LibraryVersion::decode)?
            }
            _ => None,
        };
        let Some(chosen) = chosen else {
            return Ok(unknown(format!(
                "library {name:?} of {publisher} runs versions {} to {}; not {version}",
                record.live_from, record.version
            )));
        };
        let own = validate_manifest(&chosen.manifest).map_err(|e: VmError| {
            self.fail_corrupt(corrupt(drover_state::library::state_key(&library_key(&publisher, &name)), e.to_string()))
        })?;
        let key = drover_state::keys::storage_key(&LIBRARY_ADDRESS, &code_key(&chosen.code_hash));
        let module = self.module_at(&chosen.code_hash, key)?;
        let saved = self.save();
        let invocation = Invocation {
            handler: &call.handler,
            payload: &call.payload,
            context: call.context,
            entitlements: entitlements.intersection(own),
            cycles_limit: call.cycles_limit,
            cells_limit: call.cells_limit,
            read_only: call.read_only,
            load_cycles: self.load_cycles(&module),
        };
        let vm = self.vm;
        let outcome = vm.invoke(&module, &invocation, self);
        if !outcome.is_success() {
            self.restore(saved);
        }
        Ok(outcome)
    }

    fn schedule_timer(&mut self, timer: TimerRequest) -> Result<u64, HostError> {
        self.attachable(timer.cycles_limit)?;
        let pending_key = keys::timer_pending_key(&timer.owner);
        let pending = self.count(&pending_key)?;
        let limit = self.params.max_pending_timers_per_actor;
        if pending >= limit {
            return Err(HostError::new(
                ExecCode::TooManyTimers,
                format!("{pending} timers pending, the limit is {limit} (max_pending_timers_per_actor)"),
            ));
        }
        let slot_key = keys::timer_slot_key(timer.height);
        let seq = self.count(&slot_key)?;
        let id = u32::try_from(seq).ok().and_then(|seq| timer_id(timer.height, seq).map(|id| (seq, id)));
        let Some((seq, id)) = id else {
            return Err(HostError::new(
                ExecCode::TimerHeight,
                format!("height {} cannot take another timer (heights fit 32 bits, 2^32 timers each)", timer.height),
            ));
        };
        let record = TimerRecord {
            owner: timer.owner,
            handler: timer.handler,
            payload: timer.payload,
            cycles_limit: timer.cycles_limit,
        };
        self.overlay.put(keys::timer_key(timer.height, seq), Some(record.encode()));
        self.set_count(slot_key, seq as u64 + 1);
        // The owner's listing counts its pending timers: adding the timer raises the count.
        crate::listing::add(self, &keys::timers_listing(&timer.owner), &id.to_be_bytes())?;
        Ok(id)
    }

    fn cancel_timer(&mut self, owner: &Address, id: u64) -> Result<bool, HostError> {
        let (height, seq) = timer_id_parts(id);
        // A fired timer's record is gone, so it cannot be cancelled twice or after firing.
        let timer = self.overlay.record(&keys::timer_key(height, seq), TimerRecord::decode);
        match self.absorb(timer)? {
            Some(timer) if timer.owner == *owner => {
                self.forget_timer(height, seq, owner)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// A top-level invocation the host refused (no actor, value not covered, state unreadable): a
/// trap that used nothing.
fn refused_as_trap(error: HostError) -> Outcome {
    Outcome { status: Status::Trap(error.into()), result: Vec::new(), cycles_used: 0, cells_used: 0 }
}

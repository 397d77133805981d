//! The worst cases of the cost audit: for every host function and every handler of every native
//! system actor, a state built to make it as expensive as it gets (largest keys and values, most
//! deletions, deepest nesting, longest lists) and the block that runs it there.
//!
//! The cases only build states and blocks through a [`Driver`], so the same cases serve the
//! audit (`audit/mod.rs`, whose driver counts the work each measured block does and holds it
//! against what it paid) and the benchmark (`benches/costs.rs`, which includes this file and
//! times each measured block in a release build). They use the protocol's types only.
//!
//! Host functions run through the audit actor (`actors/audit.wat`), `n` times in one call so
//! that the transaction's own cost fades. System-actor calls run as transactions; a call from an
//! actor pays `CYCLES_CALL` (10,000) where a transaction pays 21,000, less than a factor of two
//! apart, inside the audit's margins.

use drover_types::system_call::SystemCall;
use drover_types::{
    Address, TxStatus, VerifiedTransaction,
    chain_params::ChainParams,
    payload::{Deploy, Manifest, Message, actor_address},
};

/// An account rich at every case's genesis.
pub(crate) const ALICE: Address = Address([0xa1; 20]);
/// The other account rich at every case's genesis.
pub(crate) const BOB: Address = Address([0xb0; 20]);

/// What a measured block must at least do for its case to be the worst case it claims to be
/// (the audit checks it; the benchmark does not look).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Least {
    /// State lookups.
    pub(crate) lookups: u64,
    /// Bytes the lookups answered.
    pub(crate) read_bytes: u64,
    /// Bytes the state (and the events) grew by.
    pub(crate) growth_bytes: i64,
}

impl Default for Least {
    /// Nothing: any lookups, bytes and growth (a shrinking state too).
    fn default() -> Self {
        Least { lookups: 0, read_bytes: 0, growth_bytes: i64::MIN }
    }
}

/// Block targets of the cases' chains: a measured block may hold many transactions at the
/// limits a transaction with a block to itself has (the audit holds work against what each
/// paid, not against the block's limits).
const ROOMY_TARGET_CYCLES: u64 = 1_000_000_000;
const ROOMY_TARGET_CELLS: u64 = 50_000_000;

/// `params` with targets that hold any case's block.
pub(crate) fn roomy(params: ChainParams) -> ChainParams {
    ChainParams { target_cycles: ROOMY_TARGET_CYCLES, target_cells: ROOMY_TARGET_CELLS, ..params }
}

/// Builds the cases' chains and runs their blocks.
pub(crate) trait Driver: Sized {
    /// A chain whose genesis makes `ALICE` and `BOB` rich, with `params` in force.
    fn start(params: ChainParams) -> Self;

    /// The height of the next block.
    fn height(&self) -> u64;

    /// A transaction from `sender` with its next nonce and the test limits.
    fn tx(&mut self, sender: Address, to: Option<Address>, payload: Vec<u8>, value: u128) -> VerifiedTransaction;

    /// Runs `txs` as the next block of a case's setup; each must succeed.
    fn setup(&mut self, txs: &[VerifiedTransaction]);

    /// Runs `txs` as the next block, the one measured: `ops` operations of `what`, each
    /// transaction ending with `status`, doing at least `least`.
    fn measure(&mut self, what: &str, txs: &[VerifiedTransaction], ops: u64, status: TxStatus, least: Least);

    /// Executes empty blocks until the next block is at `height`.
    fn advance_to(&mut self, height: u64) {
        while self.height() < height {
            self.setup(&[]);
        }
    }

    /// A transaction to the system actor `to` carrying `message`.
    fn message(&mut self, sender: Address, to: Address, message: Message, value: u128) -> VerifiedTransaction {
        self.tx(sender, Some(to), message.encode(), value)
    }

    /// Deploys `code` from `ALICE` with `manifest` and `value`; answers its address.
    fn deploy(&mut self, code: Vec<u8>, manifest: &[&str], value: u128) -> Address {
        let address = actor_address(&ALICE, b"", &code);
        let deploy = Deploy {
            code,
            manifest: Manifest::new(manifest.iter().map(|s| s.to_string()).collect()),
            salt: Vec::new(),
            init: None,
        };
        let tx = self.tx(ALICE, None, deploy.encode(), value);
        self.setup(&[tx]);
        address
    }

    /// Measures `txs` as successful calls, one operation each.
    fn measure_calls(&mut self, what: &str, txs: &[VerifiedTransaction], least: Least) {
        self.measure(what, txs, txs.len() as u64, TxStatus::Success, least);
    }
}

/// The binary of `actors/{name}.wat`.
fn example(name: &str) -> Vec<u8> {
    let path = format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"));
    wat::parse_file(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A module of about `bytes` bytes (a data segment fills it) whose `noop` answers a 64 KiB
/// result: the largest code a call loads and the largest return data it leaves.
fn big_callee(bytes: usize) -> Vec<u8> {
    let text = format!(
        r#"(module
  (import "drover" "set_result" (func $set_result (param i32 i32)))
  (memory (export "memory") 5)
  (data (i32.const 0) "{}")
  (func (export "noop") (call $set_result (i32.const 0) (i32.const 65536))))"#,
        "a".repeat(bytes - 200)
    );
    wat::parse_str(text).expect("valid wat")
}

/// The live limit on code size: the largest module a deploy or a publish may bring.
fn max_code_bytes() -> usize {
    ChainParams::default().max_code_bytes as usize
}

/// An address nobody has used, the `i`-th of a family `tag`.
fn fresh(tag: u8, i: u8) -> Address {
    let mut bytes = [tag; 20];
    bytes[19] = i;
    Address(bytes)
}

pub(crate) mod host {
    //! One case per host function (or group of them), through the audit actor.

    use super::*;
    use drover_types::{
        job::{JobCall, JobSpec, Verification, VerificationMode},
        library::{LIBRARY_ADDRESS, LibraryCall},
    };
    use drover_vm::limits::{MAX_CALL_DEPTH, MAX_EVENT_DATA_BYTES, MAX_PAYLOAD_BYTES, MAX_STORAGE_KEY_BYTES};

    /// Every entitlement: the audit actor exercises all the host functions.
    const MANIFEST: &[&str] =
        &["storage.kv", "events.emit", "econ.transfer", "mailbox.send", "actor.call", "job.submit", "timer.schedule"];

    /// What the audit actor holds: value to transfer, to escrow and to buy deliveries with.
    const ACTOR_BALANCE: u128 = 1_000_000_000_000;

    const KEY: u32 = MAX_STORAGE_KEY_BYTES as u32;

    fn value_bytes() -> u32 {
        ChainParams::default().max_storage_value_bytes as u32
    }

    /// Input of the audit actor: little-endian u32 words.
    fn words(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|word| word.to_le_bytes()).collect()
    }

    /// The input of `call` and `return_data`: n, a word, 12 bytes, the target.
    fn targeted(n: u32, word: u32, target: Address) -> Vec<u8> {
        [words(&[n, word, 0, 0, 0]), target.0.to_vec()].concat()
    }

    /// A chain with the audit actor deployed and funded.
    fn audit_actor<D: Driver>() -> (D, Address) {
        let mut d = D::start(ChainParams::default());
        let actor = d.deploy(example("audit"), MANIFEST, ACTOR_BALANCE);
        (d, actor)
    }

    fn call_tx<D: Driver>(d: &mut D, actor: Address, handler: &str, input: &[u8]) -> VerifiedTransaction {
        let message = Message { handler: handler.into(), payload: input.to_vec() };
        d.message(ALICE, actor, message, 0)
    }

    /// Runs `handler` with `input` as setup.
    fn prepare<D: Driver>(d: &mut D, actor: Address, handler: &str, input: &[u8]) {
        let tx = call_tx(d, actor, handler, input);
        d.setup(&[tx]);
    }

    /// Measures one call of `handler` doing `ops` operations.
    fn run<D: Driver>(d: &mut D, actor: Address, what: &str, handler: &str, input: &[u8], ops: u64, least: Least) {
        let tx = call_tx(d, actor, handler, input);
        d.measure(what, &[tx], ops, TxStatus::Success, least);
    }

    /// `input_len` and the context functions: no state, a few bytes each.
    pub(crate) fn context<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        run(&mut d, actor, "context (8 functions)", "context", &words(&[20_000]), 20_000, Least::default());
    }

    pub(crate) fn input_read<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let mut input = words(&[40]);
        input.resize(MAX_PAYLOAD_BYTES, 0);
        run(&mut d, actor, "input_read (128 KiB)", "input_read", &input, 40, Least::default());
    }

    pub(crate) fn set_result<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        run(&mut d, actor, "set_result (64 KiB)", "set_result", &words(&[100]), 100, Least::default());
    }

    pub(crate) fn revert<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let tx = call_tx(&mut d, actor, "revert", &words(&[1]));
        d.measure("revert (1 KiB)", &[tx], 1, TxStatus::Reverted, Least::default());
    }

    pub(crate) fn storage_get<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        // The largest values under the longest keys, five per transaction (the cells limit).
        for start in (0..20).step_by(5) {
            prepare(&mut d, actor, "storage_set", &words(&[5, start, KEY, value_bytes()]));
        }
        let least = Least { read_bytes: 20 * u64::from(value_bytes()), ..Least::default() };
        run(&mut d, actor, "storage_get (64 KiB values)", "storage_get", &words(&[20, 0, KEY]), 20, least);
        // Keys nobody wrote: a lookup each, nothing to copy.
        let least = Least { lookups: 5_000, ..Least::default() };
        run(&mut d, actor, "storage_get (absent keys)", "storage_get", &words(&[5_000, 1_000, KEY]), 5_000, least);
    }

    pub(crate) fn storage_set<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let input = words(&[5, 0, KEY, value_bytes()]);
        run(&mut d, actor, "storage_set (64 KiB values)", "storage_set", &input, 5, Least::default());
        // The most entries per cell: 1-byte keys and empty values, each an entry of its own.
        let least = Least { growth_bytes: 256 * 37, ..Least::default() };
        run(&mut d, actor, "storage_set (1-byte keys)", "storage_set", &words(&[256, 0, 1, 0]), 256, least);
        let input = words(&[1_400, 1_000, KEY, 0]);
        run(&mut d, actor, "storage_set (256-byte keys)", "storage_set", &input, 1_400, Least::default());
    }

    pub(crate) fn storage_remove<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        prepare(&mut d, actor, "storage_set", &words(&[1_500, 0, KEY, 8]));
        run(&mut d, actor, "storage_remove", "storage_remove", &words(&[1_500, 0, KEY]), 1_500, Least::default());
    }

    pub(crate) fn storage_next<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        prepare(&mut d, actor, "storage_set", &words(&[1_500, 0, KEY, 8]));
        // Delete every entry, then walk from the start, each walk among the deletions (the
        // removals are paid and measured too).
        let input = words(&[1_500, 0, KEY, 2_500, 0, 0]);
        run(&mut d, actor, "storage_next (after 1,500 deletions)", "storage_next", &input, 2_500, Least::default());
        // A prefix no entry has: every call steps over all of them, each step paid.
        prepare(&mut d, actor, "storage_set", &words(&[200, 0, KEY, 8]));
        let input = words(&[0, 0, KEY, 20, KEY, 1]);
        run(&mut d, actor, "storage_next (prefix matching none of 200)", "storage_next", &input, 20, Least::default());
        // Following the cursor through entries with the largest values.
        for start in (1_000..1_015).step_by(5) {
            prepare(&mut d, actor, "storage_set", &words(&[5, start, KEY, value_bytes()]));
        }
        let input = words(&[0, 0, KEY, 400, 0, 1]);
        run(&mut d, actor, "storage_next (following, 64 KiB values)", "storage_next", &input, 400, Least::default());
    }

    pub(crate) fn emit<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let input = words(&[20, MAX_EVENT_DATA_BYTES as u32]);
        run(&mut d, actor, "emit (16 KiB)", "emit", &input, 20, Least::default());
    }

    pub(crate) fn balance_of<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let least = Least { lookups: 10_000, ..Least::default() };
        run(&mut d, actor, "balance_of (absent accounts)", "balance_of", &words(&[10_000, 0]), 10_000, least);
    }

    pub(crate) fn transfer<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        // Every recipient new: each transfer creates an account.
        let least = Least { growth_bytes: 500 * 39, ..Least::default() };
        run(&mut d, actor, "transfer (new accounts)", "transfer", &words(&[500, 0]), 500, least);
        // The same recipients again: balances change, nothing is created.
        run(&mut d, actor, "transfer (existing accounts)", "transfer", &words(&[500, 0]), 500, Least::default());
    }

    pub(crate) fn send<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        // The largest payloads, three per transaction (the cells limit).
        let input = words(&[3, MAX_PAYLOAD_BYTES as u32]);
        run(&mut d, actor, "send (128 KiB payloads)", "send", &input, 3, Least::default());
    }

    pub(crate) fn call<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let callee = d.deploy(big_callee(max_code_bytes()), &[], 0);
        // Sixteen levels of calls, then the largest module, read and compiled cold, called
        // again and again.
        let input = targeted(5, MAX_CALL_DEPTH - 1, callee);
        run(&mut d, actor, "call (depth 16, 256 KiB callee)", "call", &input, 5 + 15, Least::default());
    }

    /// `return_data_len` and `return_data_read`.
    pub(crate) fn return_data<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let callee = d.deploy(big_callee(4_096), &[], 0);
        let input = targeted(100, 0, callee);
        run(&mut d, actor, "return_data_len + _read (64 KiB)", "return_data", &input, 100, Least::default());
    }

    pub(crate) fn library_call<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let publish = LibraryCall::Publish {
            name: "big".into(),
            code: big_callee(max_code_bytes()),
            manifest: Manifest::new(Vec::new()),
        };
        // The code is paid twice over in cells (the payload, then the record): past the test
        // transactions' usual limit.
        let mut tx = d.message(ALICE, LIBRARY_ADDRESS, publish.message(), 0);
        tx.tx.cells_limit = 2 * max_code_bytes() as u64 + 10_000;
        d.setup(&[tx]);
        let input = [words(&[5, 0, 3, 0, 0]), ALICE.0.to_vec(), b"big".to_vec()].concat();
        run(&mut d, actor, "library_call (256 KiB library)", "library_call", &input, 5, Least::default());
    }

    pub(crate) fn job_submit<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        super::runners::register_runners(&mut d, "audit", 16);
        let params = ChainParams::default();
        let spec = JobSpec {
            job_type: "audit".into(),
            input: vec![7; params.max_job_input_bytes as usize],
            runners: params.max_runners_per_job,
            verification: Verification { mode: VerificationMode::Unanimous, threshold: params.max_runners_per_job },
            max_price: 100,
            timeout_blocks: 100,
            callback: None,
        };
        let escrow = spec.runner_escrow().expect("a small escrow");
        let args = JobCall::Submit(spec).encode_args();
        let input = [words(&[3, args.len() as u32]), escrow.to_le_bytes().to_vec(), args].concat();
        run(&mut d, actor, "job_submit (16 runners, 64 KiB input)", "job_submit", &input, 3, Least::default());
    }

    pub(crate) fn timer_schedule<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let at = (d.height() + 10) as u32;
        run(&mut d, actor, "timer_schedule", "timer_schedule", &words(&[500, at, 0]), 500, Least::default());
        let input = words(&[3, at, MAX_PAYLOAD_BYTES as u32]);
        run(&mut d, actor, "timer_schedule (128 KiB payloads)", "timer_schedule", &input, 3, Least::default());
    }

    pub(crate) fn timer_cancel<D: Driver>() {
        let (mut d, actor) = audit_actor::<D>();
        let at = (d.height() + 10) as u32;
        prepare(&mut d, actor, "timer_schedule", &words(&[500, at, 256]));
        run(&mut d, actor, "timer_cancel", "timer_cancel", &words(&[500, at]), 500, Least::default());
    }
}

pub(crate) mod tokens {
    //! The tokens actor: every call a constant number of records; new holders and spenders are
    //! the worst.

    use super::*;
    use drover_types::token::{
        MAX_DECIMALS, MAX_NAME_BYTES, MAX_SYMBOL_BYTES, NewToken, TOKENS_ADDRESS, TokenCall, token_id,
    };

    fn symbol() -> String {
        "S".repeat(MAX_SYMBOL_BYTES)
    }

    fn token() -> Address {
        token_id(&ALICE, &symbol())
    }

    fn create_call() -> TokenCall {
        TokenCall::Create(NewToken {
            name: "N".repeat(MAX_NAME_BYTES),
            symbol: symbol(),
            decimals: MAX_DECIMALS.into(),
            initial_supply: 1 << 100,
            max_supply: Some(u128::MAX),
            mintable: true,
        })
    }

    fn call<D: Driver>(d: &mut D, sender: Address, call: TokenCall) -> VerifiedTransaction {
        d.message(sender, TOKENS_ADDRESS, call.message(), 0)
    }

    /// A chain where `ALICE` created the token and approved `BOB`.
    fn with_token<D: Driver>() -> D {
        let mut d = D::start(ChainParams::default());
        let create = call(&mut d, ALICE, create_call());
        let approve = call(&mut d, ALICE, TokenCall::Approve { token: token(), spender: BOB, amount: 1 << 90 });
        d.setup(&[create, approve]);
        d
    }

    /// Measures 20 calls from `sender` made by `make(i)` in one block.
    fn twenty<D: Driver>(d: &mut D, what: &str, sender: Address, make: impl Fn(u8) -> TokenCall) {
        let txs: Vec<_> = (0..20).map(|i| call(d, sender, make(i))).collect();
        d.measure_calls(what, &txs, Least::default());
    }

    pub(crate) fn create<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        let tx = call(&mut d, ALICE, create_call());
        d.measure_calls("create", &[tx], Least::default());
    }

    pub(crate) fn transfer<D: Driver>() {
        let mut d = with_token::<D>();
        twenty(&mut d, "transfer (new holders)", ALICE, |i| TokenCall::Transfer {
            token: token(),
            to: fresh(0x51, i),
            amount: 1,
        });
    }

    pub(crate) fn approve<D: Driver>() {
        let mut d = with_token::<D>();
        twenty(&mut d, "approve (new spenders)", ALICE, |i| TokenCall::Approve {
            token: token(),
            spender: fresh(0x52, i),
            amount: 1,
        });
    }

    pub(crate) fn transfer_from<D: Driver>() {
        let mut d = with_token::<D>();
        twenty(&mut d, "transfer_from (new holders)", BOB, |i| TokenCall::TransferFrom {
            token: token(),
            from: ALICE,
            to: fresh(0x53, i),
            amount: 1,
        });
    }

    pub(crate) fn mint<D: Driver>() {
        let mut d = with_token::<D>();
        twenty(&mut d, "mint (new holders)", ALICE, |i| TokenCall::Mint {
            token: token(),
            to: fresh(0x54, i),
            amount: 1,
        });
    }

    pub(crate) fn burn<D: Driver>() {
        let mut d = with_token::<D>();
        twenty(&mut d, "burn", ALICE, |_| TokenCall::Burn { token: token(), amount: 1 });
    }

    pub(crate) fn freeze<D: Driver>() {
        let mut d = with_token::<D>();
        twenty(&mut d, "freeze", ALICE, |i| TokenCall::Freeze { token: token(), account: fresh(0x55, i) });
    }

    pub(crate) fn unfreeze<D: Driver>() {
        let mut d = with_token::<D>();
        let frozen: Vec<_> = (0..20)
            .map(|i| call(&mut d, ALICE, TokenCall::Freeze { token: token(), account: fresh(0x55, i) }))
            .collect();
        d.setup(&frozen);
        twenty(&mut d, "unfreeze", ALICE, |i| TokenCall::Unfreeze { token: token(), account: fresh(0x55, i) });
    }

    pub(crate) fn set_owner<D: Driver>() {
        let mut d = with_token::<D>();
        let tx = call(&mut d, ALICE, TokenCall::SetOwner { token: token(), owner: fresh(0x56, 0) });
        d.measure_calls("set_owner", &[tx], Least::default());
    }

    pub(crate) fn balance<D: Driver>() {
        let mut d = with_token::<D>();
        twenty(&mut d, "balance", BOB, |i| TokenCall::Balance { token: token(), account: fresh(0x57, i) });
    }
}

pub(crate) mod runners {
    //! The runner registry: the most job types, each an index walk of the longest kind.

    use super::*;
    use drover_types::{
        job::{JOB_DISPATCHER_ADDRESS, JobCall, JobSpec, Verification, VerificationMode},
        runner::{
            Capabilities, MAX_JOB_TYPE_BYTES, MAX_JOB_TYPES, MAX_PENDING_UNBONDINGS, MIN_RUNNER_STAKE,
            RUNNER_REGISTRY_ADDRESS, RateCard, RegistryCall,
        },
    };

    /// The `i`-th runner of the cases.
    pub(crate) fn runner(i: u8) -> Address {
        fresh(0x30, i)
    }

    /// The most job types, with the longest names, `job_type` first: every index walk of a
    /// runner that offers them is as long as it gets, sixteen times over.
    fn job_types(job_type: &str) -> Vec<String> {
        let width = MAX_JOB_TYPE_BYTES - job_type.len();
        std::iter::once(job_type.to_owned())
            .chain((1..MAX_JOB_TYPES).map(|i| format!("{job_type}{i:0>width$}")))
            .collect()
    }

    fn register_call(job_type: &str) -> RegistryCall {
        RegistryCall::Register {
            rate_card: RateCard { price_per_job: 100 },
            capabilities: Capabilities { job_types: job_types(job_type), max_concurrent_jobs: 1_024 },
        }
    }

    fn call<D: Driver>(d: &mut D, sender: Address, call: RegistryCall, value: u128) -> VerifiedTransaction {
        d.message(sender, RUNNER_REGISTRY_ADDRESS, call.message(), value)
    }

    /// Funds and registers `count` runners offering `job_type` (and the most other job types);
    /// answers their addresses.
    pub(crate) fn register_runners<D: Driver>(d: &mut D, job_type: &str, count: u8) -> Vec<Address> {
        let runners: Vec<Address> = (0..count).map(runner).collect();
        let funding: Vec<_> =
            runners.iter().map(|r| d.tx(ALICE, Some(*r), Vec::new(), 100 * MIN_RUNNER_STAKE)).collect();
        d.setup(&funding);
        let registrations: Vec<_> =
            runners.iter().map(|r| call(d, *r, register_call(job_type), MIN_RUNNER_STAKE)).collect();
        d.setup(&registrations);
        runners
    }

    pub(crate) fn register<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        // New job types: every walk starts at slot 0, the longest.
        let tx = call(&mut d, ALICE, register_call("first"), MIN_RUNNER_STAKE);
        d.measure_calls("register (16 new job types)", &[tx], Least { lookups: 16 * 17, ..Least::default() });
        let tx = call(&mut d, BOB, register_call("first"), MIN_RUNNER_STAKE);
        d.measure_calls("register (16 job types)", &[tx], Least::default());
    }

    pub(crate) fn update<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        register_runners(&mut d, "old", 2);
        // Leave sixteen indexes (not as their last runner) and join sixteen new ones.
        let update = RegistryCall::Update {
            rate_card: None,
            capabilities: Some(Capabilities { job_types: job_types("new"), max_concurrent_jobs: 1_024 }),
            paused: None,
        };
        let tx = call(&mut d, runner(0), update, 1);
        d.measure_calls("update (16 job types for 16)", &[tx], Least::default());
    }

    pub(crate) fn heartbeat<D: Driver>() {
        let gap = 5;
        let mut d = D::start(ChainParams { heartbeat_gap_blocks: gap, ..ChainParams::default() });
        let runner = register_runners(&mut d, "beat", 1)[0];
        // Silent past the gap, it is drawn for a job of each of its job types and found
        // unhealthy: out of all sixteen indexes. Its heartbeat puts it back in each.
        let silent = d.height() + gap + 1;
        d.advance_to(silent);
        let jobs: Vec<_> = job_types("beat")
            .into_iter()
            .map(|job_type| {
                let spec = JobSpec {
                    job_type,
                    input: Vec::new(),
                    runners: 1,
                    verification: Verification { mode: VerificationMode::None, threshold: 1 },
                    max_price: 100,
                    timeout_blocks: 100,
                    callback: None,
                };
                d.message(ALICE, JOB_DISPATCHER_ADDRESS, JobCall::Submit(spec).message(), 100)
            })
            .collect();
        d.setup(&jobs);
        let tx = call(&mut d, runner, RegistryCall::Heartbeat, 0);
        d.measure_calls("heartbeat (back into 16 indexes)", &[tx], Least { lookups: 16 * 17, ..Least::default() });
    }

    pub(crate) fn deregister<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        register_runners(&mut d, "leave", 2);
        // The first leaves: the last takes its slot in the list and in sixteen indexes.
        let tx = call(&mut d, runner(0), RegistryCall::Deregister, 0);
        d.measure_calls("deregister (16 job types)", &[tx], Least::default());
    }

    pub(crate) fn delegate<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        register_runners(&mut d, "weigh", 1);
        let tx = call(&mut d, BOB, RegistryCall::Delegate { runner: runner(0) }, MIN_RUNNER_STAKE);
        d.measure_calls("delegate (16 job types)", &[tx], Least::default());
    }

    pub(crate) fn undelegate<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        register_runners(&mut d, "weigh", 1);
        let tx = call(&mut d, BOB, RegistryCall::Delegate { runner: runner(0) }, MIN_RUNNER_STAKE);
        d.setup(&[tx]);
        let tx = call(&mut d, BOB, RegistryCall::Undelegate { runner: runner(0), amount: 1 }, 0);
        d.measure_calls("undelegate (16 job types)", &[tx], Least::default());
    }

    pub(crate) fn withdraw<D: Driver>() {
        let mut d = D::start(ChainParams { unbonding_blocks: 1, ..ChainParams::default() });
        register_runners(&mut d, "paid", 1);
        let tx = call(&mut d, BOB, RegistryCall::Delegate { runner: runner(0) }, MIN_RUNNER_STAKE);
        d.setup(&[tx]);
        // The most unbondings a delegation may hold, all matured at once.
        let undelegations: Vec<_> = (0..MAX_PENDING_UNBONDINGS)
            .map(|_| call(&mut d, BOB, RegistryCall::Undelegate { runner: runner(0), amount: 1 }, 0))
            .collect();
        d.setup(&undelegations);
        let matured = d.height() + 1;
        d.advance_to(matured);
        let tx = call(&mut d, BOB, RegistryCall::Withdraw { runner: runner(0) }, 0);
        d.measure_calls("withdraw (16 unbondings)", &[tx], Least::default());
    }
}

pub(crate) mod jobs {
    //! The job dispatcher: the most runners, drawn from the longest index walks, the largest
    //! input and results.

    use super::*;
    use drover_types::job::{
        JOB_DISPATCHER_ADDRESS, JobCall, JobSpec, MAX_JOB_RESULT_BYTES, Verification, VerificationMode, job_id,
    };

    fn call<D: Driver>(d: &mut D, sender: Address, call: JobCall, value: u128) -> VerifiedTransaction {
        d.message(sender, JOB_DISPATCHER_ADDRESS, call.message(), value)
    }

    /// The largest job: the most runners, all to agree, the largest input.
    fn spec() -> JobSpec {
        let params = ChainParams::default();
        JobSpec {
            job_type: "audit".into(),
            input: vec![7; params.max_job_input_bytes as usize],
            runners: params.max_runners_per_job,
            verification: Verification { mode: VerificationMode::Unanimous, threshold: params.max_runners_per_job },
            max_price: 100,
            timeout_blocks: 100,
            callback: None,
        }
    }

    fn result() -> Vec<u8> {
        vec![1; MAX_JOB_RESULT_BYTES]
    }

    /// A chain where `ALICE`'s largest job went to its runners, of which `answered` (from the
    /// second on) answered with the largest result; answers its runners.
    fn assigned<D: Driver>(answered: usize) -> (D, Vec<Address>) {
        let mut d = D::start(ChainParams::default());
        let runners = super::runners::register_runners(&mut d, "audit", spec().runners as u8);
        let escrow = spec().runner_escrow().expect("a small escrow");
        let tx = call(&mut d, ALICE, JobCall::Submit(spec()), escrow);
        d.setup(&[tx]);
        let job = job_id(&ALICE, 0);
        let answers: Vec<_> = runners[1..=answered]
            .iter()
            .map(|runner| call(&mut d, *runner, JobCall::SubmitResult { job, result: result() }, 0))
            .collect();
        d.setup(&answers);
        (d, runners)
    }

    pub(crate) fn submit<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        super::runners::register_runners(&mut d, "audit", spec().runners as u8);
        let escrow = spec().runner_escrow().expect("a small escrow");
        let tx = call(&mut d, ALICE, JobCall::Submit(spec()), escrow);
        // Sixteen runner records and a descent of the index, at least.
        d.measure_calls("submit (16 runners, 64 KiB input)", &[tx], Least { lookups: 16 + 17, ..Least::default() });
    }

    pub(crate) fn submit_result<D: Driver>() {
        // The first result of the largest job: the job record, with its input, read and
        // rewritten for the least the call pays for reading results.
        let (mut d, runners) = assigned::<D>(0);
        let tx = call(&mut d, runners[0], JobCall::SubmitResult { job: job_id(&ALICE, 0), result: result() }, 0);
        d.measure_calls("submit_result (first of 16)", &[tx], Least::default());
        // The last: every stored result read and hashed, every runner paid.
        let (mut d, runners) = assigned::<D>(runners.len() - 1);
        let tx = call(&mut d, runners[0], JobCall::SubmitResult { job: job_id(&ALICE, 0), result: result() }, 0);
        let least = Least { read_bytes: 15 * MAX_JOB_RESULT_BYTES as u64, ..Least::default() };
        d.measure_calls("submit_result (last of 16, 16 KiB each)", &[tx], least);
    }

    pub(crate) fn cancel<D: Driver>() {
        let (mut d, runners) = assigned::<D>(spec().runners as usize - 1);
        assert_eq!(runners.len(), 16);
        let tx = call(&mut d, ALICE, JobCall::Cancel { job: job_id(&ALICE, 0) }, 0);
        d.measure_calls("cancel (15 of 16 answered)", &[tx], Least::default());
    }
}

pub(crate) mod governance {
    //! Governance: the largest proposal, its votes and its execution.

    use super::*;
    use drover_types::chain_params::PARAMS;
    use drover_types::governance::{GOVERNANCE_ADDRESS, GovernanceCall, MAX_CHANGES, MAX_DESCRIPTION_BYTES};

    fn params() -> ChainParams {
        ChainParams { min_quorum_weight: 1, voting_period_blocks: 10, timelock_blocks: 1, ..ChainParams::default() }
    }

    fn call<D: Driver>(d: &mut D, sender: Address, call: GovernanceCall, value: u128) -> VerifiedTransaction {
        d.message(sender, GOVERNANCE_ADDRESS, call.message(), value)
    }

    /// The most changes, of the parameters with the longest names (each to the value it has),
    /// and the longest description.
    fn largest_proposal() -> GovernanceCall {
        let mut specs: Vec<_> = PARAMS.iter().collect();
        specs.sort_by_key(|spec| std::cmp::Reverse(spec.name.len()));
        let current = params();
        let changes = specs
            .iter()
            .take(MAX_CHANGES)
            .map(|spec| (spec.name.to_owned(), current.get(spec.name).expect("a parameter")))
            .collect();
        GovernanceCall::Propose { changes, description: "d".repeat(MAX_DESCRIPTION_BYTES) }
    }

    /// A chain where both accounts locked weight and `ALICE` made the largest proposal.
    fn proposed<D: Driver>() -> D {
        let mut d = D::start(params());
        let locks = [call(&mut d, ALICE, GovernanceCall::Lock, 1_000), call(&mut d, BOB, GovernanceCall::Lock, 1_000)];
        d.setup(&locks);
        let tx = call(&mut d, ALICE, largest_proposal(), params().proposal_deposit);
        d.setup(&[tx]);
        d
    }

    pub(crate) fn lock<D: Driver>() {
        let mut d = D::start(params());
        let tx = call(&mut d, ALICE, GovernanceCall::Lock, 1_000);
        d.measure_calls("lock", &[tx], Least::default());
    }

    pub(crate) fn unlock<D: Driver>() {
        let mut d = D::start(params());
        let tx = call(&mut d, ALICE, GovernanceCall::Lock, 1_000);
        d.setup(&[tx]);
        let tx = call(&mut d, ALICE, GovernanceCall::Unlock { amount: 1_000 }, 0);
        d.measure_calls("unlock", &[tx], Least::default());
    }

    pub(crate) fn propose<D: Driver>() {
        let mut d = D::start(params());
        let tx = call(&mut d, ALICE, largest_proposal(), params().proposal_deposit);
        d.measure_calls("propose (16 changes, 1 KiB)", &[tx], Least::default());
    }

    pub(crate) fn vote<D: Driver>() {
        let mut d = proposed::<D>();
        let votes = [
            call(&mut d, ALICE, GovernanceCall::Vote { proposal: 0, support: true }, 0),
            call(&mut d, BOB, GovernanceCall::Vote { proposal: 0, support: true }, 0),
        ];
        d.measure_calls("vote (largest proposal)", &votes, Least::default());
    }

    pub(crate) fn execute<D: Driver>() {
        let mut d = proposed::<D>();
        let tx = call(&mut d, ALICE, GovernanceCall::Vote { proposal: 0, support: true }, 0);
        d.setup(&[tx]);
        let executable = d.height() + params().voting_period_blocks + params().timelock_blocks;
        d.advance_to(executable);
        let tx = call(&mut d, BOB, GovernanceCall::Execute { proposal: 0 }, 0);
        d.measure_calls("execute (largest proposal)", &[tx], Least::default());
    }
}

pub(crate) mod libraries {
    //! Libraries: the largest code, published and removed.

    use super::*;
    use drover_types::library::{LIBRARY_ADDRESS, LibraryCall};

    fn name() -> String {
        "l".repeat(64)
    }

    /// A publish of the largest code: its bytes are paid for twice in cells (the payload, then
    /// the record), past the test transactions' usual limit.
    fn publish_tx<D: Driver>(d: &mut D) -> VerifiedTransaction {
        let publish = LibraryCall::Publish {
            name: name(),
            code: big_callee(max_code_bytes()),
            manifest: Manifest::new(Vec::new()),
        };
        let mut tx = d.message(ALICE, LIBRARY_ADDRESS, publish.message(), 0);
        tx.tx.cells_limit = 2 * max_code_bytes() as u64 + 10_000;
        tx
    }

    pub(crate) fn publish<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        let tx = publish_tx(&mut d);
        d.measure_calls("publish (256 KiB)", &[tx], Least::default());
    }

    pub(crate) fn remove<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        let tx = publish_tx(&mut d);
        d.setup(&[tx]);
        let tx = d.message(ALICE, LIBRARY_ADDRESS, LibraryCall::Remove { name: name() }.message(), 0);
        d.measure_calls("remove", &[tx], Least::default());
    }
}

pub(crate) mod secrets {
    //! Secrets: the most readers, the largest envelopes.

    use super::*;
    use drover_types::secrets::{MAX_ENVELOPE_BYTES, MAX_READERS, MAX_SECRET_NAME_BYTES, SECRETS_ADDRESS, SecretCall};

    fn name() -> String {
        "s".repeat(MAX_SECRET_NAME_BYTES)
    }

    /// `readers` readers of the family `tag`, each with the largest envelope.
    fn set_call(tag: u8, readers: usize) -> SecretCall {
        let envelopes = (0..readers as u8).map(|i| (fresh(tag, i), vec![9; MAX_ENVELOPE_BYTES])).collect();
        SecretCall::Set { name: name(), envelopes }
    }

    fn call<D: Driver>(d: &mut D, call: SecretCall) -> VerifiedTransaction {
        d.message(ALICE, SECRETS_ADDRESS, call.message(), 0)
    }

    /// A chain where `ALICE` keeps the secret with `readers` readers of the family 0x61.
    fn with_secret<D: Driver>(readers: usize) -> D {
        let mut d = D::start(ChainParams::default());
        let tx = call(&mut d, set_call(0x61, readers));
        d.setup(&[tx]);
        d
    }

    pub(crate) fn set<D: Driver>() {
        // A secret of the most readers replaced by another set of the most readers.
        let mut d = with_secret::<D>(MAX_READERS);
        let tx = call(&mut d, set_call(0x62, MAX_READERS));
        d.measure_calls("set (32 readers for 32, 4 KiB each)", &[tx], Least::default());
    }

    pub(crate) fn grant<D: Driver>() {
        let mut d = with_secret::<D>(MAX_READERS - 1);
        let grant = SecretCall::Grant { name: name(), reader: fresh(0x63, 0), envelope: vec![9; MAX_ENVELOPE_BYTES] };
        let tx = call(&mut d, grant);
        d.measure_calls("grant (32nd reader)", &[tx], Least::default());
    }

    pub(crate) fn revoke<D: Driver>() {
        let mut d = with_secret::<D>(MAX_READERS);
        let tx = call(&mut d, SecretCall::Revoke { name: name(), reader: fresh(0x61, 0) });
        d.measure_calls("revoke (of 32)", &[tx], Least::default());
    }

    pub(crate) fn delete<D: Driver>() {
        let mut d = with_secret::<D>(MAX_READERS);
        let tx = call(&mut d, SecretCall::Delete { name: name() });
        d.measure_calls("delete (32 readers)", &[tx], Least::default());
    }
}

pub(crate) mod relays {
    //! The relay registry: the longest endpoint, a slot handed over on leaving.

    use super::*;
    use drover_types::storage::{
        MAX_ENDPOINT_BYTES, MIN_RELAY_STAKE, RELAY_REGISTRY_ADDRESS, RelayCall, RelaySettings,
    };

    fn settings() -> RelaySettings {
        let endpoint = format!("http://{}", "r".repeat(MAX_ENDPOINT_BYTES - 7));
        RelaySettings {
            endpoint,
            capacity_bytes: 1 << 40,
            price_per_byte_block: 1,
            write: true,
            read: true,
            public: true,
        }
    }

    fn call<D: Driver>(d: &mut D, sender: Address, call: RelayCall, value: u128) -> VerifiedTransaction {
        d.message(sender, RELAY_REGISTRY_ADDRESS, call.message(), value)
    }

    /// A chain where `ALICE` and then `BOB` registered as relays.
    pub(crate) fn registered<D: Driver>(params: ChainParams) -> D {
        let mut d = D::start(params);
        let txs = [
            call(&mut d, ALICE, RelayCall::Register(settings()), MIN_RELAY_STAKE),
            call(&mut d, BOB, RelayCall::Register(settings()), MIN_RELAY_STAKE),
        ];
        d.setup(&txs);
        d
    }

    pub(crate) fn register<D: Driver>() {
        let mut d = D::start(ChainParams::default());
        let tx = call(&mut d, ALICE, RelayCall::Register(settings()), MIN_RELAY_STAKE);
        d.measure_calls("register (256-byte endpoint)", &[tx], Least::default());
    }

    pub(crate) fn update<D: Driver>() {
        let mut d = registered::<D>(ChainParams::default());
        let tx = call(&mut d, ALICE, RelayCall::Update(settings()), 1);
        d.measure_calls("update", &[tx], Least::default());
    }

    pub(crate) fn heartbeat<D: Driver>() {
        let mut d = registered::<D>(ChainParams::default());
        let tx = call(&mut d, ALICE, RelayCall::Heartbeat, 0);
        d.measure_calls("heartbeat", &[tx], Least::default());
    }

    pub(crate) fn deregister<D: Driver>() {
        // The first relay leaves: the last takes its slot.
        let mut d = registered::<D>(ChainParams::default());
        let tx = call(&mut d, ALICE, RelayCall::Deregister, 0);
        d.measure_calls("deregister", &[tx], Least::default());
    }

    pub(crate) fn withdraw<D: Driver>() {
        let mut d = registered::<D>(ChainParams { unbonding_blocks: 1, ..ChainParams::default() });
        let tx = call(&mut d, ALICE, RelayCall::Deregister, 0);
        d.setup(&[tx]);
        let matured = d.height() + 1;
        d.advance_to(matured);
        let tx = call(&mut d, ALICE, RelayCall::Withdraw, 0);
        d.measure_calls("withdraw", &[tx], Least::default());
    }
}

pub(crate) mod volumes {
    //! The storage manager: the longest names, rent settled over a stretch of blocks.

    use super::*;
    use drover_types::{
        H256,
        storage::{MAX_VOLUME_NAME_BYTES, MAX_VOLUME_SIZE_BYTES, STORAGE_MANAGER_ADDRESS, StorageCall, volume_id},
    };

    fn name() -> String {
        "v".repeat(MAX_VOLUME_NAME_BYTES)
    }

    fn params() -> ChainParams {
        ChainParams { volume_grace_blocks: 10, ..ChainParams::default() }
    }

    fn call<D: Driver>(d: &mut D, sender: Address, call: StorageCall, value: u128) -> VerifiedTransaction {
        d.message(sender, STORAGE_MANAGER_ADDRESS, call.message(), value)
    }

    fn create_call() -> StorageCall {
        StorageCall::Create { name: name(), relay: BOB, public: true, max_size_bytes: MAX_VOLUME_SIZE_BYTES }
    }

    fn volume() -> H256 {
        volume_id(&ALICE, &name())
    }

    /// A chain where `ALICE` keeps a volume on relay `BOB` with `deposit` beyond its fee, to
    /// which `BOB` committed 10 bytes.
    fn created<D: Driver>(deposit: u128) -> D {
        let mut d = super::relays::registered::<D>(params());
        let tx = call(&mut d, ALICE, create_call(), params().volume_creation_fee + deposit);
        d.setup(&[tx]);
        let tx = call(&mut d, BOB, StorageCall::Commit { volume: volume(), root: H256([7; 32]), size_bytes: 10 }, 0);
        d.setup(&[tx]);
        d
    }

    pub(crate) fn create<D: Driver>() {
        let mut d = super::relays::registered::<D>(params());
        let tx = call(&mut d, ALICE, create_call(), params().volume_creation_fee + 1_000_000);
        d.measure_calls("create", &[tx], Least::default());
    }

    pub(crate) fn deposit<D: Driver>() {
        let mut d = created::<D>(1_000_000);
        let later = d.height() + 20;
        d.advance_to(later);
        let tx = call(&mut d, BOB, StorageCall::Deposit { volume: volume() }, 1_000);
        d.measure_calls("deposit", &[tx], Least::default());
    }

    pub(crate) fn delete<D: Driver>() {
        let mut d = created::<D>(1_000_000);
        let tx = call(&mut d, ALICE, StorageCall::Delete { volume: volume() }, 0);
        d.measure_calls("delete", &[tx], Least::default());
    }

    pub(crate) fn undelete<D: Driver>() {
        let mut d = created::<D>(1_000_000);
        let tx = call(&mut d, ALICE, StorageCall::Delete { volume: volume() }, 0);
        d.setup(&[tx]);
        let tx = call(&mut d, ALICE, StorageCall::Undelete { volume: volume() }, 0);
        d.measure_calls("undelete", &[tx], Least::default());
    }

    pub(crate) fn commit<D: Driver>() {
        let mut d = created::<D>(1_000_000);
        let commit = StorageCall::Commit { volume: volume(), root: H256([8; 32]), size_bytes: 1 << 30 };
        let tx = call(&mut d, BOB, commit, 0);
        d.measure_calls("commit", &[tx], Least::default());
    }

    pub(crate) fn resize<D: Driver>() {
        // Rent settled over a stretch of blocks first, as every call on a volume does.
        let mut d = created::<D>(1_000_000);
        let later = d.height() + 20;
        d.advance_to(later);
        let tx = call(&mut d, ALICE, StorageCall::Resize { volume: volume(), max_size_bytes: 1 }, 0);
        d.measure_calls("resize", &[tx], Least::default());
    }

    pub(crate) fn drop<D: Driver>() {
        let mut d = created::<D>(1_000_000);
        let later = d.height() + 20;
        d.advance_to(later);
        let tx = call(&mut d, BOB, StorageCall::Drop { volume: volume() }, 0);
        d.measure_calls("drop", &[tx], Least::default());
    }

    pub(crate) fn reap<D: Driver>() {
        // A deposit that runs out as soon as rent is charged (from the next rent window): purged
        // after the grace.
        let mut d = created::<D>(10);
        let purged = d.height() + drover_types::storage::RENT_WINDOW_BLOCKS + params().volume_grace_blocks + 2;
        d.advance_to(purged);
        let tx = call(&mut d, BOB, StorageCall::Reap { volume: volume() }, 0);
        d.measure_calls("reap", &[tx], Least::default());
    }

    pub(crate) fn revoke<D: Driver>() {
        let mut d = super::relays::registered::<D>(params());
        let txs: Vec<_> =
            (0..20u8).map(|i| call(&mut d, ALICE, StorageCall::Revoke { session_key: [i; 33] }, 0)).collect();
        d.measure_calls("revoke", &txs, Least::default());
    }
}

/// Calls `$then!` with every case: per family, each case function and the names it covers (the
/// host functions it runs, or the system actor's handler). The audit makes a test of each, the
/// benchmark a row, and both check that the names cover the ABI and every handler.
macro_rules! case_list {
    ($then:ident) => {
        $then! {
            host: [
                context: [
                    "input_len", "caller", "self_address", "origin", "block_height", "block_timestamp_ms",
                    "value_received", "cycles_left"
                ],
                input_read: ["input_read"],
                set_result: ["set_result"],
                revert: ["revert"],
                storage_get: ["storage_get"],
                storage_set: ["storage_set"],
                storage_remove: ["storage_remove"],
                storage_next: ["storage_next"],
                emit: ["emit"],
                balance_of: ["balance_of"],
                transfer: ["transfer"],
                send: ["send"],
                call: ["call"],
                job_submit: ["job_submit"],
                library_call: ["library_call"],
                return_data: ["return_data_len", "return_data_read"],
                timer_schedule: ["timer_schedule"],
                timer_cancel: ["timer_cancel"],
            ],
            tokens: [
                create: ["create"],
                transfer: ["transfer"],
                approve: ["approve"],
                transfer_from: ["transfer_from"],
                mint: ["mint"],
                burn: ["burn"],
                freeze: ["freeze"],
                unfreeze: ["unfreeze"],
                set_owner: ["set_owner"],
                balance: ["balance"],
            ],
            runners: [
                register: ["register"],
                update: ["update"],
                heartbeat: ["heartbeat"],
                deregister: ["deregister"],
                delegate: ["delegate"],
                undelegate: ["undelegate"],
                withdraw: ["withdraw"],
            ],
            jobs: [submit: ["submit"], cancel: ["cancel"], submit_result: ["submit_result"]],
            governance: [lock: ["lock"], unlock: ["unlock"], propose: ["propose"], vote: ["vote"], execute: ["execute"]],
            libraries: [publish: ["publish"], remove: ["remove"]],
            secrets: [set: ["set"], grant: ["grant"], revoke: ["revoke"], delete: ["delete"]],
            relays: [
                register: ["register"],
                update: ["update"],
                heartbeat: ["heartbeat"],
                deregister: ["deregister"],
                withdraw: ["withdraw"],
            ],
            volumes: [
                create: ["create"],
                deposit: ["deposit"],
                delete: ["delete"],
                undelete: ["undelete"],
                commit: ["commit"],
                resize: ["resize"],
                drop: ["drop"],
                reap: ["reap"],
                revoke: ["revoke"],
            ],
        }
    };
}

/// One case: its family, the names it covers, and its function run with a driver.
pub(crate) type Case = (&'static str, &'static [&'static str], fn());

macro_rules! define_all {
    ($($family:ident: [$($case:ident: [$($name:literal),* $(,)?]),* $(,)?]),* $(,)?) => {
        /// Every case, run with the driver `D`.
        pub(crate) fn all<D: Driver>() -> Vec<Case> {
            vec![$($((stringify!($family), &[$($name),*], $family::$case::<D> as fn())),*),*]
        }
    };
}

case_list!(define_all);

/// The names every family's cases must cover: the ABI's host functions and each system actor's
/// handlers.
pub(crate) fn required() -> Vec<(&'static str, Vec<&'static str>)> {
    use drover_types::{
        governance::GovernanceCall,
        job::JobCall,
        library::LibraryCall,
        runner::RegistryCall,
        secrets::SecretCall,
        storage::{RelayCall, StorageCall},
        token::TokenCall,
    };
    vec![
        ("host", drover_vm::abi::HOST_FUNCTIONS.iter().map(|f| f.name).collect()),
        ("tokens", TokenCall::HANDLERS.to_vec()),
        ("runners", RegistryCall::HANDLERS.to_vec()),
        ("jobs", JobCall::HANDLERS.to_vec()),
        ("governance", GovernanceCall::HANDLERS.to_vec()),
        ("libraries", LibraryCall::HANDLERS.to_vec()),
        ("secrets", SecretCall::HANDLERS.to_vec()),
        ("relays", RelayCall::HANDLERS.to_vec()),
        ("volumes", StorageCall::HANDLERS.to_vec()),
    ]
}

/// The names `cases` cover in `family`, sorted.
pub(crate) fn covered(cases: &[Case], family: &str) -> Vec<&'static str> {
    let mut names: Vec<&str> =
        cases.iter().filter(|case| case.0 == family).flat_map(|case| case.1.iter().copied()).collect();
    names.sort_unstable();
    names
}

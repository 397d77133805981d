//! `drover bench hostile`: honest users are served on time while attackers do their worst.
//!
//! On a fresh devnet, a steady flow of honest transfers (each to a fresh address, tipping more
//! than the attackers, as a user who wants to be included soon does) runs for `--seconds`
//! while attackers send, each as fast as the node admits it and sized to the limits of the
//! moment (nearly the cycle target each, what a block always has room for beside its deferred
//! work):
//!
//! * **fresh-key scans**: a handler reading keys nobody wrote, as many as its cycles pay for;
//! * **map walks**: a handler iterating a 100,000-entry actor map with `storage_next`;
//! * **deep nested calls**: a handler calling itself as deep as the VM allows, twice per level,
//!   until its cycles run out;
//! * **maximal payloads**: transactions carrying the largest payload the VM and the block's
//!   cells take;
//! * **tombstone churn**: one transaction deletes 750 entries of an actor's map, then walks
//!   `storage_next` from the start about 1,600 times, every walk starting among the deletions;
//!   two churns in three end in revert (the entries come back), the third deletes them for good
//!   and the next transaction writes them again;
//! * **a mailbox wedge attempt** (`actors/wedge.wat`): from the start, 16 timers that
//!   reschedule themselves for the next block until the run is over, each at
//!   `max_attached_cycles` and burning it; from halfway through the run, also a flood of messages attached with `max_attached_cycles`
//!   (about 800 a transaction), all paid by the actor. Meanwhile an honest actor
//!   (`actors/courier.wat`) sends itself a message every 500 ms: the blocks from each send to
//!   its delivery are reported for each half;
//! * **dust accounts**: an actor transferring 1 base unit to a fresh address, about 380 a
//!   transaction, each creating an account (and paying for its record);
//! * **read-only calls** at their cycle budget (fresh-key scans) from `--readers` connections;
//! * **state-sync reads**: `GET /state/operations` of the largest batch, from 4 connections;
//! * **a governance proposal at the bounds**: at the start, an account locks the least quorum
//!   weight and proposes the least `target_cycles` and `target_cells`, `max_attached_cycles` and
//!   `max_callback_cycles` at a quarter of that target (the most their relation allows), and the
//!   largest per-block counts of timer fires and deliveries, mailbox capacity and pending
//!   timers; it votes, and executes the proposal as soon as its timelock is over (about 120
//!   blocks later with the devnet's defaults). The rest of the run happens under those values:
//!   every attacker resizes its transactions to them, and the wedge re-arms its timers at the
//!   new `max_attached_cycles` (the old ones cannot reschedule themselves above it).
//!
//! Attackers tip 1, and between equal tips the pool takes the lower hash first: an attacker whose
//! next transaction has waited 2 s sends it again with its cell tip raised by one, as a wallet
//! would, so that no attack sits out the run behind the others.
//!
//! Every attacker stops sending at the end of the run, and the wedge's timers stop rescheduling
//! themselves by then; what was queued before (the flood's messages) stays queued.
//!
//! It reports the honest transfers' submit→finalized latency (p50, p99, max; and p99 of those
//! sent under the edge values), the longest gap between finalized blocks seen by a tracker
//! polling every 10 ms, the honest messages' delivery latency in blocks, what each attacker got
//! through, how its transactions ended, what they paid and did (keys read, tombstones walked
//! past, messages queued, accounts created), and when the proposal took force. Targets: no gap
//! above 2 s, honest p99 under 1 s.

use super::*;
use drover_client::{TxBuilder, TxContext};
use drover_types::{
    api::{ActorReadRequest, GovernanceParams, ReceiptInfo, ReceiptStatus},
    chain_params::{ChainParams, ParamSpec},
    governance::GovernanceCall,
    params::{DEFERRED_SHARE_PARTS, TRANSFER_CYCLES},
};

#[derive(Args)]
pub(crate) struct HostileArgs {
    /// How long the attack runs, in seconds.
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// Honest transfers per second.
    #[arg(long, default_value_t = 200)]
    pub honest_rate: u64,
    /// Connections sending read-only calls at their budget.
    #[arg(long, default_value_t = 16)]
    pub readers: usize,
    /// Block interval of the spawned devnet, in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub block_interval_ms: u64,
}

/// The actors the attackers and the honest mailbox user run.
const FRESH_READER_WAT: &str = include_str!("../../../../actors/fresh_reader.wat");
const BULK_WAT: &str = include_str!("../../../../actors/bulk.wat");
const WEDGE_WAT: &str = include_str!("../../../../actors/wedge.wat");
const COURIER_WAT: &str = include_str!("../../../../actors/courier.wat");

/// Cycles a heavy attacking transaction leaves of the cycle target, and leaves again of its own
/// limit for its invocation, module load and payload besides its loop: 9,000,000 and 8,000,000
/// cycles under the default target of 10,000,000.
const ATTACK_CYCLES_MARGIN: u64 = 1_000_000;
/// Cells an attacking transaction asks for besides those of its loop.
const ATTACK_CELLS_MARGIN: u64 = 2_000;
/// Cells limit of the attacks that write nothing.
const ATTACK_CELLS_LIMIT: u64 = 10_000;
/// Cycles of one key a fresh-key scan reads (`storage_get` of an absent 8-byte key).
const CYCLES_PER_SCANNED_KEY: u64 = 2_004;
/// Cycles of one entry a walk visits (`storage_next` and its loop).
const CYCLES_PER_WALKED_ENTRY: u64 = 2_540;
/// Entries of the map the walker iterates.
const MAP_ENTRIES: u32 = 100_000;
/// Entries one `fill` transaction writes while the map is built.
const FILL_PER_TX: u32 = 2_500;
/// The largest payload an actor call may carry.
const PAYLOAD_BYTES: u64 = drover_vm::limits::MAX_PAYLOAD_BYTES as u64;
/// Entries each churn deletes (and a fill writes back: 16 cells each): about as many cycles
/// go to deleting as to walking, which makes the most walks past the most deletions.
const CHURN_ENTRIES: u32 = 750;
/// Cycles of deleting one entry in a churn (`storage_remove` of an 8-byte key and its loop).
const CYCLES_PER_CHURNED_ENTRY: u64 = 5_100;
/// Cycles of one walk from the start in a churn (`storage_next` past the deletions).
const CYCLES_PER_CHURN_WALK: u64 = 2_600;
/// Cycles of one message the flood sends (`send` of a 4-byte handler and its loop).
const CYCLES_PER_FLOODED_MESSAGE: u64 = 10_100;
/// Cells of one: the message's 64 and its handler's 4.
const CELLS_PER_FLOODED_MESSAGE: u64 = 68;
/// Timers the wedge keeps rescheduling themselves.
const WEDGE_TIMERS: u32 = 16;
/// Cells of scheduling one of them (`timer_schedule`: 384, its 4-byte handler and 12-byte
/// payload).
const CELLS_PER_WEDGE_TIMER: u64 = 400;
/// Cycles of one account the dust attacker creates (`transfer` to an address without an
/// account, and its loop).
const CYCLES_PER_DUST_ACCOUNT: u64 = 21_200;
/// Cells one new account pays.
const CELLS_PER_DUST_ACCOUNT: u64 = drover_vm::meter::CELLS_NEW_ACCOUNT;
/// Most accounts one dust transaction creates: transaction `n` pays the counters from
/// `n × DUST_ACCOUNTS_MAX`, fresh addresses every time.
const DUST_ACCOUNTS_MAX: u32 = 1_024;
/// Base units the actors start with: the wedge pays every budget it attaches, the courier its
/// messages' budgets, the dust attacker 1 per account.
const WEDGE_FUNDS: u128 = 100_000_000 * drover_types::params::BASE_UNITS_PER_DRV;
const COURIER_FUNDS: u128 = 1_000_000 * drover_types::params::BASE_UNITS_PER_DRV;
const DUST_FUNDS: u128 = 1_000 * drover_types::params::BASE_UNITS_PER_DRV;
/// Attacking transactions each attacker keeps pending.
const ATTACK_WINDOW: u64 = 64;
/// Keys a read-only scan reads: 4,900 × 2,004 cycles fits the read budget of 10,000,000.
const READ_SCAN_KEYS: u32 = 4_900;
/// Honest senders (each sends at most one transfer per block interval or so).
const HONEST_SENDERS: u32 = 200;
/// Tip per cycle of honest transactions; attackers tip 1.
const HONEST_TIP_PER_CYCLE: u128 = 10;
/// Max fee per cycle of honest transactions: blocks kept full raise the basefee 12.5 % a
/// block, so attackers capped at [`BENCH_MAX_FEE_PER_CYCLE`] price themselves out after about
/// 120 blocks, and honest users who bid above that cap are included whatever the attack (they
/// pay only the basefee and their tip).
const HONEST_MAX_FEE_PER_CYCLE: u128 = 100 * BENCH_MAX_FEE_PER_CYCLE;
/// Max fee per cell of honest transactions, above the attackers' likewise.
const HONEST_MAX_FEE_PER_CELL: u128 = 100 * BENCH_MAX_FEE_PER_CELL;
/// How often the honest actor sends itself a message.
const HONEST_MESSAGE_INTERVAL: Duration = Duration::from_millis(500);
/// Limits of the honest actor's `post`: a call sending one message.
const POST_CYCLES_LIMIT: u64 = 200_000;
const POST_CELLS_LIMIT: u64 = 1_000;
/// Connections asking for state-sync batches.
const STATE_SYNC_CONNECTIONS: usize = 4;
/// How often the attackers' limits follow the live chain parameters.
const PARAMS_POLL: Duration = Duration::from_millis(200);
/// How long an attacker's next transaction may wait before the attacker looks at it again:
/// sends it again if the pool dropped it, or raises its tip.
const STUCK: Duration = Duration::from_secs(2);
/// How long the block watcher goes on after the load stops.
const DRAIN: Duration = Duration::from_secs(10);
/// How long a setup or governance transaction may take to be included.
const INCLUSION_TIMEOUT: Duration = Duration::from_secs(120);

/// The attacks that are transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attack {
    Scan,
    Walk,
    Nest,
    Payload,
    Churn,
    Wedge,
    Dust,
}

impl Attack {
    const ALL: [Attack; 7] =
        [Attack::Scan, Attack::Walk, Attack::Nest, Attack::Payload, Attack::Churn, Attack::Wedge, Attack::Dust];
}

/// The limits attackers size their transactions to, read from the live chain parameters: a
/// passed proposal changes them mid-run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Live {
    target_cycles: u64,
    target_cells: u64,
    max_attached_cycles: u64,
}

impl Live {
    fn of(params: &GovernanceParams) -> anyhow::Result<Live> {
        Live::from_values(|name| params.value(name))
    }

    /// The limits of the parameters `value` gives by name.
    fn from_values(value: impl Fn(&str) -> Option<u128>) -> anyhow::Result<Live> {
        let get = |name: &str| {
            value(name).and_then(|v| u64::try_from(v).ok()).with_context(|| format!("no parameter {name}"))
        };
        Ok(Live {
            target_cycles: get("target_cycles")?,
            target_cells: get("target_cells")?,
            max_attached_cycles: get("max_attached_cycles")?,
        })
    }

    /// Cycles limit of a heavy attacking transaction: nearly the target. A block's
    /// transactions must fit what its deferred work left of the block limits (twice the
    /// targets), and the deferred work may use up to the targets, which the wedge keeps busy:
    /// a larger transaction would wait for a block with less deferred work, which never comes.
    fn attack_cycles(&self) -> u64 {
        self.target_cycles.saturating_sub(ATTACK_CYCLES_MARGIN)
    }

    /// Cells an attacking transaction may ask for, likewise.
    fn attack_cells(&self) -> u64 {
        self.target_cells
    }
}

/// What an attacking transaction sets out to do: `amount` of `what` (keys read, tombstones
/// walked past, accounts created...), counted when it is included and runs to its end, or
/// whatever its outcome when `carried` (a payload costs its carrying, and the handler refuses
/// it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Work {
    what: &'static str,
    amount: u64,
    carried: bool,
}

/// One attacker's sequence of transactions.
struct Attacker {
    attack: Attack,
    /// Transactions admitted so far.
    sent: u64,
    /// The budget the wedge's timers were last armed with (0: not yet).
    armed_cycles: u64,
    /// When the wedge starts its flood of messages (its timers run from the start).
    flood_from: Instant,
    /// The first height the wedge's timers no longer reschedule themselves for: the run's
    /// end, at the latest, if blocks came every block interval.
    until_height: u32,
}

impl Attacker {
    /// The next transaction's message, its cycles and cells limits, and the work it sets out
    /// to do, under `live`; `None` while the wedge waits for its flood.
    fn next(&self, live: &Live) -> Option<(Message, u64, u64, Work)> {
        let cycles = live.attack_cycles();
        let room = cycles.saturating_sub(ATTACK_CYCLES_MARGIN);
        let cells_room = live.attack_cells().saturating_sub(ATTACK_CELLS_MARGIN);
        let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let words = |w: &[u32]| w.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
        let n = self.sent;
        let work = |what: &'static str, amount: u64| Work { what, amount, carried: false };
        let (handler, payload, cycles, cells, work) = match self.attack {
            Attack::Scan => {
                // Fresh keys every time: nothing a cache kept from the last scan helps.
                let keys = count(room / CYCLES_PER_SCANNED_KEY);
                let payload = words(&[keys, (n as u32).wrapping_mul(keys)]);
                ("scan", payload, cycles, ATTACK_CELLS_LIMIT, work("absent keys read", keys.into()))
            }
            Attack::Walk => {
                let entries = count(room / CYCLES_PER_WALKED_ENTRY);
                ("walk", words(&[entries]), cycles, ATTACK_CELLS_LIMIT, work("entries walked", entries.into()))
            }
            // Deeper and wider than its cycles pay for: it fails when they run out.
            Attack::Nest => ("nest", words(&[u32::MAX, 2]), cycles, ATTACK_CELLS_LIMIT, work("", 0)),
            Attack::Payload => {
                // The handler refuses it at once: what costs is carrying it, a cycle and a cell
                // per byte, and as many as fit go into a block.
                let bytes = PAYLOAD_BYTES.min(cells_room);
                let cells = bytes + ATTACK_CELLS_MARGIN;
                let carried = Work { what: "payload bytes carried", amount: bytes, carried: true };
                ("scan", vec![0xa5; bytes as usize], TRANSFER_CYCLES + 2 * bytes, cells, carried)
            }
            Attack::Churn if n % 4 == 3 => {
                let cells = u64::from(CHURN_ENTRIES) * 16 + ATTACK_CELLS_MARGIN;
                ("fill", words(&[CHURN_ENTRIES, 0]), cycles, cells, work("entries written back", CHURN_ENTRIES.into()))
            }
            Attack::Churn => {
                let deleting = u64::from(CHURN_ENTRIES) * CYCLES_PER_CHURNED_ENTRY;
                let walks = count(room.saturating_sub(deleting) / CYCLES_PER_CHURN_WALK);
                // Churns 0 and 1 of every four revert; churn 2 deletes, and fill 3 writes back.
                let undo = u32::from(n % 4 != 2);
                let passed = work("tombstones walked past", u64::from(walks) * u64::from(CHURN_ENTRIES));
                ("churn", words(&[CHURN_ENTRIES, 0, walks, undo]), cycles, ATTACK_CELLS_LIMIT, passed)
            }
            Attack::Wedge if self.armed_cycles != live.max_attached_cycles => {
                let cells = u64::from(WEDGE_TIMERS) * CELLS_PER_WEDGE_TIMER + ATTACK_CELLS_MARGIN;
                let payload = words(&[WEDGE_TIMERS, count(live.max_attached_cycles), self.until_height]);
                ("arm", payload, cycles, cells, work("timers armed", WEDGE_TIMERS.into()))
            }
            Attack::Wedge if Instant::now() < self.flood_from => return None,
            Attack::Wedge => {
                let messages = (room / CYCLES_PER_FLOODED_MESSAGE).min(cells_room / CELLS_PER_FLOODED_MESSAGE);
                let cells = messages * CELLS_PER_FLOODED_MESSAGE + ATTACK_CELLS_MARGIN;
                let payload = words(&[count(messages), count(live.max_attached_cycles)]);
                ("flood", payload, cycles, cells, work("messages queued", messages))
            }
            Attack::Dust => {
                let accounts = count(room / CYCLES_PER_DUST_ACCOUNT).min(DUST_ACCOUNTS_MAX);
                let cells = u64::from(accounts) * CELLS_PER_DUST_ACCOUNT + ATTACK_CELLS_MARGIN;
                let payload = words(&[accounts, (n as u32).wrapping_mul(DUST_ACCOUNTS_MAX)]);
                ("pay", payload, cycles, cells, work("accounts created", accounts.into()))
            }
        };
        Some((Message { handler: handler.to_owned(), payload }, cycles, cells, work))
    }

    /// The transaction [`next`](Self::next) built under `live` was admitted.
    fn admitted(&mut self, live: &Live) {
        if self.attack == Attack::Wedge && self.armed_cycles != live.max_attached_cycles {
            self.armed_cycles = live.max_attached_cycles;
        }
        self.sent += 1;
    }
}

/// What each attacker sent.
#[derive(Default)]
struct Tally {
    sent: AtomicU64,
    refused: AtomicU64,
    /// Every transaction admitted (a raised one too) and the work it set out to do, to count
    /// the outcomes of those included.
    admitted: parking_lot::Mutex<Vec<(H256, Work)>>,
}

/// What an attacker's included transactions came to.
#[derive(Default)]
struct Outcomes {
    succeeded: u64,
    reverted: u64,
    failed: u64,
    /// The fees they paid, base units, and the cycles and cells they used.
    fees: u128,
    cycles: u64,
    cells: u64,
    /// The work of those that ran to their end (a churn's revert comes after its walks), by
    /// what it is, in the order first sent.
    work: Vec<(&'static str, u64)>,
}

impl Tally {
    fn admitted(&self, hash: H256, work: Work) {
        self.sent.fetch_add(1, Ordering::Relaxed);
        self.admitted.lock().push((hash, work));
    }

    /// How many of the admitted transactions were included and succeeded, reverted or failed,
    /// what they paid and what they did.
    async fn outcomes(&self, client: &Client) -> anyhow::Result<Outcomes> {
        let admitted = self.admitted.lock().clone();
        let mut outcomes = Outcomes::default();
        for (hash, work) in admitted {
            let Some(receipt) = client.receipt(&hash).await? else { continue };
            outcomes.fees += receipt.fee;
            outcomes.cycles += receipt.cycles_used;
            outcomes.cells += receipt.cells_used;
            match receipt.status {
                ReceiptStatus::Success => outcomes.succeeded += 1,
                ReceiptStatus::Reverted => outcomes.reverted += 1,
                ReceiptStatus::Failed => {
                    outcomes.failed += 1;
                    if !work.carried {
                        continue;
                    }
                }
            }
            match outcomes.work.iter_mut().find(|(what, _)| *what == work.what) {
                Some((_, amount)) => *amount += work.amount,
                None => outcomes.work.push((work.what, work.amount)),
            }
        }
        Ok(outcomes)
    }
}

pub(super) async fn hostile(args: HostileArgs) -> anyhow::Result<()> {
    ensure!(args.seconds > 0 && args.honest_rate > 0, "--seconds and --honest-rate must be positive");
    let network = SpawnedNetwork::start(1, args.block_interval_ms).await?;
    let url = network.urls[0].clone();
    let client = Client::new(&url)?;
    let chain_id = client.chain_info().await?.chain_id;
    let retries = AtomicU64::new(0);
    let funder = SecretKey::dev(FAUCET_KEY_INDEX);

    // Accounts: the honest senders, one per attack, the governor, the courier's poster, and
    // the deployer (who also funds the actors).
    let honest_each = (args.honest_rate * args.seconds).div_ceil(u64::from(HONEST_SENDERS)) + 1;
    let honest_budget = u128::from(honest_each) * u128::from(TRANSFER_CYCLES) * HONEST_MAX_FEE_PER_CYCLE * 2;
    let honest = fund_senders(&client, &funder, chain_id, HONEST_SENDERS, honest_budget, 50, &retries).await?;
    let attack_budget =
        u128::from(Live::of(&client.governance_params().await?)?.attack_cycles()) * BENCH_MAX_FEE_PER_CYCLE * 2_000;
    let keys =
        fund_senders(&client, &funder, chain_id, Attack::ALL.len() as u32 + 2, attack_budget, 50, &retries).await?;
    let (attackers, governor, poster) =
        (&keys[..Attack::ALL.len()], &keys[Attack::ALL.len()], &keys[Attack::ALL.len() + 1]);
    let deployer_budget = attack_budget + WEDGE_FUNDS + COURIER_FUNDS + DUST_FUNDS;
    let deployer = &fund_senders(&client, &funder, chain_id, 1, deployer_budget, 1, &retries).await?[0];

    // The actors, and a 100,000-entry map for the walker, 750 entries for the churner.
    let storage = ["storage.kv", "actor.call"];
    let reader = deploy_example(&client, deployer, chain_id, FRESH_READER_WAT, &["storage.kv"], b"scan", 0).await?;
    let bulk = deploy_example(&client, deployer, chain_id, BULK_WAT, &storage, b"walk", 0).await?;
    let churner = deploy_example(&client, deployer, chain_id, BULK_WAT, &storage, b"churn", 0).await?;
    let paying = ["storage.kv", "actor.call", "econ.transfer"];
    let payer = deploy_example(&client, deployer, chain_id, BULK_WAT, &paying, b"dust", DUST_FUNDS).await?;
    let wedge = deploy_example(
        &client,
        deployer,
        chain_id,
        WEDGE_WAT,
        &["timer.schedule", "mailbox.send"],
        b"wedge",
        WEDGE_FUNDS,
    )
    .await?;
    let courier = deploy_example(
        &client,
        deployer,
        chain_id,
        COURIER_WAT,
        &["storage.kv", "mailbox.send"],
        b"honest",
        COURIER_FUNDS,
    )
    .await?;
    println!("building a map of {MAP_ENTRIES} entries");
    let mut nonce = client.account(&deployer.address()).await?.context("deployer")?.nonce;
    let mut fills = Vec::new();
    let fill = |actor: Address, entries: u32, start: u32, nonce: u64| {
        let payload = [entries.to_le_bytes(), start.to_le_bytes()].concat();
        let message = Message { handler: "fill".to_owned(), payload };
        let cycles = u64::from(entries) * 6_000 + ATTACK_CYCLES_MARGIN;
        bench_tx(deployer, chain_id, nonce, Some(actor), 0, message.encode(), cycles, u64::from(entries) * 40)
    };
    for start in (0..MAP_ENTRIES).step_by(FILL_PER_TX as usize) {
        fills.push(fill(bulk, FILL_PER_TX, start, nonce));
        nonce += 1;
    }
    fills.push(fill(churner, CHURN_ENTRIES, 0, nonce));
    for chunk in fills.chunks(10) {
        submit_until_admitted(&client, chunk, &retries).await?;
    }
    wait_receipt(&client, fills.last().context("no fill")?, INCLUSION_TIMEOUT).await?;
    let balance =
        async |actor: &Address| anyhow::Ok(client.actor(actor).await?.context("an actor is missing")?.balance);
    let (dust_before, wedge_before) = (balance(&payer).await?, balance(&wedge).await?);

    // Everything runs from here until the deadline; the watcher goes on a little longer, so
    // that the last honest transfers and messages are seen finalized.
    let start_height = client.height().await?;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.seconds);
    let flood_from = started + Duration::from_secs(args.seconds) / 2;
    // Blocks come at most every block interval, so the run is over by this height.
    let run_blocks = (args.seconds * 1_000).div_ceil(args.block_interval_ms.max(1));
    let until_height = u32::try_from(start_height + run_blocks + 1).context("the devnet is too high")?;
    let seen = Arc::new(parking_lot::Mutex::new(HashMap::new()));
    let watcher = tokio::spawn(watch_blocks(client.clone(), start_height, deadline + DRAIN, seen.clone()));
    let live = Arc::new(parking_lot::Mutex::new(Live::of(&client.governance_params().await?)?));
    let follower = tokio::spawn(follow_params(client.clone(), live.clone(), deadline));
    let governance = tokio::spawn(govern(client.clone(), governor.clone(), chain_id, deadline));
    let messages = tokio::spawn(honest_messages(client.clone(), poster.clone(), chain_id, courier, deadline));
    let mut tasks = Vec::new();
    let tallies: Vec<Arc<Tally>> = (0..Attack::ALL.len() + 2).map(|_| Arc::default()).collect();
    for (i, attack) in Attack::ALL.into_iter().enumerate() {
        let target = match attack {
            Attack::Scan | Attack::Payload => reader,
            Attack::Walk | Attack::Nest => bulk,
            Attack::Churn => churner,
            Attack::Wedge => wedge,
            Attack::Dust => payer,
        };
        let attacker = Attacker { attack, sent: 0, armed_cycles: 0, flood_from, until_height };
        let (client, key, live, tally) = (client.clone(), attackers[i].clone(), live.clone(), tallies[i].clone());
        tasks.push(tokio::spawn(attack_with_transactions(
            client, key, chain_id, attacker, target, live, deadline, tally,
        )));
    }
    for r in 0..args.readers {
        let (client, tally) = (client.clone(), tallies[Attack::ALL.len()].clone());
        tasks.push(tokio::spawn(attack_with_reads(client, reader, r as u32, deadline, tally)));
    }
    for _ in 0..STATE_SYNC_CONNECTIONS {
        let (client, tally) = (client.clone(), tallies[Attack::ALL.len() + 1].clone());
        tasks.push(tokio::spawn(attack_with_state_sync(client, deadline, tally)));
    }
    let sent = honest_flow(&client, &honest, chain_id, args.honest_rate, deadline).await?;
    for task in tasks {
        task.await??;
    }
    follower.await??;
    let governed = governance.await??;
    let posted = messages.await??;
    let watched = watcher.await??;
    // The watcher is done: the stamps are all there.
    let seen = std::mem::take(&mut *seen.lock());
    let latencies = |after: Option<Instant>| {
        let mut latencies: Vec<Duration> = sent
            .iter()
            .filter(|(_, at)| after.is_none_or(|after| *at >= after))
            .filter_map(|(hash, at)| Some(seen.get(hash)?.saturating_duration_since(*at)))
            .collect();
        latencies.sort();
        latencies
    };
    let all = latencies(None);
    let in_force_at = governed.executed_height.and_then(|h| watched.seen_at.get(&(h + 1)).copied());
    let under_edge = in_force_at.map(|at| latencies(Some(at)));
    let fates = message_fates(&client, courier, &posted, watched.last_height).await?;
    let dust_after = balance(&payer).await?;
    let wedge_after = client.actor(&wedge).await?.context("the wedge actor is missing")?;

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let since =
        |at: Option<Instant>| at.map_or("—".to_owned(), |at| format!("{:.1} s", (at - started).as_secs_f64()));
    println!();
    println!(
        "hostile load for {} s, honest transfers at {}/s (tip {HONEST_TIP_PER_CYCLE}/cycle, max fee {HONEST_MAX_FEE_PER_CYCLE}; attackers tip 1, max fee {BENCH_MAX_FEE_PER_CYCLE})",
        args.seconds, args.honest_rate
    );
    println!("  honest transfers finalized: {} of {}", all.len(), sent.len());
    println!("  honest latency p50:         {:>8.0} ms", ms(percentile(&all, 0.50)));
    println!("  honest latency p99:         {:>8.0} ms", ms(percentile(&all, 0.99)));
    println!("  honest latency max:         {:>8.0} ms", ms(all.last().copied().unwrap_or_default()));
    if let Some(edge) = &under_edge {
        println!(
            "  under the edge values:      p99 {:.0} ms, max {:.0} ms ({} transfers)",
            ms(percentile(edge, 0.99)),
            ms(edge.last().copied().unwrap_or_default()),
            edge.len()
        );
    }
    println!(
        "  finalized blocks:           {} (heights {}..={})",
        watched.blocks,
        start_height + 1,
        watched.last_height
    );
    println!(
        "  longest gap between blocks: {:>8.0} ms (before height {})",
        ms(watched.longest_gap),
        watched.longest_gap_height
    );
    println!("  highest cycle basefee:      {:>8}", watched.highest_basefee);
    let mut dust = Outcomes::default();
    for (i, attack) in Attack::ALL.iter().enumerate() {
        let tally = &tallies[i];
        let outcomes = tally.outcomes(&client).await?;
        println!(
            "  attack {:<8} transactions admitted {:>5}, refused {:>5}, included {:>5} ({} succeeded, {} reverted, {} failed), fees {}",
            format!("{attack:?}").to_lowercase(),
            tally.sent.load(Ordering::Relaxed),
            tally.refused.load(Ordering::Relaxed),
            outcomes.succeeded + outcomes.reverted + outcomes.failed,
            outcomes.succeeded,
            outcomes.reverted,
            outcomes.failed,
            drover_client::amount::format_drv(outcomes.fees),
        );
        let work: Vec<String> = outcomes
            .work
            .iter()
            .filter(|(_, amount)| *amount > 0)
            .map(|(what, amount)| format!("{what} {amount}"))
            .collect();
        if !work.is_empty() {
            println!("      {}", work.join(", "));
        }
        if *attack == Attack::Dust {
            dust = outcomes;
        }
    }
    let reads = &tallies[Attack::ALL.len()];
    println!(
        "  read-only scans at budget:  {} answered, {} refused (429/5004)",
        reads.sent.load(Ordering::Relaxed),
        reads.refused.load(Ordering::Relaxed)
    );
    let syncs = &tallies[Attack::ALL.len() + 1];
    println!(
        "  state-sync batches:         {} served, {} refused (429)",
        syncs.sent.load(Ordering::Relaxed),
        syncs.refused.load(Ordering::Relaxed)
    );
    let accounts = dust_before.saturating_sub(dust_after);
    let per_account = |total: u128| total / accounts.max(1);
    println!(
        "  dust accounts created:      {accounts} (1 base unit each), each paying {} cycles and {} cells of its transaction: {} at the run's basefees",
        per_account(dust.cycles.into()),
        per_account(dust.cells.into()),
        drover_client::amount::format_drv(per_account(dust.fees))
    );
    println!(
        "  wedge:                      spent {}, {} messages still queued in its mailbox",
        drover_client::amount::format_drv(wedge_before.saturating_sub(wedge_after.balance)),
        wedge_after.mailbox_count
    );
    let (before, during): (Vec<_>, Vec<_>) = posted.iter().zip(&fates).partition(|((_, at), _)| *at < flood_from);
    let fates_of =
        |part: Vec<(&(Transaction, Instant), &Fate)>| part.into_iter().map(|(_, fate)| *fate).collect::<Vec<_>>();
    println!("  honest messages, wedge timers alone ({} posted): {}", before.len(), describe_fates(&fates_of(before)));
    println!("  honest messages, with the flood     ({} posted): {}", during.len(), describe_fates(&fates_of(during)));
    match governed.executed_height {
        Some(height) => println!(
            "  governance at the bounds:   proposed at height {} ({}), executed at {height}, in force from {} ({}): {}",
            governed.proposed_height,
            since(Some(governed.proposed_at)),
            height + 1,
            since(in_force_at),
            governed.changes.iter().map(|(name, value)| format!("{name} {value}")).collect::<Vec<_>>().join(", ")
        ),
        None => println!(
            "  governance at the bounds:   proposed at height {}, not executed before the end (executable from {})",
            governed.proposed_height, governed.executable_height
        ),
    }
    ensure!(all.len() == sent.len(), "{} honest transfers were not finalized", sent.len() - all.len());
    Ok(())
}

/// Deploys one of the example actors from `deployer` with `value` as its balance, and waits
/// for it.
async fn deploy_example(
    client: &Client,
    deployer: &SecretKey,
    chain_id: u64,
    wat: &str,
    entitlements: &[&str],
    salt: &[u8],
    value: u128,
) -> anyhow::Result<Address> {
    let deploy = Deploy {
        code: wat::parse_str(wat).context("an example actor does not compile")?,
        manifest: Manifest::new(entitlements.iter().map(|e| (*e).to_owned()).collect()),
        salt: salt.to_vec(),
        init: None,
    };
    let actor = deploy.actor_address(&deployer.address());
    let nonce = client.account(&deployer.address()).await?.context("deployer account is empty")?.nonce;
    let tx = bench_tx(deployer, chain_id, nonce, None, value, deploy.encode(), 5_000_000, 100_000);
    let answer = client.submit_wait(std::slice::from_ref(&tx), 10_000).await?;
    ensure!(
        answer.results.first().is_some_and(|r| r.status == drover_types::api::WaitStatus::Success),
        "the deploy did not succeed: {answer:?}"
    );
    Ok(actor)
}

/// Keeps [`ATTACK_WINDOW`] attacking transactions pending until the deadline, each sized to
/// the limits of the moment. Like a wallet, it sends again a next transaction the pool dropped
/// (a lowered limit drops the pending transactions above it), and one left waiting for
/// [`STUCK`] with its cell tip raised by one: between equal tips the pool takes the lower hash
/// first, so without a raise a transaction whose hash is high can wait behind the other
/// attackers' for the whole run.
#[allow(clippy::too_many_arguments)]
async fn attack_with_transactions(
    client: Client,
    key: SecretKey,
    chain_id: u64,
    mut attacker: Attacker,
    target: Address,
    live: Arc<parking_lot::Mutex<Live>>,
    deadline: Instant,
    tally: Arc<Tally>,
) -> anyhow::Result<()> {
    let first = client.account(&key.address()).await?.context("attacker account is empty")?.nonce;
    let mut next = first;
    let mut pending: HashMap<u64, (Transaction, Work)> = HashMap::new();
    let (mut head, mut head_since) = (first, Instant::now());
    while Instant::now() < deadline {
        let executed = client.account(&key.address()).await?.map_or(0, |a| a.nonce);
        pending.retain(|nonce, _| *nonce >= executed);
        if executed != head {
            (head, head_since) = (executed, Instant::now());
        }
        if let Some((waiting, work)) = pending.get(&executed).filter(|_| head_since.elapsed() >= STUCK) {
            head_since = Instant::now();
            let hash = waiting.hash();
            if client.pending_transaction(&hash).await?.is_none() && client.receipt(&hash).await?.is_none() {
                pending.remove(&executed);
                next = executed;
            } else {
                let raised = Transaction { tip_per_cell: waiting.tip_per_cell + 1, signature: None, ..waiting.clone() }
                    .sign(&key);
                if client.submit(std::slice::from_ref(&raised)).await.is_ok_and(|answer| answer.accepted == 1) {
                    let work = *work;
                    tally.admitted.lock().push((raised.hash(), work));
                    pending.insert(executed, (raised, work));
                }
            }
        }
        // After a resend, the later transactions still pending keep their place.
        while pending.contains_key(&next) {
            next += 1;
        }
        if next < executed + ATTACK_WINDOW {
            let limits = *live.lock();
            let Some((message, cycles, cells, work)) = attacker.next(&limits) else {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            };
            let tx = bench_tx(&key, chain_id, next, Some(target), 0, message.encode(), cycles, cells);
            match client.submit(std::slice::from_ref(&tx)).await {
                Ok(answer) if answer.accepted == 1 => {
                    tally.admitted(tx.hash(), work);
                    attacker.admitted(&limits);
                    pending.insert(next, (tx, work));
                    next += 1;
                    continue;
                }
                _ => {
                    tally.refused.fetch_add(1, Ordering::Relaxed);
                    next = next.max(executed);
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// Keeps `live` at the chain's parameters until the deadline.
async fn follow_params(client: Client, live: Arc<parking_lot::Mutex<Live>>, deadline: Instant) -> anyhow::Result<()> {
    while Instant::now() < deadline {
        *live.lock() = Live::of(&client.governance_params().await?)?;
        tokio::time::sleep(PARAMS_POLL).await;
    }
    Ok(())
}

/// The changes of the proposal at the bounds: the least targets, the caps on attached and
/// callback cycles at a quarter of the least cycle target (the most their relation allows),
/// and the most timer fires and deliveries per block, mailbox bytes and pending timers.
fn edge_changes() -> anyhow::Result<Vec<(String, u128)>> {
    let spec = |name: &str| ParamSpec::named(name).with_context(|| format!("no parameter {name}"));
    let target_cycles = spec("target_cycles")?.min;
    let quarter = target_cycles / u128::from(DEFERRED_SHARE_PARTS);
    let mut changes = vec![
        ("target_cycles".to_owned(), target_cycles),
        ("target_cells".to_owned(), spec("target_cells")?.min),
        ("max_attached_cycles".to_owned(), quarter),
        ("max_callback_cycles".to_owned(), quarter),
    ];
    for name in [
        "max_timer_fires_per_block",
        "max_deliveries_per_block",
        "mailbox_capacity_bytes",
        "max_pending_timers_per_actor",
    ] {
        changes.push((name.to_owned(), spec(name)?.max));
    }
    // What the governance actor checks when the proposal is made and executed.
    ChainParams::default().with_changes(&changes).context("the proposal at the bounds is refused")?;
    Ok(changes)
}

/// A governance call from `key`, tipping as honest users do.
fn governance_tx(
    key: &SecretKey,
    chain_id: u64,
    nonce: u64,
    call: &GovernanceCall,
    value: u128,
) -> anyhow::Result<Transaction> {
    let tx = TxBuilder::governance(call, value)
        .chain_id(chain_id)
        .nonce(nonce)
        .max_fee_per_cycle(HONEST_MAX_FEE_PER_CYCLE)
        .tip_per_cycle(HONEST_TIP_PER_CYCLE)
        .max_fee_per_cell(HONEST_MAX_FEE_PER_CELL)
        .tip_per_cell(0)
        .build(&TxContext::default())?;
    Ok(tx.sign(key))
}

/// Waits for the receipt of `tx` and checks that it succeeded.
async fn succeeded(client: &Client, tx: &Transaction) -> anyhow::Result<ReceiptInfo> {
    let deadline = Instant::now() + INCLUSION_TIMEOUT;
    loop {
        if let Some(receipt) = client.receipt(&tx.hash()).await? {
            ensure!(receipt.status == ReceiptStatus::Success, "{receipt:?}");
            return Ok(receipt);
        }
        ensure!(Instant::now() < deadline, "{} was not included", tx.hash());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What the proposal at the bounds came to.
struct Governed {
    changes: Vec<(String, u128)>,
    proposed_height: u64,
    proposed_at: Instant,
    executable_height: u64,
    /// The height of the block that executed it (its values hold from the next one).
    executed_height: Option<u64>,
}

/// Locks the least quorum weight, proposes [`edge_changes`], votes for them, and executes the
/// proposal as soon as its timelock is over, unless the deadline comes first.
async fn govern(client: Client, key: SecretKey, chain_id: u64, deadline: Instant) -> anyhow::Result<Governed> {
    let changes = edge_changes()?;
    let params = client.governance_params().await?;
    let weight = params.value("min_quorum_weight").context("no min_quorum_weight")?;
    let deposit = params.value("proposal_deposit").context("no proposal_deposit")?;
    let proposal = client.proposals(None, 0, 1).await?.total_count;
    let mut nonce = client.account(&key.address()).await?.context("governor account is empty")?.nonce;
    let description = "drover bench hostile: every limit at its edge".to_owned();
    let calls = [
        (GovernanceCall::Lock, weight),
        (GovernanceCall::Propose { changes: changes.clone(), description }, deposit),
        (GovernanceCall::Vote { proposal, support: true }, 0),
    ];
    let mut txs = Vec::new();
    for (call, value) in &calls {
        txs.push(governance_tx(&key, chain_id, nonce, call, *value)?);
        nonce += 1;
    }
    submit_until_admitted(&client, &txs, &AtomicU64::new(0)).await?;
    let mut proposed_at = Instant::now();
    for (i, tx) in txs.iter().enumerate() {
        succeeded(&client, tx).await?;
        if i == 1 {
            proposed_at = Instant::now();
        }
    }
    let info = client.proposal(proposal).await?.context("the proposal is missing")?.proposal;
    let mut governed = Governed {
        changes,
        proposed_height: info.created_height,
        proposed_at,
        executable_height: info.executable_height,
        executed_height: None,
    };
    // The execute lands in the block after the tip it is sent at.
    while client.height().await? + 1 < info.executable_height {
        if Instant::now() >= deadline {
            return Ok(governed);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let execute = governance_tx(&key, chain_id, nonce, &GovernanceCall::Execute { proposal }, 0)?;
    submit_until_admitted(&client, std::slice::from_ref(&execute), &AtomicU64::new(0)).await?;
    governed.executed_height = Some(succeeded(&client, &execute).await?.block_height);
    Ok(governed)
}

/// Has the courier send itself a message every [`HONEST_MESSAGE_INTERVAL`] until the deadline
/// (from `key`, tipping as honest users do); answers each `post` transaction, its sequence
/// number being its index, and when it was submitted.
async fn honest_messages(
    client: Client,
    key: SecretKey,
    chain_id: u64,
    courier: Address,
    deadline: Instant,
) -> anyhow::Result<Vec<(Transaction, Instant)>> {
    let mut nonce = client.account(&key.address()).await?.context("poster account is empty")?.nonce;
    let mut posted = Vec::new();
    let mut every = tokio::time::interval(HONEST_MESSAGE_INTERVAL);
    let busy = AtomicU64::new(0);
    while Instant::now() < deadline {
        every.tick().await;
        let message = Message { handler: "post".to_owned(), payload: (posted.len() as u64).to_le_bytes().to_vec() };
        let tx = Transaction {
            tip_per_cycle: HONEST_TIP_PER_CYCLE,
            max_fee_per_cycle: HONEST_MAX_FEE_PER_CYCLE,
            max_fee_per_cell: HONEST_MAX_FEE_PER_CELL,
            signature: None,
            ..bench_tx(&key, chain_id, nonce, Some(courier), 0, message.encode(), POST_CYCLES_LIMIT, POST_CELLS_LIMIT)
        }
        .sign(&key);
        let at = Instant::now();
        submit_until_admitted(&client, std::slice::from_ref(&tx), &busy).await?;
        nonce += 1;
        posted.push((tx, at));
    }
    Ok(posted)
}

/// What became of an honest message by the end of the run.
#[derive(Clone, Copy)]
enum Fate {
    /// Its `post` did not succeed.
    NotSent,
    /// Delivered this many blocks after the block that sent it.
    Delivered(u64),
    /// Still queued, this many blocks after the block that sent it.
    Queued(u64),
}

/// The fate of each posted message: the courier's records of its deliveries (key: sequence
/// number; value: the heights of the send and the delivery), and the `post` receipts for the
/// others, still queued at `last_height`.
async fn message_fates(
    client: &Client,
    courier: Address,
    posted: &[(Transaction, Instant)],
    last_height: u64,
) -> anyhow::Result<Vec<Fate>> {
    let mut delivered = HashMap::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = client.actor_storage(&courier, cursor.as_deref()).await?.context("the courier is missing")?;
        for entry in page.items {
            let word =
                |bytes: &[u8], at: usize| bytes.get(at..at + 8).and_then(|b| b.try_into().ok()).map(u64::from_le_bytes);
            let (Some(seq), Some(sent), Some(arrived)) =
                (word(&entry.key, 0), word(&entry.value, 0), word(&entry.value, 8))
            else {
                bail!("a courier record is not a sequence number and two heights: {entry:?}");
            };
            delivered.insert(seq, arrived.saturating_sub(sent));
        }
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    let mut fates = Vec::new();
    for (seq, (tx, _)) in posted.iter().enumerate() {
        let fate = match client.receipt(&tx.hash()).await? {
            Some(receipt) if receipt.status == ReceiptStatus::Success => match delivered.get(&(seq as u64)) {
                Some(blocks) => Fate::Delivered(*blocks),
                None => Fate::Queued(last_height.saturating_sub(receipt.block_height)),
            },
            _ => Fate::NotSent,
        };
        fates.push(fate);
    }
    Ok(fates)
}

/// "N sent, N delivered after p50 / p99 / max blocks, N still queued after min – max blocks".
fn describe_fates(fates: &[Fate]) -> String {
    let mut delivered: Vec<u64> =
        fates.iter().filter_map(|f| if let Fate::Delivered(b) = f { Some(*b) } else { None }).collect();
    let mut queued: Vec<u64> =
        fates.iter().filter_map(|f| if let Fate::Queued(b) = f { Some(*b) } else { None }).collect();
    delivered.sort();
    queued.sort();
    let sent = delivered.len() + queued.len();
    let rank = |p: f64| delivered[((delivered.len() - 1) as f64 * p).round() as usize];
    let mut text = format!("{sent} sent, {} delivered", delivered.len());
    if !delivered.is_empty() {
        text += &format!(" after {} / {} / {} blocks (p50 / p99 / max)", rank(0.5), rank(0.99), rank(1.0));
    }
    if let (Some(least), Some(most)) = (queued.first(), queued.last()) {
        text += &format!(", {} still queued after {least} – {most} blocks", queued.len());
    }
    text
}

/// Sends read-only fresh-key scans at the read budget, back to back, until the deadline.
async fn attack_with_reads(
    client: Client,
    reader: Address,
    connection: u32,
    deadline: Instant,
    tally: Arc<Tally>,
) -> anyhow::Result<()> {
    let mut round = 0u32;
    while Instant::now() < deadline {
        let start = connection.wrapping_mul(1 << 24).wrapping_add(round.wrapping_mul(READ_SCAN_KEYS));
        let request = ActorReadRequest {
            actor: reader,
            handler: "scan".to_owned(),
            payload: Some([READ_SCAN_KEYS.to_le_bytes(), start.to_le_bytes()].concat()),
            payload_text: None,
            payload_json: None,
            max_cycles: None,
            max_cells: None,
            from: None,
            trace: None,
        };
        match client.actor_read(&request).await {
            Ok(_) => tally.sent.fetch_add(1, Ordering::Relaxed),
            Err(ClientError::Api { .. }) => tally.refused.fetch_add(1, Ordering::Relaxed),
            Err(e) => return Err(e.into()),
        };
        round += 1;
    }
    Ok(())
}

/// Asks for the largest state-sync batch, again and again, until the deadline.
async fn attack_with_state_sync(client: Client, deadline: Instant, tally: Arc<Tally>) -> anyhow::Result<()> {
    while Instant::now() < deadline {
        let Some(snapshot) = client.state_snapshot().await.ok().flatten() else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        match client.state_operations(snapshot.op_count, snapshot.range_start, None).await {
            Ok(_) => tally.sent.fetch_add(1, Ordering::Relaxed),
            Err(ClientError::Api { .. }) => {
                tally.refused.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
                0
            }
            Err(e) => return Err(e.into()),
        };
    }
    Ok(())
}

/// Sends transfers to random fresh addresses at `rate` per second until the deadline,
/// round-robin over `senders`; answers each one's hash and submission time.
async fn honest_flow(
    client: &Client,
    senders: &[SecretKey],
    chain_id: u64,
    rate: u64,
    deadline: Instant,
) -> anyhow::Result<Vec<(H256, Instant)>> {
    let interval = Duration::from_secs_f64(1.0 / rate as f64);
    let started = Instant::now();
    let mut sent = Vec::new();
    let mut nonces = vec![0u64; senders.len()];
    let busy = AtomicU64::new(0);
    while Instant::now() < deadline {
        tokio::time::sleep_until((started + interval * sent.len() as u32).into()).await;
        let s = sent.len() % senders.len();
        let to = Recipients::Random.address(0);
        let tx = Transaction {
            tip_per_cycle: HONEST_TIP_PER_CYCLE,
            max_fee_per_cycle: HONEST_MAX_FEE_PER_CYCLE,
            // A transfer uses no cells, but must bid the cell basefee, which the attackers' writes raise.
            max_fee_per_cell: HONEST_MAX_FEE_PER_CELL,
            signature: None,
            ..bench_transfer(&senders[s], chain_id, nonces[s], to, 1)
        }
        .sign(&senders[s]);
        nonces[s] += 1;
        let at = Instant::now();
        submit_until_admitted(client, std::slice::from_ref(&tx), &busy).await?;
        sent.push((tx.hash(), at));
    }
    Ok(sent)
}

/// What the block watcher saw.
struct Watched {
    blocks: u64,
    longest_gap: Duration,
    /// The block seen at the end of the longest gap.
    longest_gap_height: u64,
    last_height: u64,
    highest_basefee: u128,
    /// When each block was seen.
    seen_at: HashMap<u64, Instant>,
}

/// Follows finalized blocks until the deadline, stamping each transaction with the time its
/// block was seen (polling every 10 ms), and measuring the longest time between two blocks.
async fn watch_blocks(
    client: Client,
    from: u64,
    deadline: Instant,
    seen: Arc<parking_lot::Mutex<HashMap<H256, Instant>>>,
) -> anyhow::Result<Watched> {
    let mut next = from + 1;
    let mut last_seen = Instant::now();
    let mut watched = Watched {
        blocks: 0,
        longest_gap: Duration::ZERO,
        longest_gap_height: from,
        last_height: from,
        highest_basefee: 0,
        seen_at: HashMap::new(),
    };
    while Instant::now() < deadline {
        match client.block(BlockSelector::Height(next)).await? {
            Some(block) => {
                let now = Instant::now();
                if now - last_seen > watched.longest_gap {
                    (watched.longest_gap, watched.longest_gap_height) = (now - last_seen, next);
                }
                last_seen = now;
                watched.highest_basefee = watched.highest_basefee.max(block.basefee_cycle.parse().unwrap_or(0));
                let mut seen = seen.lock();
                for hash in block.transactions {
                    seen.entry(hash).or_insert(now);
                }
                watched.seen_at.insert(next, now);
                watched.blocks += 1;
                watched.last_height = next;
                next += 1;
            }
            None => tokio::time::sleep(TRACKER_POLL).await,
        }
    }
    Ok(watched)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits at genesis, and under the proposal at the bounds.
    fn limits() -> [Live; 2] {
        let genesis = ChainParams::default();
        let edge = genesis.with_changes(&edge_changes().expect("the proposal")).expect("it applies");
        [genesis, edge].map(|params| Live::from_values(|name| params.get(name)).expect("every limit"))
    }

    #[test]
    fn the_proposal_sits_at_the_bounds_and_passes_the_checks_of_the_governance_actor() {
        let changes = edge_changes().expect("with_changes accepts it");
        for (name, value) in &changes {
            let spec = ParamSpec::named(name).expect("a parameter");
            let quarter = ParamSpec::named("target_cycles").expect("target_cycles").min / 4;
            assert!(*value == spec.min || *value == spec.max || *value == quarter, "{name} = {value}");
            assert!((spec.min..=spec.max).contains(value), "{name} = {value}");
        }
        let [genesis, edge] = limits();
        assert!(edge.target_cycles < genesis.target_cycles && edge.target_cells < genesis.target_cells);
        assert_eq!(4 * edge.max_attached_cycles, edge.target_cycles, "the most the relation allows");
    }

    #[test]
    fn every_attack_fits_the_limits_of_the_moment_and_pays_for_the_work_it_sets_out_to_do() {
        let started = Instant::now();
        for live in limits() {
            for attack in Attack::ALL {
                // The wedge arms, then floods (its flood starts at once here); the others go
                // through every kind of transaction they send.
                let mut attacker = Attacker { attack, sent: 0, armed_cycles: 0, flood_from: started, until_height: 99 };
                for _ in 0..4 {
                    let (message, cycles, cells, work) = attacker.next(&live).expect("a transaction");
                    let at = format!("{attack:?} {} under {live:?}", message.handler);
                    assert!(cycles <= live.attack_cycles() && cells <= live.attack_cells(), "{at}");
                    // What its loop costs, besides its invocation and payload.
                    let (amount, entries) = (work.amount, u64::from(CHURN_ENTRIES));
                    let looping = match message.handler.as_str() {
                        "scan" if work.carried => 0,
                        "scan" => amount * CYCLES_PER_SCANNED_KEY,
                        "walk" => amount * CYCLES_PER_WALKED_ENTRY,
                        "churn" => entries * CYCLES_PER_CHURNED_ENTRY + amount / entries * CYCLES_PER_CHURN_WALK,
                        "flood" => amount * CYCLES_PER_FLOODED_MESSAGE,
                        "pay" => amount * CYCLES_PER_DUST_ACCOUNT,
                        _ => 0,
                    };
                    assert!(work.carried || looping + ATTACK_CYCLES_MARGIN <= cycles, "{at}: {work:?}");
                    if attack != Attack::Nest {
                        assert!(work.amount > 0, "{at}");
                    }
                    attacker.admitted(&live);
                }
            }
        }
    }
}

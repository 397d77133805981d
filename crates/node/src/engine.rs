//! Assembles a validator: p2p, block dissemination, marshal, the stateful application over
//! QMDB, threshold Simplex and the HTTP API, in the order the components require (the
//! application and marshal start before consensus so a restart can drain queued events).
//! The HTTP API runs on tokio runtimes of its own (`HttpRuntime`), so that API work never
//! queues ahead of consensus's tasks, and its push streams on one apart from its requests.
//!
//! Timeouts are the spec's and compiled in: leader 1 s, certification 2 s, nullify retry 10 s,
//! fetch 2 s. The p2p channel plan is fixed: 0 votes, 1 certificates, 2 consensus resolver,
//! 3 block broadcast, 4 marshal backfill, 5 transaction gossip.

use crate::{
    application::{App, Scheme},
    backend::NodeHandle,
    block::Block,
    chain::{ChainConfig, ChainShared},
    config::ValidatorConfig,
    databases::Databases,
    fast_sync::{CatchUp, FETCH_BATCH_OPS, FETCH_CONCURRENCY, HttpPeers, LocalTip, ProgressHook, StateOp, catch_up},
    genesis::Genesis,
    gossip, height_file,
    indexes::Indexes,
    intake,
    keys::NAMESPACE,
    resync::Resync,
    sync_source::AttachedState,
};
use anyhow::{Context as _, anyhow, ensure};
use commonware_broadcast::buffered;
use commonware_consensus::{
    marshal::{
        self,
        core::Actor as MarshalActor,
        resolver::p2p as marshal_resolver,
        standard::{Deferred, Standard},
    },
    simplex::{
        self,
        config::{ForwardPolicy, SkipPolicy},
        elector::RoundRobin,
    },
    types::{Epoch, FixedEpocher, ViewDelta},
};
use commonware_cryptography::{
    ChaCha20Poly1305, Digestible as _, Sha256, Signer as _, certificate::ConstantProvider, ed25519, sha256,
};
use commonware_glue::stateful::{
    Config as StatefulConfig, PruneConfig, Stateful,
    db::{DatabaseSet, SyncEngineConfig},
};
use commonware_p2p::{Address, AddressableManager as _, authenticated::lookup};
use commonware_parallel::Sequential;
use commonware_runtime::{Clock, Handle, Quota, Runner as _, Spawner, Supervisor, buffer::paged::CacheRef, tokio};
use commonware_storage::{
    archive::prunable, journal::contiguous::variable::Config as VariableLogConfig, mmr::full::Config as MerkleConfig,
    qmdb::current::VariableConfig, translator::EightCap,
};
use commonware_stream::{
    cups::{self, Cups},
    sake::{self, Sake},
};
use commonware_utils::{
    NZDuration, NZU16, NZU32, NZU64, NZUsize,
    ordered::{Map, Set},
};
use drover_block::proof::{STATE_MAX_KEY_BYTES, STATE_MAX_VALUE_BYTES};
use std::{
    num::{NonZeroU64, NonZeroUsize},
    sync::Arc,
    time::Duration,
};
use tracing::{info, warn};

/// Leader timeout (spec: 1 s, compiled in).
pub const LEADER_TIMEOUT: Duration = Duration::from_secs(1);
/// Certification timeout (spec: 2 s).
pub const CERTIFICATION_TIMEOUT: Duration = Duration::from_secs(2);
/// Nullify / view-change retry (spec: `NULLIFY_RETRY` = 10 s).
pub const NULLIFY_RETRY: Duration = Duration::from_secs(10);
/// Peer-fetch timeout (spec: 2 s).
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(2);
/// Views below the finalized tip that consensus keeps tracking.
pub const VIEW_RETENTION: u64 = 256;
/// Marshal keeps ten times as many so lagging peers can still fetch (the ×10 activity timeout
/// a syncing node gets).
pub const MARSHAL_VIEW_RETENTION: u64 = VIEW_RETENTION * 10;
/// Largest p2p message (bounded below by the largest block).
pub const MAX_MESSAGE_BYTES: u32 = 16 * 1024 * 1024;
/// Transaction gossip messages (each up to 50 transactions) accepted per second from one peer.
pub const GOSSIP_MESSAGES_PER_SEC: u32 = 1_024;
/// How often the mempool drops transactions older than its TTL.
pub const MEMPOOL_EVICTION_INTERVAL: Duration = Duration::from_secs(10);
/// How long a graceful stop may take before tasks are aborted.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// How long the HTTP API may take, once the node stops, to finish the requests in flight. Push
/// streams never finish by themselves: they are cut after it, and their clients resume with
/// `Last-Event-ID` from another node or after the restart.
pub const HTTP_SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

const IO_BUFFER: NonZeroUsize = NZUsize!(1 << 20);
/// Bytes of one page of the storage page cache.
const PAGE_BYTES: u16 = 4096;
/// Storage page cache shared by QMDB's operation log and Merkle journal, the block archives and
/// the consensus journal, in bytes. Sized so that the live part of a state of 1,000,000 accounts
/// and 1,000,000 actor entries stays in it: a state lookup that misses it pays a file read
/// through the blocking pool (~27 µs, about seven times what a `balance_of` is priced at),
/// while one that hits costs about 1 µs. With 16 MiB, lookups at 1,000,000 accounts missed
/// almost always; with this size they cost 4.9 µs of block execution each, VM included
/// (`docs/performance.md`, "State at scale"). The cache fills as pages are read: it is resident
/// memory the node keeps.
const PAGE_CACHE_BYTES: usize = 256 << 20;
/// Pages of [`PAGE_CACHE_BYTES`].
const PAGE_CACHE_PAGES: NonZeroUsize = NZUsize!(PAGE_CACHE_BYTES / PAGE_BYTES as usize);
const MAILBOX: NonZeroUsize = NZUsize!(1024);
const PRUNABLE_ITEMS_PER_SECTION: NonZeroU64 = NZU64!(4096);
/// Prefix of the storage partitions of a production node.
pub const PARTITION_PREFIX: &str = "drover";
const QMDB_INIT_CACHE: NonZeroUsize = NZUsize!(1 << 20);
/// Finalized blocks whose state stays servable to syncing peers (and provable) after newer ones:
/// at the default pacing about two minutes, so a peer that started fast-sync against a slightly
/// older target can finish without restarting on a newer one.
pub const RETAINED_STATE_BLOCKS: usize = 1_200;
/// Finalized blocks (with their certificates) kept below the tip, which peers serve to a
/// validator replaying what it missed: a validator further behind cannot replay, only
/// fast-sync (`--sync-from`), so fast-sync starts well before.
pub const RETAINED_BLOCKS: usize = 100_000;
const _: () = assert!(crate::fast_sync::FAST_SYNC_MIN_GAP_BLOCKS < RETAINED_BLOCKS as u64 / 2);

/// Bounds on what one logged state operation may decode to (key and value sizes).
fn state_op_codec_config<E: Spawner + commonware_storage::Context>() -> <StateOp<E> as commonware_codec::Read>::Cfg {
    (((0..=STATE_MAX_KEY_BYTES).into(), ()), ((0..=STATE_MAX_VALUE_BYTES).into(), ()))
}

/// Marshal's archives, keyed by block digest: eight bytes of a SHA-256 digest keep collisions
/// as rare as chance makes them (a proposer would need a 2^64 search to collide on purpose).
fn archive_config<C>(prefix: &str, name: &str, page_cache: CacheRef, codec_config: C) -> prunable::Config<EightCap, C> {
    prunable::Config {
        translator: EightCap,
        metadata_partition: format!("{prefix}-{name}-metadata"),
        key_partition: format!("{prefix}-{name}-key"),
        key_page_cache: page_cache,
        value_partition: format!("{prefix}-{name}-value"),
        compression: None,
        codec_config,
        items_per_section: PRUNABLE_ITEMS_PER_SECTION,
        key_write_buffer: IO_BUFFER,
        value_write_buffer: IO_BUFFER,
        replay_buffer: IO_BUFFER,
    }
}

/// The state database's configuration, its partitions named after `prefix`. Nothing in it
/// changes the roots a block commits to; tests that run the application without the engine
/// open their state database with it too.
pub fn qmdb_config<E: Spawner + commonware_storage::Context>(
    prefix: &str,
    page_cache: CacheRef,
) -> <Databases<E> as DatabaseSet<E>>::Config {
    VariableConfig {
        merkle_config: MerkleConfig {
            journal_partition: format!("{prefix}-state-mmr-journal"),
            metadata_partition: format!("{prefix}-state-mmr-metadata"),
            items_per_blob: NZU64!(1 << 16),
            write_buffer: IO_BUFFER,
            replay_buffer: IO_BUFFER,
            strategy: Sequential,
            page_cache: page_cache.clone(),
        },
        journal_config: VariableLogConfig {
            partition: format!("{prefix}-state-log"),
            items_per_section: NZU64!(1 << 14),
            compression: None,
            codec_config: state_op_codec_config::<E>(),
            page_cache,
            write_buffer: IO_BUFFER,
            replay_buffer: IO_BUFFER,
        },
        grafted_metadata_partition: format!("{prefix}-state-grafted"),
        translator: crate::translator::StatePrefix,
        init_cache: Some(QMDB_INIT_CACHE),
        init_buffer: IO_BUFFER,
        init_concurrency: (),
    }
}

/// The genesis block of `genesis`, as every validator must build it (its digest is block 1's
/// parent): never executed, it commits to the genesis document and to the empty state
/// database, and names the first validator in key order as its leader.
pub fn genesis_block<E: crate::databases::Bounds>(genesis: &Genesis) -> anyhow::Result<Block> {
    let initial = <Databases<E> as DatabaseSet<E>>::initial_sync_targets();
    let participants = Set::from_iter_dedup(genesis.validators.iter().cloned());
    let leader = participants.iter().next().cloned().ok_or_else(|| anyhow!("genesis has no validator"))?;
    Ok(Block::genesis(leader, genesis.commitment, genesis.file.timestamp_ms, initial.root, initial.range))
}

/// Most finalized blocks the indexes can be ahead of the state after a crash (marshal's window
/// of unacknowledged deliveries, with a margin).
const REPLAY_WINDOW_BLOCKS: u64 = 64;

/// The height and timestamp of the finalized block at or below `indexed` whose post-state root
/// is `root`, if it is within [`REPLAY_WINDOW_BLOCKS`].
async fn applied_block(
    marshal: &marshal::core::Mailbox<Scheme, Standard<Block>>,
    root: sha256::Digest,
    indexed: u64,
) -> Option<(u64, u64)> {
    for height in (indexed.saturating_sub(REPLAY_WINDOW_BLOCKS)..=indexed).rev() {
        let block =
            marshal.get_block(marshal::Identifier::Height(commonware_consensus::types::Height::new(height))).await?;
        if block.inner().state_root == root {
            return Some((height, block.inner().timestamp_ms));
        }
    }
    None
}

/// Where the node's indexes say it stands (they are written before a block's state is applied,
/// so at or a few blocks above its state: close enough to measure a gap of many blocks).
fn local_tip(directory: &std::path::Path) -> anyhow::Result<LocalTip> {
    let indexes = Indexes::open(directory).context("cannot open the index store")?;
    let (height, view) = indexes.tip_view().context("cannot read the index store")?;
    Ok(LocalTip { height, view })
}

/// What the engine needs besides its runtime context.
pub struct EngineConfig {
    /// The validated validator configuration.
    pub validator: ValidatorConfig,
    /// The validated genesis.
    pub genesis: Genesis,
    /// HTTP API settings (rate limits, dev mode, timeouts).
    pub rpc: drover_rpc::RpcConfig,
    /// Peers' HTTP APIs to fast-sync from (`--sync-from`) when this node has no state yet, or
    /// is at least `fast_sync_min_gap_blocks` behind them.
    pub sync_from: Vec<String>,
    /// Blocks behind the peers from which a node with state fast-syncs (`--fast-sync-min-gap`,
    /// [`crate::fast_sync::FAST_SYNC_MIN_GAP_BLOCKS`] by default).
    pub fast_sync_min_gap_blocks: u64,
    /// Receives fast-sync progress (a progress bar).
    pub sync_progress: Option<ProgressHook>,
}

/// Runs a validator in the production (tokio) runtime until SIGINT or SIGTERM, then stops
/// gracefully. Kept here, not in the binary, so the runtime's generic code is instantiated
/// once, in this crate.
pub fn run_until_signalled(config: EngineConfig) -> anyhow::Result<()> {
    let validator = &config.validator;
    std::fs::create_dir_all(&validator.directory)
        .with_context(|| format!("cannot create `directory` {}", validator.directory.display()))?;
    let runtime = tokio::Config::new()
        .with_worker_threads(validator.worker_threads)
        .with_storage_directory(validator.directory.clone())
        .with_tcp_nodelay(Some(true))
        .with_catch_panics(false);
    tokio::Runner::new(runtime).start(|context| async move {
        context.child("signals").spawn(|context| async move {
            wait_for_signal().await;
            info!("signal received: stopping gracefully");
            let _ = context.stop(0, Some(SHUTDOWN_GRACE)).await;
        });
        run(context, config).await
    })
}

async fn wait_for_signal() {
    use ::tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            ::tokio::select! {
                _ = ::tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = ::tokio::signal::ctrl_c().await;
        }
    }
}

/// The p2p channels of a validator, by purpose (see the module docs for their numbers).
pub struct Channels<S, R> {
    /// Channel 0: consensus votes.
    pub votes: (S, R),
    /// Channel 1: consensus certificates.
    pub certificates: (S, R),
    /// Channel 2: the consensus resolver (fetching missing certificates).
    pub consensus_resolver: (S, R),
    /// Channel 3: block broadcast.
    pub broadcast: (S, R),
    /// Channel 4: marshal backfill of finalized blocks.
    pub backfill: (S, R),
    /// Channel 5: transaction gossip.
    pub gossip: (S, R),
}

/// Per-peer quota of each channel, indexed by channel number.
pub fn channel_quotas() -> [Quota; 6] {
    let consensus = Quota::per_second(NZU32!(1_024));
    let blocks = Quota::per_second(NZU32!(128));
    [consensus, consensus, consensus, blocks, blocks, Quota::per_second(NZU32!(GOSSIP_MESSAGES_PER_SEC))]
}

/// Registers the validator's channels (numbers and quotas of [`channel_quotas`]) on any p2p
/// network.
pub fn register_channels<S, R>(mut register: impl FnMut(u64, Quota) -> (S, R)) -> Channels<S, R> {
    let [votes, certificates, consensus_resolver, broadcast, backfill, gossip] = channel_quotas();
    Channels {
        votes: register(0, votes),
        certificates: register(1, certificates),
        consensus_resolver: register(2, consensus_resolver),
        broadcast: register(3, broadcast),
        backfill: register(4, backfill),
        gossip: register(5, gossip),
    }
}

/// What [`start`] needs besides the runtime and the network.
pub struct StartConfig {
    /// The validated validator configuration.
    pub validator: ValidatorConfig,
    /// The validated genesis.
    pub genesis: Genesis,
    /// Prefix of every storage partition (one runtime may host several validators in tests).
    pub partition_prefix: String,
    /// HTTP peers to fast-sync from when this node has no state yet, or is far behind them.
    pub sync_peers: Option<HttpPeers>,
    /// Blocks behind its peers from which a node with state fast-syncs instead of replaying.
    pub fast_sync_min_gap_blocks: u64,
    /// Rewrites this validator's proposals: `None` for every real validator; the deterministic
    /// simulation's byzantine validators set one.
    pub rewrite: Option<Arc<dyn crate::application::ProposalRewrite>>,
}

/// A running validator's shared parts.
pub struct Validator<E: Spawner + commonware_storage::Context> {
    /// Chain state shared with the HTTP API.
    pub chain: Arc<ChainShared>,
    /// The state database set.
    pub databases: Databases<E>,
    /// Marshal's mailbox: finalized blocks in height order.
    pub marshal: marshal::core::Mailbox<Scheme, Standard<Block>>,
    /// Transaction gossip to the other validators; `None` on a single-validator network.
    pub gossip: Option<gossip::GossipHandle>,
    /// Digest of the genesis block.
    pub genesis_digest: sha256::Digest,
    /// Ends when consensus stops.
    pub consensus: Handle<()>,
}

/// Checks the identity and key material of `validator` against `genesis` and builds the
/// threshold signer.
pub fn signer(validator: &ValidatorConfig, genesis: &Genesis) -> anyhow::Result<(Scheme, Set<ed25519::PublicKey>)> {
    let me = validator.private_key.public_key();
    let participants = Set::from_iter_dedup(genesis.validators.iter().cloned());
    ensure!(participants.len() == genesis.validators.len(), "genesis lists a validator twice");
    ensure!(
        participants.position(&me).is_some(),
        "config field `private_key`: this identity is not one of the genesis validators"
    );
    ensure!(
        validator.polynomial.public() == &genesis.identity,
        "config field `polynomial`: its group key differs from the genesis `identity`"
    );
    let scheme = Scheme::signer(NAMESPACE, participants.clone(), validator.polynomial.clone(), validator.share.clone())
        .ok_or_else(|| anyhow!("config field `share`: does not belong to this validator under `polynomial`"))?;
    let peer_keys = Set::from_iter_dedup(validator.peers.iter().map(|(k, _)| k.clone()));
    ensure!(peer_keys == participants, "config field `p2p.peers`: must list exactly the genesis validators");
    Ok((scheme, participants))
}

/// Starts a validator's block dissemination, marshal, state and consensus on any runtime and
/// p2p network (production: tokio + authenticated lookup; tests: deterministic + simulated).
/// `blocker` and `provider` are the network's peer blocker and peer-set provider.
pub async fn start<E, S, R, B, P>(
    context: E,
    config: StartConfig,
    channels: Channels<S, R>,
    blocker: B,
    provider: P,
) -> anyhow::Result<Validator<E>>
where
    E: Spawner + Supervisor + Clock + commonware_runtime::Metrics + commonware_storage::Context + rand_core::CryptoRng,
    S: commonware_p2p::Sender<PublicKey = ed25519::PublicKey>,
    R: commonware_p2p::Receiver<PublicKey = ed25519::PublicKey>,
    B: commonware_p2p::Blocker<PublicKey = ed25519::PublicKey>,
    P: commonware_p2p::Provider<PublicKey = ed25519::PublicKey>,
{
    let StartConfig { validator, genesis, partition_prefix, sync_peers, fast_sync_min_gap_blocks, rewrite } = config;
    let (scheme, participants) = signer(&validator, &genesis)?;
    let me = validator.private_key.public_key();
    let prefix = partition_prefix.as_str();

    // Height hint (only consulted when persistence is on).
    if let Some(path) = &validator.height_file
        && let Some(hint) = height_file::read(path)
    {
        info!(hint, "height.dat found: the node resumes at or above this height");
    }

    // Block dissemination and backfill.
    let resolver = marshal_resolver::init(
        context.child("marshal_resolver"),
        marshal_resolver::Config {
            public_key: me.clone(),
            peer_provider: provider.clone(),
            blocker: blocker.clone(),
            mailbox_size: MAILBOX,
            fetch_timeout: NZDuration!(FETCH_TIMEOUT),
            fetch_retry_delay: Duration::from_millis(100),
            priority_requests: false,
            priority_responses: false,
        },
        channels.backfill,
    );
    let (broadcast_engine, buffer) = buffered::Engine::new(
        context.child("broadcast"),
        buffered::Config {
            public_key: me.clone(),
            mailbox_size: MAILBOX,
            deque_size: 10,
            priority: false,
            codec_config: (),
            peer_provider: provider.clone(),
            strategy: Sequential,
        },
    );
    broadcast_engine.start(channels.broadcast);

    let page_cache = CacheRef::new(NZU16!(PAGE_BYTES), PAGE_CACHE_PAGES);
    let finalizations = prunable::Archive::init(
        context.child("finalizations"),
        archive_config(prefix, "finalizations", page_cache.clone(), ()),
    )
    .await
    .context("cannot open the finalizations archive")?;
    let blocks =
        prunable::Archive::init(context.child("blocks"), archive_config(prefix, "blocks", page_cache.clone(), ()))
            .await
            .context("cannot open the blocks archive")?;

    // Genesis.
    let genesis_block = genesis_block::<E>(&genesis)?;
    let genesis_digest = genesis_block.digest();

    // Startup plan: given peers, a node without state fast-syncs to their latest finalized
    // block, and so does a node with state that is far behind it (`crate::resync`); an
    // interrupted fast-sync resumes from its persisted floor whatever the flags.
    let resync = Resync::open(context.child("resync"), prefix).await?;
    let mut plan = resync.plan().await;
    let mut resync = resync;
    if let Some(peers) = &sync_peers {
        if plan.may_sync() {
            if plan.floor().is_none() {
                let target = peers.select_target(&scheme).await?;
                plan = plan.set_floor(target.finalization).await;
            }
        } else {
            match peers.select_target(&scheme).await {
                Err(e) => warn!(error = %e, "--sync-from: no usable target, replaying the missing blocks"),
                Ok(target) => {
                    let local = local_tip(&validator.directory)?;
                    match catch_up(local, target.height, target.view(), fast_sync_min_gap_blocks) {
                        CatchUp::Ahead => info!(height = local.height, "--sync-from: this node is not behind its peer"),
                        CatchUp::Replay { behind } => {
                            info!(
                                behind,
                                min_gap = fast_sync_min_gap_blocks,
                                "--sync-from: replaying the missing blocks"
                            )
                        }
                        CatchUp::FastSync { behind } => {
                            info!(
                                behind,
                                min_gap = fast_sync_min_gap_blocks,
                                "--sync-from: fast-syncing over the existing state"
                            );
                            (resync, plan) = resync.begin(plan, target.finalization).await?;
                        }
                    }
                }
            }
        }
    }
    resync.discard_stale_indexes(&validator.directory).await?;
    if plan.should_sync(false) {
        ensure!(
            sync_peers.is_some(),
            "an interrupted fast-sync must finish: start the node again with `--sync-from URL`"
        );
        info!("fast-sync: fetching state from peers, then following the chain");
    }
    let (marshal_actor, marshal_mailbox, floor) = MarshalActor::<_, Standard<Block>, _, _, _, _, _>::init(
        context.child("marshal"),
        finalizations,
        blocks,
        marshal::Config {
            provider: ConstantProvider::new(scheme.clone()),
            epocher: FixedEpocher::new(NZU64!(u64::MAX)),
            start: plan
                .marshal_start(commonware_cryptography::Digested::precomputed(genesis_block.clone(), genesis_digest)),
            partition_prefix: format!("{prefix}-marshal"),
            mailbox_size: MAILBOX,
            view_retention: ViewDelta::new(MARSHAL_VIEW_RETENTION),
            prunable_items_per_section: PRUNABLE_ITEMS_PER_SECTION,
            page_cache: page_cache.clone(),
            replay_buffer: IO_BUFFER,
            key_write_buffer: IO_BUFFER,
            value_write_buffer: IO_BUFFER,
            block_codec_config: (),
            max_repair: NZUsize!(16),
            max_pending_acks: NZUsize!(4),
            strategy: Sequential,
        },
    )
    .await;

    // Chain state shared by the application and the API.
    let chain = Arc::new(ChainShared::open(
        ChainConfig {
            genesis: genesis.clone(),
            block_interval_ms: validator.block_interval_ms,
            tips_account: validator.tips_account,
            height_file: validator.height_file.clone(),
            account_cache_entries: validator.account_cache_entries,
        },
        validator.mempool.clone(),
        &validator.directory,
        &context.child("chain"),
    )?);

    let attached = AttachedState::<E>::new(sync_peers, state_op_codec_config::<E>());
    let (stateful, stateful_mailbox) = Stateful::new(
        context.child("stateful"),
        StatefulConfig {
            application: App::new(genesis_block.clone(), chain.clone(), rewrite),
            db_config: qmdb_config::<E>(prefix, page_cache.clone()),
            provider: (),
            marshal: (marshal_mailbox.clone(), floor),
            mailbox_size: MAILBOX,
            plan,
            resolvers: attached,
            sync_config: SyncEngineConfig {
                fetch_batch_size: NZU64!(FETCH_BATCH_OPS),
                apply_batch_size: NZU64!(FETCH_BATCH_OPS),
                max_outstanding_requests: NZUsize!(FETCH_CONCURRENCY),
            },
            prune_config: Some(PruneConfig {
                maintenance_interval: NZUsize!(64),
                retained_marshal_blocks: RETAINED_BLOCKS,
                retained_qmdb_blocks: RETAINED_STATE_BLOCKS,
            }),
            strategy: Sequential,
        },
    );
    let deferred = Deferred::new(
        context.child("deferred"),
        stateful_mailbox.clone(),
        marshal_mailbox.clone(),
        FixedEpocher::new(NZU64!(u64::MAX)),
    );
    marshal_actor.start(stateful_mailbox.clone(), buffer, resolver);
    stateful.start();
    let databases = stateful_mailbox.subscribe_databases().await;
    let root = {
        let db = databases.read().await;
        info!(root = ?db.root(), ops = ?db.bounds().end, "state database ready");
        db.root()
    };
    if let Some((height, timestamp_ms)) = applied_block(&marshal_mailbox, root, chain.tip().height).await {
        chain.start_at(height, timestamp_ms);
    }
    chain.refresh_basefees(&databases).await;

    // Consensus.
    let engine = simplex::Engine::new(
        context.child("consensus"),
        simplex::Config {
            scheme,
            elector: RoundRobin::<Sha256>::default(),
            blocker: blocker.clone(),
            automaton: deferred.clone(),
            relay: deferred.clone(),
            reporter: crate::certificates::CertificateTee::new(deferred, chain.certificates.clone()),
            strategy: Sequential,
            partition: format!("{prefix}-consensus-0"),
            mailbox_size: MAILBOX,
            epoch: Epoch::zero(),
            floor: simplex::config::Floor::Genesis(genesis_digest),
            replay_buffer: IO_BUFFER,
            write_buffer: IO_BUFFER,
            page_cache,
            leader_timeout: LEADER_TIMEOUT,
            certification_timeout: CERTIFICATION_TIMEOUT,
            timeout_retry: NULLIFY_RETRY,
            view_retention: ViewDelta::new(VIEW_RETENTION),
            skip: SkipPolicy::Enabled {
                timeout: NULLIFY_RETRY + Duration::from_secs(5),
                budget: simplex::SkipBudget::Participants,
            },
            fetch_timeout: NZDuration!(FETCH_TIMEOUT),
            fetch_retry_delay: Duration::from_millis(100),
            forward: ForwardPolicy::Disabled,
            track_historical_votes: false,
        },
    );
    let consensus: Handle<()> = engine.start(channels.votes, channels.certificates, channels.consensus_resolver);

    // Mempool housekeeping.
    context.child("mempool_eviction").spawn({
        let chain = chain.clone();
        move |context| async move {
            loop {
                context.sleep(MEMPOOL_EVICTION_INTERVAL).await;
                let evicted = chain.mempool.evict_stale(std::time::Instant::now());
                if evicted > 0 {
                    info!(evicted, "evicted stale mempool transactions");
                }
                chain.metrics.set_mempool(chain.mempool.len());
            }
        }
    });

    // Transaction gossip (only useful with peers).
    let (gossip_sender, gossip_receiver) = channels.gossip;
    let gossip = (participants.len() > 1).then(|| {
        let (chain, databases) = (chain.clone(), databases.clone());
        gossip::start(&context, gossip_sender, gossip_receiver, blocker, chain.clone(), move |txs| {
            let (chain, databases) = (chain.clone(), databases.clone());
            async move { intake::admit(&chain, &databases, txs).await }
        })
    });

    Ok(Validator { chain, databases, marshal: marshal_mailbox, gossip, genesis_digest, consensus })
}

/// Runs a validator on the authenticated p2p network and serves its HTTP API until the runtime
/// is stopped (SIGINT/SIGTERM or `context.stop`).
pub async fn run(context: tokio::Context, config: EngineConfig) -> anyhow::Result<()> {
    let EngineConfig { validator, genesis, rpc, sync_from, fast_sync_min_gap_blocks, sync_progress } = config;
    let (_, participants) = signer(&validator, &genesis)?;
    let me = validator.private_key.public_key();

    // p2p.
    let namespace_p2p = [NAMESPACE, b"_P2P"].concat();
    let p2p_config = lookup::Config::local(
        Cups::<_, ChaCha20Poly1305>::new(
            Sake {
                signer: validator.private_key.clone(),
                synchrony_bound: Duration::from_secs(5),
                max_handshake_age: Duration::from_secs(10),
                version: sake::Version::V1,
            },
            cups::Version::V1,
        ),
        &namespace_p2p,
        validator.p2p_listen,
        commonware_p2p::authenticated::peer_set_limit(&participants, &me),
        MAX_MESSAGE_BYTES,
        MAILBOX,
    );
    let (mut network, mut oracle) = lookup::Network::new(context.child("network"), p2p_config);
    let peers: Map<ed25519::PublicKey, Address> = validator
        .peers
        .iter()
        .map(|(k, a)| (k.clone(), Address::from(*a)))
        .collect::<Vec<_>>()
        .try_into()
        .map_err(|_| anyhow!("config field `p2p.peers`: duplicate identity"))?;
    let _ = oracle.track(0, peers);
    let channels = register_channels(|channel, quota| network.register(channel, quota));
    network.start();

    let sync_peers = if sync_from.is_empty() { None } else { Some(HttpPeers::new(&sync_from, sync_progress)?) };
    let faucet = validator.faucet.clone();
    let rpc_addr = validator.rpc_addr;
    let metrics_reader = Arc::new(context.child("metrics_reader"));
    let stopped = context.stopped();

    // HTTP first: while the state opens (or fast-syncs) only /health and /metrics answer.
    let listener = std::net::TcpListener::bind(rpc_addr)
        .and_then(|listener| listener.set_nonblocking(true).map(|()| listener))
        .with_context(|| format!("cannot listen on {rpc_addr} (config field `rpc_port`)"))?;
    let http_runtime = HttpRuntime::new(validator.worker_threads)?;
    let switch = drover_rpc::starting::Switch::new(Arc::new({
        let metrics = metrics_reader.clone();
        move || commonware_runtime::Metrics::encode(metrics.as_ref())
    }));
    let layers = drover_rpc::Http::new(&rpc);
    let api = drover_rpc::layered(switch.clone(), &layers);
    let http_stopped = context.stopped();
    let streams = http_runtime.streams.clone();
    let mut http = http_runtime.spawn(async move {
        let shutdown = async move {
            let _ = http_stopped.await;
        };
        let served = match ::tokio::net::TcpListener::from_std(listener) {
            Ok(listener) => drover_rpc::serve_streams_apart(listener, api, shutdown, streams).await,
            Err(e) => Err(e),
        };
        if let Err(e) = served {
            warn!(?e, "HTTP server stopped with an error");
        }
    });

    // The root context, so metric names stay `chain_*`, `consensus_*`, ... without a prefix.
    let started = ::tokio::select! {
        started = start(
            context,
            StartConfig {
                validator,
                genesis: genesis.clone(),
                partition_prefix: PARTITION_PREFIX.to_string(),
                sync_peers,
                fast_sync_min_gap_blocks,
                rewrite: None,
            },
            channels,
            oracle.clone(),
            oracle,
        ) => started?,
        _ = stopped.clone() => {
            info!("stopped before the state was ready");
            return Ok(());
        }
    };

    let handle = NodeHandle::new(
        started.chain.clone(),
        started.marshal,
        started.databases,
        metrics_reader,
        started.genesis_digest,
        faucet,
        started.gossip,
    );
    switch.ready(drover_rpc::router(handle, rpc, &layers));
    info!(addr = %rpc_addr, chain_id = genesis.chain_id(), network = genesis.network(), "HTTP API listening");

    // Run until stopped.
    ::tokio::select! {
        _ = stopped => {
            info!("stopping");
            // The server finishes the requests in flight (it was told by the same signal); open
            // streams would hold it for good.
            let _ = ::tokio::time::timeout(HTTP_SHUTDOWN_GRACE, &mut http).await;
        }
        r = started.consensus => warn!(?r, "consensus engine exited"),
        r = &mut http => warn!(?r, "HTTP server exited"),
    }
    Ok(())
}

/// The HTTP API's own runtimes, apart from consensus's. On one runtime, a burst of API work
/// (every block's message written to a thousand streams, a flood of reads) queues on the same
/// workers ahead of the tasks that propose, verify and finalize blocks, and each block waits
/// for it; on two, the OS scheduler shares the cores between them. The push streams get a third
/// (one worker: their writes are many and small, and none is urgent next to a request), so a
/// block's fan-out to every stream does not hold the answers to requests either
/// ([`drover_rpc::serve_streams_apart`]). Dropped (the node stopping), they stop their tasks
/// without waiting for them.
struct HttpRuntime {
    requests: ::tokio::runtime::Handle,
    streams: ::tokio::runtime::Handle,
    /// Both runtimes, taken when dropped.
    runtimes: Vec<::tokio::runtime::Runtime>,
}

/// Worker threads of the runtime that writes the push streams.
const STREAM_WORKER_THREADS: usize = 1;

impl HttpRuntime {
    fn new(worker_threads: usize) -> anyhow::Result<Self> {
        let runtime = ::tokio::runtime::Builder::new_multi_thread()
            .worker_threads(worker_threads)
            .thread_name("http")
            .enable_all()
            .build()
            .context("cannot start the HTTP API's runtime")?;
        let streams = ::tokio::runtime::Builder::new_multi_thread()
            .worker_threads(STREAM_WORKER_THREADS)
            .thread_name("http-streams")
            .enable_all()
            .build()
            .context("cannot start the HTTP API's runtime for streams")?;
        Ok(Self {
            requests: runtime.handle().clone(),
            streams: streams.handle().clone(),
            runtimes: vec![runtime, streams],
        })
    }

    fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) -> ::tokio::task::JoinHandle<()> {
        self.requests.spawn(task)
    }
}

impl Drop for HttpRuntime {
    fn drop(&mut self) {
        // Dropping a runtime blocks on its workers, which an async context may not do.
        for runtime in self.runtimes.drain(..) {
            runtime.shutdown_background();
        }
    }
}

//! The harness the deterministic simulations share: a generated four-validator network, the
//! real engine (`engine::start`) started per validator on Commonware's deterministic runtime and
//! simulated network (latency, jitter and loss on every link), and helpers to read what the
//! validators finalized and to build the workloads' transactions.
#![allow(dead_code, reason = "each simulation uses a part of the shared harness")]

use commonware_consensus::marshal::{Identifier, core::Mailbox, standard::Standard};
use commonware_consensus::types::Height;
use commonware_cryptography::{Digestible as _, Signer as _, ed25519, sha256};
use commonware_p2p::simulated::{self, Link};
use commonware_runtime::{Clock as _, Handle, Spawner as _, Supervisor as _, deterministic};
use commonware_utils::{NZUsize, probability};
use drover_node::{
    application::{ProposalRewrite, Scheme},
    block::Block,
    chain::ChainShared,
    config::ValidatorConfig,
    databases::Databases,
    devnet::{self, NetworkSpec},
    engine::{self, MAX_MESSAGE_BYTES, StartConfig},
    genesis::Genesis,
};
use drover_types::{
    Address, SecretKey, Transaction,
    params::system_call_limits,
    payload::{Deploy, Manifest},
};
use parking_lot::Mutex;
use std::{collections::BTreeMap, path::Path, sync::Arc, time::Duration};

pub(crate) const VALIDATORS: u32 = 4;
/// Virtual time a run may take before the runtime aborts it.
pub(crate) const RUN_TIMEOUT: Duration = Duration::from_secs(600);

pub(crate) type Runtime = deterministic::Context;
pub(crate) type Oracle = simulated::Oracle<ed25519::PublicKey, Runtime>;
/// Where a started validator's handles appear.
pub(crate) type Slot = Arc<Mutex<Option<Running>>>;

/// What a test reads from a running validator.
#[derive(Clone)]
pub(crate) struct Running {
    pub(crate) chain: Arc<ChainShared>,
    pub(crate) databases: Databases<Runtime>,
    pub(crate) marshal: Mailbox<Scheme, Standard<Block>>,
}

/// A generated network, reused by every run of a test so their inputs are identical.
pub(crate) struct Network {
    _dir: tempfile::TempDir,
    pub(crate) validators: Vec<ValidatorConfig>,
    pub(crate) genesis: Genesis,
}

pub(crate) fn network() -> Network {
    let dir = tempfile::tempdir().unwrap();
    let spec = NetworkSpec { validators: VALIDATORS, ..NetworkSpec::devnet() };
    devnet::generate(dir.path(), &spec).unwrap();
    let validators: Vec<_> =
        (0..VALIDATORS).map(|i| ValidatorConfig::load(&devnet::validator_file(dir.path(), i)).unwrap()).collect();
    let genesis = Genesis::load(&validators[0].genesis_config_path).unwrap();
    Network { _dir: dir, validators, genesis }
}

impl Network {
    /// The configuration of validator `index` for the `run`-th start of it, with its indexes
    /// (fjall, on the real disk) under `index_dir`: a restarted validator gets a new, empty
    /// index store because the crashed instance's store is only closed when the runtime drops
    /// it.
    pub(crate) fn config(&self, index: usize, index_dir: &Path, run: usize) -> ValidatorConfig {
        let mut config = self.validators[index].clone();
        config.directory = index_dir.join(format!("run-{run}"));
        std::fs::create_dir_all(&config.directory).unwrap();
        config
    }

    /// The validators' identities, in validator order.
    pub(crate) fn keys(&self) -> Vec<ed25519::PublicKey> {
        self.validators.iter().map(|v| v.private_key.public_key()).collect()
    }
}

/// A directory for one validator's indexes (fjall, on a real file system). Each finalized block
/// is synced to it on every validator, which on a disk dominates a run's wall time, so it lives
/// in memory-backed `/dev/shm` where the machine has one.
pub(crate) fn index_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    match shm.is_dir() {
        true => tempfile::Builder::new().prefix("drover-sim").tempdir_in(shm).unwrap(),
        false => tempfile::tempdir().unwrap(),
    }
}

/// The runtime's configuration for a run of `network` with `seed`: it starts a second after
/// genesis.
pub(crate) fn runtime_config(network: &Network, seed: u64) -> deterministic::Config {
    let start_time = std::time::UNIX_EPOCH + Duration::from_millis(network.genesis.file.timestamp_ms + 1_000);
    deterministic::Config::default().with_seed(seed).with_start_time(start_time).with_timeout(Some(RUN_TIMEOUT))
}

/// A lossy link: 20 ms ± 5 ms, one message in ten lost.
pub(crate) fn lossy_link() -> Link {
    Link { latency: Duration::from_millis(20), jitter: Duration::from_millis(5), success_rate: probability!(0.9) }
}

/// A link that loses nothing: 20 ms ± 5 ms.
pub(crate) fn steady_link() -> Link {
    Link { latency: Duration::from_millis(20), jitter: Duration::from_millis(5), success_rate: probability!(1.0) }
}

pub(crate) async fn connect(oracle: &Oracle, a: &ed25519::PublicKey, b: &ed25519::PublicKey, link: Link) {
    oracle.add_link(a.clone(), b.clone(), link.clone()).await.unwrap();
    oracle.add_link(b.clone(), a.clone(), link).await.unwrap();
}

pub(crate) async fn disconnect(oracle: &Oracle, a: &ed25519::PublicKey, b: &ed25519::PublicKey) {
    oracle.remove_link(a.clone(), b.clone()).await.unwrap();
    oracle.remove_link(b.clone(), a.clone()).await.unwrap();
}

/// The simulated network among `keys`, every pair linked by `link`.
pub(crate) async fn mesh(context: &Runtime, keys: &[ed25519::PublicKey], link: Link) -> Oracle {
    let (net, oracle) = simulated::Network::new_with_peers(
        context.child("network"),
        simulated::Config {
            max_size: MAX_MESSAGE_BYTES,
            max_peers_per_set: NZUsize!(VALIDATORS as usize),
            disconnect_on_block: true,
            tracked_peer_sets: NZUsize!(1),
        },
        keys.to_vec(),
    )
    .await;
    net.start();
    for (i, a) in keys.iter().enumerate() {
        for b in &keys[i + 1..] {
            connect(&oracle, a, b, link.clone()).await;
        }
    }
    oracle
}

/// The engine's channels of `key`, registered on the simulated network.
pub(crate) async fn channels(
    oracle: &Oracle,
    key: &ed25519::PublicKey,
) -> (
    engine::Channels<simulated::Sender<ed25519::PublicKey, Runtime>, simulated::Receiver<ed25519::PublicKey>>,
    simulated::Control<ed25519::PublicKey, Runtime>,
) {
    let control = oracle.control(key.clone());
    let mut registered = Vec::new();
    for (channel, quota) in engine::channel_quotas().into_iter().enumerate() {
        registered.push(control.register(channel as u64, quota).await.unwrap());
    }
    let mut registered = registered.into_iter();
    (engine::register_channels(|_, _| registered.next().unwrap()), control)
}

/// Starts validator `index` under its own supervision subtree, proposing through `rewrite`
/// when it is given one; `slot` receives its handles.
pub(crate) async fn launch(
    context: &Runtime,
    oracle: &Oracle,
    config: ValidatorConfig,
    genesis: Genesis,
    index: u32,
    slot: Slot,
    rewrite: Option<Arc<dyn ProposalRewrite>>,
) -> Handle<()> {
    let (channels, control) = channels(oracle, &config.private_key.public_key()).await;
    let manager = oracle.manager();
    context.child("validator").with_attribute("index", index).spawn(move |context| async move {
        let started = engine::start(
            context,
            StartConfig {
                validator: config,
                genesis,
                partition_prefix: format!("drover-v{index}"),
                sync_peers: None,
                fast_sync_min_gap_blocks: drover_node::fast_sync::FAST_SYNC_MIN_GAP_BLOCKS,
                rewrite,
            },
            channels,
            control,
            manager,
        )
        .await
        .unwrap();
        *slot.lock() = Some(Running {
            chain: started.chain.clone(),
            databases: started.databases.clone(),
            marshal: started.marshal.clone(),
        });
        let _ = started.consensus.await;
    })
}

/// The finalized height a validator reports (0 before it started).
pub(crate) fn height(slot: &Slot) -> u64 {
    slot.lock().as_ref().map_or(0, |r| r.chain.tip().height)
}

/// Waits until every validator of `slots` finalized `target`.
pub(crate) async fn wait_all(context: &Runtime, slots: &[&Slot], target: u64) {
    while slots.iter().any(|s| height(s) < target) {
        context.sleep(Duration::from_millis(100)).await;
    }
}

/// Finalized (height → block digest, state root) of one validator, up to `to`.
pub(crate) async fn finalized(running: &Running, to: u64) -> BTreeMap<u64, (sha256::Digest, sha256::Digest)> {
    let mut blocks = BTreeMap::new();
    for h in 1..=to {
        blocks.insert(h, finalized_block(running, h).await.map(|block| (block.digest(), block.state_root)).unwrap());
    }
    blocks
}

/// The block a validator finalized at `height`.
pub(crate) async fn finalized_block(running: &Running, height: u64) -> Option<Block> {
    let block = running.marshal.get_block(Identifier::Height(Height::new(height))).await?;
    Some(block.inner().clone())
}

/// A transfer of 1,000 base units from dev key `key` with `nonce`, to an address of its own.
pub(crate) fn transfer(key: u32, nonce: u64) -> Transaction {
    signed(&SecretKey::dev(key), nonce, Some(Address([0x55; 20])), 1_000, (21_000, 0), Vec::new())
}

/// An example actor's deploy with `entitlements`.
pub(crate) fn example_deploy(name: &str, entitlements: &[&str]) -> Deploy {
    let path = format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"));
    Deploy {
        code: wat::parse_file(path).expect("the example compiles"),
        manifest: Manifest::new(entitlements.iter().map(|e| e.to_string()).collect()),
        salt: Vec::new(),
        init: None,
    }
}

/// A transaction from `key` with fees far above any basefee of a run, signed.
fn signed(
    key: &SecretKey,
    nonce: u64,
    to: Option<Address>,
    value: u128,
    (cycles_limit, cells_limit): (u64, u64),
    payload: Vec<u8>,
) -> Transaction {
    Transaction {
        chain_id: devnet::DEV_CHAIN_ID,
        nonce,
        to,
        value,
        cycles_limit,
        cells_limit,
        max_fee_per_cycle: 1_000,
        max_fee_per_cell: 1_000,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload,
        signature: None,
    }
    .sign(key)
}

/// A deploy (`to` = `None`) or a call from `key`.
pub(crate) fn actor_tx(
    key: &SecretKey,
    nonce: u64,
    to: Option<Address>,
    payload: Vec<u8>,
    cycles_limit: u64,
) -> Transaction {
    signed(key, nonce, to, 0, (cycles_limit, 100_000), payload)
}

/// A call of a native system actor from `key` with `value`, with limits that cover it.
pub(crate) fn system_tx(
    key: &SecretKey,
    nonce: u64,
    to: Address,
    payload: Vec<u8>,
    cost: (u64, u64),
    value: u128,
) -> Transaction {
    let limits = system_call_limits(payload.len(), cost);
    signed(key, nonce, Some(to), value, limits, payload)
}

//! Generation of a network's files: one genesis and one validator config per validator, with
//! fresh keys (ed25519 identities, threshold shares of one group key), ports on 127.0.0.1 and
//! optionally the deterministic development accounts prefunded.
//!
//! Development accounts derive from a fixed public seed ([`SecretKey::dev`]), as local-chain
//! tools do, so every devnet has the same well-known funded keys. Never fund them on a real
//! network.

use crate::{
    config::{FaucetFile, P2pFile, PeerFile, ValidatorFile},
    genesis::{AllocationFile, GENESIS_TIMESTAMP_MS_DEFAULT, GenesisFile},
    keys,
};
use anyhow::Context as _;
use commonware_cryptography::Signer as _;
use drover_types::{SecretKey, params::BASE_UNITS_PER_DRV};
use std::path::{Path, PathBuf};

/// Development chain id (the faucet serves only chain ids 1 and 100).
pub const DEV_CHAIN_ID: u64 = 100;
/// Prefunded development accounts: `SecretKey::dev(0..DEV_ACCOUNTS)`.
pub const DEV_ACCOUNTS: u32 = 10;
/// Balance of each development account: 1,000,000 DRV.
pub const DEV_ACCOUNT_BALANCE: u128 = 1_000_000 * BASE_UNITS_PER_DRV;
/// Dev key index of the faucet account.
pub const FAUCET_KEY_INDEX: u32 = 1_000;
/// Balance of the faucet account: 1,000,000,000 DRV.
pub const FAUCET_BALANCE: u128 = 1_000_000_000 * BASE_UNITS_PER_DRV;
/// Genesis file name inside a network directory.
pub const GENESIS_FILE: &str = "genesis.yaml";

/// What to generate.
#[derive(Clone, Debug)]
pub struct NetworkSpec {
    /// Number of validators (at least 1).
    pub validators: u32,
    /// Chain id of the network.
    pub chain_id: u64,
    /// Network name.
    pub network: String,
    /// Validator i serves HTTP on `rpc_port + i`.
    pub rpc_port: u16,
    /// Validator i listens for peers on `p2p_port + i`.
    pub p2p_port: u16,
    /// Prefund the development accounts and the faucet account, and enable the faucet.
    pub dev_accounts: bool,
    /// Target interval between blocks, in milliseconds.
    pub block_interval_ms: u64,
    /// Write each validator's last finalized height to `height.dat`.
    pub persist_height: bool,
}

impl NetworkSpec {
    /// A single-validator development network: chain id 100, HTTP on port 4000, dev accounts
    /// funded.
    pub fn devnet() -> Self {
        Self {
            validators: 1,
            chain_id: DEV_CHAIN_ID,
            network: "drover-devnet".into(),
            rpc_port: 4000,
            p2p_port: 30300,
            dev_accounts: true,
            block_interval_ms: crate::config::BLOCK_INTERVAL_MS_DEFAULT,
            persist_height: false,
        }
    }
}

/// The validator config file of validator `index` inside `dir`.
pub fn validator_file(dir: &Path, index: u32) -> PathBuf {
    dir.join(format!("validator-{index}.yaml"))
}

/// Writes `genesis.yaml` and `validator-{i}.yaml` into `dir` (created if needed). Refuses to
/// overwrite an existing genesis. Returns the validator config paths.
pub fn generate(dir: &Path, spec: &NetworkSpec) -> anyhow::Result<Vec<PathBuf>> {
    anyhow::ensure!(spec.validators >= 1, "at least one validator is needed");
    let genesis_path = dir.join(GENESIS_FILE);
    anyhow::ensure!(
        !genesis_path.exists(),
        "{} already exists: refusing to overwrite a network",
        genesis_path.display()
    );
    let last = u16::try_from(spec.validators - 1).context("too many validators")?;
    let rpc_last = spec.rpc_port.checked_add(last).context("RPC ports overflow")?;
    let p2p_last = spec.p2p_port.checked_add(last).context("p2p ports overflow")?;
    anyhow::ensure!(rpc_last < spec.p2p_port || spec.rpc_port > p2p_last, "RPC and p2p port ranges overlap");
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;

    let (validators, polynomial) = keys::generate_network(spec.validators)?;
    let peers: Vec<PeerFile> = validators
        .iter()
        .enumerate()
        .map(|(i, v)| PeerFile {
            public_key: keys::encode_hex(&v.private_key.public_key()),
            address: format!("127.0.0.1:{}", spec.p2p_port + i as u16),
        })
        .collect();

    let mut allocations = Vec::new();
    if spec.dev_accounts {
        for i in 0..DEV_ACCOUNTS {
            allocations.push(AllocationFile {
                address: SecretKey::dev(i).address().to_string(),
                balance: DEV_ACCOUNT_BALANCE,
            });
        }
        allocations.push(AllocationFile {
            address: SecretKey::dev(FAUCET_KEY_INDEX).address().to_string(),
            balance: FAUCET_BALANCE,
        });
    }
    let genesis = GenesisFile {
        chain_id: spec.chain_id,
        network: spec.network.clone(),
        // Stamped now, so the first blocks need not catch up on time the network never ran.
        timestamp_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(GENESIS_TIMESTAMP_MS_DEFAULT, |d| d.as_millis() as u64),
        validators: peers.iter().map(|p| p.public_key.clone()).collect(),
        identity: keys::encode_hex(polynomial.public()),
        fees: drover_execution::FeeParams::default(),
        params: Default::default(),
        allocations,
    };
    write_yaml(&genesis_path, &genesis)?;

    let mut paths = Vec::new();
    for (i, v) in validators.iter().enumerate() {
        // Tips of each validator go to a key of its own, kept next to its config.
        let tips_key = SecretKey::random();
        let tips_key_path = dir.join(format!("validator-{i}-tips.key"));
        write_secret(&tips_key_path, &format!("{}\n", tips_key.to_hex()))?;
        let faucet = if spec.dev_accounts {
            FaucetFile {
                enabled: true,
                drip_amount: None,
                requests_per_minute: None,
                private_key: Some(SecretKey::dev(FAUCET_KEY_INDEX).to_hex()),
            }
        } else {
            FaucetFile::default()
        };
        let file = ValidatorFile {
            rpc_port: spec.rpc_port + i as u16,
            rpc_host: "127.0.0.1".into(),
            directory: PathBuf::from(format!("validator-{i}/state")),
            data_directory: PathBuf::from(format!("validator-{i}")),
            persist_height: spec.persist_height,
            private_key: keys::encode_hex(&v.private_key),
            share: keys::encode_hex(&v.share),
            polynomial: keys::encode_hex(&polynomial),
            genesis_config_path: PathBuf::from(GENESIS_FILE),
            p2p: P2pFile { listen: peers[i].address.clone(), peers: peers.clone() },
            tips_account: tips_key.address().to_string(),
            faucet,
            log_level: "info".into(),
            block_interval_ms: spec.block_interval_ms,
            worker_threads: None,
            mempool: Default::default(),
            account_cache_entries: None,
        };
        let path = validator_file(dir, i as u32);
        write_yaml(&path, &file)?;
        paths.push(path);
    }
    Ok(paths)
}

fn write_yaml(path: &Path, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let text = serde_yaml_ng::to_string(value)?;
    write_secret(path, &text)
}

/// Writes a file readable by its owner only (configs hold consensus secrets).
fn write_secret(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{config::ValidatorConfig, genesis::Genesis};

    #[test]
    fn generated_network_loads_and_is_consistent() {
        let dir = tempfile::tempdir().unwrap();
        let spec = NetworkSpec { validators: 4, ..NetworkSpec::devnet() };
        let paths = generate(dir.path(), &spec).unwrap();
        assert_eq!(paths.len(), 4);
        let genesis = Genesis::load(&dir.path().join(GENESIS_FILE)).unwrap();
        assert_eq!(genesis.chain_id(), DEV_CHAIN_ID);
        assert_eq!(genesis.validators.len(), 4);
        assert_eq!(genesis.allocations.len(), DEV_ACCOUNTS as usize + 1);
        for (i, p) in paths.iter().enumerate() {
            let cfg = ValidatorConfig::load(p).unwrap();
            assert_eq!(cfg.rpc_addr.port(), 4000 + i as u16);
            assert_eq!(cfg.polynomial.public(), &genesis.identity);
            assert!(cfg.faucet.is_some());
            assert_eq!(cfg.genesis_config_path, dir.path().join(GENESIS_FILE));
        }
        // A second generation into the same directory is refused.
        assert!(generate(dir.path(), &spec).is_err());
    }

    #[test]
    fn a_genesis_seeds_chain_parameters_by_name() {
        let dir = tempfile::tempdir().unwrap();
        generate(dir.path(), &NetworkSpec::devnet()).unwrap();
        let path = dir.path().join(GENESIS_FILE);
        let plain = Genesis::load(&path).unwrap();
        assert_eq!(plain.params, plain.fees.genesis_chain_params());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("params"), "an empty map is not written, so older documents keep their commitment");
        std::fs::write(&path, format!("{text}params:\n  heartbeat_gap_blocks: 7\n  max_runners_per_job: 4\n")).unwrap();
        let seeded = Genesis::load(&path).unwrap();
        assert_eq!((seeded.params.heartbeat_gap_blocks, seeded.params.max_runners_per_job), (7, 4));
        assert_ne!(seeded.commitment, plain.commitment);
        std::fs::write(&path, format!("{text}params:\n  target_cycles: 7\n")).unwrap();
        let refused = Genesis::load(&path).unwrap_err().to_string();
        assert!(refused.contains("params") && refused.contains("fees"), "{refused}");
    }

    #[test]
    fn bad_config_fields_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let paths = generate(dir.path(), &NetworkSpec::devnet()).unwrap();
        let text = std::fs::read_to_string(&paths[0]).unwrap();
        for (needle, replacement, field) in [
            ("share: ", "share: zz", "share"),
            ("private_key: ", "private_key: 00", "private_key"),
            ("tips_account: ", "tips_account: 0x12", "tips_account"),
        ] {
            let broken: String = text
                .lines()
                .map(|l| if l.starts_with(needle) { replacement.to_string() } else { l.to_string() })
                .collect::<Vec<_>>()
                .join("\n");
            let path = dir.path().join("broken.yaml");
            std::fs::write(&path, broken).unwrap();
            let err = ValidatorConfig::load(&path).err().expect("must fail").to_string();
            assert!(err.contains(field), "{err}");
        }
        let missing: String = text.lines().filter(|l| !l.starts_with("share:")).collect::<Vec<_>>().join("\n");
        let path = dir.path().join("missing.yaml");
        std::fs::write(&path, missing).unwrap();
        let err = ValidatorConfig::load(&path).err().expect("must fail").to_string();
        assert!(err.contains("share"), "{err}");
    }
}

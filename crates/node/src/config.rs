//! Validator configuration (YAML).
//!
//! The file holds everything one validator needs besides the genesis: where it keeps state,
//! its consensus secrets (`private_key`, `share`, `polynomial` — back these up), how it reaches
//! its peers, which account receives its tips, and the faucet. Loading validates every field
//! and names the offending field in the error, so a bad config fails at start, never later.

use crate::keys::{self, ThresholdVariant};
use commonware_cryptography::{
    bls12381::primitives::{group::Share, sharing::Sharing},
    ed25519,
};
use drover_types::{Address, SecretKey};
use serde::{Deserialize, Serialize};
use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
};

/// Default interval between blocks when idle or busy (the proposer's pacing).
pub const BLOCK_INTERVAL_MS_DEFAULT: u64 = 100;
/// Slowest pacing allowed: the chain must show liveness at least once per second.
pub const BLOCK_INTERVAL_MS_MAX: u64 = 1_000;
/// Faucet drip per request by default: 100 DRV.
pub const FAUCET_DRIP_DEFAULT: u128 = 100 * drover_types::params::BASE_UNITS_PER_DRV;

/// The file as written on disk.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValidatorFile {
    /// HTTP API port (default 4000).
    #[serde(default = "default_rpc_port")]
    pub rpc_port: u16,
    /// HTTP API bind address (default 127.0.0.1).
    #[serde(default = "default_rpc_host")]
    pub rpc_host: String,
    /// State database directory (created on first run).
    pub directory: PathBuf,
    /// Directory of `height.dat` (used only when `persist_height` is true).
    pub data_directory: PathBuf,
    /// Write the last finalized height to `data_directory/height.dat`.
    #[serde(default)]
    pub persist_height: bool,
    /// ed25519 identity (hex).
    pub private_key: String,
    /// BLS12-381 threshold share (hex; secret).
    pub share: String,
    /// Public polynomial of the group key (hex).
    pub polynomial: String,
    /// The genesis file (relative paths are resolved against the config file's directory).
    pub genesis_config_path: PathBuf,
    /// Peer-to-peer listening address and the validator set.
    pub p2p: P2pFile,
    /// Account credited with the tips of blocks this validator proposes.
    pub tips_account: String,
    /// The devnet faucet (disabled by default).
    #[serde(default)]
    pub faucet: FaucetFile,
    /// `error`, `warn`, `info`, `debug` or `trace` (default `info`).
    #[serde(default = "default_log_level")]
    pub log_level: String,
    /// Target interval between blocks (default 100 ms, at most 1000 ms).
    #[serde(default = "default_block_interval")]
    pub block_interval_ms: u64,
    /// Runtime worker threads (default: number of CPUs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_threads: Option<usize>,
    /// Mempool limits (defaults suit a devnet and a benchmark burst of 100,000 transfers).
    #[serde(default, skip_serializing_if = "MempoolFile::is_default")]
    pub mempool: MempoolFile,
    /// Accounts kept in memory for reads that must not wait for a block's commit (default
    /// 100,000; the others are read from the state database).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_cache_entries: Option<usize>,
}

/// The `mempool` section: limits of the transaction pool; an absent field takes its default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MempoolFile {
    /// Most pending transactions (default 100,000).
    #[serde(default)]
    pub max_transactions: Option<usize>,
    /// Most pending transactions of one sender (default 1,024).
    #[serde(default)]
    pub max_per_sender: Option<usize>,
    /// Most nonces a transaction may run ahead of its sender's next one (default 1,024).
    #[serde(default)]
    pub max_nonce_gap: Option<u64>,
    /// Seconds a transaction may stay pending (default 600).
    #[serde(default)]
    pub ttl_secs: Option<u64>,
}

impl MempoolFile {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// The `p2p` section: how validators reach each other.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct P2pFile {
    /// Listen address for validator-to-validator traffic, e.g. `127.0.0.1:30300`.
    pub listen: String,
    /// Every validator of the network (this one included): identity and address.
    pub peers: Vec<PeerFile>,
}

/// One validator of the network, as listed under `p2p.peers`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerFile {
    /// Its ed25519 identity (hex).
    pub public_key: String,
    /// Its peer-to-peer address, e.g. `127.0.0.1:30300`.
    pub address: String,
}

/// The `faucet` section; only development chains (ids 1 and 100) serve a faucet.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaucetFile {
    /// Serve `POST /faucet` (default false); then `private_key` is required.
    #[serde(default)]
    pub enabled: bool,
    /// Base units per request (default 100 DRV).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drip_amount: Option<u128>,
    /// Requests per minute (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_per_minute: Option<u32>,
    /// secp256k1 key (hex) of the funded faucet account.
    #[serde(default)]
    pub private_key: Option<String>,
}

fn default_rpc_port() -> u16 {
    4000
}
fn default_rpc_host() -> String {
    "127.0.0.1".into()
}
fn default_log_level() -> String {
    "info".into()
}
fn default_block_interval() -> u64 {
    BLOCK_INTERVAL_MS_DEFAULT
}

/// A validated configuration.
#[derive(Clone)]
pub struct ValidatorConfig {
    /// Where the HTTP API listens (`rpc_host:rpc_port`).
    pub rpc_addr: SocketAddr,
    /// State database directory (absolute).
    pub directory: PathBuf,
    /// Path of `height.dat`, when height persistence is on.
    pub height_file: Option<PathBuf>,
    /// This validator's ed25519 identity.
    pub private_key: ed25519::PrivateKey,
    /// This validator's BLS12-381 threshold share (secret).
    pub share: Share,
    /// Public polynomial of the group key; its total is the validator count.
    pub polynomial: Sharing<ThresholdVariant>,
    /// The genesis file (absolute).
    pub genesis_config_path: PathBuf,
    /// Where peer-to-peer traffic is accepted.
    pub p2p_listen: SocketAddr,
    /// Every validator (this one included): identity and address.
    pub peers: Vec<(ed25519::PublicKey, SocketAddr)>,
    /// Account credited with the tips of blocks this validator proposes.
    pub tips_account: Address,
    /// Faucet settings, `None` when the faucet is disabled.
    pub faucet: Option<FaucetConfig>,
    /// `error`, `warn`, `info`, `debug` or `trace`.
    pub log_level: String,
    /// Target interval between blocks, 1 to 1,000 ms.
    pub block_interval_ms: u64,
    /// Runtime worker threads, at least 1.
    pub worker_threads: usize,
    /// Mempool limits, defaults filled in.
    pub mempool: drover_mempool::Config,
    /// Accounts the account view caches, at least 1.
    pub account_cache_entries: usize,
}

/// A validated faucet configuration.
#[derive(Clone)]
pub struct FaucetConfig {
    /// Base units sent per request, positive.
    pub drip_amount: u128,
    /// Requests allowed per minute (node-wide), at least 1.
    pub requests_per_minute: u32,
    /// Key of the funded faucet account.
    pub key: SecretKey,
}

/// A configuration error that names the field at fault.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The config file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not YAML of the expected shape (unknown or missing field, wrong type).
    #[error("config file {path}: {message}")]
    Parse {
        /// The config file.
        path: PathBuf,
        /// The YAML parser's message.
        message: String,
    },
    /// A field holds a value that is not valid.
    #[error("config field `{field}`: {message}")]
    Field {
        /// Dotted name of the field, e.g. `p2p.listen`.
        field: &'static str,
        /// What is wrong with its value.
        message: String,
    },
}

fn field(field: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError::Field { field, message: message.into() }
}

impl ValidatorConfig {
    /// Reads and validates a config file. Relative paths inside are resolved against the
    /// file's directory.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.into(), source })?;
        let file: ValidatorFile = serde_yaml_ng::from_str(&text)
            .map_err(|e| ConfigError::Parse { path: path.into(), message: e.to_string() })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::from_file(file, base)
    }

    /// Validates a parsed file; relative paths are resolved against `base`.
    pub fn from_file(file: ValidatorFile, base: &Path) -> Result<Self, ConfigError> {
        let resolve = |p: &Path| if p.is_absolute() { p.to_path_buf() } else { base.join(p) };
        let rpc_addr = format!("{}:{}", file.rpc_host, file.rpc_port)
            .parse()
            .map_err(|e| field("rpc_host", format!("not an IP address: {e}")))?;
        if file.directory.as_os_str().is_empty() {
            return Err(field("directory", "must not be empty"));
        }
        let private_key = keys::parse_private_key(&file.private_key).map_err(|m| field("private_key", m))?;
        let share = keys::parse_share(&file.share).map_err(|m| field("share", m))?;
        let polynomial = keys::parse_polynomial(&file.polynomial).map_err(|m| field("polynomial", m))?;
        let p2p_listen =
            file.p2p.listen.parse().map_err(|e| field("p2p.listen", format!("not a socket address: {e}")))?;
        let mut peers = Vec::with_capacity(file.p2p.peers.len());
        for peer in &file.p2p.peers {
            let key = keys::parse_public_key(&peer.public_key).map_err(|m| field("p2p.peers.public_key", m))?;
            let addr =
                peer.address.parse().map_err(|e| field("p2p.peers.address", format!("not a socket address: {e}")))?;
            peers.push((key, addr));
        }
        if peers.is_empty() {
            return Err(field("p2p.peers", "must list every validator, this one included"));
        }
        if polynomial.total().get() as usize != peers.len() {
            return Err(field(
                "polynomial",
                format!("describes {} validators but p2p.peers lists {}", polynomial.total(), peers.len()),
            ));
        }
        let tips_account = file
            .tips_account
            .parse()
            .map_err(|e: drover_types::address::AddressParseError| field("tips_account", e.to_string()))?;
        let faucet = if file.faucet.enabled {
            let key = file
                .faucet
                .private_key
                .as_deref()
                .ok_or_else(|| field("faucet.private_key", "required when the faucet is enabled"))
                .and_then(|k| SecretKey::from_hex(k).map_err(|e| field("faucet.private_key", e.to_string())))?;
            let requests_per_minute = file.faucet.requests_per_minute.unwrap_or(5);
            if requests_per_minute == 0 {
                return Err(field("faucet.requests_per_minute", "must be at least 1"));
            }
            let drip_amount = file.faucet.drip_amount.unwrap_or(FAUCET_DRIP_DEFAULT);
            if drip_amount == 0 {
                return Err(field("faucet.drip_amount", "must be positive"));
            }
            Some(FaucetConfig { drip_amount, requests_per_minute, key })
        } else {
            None
        };
        if !["error", "warn", "info", "debug", "trace"].contains(&file.log_level.as_str()) {
            return Err(field("log_level", "must be one of error, warn, info, debug, trace"));
        }
        if file.block_interval_ms == 0 || file.block_interval_ms > BLOCK_INTERVAL_MS_MAX {
            return Err(field("block_interval_ms", format!("must be 1..={BLOCK_INTERVAL_MS_MAX}")));
        }
        let worker_threads = match file.worker_threads {
            Some(0) => return Err(field("worker_threads", "must be at least 1")),
            Some(n) => n,
            None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2),
        };
        let defaults = drover_mempool::Config::default();
        let m = &file.mempool;
        let mempool = drover_mempool::Config {
            max_transactions: m.max_transactions.unwrap_or(defaults.max_transactions),
            max_per_sender: m.max_per_sender.unwrap_or(defaults.max_per_sender),
            max_nonce_gap: m.max_nonce_gap.unwrap_or(defaults.max_nonce_gap),
            ttl: m.ttl_secs.map(std::time::Duration::from_secs).unwrap_or(defaults.ttl),
            ..defaults
        };
        if mempool.max_transactions == 0 || mempool.max_per_sender == 0 {
            return Err(field("mempool", "capacities must be at least 1"));
        }
        let account_cache_entries = match file.account_cache_entries {
            Some(0) => return Err(field("account_cache_entries", "must be at least 1")),
            Some(n) => n,
            None => crate::accounts::ACCOUNT_CACHE_ENTRIES_DEFAULT,
        };
        Ok(Self {
            rpc_addr,
            directory: resolve(&file.directory),
            height_file: file.persist_height.then(|| resolve(&file.data_directory).join("height.dat")),
            private_key,
            share,
            polynomial,
            genesis_config_path: resolve(&file.genesis_config_path),
            p2p_listen,
            peers,
            tips_account,
            faucet,
            log_level: file.log_level,
            block_interval_ms: file.block_interval_ms,
            worker_threads,
            mempool,
            account_cache_entries,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devnet::{self, NetworkSpec};

    #[test]
    fn the_account_cache_size_has_a_default_and_is_at_least_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = devnet::generate(dir.path(), &NetworkSpec::devnet()).unwrap().remove(0);
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            ValidatorConfig::load(&path).unwrap().account_cache_entries,
            crate::accounts::ACCOUNT_CACHE_ENTRIES_DEFAULT
        );
        std::fs::write(&path, format!("{written}account_cache_entries: 5000\n")).unwrap();
        assert_eq!(ValidatorConfig::load(&path).unwrap().account_cache_entries, 5_000);
        std::fs::write(&path, format!("{written}account_cache_entries: 0\n")).unwrap();
        let refused = ValidatorConfig::load(&path).err().expect("refused").to_string();
        assert!(refused.contains("account_cache_entries"), "{refused}");
    }
}

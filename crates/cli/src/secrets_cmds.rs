//! `drover secrets ...`: secrets stored encrypted on chain (`0x00…04`), sealed and opened here.
//!
//! `set` seals the value (from `--file`, or standard input) for each `--reader` public key
//! (ECIES, `drover_client::secrets`) and sends only the envelopes; `get` fetches the caller's
//! envelope and opens it with the caller's key; `grant` seals the value for one more reader
//! (from `--file`, standard input, or the owner's own envelope when the owner is a reader);
//! `revoke`, `delete` and `list` do what they say; `pubkey` prints the public key a reader hands
//! to owners. Values never leave this process unencrypted.

use crate::{
    report::{Report, Text},
    submission::sign_and_submit,
};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Subcommand};
use drover_client::secrets::{ReaderKey, open, seal};
use drover_client::{Client, TxBuilder};
use drover_types::{Address, secrets::SecretCall};
use std::io::Read;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum SecretsCommand {
    /// Store a secret for readers: the value from --file or standard input.
    Set {
        name: String,
        /// Readers' public keys (33 bytes compressed, hex), comma-separated or repeated.
        #[arg(long = "reader", visible_alias = "readers", value_delimiter = ',', required = true)]
        readers: Vec<String>,
        #[arg(long)]
        file: Option<PathBuf>,
        #[command(flatten)]
        sending: SecretSending,
    },
    /// Fetch your envelope of an owner's secret and decrypt it with your key.
    Get {
        owner: Address,
        name: String,
        /// Your key file (a reader of the secret) (default: `DROVER_KEY`, then the project's
        /// `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
        /// Write the value here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// List an owner's secrets: names, readers and versions (never values).
    List {
        owner: Address,
        #[arg(long, default_value_t = 0)]
        offset: u64,
        #[arg(long, default_value_t = 50)]
        limit: u64,
    },
    /// Give one more reader an envelope.
    Grant {
        name: String,
        /// The reader's public key (33 bytes compressed, hex).
        #[arg(long)]
        reader: String,
        /// The value (default: standard input, or your own envelope if you are a reader).
        #[arg(long)]
        file: Option<PathBuf>,
        #[command(flatten)]
        sending: SecretSending,
    },
    /// Remove one reader's envelope.
    Revoke {
        name: String,
        #[arg(long)]
        reader: Address,
        #[command(flatten)]
        sending: SecretSending,
    },
    /// Remove a secret and all its envelopes.
    Delete {
        name: String,
        #[command(flatten)]
        sending: SecretSending,
    },
    /// Print the public key (compressed, hex) of a key file: what a reader hands owners.
    Pubkey {
        /// Key file (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
        #[arg(long)]
        key: Option<PathBuf>,
    },
}

/// How a secrets call is signed and sent.
#[derive(Debug, Args)]
pub(crate) struct SecretSending {
    /// Key file of the owner (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Only submit; do not wait for the outcome.
    #[arg(long)]
    no_wait: bool,
}

fn reader_key(hex: &str) -> Result<ReaderKey> {
    let bytes = hex::decode(hex.trim_start_matches("0x")).context("a reader's public key is hex")?;
    ReaderKey::from_sec1(&bytes).with_context(|| format!("{hex} is not a secp256k1 public key"))
}

fn value_from(file: Option<&PathBuf>) -> Result<Vec<u8>> {
    match file {
        Some(path) => std::fs::read(path).with_context(|| format!("cannot read {}", path.display())),
        None => {
            let mut value = Vec::new();
            std::io::stdin().read_to_end(&mut value).context("cannot read the value from standard input")?;
            Ok(value)
        }
    }
}

pub(crate) async fn run(client: &Client, command: SecretsCommand) -> Result<Report> {
    let mut text = Text::default();
    let (call, sending) = match command {
        SecretsCommand::Pubkey { key } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let public = hex::encode(ReaderKey::of(wallet.secret_key()).to_compressed());
            text.field("address", wallet.address()).field("public key", format!("0x{public}"));
            return Report::new(
                text,
                &serde_json::json!({"address": wallet.address(), "public_key": format!("0x{public}")}),
            );
        }
        SecretsCommand::List { owner, offset, limit } => {
            let list = client.secrets(&owner, offset, limit).await.context("cannot list secrets")?;
            text.field("owner", owner).field("secrets", list.total_count);
            for secret in &list.secrets {
                let readers: Vec<String> = secret.readers.iter().map(|r| r.to_string()).collect();
                text.line(format!("{}  v{}  readers {}", secret.name, secret.version, readers.join(", ")));
            }
            return Report::new(text, &list);
        }
        SecretsCommand::Get { owner, name, key, out } => {
            let wallet = crate::project::wallet(key.as_deref())?;
            let envelope = client
                .secret_envelope(&owner, &name, &wallet.address())
                .await
                .context("cannot fetch the envelope")?
                .ok_or_else(|| anyhow!("{} holds no envelope of {owner}'s {name:?}", wallet.address()))?;
            let value = open(&owner, &name, wallet.secret_key(), &envelope.envelope)
                .with_context(|| format!("cannot open the envelope of {name:?}"))?;
            match out {
                Some(path) => {
                    std::fs::write(&path, &value).with_context(|| format!("cannot write {}", path.display()))?;
                    text.field("written", path.display()).field("bytes", value.len());
                }
                None => {
                    text.line(String::from_utf8_lossy(&value).into_owned());
                }
            }
            return Report::new(
                text,
                &serde_json::json!({"name": name, "version": envelope.version, "bytes": value.len()}),
            );
        }
        SecretsCommand::Set { name, readers, file, sending } => {
            let owner = crate::project::wallet(sending.key.as_deref())?.address();
            let value = value_from(file.as_ref())?;
            let mut envelopes = Vec::new();
            for reader in &readers {
                let reader = reader_key(reader)?;
                envelopes.push((reader.address(), seal(&owner, &name, &reader, &value)));
            }
            // One envelope per reader, in address order (as the chain keeps them).
            envelopes.sort_by_key(|(reader, _)| *reader);
            envelopes.dedup_by_key(|(reader, _)| *reader);
            text.field("secret", &name).field("readers", envelopes.len());
            (SecretCall::Set { name, envelopes }, sending)
        }
        SecretsCommand::Grant { name, reader, file, sending } => {
            let wallet = crate::project::wallet(sending.key.as_deref())?;
            let owner = wallet.address();
            let value = match file {
                Some(path) => value_from(Some(&path))?,
                None => {
                    match client.secret_envelope(&owner, &name, &owner).await.context("cannot fetch your envelope")? {
                        Some(own) => open(&owner, &name, wallet.secret_key(), &own.envelope)?,
                        None => value_from(None)?,
                    }
                }
            };
            let reader = reader_key(&reader)?;
            text.field("secret", &name).field("grant", reader.address());
            let envelope = seal(&owner, &name, &reader, &value);
            (SecretCall::Grant { name, reader: reader.address(), envelope }, sending)
        }
        SecretsCommand::Revoke { name, reader, sending } => {
            text.field("secret", &name).field("revoke", reader);
            (SecretCall::Revoke { name, reader }, sending)
        }
        SecretsCommand::Delete { name, sending } => {
            text.field("delete", &name);
            (SecretCall::Delete { name }, sending)
        }
    };
    if let Err(reason) = call.check() {
        bail!("{reason}");
    }
    let wallet = crate::project::wallet(sending.key.as_deref())?;
    sign_and_submit(client, &wallet, TxBuilder::secrets(&call), text, !sending.no_wait).await
}

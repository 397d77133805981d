//! `drover library ...`: account libraries (`0x00…0d`).
//!
//! `publish` sends WebAssembly code (binary, or text `.wat`) with its manifest under a name
//! (re-publishing makes the next version); `info` shows a version; `remove` stops every version.

use crate::{
    report::{Report, Text},
    submission::sign_and_submit,
};
use anyhow::{Context, Result, anyhow};
use clap::{Args, Subcommand};
use drover_client::{Client, TxBuilder};
use drover_types::{Address, library::LibraryCall, payload::Manifest};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum LibraryCommand {
    /// Publish code under a name (the next version if it exists).
    Publish {
        /// The code: a .wasm binary or .wat text.
        code: PathBuf,
        #[arg(long)]
        name: String,
        /// Entitlements its handlers may use (each caller's are intersected with these).
        #[arg(long, value_delimiter = ',')]
        manifest: Vec<String>,
        #[command(flatten)]
        sending: LibrarySending,
    },
    /// Show a library (its latest version, or --version).
    Info {
        publisher: Address,
        name: String,
        #[arg(long)]
        version: Option<u32>,
    },
    /// Remove a library: no version runs any more.
    Remove {
        name: String,
        #[command(flatten)]
        sending: LibrarySending,
    },
}

/// How a library call is signed and sent.
#[derive(Debug, Args)]
pub(crate) struct LibrarySending {
    /// Key file of the publisher (default: `DROVER_KEY`, then the project's `.drover/config.toml`).
    #[arg(long)]
    key: Option<PathBuf>,
    /// Only submit; do not wait for the outcome.
    #[arg(long)]
    no_wait: bool,
}

pub(crate) async fn run(client: &Client, command: LibraryCommand) -> Result<Report> {
    let mut text = Text::default();
    let (call, sending) = match command {
        LibraryCommand::Info { publisher, name, version } => {
            let info = client
                .library(&publisher, &name, version)
                .await
                .context("cannot read the library")?
                .ok_or_else(|| anyhow!("{publisher} has no library {name:?} at that version"))?;
            text.field("library", &info.name)
                .field("publisher", info.publisher)
                .field("version", format!("{} of {}", info.version, info.latest_version))
                .field("code", format!("{} ({} bytes)", info.code_hash, info.code_size))
                .field("manifest", info.manifest.entitlements().join(", "))
                .field("published", info.published_height)
                .field("removed", info.removed);
            return Report::new(text, &info);
        }
        LibraryCommand::Publish { code, name, manifest, sending } => {
            let bytes = std::fs::read(&code).with_context(|| format!("cannot read {}", code.display()))?;
            let bytes = if code.extension().is_some_and(|e| e == "wat") {
                wat::parse_bytes(&bytes).context("the .wat does not compile")?.into_owned()
            } else {
                bytes
            };
            text.field("library", &name).field("code bytes", bytes.len());
            (LibraryCall::Publish { name, code: bytes, manifest: Manifest::new(manifest) }, sending)
        }
        LibraryCommand::Remove { name, sending } => {
            text.field("remove", &name);
            (LibraryCall::Remove { name }, sending)
        }
    };
    let wallet = crate::project::wallet(sending.key.as_deref())?;
    sign_and_submit(client, &wallet, TxBuilder::library(&call), text, !sending.no_wait).await
}

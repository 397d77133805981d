//! Developing a Rust actor: `drover actor new NAME` (a ready crate), `drover actor build [DIR]`
//! (the module, its size, and the checks a deploy would make) and `drover actor address`
//! (where a deploy will put the actor); `drover deploy DIR` builds through [`build_crate`].
//!
//! Nothing here re-implements a chain rule: a module is checked by `drover_vm::validate_deploy`
//! (the validator's own code: no floats, only known imports with their signatures, structure,
//! the live `max_code_bytes`), a manifest by `drover_vm::manifest_problems`, and the address is
//! `drover_types::payload::actor_address`, the derivation the executor uses. The limit is the
//! node's live `max_code_bytes` when a node answers, else the genesis default (said so).
//!
//! The new crate builds for wasm32 on a fresh machine: its `rust-toolchain.toml` names the
//! toolchain this binary was built with and the `wasm32-unknown-unknown` target, which rustup
//! installs on first use; it is a workspace of its own, so it builds wherever it is created.

use crate::report::{Report, Text};
use anyhow::{Context, Result, bail};
use clap::Subcommand;
use drover_client::Client;
use drover_types::{Address, chain_params::ChainParams, payload::Manifest};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The target actors are compiled to.
pub(crate) const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The manifest a crate directory carries (`{"entitlements": [...]}`, as `drover entitlements
/// --validate` reads).
pub(crate) const MANIFEST_FILE: &str = "manifest.json";
/// Longest crate name `actor new` takes, in bytes (cargo's own limit is 64).
const CRATE_NAME_MAX_BYTES: usize = 64;

/// The repository's toolchain file: the scaffold pins the same channel.
const REPO_TOOLCHAIN: &str = include_str!("../../../rust-toolchain.toml");
/// The actor SDK beside this binary's sources, when it was built from a checkout.
const SDK_BESIDE_SOURCES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../actor-sdk");

/// The files of a new actor crate: path inside the crate, template.
const TEMPLATE: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("actor_template/Cargo.toml.tmpl")),
    ("rust-toolchain.toml", include_str!("actor_template/rust-toolchain.toml.tmpl")),
    (".cargo/config.toml", include_str!("actor_template/cargo-config.toml.tmpl")),
    (MANIFEST_FILE, include_str!("actor_template/manifest.json.tmpl")),
    (".gitignore", include_str!("actor_template/gitignore.tmpl")),
    ("src/lib.rs", include_str!("actor_template/lib.rs.tmpl")),
    ("README.md", include_str!("actor_template/README.md.tmpl")),
];

/// `drover actor new|build|address`.
#[derive(Debug, Subcommand)]
pub(crate) enum ActorDevCommand {
    /// Write a new Rust actor crate: handlers, manifest, a unit test on the SDK's mock host, a
    /// README with the commands to build, test and deploy it.
    New {
        /// Crate name (letters, digits, `-` and `_`); the directory it is written to.
        name: String,
        /// Where the crate goes (default: `./NAME`).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The actor SDK (`crates/actor-sdk` of a Drover checkout; default: the one this binary
        /// was built beside).
        #[arg(long)]
        sdk: Option<PathBuf>,
    },
    /// Build a crate's module for wasm32 and check it as a deploy would: size, floats, imports,
    /// structure, manifest.
    Build {
        /// The crate's directory.
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// The address a deploy of this code by `sender` with `salt` gets (nothing is sent).
    Address {
        /// The code: a crate directory (built first), a `.wasm` or a `.wat` file.
        #[arg(default_value = ".")]
        code: PathBuf,
        /// The deploying account (default: the address of the default key).
        #[arg(long)]
        sender: Option<Address>,
        /// Salt, as `drover deploy --salt` takes it.
        #[arg(long, default_value = "")]
        salt: String,
        /// Key file whose address is the sender (default: `DROVER_KEY`, then the project's
        /// `.drover/config.toml`).
        #[arg(long, conflicts_with = "sender")]
        key: Option<PathBuf>,
    },
}

pub(crate) async fn run(client: &Client, command: ActorDevCommand) -> Result<Report> {
    match command {
        ActorDevCommand::New { name, dir, sdk } => new_crate(&name, dir, sdk),
        ActorDevCommand::Build { dir } => build(client, &dir).await,
        ActorDevCommand::Address { code, sender, salt, key } => {
            let sender = match sender {
                Some(sender) => sender,
                None => crate::project::wallet(key.as_deref())?.address(),
            };
            address(&code, sender, &salt)
        }
    }
}

/// Whether `name` can name a crate (and a directory): an ASCII letter, then letters, digits,
/// `-` or `_`.
fn valid_crate_name(name: &str) -> bool {
    name.len() <= CRATE_NAME_MAX_BYTES
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The channel of the repository's `rust-toolchain.toml`.
fn toolchain_channel() -> Result<String> {
    #[derive(Deserialize)]
    struct File {
        toolchain: Toolchain,
    }
    #[derive(Deserialize)]
    struct Toolchain {
        channel: String,
    }
    let file: File = toml::from_str(REPO_TOOLCHAIN).context("the repository's rust-toolchain.toml")?;
    Ok(file.toolchain.channel)
}

#[derive(Serialize)]
struct NewCrate {
    name: String,
    dir: PathBuf,
    files: Vec<&'static str>,
    sdk: PathBuf,
}

/// `drover actor new`.
fn new_crate(name: &str, dir: Option<PathBuf>, sdk: Option<PathBuf>) -> Result<Report> {
    if !valid_crate_name(name) {
        bail!("{name:?} cannot name a crate: an ASCII letter, then letters, digits, `-` or `_` (at most 64)");
    }
    let dir = dir.unwrap_or_else(|| PathBuf::from(name));
    if dir.exists() {
        bail!("{} already exists: choose another name or --dir", dir.display());
    }
    let sdk = sdk.unwrap_or_else(|| PathBuf::from(SDK_BESIDE_SOURCES));
    let sdk = std::fs::canonicalize(&sdk)
        .ok()
        .filter(|path| path.join("Cargo.toml").is_file())
        .with_context(|| format!("no actor SDK at {}: pass --sdk PATH/TO/drover/crates/actor-sdk", sdk.display()))?;
    let sdk_text = sdk.to_str().with_context(|| format!("the SDK's path {} is not UTF-8", sdk.display()))?;
    let channel = toolchain_channel()?;
    for (path, template) in TEMPLATE {
        let text = template
            .replace("{{name}}", name)
            // A TOML basic string: backslashes (Windows paths) are escapes there.
            .replace("{{sdk}}", &sdk_text.replace('\\', "/"))
            .replace("{{channel}}", &channel);
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut text = Text::default();
    text.field("created", dir.display()).field("sdk", sdk.display());
    text.line(format!("Next: cd {} && cargo test && drover actor build (README.md has the rest)", dir.display()));
    let files = TEMPLATE.iter().map(|(path, _)| *path).collect();
    Report::new(text, &NewCrate { name: name.to_owned(), dir, files, sdk })
}

/// A crate's module, as cargo built it.
pub(crate) struct BuiltModule {
    pub(crate) path: PathBuf,
    pub(crate) code: Vec<u8>,
}

/// One line of cargo's `--message-format=json` output (the fields used here).
#[derive(Deserialize)]
struct CargoMessage {
    reason: String,
    #[serde(default)]
    filenames: Vec<PathBuf>,
}

/// Builds the crate in `dir` for wasm32 in release (cargo runs in `dir`, so the crate's own
/// `rust-toolchain.toml` and `.cargo/config.toml` apply; its diagnostics go to stderr) and
/// answers its one module.
pub(crate) fn build_crate(dir: &Path) -> Result<BuiltModule> {
    if !dir.join("Cargo.toml").is_file() {
        bail!("{} holds no Cargo.toml: give the actor crate's directory", dir.display());
    }
    let output = Command::new("cargo")
        .args(["build", "--release", "--target", WASM_TARGET, "--message-format=json-render-diagnostics"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo (is Rust installed? https://rustup.rs)")?;
    if !output.status.success() {
        bail!("cargo could not build {} for {WASM_TARGET} (its errors are above)", dir.display());
    }
    let modules: Vec<PathBuf> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<CargoMessage>(line).ok())
        .filter(|message| message.reason == "compiler-artifact")
        .flat_map(|message| message.filenames)
        .filter(|path| path.extension().is_some_and(|e| e == "wasm"))
        .collect();
    let path = match modules.as_slice() {
        [one] => one.clone(),
        [] => bail!("{} built no module: its Cargo.toml needs `[lib] crate-type = [\"cdylib\"]`", dir.display()),
        many => bail!(
            "{} built {} modules ({}): build one crate of the workspace at a time",
            dir.display(),
            many.len(),
            many.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        ),
    };
    let code = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(BuiltModule { path, code })
}

/// The entitlement ids of `dir/manifest.json`, if the crate has one.
pub(crate) fn crate_manifest(dir: &Path) -> Result<Option<Vec<String>>> {
    let path = dir.join(MANIFEST_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    // The node's own reading of a JSON manifest, as `/entitlements/validate-manifest` judges it.
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not {{\"entitlements\": [ids...]}}", path.display()))?;
    Ok(Some(manifest.into_entitlements()))
}

/// The entitlement ids a deploy or upgrade of `code` sends: `given` (`--manifest`) when it names
/// any, else, for a crate directory, its `manifest.json`'s, else none.
pub(crate) fn entitlements(code: &Path, given: Vec<String>) -> Result<Vec<String>> {
    if !given.is_empty() || !code.is_dir() {
        return Ok(given);
    }
    Ok(crate_manifest(code)?.unwrap_or_default())
}

/// The live `max_code_bytes` and where it comes from: the node's parameters, or the genesis
/// default when no node answers.
async fn code_limit(client: &Client) -> (u64, String) {
    match client.governance_params().await {
        Ok(params) => match params.value("max_code_bytes").and_then(|v| u64::try_from(v).ok()) {
            Some(limit) => (limit, format!("max_code_bytes at height {} of {}", params.height, client.base_url())),
            None => (ChainParams::default().max_code_bytes, "the genesis default (the node lists no limit)".into()),
        },
        Err(_) => (
            ChainParams::default().max_code_bytes,
            format!("the genesis default: no node answered at {}", client.base_url()),
        ),
    }
}

#[derive(Serialize)]
struct BuildRecord {
    module: PathBuf,
    size: usize,
    code_hash: drover_types::H256,
    max_code_bytes: u64,
    handlers: Vec<String>,
    imports: Vec<&'static str>,
    cycles_per_call: u64,
    manifest: Option<Vec<String>>,
    valid: bool,
    problems: Vec<String>,
}

/// `drover actor build`.
async fn build(client: &Client, dir: &Path) -> Result<Report> {
    let module = build_crate(dir)?;
    let manifest = crate_manifest(dir)?;
    let (limit, limit_source) = code_limit(client).await;
    let mut problems = Vec::new();
    let info = match drover_vm::validate_deploy(&module.code, limit) {
        Ok(info) => Some(info),
        Err(error) => {
            let error = error.to_exec_error();
            problems.push(format!("{}: {}", error.code, error.message));
            None
        }
    };
    for (position, problem) in drover_vm::manifest_problems(manifest.as_deref().unwrap_or_default()) {
        let id = manifest.as_ref().and_then(|m| m.get(position)).map_or("", String::as_str);
        problems.push(format!("E1302: {MANIFEST_FILE} entitlement {id:?}: {problem}"));
    }
    let mut text = Text::default();
    text.field("module", module.path.display())
        .field("size", format!("{} bytes (limit {limit}: {limit_source})", module.code.len()))
        .field("code hash", drover_types::keccak256(&module.code));
    if let Some(info) = &info {
        text.field("handlers", info.handlers.join(", "))
            .field("imports", info.imports.join(", "))
            .field("per call", format!("{} cycles before the handler runs", info.invoke_cycles()));
    }
    match &manifest {
        Some(ids) => text.field("manifest", format!("{} ({MANIFEST_FILE})", ids.join(", "))),
        None => text.field("manifest", format!("none: no {MANIFEST_FILE} (drover deploy takes --manifest)")),
    };
    let valid = problems.is_empty();
    if valid {
        text.field("checks", "no floats, known imports, structure, size and manifest: a deploy would accept it");
    }
    for problem in &problems {
        text.field("refused", problem);
    }
    let record = BuildRecord {
        module: module.path.clone(),
        size: module.code.len(),
        code_hash: drover_types::keccak256(&module.code),
        max_code_bytes: limit,
        handlers: info.as_ref().map(|i| i.handlers.clone()).unwrap_or_default(),
        imports: info.as_ref().map(|i| i.imports.clone()).unwrap_or_default(),
        cycles_per_call: info.as_ref().map_or(0, |i| i.invoke_cycles()),
        manifest,
        valid,
        problems,
    };
    let mut report = Report::new(text, &record)?;
    if !valid {
        report.failure = Some(format!("a deploy of {} would be refused", module.path.display()));
    }
    Ok(report)
}

/// The code at `path`: a crate directory is built, a `.wat` file compiled, anything else read
/// as a binary module.
pub(crate) fn load_code(path: &Path) -> Result<Vec<u8>> {
    if path.is_dir() {
        return Ok(build_crate(path)?.code);
    }
    let code = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if path.extension().is_some_and(|e| e == "wat") {
        return Ok(wat::parse_bytes(&code)
            .with_context(|| format!("{} is not valid WebAssembly text", path.display()))?
            .into_owned());
    }
    Ok(code)
}

#[derive(Serialize)]
struct AddressRecord {
    address: Address,
    sender: Address,
    salt: String,
    code_hash: drover_types::H256,
}

/// `drover actor address`: the bare address in text, for `$(drover actor address)`.
fn address(code: &Path, sender: Address, salt: &str) -> Result<Report> {
    let code = load_code(code)?;
    let address = drover_types::payload::actor_address(&sender, salt.as_bytes(), &code);
    let text = Text(address.to_string());
    let record = AddressRecord { address, sender, salt: salt.to_owned(), code_hash: drover_types::keccak256(&code) };
    Report::new(text, &record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_names_are_letters_digits_dashes_and_underscores() {
        for good in ["counter", "my-actor", "a_1", "A"] {
            assert!(valid_crate_name(good), "{good}");
        }
        for bad in ["", "1abc", "-x", "a b", "a/b", "..", "é", &"a".repeat(65)] {
            assert!(!valid_crate_name(bad), "{bad}");
        }
    }

    #[test]
    fn the_scaffold_pins_the_repositorys_toolchain_with_the_wasm_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("counter");
        let sdk = Path::new(SDK_BESIDE_SOURCES);
        new_crate("counter", Some(target.clone()), Some(sdk.to_path_buf())).unwrap();
        let toolchain = std::fs::read_to_string(target.join("rust-toolchain.toml")).unwrap();
        assert!(toolchain.contains(&format!("channel = \"{}\"", toolchain_channel().unwrap())), "{toolchain}");
        assert!(toolchain.contains(WASM_TARGET));
        let cargo = std::fs::read_to_string(target.join("Cargo.toml")).unwrap();
        let sdk = std::fs::canonicalize(sdk).unwrap();
        assert!(cargo.contains(&format!("path = \"{}\"", sdk.display())), "{cargo}");
        assert!(!cargo.contains("{{"), "every placeholder is filled: {cargo}");
        assert_eq!(crate_manifest(&target).unwrap(), Some(vec!["storage.kv".to_owned()]));
        // A deploy or an upgrade of the crate sends its manifest unless --manifest names ids.
        assert_eq!(entitlements(&target, Vec::new()).unwrap(), vec!["storage.kv".to_owned()]);
        assert_eq!(entitlements(&target, vec!["a.b".into()]).unwrap(), vec!["a.b".to_owned()]);
        assert!(entitlements(&target.join("Cargo.toml"), Vec::new()).unwrap().is_empty(), "a file has no manifest");
        // A second crate of the same name is refused rather than written over.
        assert!(new_crate("counter", Some(target), None).is_err());
        assert!(new_crate("no good", Some(dir.path().join("x")), None).is_err());
        let missing = new_crate("y", Some(dir.path().join("y")), Some(dir.path().join("nowhere"))).err().unwrap();
        assert!(missing.to_string().contains("--sdk"), "{missing}");
    }
}

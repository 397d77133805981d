//! The signing key and node a command uses when the command line does not say: a project's
//! `.drover/config.toml`, found by walking up from the working directory (as git finds `.git`),
//! and the `DROVER_KEY` / `DROVER_RPC_URL` environment variables.
//!
//! Precedence, first found wins: `--key FILE`, then `DROVER_KEY` (a key file, relative to the
//! working directory), then `key` in the nearest `.drover/config.toml` (relative to the
//! directory holding `.drover`). Likewise `--rpc-url`, `DROVER_RPC_URL`, the config's `rpc_url`,
//! then `http://127.0.0.1:4000`. The config is TOML with only those two keys, so a misspelt key
//! is an error rather than silently ignored; `drover keys use FILE` writes it.

use anyhow::{Context, Result, bail};
use drover_client::Wallet;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Directory of a project's settings, beside its sources.
pub(crate) const PROJECT_DIR: &str = ".drover";
/// The settings file inside [`PROJECT_DIR`].
pub(crate) const CONFIG_FILE: &str = "config.toml";
/// The node client commands talk to when nothing else names one.
pub(crate) const RPC_URL_DEFAULT: &str = "http://127.0.0.1:4000";
/// The environment variable naming the default key file.
pub(crate) const KEY_ENV: &str = "DROVER_KEY";

/// `.drover/config.toml`.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProjectConfig {
    /// Key file of the account that signs, relative to the project's directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) key: Option<PathBuf>,
    /// The node's HTTP API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rpc_url: Option<String>,
}

/// A project's config and the directory it belongs to (the one holding `.drover`).
#[derive(Debug)]
pub(crate) struct Project {
    pub(crate) root: PathBuf,
    pub(crate) config: ProjectConfig,
}

impl Project {
    /// The nearest project at or above `start`, if any.
    pub(crate) fn find(start: &Path) -> Result<Option<Project>> {
        for dir in start.ancestors() {
            let path = dir.join(PROJECT_DIR).join(CONFIG_FILE);
            if path.is_file() {
                let config = ProjectConfig::load(&path)?;
                return Ok(Some(Project { root: dir.to_path_buf(), config }));
            }
        }
        Ok(None)
    }

    /// The nearest project at or above the working directory.
    pub(crate) fn current() -> Result<Option<Project>> {
        let cwd = std::env::current_dir().context("cannot read the working directory")?;
        Project::find(&cwd)
    }

    /// The config's key file, resolved against the project's directory.
    fn key_path(&self) -> Option<PathBuf> {
        self.config.key.as_ref().map(|key| self.root.join(key))
    }
}

impl ProjectConfig {
    pub(crate) fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("{} is not a valid project config", path.display()))
    }

    /// Writes the config to `dir/.drover/config.toml`, creating the directory.
    pub(crate) fn save(&self, dir: &Path) -> Result<PathBuf> {
        let project = dir.join(PROJECT_DIR);
        std::fs::create_dir_all(&project).with_context(|| format!("cannot create {}", project.display()))?;
        let path = project.join(CONFIG_FILE);
        let text = toml::to_string(self).context("cannot encode the project config")?;
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }
}

/// Where the key a command signs with comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeySource {
    /// `--key` on the command line.
    Flag(PathBuf),
    /// `DROVER_KEY`.
    Env(PathBuf),
    /// A project's `.drover/config.toml`.
    Project { key: PathBuf, config: PathBuf },
}

impl KeySource {
    pub(crate) fn path(&self) -> &Path {
        match self {
            KeySource::Flag(path) | KeySource::Env(path) | KeySource::Project { key: path, .. } => path,
        }
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            KeySource::Flag(path) => format!("{} (--key)", path.display()),
            KeySource::Env(path) => format!("{} ({KEY_ENV})", path.display()),
            KeySource::Project { key, config } => format!("{} ({})", key.display(), config.display()),
        }
    }
}

/// Which key file signs: `flag` (`--key`), else `env` (`DROVER_KEY`), else the project's.
pub(crate) fn key_source(flag: Option<&Path>, env: Option<PathBuf>, project: Option<&Project>) -> Result<KeySource> {
    if let Some(path) = flag {
        return Ok(KeySource::Flag(path.to_path_buf()));
    }
    if let Some(path) = env.filter(|p| !p.as_os_str().is_empty()) {
        return Ok(KeySource::Env(path));
    }
    if let Some(project) = project
        && let Some(key) = project.key_path()
    {
        let config = project.root.join(PROJECT_DIR).join(CONFIG_FILE);
        return Ok(KeySource::Project { key, config });
    }
    bail!(
        "no key: pass --key FILE, set {KEY_ENV}=FILE, or run `drover keys use FILE` in the project's directory \
         (create one with `drover keys new --out FILE` or `drover keys import --out FILE`)"
    )
}

/// The key file a command signs with (see [`key_source`]), from this process's environment and
/// working directory.
pub(crate) fn default_key(flag: Option<&Path>) -> Result<KeySource> {
    let env = std::env::var_os(KEY_ENV).map(PathBuf::from);
    let project = if flag.is_none() && env.is_none() { Project::current()? } else { None };
    key_source(flag, env, project.as_ref())
}

/// The wallet a command signs with (see [`key_source`]).
pub(crate) fn wallet(flag: Option<&Path>) -> Result<Wallet> {
    let source = default_key(flag)?;
    Wallet::load(source.path()).with_context(|| format!("cannot load the key {}", source.describe()))
}

/// The node client commands talk to: `flag` (`--rpc-url` or `DROVER_RPC_URL`, which clap
/// reads), else the project's `rpc_url`, else [`RPC_URL_DEFAULT`].
pub(crate) fn rpc_url(flag: Option<String>) -> Result<String> {
    if let Some(url) = flag {
        return Ok(url);
    }
    let project = Project::current()?;
    Ok(project.and_then(|p| p.config.rpc_url).unwrap_or_else(|| RPC_URL_DEFAULT.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_then_the_environment_then_the_nearest_project() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b/c");
        std::fs::create_dir_all(&nested).unwrap();
        let config = ProjectConfig { key: Some("keys/dev.key".into()), rpc_url: Some("http://127.0.0.1:4555".into()) };
        let written = config.save(&dir.path().join("a")).unwrap();
        assert_eq!(written, dir.path().join("a/.drover/config.toml"));

        let project = Project::find(&nested).unwrap().expect("found by walking up");
        assert_eq!(project.root, dir.path().join("a"));
        assert_eq!(project.config, config);
        let from_project = key_source(None, None, Some(&project)).unwrap();
        assert_eq!(from_project.path(), dir.path().join("a/keys/dev.key"));
        let from_env = key_source(None, Some("env.key".into()), Some(&project)).unwrap();
        assert_eq!(from_env, KeySource::Env("env.key".into()));
        let from_flag = key_source(Some(Path::new("flag.key")), Some("env.key".into()), Some(&project)).unwrap();
        assert_eq!(from_flag, KeySource::Flag("flag.key".into()));
        // An empty variable is no key (a shell's `DROVER_KEY= cmd`).
        assert_eq!(key_source(None, Some(PathBuf::new()), Some(&project)).unwrap(), from_project);

        assert!(Project::find(dir.path()).unwrap().is_none(), "nothing above the project's own directory");
        let none = key_source(None, None, None).unwrap_err().to_string();
        assert!(none.contains("--key") && none.contains(KEY_ENV) && none.contains("keys use"), "{none}");
    }

    #[test]
    fn a_config_with_an_unknown_key_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(PROJECT_DIR)).unwrap();
        std::fs::write(dir.path().join(PROJECT_DIR).join(CONFIG_FILE), "keyfile = \"x\"\n").unwrap();
        let error = format!("{:#}", Project::find(dir.path()).unwrap_err());
        assert!(error.contains("keyfile"), "{error}");
    }
}

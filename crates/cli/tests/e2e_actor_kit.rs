//! End-to-end: the actor developer's kit as `docs/actors.md` shows it. The five-minute path —
//! `drover actor new`, `cargo test`, `drover actor build`, a project key, the faucet, `drover
//! actor address`, `drover deploy .`, a call, a read and a traced read — runs in bash exactly as
//! the page's blocks are written, against a fresh devnet of the real binary; every Rust and TOML
//! block of the page is checked to be part of a file the suite compiles, and its Rust section's
//! commands run as written (the examples' unit tests, a module built); and a `drover dev`
//! snapshot brings the chain back to where it was saved.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn actors_page() -> String {
    std::fs::read_to_string(repo().join("docs/actors.md")).unwrap()
}

/// The fenced blocks of `text`: (language, body).
fn fenced_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(language)) => open = Some((language.trim().to_owned(), String::new())),
            (Some(_), Some("")) => blocks.extend(open.take()),
            (Some((_, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed block");
    blocks
}

/// The part of the page under the heading `## {title}...`, up to the next `## `.
fn section<'a>(page: &'a str, title: &str) -> &'a str {
    let start = page.find(&format!("\n## {title}")).unwrap_or_else(|| panic!("no section {title:?}"));
    let rest = &page[start + 1..];
    &rest[..rest[3..].find("\n## ").map_or(rest.len(), |end| end + 3)]
}

#[test]
fn every_rust_and_toml_block_of_the_page_is_in_a_compiled_file() {
    let page = actors_page();
    let mut checked = 0;
    for (language, body) in fenced_blocks(&page) {
        let comment = match language.as_str() {
            "rust" => "// ",
            "toml" => "# ",
            _ => continue,
        };
        let (first, rest) = body.split_once('\n').unwrap();
        let file = first
            .strip_prefix(comment)
            .unwrap_or_else(|| panic!("a {language} block must name its file on its first line:\n{body}"));
        let held = std::fs::read_to_string(repo().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(held.contains(rest), "{file} does not hold this block of docs/actors.md verbatim:\n{rest}");
        assert!(file.starts_with("actors/rust/"), "{file}: blocks come from the examples the suite builds");
        checked += 1;
    }
    assert!(checked >= 3, "the page's Rust section shows the counter's files");
}

/// The `sh` blocks of the page's section `title`, as one script.
fn section_script(title: &str) -> String {
    fenced_blocks(section(&actors_page(), title))
        .into_iter()
        .filter(|(language, _)| language == "sh")
        .map(|(_, body)| body)
        .collect()
}

/// `script` in bash (stopping at the first failure) in `dir`, as a reader would run it: this
/// build's `drover` first on the path, the node at `rpc_url`, nested cargo builds in a target
/// directory of their own (shared by the tests), no default key from the environment.
fn run_script(script: &str, dir: &Path, rpc_url: &str) -> std::process::Output {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env("DROVER_RPC_URL", rpc_url)
        .env("CARGO_TARGET_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("actors"))
        .env_remove("DROVER_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_five_minute_path_runs_as_the_page_shows_it() {
    let node = TestNode::start(NodeOptions::default()).await;
    let script = section_script("Five minutes");
    assert!(script.contains("drover actor new") && script.contains("--trace"), "{script}");
    let dir = tempfile::tempdir().unwrap();
    let out = run_script(&script, dir.path(), &node.url);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the five-minute path failed:\n{stdout}\n{stderr}");
    // The call's trace, from its simulation, shows the count written; the read answers it, and
    // its trace shows the key the handler read.
    assert!(stdout.contains(r#"write 0x636f756e74 ("count") = 0x0100000000000000"#), "{stdout}");
    assert!(stdout.contains("0x0100000000000000"), "{stdout}");
    assert!(
        stdout.contains("trace:") && stdout.contains(r#"read 0x636f756e74 ("count") -> 0x0100000000000000"#),
        "{stdout}"
    );
    assert!(stdout.contains("a deploy would accept it"), "actor build checked the module: {stdout}");
    let counter = dir.path().join("counter");
    let config = std::fs::read_to_string(counter.join(".drover/config.toml")).unwrap();
    assert!(config.contains("dev.key"), "{config}");
    // The mnemonic the page imports is Hardhat's; its first account is well known.
    let shown = ok(drover(&node.url, &["keys", "show", "--key", counter.join("hardhat.key").to_str().unwrap()]));
    assert!(shown.contains("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"), "{shown}");
}

/// The Rust section's commands, run from the repository's root as the page writes them: every
/// example's unit tests on the mock host, and one module built and checked.
#[test]
fn the_examples_by_hand_run_as_the_page_shows_them() {
    let script = section_script("Writing an actor in Rust");
    assert!(script.contains("cargo test") && script.contains("drover actor build"), "{script}");
    // No node: `actor build` checks the module against the genesis limits.
    let out = run_script(&script, &repo(), "http://127.0.0.1:9");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the page's commands failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("a deploy would accept it"), "actor build checked the module: {stdout}");
}

/// A `drover dev` process, stopped by PID when dropped.
struct Dev {
    child: Option<Child>,
    url: String,
}

impl Dev {
    async fn start(dir: &Path, rpc_port: u16, extra: &[&str]) -> Dev {
        let log = std::fs::File::create(dir.with_extension(format!("{}.log", extra.join("-")))).unwrap();
        let child = Command::new(BIN)
            .arg("dev")
            .arg("--dir")
            .arg(dir)
            .args(["--rpc-port", &rpc_port.to_string(), "--p2p-port", &(rpc_port + 1).to_string()])
            .args(["--block-interval-ms", "100"])
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let dev = Dev { child: Some(child), url: format!("http://127.0.0.1:{rpc_port}") };
        let client = drover_client::Client::new(&dev.url).unwrap();
        until("the devnet", || async { client.height().await.ok().filter(|h| *h >= 1) }).await;
        dev
    }

    /// SIGTERM, then wait for the exit (the ports are free after).
    fn stop(mut self) {
        terminate(self.child.take().unwrap());
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_devnet_snapshot_brings_the_chain_back() {
    let dir = tempfile::tempdir().unwrap();
    let devnet = dir.path().join("dev");
    let port = free_port_block(2);
    let recipient = "0x00000000000000000000000000000000000000aa";

    let dev = Dev::start(&devnet, port, &[]).await;
    let refused = Command::new(BIN).arg("dev").arg("--dir").arg(&devnet).args(["--snapshot", "base"]).output().unwrap();
    assert!(!refused.status.success(), "a running devnet is not copied");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("in use"));
    dev.stop();

    let dev = Dev::start(&devnet, port, &["--snapshot", "base"]).await;
    ok(drover(&dev.url, &["faucet", recipient]));
    let client = drover_client::Client::new(&dev.url).unwrap();
    let recipient_address = recipient.parse().unwrap();
    assert!(client.account(&recipient_address).await.unwrap().is_some());
    dev.stop();

    let dev = Dev::start(&devnet, port, &["--restore", "base"]).await;
    let client = drover_client::Client::new(&dev.url).unwrap();
    assert!(client.account(&recipient_address).await.unwrap().is_none(), "the faucet's transfer is undone");
    // The restored chain makes blocks and takes transactions.
    ok(drover(&dev.url, &["faucet", recipient]));
    assert!(client.account(&recipient_address).await.unwrap().is_some());
    dev.stop();
}

#[test]
fn keys_work_under_a_broken_project_config_and_node_commands_name_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".drover")).unwrap();
    std::fs::write(dir.path().join(".drover/config.toml"), "keyfile = \"x\"\n").unwrap();
    let nested = dir.path().join("src");
    std::fs::create_dir_all(&nested).unwrap();
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .current_dir(&nested)
            .env_remove("DROVER_RPC_URL")
            .env_remove("DROVER_KEY")
            .output()
            .unwrap()
    };
    // A key needs no node, so no project config either.
    ok(run(&["keys", "new", "--out", "fresh.key"]));
    assert!(nested.join("fresh.key").is_file());
    // A command that talks to a node reads the config, and says which file is wrong.
    let refused = run(&["status"]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("config.toml") && stderr.contains("keyfile"), "{stderr}");
}

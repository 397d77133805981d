//! End-to-end: storage relays with real processes. A `drover relay` registers and serves; an
//! owner creates a private volume through the node's `/ras` routes (the CLI), puts and gets a
//! file through the relay (sealed client side: the relay holds only ciphertext); the relay
//! commits the manifest root the node then records; another wallet's token and a replayed
//! request are refused; the relay killed (-9) and started again still serves the file; the
//! public aggregates count it; the owner deletes and undeletes the volume; a public volume is
//! read with no key, takes no write past its owner's cap until the owner raises it, is
//! deleted, purged past its grace, dropped by the relay's sweep and reaped; and the relay gives
//! the last volume up on chain (`volume drop`).

mod common;

use common::*;
use drover_client::Wallet;
use drover_client::storage_auth::{StorageSigner, now_ms};
use drover_relay::{ClientError, RelayClient};
use drover_types::{
    Address, H256, SecretKey, storage::VolumeStatus, storage::auth::relay_audience, storage::volume_id,
};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// A running `drover relay`, stopped by PID (SIGKILL) when dropped.
struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn key_file(dir: &Path, wallet: &Wallet) -> PathBuf {
    let key = dir.join(format!("{}.key", wallet.address()));
    std::fs::write(&key, wallet.secret_key().to_hex()).unwrap();
    key
}

fn start_relay(url: &str, dir: &Path, key: &Path, listen: &str, run: u32) -> Daemon {
    let log = std::fs::File::create(dir.join(format!("relay-{run}.log"))).unwrap();
    let child = Command::new(BIN)
        .args(["--rpc-url", url, "relay", "--key"])
        .arg(key)
        .arg("--dir")
        .arg(dir.join("relay-data"))
        .args(["--listen", listen, "--capacity", "10000000", "--price", "1"])
        .args(["--heartbeat-blocks", "5", "--commit-interval-ms", "300"])
        .args(["--sweep-interval-ms", "200", "--sweep-confirm-ms", "0"])
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    Daemon(child)
}

/// A signed GET of the relay registered as `relay`, with the given nonce: `(status, body)`.
async fn signed_get(
    (relay_url, relay): (&str, &Address),
    signer: &StorageSigner,
    path: &str,
    nonce: &[u8],
) -> (u16, serde_json::Value) {
    let headers = signer.headers_at(&relay_audience(relay), ("GET", path, b""), now_ms(), nonce);
    let mut request = reqwest::Client::new().get(format!("{relay_url}{path}"));
    for (name, value) in headers.pairs() {
        request = request.header(name, value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(serde_json::Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_stores_a_private_volume_commits_its_root_and_survives_a_restart() {
    let node = TestNode::start(NodeOptions::default()).await;
    let url = node.url.clone();
    let client = node.client();
    let chain_id = client.chain_info().await.unwrap().chain_id;
    let dir = tempfile::tempdir().unwrap();
    let (relay_wallet, owner, stranger) = (Wallet::new(dev_key(3)), Wallet::new(dev_key(4)), Wallet::new(dev_key(5)));
    let relay_key = key_file(dir.path(), &relay_wallet);
    let owner_key = key_file(dir.path(), &owner);
    let owner_key = owner_key.to_str().unwrap();
    let listen = format!("127.0.0.1:{}", free_port_block(1));
    let relay_url = format!("http://{listen}");
    let relay_account = relay_wallet.address();
    // Where signed requests go: the relay's URL, and the address they are signed for.
    let relay_at = (relay_url.as_str(), &relay_account);
    let mut relay = start_relay(&url, dir.path(), &relay_key, &listen, 1);

    // The relay registers and is offered to new volumes.
    let listed = until("the relay to take volumes", || async {
        let list = client.storage_write_relayers(0, 10).await.ok()?;
        list.relays.into_iter().find(|r| r.address == relay_wallet.address())
    })
    .await;
    assert_eq!((listed.endpoint.as_str(), listed.capacity_bytes), (relay_url.as_str(), 10_000_000));

    // A private volume, created through POST /ras/volumes by the CLI.
    let relay_address = relay_wallet.address().to_string();
    ok(drover(
        &url,
        &[
            "storage",
            "volume",
            "create",
            "notes",
            "--relay",
            &relay_address,
            "--deposit",
            "1drv",
            "--max-size",
            "1000000",
            "--key",
            owner_key,
        ],
    ));
    let id = volume_id(&owner.address(), "notes");
    let volume = id.to_string();

    // Put and get a file through the relay.
    let plaintext = b"the launch code is 0000".repeat(100);
    let file = dir.path().join("secret.txt");
    std::fs::write(&file, &plaintext).unwrap();
    ok(drover(&url, &["storage", "put", &volume, "docs/secret.txt", file.to_str().unwrap(), "--key", owner_key]));
    let back = dir.path().join("back.txt");
    ok(drover(
        &url,
        &["storage", "get", "notes", "docs/secret.txt", "--out", back.to_str().unwrap(), "--key", owner_key],
    ));
    assert_eq!(std::fs::read(&back).unwrap(), plaintext);
    let listing = ok(drover(&url, &["storage", "ls", &volume, "--key", owner_key]));
    assert!(listing.contains("docs/secret.txt"), "{listing}");

    // The relay holds ciphertext only.
    let as_owner = RelayClient::new(&relay_url, &relay_wallet.address(), chain_id, owner.secret_key().clone()).unwrap();
    let stored = as_owner.get(id, "docs/secret.txt").await.unwrap();
    assert_ne!(stored, plaintext);
    assert!(!stored.windows(11).any(|w| w == b"launch code"), "no plaintext at the relay");
    assert_eq!(as_owner.get_sealed(id, "docs/secret.txt").await.unwrap(), plaintext);

    // The relay commits its manifest root; the node records exactly it.
    let at_relay = as_owner.info(id).await.unwrap();
    let owner_session = StorageSigner::issue(owner.secret_key(), SecretKey::random(), chain_id);
    let committed = until("the root to be committed", || async {
        let info = client.storage_volume(&owner_session, &id).await.ok()??;
        (info.root == at_relay.root).then_some(info)
    })
    .await;
    assert_eq!(committed.size_bytes, at_relay.size_bytes);
    assert_eq!(committed.status, VolumeStatus::Active);
    // Rent follows the committed size (within the owner's cap) from the next rent window.
    let billed = committed.billed_bytes.max(committed.next_billed_bytes.unwrap_or(0));
    assert_eq!((billed, committed.max_size_bytes), (at_relay.size_bytes, 1_000_000));

    // Another wallet's token: the same 404 as a volume that does not exist, at the relay and
    // at the node.
    let as_stranger =
        RelayClient::new(&relay_url, &relay_wallet.address(), chain_id, stranger.secret_key().clone()).unwrap();
    assert!(matches!(as_stranger.get(id, "docs/secret.txt").await, Err(ClientError::NotFound(_))));
    assert!(matches!(as_stranger.get(H256([9; 32]), "docs/secret.txt").await, Err(ClientError::NotFound(_))));
    let stranger_session = StorageSigner::issue(stranger.secret_key(), SecretKey::random(), chain_id);
    let path = format!("/v1/volumes/{id}/objects/docs/secret.txt");
    let unknown = format!("/v1/volumes/{}/objects/docs/secret.txt", H256([9; 32]));
    let fresh = |n: u8| [n; 16];
    let (status, body) = signed_get(relay_at, &stranger_session, &path, &fresh(1)).await;
    let (unknown_status, unknown_body) = signed_get(relay_at, &stranger_session, &unknown, &fresh(2)).await;
    assert_eq!((status, &body), (unknown_status, &unknown_body), "a private volume does not show");
    assert_eq!(status, 404);
    assert_eq!(client.storage_volume(&stranger_session, &id).await.unwrap(), None);

    // A replayed request is refused.
    let (status, _) = signed_get(relay_at, &owner_session, &path, &fresh(3)).await;
    assert_eq!(status, 200);
    let (status, body) = signed_get(relay_at, &owner_session, &path, &fresh(3)).await;
    assert_eq!((status, body["code"].as_u64()), (401, Some(9102)), "{body}");

    // Killed (-9) and started again over the same directory, the relay still serves the file.
    let _ = relay.0.kill();
    let _ = relay.0.wait();
    relay = start_relay(&url, dir.path(), &relay_key, &listen, 2);
    let again = until("the restarted relay", || async { as_owner.get_sealed(id, "docs/secret.txt").await.ok() }).await;
    assert_eq!(again, plaintext);

    // The public aggregates count the relay, the volume and its bytes.
    let stats = client.storage_stats().await.unwrap();
    assert_eq!((stats.relays, stats.volumes, stats.bytes), (1, 1, at_relay.size_bytes));
    assert!(stats.deposits > 0 && stats.fees_burned > 0, "{stats:?}");
    let public = client.storage_public_relays(0, 10).await.unwrap();
    assert_eq!(public.total_count, 1);

    // A public volume: anyone reads it through the relay, with no key at all.
    let page = dir.path().join("index.html");
    std::fs::write(&page, "<p>hello, anyone</p>").unwrap();
    ok(drover(
        &url,
        &[
            "storage",
            "volume",
            "create",
            "site",
            "--relay",
            &relay_address,
            "--public",
            "--deposit",
            "1drv",
            "--max-size",
            "1000",
            "--key",
            owner_key,
        ],
    ));
    let site = volume_id(&owner.address(), "site").to_string();
    ok(drover(&url, &["storage", "put", "site", "index.html", page.to_str().unwrap(), "--key", owner_key]));
    let read = ok(drover(&url, &["storage", "get", &site, "index.html", "--relay-url", &relay_url]));
    assert!(read.contains("<p>hello, anyone</p>"), "{read}");
    // Past the 1,000 bytes the owner pays for, the relay takes no more; raised, it does.
    let big = dir.path().join("big.html");
    std::fs::write(&big, vec![b'x'; 1_000]).unwrap();
    let refused = drover(&url, &["storage", "put", "site", "big.html", big.to_str().unwrap(), "--key", owner_key]);
    assert!(!refused.status.success(), "a put past the volume's cap");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pays for at most 1000"), "{refused:?}");
    ok(drover(&url, &["storage", "volume", "resize", "site", "--max-size", "4000", "--key", owner_key]));
    // (The relay caches what the chain says for a moment.)
    until("the relay to see the new cap", || async {
        let put = drover(&url, &["storage", "put", "site", "big.html", big.to_str().unwrap(), "--key", owner_key]);
        put.status.success().then_some(())
    })
    .await;
    // No key, no writes: an unsigned PUT reaches the relay and is refused there.
    let unsigned =
        reqwest::Client::new().put(format!("{relay_url}/v1/volumes/{site}/objects/x")).body("x").send().await.unwrap();
    assert_eq!(unsigned.status(), 401, "an unsigned write");

    // A revoked session key is refused from its block on, by the node and by the relay (which
    // caches what the chain says for a moment).
    let revoked = StorageSigner::issue(owner.secret_key(), SecretKey::random(), chain_id);
    let (status, _) = signed_get(relay_at, &revoked, &path, &rand::random::<[u8; 16]>()).await;
    assert_eq!(status, 200);
    let session_key = format!("0x{}", hex::encode(revoked.session_public_key()));
    ok(drover(&url, &["storage", "revoke", &session_key, "--key", owner_key]));
    // (A leaked session key is the usual reason to revoke one: the relay then answers it like
    // a stranger, with the 404 of an unknown volume.)
    let refused = until("the relay to refuse the revoked session", || async {
        let (status, body) = signed_get(relay_at, &revoked, &path, &rand::random::<[u8; 16]>()).await;
        (status == 404).then_some(body)
    })
    .await;
    assert_eq!(refused, unknown_body);
    let at_node = client.storage_me(&revoked).await.unwrap_err();
    assert!(at_node.to_string().contains("revoked"), "{at_node}");
    assert!(client.storage_me(&owner_session).await.is_ok(), "other sessions of the wallet still work");

    // The owner deletes the volume, then takes it back within the grace.
    ok(drover(&url, &["storage", "volume", "delete", "notes", "--key", owner_key]));
    let info = client.storage_volume(&owner_session, &id).await.unwrap().unwrap();
    assert_eq!(info.status, VolumeStatus::Deleted);
    // (The relay caches what the chain says for a moment.)
    until("the relay to refuse writes", || async {
        matches!(as_owner.put_sealed(id, "more.txt", b"x").await, Err(ClientError::Forbidden(_))).then_some(())
    })
    .await;
    ok(drover(&url, &["storage", "volume", "undelete", &volume, "--key", owner_key]));
    let info = client.storage_volume(&owner_session, &id).await.unwrap().unwrap();
    assert_eq!(info.status, VolumeStatus::Active);

    // The public volume is deleted and left past its grace: purged on chain, its bytes dropped
    // by the relay's sweep, then reaped with the rest of its deposit back to the owner.
    let site_id = volume_id(&owner.address(), "site");
    ok(drover(&url, &["storage", "volume", "delete", "site", "--key", owner_key]));
    until("the volume to be purged", || async {
        let info = client.storage_volume(&owner_session, &site_id).await.ok()??;
        (info.status == VolumeStatus::Purged).then_some(())
    })
    .await;
    let site_dir = dir.path().join("relay-data").join("volumes").join(hex::encode(site_id.0));
    until("the relay to drop the purged volume", || async { (!site_dir.exists()).then_some(()) }).await;
    assert!(dir.path().join("relay-data").join("volumes").join(hex::encode(id.0)).exists(), "the other stays");
    let before = client.account(&owner.address()).await.unwrap().unwrap().balance;
    ok(drover(&url, &["storage", "volume", "reap", "site", "--key", owner_key]));
    assert!(client.account(&owner.address()).await.unwrap().unwrap().balance > before, "the deposit came back");
    assert_eq!(client.storage_volume(&owner_session, &site_id).await.unwrap(), None);
    assert_eq!(client.storage_stats().await.unwrap().volumes, 1);

    // The relay gives the last volume up: its rent stops, its owner cannot take it back, and
    // the relay keeps serving reads through the grace. (Its daemon signs heartbeats with the same
    // key meanwhile: a command that took the nonce of one still pending is refused, and tried
    // again, as an operator would.)
    let drop_volume = ["storage", "volume", "drop", &volume, "--key", relay_key.to_str().unwrap()];
    until("the relay's drop to be admitted", || async { drover(&url, &drop_volume).status.success().then_some(()) })
        .await;
    let info = client.storage_volume(&owner_session, &id).await.unwrap().unwrap();
    assert_eq!((info.status, info.dropped, info.rent_per_block), (VolumeStatus::Deleted, true, 0));
    let undelete = drover(&url, &["storage", "volume", "undelete", &volume, "--key", owner_key]);
    assert!(!undelete.status.success(), "a dropped volume is not undeleted");
    assert_eq!(as_owner.get_sealed(id, "docs/secret.txt").await.unwrap(), plaintext);
    drop(relay);
}

//! The relay end to end over 127.0.0.1: a server with a fake chain ([`Directory`]) driven by
//! [`RelayClient`] and by hand-made requests where a client would never send them (replays,
//! tampered signatures, missing tokens).

use drover_relay::api::RelayErrorCode;
use drover_relay::commit::{CommitError, CommitLoop, Committer};
use drover_relay::server::{Directory, DirectoryError, Relay, RelayConfig, VolumeInfo};
use drover_relay::{ClientError, RelayClient};
use drover_types::storage::VolumeStatus;
use drover_types::storage::auth::{DelegationToken, node_audience, relay_audience, request_hash, session_public_key};
use drover_types::{Address, H256, SecretKey, keccak256};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::oneshot;

const CHAIN_ID: u64 = 100;
const RELAY: Address = Address([0xee; 20]);

fn owner() -> SecretKey {
    SecretKey::dev(0)
}

fn stranger() -> SecretKey {
    SecretKey::dev(1)
}

fn private_volume() -> H256 {
    keccak256(b"private")
}

fn public_volume() -> H256 {
    keccak256(b"public")
}

fn grace_volume() -> H256 {
    keccak256(b"grace")
}

fn elsewhere_volume() -> H256 {
    keccak256(b"elsewhere")
}

fn unknown_volume() -> H256 {
    keccak256(b"unknown")
}

/// The chain as the relay sees it.
#[derive(Clone, Default)]
struct Chain {
    volumes: Arc<Mutex<HashMap<H256, VolumeInfo>>>,
    revoked: Arc<Mutex<Vec<[u8; 33]>>>,
    down: Arc<Mutex<bool>>,
}

impl Chain {
    fn standard() -> Self {
        let chain = Chain::default();
        // No cap but where a test sets one (a volume's owner may pay for any size).
        let info = |public, relay, status| VolumeInfo {
            owner: owner().address(),
            public,
            relay,
            status,
            max_size_bytes: u64::MAX,
        };
        let mut volumes = chain.volumes.lock();
        volumes.insert(private_volume(), info(false, RELAY, VolumeStatus::Active));
        volumes.insert(public_volume(), info(true, RELAY, VolumeStatus::Active));
        volumes.insert(grace_volume(), info(false, RELAY, VolumeStatus::Grace));
        volumes.insert(elsewhere_volume(), info(true, Address([1; 20]), VolumeStatus::Active));
        drop(volumes);
        chain
    }
}

impl Directory for Chain {
    async fn volume(&self, id: H256) -> Result<Option<VolumeInfo>, DirectoryError> {
        if *self.down.lock() {
            return Err(DirectoryError("node unreachable".into()));
        }
        Ok(self.volumes.lock().get(&id).copied())
    }

    async fn session_revoked(&self, _wallet: Address, session_key: [u8; 33]) -> Result<bool, DirectoryError> {
        Ok(self.revoked.lock().contains(&session_key))
    }
}

/// A committer that records every call.
#[derive(Clone, Default)]
struct Recorder {
    calls: Arc<Mutex<Vec<(H256, H256, u64)>>>,
}

impl Committer for Recorder {
    async fn commit(&self, volume: H256, root: H256, size_bytes: u64) -> Result<(), CommitError> {
        self.calls.lock().push((volume, root, size_bytes));
        Ok(())
    }
}

/// A running relay.
struct Running {
    url: String,
    chain: Chain,
    store: Arc<drover_relay::Store>,
    stop: oneshot::Sender<()>,
    served: tokio::task::JoinHandle<Result<(), drover_relay::RelayError>>,
}

impl Running {
    async fn start(dir: &Path, capacity_bytes: u64) -> Running {
        Self::start_with(dir, capacity_bytes, |_| {}).await
    }

    async fn start_with(dir: &Path, capacity_bytes: u64, tweak: impl FnOnce(&mut RelayConfig)) -> Running {
        let chain = Chain::standard();
        let mut config = RelayConfig::new(dir, CHAIN_ID, RELAY, capacity_bytes);
        tweak(&mut config);
        // Every request asks the chain, so the tests can change it between requests.
        config.directory_cache_ttl = std::time::Duration::ZERO;
        let relay = Relay::open(config, chain.clone()).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let store = relay.store();
        let served = tokio::spawn(relay.serve(listener, async move {
            let _ = stopped.await;
        }));
        Running { url, chain, store, stop, served }
    }

    fn client(&self, wallet: SecretKey) -> RelayClient {
        RelayClient::new(&self.url, &RELAY, CHAIN_ID, wallet).unwrap()
    }

    fn anonymous(&self) -> RelayClient {
        RelayClient::anonymous(&self.url).unwrap()
    }

    async fn stop(self) {
        drop(self.store);
        let _ = self.stop.send(());
        self.served.await.unwrap().unwrap();
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

/// A request signed by hand: `(header, value)` pairs for `method path` with `body`.
struct Signer {
    wallet: SecretKey,
    session: SecretKey,
    chain_id: u64,
    /// Who the requests are signed for: this relay, unless a test says otherwise.
    audience: String,
}

impl Signer {
    fn new(wallet: SecretKey) -> Self {
        Signer { wallet, session: SecretKey::dev(9), chain_id: CHAIN_ID, audience: relay_audience(&RELAY) }
    }

    fn headers(&self, method: &str, path: &str, nonce: &str, body: &[u8]) -> Vec<(&'static str, String)> {
        let token =
            DelegationToken::issue(&self.wallet, session_public_key(&self.session), self.chain_id, now_ms() + 60_000);
        let timestamp = now_ms().to_string();
        let hash = request_hash(method, path, &self.audience, &timestamp, nonce, body);
        let signature = format!("0x{}", hex::encode(self.session.sign_prehash(&hash).to_rsv()));
        vec![
            ("X-DRFS-Delegation", token.encode()),
            ("X-DRFS-Timestamp", timestamp),
            ("X-DRFS-Nonce", nonce.to_owned()),
            ("X-DRFS-Signature", signature),
        ]
    }
}

async fn raw(
    method: reqwest::Method,
    url: &str,
    headers: &[(&'static str, String)],
    body: Vec<u8>,
) -> (u16, serde_json::Value, Vec<u8>) {
    let mut request = reqwest::Client::new().request(method, url).body(body);
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let bytes = response.bytes().await.unwrap().to_vec();
    let json = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
    (status, json, bytes)
}

fn assert_code(answer: &(u16, serde_json::Value, Vec<u8>), code: RelayErrorCode) {
    assert_eq!(answer.0, code.http_status(), "{}", answer.1);
    assert_eq!(answer.1["code"], code.code(), "{}", answer.1);
    assert_eq!(answer.1["error"], code.name(), "{}", answer.1);
}

#[tokio::test]
async fn the_owner_uses_a_private_volume_and_nobody_else_learns_it_exists() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start(dir.path(), u64::MAX).await;
    let owner = relay.client(owner());
    let volume = private_volume();

    let put = owner.put(volume, "notes/a b.txt", b"first".to_vec()).await.unwrap();
    assert_eq!(put.content_hash, keccak256(b"first"));
    owner.put(volume, "notes/ü/2", b"second".to_vec()).await.unwrap();
    owner.put(volume, "top", Vec::new()).await.unwrap();
    assert_eq!(owner.get(volume, "notes/a b.txt").await.unwrap(), b"first");
    assert_eq!(owner.get(volume, "top").await.unwrap(), b"");
    let page = owner.list(volume, "notes/", None, 1).await.unwrap();
    assert_eq!(page.entries.len(), 1);
    assert_eq!(page.entries[0].key, "notes/a b.txt");
    assert_eq!(page.next_after.as_deref(), Some("notes/a b.txt"));
    let all = owner.list_all(volume, "notes/").await.unwrap();
    assert_eq!(all.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(), ["notes/a b.txt", "notes/ü/2"]);
    let info = owner.info(volume).await.unwrap();
    assert_eq!((info.volume_id, info.objects, info.size_bytes), (volume, 3, 11));
    assert_eq!(info.root, relay.store.summary(volume).root);

    // Sealed objects: the relay holds ciphertext only.
    owner.put_sealed(volume, "secret", b"plain words").await.unwrap();
    assert_ne!(owner.get(volume, "secret").await.unwrap(), b"plain words");
    assert_eq!(owner.get_sealed(volume, "secret").await.unwrap(), b"plain words");

    let deleted = owner.delete(volume, "top").await.unwrap();
    assert_eq!(deleted.root, relay.store.summary(volume).root);
    assert!(matches!(owner.get(volume, "top").await, Err(ClientError::NotFound(m)) if m == "no such object"));
    assert!(matches!(owner.delete(volume, "top").await, Err(ClientError::NotFound(_))));

    // Everyone else gets exactly what an unknown volume gets.
    let unknown_message = match owner.get(unknown_volume(), "notes/a b.txt").await {
        Err(ClientError::NotFound(message)) => message,
        other => panic!("{other:?}"),
    };
    let stranger = relay.client(stranger());
    let anonymous = relay.anonymous();
    for result in [
        stranger.get(volume, "notes/a b.txt").await,
        anonymous.get(volume, "notes/a b.txt").await,
        owner.get(elsewhere_volume(), "x").await,
    ] {
        assert!(matches!(&result, Err(ClientError::NotFound(m)) if *m == unknown_message), "{result:?}");
    }
    assert!(
        matches!(stranger.put(volume, "x", b"y".to_vec()).await, Err(ClientError::NotFound(m)) if m == unknown_message)
    );
    assert!(matches!(stranger.delete(volume, "top").await, Err(ClientError::NotFound(m)) if m == unknown_message));
    assert!(matches!(stranger.info(volume).await, Err(ClientError::NotFound(m)) if m == unknown_message));
    assert!(matches!(stranger.list(volume, "", None, 10).await, Err(ClientError::NotFound(m)) if m == unknown_message));
    // Byte for byte, also with a stranger's valid signed request.
    let path = format!("/v1/volumes/{volume}/objects/top");
    let unknown_path = format!("/v1/volumes/{}/objects/top", unknown_volume());
    let signed = Signer::new(SecretKey::dev(1)).headers("GET", &path, &"01".repeat(16), b"");
    let private = raw(reqwest::Method::GET, &format!("{}{path}", relay.url), &signed, Vec::new()).await;
    let unknown = raw(reqwest::Method::GET, &format!("{}{unknown_path}", relay.url), &[], Vec::new()).await;
    assert_eq!((private.0, &private.2), (404, &unknown.2));
    assert_code(&unknown, RelayErrorCode::NotFound);
    // A grace-period volume reads but takes no writes.
    assert!(matches!(owner.put(grace_volume(), "x", b"y".to_vec()).await, Err(ClientError::Forbidden(_))));
    assert!(matches!(owner.get(grace_volume(), "x").await, Err(ClientError::NotFound(m)) if m == "no such object"));

    // Invalid keys never leave the client; the relay refuses them too.
    assert!(matches!(owner.put(volume, "a/../b", b"x".to_vec()).await, Err(ClientError::Key(_))));
    let bad = raw(reqwest::Method::GET, &format!("{}/v1/volumes/{volume}/objects/a%00b", relay.url), &[], vec![]).await;
    assert_code(&bad, RelayErrorCode::BadRequest);
    relay.stop().await;
}

#[tokio::test]
async fn replays_tampered_signatures_and_bad_tokens_are_refused_with_their_codes() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start(dir.path(), u64::MAX).await;
    relay.client(owner()).put(private_volume(), "a", b"data".to_vec()).await.unwrap();
    let path = format!("/v1/volumes/{}/objects/a", private_volume());
    let url = format!("{}{path}", relay.url);
    let signer = Signer::new(owner());

    let headers = signer.headers("GET", &path, &"aa".repeat(16), b"");
    let first = raw(reqwest::Method::GET, &url, &headers, Vec::new()).await;
    assert_eq!((first.0, first.2.as_slice()), (200, &b"data"[..]));
    let replay = raw(reqwest::Method::GET, &url, &headers, Vec::new()).await;
    assert_code(&replay, RelayErrorCode::RasReplayed);

    let mut tampered = signer.headers("GET", &path, &"bb".repeat(16), b"");
    // One hex digit of r changed.
    let signature = &mut tampered[3].1;
    let digit = if signature.as_bytes()[10] == b'0' { "1" } else { "0" };
    signature.replace_range(10..11, digit);
    assert_code(&raw(reqwest::Method::GET, &url, &tampered, Vec::new()).await, RelayErrorCode::RasRequestInvalid);
    // Signed for another relay, or for the nodes: the same request, not this relay's to take.
    for audience in [relay_audience(&Address([0xef; 20])), node_audience(CHAIN_ID)] {
        let elsewhere = Signer { audience, ..Signer::new(owner()) }.headers("GET", &path, &"ab".repeat(16), b"");
        assert_code(&raw(reqwest::Method::GET, &url, &elsewhere, Vec::new()).await, RelayErrorCode::RasRequestInvalid);
    }
    // A client that names another relay than the one it reaches is refused the same way.
    let misdirected = RelayClient::new(&relay.url, &Address([0xef; 20]), CHAIN_ID, owner()).unwrap();
    assert!(matches!(misdirected.get(private_volume(), "a").await, Err(ClientError::Auth { .. })));
    // Signed for another path, or with another body than sent.
    let other_path =
        signer.headers("GET", &format!("/v1/volumes/{}/objects/b", private_volume()), &"cc".repeat(16), b"");
    assert_code(&raw(reqwest::Method::GET, &url, &other_path, Vec::new()).await, RelayErrorCode::RasRequestInvalid);
    let put_headers = signer.headers("PUT", &path, &"dd".repeat(16), b"signed body");
    let swapped = raw(reqwest::Method::PUT, &url, &put_headers, b"other body".to_vec()).await;
    assert_code(&swapped, RelayErrorCode::RasRequestInvalid);
    assert_eq!(relay.client(owner()).get(private_volume(), "a").await.unwrap(), b"data", "nothing was written");

    // On a public volume, a write without a valid token is 401 9100 (a private one says 404).
    let public_url = format!("{}/v1/volumes/{}/objects/a", relay.url, public_volume());
    assert_code(&raw(reqwest::Method::PUT, &public_url, &[], b"x".to_vec()).await, RelayErrorCode::RasTokenInvalid);
    let other_chain = Signer { chain_id: CHAIN_ID + 1, ..Signer::new(owner()) };
    let public_path = format!("/v1/volumes/{}/objects/a", public_volume());
    let headers = other_chain.headers("PUT", &public_path, &"ee".repeat(16), b"x");
    assert_code(
        &raw(reqwest::Method::PUT, &public_url, &headers, b"x".to_vec()).await,
        RelayErrorCode::RasTokenInvalid,
    );
    let headers = other_chain.headers("GET", &path, &"ff".repeat(16), b"");
    assert_code(&raw(reqwest::Method::GET, &url, &headers, Vec::new()).await, RelayErrorCode::NotFound);

    // A body where none belongs, beyond the small-body limit.
    let headers = signer.headers("DELETE", &path, &"12".repeat(16), &[0; 5_000]);
    assert_code(&raw(reqwest::Method::DELETE, &url, &headers, vec![0; 5_000]).await, RelayErrorCode::ObjectTooLarge);
    relay.stop().await;
}

#[tokio::test]
async fn a_public_volume_is_read_by_anyone_and_written_by_its_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start(dir.path(), u64::MAX).await;
    let volume = public_volume();
    relay.client(owner()).put(volume, "index.html", b"<p>hi</p>".to_vec()).await.unwrap();

    let anonymous = relay.anonymous();
    assert_eq!(anonymous.get(volume, "index.html").await.unwrap(), b"<p>hi</p>");
    assert_eq!(anonymous.list_all(volume, "").await.unwrap().len(), 1);
    assert_eq!(anonymous.info(volume).await.unwrap().objects, 1);
    let plain =
        raw(reqwest::Method::GET, &format!("{}/v1/volumes/{volume}/objects/index.html", relay.url), &[], vec![]).await;
    assert_eq!((plain.0, plain.2.as_slice()), (200, &b"<p>hi</p>"[..]));

    let stranger = relay.client(stranger());
    assert_eq!(stranger.get(volume, "index.html").await.unwrap(), b"<p>hi</p>");
    assert!(matches!(stranger.put(volume, "index.html", b"defaced".to_vec()).await, Err(ClientError::Forbidden(_))));
    assert!(matches!(stranger.delete(volume, "index.html").await, Err(ClientError::Forbidden(_))));
    assert!(matches!(anonymous.put(volume, "x", b"y".to_vec()).await, Err(ClientError::NoWallet)));
    assert_eq!(anonymous.get(volume, "index.html").await.unwrap(), b"<p>hi</p>");

    let health = anonymous.health().await.unwrap();
    assert_eq!((health.relay, health.volumes, health.bytes), (RELAY, 1, 9));
    relay.stop().await;
}

#[tokio::test]
async fn a_put_beyond_capacity_is_refused_with_507() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start(dir.path(), 1_000).await;
    let owner = relay.client(owner());
    owner.put(private_volume(), "a", vec![1; 600]).await.unwrap();
    let refused = owner.put(public_volume(), "b", vec![2; 600]).await;
    assert!(matches!(refused, Err(ClientError::Capacity(_))), "{refused:?}");
    owner.put(private_volume(), "a", vec![1; 1_000]).await.unwrap();
    assert!(matches!(owner.put(private_volume(), "c", vec![3]).await, Err(ClientError::Capacity(_))));
    owner.delete(private_volume(), "a").await.unwrap();
    owner.put(public_volume(), "b", vec![2; 600]).await.unwrap();
    let too_large = owner.put(private_volume(), "huge", vec![0; drover_relay::limits::MAX_OBJECT_BYTES + 1]).await;
    assert!(matches!(too_large, Err(ClientError::TooLarge(_))), "{too_large:?}");
    // Past what the owner pays for (its volume's max_size_bytes): refused the same way.
    relay.chain.volumes.lock().get_mut(&public_volume()).unwrap().max_size_bytes = 700;
    let unpaid = owner.put(public_volume(), "c", vec![3; 101]).await;
    assert!(matches!(&unpaid, Err(ClientError::Capacity(m)) if m.contains("pays for at most 700")), "{unpaid:?}");
    owner.put(public_volume(), "c", vec![3; 100]).await.unwrap();
    relay.stop().await;
}

#[tokio::test]
async fn a_restarted_relay_serves_what_it_stored_and_commits_each_root_once() {
    let dir = tempfile::tempdir().unwrap();
    let recorder = Recorder::default();
    let first_root = {
        let relay = Running::start(dir.path(), u64::MAX).await;
        let owner = relay.client(owner());
        owner.put(private_volume(), "kept", b"across restarts".to_vec()).await.unwrap();
        let mut commits = CommitLoop::open(relay.store.clone(), recorder.clone()).unwrap();
        assert_eq!(commits.round().await.committed, [private_volume()]);
        assert!(commits.round().await.committed.is_empty(), "nothing changed");
        let root = owner.info(private_volume()).await.unwrap().root;
        drop(commits);
        drop(owner);
        relay.stop().await;
        root
    };
    assert_eq!(*recorder.calls.lock(), [(private_volume(), first_root, 15)]);

    let relay = Running::start(dir.path(), u64::MAX).await;
    let owner = relay.client(owner());
    assert_eq!(owner.get(private_volume(), "kept").await.unwrap(), b"across restarts");
    let mut commits = CommitLoop::open(relay.store.clone(), recorder.clone()).unwrap();
    assert!(commits.round().await.committed.is_empty(), "committed before the restart");
    owner.put(public_volume(), "new", b"1".to_vec()).await.unwrap();
    owner.put(private_volume(), "kept", b"changed".to_vec()).await.unwrap();
    let report = commits.round().await;
    let mut changed = vec![public_volume(), private_volume()];
    changed.sort();
    assert_eq!(report.committed, changed, "in volume id order");
    let calls = recorder.calls.lock().clone();
    assert_eq!(calls.len(), 3);
    let private_root = owner.info(private_volume()).await.unwrap().root;
    assert!(calls.contains(&(private_volume(), private_root, 7)));
    assert_ne!(private_root, first_root);
    drop(commits);
    relay.stop().await;
}

#[tokio::test]
async fn a_revoked_session_is_refused_and_an_unreachable_chain_is_a_503() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start(dir.path(), u64::MAX).await;
    relay.client(owner()).put(private_volume(), "a", b"data".to_vec()).await.unwrap();
    let signer = Signer::new(owner());
    relay.chain.revoked.lock().push(session_public_key(&signer.session));

    let path = format!("/v1/volumes/{}/objects/a", private_volume());
    let headers = signer.headers("GET", &path, &"31".repeat(16), b"");
    let private = raw(reqwest::Method::GET, &format!("{}{path}", relay.url), &headers, Vec::new()).await;
    assert_code(&private, RelayErrorCode::NotFound);
    let public_path = format!("/v1/volumes/{}/objects/a", public_volume());
    let headers = signer.headers("PUT", &public_path, &"32".repeat(16), b"x");
    let public = raw(reqwest::Method::PUT, &format!("{}{public_path}", relay.url), &headers, b"x".to_vec()).await;
    assert_code(&public, RelayErrorCode::RasTokenInvalid);
    assert!(public.1["message"].as_str().unwrap().contains("revoked"));
    assert_eq!(relay.client(owner()).get(private_volume(), "a").await.unwrap(), b"data", "other sessions still work");

    *relay.chain.down.lock() = true;
    let unavailable = raw(reqwest::Method::GET, &format!("{}{public_path}", relay.url), &[], Vec::new()).await;
    assert_code(&unavailable, RelayErrorCode::Unavailable);
    relay.stop().await;
}

/// Opens a connection, sends the head of a signed PUT of `body` to `path` and its first `sent`
/// bytes; the rest is the caller's to send, or not.
async fn partial_put(relay: &Running, path: &str, nonce: &str, body: &[u8], sent: usize) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let signer = Signer::new(owner());
    let mut stream = tokio::net::TcpStream::connect(relay.url.trim_start_matches("http://")).await.unwrap();
    let mut head = format!("PUT {path} HTTP/1.1\r\nHost: relay\r\nContent-Length: {}\r\n", body.len());
    for (name, value) in signer.headers("PUT", path, nonce, body) {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("Connection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body[..sent]).await.unwrap();
    stream
}

/// Signed PUTs of one byte until one is answered `status` (another upload is meanwhile taking
/// its memory or place); answers that one.
async fn put_until(relay: &Running, status: u16) -> (u16, serde_json::Value, Vec<u8>) {
    let signer = Signer::new(owner());
    let path = format!("/v1/volumes/{}/objects/other.bin", private_volume());
    for attempt in 0..100u32 {
        let nonce = format!("{attempt:08x}").repeat(4);
        let answer = raw(
            reqwest::Method::PUT,
            &format!("{}{path}", relay.url),
            &signer.headers("PUT", &path, &nonce, b"x"),
            b"x".to_vec(),
        )
        .await;
        if answer.0 == status {
            return answer;
        }
        assert_eq!(answer.0, 200, "{}", answer.1);
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("no upload was answered {status}");
}

#[tokio::test]
async fn uploads_past_the_memory_budget_wait_for_it_then_get_503() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start_with(dir.path(), u64::MAX, |config| {
        config.upload_memory_bytes = drover_relay::limits::CHUNK_BYTES;
        config.upload_slot_wait = std::time::Duration::from_millis(200);
    })
    .await;
    let path = format!("/v1/volumes/{}/objects/slow.bin", private_volume());
    let body = vec![7u8; 1_024];
    // The first upload sends half its body and holds the whole budget meanwhile.
    let mut slow = partial_put(&relay, &path, &"11".repeat(16), &body, 512).await;
    let busy = put_until(&relay, 503).await;
    assert_code(&busy, RelayErrorCode::Unavailable);
    // The first finishes: stored whole, and the memory is free again.
    slow.write_all(&body[512..]).await.unwrap();
    let mut response = Vec::new();
    slow.read_to_end(&mut response).await.unwrap();
    assert!(response.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&response));
    assert_eq!(relay.client(owner()).get(private_volume(), "slow.bin").await.unwrap(), body);
    relay.client(owner()).put(private_volume(), "after.bin", b"y".to_vec()).await.unwrap();
    relay.stop().await;
}

#[tokio::test]
async fn one_wallet_holds_at_most_two_uploads_at_once() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start(dir.path(), u64::MAX).await;
    let body = vec![5u8; 1_024];
    let paths = [1, 2].map(|n| format!("/v1/volumes/{}/objects/held-{n}.bin", private_volume()));
    let mut held = Vec::new();
    for (n, path) in paths.iter().enumerate() {
        held.push(partial_put(&relay, path, &format!("{:02x}", 0xa0 + n).repeat(16), &body, 10).await);
    }
    // Plenty of memory is left, but not another place for this wallet.
    let busy = put_until(&relay, 503).await;
    assert!(busy.1["message"].as_str().unwrap().contains("uploads in flight"), "{}", busy.1);
    for stream in &mut held {
        stream.write_all(&body[10..]).await.unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        assert!(response.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&response));
    }
    relay.client(owner()).put(private_volume(), "after.bin", b"y".to_vec()).await.unwrap();
    relay.stop().await;
}

#[tokio::test]
async fn the_sweep_drops_a_volume_only_once_the_chain_has_said_for_long_enough_that_it_is_gone() {
    use drover_relay::Sweeper;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start(dir.path(), u64::MAX).await;
    let owner = relay.client(owner());
    owner.put(private_volume(), "a.txt", b"kept".to_vec()).await.unwrap();
    owner.put(public_volume(), "b.txt", b"dropped".to_vec()).await.unwrap();
    let chain = relay.chain.clone();

    // Alive on chain: kept. A failed lookup: kept, whatever the chain said before.
    let mut patient = Sweeper::new(relay.store.clone(), chain.clone(), RELAY, Duration::from_secs(3_600));
    assert_eq!(patient.round().await.kept, 2);
    *chain.down.lock() = true;
    assert_eq!(patient.round().await.unknown, 2);
    *chain.down.lock() = false;

    // Purged on chain: pending until the chain has said so for `confirm_after`.
    chain.volumes.lock().get_mut(&public_volume()).unwrap().status = VolumeStatus::Purged;
    let report = patient.round().await;
    assert_eq!((report.kept, report.pending, report.dropped), (1, 1, 0));
    assert!(relay.store.volumes().contains(&public_volume()), "not dropped yet (though no longer served)");
    // Seen alive again: its wait starts over.
    chain.volumes.lock().get_mut(&public_volume()).unwrap().status = VolumeStatus::Active;
    assert_eq!(patient.round().await.kept, 2);
    chain.volumes.lock().get_mut(&public_volume()).unwrap().status = VolumeStatus::Purged;
    assert_eq!(patient.round().await.pending, 1);
    let mut prompt = Sweeper::new(relay.store.clone(), chain.clone(), RELAY, Duration::ZERO);
    let report = prompt.round().await;
    assert_eq!((report.kept, report.dropped), (1, 1));
    assert_eq!(relay.store.volumes(), vec![private_volume()]);
    assert_eq!(owner.get(private_volume(), "a.txt").await.unwrap(), b"kept");
    // Held by another relay counts as gone too (as does a volume reaped, unknown to the chain).
    chain.volumes.lock().get_mut(&private_volume()).unwrap().relay = Address([9; 20]);
    assert_eq!(prompt.round().await.dropped, 1);
    assert!(relay.store.volumes().is_empty());
    relay.stop().await;
}

#[tokio::test]
async fn an_object_of_several_chunks_is_streamed_whole_with_its_length() {
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start(dir.path(), u64::MAX).await;
    let big: Vec<u8> = (0..drover_relay::limits::CHUNK_BYTES * 2 + 5).map(|i| (i % 241) as u8).collect();
    relay.client(owner()).put(public_volume(), "big.bin", big.clone()).await.unwrap();
    let url = format!("{}/v1/volumes/{}/objects/big.bin", relay.url, public_volume());
    let response = reqwest::get(&url).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.content_length(), Some(big.len() as u64));
    assert_eq!(response.bytes().await.unwrap().to_vec(), big);
    assert_eq!(relay.anonymous().get(public_volume(), "big.bin").await.unwrap(), big, "the client's hash check holds");
    relay.stop().await;
}

#[tokio::test]
async fn a_trickled_body_is_cut_off_and_frees_its_memory() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let relay = Running::start_with(dir.path(), u64::MAX, |config| {
        config.upload_memory_bytes = drover_relay::limits::CHUNK_BYTES;
        config.upload_body_timeout = std::time::Duration::from_millis(300);
    })
    .await;
    let path = format!("/v1/volumes/{}/objects/slow.bin", private_volume());
    let mut slow = partial_put(&relay, &path, &"22".repeat(16), &[7u8; 1_024], 10).await;
    // The rest never comes: the relay answers 400 once the body is late.
    let mut response = Vec::new();
    slow.read_to_end(&mut response).await.unwrap();
    assert!(response.starts_with(b"HTTP/1.1 400"), "{}", String::from_utf8_lossy(&response));
    relay.client(owner()).put(private_volume(), "after.bin", b"y".to_vec()).await.unwrap();
    // A read's body is held to the same deadline: a declared body that never comes is cut off.
    let signer = Signer::new(owner());
    let read_path = format!("/v1/volumes/{}/objects/after.bin", private_volume());
    let mut stream = tokio::net::TcpStream::connect(relay.url.trim_start_matches("http://")).await.unwrap();
    let mut head = format!("GET {read_path} HTTP/1.1\r\nHost: relay\r\nContent-Length: 100\r\n");
    for (name, value) in signer.headers("GET", &read_path, &"33".repeat(16), b"") {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("Connection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    assert!(response.starts_with(b"HTTP/1.1 400"), "{}", String::from_utf8_lossy(&response));
    relay.stop().await;
}

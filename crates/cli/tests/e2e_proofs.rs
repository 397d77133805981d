//! End-to-end: proofs served by a live node verify with the genesis group key alone, for every
//! kind; tampering with any part (value, key, proof node, root, header field, certificate,
//! group key) is rejected, and so is a valid proof of another record than the one asked for
//! (another account, key or transaction); proofs taken before a restart still verify after it; a multi-proof
//! mixes valid and invalid items; `drover verify` prints only verified values.

mod common;

use common::*;
use drover_client::verify::{
    Identity, Requested, Verified, VerifyError, verify_account, verify_actor, verify_multi, verify_receipt,
    verify_storage, verify_tx,
};
use drover_node::{devnet::GENESIS_FILE, genesis::Genesis};
use drover_types::{
    Address, ErrorCode, SecretKey,
    api::{InclusionProofInfo, ProofRequest, StateProofInfo, WaitStatus},
};
use std::process::Command;

const CHAIN: u64 = 100;

fn identity(node: &TestNode) -> Identity {
    Genesis::load(&node.dir.path().join(GENESIS_FILE)).unwrap().identity
}

/// Another network's group key.
fn foreign_identity() -> Identity {
    let (_, polynomial) = drover_node::keys::generate_network(1).unwrap();
    *polynomial.public()
}

fn flip(bytes: &mut [u8], at: usize) {
    let at = at.min(bytes.len() - 1);
    bytes[at] ^= 0x01;
}

/// Every tampering of a state proof that must be rejected, with a label.
fn tampered_state(proof: &StateProofInfo) -> Vec<(&'static str, StateProofInfo)> {
    let mut out = Vec::new();
    let mut p = proof.clone();
    p.value = match &p.value {
        Some(v) => {
            let mut v = v.clone();
            flip(&mut v, usize::MAX);
            Some(v)
        }
        None => Some(b"forged".to_vec()),
    };
    out.push(("value", p));
    let mut p = proof.clone();
    p.address = Address([0x5a; 20]);
    out.push(("address", p));
    let mut p = proof.clone();
    flip(&mut p.key, 5);
    out.push(("key", p));
    // A digest of the Merkle path near the end of the encoding (the proof's last bytes are the
    // next key or the span record; a digest sits just before).
    let mut p = proof.clone();
    let at = p.proof.len() / 2;
    flip(&mut p.proof, at);
    out.push(("proof node", p));
    let mut p = proof.clone();
    p.state_root.0[0] ^= 1;
    out.push(("state_root field", p));
    let mut p = proof.clone();
    p.height += 1;
    out.push(("height field", p));
    // A header byte near the roots (changes the digest).
    let mut p = proof.clone();
    let at = p.header.len() - 60;
    flip(&mut p.header, at);
    out.push(("block header", p));
    let mut p = proof.clone();
    let last = p.finalization.pop().unwrap();
    p.finalization.push(if last == '0' { '1' } else { '0' });
    out.push(("certificate", p));
    out
}

fn assert_state_rejected(
    proof: &StateProofInfo,
    identity: &Identity,
    check: impl Fn(&StateProofInfo, &Identity) -> Result<(), VerifyError>,
) {
    check(proof, identity).expect("the untouched proof verifies");
    for (what, tampered) in tampered_state(proof) {
        assert!(check(&tampered, identity).is_err(), "tampered {what} was accepted");
    }
    assert!(check(proof, &foreign_identity()).is_err(), "another network's key was accepted");
}

fn assert_inclusion_rejected(
    proof: &InclusionProofInfo,
    identity: &Identity,
    check: impl Fn(&InclusionProofInfo, &Identity) -> Result<(), VerifyError>,
) {
    check(proof, identity).expect("the untouched proof verifies");
    let mut cases: Vec<(&str, InclusionProofInfo)> = Vec::new();
    let mut p = proof.clone();
    flip(&mut p.encoded, 3);
    cases.push(("encoded record", p));
    let mut p = proof.clone();
    p.tx_hash.0[0] ^= 1;
    cases.push(("tx hash", p));
    let mut p = proof.clone();
    p.index += 1;
    cases.push(("index", p));
    let mut p = proof.clone();
    p.proof.push(0);
    cases.push(("proof encoding", p));
    let mut p = proof.clone();
    p.root.0[0] ^= 1;
    cases.push(("root field", p));
    let mut p = proof.clone();
    let at = p.header.len() - 60;
    flip(&mut p.header, at);
    cases.push(("block header", p));
    let mut p = proof.clone();
    let last = p.finalization.pop().unwrap();
    p.finalization.push(if last == '0' { '1' } else { '0' });
    cases.push(("certificate", p));
    for (what, tampered) in cases {
        assert!(check(&tampered, identity).is_err(), "tampered {what} was accepted");
    }
    assert!(check(proof, &foreign_identity()).is_err(), "another network's key was accepted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_proof_kind_verifies_and_tampering_is_rejected() {
    let mut node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let identity = identity(&node);
    // `/chain-info` names the genesis file's group key (what a browser pins on first use).
    let info = client.chain_info().await.unwrap();
    assert_eq!(drover_node::keys::parse_identity(&info.identity).unwrap(), identity);
    let key = dev_key(2);
    let to = SecretKey::random().address();
    let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;
    let tx = transfer(&key, CHAIN, nonce, to, 12_345);
    let waited = client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    assert_eq!(waited.results[0].status, WaitStatus::Success, "{waited:?}");

    // Account present: the proven record is the account the API reports.
    let proof = client.proof_account(&to, None).await.unwrap();
    let verified = verify_account(&proof, &identity, &to).unwrap();
    assert_eq!(verified.account.map(|a| a.balance), Some(12_345));
    assert_eq!(verified.address, to);
    let account_proof = proof.clone();
    assert_state_rejected(&proof, &identity, move |p, i| verify_account(p, i, &to).map(|_| ()));
    // A valid, certified proof of another account than the one asked for is refused.
    let sender = key.address();
    assert!(matches!(verify_account(&proof, &identity, &sender), Err(VerifyError::WrongKey { .. })));

    // Account absent: an exclusion proof.
    let nobody = SecretKey::random().address();
    let proof = client.proof_account(&nobody, None).await.unwrap();
    assert_eq!(proof.value, None);
    assert_eq!(verify_account(&proof, &identity, &nobody).unwrap().account, None);
    assert_state_rejected(&proof, &identity, move |p, i| verify_account(p, i, &nobody).map(|_| ()));

    // Actors and their storage: no actor exists yet, so both are proven absent.
    let proof = client.proof_actor(&to, None).await.unwrap();
    assert_eq!(verify_actor(&proof, &identity, &to).unwrap().value, None);
    assert_state_rejected(&proof, &identity, move |p, i| verify_actor(p, i, &to).map(|_| ()));
    assert!(matches!(verify_actor(&proof, &identity, &nobody), Err(VerifyError::WrongKey { .. })));
    let proof = client.proof_storage(&to, b"counter", None).await.unwrap();
    let verified = verify_storage(&proof, &identity, &to, b"counter").unwrap();
    assert_eq!((verified.value, verified.storage_key), (None, Some(b"counter".to_vec())));
    assert_state_rejected(&proof, &identity, move |p, i| verify_storage(p, i, &to, b"counter").map(|_| ()));
    let value = client.state_value(&to, b"counter").await.unwrap();
    assert!(verify_storage(&value, &identity, &to, b"counter").is_ok());
    // Another key of the same actor, or the same key of another actor, is not the one asked for.
    assert!(matches!(verify_storage(&proof, &identity, &to, b"balance"), Err(VerifyError::WrongKey { .. })));
    assert!(matches!(verify_storage(&proof, &identity, &nobody, b"counter"), Err(VerifyError::WrongKey { .. })));
    // A proof of one kind is not accepted as another.
    assert!(matches!(verify_account(&proof, &identity, &to), Err(VerifyError::WrongKind { .. })));

    // Transaction and receipt inclusion.
    let hash = tx.hash();
    let proof = client.proof_tx(&hash).await.unwrap().unwrap();
    let verified = verify_tx(&proof, &identity, &hash).unwrap();
    assert_eq!((verified.tx.to, verified.tx.value), (Some(to), 12_345));
    assert_inclusion_rejected(&proof, &identity, move |p, i| verify_tx(p, i, &hash).map(|_| ()));
    // A valid proof of another transaction than the one asked for is refused.
    let other = drover_types::keccak256(b"another transaction");
    assert_eq!(verify_tx(&proof, &identity, &other), Err(VerifyError::WrongTx { expected: other, proven: hash }));
    let proof = client.proof_receipt(&hash).await.unwrap().unwrap();
    let verified = verify_receipt(&proof, &identity, &hash).unwrap();
    assert_eq!(verified.receipt.tx_hash, hash);
    assert_inclusion_rejected(&proof, &identity, move |p, i| verify_receipt(p, i, &hash).map(|_| ()));
    assert_eq!(verify_receipt(&proof, &identity, &other), Err(VerifyError::WrongTx { expected: other, proven: hash }));
    // In a multi-proof, each item is bound to its own request: swapped answers are refused.
    let swapped = drover_types::api::MultiProofResponse {
        results: vec![drover_types::api::MultiProofItem::Proof(drover_types::api::ProofInfo::State(account_proof))],
    };
    let asked = [Requested::Account(sender).to_request()];
    assert!(matches!(&verify_multi(&swapped, &identity, &asked)[..], [Err(VerifyError::WrongKey { .. })]));
    assert!(client.proof_tx(&drover_types::keccak256(b"none")).await.unwrap().is_none());

    // Only the latest state is provable; an old height is a clear 404.
    let (status, body) = get_raw(&node.url, &format!("/proof/account/{to}?height=1")).await;
    assert_error(status, &body, 404, ErrorCode::NotFound.code());
    assert!(body["message"].as_str().unwrap().contains("latest"), "{body}");
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proofs_verify_after_a_restart_and_multi_mixes_items() {
    let mut node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let identity = identity(&node);
    let key = dev_key(1);
    let to = SecretKey::random().address();
    let nonce = client.account(&key.address()).await.unwrap().unwrap().nonce;
    let tx = transfer(&key, CHAIN, nonce, to, 777);
    let waited = client.submit_wait(std::slice::from_ref(&tx), 10_000).await.unwrap();
    assert_eq!(waited.results[0].status, WaitStatus::Success, "{waited:?}");
    let account = client.proof_account(&to, None).await.unwrap();
    let receipt = client.proof_receipt(&tx.hash()).await.unwrap().unwrap();

    let height = client.height().await.unwrap();
    assert!(node.stop().success());
    node.spawn();
    node.wait_ready(height).await;
    let client = node.client();
    // Proofs taken before the restart stand on their own.
    assert_eq!(verify_account(&account, &identity, &to).unwrap().account.map(|a| a.balance), Some(777));
    assert!(verify_receipt(&receipt, &identity, &tx.hash()).is_ok());
    // The restarted node serves proofs again, of the same facts.
    let again = client.proof_account(&to, None).await.unwrap();
    assert_eq!(verify_account(&again, &identity, &to).unwrap().account.map(|a| a.balance), Some(777));
    let again = client.proof_receipt(&tx.hash()).await.unwrap().unwrap();
    assert_eq!(verify_receipt(&again, &identity, &tx.hash()).unwrap().block.hash, receipt.block_hash);

    let request = |kind: &str, address: Option<String>, key: Option<&str>, tx_hash: Option<String>| ProofRequest {
        kind: kind.to_owned(),
        address,
        key: key.map(str::to_owned),
        tx_hash,
    };
    let requests = vec![
        request("account", Some(to.to_hex()), None, None),
        request("account", Some("0x12".to_owned()), None, None),
        request("tx", None, None, Some(tx.hash().to_hex())),
        request("storage", Some(to.to_hex()), Some("0x6b6579"), None),
        request("receipt", None, None, Some(drover_types::keccak256(b"none").to_hex())),
        request("actor", Some(to.to_hex()), None, None),
        request("balance", Some(to.to_hex()), None, None),
    ];
    let response = client.proof_multi(&requests, None).await.unwrap();
    let results = verify_multi(&response, &identity, &requests);
    assert_eq!(results.len(), requests.len());
    assert!(matches!(&results[0], Ok(Verified::Account(a)) if a.account.map(|a| a.balance) == Some(777)));
    assert!(matches!(&results[1], Err(VerifyError::Refused { code: 3001, .. })), "{:?}", results[1]);
    assert!(matches!(&results[2], Ok(Verified::Tx(t)) if t.hash == tx.hash()));
    assert!(matches!(&results[3], Ok(Verified::Storage(s)) if s.value.is_none()));
    assert!(matches!(&results[4], Err(VerifyError::Refused { code: 1002, .. })), "{:?}", results[4]);
    assert!(matches!(&results[5], Ok(Verified::Actor(_))));
    assert!(matches!(&results[6], Err(VerifyError::Refused { code: 1001, .. })), "{:?}", results[6]);
    // The state items of one multi-proof prove the same block.
    let heights: Vec<u64> = results
        .iter()
        .filter_map(|r| match r {
            Ok(Verified::Account(a)) => Some(a.block.height),
            Ok(Verified::Storage(s) | Verified::Actor(s)) => Some(s.block.height),
            _ => None,
        })
        .collect();
    assert!(heights.windows(2).all(|w| w[0] == w[1]), "{heights:?}");
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_verify_prints_only_verified_values() {
    let mut node = TestNode::start(NodeOptions::default()).await;
    let genesis = node.dir.path().join(GENESIS_FILE);
    let funded = dev_key(0).address().to_hex();
    let run = |args: &[&str], genesis: &std::path::Path| {
        Command::new(BIN)
            .args(["--rpc-url", &node.url, "verify"])
            .args(args)
            .arg("--genesis")
            .arg(genesis)
            .output()
            .unwrap()
    };
    let out = run(&["account", &funded], &genesis);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("balance") && stdout.contains("verified"), "{stdout}");
    let out = run(&["storage", &funded, "0x01"], &genesis);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("absence proven"));

    // Another network's genesis: nothing is printed, the command fails with the reason.
    let other = tempfile::tempdir().unwrap();
    let init = Command::new(BIN).args(["init", "--validators", "1", "--out"]).arg(other.path()).output().unwrap();
    assert!(init.status.success());
    let out = run(&["account", &funded], &other.path().join(GENESIS_FILE));
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("does not verify") && stderr.contains("certificate"), "{stderr}");
    node.stop();
}

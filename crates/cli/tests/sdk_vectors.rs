//! The vectors the TypeScript SDK (`sdk/typescript`) is checked against byte for byte, written by
//! the Rust implementation into `sdk/vectors/` and read by both test suites:
//!
//! - `sdk.json`: keys, payloads, actor addresses, every system-actor call (arguments, Message,
//!   limits), ids, built and signed transactions, a runner flow, the RAS token and request hash,
//!   a secret envelope, state keys and records. Recomputed here on every run and compared with the
//!   file, so a change to any wire form fails until the file (and the SDK) follow.
//! - `proofs.json`: proofs a live devnet served (account, absent account, token balance, absent
//!   storage slot, transaction, receipt) with the genesis group key, each also tampered with in
//!   every part or checked against another request than the one it answers (another account,
//!   storage key or transaction), and the outcome `drover_client::verify` gives each case (`ok`
//!   or the `VerifyError` variant). Each case names the verifier and the request (a `/proof/multi`
//!   request item) it is checked against. Checked here on every run; the TypeScript verifier must
//!   agree.
//! - `actors.json`: example actors of `actors/` compiled to WebAssembly, with their manifests, for
//!   the TypeScript end-to-end test to deploy (it has no WAT compiler). Recomputed on every run.
//!
//! Regenerate them (`proofs.json` starts a devnet, about a minute in a debug build) when a wire
//! form or an example actor changes on purpose, and say why in the commit; a test name as filter
//! rewrites only its file (`sdk_actors` for `actors.json`):
//!
//! ```text
//! DROVER_SDK_VECTORS_REGENERATE=1 cargo test -p drover --test sdk_vectors
//! ```

mod common;

use common::*;
use drover_client::{
    FeeSuggestion, TxBuilder, TxContext,
    secrets::{ReaderKey, seal_with},
    verify::{self, Requested, VerifyError},
};
use drover_node::{devnet::GENESIS_FILE, genesis::Genesis};
use drover_state::{Account, keys};
use drover_types::{
    Address, Event, H256, Receipt, SecretKey, Transaction,
    api::{InclusionProofInfo, ProofRequest, StateProofInfo, WaitStatus},
    chain_params::PARAMS,
    exec_error::{ExecCode, ExecError},
    governance::GovernanceCall,
    job::{Callback, JobCall, JobSpec, Verification, VerificationMode, job_id},
    keccak256,
    library::LibraryCall,
    params::system_call_limits,
    payload::{ACTOR_UPGRADES_ADDRESS, Deploy, Manifest, Message, Upgrade, actor_address},
    receipt::{FeeBreakdown, TxStatus},
    runner::{Capabilities, RateCard, RegistryCall},
    secrets::SecretCall,
    storage::{
        RelayCall, RelaySettings, StorageCall,
        auth::{DelegationToken, node_audience, relay_audience, request_hash, session_public_key},
        volume_id,
    },
    system_call::SystemCall,
    token::{NewToken, TOKENS_ADDRESS, TokenCall, token_id},
};
use serde_json::{Value, json};
use std::path::PathBuf;

const REGENERATE_ENV: &str = "DROVER_SDK_VECTORS_REGENERATE";

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../sdk/vectors")
}

fn regenerate() -> bool {
    std::env::var(REGENERATE_ENV).is_ok_and(|v| !v.is_empty() && v != "0")
}

fn hex0x(bytes: &[u8]) -> String {
    format!("0x{}", hex::encode(bytes))
}

fn addr(byte: u8) -> Address {
    Address([byte; 20])
}

fn write_or_compare(name: &str, computed: &Value) {
    let path = vectors_dir().join(name);
    if regenerate() {
        std::fs::create_dir_all(vectors_dir()).unwrap();
        std::fs::write(&path, serde_json::to_string_pretty(computed).unwrap() + "\n").unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; regenerate with {REGENERATE_ENV}=1", path.display()));
    let stored: Value = serde_json::from_str(&text).unwrap();
    assert!(
        stored == *computed,
        "{} differs from what the Rust code computes; regenerate with {REGENERATE_ENV}=1",
        path.display()
    );
}

/// One system call: what the TypeScript test rebuilds it from, and the bytes and limits.
fn call(family: &str, input: Value, to: Address, message: Message, cost: (u64, u64)) -> Value {
    let payload = message.encode();
    let (cycles, cells) = system_call_limits(payload.len(), cost);
    json!({
        "family": family, "handler": message.handler, "input": input, "to": to.to_hex(),
        "args": hex0x(&message.payload), "payload": hex0x(&payload),
        "cycles_limit": cycles.to_string(), "cells_limit": cells.to_string(),
    })
}

fn calls() -> Vec<Value> {
    let (a, b, c) = (addr(0x11), addr(0x22), addr(0x33));
    let big = u128::MAX - 5;
    let token = |input: Value, t: TokenCall| call("tokens", input, TOKENS_ADDRESS, t.message(), t.cost());
    let registry = |input: Value, r: RegistryCall| {
        call("runners", input, drover_types::runner::RUNNER_REGISTRY_ADDRESS, r.message(), r.max_cost())
    };
    let job = |input: Value, j: JobCall| {
        call("jobs", input, drover_types::job::JOB_DISPATCHER_ADDRESS, j.message(), j.max_cost())
    };
    let gov = |input: Value, g: GovernanceCall| {
        call("governance", input, drover_types::governance::GOVERNANCE_ADDRESS, g.message(), g.max_cost())
    };
    let lib = |input: Value, l: LibraryCall| {
        call("libraries", input, drover_types::library::LIBRARY_ADDRESS, l.message(), l.cost())
    };
    let sec = |input: Value, s: SecretCall| {
        call("secrets", input, drover_types::secrets::SECRETS_ADDRESS, s.message(), s.cost())
    };
    let sto = |input: Value, s: StorageCall| {
        call("storage", input, drover_types::storage::STORAGE_MANAGER_ADDRESS, s.message(), s.cost())
    };
    let rel = |input: Value, r: RelayCall| {
        call("relays", input, drover_types::storage::RELAY_REGISTRY_ADDRESS, r.message(), r.cost())
    };
    let job_hash = H256([0x44; 32]);
    let caps = Capabilities { job_types: vec!["echo".into(), "wasm".into()], max_concurrent_jobs: 4 };
    let settings = RelaySettings {
        endpoint: "http://127.0.0.1:4100".into(),
        capacity_bytes: 1 << 30,
        price_per_byte_block: 3,
        write: true,
        read: true,
        public: false,
    };
    let settings_json = json!({"endpoint": "http://127.0.0.1:4100", "capacity_bytes": "1073741824", "price_per_byte_block": "3", "write": true, "read": true, "public": false});
    let spec = JobSpec {
        job_type: "echo".into(),
        input: b"hello".to_vec(),
        runners: 3,
        verification: Verification { mode: VerificationMode::Majority, threshold: 2 },
        max_price: 1000,
        timeout_blocks: 100,
        callback: Some(Callback { handler: "on_job".into(), cycles: 500_000 }),
    };
    vec![
        token(
            json!({"call": "create", "name": "Gold", "symbol": "GLD", "decimals": 2, "initial_supply": "100000", "max_supply": "500000", "mintable": true}),
            TokenCall::Create(NewToken {
                name: "Gold".into(),
                symbol: "GLD".into(),
                decimals: 2,
                initial_supply: 100_000,
                max_supply: Some(500_000),
                mintable: true,
            }),
        ),
        token(
            json!({"call": "create", "name": "Uncapped", "symbol": "U1", "decimals": 0, "initial_supply": "0", "mintable": false}),
            TokenCall::Create(NewToken {
                name: "Uncapped".into(),
                symbol: "U1".into(),
                decimals: 0,
                initial_supply: 0,
                max_supply: None,
                mintable: false,
            }),
        ),
        token(
            json!({"call": "transfer", "token": a.to_hex(), "to": b.to_hex(), "amount": big.to_string()}),
            TokenCall::Transfer { token: a, to: b, amount: big },
        ),
        token(
            json!({"call": "approve", "token": a.to_hex(), "spender": b.to_hex(), "amount": "7"}),
            TokenCall::Approve { token: a, spender: b, amount: 7 },
        ),
        token(
            json!({"call": "transfer_from", "token": a.to_hex(), "from": b.to_hex(), "to": c.to_hex(), "amount": "18446744073709551616"}),
            TokenCall::TransferFrom { token: a, from: b, to: c, amount: 1 << 64 },
        ),
        token(
            json!({"call": "mint", "token": a.to_hex(), "to": c.to_hex(), "amount": "10"}),
            TokenCall::Mint { token: a, to: c, amount: 10 },
        ),
        token(json!({"call": "burn", "token": a.to_hex(), "amount": "3"}), TokenCall::Burn { token: a, amount: 3 }),
        token(
            json!({"call": "freeze", "token": a.to_hex(), "account": b.to_hex()}),
            TokenCall::Freeze { token: a, account: b },
        ),
        token(
            json!({"call": "unfreeze", "token": a.to_hex(), "account": b.to_hex()}),
            TokenCall::Unfreeze { token: a, account: b },
        ),
        token(
            json!({"call": "set_owner", "token": a.to_hex(), "owner": c.to_hex()}),
            TokenCall::SetOwner { token: a, owner: c },
        ),
        token(
            json!({"call": "balance", "token": a.to_hex(), "account": b.to_hex()}),
            TokenCall::Balance { token: a, account: b },
        ),
        registry(
            json!({"call": "register", "price_per_job": "1000", "job_types": ["echo", "wasm"], "max_concurrent_jobs": 4}),
            RegistryCall::Register { rate_card: RateCard { price_per_job: 1000 }, capabilities: caps.clone() },
        ),
        registry(
            json!({"call": "update", "price_per_job": "5", "paused": true}),
            RegistryCall::Update {
                rate_card: Some(RateCard { price_per_job: 5 }),
                capabilities: None,
                paused: Some(true),
            },
        ),
        registry(
            json!({"call": "update", "job_types": ["echo", "wasm"], "max_concurrent_jobs": 4}),
            RegistryCall::Update { rate_card: None, capabilities: Some(caps), paused: None },
        ),
        registry(json!({"call": "heartbeat"}), RegistryCall::Heartbeat),
        registry(json!({"call": "deregister"}), RegistryCall::Deregister),
        registry(json!({"call": "delegate", "runner": a.to_hex()}), RegistryCall::Delegate { runner: a }),
        registry(
            json!({"call": "undelegate", "runner": a.to_hex(), "amount": "9"}),
            RegistryCall::Undelegate { runner: a, amount: 9 },
        ),
        registry(json!({"call": "withdraw", "runner": a.to_hex()}), RegistryCall::Withdraw { runner: a }),
        job(
            json!({"call": "submit", "job_type": "echo", "input": "0x68656c6c6f", "runners": 3, "mode": "majority", "threshold": 2, "max_price": "1000", "timeout_blocks": 100, "callback": {"handler": "on_job", "cycles": 500000}}),
            JobCall::Submit(spec.clone()),
        ),
        job(
            json!({"call": "submit", "job_type": "echo", "input": "0x", "runners": 1, "mode": "none", "max_price": "0", "timeout_blocks": 10}),
            JobCall::Submit(JobSpec {
                input: Vec::new(),
                runners: 1,
                verification: Verification { mode: VerificationMode::None, threshold: 1 },
                max_price: 0,
                timeout_blocks: 10,
                callback: None,
                ..spec
            }),
        ),
        job(json!({"call": "cancel", "job": hex0x(&job_hash.0)}), JobCall::Cancel { job: job_hash }),
        job(
            json!({"call": "submit_result", "job": hex0x(&job_hash.0), "result": "0x0102"}),
            JobCall::SubmitResult { job: job_hash, result: vec![1, 2] },
        ),
        gov(json!({"call": "lock"}), GovernanceCall::Lock),
        gov(json!({"call": "unlock", "amount": "1000000000"}), GovernanceCall::Unlock { amount: 1_000_000_000 }),
        gov(
            json!({"call": "propose", "changes": {"voting_period_blocks": "200", "target_cycles": "12000000"}, "description": "longer votes"}),
            GovernanceCall::Propose {
                changes: vec![("target_cycles".into(), 12_000_000), ("voting_period_blocks".into(), 200)],
                description: "longer votes".into(),
            },
        ),
        gov(
            json!({"call": "vote", "proposal": 3, "support": true}),
            GovernanceCall::Vote { proposal: 3, support: true },
        ),
        gov(json!({"call": "execute", "proposal": 3}), GovernanceCall::Execute { proposal: 3 }),
        lib(
            json!({"call": "publish", "name": "fixed", "code": "0x0061736d01000000", "manifest": ["storage.kv"]}),
            LibraryCall::Publish {
                name: "fixed".into(),
                code: b"\0asm\x01\0\0\0".to_vec(),
                manifest: Manifest::new(vec!["storage.kv".into()]),
            },
        ),
        lib(json!({"call": "remove", "name": "fixed"}), LibraryCall::Remove { name: "fixed".into() }),
        sec(
            json!({"call": "set", "name": "db-password", "envelopes": [[c.to_hex(), "0x0103"], [a.to_hex(), "0x0102"]]}),
            SecretCall::Set { name: "db-password".into(), envelopes: vec![(a, vec![1, 2]), (c, vec![1, 3])] },
        ),
        sec(
            json!({"call": "grant", "name": "db-password", "reader": b.to_hex(), "envelope": "0x0104"}),
            SecretCall::Grant { name: "db-password".into(), reader: b, envelope: vec![1, 4] },
        ),
        sec(
            json!({"call": "revoke", "name": "db-password", "reader": b.to_hex()}),
            SecretCall::Revoke { name: "db-password".into(), reader: b },
        ),
        sec(json!({"call": "delete", "name": "db-password"}), SecretCall::Delete { name: "db-password".into() }),
        sto(
            json!({"call": "create", "name": "notes", "relay": b.to_hex(), "public": false, "max_size_bytes": "1000000"}),
            StorageCall::Create { name: "notes".into(), relay: b, public: false, max_size_bytes: 1_000_000 },
        ),
        sto(
            json!({"call": "resize", "volume": hex0x(&job_hash.0), "max_size_bytes": "5000000"}),
            StorageCall::Resize { volume: job_hash, max_size_bytes: 5_000_000 },
        ),
        sto(json!({"call": "deposit", "volume": hex0x(&job_hash.0)}), StorageCall::Deposit { volume: job_hash }),
        sto(json!({"call": "delete", "volume": hex0x(&job_hash.0)}), StorageCall::Delete { volume: job_hash }),
        sto(json!({"call": "undelete", "volume": hex0x(&job_hash.0)}), StorageCall::Undelete { volume: job_hash }),
        sto(
            json!({"call": "commit", "volume": hex0x(&job_hash.0), "root": hex0x(&[0x55; 32]), "size_bytes": "4096"}),
            StorageCall::Commit { volume: job_hash, root: H256([0x55; 32]), size_bytes: 4096 },
        ),
        sto(json!({"call": "reap", "volume": hex0x(&job_hash.0)}), StorageCall::Reap { volume: job_hash }),
        sto(json!({"call": "drop", "volume": hex0x(&job_hash.0)}), StorageCall::Drop { volume: job_hash }),
        sto(
            json!({"call": "revoke", "session_key": hex0x(&session_public_key(&SecretKey::dev(1)))}),
            StorageCall::Revoke { session_key: session_public_key(&SecretKey::dev(1)) },
        ),
        rel(
            {
                let mut i = settings_json.clone();
                i["call"] = json!("register");
                i
            },
            RelayCall::Register(settings.clone()),
        ),
        rel(
            {
                let mut i = settings_json;
                i["call"] = json!("update");
                i
            },
            RelayCall::Update(settings),
        ),
        rel(json!({"call": "heartbeat"}), RelayCall::Heartbeat),
        rel(json!({"call": "deregister"}), RelayCall::Deregister),
        rel(json!({"call": "withdraw"}), RelayCall::Withdraw),
    ]
}

fn transaction_json(tx: &Transaction) -> Value {
    json!({
        "unsigned": hex0x(&Transaction { signature: None, ..tx.clone() }.encode()),
        "signing_hash": hex0x(&tx.signing_hash().0),
        "signed": hex0x(&tx.encode()),
        "hash": hex0x(&tx.hash().0),
    })
}

fn deterministic() -> Value {
    let keys: Vec<Value> = (0..4)
        .map(|i| {
            let key = SecretKey::dev(i);
            json!({"index": i, "secret": hex0x(&key.to_bytes()), "address": key.address().to_hex(), "public_key": hex0x(&session_public_key(&key))})
        })
        .collect();

    let sender = SecretKey::dev(0).address();
    let code = b"\0asm\x01\0\0\0".to_vec();
    let init = Message { handler: "init".into(), payload: vec![1, 2] };
    let deploys: Vec<Value> = [
        (Vec::<String>::new(), vec![], None),
        (vec!["storage.kv".to_owned(), "econ.transfer".to_owned()], vec![7u8; 32], Some(init.clone())),
        (vec!["storage.kv".to_owned()], b"salt".to_vec(), None),
    ]
    .into_iter()
    .map(|(entitlements, salt, init)| {
        let deploy = Deploy { code: code.clone(), manifest: Manifest::new(entitlements.clone()), salt: salt.clone(), init: init.clone() };
        json!({
            "code": hex0x(&code), "manifest": entitlements, "salt": hex0x(&salt),
            "init": init.map(|m| json!({"handler": m.handler, "payload": hex0x(&m.payload)})),
            "sender": sender.to_hex(), "payload": hex0x(&deploy.encode()), "actor": deploy.actor_address(&sender).to_hex(),
        })
    })
    .collect();
    let upgrade = Upgrade { actor: addr(0x99), code: code.clone(), manifest: Manifest::new(vec!["storage.kv".into()]) };
    let messages: Vec<Value> = [("ping", b"hello".to_vec()), ("", Vec::new())]
        .into_iter()
        .map(|(h, p)| json!({"handler": h, "payload": hex0x(&p), "encoded": hex0x(&Message { handler: h.into(), payload: p }.encode())}))
        .collect();

    // Built like the SDK builds: fixed context, the builder's fee rules.
    let context = TxContext {
        chain_id: 100,
        nonce: 7,
        fees: FeeSuggestion { max_fee_per_cycle: 20, max_fee_per_cell: 4, tip_per_cycle: 2, tip_per_cell: 1 },
    };
    let wallet = drover_client::Wallet::new(SecretKey::dev(1));
    let transfer = TxBuilder::transfer(addr(0x22), 5).sign(&context, &wallet).unwrap();
    let token_transfer = TxBuilder::token(&TokenCall::Transfer { token: addr(0x11), to: addr(0x22), amount: 250 })
        .sign(&context, &wallet)
        .unwrap();
    let deploy = Deploy { code: code.clone(), manifest: Manifest::new(Vec::new()), salt: vec![1], init: None };
    let deploy_tx = TxBuilder::message(None, 0, deploy.encode())
        .cycles_limit(5_000_000)
        .cells_limit(400_000)
        .tip_per_cycle(30)
        .sign(&context, &wallet)
        .unwrap();
    let upgrade_tx = TxBuilder::message(Some(ACTOR_UPGRADES_ADDRESS), 0, upgrade.message())
        .cycles_limit(5_000_000)
        .cells_limit(400_000)
        .sign(&context, &wallet)
        .unwrap();
    let heartbeat = TxBuilder::registry(&RegistryCall::Heartbeat, 0).build(&context).unwrap();
    let heartbeat_unsigned = heartbeat.encode();

    let session = SecretKey::dev(1);
    let token = DelegationToken::issue(&SecretKey::dev(0), session_public_key(&session), 100, 1_900_000_000_000);
    let node = node_audience(100);
    let relay = relay_audience(&SecretKey::dev(1).address());
    let request = |audience: &str, method: &str, path: &str, body: &[u8]| {
        let hash = request_hash(method, path, audience, "1899999990000", "00112233445566778899aabbccddeeff", body);
        json!({"audience": audience, "method": method, "path_and_query": path, "timestamp": "1899999990000",
               "nonce": "00112233445566778899aabbccddeeff", "body": hex0x(body), "hash": hex0x(&hash.0),
               "signature": hex0x(&session.sign_prehash(&hash).to_rsv())})
    };

    let reader = SecretKey::dev(1);
    let envelope = seal_with(
        &sender,
        "db-password",
        &ReaderKey::of(&reader),
        b"hunter2",
        &SecretKey::from_bytes(&[7; 32]).unwrap(),
        [1; 12],
    );

    let receipt = Receipt {
        tx_hash: H256([0xab; 32]),
        block_height: 42,
        index: 3,
        from: addr(0x11),
        to: Some(TOKENS_ADDRESS),
        status: TxStatus::Failed,
        cycles_used: 40_000,
        cells_used: 600,
        fee: FeeBreakdown { burned: 1 << 70, tip: 9 },
        events: vec![Event { address: addr(0x22), topic: "token.transfer".into(), data: vec![1, 2, 3] }],
        revert_reason: Some("no".into()),
        error: Some(ExecError::new(ExecCode::Reverted, "refused")),
    };

    let actor = addr(0x77);
    let holder = addr(0x66);
    let state_keys = json!([
        {"kind": "account", "address": sender.to_hex(), "key": hex0x(&keys::account_key(&sender))},
        {"kind": "actor", "address": actor.to_hex(), "key": hex0x(&keys::actor_key(&actor))},
        {"kind": "storage", "address": actor.to_hex(), "storage_key": "0x636f756e74", "key": hex0x(&keys::storage_key(&actor, b"count"))},
        {"kind": "storage", "address": TOKENS_ADDRESS.to_hex(), "storage_key": hex0x(&[&[b'b'][..], &actor.0, &holder.0].concat()),
         "key": hex0x(&keys::storage_key(&TOKENS_ADDRESS, &[&[b'b'][..], &actor.0, &holder.0].concat()))},
        {"kind": "storage", "address": TOKENS_ADDRESS.to_hex(), "storage_key": hex0x(&[&[b't'][..], &actor.0].concat()),
         "key": hex0x(&keys::storage_key(&TOKENS_ADDRESS, &[&[b't'][..], &actor.0].concat()))},
    ]);

    json!({
        "keys": keys,
        "messages": messages,
        "deploys": deploys,
        "upgrade": {"actor": upgrade.actor.to_hex(), "code": hex0x(&code), "manifest": ["storage.kv"], "payload": hex0x(&upgrade.encode()), "message": hex0x(&upgrade.message())},
        "actor_address": {"sender": sender.to_hex(), "salt": "0x01", "code": hex0x(&code), "actor": actor_address(&sender, &[1], &code).to_hex()},
        "calls": calls(),
        "chain_params": PARAMS.iter().map(|p| p.name).collect::<Vec<_>>(),
        "ids": {
            "token": {"creator": sender.to_hex(), "symbol": "GLD", "id": token_id(&sender, "GLD").to_hex()},
            "job": {"submitter": sender.to_hex(), "seq": 5, "id": hex0x(&job_id(&sender, 5).0)},
            "volume": {"owner": sender.to_hex(), "name": "notes", "id": hex0x(&volume_id(&sender, "notes").0)},
        },
        "built": {
            "signer": 1,
            "context": {"chain_id": "100", "nonce": "7", "max_fee_per_cycle": "20", "max_fee_per_cell": "4", "tip_per_cycle": "2", "tip_per_cell": "1"},
            "transfer": {"to": addr(0x22).to_hex(), "value": "5", "tx": transaction_json(&transfer)},
            "token_transfer": {"token": addr(0x11).to_hex(), "to": addr(0x22).to_hex(), "amount": "250", "tx": transaction_json(&token_transfer)},
            "deploy": {"code": hex0x(&code), "salt": "0x01", "cycles_limit": "5000000", "cells_limit": "400000", "tip_per_cycle": "30", "tx": transaction_json(&deploy_tx)},
            "upgrade": {"cycles_limit": "5000000", "cells_limit": "400000", "tx": transaction_json(&upgrade_tx)},
        },
        "flow": {
            "runner": 1,
            "unsigned_transaction_base64": base64_std(&heartbeat_unsigned),
            "message_to_sign_base64": base64_std(&keccak256(&heartbeat_unsigned).0),
            "signature": hex0x(&wallet.secret_key().sign_prehash(&heartbeat.signing_hash()).to_rsv()),
        },
        "ras": {
            "wallet": 0, "session": 1, "chain_id": 100, "expires_at_ms": "1900000000000",
            "signing_hash": hex0x(&token.signing_hash().0),
            "token_bytes": hex0x(&base64_url_decode(&token.encode())),
            "header": token.encode(),
            "requests": [
                request(&node, "GET", "/ras/auth/me", b""),
                request(&node, "POST", "/ras/volumes?x=1", br#"{"transaction_base64":"AA=="}"#),
                request(&relay, "PUT", "/objects/0xab/docs%2Fa.txt", b"bytes"),
            ],
        },
        "secret": {"owner": sender.to_hex(), "name": "db-password", "reader": 1, "plaintext": "0x68756e74657232",
                   "ephemeral": hex0x(&[7; 32]), "nonce": hex0x(&[1; 12]), "envelope": hex0x(&envelope)},
        "receipt": {"encoded": hex0x(&receipt.encode()), "tx_hash": hex0x(&receipt.tx_hash.0), "block_height": "42", "index": 3,
                    "status": "failed", "burned": (1u128 << 70).to_string(), "tip": "9", "error_code": "E1201"},
        "account": {"nonce": "3", "balance": "123456789012345678901234", "encoded": hex0x(&Account { nonce: 3, balance: 123_456_789_012_345_678_901_234 }.encode())},
        "state_keys": state_keys,
    })
}

fn base64_std(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn base64_url_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(text).unwrap()
}

#[test]
fn sdk_vectors_match_the_rust_implementation() {
    write_or_compare("sdk.json", &deterministic());
}

/// The example actors the TypeScript end-to-end test deploys, compiled from `actors/*.wat`.
fn actors() -> Value {
    let compiled = |name: &str, manifest: &[&str]| {
        let path = format!("{}/../../actors/{name}.wat", env!("CARGO_MANIFEST_DIR"));
        let code = wat::parse_file(&path).unwrap_or_else(|e| panic!("{path} compiles: {e}"));
        json!({"source": format!("actors/{name}.wat"), "code": hex0x(&code), "manifest": manifest})
    };
    json!({"counter": compiled("counter", &["storage.kv"])})
}

#[test]
fn sdk_actors_match_their_sources() {
    write_or_compare("actors.json", &actors());
}

// --- Proofs ------------------------------------------------------------------------------------

/// The `VerifyError` variant, as the TypeScript verifier names it.
fn outcome<T>(result: Result<T, VerifyError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(VerifyError::Certificate(_)) => "Certificate",
        Err(VerifyError::CertificateEncoding(_)) => "CertificateEncoding",
        Err(VerifyError::WrongBlock { .. }) => "WrongBlock",
        Err(VerifyError::MalformedBlock(_)) => "MalformedBlock",
        Err(VerifyError::FieldMismatch { .. }) => "FieldMismatch",
        Err(VerifyError::WrongKind { .. }) => "WrongKind",
        Err(VerifyError::WrongKey { .. }) => "WrongKey",
        // `ProofError` (drover-block) is not a dependency here: its two variants read apart.
        Err(VerifyError::Proof(e)) if e.to_string().contains("does not decode") => "ProofMalformed",
        Err(VerifyError::Proof(_)) => "ProofMismatch",
        Err(VerifyError::Record(_)) => "Record",
        Err(VerifyError::RecordMismatch(_)) => "RecordMismatch",
        Err(VerifyError::WrongTx { .. }) => "WrongTx",
        Err(VerifyError::Refused { .. }) => "Refused",
        Err(VerifyError::InvalidRequest(_)) => "InvalidRequest",
        Err(VerifyError::Unanswered { .. }) => "Unanswered",
    }
}

fn run_case(case: &Value, identities: &Value) -> &'static str {
    let identity = verify::parse_identity(identities[case["identity"].as_str().unwrap()].as_str().unwrap()).unwrap();
    let proof = case["proof"].clone();
    let request: ProofRequest = serde_json::from_value(case["request"].clone()).unwrap();
    let state = || serde_json::from_value::<StateProofInfo>(proof.clone()).unwrap();
    let inclusion = || serde_json::from_value::<InclusionProofInfo>(proof.clone()).unwrap();
    match (case["verify"].as_str().unwrap(), Requested::from_request(&request).unwrap()) {
        ("account", Requested::Account(address)) => outcome(verify::verify_account(&state(), &identity, &address)),
        ("storage", Requested::Storage(address, key)) => {
            outcome(verify::verify_storage(&state(), &identity, &address, &key))
        }
        ("tx", Requested::Tx(hash)) => outcome(verify::verify_tx(&inclusion(), &identity, &hash)),
        ("receipt", Requested::Receipt(hash)) => outcome(verify::verify_receipt(&inclusion(), &identity, &hash)),
        (other, request) => panic!("verifier {other} cannot take {request:?}"),
    }
}

fn flip_hex(text: &mut String, from_end: usize) {
    let at = text.len() - 1 - from_end;
    let c = text.as_bytes()[at];
    let replacement = if c == b'0' { '1' } else { '0' };
    text.replace_range(at..=at, &replacement.to_string());
}

/// The served proof and each tampering of it, labelled.
fn state_cases(name: &str, request: &Requested, proof: &StateProofInfo) -> Vec<Case> {
    let mut out = vec![Case::new(name.to_owned(), request, proof)];
    let mut tamper = |label: &str, f: &dyn Fn(&mut StateProofInfo)| {
        let mut p = proof.clone();
        f(&mut p);
        out.push(Case::new(format!("{name}: {label}"), request, &p));
    };
    tamper("value", &|p| {
        p.value = Some(p.value.clone().map_or(b"forged".to_vec(), |mut v| {
            *v.last_mut().unwrap() ^= 1;
            v
        }))
    });
    tamper("address", &|p| p.address = Address([0x5a; 20]));
    tamper("key", &|p| p.key[5] ^= 1);
    tamper("proof node", &|p| {
        let at = p.proof.len() / 2;
        p.proof[at] ^= 1
    });
    tamper("proof length", &|p| {
        p.proof.pop();
    });
    tamper("state_root field", &|p| p.state_root.0[0] ^= 1);
    tamper("height field", &|p| p.height += 1);
    tamper("block header", &|p| {
        let at = p.header.len() - 60;
        p.header[at] ^= 1
    });
    tamper("certificate", &|p| flip_hex(&mut p.finalization, 0));
    tamper("certificate not hex", &|p| p.finalization.push('z'));
    out
}

fn inclusion_cases(name: &str, request: &Requested, proof: &InclusionProofInfo) -> Vec<Case> {
    let mut out = vec![Case::new(name.to_owned(), request, proof)];
    let mut tamper = |label: &str, f: &dyn Fn(&mut InclusionProofInfo)| {
        let mut p = proof.clone();
        f(&mut p);
        out.push(Case::new(format!("{name}: {label}"), request, &p));
    };
    tamper("encoded", &|p| {
        let at = p.encoded.len() - 3;
        p.encoded[at] ^= 1
    });
    tamper("tx_hash", &|p| p.tx_hash.0[0] ^= 1);
    tamper("index", &|p| p.index += 1);
    tamper("sibling", &|p| {
        let last = p.proof.len() - 1;
        p.proof[last] ^= 1
    });
    tamper("root field", &|p| p.root.0[0] ^= 1);
    tamper("height field", &|p| p.height += 1);
    tamper("block header", &|p| p.header[3] ^= 1);
    tamper("certificate", &|p| flip_hex(&mut p.finalization, 0));
    out
}

/// One vector: a proof, the verifier it goes to (the request's kind) and the request it is checked
/// against, under the network's own key.
struct Case(Value);

impl Case {
    fn new(name: String, request: &Requested, proof: &impl serde::Serialize) -> Self {
        let request = request.to_request();
        Self(json!({"name": name, "verify": request.kind, "request": request, "identity": "network",
            "proof": serde_json::to_value(proof).unwrap()}))
    }

    fn with_identity(mut self, identity: &str) -> Self {
        self.0["identity"] = json!(identity);
        self
    }
}

/// Proofs from a live devnet: an account with a balance, an absent account, a token balance (the
/// tokens actor's storage, kept under its holder) and an absent slot, a transaction and its
/// receipt; each also under another network's key and with every part tampered with.
async fn capture_proofs() -> Value {
    let node = TestNode::start(NodeOptions::default()).await;
    let client = node.client();
    let identity = Genesis::load(&node.dir.path().join(GENESIS_FILE)).unwrap().identity;
    let (_, polynomial) = drover_node::keys::generate_network(1).unwrap();
    let foreign = *polynomial.public();
    let identity_hex = |i: &verify::Identity| drover_node::keys::encode_hex(i);

    let alice = drover_client::Wallet::new(dev_key(0));
    let bob = SecretKey::dev(5).address();
    let context = TxBuilder::transfer(bob, 0).fetch_context(&client, alice.address()).await.unwrap();
    let create = TokenCall::Create(NewToken {
        name: "Gold".into(),
        symbol: "GLD".into(),
        decimals: 2,
        initial_supply: 1_000,
        max_supply: None,
        mintable: false,
    });
    let token = token_id(&alice.address(), "GLD");
    let txs = vec![
        TxBuilder::transfer(bob, 12_345).nonce(context.nonce).sign(&context, &alice).unwrap(),
        TxBuilder::token(&create).nonce(context.nonce + 1).sign(&context, &alice).unwrap(),
        TxBuilder::token(&TokenCall::Transfer { token, to: bob, amount: 250 })
            .nonce(context.nonce + 2)
            .sign(&context, &alice)
            .unwrap(),
    ];
    let waited = client.submit_wait(&txs, 10_000).await.unwrap();
    assert!(waited.results.iter().all(|r| r.status == WaitStatus::Success), "{waited:?}");
    let transfer_hash = txs[0].hash();

    let account = client.proof_account(&bob, None).await.unwrap();
    let balance_key = [&[b'b'][..], &token.0, &bob.0].concat();
    let balance = client.proof_storage(&TOKENS_ADDRESS, &balance_key, None).await.unwrap();
    let no_slot = client.proof_storage(&addr(0x42), b"missing", None).await.unwrap();
    let tx = client.proof_tx(&transfer_hash).await.unwrap().unwrap();
    let receipt = client.proof_receipt(&transfer_hash).await.unwrap().unwrap();

    let absent_address = SecretKey::dev(9).address();
    let absent = client.proof_account(&absent_address, None).await.unwrap();
    let mut cases = Vec::new();
    cases.extend(state_cases("account", &Requested::Account(bob), &account));
    cases.extend(state_cases("absent account", &Requested::Account(absent_address), &absent));
    cases.extend(state_cases("token balance", &Requested::Storage(TOKENS_ADDRESS, balance_key.clone()), &balance));
    cases.extend(state_cases("absent slot", &Requested::Storage(addr(0x42), b"missing".to_vec()), &no_slot));
    cases.extend(inclusion_cases("transaction", &Requested::Tx(transfer_hash), &tx));
    cases.extend(inclusion_cases("receipt", &Requested::Receipt(transfer_hash), &receipt));
    // Another network's key, and a proof of another kind than the verifier expects.
    cases.push(
        Case::new("account: another network's key".into(), &Requested::Account(bob), &account).with_identity("foreign"),
    );
    cases.push(Case::new("account proof given as storage".into(), &Requested::Storage(bob, Vec::new()), &account));
    cases.push(Case::new("transaction proof given as receipt".into(), &Requested::Receipt(transfer_hash), &tx));
    // A valid proof of another record than the one asked for: what a dishonest node substitutes.
    let alice_account = Requested::Account(alice.address());
    cases.push(Case::new("account: proof of another account".into(), &alice_account, &account));
    let other_key = [&[b'b'][..], &token.0, &alice.address().0].concat();
    cases.push(Case::new(
        "token balance: proof of another key".into(),
        &Requested::Storage(TOKENS_ADDRESS, other_key),
        &balance,
    ));
    cases.push(Case::new(
        "absent slot: proof of another actor".into(),
        &Requested::Storage(addr(0x43), b"missing".to_vec()),
        &no_slot,
    ));
    let other_tx = txs[1].hash();
    cases.push(Case::new("transaction: proof of another transaction".into(), &Requested::Tx(other_tx), &tx));
    cases.push(Case::new("receipt: proof of another transaction's".into(), &Requested::Receipt(other_tx), &receipt));
    let identities = json!({"network": identity_hex(&identity), "foreign": identity_hex(&foreign)});
    let mut out: Vec<Value> = cases.into_iter().map(|case| case.0).collect();
    for case in &mut out {
        let expect = run_case(case, &identities);
        case["expect"] = json!(expect);
    }
    json!({"identities": identities, "token": token.to_hex(), "holder": bob.to_hex(), "cases": out})
}

#[tokio::test]
async fn proof_vectors_verify_as_recorded() {
    if regenerate() {
        let vectors = capture_proofs().await;
        write_or_compare("proofs.json", &vectors);
    }
    let text = std::fs::read_to_string(vectors_dir().join("proofs.json")).unwrap();
    let vectors: Value = serde_json::from_str(&text).unwrap();
    let cases = vectors["cases"].as_array().unwrap();
    assert!(cases.iter().any(|c| c["expect"] == "ok") && cases.iter().any(|c| c["expect"] != "ok"));
    for case in cases {
        assert_eq!(run_case(case, &vectors["identities"]), case["expect"].as_str().unwrap(), "{}", case["name"]);
    }
    // The served proofs themselves all verify.
    for name in ["account", "absent account", "token balance", "absent slot", "transaction", "receipt"] {
        let case = cases.iter().find(|c| c["name"] == name).unwrap();
        assert_eq!(case["expect"], "ok", "{name}");
    }
    // ...and none is accepted for another record than the one asked for.
    for (name, refusal) in [
        ("account: proof of another account", "WrongKey"),
        ("token balance: proof of another key", "WrongKey"),
        ("absent slot: proof of another actor", "WrongKey"),
        ("transaction: proof of another transaction", "WrongTx"),
        ("receipt: proof of another transaction's", "WrongTx"),
    ] {
        let case = cases.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no case {name}"));
        assert_eq!(case["expect"], refusal, "{name}");
    }
}

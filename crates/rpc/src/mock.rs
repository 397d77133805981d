//! The router's tests: an in-memory [`MockBackend`] and request helpers (no sockets: requests go
//! through `tower::ServiceExt::oneshot`).
//!
//! The mock is assembled from one part per endpoint family: each family's mock
//! (`backend/<family>/mock.rs`, beside its trait) defines its data, made with `Default` the
//! first time it is used, and implements its trait for [`MockBackend`] over it. A test sets a
//! family's data with [`MockBackend::with`] or [`MockBackend::edit`]. A new family needs no
//! change here.
//!
//! Proofs are stand-ins (the bytes [`MOCK_PROOF`], the latest block's hash as the block bytes):
//! route tests check shapes, errors and ordering; real proofs are tested in `drover-client` and
//! end to end.

use crate::{RpcConfig, router};
use axum::{
    Router,
    body::{Body, to_bytes},
    http::{HeaderMap, Request, StatusCode, header},
};
use drover_types::{
    Address, ErrorCode, FeeBreakdown, H256, Receipt, SecretKey, Transaction, TxStatus, VerifiedTransaction,
    api::{ActorInfo, BlockInfo},
    keccak256,
    payload::Manifest,
};
use parking_lot::Mutex;
use std::{
    any::{Any, TypeId},
    collections::HashMap,
    sync::Arc,
};
use tower::ServiceExt;

/// Chain id of the mock network (the dev chain, which the faucet serves).
pub(crate) const CHAIN_ID: u64 = 100;

/// Stand-in proof bytes of the mock.
pub(crate) const MOCK_PROOF: &[u8] = b"mock-proof";

/// An in-memory backend: one part (a family's data) per type, shared by its clones.
#[derive(Clone, Default)]
pub(crate) struct MockBackend {
    parts: Arc<Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>>,
}

impl MockBackend {
    /// The part `T` of this mock, made with `T::default()` the first time it is asked for.
    pub(crate) fn part<T: Default + Send + 'static>(&self) -> Arc<Mutex<T>> {
        let part = Arc::clone(
            self.parts.lock().entry(TypeId::of::<T>()).or_insert_with(|| Arc::new(Mutex::new(T::default()))),
        );
        match part.downcast::<Mutex<T>>() {
            Ok(part) => part,
            Err(_) => unreachable!("a part is stored under its own type"),
        }
    }

    /// A mock whose part `T` is edited by `edit`.
    pub(crate) fn with<T: Default + Send + 'static>(edit: impl FnOnce(&mut T)) -> Self {
        let mock = Self::default();
        mock.edit(edit);
        mock
    }

    /// Edits the part `T` of this mock.
    pub(crate) fn edit<T: Default + Send + 'static>(&self, edit: impl FnOnce(&mut T)) -> &Self {
        edit(&mut self.part::<T>().lock());
        self
    }

    /// Reads from the part `T` of this mock.
    pub(crate) fn read<T: Default + Send + 'static, R>(&self, read: impl FnOnce(&T) -> R) -> R {
        read(&self.part::<T>().lock())
    }
}

/// The code every mock actor has: the WebAssembly magic number.
pub(crate) const MOCK_ACTOR_CODE: &[u8] = &[0, 0x61, 0x73, 0x6d];

/// A mock actor owned by `0x01…01` with two messages waiting.
pub(crate) fn actor(address: Address) -> ActorInfo {
    ActorInfo {
        address,
        code_hash: keccak256(MOCK_ACTOR_CODE),
        owner: Address([1; 20]),
        balance: 5,
        nonce: 0,
        mailbox_count: 2,
        mailbox_bytes: 40,
        created_height: 3,
        upgrades: 0,
        manifest: Manifest::new(vec!["storage.kv".to_owned()]),
    }
}

pub(crate) fn key(index: u32) -> SecretKey {
    SecretKey::dev(index)
}

/// A plain transfer (the paper's fee settings), unsigned.
pub(crate) fn transfer(chain_id: u64, nonce: u64) -> Transaction {
    Transaction {
        chain_id,
        nonce,
        to: Some(Address([0x11; 20])),
        value: 1,
        cycles_limit: 21_000,
        cells_limit: 0,
        max_fee_per_cycle: 10,
        max_fee_per_cell: 2,
        tip_per_cycle: 1,
        tip_per_cell: 0,
        payload: Vec::new(),
        signature: None,
    }
}

/// A transfer on the mock chain signed by dev key `index`.
pub(crate) fn signed(index: u32, nonce: u64) -> Transaction {
    transfer(CHAIN_ID, nonce).sign(&key(index))
}

pub(crate) fn verified(index: u32, nonce: u64) -> VerifiedTransaction {
    signed(index, nonce).verify().unwrap()
}

/// A submission envelope around already-encoded elements (which need not be transactions).
pub(crate) fn envelope(items: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![0xa1, 0x6c];
    out.extend_from_slice(b"Transactions");
    match items.len() {
        n @ 0..=23 => out.push(0x80 | n as u8),
        n => out.extend_from_slice(&[0x98, n as u8]),
    }
    for item in items {
        out.extend_from_slice(item);
    }
    out
}

pub(crate) fn block(height: u64) -> BlockInfo {
    let hash = keccak256(&height.to_be_bytes());
    BlockInfo {
        height,
        hash,
        parent_hash: if height == 0 { H256::ZERO } else { keccak256(&(height - 1).to_be_bytes()) },
        timestamp: 1_700_000_000 + height,
        timestamp_ms: (1_700_000_000 + height) * 1000,
        proposer: Address::system(1),
        view: height,
        state_root: H256::ZERO,
        transactions_root: H256::ZERO,
        receipts_root: H256::ZERO,
        ops_root: H256::ZERO,
        sync_range_start: 0,
        op_count: 0,
        transactions: Vec::new(),
        cycles_used: 0,
        cells_used: 0,
        basefee_cycle: "7".to_owned(),
        basefee_cell: "3".to_owned(),
        finalization: None,
    }
}

pub(crate) fn success_receipt(tx: &VerifiedTransaction, block_height: u64, index: u32) -> Receipt {
    Receipt {
        tx_hash: tx.hash,
        block_height,
        index,
        from: tx.sender,
        to: tx.tx.to,
        status: TxStatus::Success,
        cycles_used: 21_000,
        cells_used: 0,
        fee: FeeBreakdown { burned: 21_000 * 7, tip: 21_000 },
        events: Vec::new(),
        revert_reason: None,
        error: None,
    }
}

/// The router over `mock` with the default configuration.
pub(crate) fn app(mock: &MockBackend) -> Router {
    api(mock.clone(), RpcConfig::default())
}

/// The API as the server serves it (the router behind its layers) over `mock`, as a router.
pub(crate) fn api(mock: MockBackend, config: RpcConfig) -> Router {
    let http = crate::Http::new(&config);
    Router::new().fallback_service(crate::layered(router(mock, config, &http), &http))
}

pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|err| panic!("body is not JSON ({err}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub(crate) fn header(&self, name: header::HeaderName) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts an error answer: status, and a JSON body with the code and its name.
    #[track_caller]
    pub(crate) fn assert_error(&self, status: u16, code: ErrorCode) {
        let body = self.json();
        assert_eq!(self.status.as_u16(), status, "{body}");
        assert_eq!(body["code"], code.code(), "{body}");
        assert_eq!(body["error"], code.name(), "{body}");
        assert!(body["message"].is_string(), "{body}");
    }
}

pub(crate) async fn send(app: &Router, request: Request<Body>) -> Answer {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = to_bytes(response.into_body(), usize::MAX).await.unwrap().to_vec();
    Answer { status, headers, body }
}

pub(crate) async fn get(app: &Router, uri: &str) -> Answer {
    send(app, Request::get(uri).body(Body::empty()).unwrap()).await
}

pub(crate) async fn post(app: &Router, uri: &str, content_type: &str, body: impl Into<Body>) -> Answer {
    send(app, Request::post(uri).header(header::CONTENT_TYPE, content_type).body(body.into()).unwrap()).await
}

pub(crate) async fn post_cbor(app: &Router, uri: &str, body: Vec<u8>) -> Answer {
    post(app, uri, "application/cbor", body).await
}

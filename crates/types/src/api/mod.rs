//! JSON records of the HTTP API, shared by the server (`drover-rpc`) and the SDK
//! (`drover-client`) so both sides agree on every field name.
//!
//! Conventions (`docs/protocol.md`): addresses, hashes and keys are `0x` hex; arbitrary bytes are
//! base64; native amounts are JSON integers; basefees and u128 token amounts are decimal strings.
//! Records (transaction, receipt, block, ...) always carry every field, `null` when it does not
//! apply; per-item results of `/submit` and `/submit_wait` leave out the fields that do not apply
//! to their status. Deserializing is as strict as the server: bytes must be standard padded
//! base64, addresses and hashes exact-length hex. With the `openapi` feature every record also
//! derives `utoipa::ToSchema`.
//!
//! One module per endpoint family, mirroring `drover-rpc`'s `routes/`; every record is
//! re-exported here, so users name them `drover_types::api::X`. [`paths`] holds every route's path
//! template, written once for both sides.

mod accounts;
mod actors;
mod blocks;
mod chain;
mod encoding;
mod entitlements;
mod errors;
mod faucet;
mod governance;
mod health;
mod history;
mod jobs;
mod library;
mod pages;
pub mod paths;
mod proofs;
mod runners;
mod secrets;
mod state_sync;
mod storage;
mod storage_auth;
mod tokens;
mod trace;
mod transactions;

pub use accounts::*;
pub use actors::*;
pub use blocks::*;
pub use chain::*;
pub use entitlements::*;
pub use errors::*;
pub use faucet::*;
pub use governance::*;
pub use health::*;
pub use history::*;
pub use jobs::*;
pub use library::*;
pub use pages::*;
pub use proofs::*;
pub use runners::*;
pub use secrets::*;
pub use state_sync::*;
pub use storage::*;
pub use storage_auth::*;
pub use tokens::*;
pub use trace::*;
pub use transactions::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Address, Event, ExecError, H256, Receipt, Signature, TxStatus, VerifiedTransaction, error::ApiError};
    use crate::{ErrorCode, FeeBreakdown, Transaction, exec_error::ExecCode};
    use serde_json::json;

    fn hash(byte: u8) -> H256 {
        H256([byte; 32])
    }

    fn verified() -> VerifiedTransaction {
        VerifiedTransaction {
            tx: Transaction {
                chain_id: 100,
                nonce: 3,
                to: None,
                value: u128::from(u64::MAX) + 1,
                cycles_limit: 21_000,
                cells_limit: 5,
                max_fee_per_cycle: 10,
                max_fee_per_cell: 2,
                tip_per_cycle: 1,
                tip_per_cell: 0,
                payload: vec![0xfb, 0xff, 0x01],
                signature: Some(Signature { y_parity: 1, r: [0xaa; 32], s: [0x0b; 32] }),
            },
            hash: hash(1),
            sender: Address([0x22; 20]),
            encoded: Vec::new(),
        }
    }

    fn receipt() -> Receipt {
        Receipt {
            tx_hash: hash(1),
            block_height: 9,
            index: 4,
            from: Address([0x22; 20]),
            to: Some(Address([0x33; 20])),
            status: TxStatus::Reverted,
            cycles_used: 500,
            cells_used: 6,
            fee: FeeBreakdown { burned: 70, tip: 5 },
            events: vec![Event { address: Address([0x33; 20]), topic: "t".into(), data: vec![1, 2] }],
            revert_reason: Some("no".into()),
            error: Some(ExecError::new(ExecCode::OutOfCycles, "ran out")),
        }
    }

    #[test]
    fn error_body_from_api_error() {
        let body = ErrorBody::from(&ApiError::new(ErrorCode::InvalidAddress, "bad"));
        assert_eq!(
            serde_json::to_value(body).unwrap(),
            json!({"code": 3001, "error": "invalid_address", "message": "bad"})
        );
    }

    #[test]
    fn submit_results_leave_out_what_does_not_apply() {
        let accepted = SubmitResult::accepted(hash(2));
        assert_eq!(serde_json::to_value(&accepted).unwrap(), json!({"hash": hash(2).to_hex(), "status": "accepted"}));
        let err = ApiError::new(ErrorCode::WrongChainId, "chain 7");
        let rejected = SubmitResult::rejected(hash(3), &err);
        let value = serde_json::to_value(&rejected).unwrap();
        assert_eq!(
            value,
            json!({"hash": hash(3).to_hex(), "status": "rejected", "code": 2002, "error": "wrong_chain_id", "message": "chain 7"})
        );
        assert_eq!(serde_json::from_value::<SubmitResult>(value).unwrap(), rejected);
    }

    #[test]
    fn wait_results_by_status() {
        let pending = SubmitWaitResult::pending(hash(4));
        assert_eq!(serde_json::to_value(&pending).unwrap(), json!({"hash": hash(4).to_hex(), "status": "pending"}));

        let rejected = SubmitWaitResult::rejected(hash(5), &ApiError::new(ErrorCode::NonceTooLow, "used"));
        let value = serde_json::to_value(&rejected).unwrap();
        assert_eq!(
            value,
            json!({"hash": hash(5).to_hex(), "status": "rejected", "code": 2003, "error": "nonce_too_low", "message": "used"})
        );
        assert_eq!(serde_json::from_value::<SubmitWaitResult>(value).unwrap(), rejected);

        let executed = SubmitWaitResult::executed(&receipt());
        let value = serde_json::to_value(&executed).unwrap();
        assert_eq!(
            value,
            json!({
                "hash": hash(1).to_hex(),
                "status": "reverted",
                "error": {"code": "E1005", "category": "precheck", "message": "ran out", "fix": ExecCode::OutOfCycles.fix()},
                "block_height": 9,
                "cycles_used": 500,
                "cells_used": 6,
                "fee": 75,
                "revert_reason": "no",
            })
        );
        assert_eq!(serde_json::from_value::<SubmitWaitResult>(value).unwrap(), executed);
    }

    #[test]
    fn transaction_record() {
        let info = TransactionInfo::included(&verified(), 7, 2);
        let text = serde_json::to_string(&info).unwrap();
        // u128 amounts stay JSON integers, even above 2^64 - 1.
        assert!(text.contains(r#""value":18446744073709551616"#), "{text}");
        let value: serde_json::Value = serde_json::from_str(&text.replace("18446744073709551616", "0")).unwrap();
        assert_eq!(value["payload"], "+/8B");
        assert_eq!(value["to"], serde_json::Value::Null);
        assert_eq!(value["from"], Address([0x22; 20]).to_hex());
        assert_eq!(value["status"], "included");
        assert_eq!((value["block_height"].as_u64(), value["index"].as_u64()), (Some(7), Some(2)));
        assert_eq!(value["signature"], json!({"y_parity": 1, "r": hash(0xaa).to_hex(), "s": hash(0x0b).to_hex()}));
        assert_eq!(serde_json::from_str::<TransactionInfo>(&text).unwrap(), info);

        let mut small = verified();
        small.tx.value = 1;
        let pending = serde_json::to_value(TransactionInfo::pending(&small)).unwrap();
        assert_eq!(pending["status"], "pending");
        assert!(pending["block_height"].is_null() && pending["index"].is_null());
    }

    #[test]
    fn receipt_record() {
        let info = ReceiptInfo::from(&receipt());
        let value = serde_json::to_value(&info).unwrap();
        assert_eq!(value["status"], "reverted");
        assert_eq!(
            (value["fee"].as_u64(), value["fee_burned"].as_u64(), value["fee_tip"].as_u64()),
            (Some(75), Some(70), Some(5))
        );
        assert_eq!(value["events"], json!([{"address": Address([0x33; 20]).to_hex(), "topic": "t", "data": "AQI="}]));
        assert_eq!(value["error"]["code"], "E1005");
        assert_eq!(serde_json::from_value::<ReceiptInfo>(value).unwrap(), info);
    }

    /// JSON Schema's `integer` includes `55.0`; read budgets take it (generated traffic sent it
    /// and was refused). Budgets still serialize as integers.
    #[test]
    fn read_budgets_take_integral_numbers_only() {
        let read = |budget: serde_json::Value| {
            serde_json::from_value::<ActorReadRequest>(json!({
                "actor": Address([1; 20]).to_hex(), "handler": "get", "max_cycles": budget, "max_cells": null,
            }))
            .map(|request| (request.max_cycles, request.max_cells))
            .map_err(|e| e.to_string())
        };
        assert_eq!(read(json!(55)), Ok((Some(55), None)));
        assert_eq!(read(json!(55.0)), Ok((Some(55), None)));
        assert_eq!(read(json!(1e3)), Ok((Some(1000), None)));
        assert_eq!(read(json!(u64::MAX)), Ok((Some(u64::MAX), None)));
        assert_eq!(read(json!(null)), Ok((None, None)));
        for bad in [json!(55.5), json!(-1), json!(-1.0), json!(1.8446744073709552e19), json!("5"), json!(true)] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
        let request = ActorReadRequest {
            actor: Address([1; 20]),
            handler: "get".into(),
            payload: None,
            payload_text: Some(String::new()),
            payload_json: None,
            max_cycles: Some(7),
            max_cells: None,
            from: None,
            trace: None,
        };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(value["max_cycles"], json!(7));
        assert!(value.get("max_cells").is_none());
        assert_eq!(serde_json::from_value::<ActorReadRequest>(value).unwrap(), request);
    }

    #[test]
    fn base64_fields_refuse_other_alphabets() {
        let mut value = serde_json::to_value(ReceiptInfo::from(&receipt())).unwrap();
        value["events"][0]["data"] = json!("AQI");
        assert!(serde_json::from_value::<ReceiptInfo>(value).is_err());
    }
}

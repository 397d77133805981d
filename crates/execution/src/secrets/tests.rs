//! The secrets actor's rules through `execute_block`: set, grant, revoke, delete, versions, and
//! the refusals. What it stores is exactly what it was given (ciphertext).

use crate::testing::{Chain, RICH};
use drover_state::secrets::{SecretRecord, decode_envelope, envelope_key, secret_key, state_key};
use drover_types::system_call::SystemCall;
use drover_types::{
    Address, Receipt, TxStatus,
    exec_error::ExecCode,
    secrets::{SECRETS_ADDRESS, SecretCall},
};

const OWNER: Address = Address([0x0e; 20]);
const R1: Address = Address([0x01; 20]);
const R2: Address = Address([0x02; 20]);

fn send(chain: &mut Chain, call: &SecretCall) -> Receipt {
    let tx = chain.tx(OWNER, Some(SECRETS_ADDRESS), call.message().encode(), 0);
    chain.block(&[tx]).receipts.remove(0)
}

fn ok(chain: &mut Chain, call: &SecretCall) {
    let receipt = send(chain, call);
    assert_eq!(receipt.status, TxStatus::Success, "{call:?}: {:?}", receipt.error);
}

fn refused(chain: &mut Chain, call: &SecretCall, code: ExecCode) {
    assert_eq!(send(chain, call).error.map(|e| e.code), Some(code), "{call:?}");
}

fn record(chain: &Chain, name: &str) -> Option<SecretRecord> {
    chain.state.get(&state_key(&secret_key(&OWNER, name))).map(|b| SecretRecord::decode(b).unwrap())
}

fn envelope(chain: &Chain, name: &str, reader: &Address) -> Option<Vec<u8>> {
    chain.state.get(&state_key(&envelope_key(&OWNER, name, reader))).map(|b| decode_envelope(b).unwrap())
}

#[test]
fn set_grant_revoke_and_delete() {
    let mut chain = Chain::new(&[(OWNER, RICH)]);
    ok(&mut chain, &SecretCall::Set { name: "api".into(), envelopes: vec![(R2, vec![2; 80]), (R1, vec![1; 80])] });
    let stored = record(&chain, "api").unwrap();
    assert_eq!((stored.version, stored.readers.clone()), (1, vec![R1, R2]));
    assert_eq!(envelope(&chain, "api", &R1), Some(vec![1; 80]), "stored as given");
    assert_eq!(count(&chain), 1);
    // A new set replaces the readers whole.
    ok(&mut chain, &SecretCall::Set { name: "api".into(), envelopes: vec![(R1, vec![3; 80])] });
    assert_eq!(count(&chain), 1, "the same secret");
    assert_eq!(record(&chain, "api").unwrap().readers, vec![R1]);
    assert_eq!(envelope(&chain, "api", &R2), None);
    assert_eq!(record(&chain, "api").unwrap().version, 2);
    ok(&mut chain, &SecretCall::Grant { name: "api".into(), reader: R2, envelope: vec![4; 80] });
    assert_eq!(record(&chain, "api").unwrap().readers, vec![R1, R2]);
    ok(&mut chain, &SecretCall::Revoke { name: "api".into(), reader: R1 });
    assert_eq!((envelope(&chain, "api", &R1), record(&chain, "api").unwrap().version), (None, 4));
    refused(&mut chain, &SecretCall::Revoke { name: "api".into(), reader: R1 }, ExecCode::NotAReader);
    // Revoking the last reader deletes the secret.
    ok(&mut chain, &SecretCall::Revoke { name: "api".into(), reader: R2 });
    assert_eq!((record(&chain, "api"), count(&chain)), (None, 0));
    ok(&mut chain, &SecretCall::Set { name: "db".into(), envelopes: vec![(R1, vec![5; 80]), (R2, vec![6; 80])] });
    ok(&mut chain, &SecretCall::Set { name: "api".into(), envelopes: vec![(R1, vec![7; 80])] });
    assert_eq!(count(&chain), 2);
    ok(&mut chain, &SecretCall::Delete { name: "db".into() });
    assert_eq!((record(&chain, "db"), envelope(&chain, "db", &R1), envelope(&chain, "db", &R2)), (None, None, None));
    assert_eq!(count(&chain), 1, "the owner's count follows what is stored, for the API's pages");
}

/// The owner's secrets as its listing counts them (the listing's invariants checked, and every
/// listed secret stored).
fn count(chain: &Chain) -> u64 {
    let listed = crate::testing::listed(&chain.state, &drover_state::secrets::secrets_listing(&OWNER));
    for item in &listed {
        let key = drover_state::secrets::hashed_secret_key(&OWNER, &drover_types::H256(item[..].try_into().unwrap()));
        assert!(chain.state.contains_key(&drover_state::secrets::state_key(&key)), "a listed secret is stored");
    }
    listed.len() as u64
}

#[test]
fn refusals() {
    let mut chain = Chain::new(&[(OWNER, RICH)]);
    refused(&mut chain, &SecretCall::Delete { name: "nope".into() }, ExecCode::UnknownSecret);
    refused(
        &mut chain,
        &SecretCall::Grant { name: "nope".into(), reader: R1, envelope: vec![1] },
        ExecCode::UnknownSecret,
    );
    refused(
        &mut chain,
        &SecretCall::Set { name: "bad name".into(), envelopes: vec![(R1, vec![1])] },
        ExecCode::SecretRules,
    );
    refused(&mut chain, &SecretCall::Set { name: "k".into(), envelopes: Vec::new() }, ExecCode::SecretRules);
    let too_big = SecretCall::Set { name: "k".into(), envelopes: vec![(R1, vec![0; 5_000])] };
    refused(&mut chain, &too_big, ExecCode::SecretRules);
    assert_eq!(record(&chain, "k"), None, "refusals store nothing");
}

//! Light-client verification of the node's proofs, trusting nothing but the network's group
//! public key (the genesis `identity`).
//!
//! Every check goes the same way, and each step only trusts what the previous one established:
//!
//! 1. **certificate**: the finalization certificate decodes and its threshold signature verifies
//!    against the group key;
//! 2. **block**: SHA-256 of the served header bytes is the digest the certificate finalizes, and
//!    the bytes decode as a block header (so its fields are certified);
//! 3. **root**: the response's convenience fields (height, block hash, root) equal the certified
//!    header's, so a caller reading them reads certified values;
//! 4. **proof**: the QMDB proof verifies against the header's `state_root` (resp. the binary
//!    Merkle proof against `transactions_root` / `receipts_root`), for the key the request names,
//!    derived here from the key schema rather than taken from the response;
//! 5. **value**: the proven bytes decode as the record the kind promises.
//!
//! Any failure is a [`VerifyError`]; a verified value comes back with the height and hash of the
//! block it was proven in. A node can still answer with an *older* certified state than the
//! latest; callers that need freshness compare the returned height with one they trust.

use commonware_cryptography::{Hasher as _, Sha256, sha256};
use drover_block::{
    Block,
    proof::{ProofError, receipt_leaf, verify_inclusion, verify_state},
    scheme::{CertificateError, verify_finalization},
};
use drover_state::{Account, keys};
use drover_types::{
    Address, H256, Receipt, Transaction,
    api::{
        InclusionProofInfo, InclusionProofKind, MultiProofItem, MultiProofResponse, ProofInfo, StateProofInfo,
        StateProofKind,
    },
    keccak256,
};

pub use drover_block::scheme::{Identity, parse_identity};

/// Why a proof was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// Step 1: the finalization certificate does not decode or its signature does not verify.
    #[error(transparent)]
    Certificate(#[from] CertificateError),
    /// Step 1: the `finalization` field is not hex; the hex decoder's reason.
    #[error("the finalization certificate is not hex: {0}")]
    CertificateEncoding(String),
    /// Step 2: the served header is not the block the certificate finalizes.
    #[error("the certificate finalizes block {certified}, not the served block {served}")]
    WrongBlock {
        /// The digest the certificate finalizes.
        certified: H256,
        /// SHA-256 of the served header bytes.
        served: H256,
    },
    /// Step 2: the served header bytes do not decode; the codec's reason.
    #[error("the served block does not decode: {0}")]
    MalformedBlock(String),
    /// Step 3: a convenience field of the response differs from the certified header.
    #[error("field `{field}` of the response disagrees with the certified block")]
    FieldMismatch {
        /// Name of the response field.
        field: &'static str,
    },
    /// The node proved another kind of record than the one asked for.
    #[error("expected a {expected} proof, got a {actual} proof")]
    WrongKind {
        /// The kind asked for.
        expected: &'static str,
        /// The kind the response carries.
        actual: &'static str,
    },
    /// Step 4: the proof is for another state key than the requested record's.
    #[error("the proof is for key {proven}, not for the requested record's key {expected}")]
    WrongKey {
        /// The state key of the record asked for (hex).
        expected: String,
        /// The state key the response proves (hex).
        proven: String,
    },
    /// Step 4: the proof does not decode or does not verify against the certified root.
    #[error(transparent)]
    Proof(#[from] ProofError),
    /// Step 5: the proven bytes do not decode as the promised record; the decoder's reason.
    #[error("the proven record does not decode: {0}")]
    Record(String),
    /// Step 5: the proven record is not the one asked for (another transaction or position).
    #[error("the proven record is not the one asked for: {0}")]
    RecordMismatch(&'static str),
    /// The node answered this item of a multi-proof with an error body instead of a proof.
    #[error("the node answered this item with an error: {error} (code {code}): {message}")]
    Refused {
        /// Numeric API error code.
        code: u16,
        /// Snake-case name of the code.
        error: String,
        /// The node's explanation.
        message: String,
    },
}

/// A certified block header, as far as a verified value needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertifiedHeader {
    /// Height of the block.
    pub height: u64,
    /// The block digest the certificate finalizes.
    pub hash: H256,
    /// The block's timestamp, Unix milliseconds.
    pub timestamp_ms: u64,
    /// The block's post-state root.
    pub state_root: H256,
}

/// A state record (or its absence) proven in a certified block's post-state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedState {
    /// Which record: account, actor or storage slot.
    pub kind: StateProofKind,
    /// The account or actor the record belongs to.
    pub address: Address,
    /// The actor's own storage key (`storage` only).
    pub storage_key: Option<Vec<u8>>,
    /// The record's bytes; `None` is proven absence.
    pub value: Option<Vec<u8>>,
    /// The block whose post-state holds it.
    pub block: CertifiedHeader,
}

/// An account (or its absence) proven in a certified block's post-state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedAccount {
    /// The address asked about.
    pub address: Address,
    /// `None`: the address holds no account.
    pub account: Option<Account>,
    /// The block whose post-state holds it.
    pub block: CertifiedHeader,
}

/// A transaction proven in a certified block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedTx {
    /// The transaction hash, checked against the proven bytes.
    pub hash: H256,
    /// The transaction, decoded from the proven bytes.
    pub tx: Transaction,
    /// Its position in the block.
    pub index: u32,
    /// The block that includes it.
    pub block: CertifiedHeader,
}

/// A receipt proven in a certified block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedReceipt {
    /// The receipt, decoded from the proven bytes.
    pub receipt: Receipt,
    /// The block that includes the transaction.
    pub block: CertifiedHeader,
}

/// Any verified item of a multi-proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verified {
    /// An account, decoded.
    Account(VerifiedAccount),
    /// An actor record, as raw bytes.
    Actor(VerifiedState),
    /// A storage value, as raw bytes.
    Storage(VerifiedState),
    /// A transaction in its block.
    Tx(VerifiedTx),
    /// A receipt in its block.
    Receipt(VerifiedReceipt),
}

fn h256(digest: &sha256::Digest) -> H256 {
    H256(digest.0)
}

fn state_kind_name(kind: StateProofKind) -> &'static str {
    match kind {
        StateProofKind::Account => "account",
        StateProofKind::Actor => "actor",
        StateProofKind::Storage => "storage",
    }
}

fn inclusion_kind_name(kind: InclusionProofKind) -> &'static str {
    match kind {
        InclusionProofKind::Tx => "tx",
        InclusionProofKind::Receipt => "receipt",
    }
}

/// Steps 1 and 2: the certificate verifies against `identity` and finalizes exactly the block
/// whose header bytes are `header`; answers the header (a block without its transactions).
pub fn verify_certified_block(
    header: &[u8],
    finalization_hex: &str,
    identity: &Identity,
) -> Result<Block, VerifyError> {
    let certificate =
        drover_types::hexfmt::decode(finalization_hex).map_err(|e| VerifyError::CertificateEncoding(e.to_string()))?;
    let finalization = verify_finalization(&certificate, identity)?;
    let digest = Sha256::hash(&[header]);
    if finalization.proposal.payload != digest {
        return Err(VerifyError::WrongBlock { certified: h256(&finalization.proposal.payload), served: h256(&digest) });
    }
    Block::decode_header(header).map_err(|e| VerifyError::MalformedBlock(e.to_string()))
}

fn header(block: &Block, digest: H256) -> CertifiedHeader {
    CertifiedHeader {
        height: block.height.get(),
        hash: digest,
        timestamp_ms: block.timestamp_ms,
        state_root: h256(&block.state_root),
    }
}

fn same<T: PartialEq>(served: &T, certified: &T, field: &'static str) -> Result<(), VerifyError> {
    if served == certified { Ok(()) } else { Err(VerifyError::FieldMismatch { field }) }
}

/// Checks any state proof (account, actor or storage) and returns the proven record bytes.
pub fn verify_state_proof(proof: &StateProofInfo, identity: &Identity) -> Result<VerifiedState, VerifyError> {
    let block = verify_certified_block(&proof.header, &proof.finalization, identity)?;
    let digest = h256(&Sha256::hash(&[&proof.header]));
    same(&proof.block_hash, &digest, "block_hash")?;
    same(&proof.height, &block.height.get(), "height")?;
    same(&proof.state_root, &h256(&block.state_root), "state_root")?;
    let expected = match (proof.kind, &proof.storage_key) {
        (StateProofKind::Account, None) => keys::account_key(&proof.address),
        (StateProofKind::Actor, None) => keys::actor_key(&proof.address),
        (StateProofKind::Storage, Some(slot)) => keys::storage_key(&proof.address, slot),
        _ => return Err(VerifyError::FieldMismatch { field: "storage_key" }),
    };
    if proof.key != expected {
        return Err(VerifyError::WrongKey {
            expected: format!("0x{}", hex::encode(&expected)),
            proven: format!("0x{}", hex::encode(&proof.key)),
        });
    }
    verify_state(&expected, proof.value.as_deref(), &proof.proof, &block.state_root)?;
    Ok(VerifiedState {
        kind: proof.kind,
        address: proof.address,
        storage_key: proof.storage_key.clone(),
        value: proof.value.clone(),
        block: header(&block, digest),
    })
}

fn expect_state(proof: &StateProofInfo, kind: StateProofKind) -> Result<(), VerifyError> {
    if proof.kind == kind {
        Ok(())
    } else {
        Err(VerifyError::WrongKind { expected: state_kind_name(kind), actual: state_kind_name(proof.kind) })
    }
}

/// Verifies an account proof (`/proof/account/{address}`) and decodes the account.
pub fn verify_account(proof: &StateProofInfo, identity: &Identity) -> Result<VerifiedAccount, VerifyError> {
    expect_state(proof, StateProofKind::Account)?;
    let state = verify_state_proof(proof, identity)?;
    let account =
        state.value.as_deref().map(Account::decode).transpose().map_err(|e| VerifyError::Record(e.to_string()))?;
    Ok(VerifiedAccount { address: state.address, account, block: state.block })
}

/// Verifies an actor-record proof (`/proof/actor/{address}`); the record bytes are returned as
/// proven (their layout is the actor engine's).
pub fn verify_actor(proof: &StateProofInfo, identity: &Identity) -> Result<VerifiedState, VerifyError> {
    expect_state(proof, StateProofKind::Actor)?;
    verify_state_proof(proof, identity)
}

/// Verifies a storage-slot proof (`/proof/storage/{address}/{key}` or `/state/{actor}/{key_hex}`).
pub fn verify_storage(proof: &StateProofInfo, identity: &Identity) -> Result<VerifiedState, VerifyError> {
    expect_state(proof, StateProofKind::Storage)?;
    verify_state_proof(proof, identity)
}

/// Steps 1 to 3 of an inclusion proof, then the Merkle proof of `leaf`.
fn verify_inclusion_proof(
    proof: &InclusionProofInfo,
    kind: InclusionProofKind,
    leaf: [u8; 32],
    identity: &Identity,
) -> Result<(Block, H256), VerifyError> {
    if proof.kind != kind {
        return Err(VerifyError::WrongKind {
            expected: inclusion_kind_name(kind),
            actual: inclusion_kind_name(proof.kind),
        });
    }
    let block = verify_certified_block(&proof.header, &proof.finalization, identity)?;
    let digest = h256(&Sha256::hash(&[&proof.header]));
    same(&proof.block_hash, &digest, "block_hash")?;
    same(&proof.height, &block.height.get(), "height")?;
    let root = match kind {
        InclusionProofKind::Tx => block.transactions_root,
        InclusionProofKind::Receipt => block.receipts_root,
    };
    same(&proof.root, &h256(&root), "root")?;
    verify_inclusion(leaf, proof.index, &proof.proof, &root)?;
    Ok((block, digest))
}

/// Verifies a transaction proof (`/proof/tx/{tx_hash}`) and decodes the transaction.
pub fn verify_tx(proof: &InclusionProofInfo, identity: &Identity) -> Result<VerifiedTx, VerifyError> {
    if keccak256(&proof.encoded) != proof.tx_hash {
        return Err(VerifyError::RecordMismatch("the transaction bytes do not hash to tx_hash"));
    }
    let (block, digest) = verify_inclusion_proof(proof, InclusionProofKind::Tx, proof.tx_hash.0, identity)?;
    let tx = Transaction::decode(&proof.encoded).map_err(|e| VerifyError::Record(e.to_string()))?;
    Ok(VerifiedTx { hash: proof.tx_hash, tx, index: proof.index, block: header(&block, digest) })
}

/// Verifies a receipt proof (`/proof/receipt/{tx_hash}`) and decodes the receipt.
pub fn verify_receipt(proof: &InclusionProofInfo, identity: &Identity) -> Result<VerifiedReceipt, VerifyError> {
    let leaf = receipt_leaf(&proof.encoded);
    let (block, digest) = verify_inclusion_proof(proof, InclusionProofKind::Receipt, leaf, identity)?;
    let receipt = Receipt::decode(&proof.encoded).map_err(|e| VerifyError::Record(e.to_string()))?;
    if receipt.tx_hash != proof.tx_hash {
        return Err(VerifyError::RecordMismatch("the receipt is another transaction's"));
    }
    if receipt.block_height != proof.height || receipt.index != proof.index {
        return Err(VerifyError::RecordMismatch("the receipt names another position"));
    }
    Ok(VerifiedReceipt { receipt, block: header(&block, digest) })
}

/// Verifies one proof of any kind.
pub fn verify_proof(proof: &ProofInfo, identity: &Identity) -> Result<Verified, VerifyError> {
    match proof {
        ProofInfo::State(state) => match state.kind {
            StateProofKind::Account => verify_account(state, identity).map(Verified::Account),
            StateProofKind::Actor => verify_actor(state, identity).map(Verified::Actor),
            StateProofKind::Storage => verify_storage(state, identity).map(Verified::Storage),
        },
        ProofInfo::Inclusion(inclusion) => match inclusion.kind {
            InclusionProofKind::Tx => verify_tx(inclusion, identity).map(Verified::Tx),
            InclusionProofKind::Receipt => verify_receipt(inclusion, identity).map(Verified::Receipt),
        },
    }
}

/// Verifies every item of a `/proof/multi` answer, in order; an item the node refused is a
/// [`VerifyError::Refused`].
pub fn verify_multi(response: &MultiProofResponse, identity: &Identity) -> Vec<Result<Verified, VerifyError>> {
    response
        .results
        .iter()
        .map(|item| match item {
            MultiProofItem::Proof(proof) => verify_proof(proof, identity),
            MultiProofItem::Error(body) => {
                Err(VerifyError::Refused { code: body.code, error: body.error.clone(), message: body.message.clone() })
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    //! Malformed answers are refused before any cryptography; tampering with real proofs is
    //! covered end to end (`crates/cli/tests/e2e_proofs.rs`), where a live node signs them.
    use super::*;
    use drover_types::api::{ErrorBody, InclusionProofKind};

    fn identity() -> Identity {
        use commonware_cryptography::bls12381::primitives::{group::Private, ops::compute_public, variant::MinSig};
        use commonware_math::algebra::Random as _;
        compute_public::<MinSig>(&Private::random(commonware_utils::sys_rng()))
    }

    fn state_proof(kind: StateProofKind) -> StateProofInfo {
        StateProofInfo {
            kind,
            address: Address([1; 20]),
            storage_key: None,
            key: keys::account_key(&Address([1; 20])),
            value: None,
            proof: Vec::new(),
            height: 1,
            block_hash: H256::ZERO,
            state_root: H256::ZERO,
            header: vec![0; 8],
            finalization: "00".to_owned(),
        }
    }

    #[test]
    fn malformed_certificates_and_kinds_are_refused() {
        let identity = identity();
        let mut proof = state_proof(StateProofKind::Account);
        proof.finalization = "zz".to_owned();
        assert!(matches!(verify_account(&proof, &identity), Err(VerifyError::CertificateEncoding(_))));
        proof.finalization = "0x0102".to_owned();
        assert!(matches!(
            verify_account(&proof, &identity),
            Err(VerifyError::Certificate(CertificateError::Malformed(_)))
        ));
        let actor = state_proof(StateProofKind::Actor);
        assert_eq!(
            verify_account(&actor, &identity),
            Err(VerifyError::WrongKind { expected: "account", actual: "actor" })
        );
        let receipt = InclusionProofInfo {
            kind: InclusionProofKind::Receipt,
            tx_hash: H256::ZERO,
            height: 1,
            index: 0,
            encoded: Vec::new(),
            proof: Vec::new(),
            block_hash: H256::ZERO,
            root: H256::ZERO,
            header: Vec::new(),
            finalization: "00".to_owned(),
        };
        assert!(matches!(
            verify_receipt(&InclusionProofInfo { kind: InclusionProofKind::Tx, ..receipt.clone() }, &identity),
            Err(VerifyError::WrongKind { .. })
        ));
        // A transaction whose bytes do not hash to the asked hash is refused first.
        assert!(matches!(
            verify_tx(&InclusionProofInfo { kind: InclusionProofKind::Tx, ..receipt }, &identity),
            Err(VerifyError::RecordMismatch(_))
        ));
    }

    #[test]
    fn refused_multi_items_stay_errors_in_place() {
        let body = ErrorBody { code: 3001, error: "invalid_address".to_owned(), message: "bad".to_owned() };
        let response = MultiProofResponse { results: vec![MultiProofItem::Error(body)] };
        let results = verify_multi(&response, &identity());
        assert!(matches!(&results[..], [Err(VerifyError::Refused { code: 3001, .. })]));
    }
}

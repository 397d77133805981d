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
//! 4. **request**: the proof is about the record the caller asked for: every verifier takes the
//!    request ([`Requested`], or the address, storage key or hash of the single-record ones), the
//!    state key is derived here from it with the key schema, never taken from the response, and a
//!    proof of another record (a valid, certified proof of another account, key or transaction a
//!    dishonest node substitutes) is refused with [`VerifyError::WrongKey`] or
//!    [`VerifyError::WrongTx`];
//! 5. **proof**: the QMDB proof verifies against the header's `state_root` (resp. the binary
//!    Merkle proof against `transactions_root` / `receipts_root`) for that key or hash;
//! 6. **value**: the proven bytes decode as the record the kind promises.
//!
//! A multi-proof is bound the same way, item by item, to the list of requests it answers.
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
        InclusionProofInfo, InclusionProofKind, MultiProofItem, MultiProofResponse, ProofInfo, ProofRequest,
        StateProofInfo, StateProofKind,
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
    /// Step 4: the proof is for another transaction than the requested one.
    #[error("the proof is for transaction {proven}, not for the requested transaction {expected}")]
    WrongTx {
        /// The hash asked for.
        expected: H256,
        /// The hash the response proves.
        proven: H256,
    },
    /// Step 5: the proof does not decode or does not verify against the certified root.
    #[error(transparent)]
    Proof(#[from] ProofError),
    /// Step 6: the proven bytes do not decode as the promised record; the decoder's reason.
    #[error("the proven record does not decode: {0}")]
    Record(String),
    /// Step 6: the proven record contradicts the response (bytes of another transaction, a
    /// receipt naming another position).
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
    /// A multi-proof request item names no record (the reason), yet the node answered it with a
    /// proof.
    #[error("the request does not name a record: {0}")]
    InvalidRequest(String),
    /// A multi-proof answer holds no item for this request (it is shorter than the request list).
    #[error("the node answered {answered} of {requested} requests, not this one")]
    Unanswered {
        /// Items in the answer.
        answered: usize,
        /// Requests sent.
        requested: usize,
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

/// The record a proof must be about: what the caller asked the node for. Verifiers derive the
/// expected state key or hash from it, so a proof of another record is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requested {
    /// `/proof/account/{address}`.
    Account(Address),
    /// `/proof/actor/{address}`.
    Actor(Address),
    /// `/proof/storage/{address}/{key}`: the actor and its own storage key.
    Storage(Address, Vec<u8>),
    /// `/proof/tx/{tx_hash}`.
    Tx(H256),
    /// `/proof/receipt/{tx_hash}`.
    Receipt(H256),
}

impl Requested {
    /// The `/proof/multi` request item asking for this record.
    pub fn to_request(&self) -> ProofRequest {
        let state = |kind: &str, address: &Address, key: Option<&[u8]>| ProofRequest {
            kind: kind.to_owned(),
            address: Some(address.to_string()),
            key: key.map(|k| format!("0x{}", hex::encode(k))),
            tx_hash: None,
        };
        let inclusion = |kind: &str, hash: &H256| ProofRequest {
            kind: kind.to_owned(),
            tx_hash: Some(hash.to_string()),
            ..ProofRequest::default()
        };
        match self {
            Self::Account(address) => state("account", address, None),
            Self::Actor(address) => state("actor", address, None),
            Self::Storage(address, key) => state("storage", address, Some(key)),
            Self::Tx(hash) => inclusion("tx", hash),
            Self::Receipt(hash) => inclusion("receipt", hash),
        }
    }

    /// The record a `/proof/multi` request item asks for, parsed as the node parses it (the
    /// reason when it does not parse).
    pub fn from_request(request: &ProofRequest) -> Result<Self, String> {
        let kind = request.kind.as_str();
        let field = |value: &Option<String>, name: &str| {
            value.clone().ok_or_else(|| format!("a `{kind}` request needs `{name}`"))
        };
        let address = || -> Result<Address, String> {
            let text = field(&request.address, "address")?;
            text.parse().map_err(|e| format!("{e}: {text:?}"))
        };
        let hash = || -> Result<H256, String> {
            let text = field(&request.tx_hash, "tx_hash")?;
            text.parse().map_err(|e| format!("{e}: {text:?}"))
        };
        Ok(match kind {
            "account" => Self::Account(address()?),
            "actor" => Self::Actor(address()?),
            "storage" => {
                let text = field(&request.key, "key")?;
                let key = drover_types::hexfmt::decode(&text)
                    .map_err(|e| format!("storage key is not hex ({e}): {text:?}"))?;
                Self::Storage(address()?, key)
            }
            "tx" => Self::Tx(hash()?),
            "receipt" => Self::Receipt(hash()?),
            other => return Err(format!("unknown proof kind {other:?}")),
        })
    }

    fn kind_name(&self) -> &'static str {
        match self {
            Self::Account(_) => "account",
            Self::Actor(_) => "actor",
            Self::Storage(..) => "storage",
            Self::Tx(_) => "tx",
            Self::Receipt(_) => "receipt",
        }
    }
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

/// Checks a state proof against what was asked: the record of `requested` (an account, actor or
/// storage request; a transaction or receipt request is a [`VerifyError::WrongKind`]).
pub fn verify_state_proof(
    proof: &StateProofInfo,
    identity: &Identity,
    requested: &Requested,
) -> Result<VerifiedState, VerifyError> {
    let (kind, address, slot, expected) = match requested {
        Requested::Account(address) => (StateProofKind::Account, address, None, keys::account_key(address)),
        Requested::Actor(address) => (StateProofKind::Actor, address, None, keys::actor_key(address)),
        Requested::Storage(address, slot) => {
            (StateProofKind::Storage, address, Some(slot), keys::storage_key(address, slot))
        }
        Requested::Tx(_) | Requested::Receipt(_) => {
            return Err(VerifyError::WrongKind {
                expected: requested.kind_name(),
                actual: state_kind_name(proof.kind),
            });
        }
    };
    if proof.kind != kind {
        return Err(VerifyError::WrongKind { expected: state_kind_name(kind), actual: state_kind_name(proof.kind) });
    }
    let block = verify_certified_block(&proof.header, &proof.finalization, identity)?;
    let digest = h256(&Sha256::hash(&[&proof.header]));
    same(&proof.block_hash, &digest, "block_hash")?;
    same(&proof.height, &block.height.get(), "height")?;
    same(&proof.state_root, &h256(&block.state_root), "state_root")?;
    if proof.key != expected {
        return Err(VerifyError::WrongKey {
            expected: format!("0x{}", hex::encode(&expected)),
            proven: format!("0x{}", hex::encode(&proof.key)),
        });
    }
    // The key is bound to the request; the labels beside it must say the same.
    same(&proof.address, address, "address")?;
    same(&proof.storage_key.as_ref(), &slot, "storage_key")?;
    verify_state(&expected, proof.value.as_deref(), &proof.proof, &block.state_root)?;
    Ok(VerifiedState {
        kind,
        address: *address,
        storage_key: slot.cloned(),
        value: proof.value.clone(),
        block: header(&block, digest),
    })
}

/// Verifies an account proof (`/proof/account/{address}`) of `address` and decodes the account.
pub fn verify_account(
    proof: &StateProofInfo,
    identity: &Identity,
    address: &Address,
) -> Result<VerifiedAccount, VerifyError> {
    let state = verify_state_proof(proof, identity, &Requested::Account(*address))?;
    let account =
        state.value.as_deref().map(Account::decode).transpose().map_err(|e| VerifyError::Record(e.to_string()))?;
    Ok(VerifiedAccount { address: state.address, account, block: state.block })
}

/// Verifies an actor-record proof (`/proof/actor/{address}`) of `address`; the record bytes are
/// returned as proven (their layout is the actor engine's).
pub fn verify_actor(
    proof: &StateProofInfo,
    identity: &Identity,
    address: &Address,
) -> Result<VerifiedState, VerifyError> {
    verify_state_proof(proof, identity, &Requested::Actor(*address))
}

/// Verifies a storage-slot proof (`/proof/storage/{address}/{key}` or `/state/{actor}/{key_hex}`)
/// of the actor `address`'s own storage key `slot`.
pub fn verify_storage(
    proof: &StateProofInfo,
    identity: &Identity,
    address: &Address,
    slot: &[u8],
) -> Result<VerifiedState, VerifyError> {
    verify_state_proof(proof, identity, &Requested::Storage(*address, slot.to_vec()))
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

/// The proof is of the transaction asked for.
fn expect_tx(proof: &InclusionProofInfo, hash: &H256) -> Result<(), VerifyError> {
    if proof.tx_hash == *hash { Ok(()) } else { Err(VerifyError::WrongTx { expected: *hash, proven: proof.tx_hash }) }
}

/// Verifies a transaction proof (`/proof/tx/{tx_hash}`) of the transaction `hash` and decodes it.
pub fn verify_tx(proof: &InclusionProofInfo, identity: &Identity, hash: &H256) -> Result<VerifiedTx, VerifyError> {
    expect_tx(proof, hash)?;
    if keccak256(&proof.encoded) != proof.tx_hash {
        return Err(VerifyError::RecordMismatch("the transaction bytes do not hash to tx_hash"));
    }
    let (block, digest) = verify_inclusion_proof(proof, InclusionProofKind::Tx, proof.tx_hash.0, identity)?;
    let tx = Transaction::decode(&proof.encoded).map_err(|e| VerifyError::Record(e.to_string()))?;
    Ok(VerifiedTx { hash: proof.tx_hash, tx, index: proof.index, block: header(&block, digest) })
}

/// Verifies a receipt proof (`/proof/receipt/{tx_hash}`) of the transaction `hash`'s receipt and
/// decodes it.
pub fn verify_receipt(
    proof: &InclusionProofInfo,
    identity: &Identity,
    hash: &H256,
) -> Result<VerifiedReceipt, VerifyError> {
    expect_tx(proof, hash)?;
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

/// Verifies one proof of any kind against what was asked; the request, not the proof, decides
/// which record is expected.
pub fn verify_proof(proof: &ProofInfo, identity: &Identity, requested: &Requested) -> Result<Verified, VerifyError> {
    match (requested, proof) {
        (Requested::Account(address), ProofInfo::State(state)) => {
            verify_account(state, identity, address).map(Verified::Account)
        }
        (Requested::Actor(_), ProofInfo::State(state)) => {
            verify_state_proof(state, identity, requested).map(Verified::Actor)
        }
        (Requested::Storage(..), ProofInfo::State(state)) => {
            verify_state_proof(state, identity, requested).map(Verified::Storage)
        }
        (Requested::Tx(hash), ProofInfo::Inclusion(inclusion)) => {
            verify_tx(inclusion, identity, hash).map(Verified::Tx)
        }
        (Requested::Receipt(hash), ProofInfo::Inclusion(inclusion)) => {
            verify_receipt(inclusion, identity, hash).map(Verified::Receipt)
        }
        (_, ProofInfo::State(state)) => {
            Err(VerifyError::WrongKind { expected: requested.kind_name(), actual: state_kind_name(state.kind) })
        }
        (_, ProofInfo::Inclusion(inclusion)) => {
            Err(VerifyError::WrongKind { expected: requested.kind_name(), actual: inclusion_kind_name(inclusion.kind) })
        }
    }
}

/// Verifies a `/proof/multi` answer against the requests it answers (the list sent to the
/// node): one result per request, in order, each bound to its request. An item the node refused
/// is a [`VerifyError::Refused`], one it left out [`VerifyError::Unanswered`], a proof answering
/// a request that names no record [`VerifyError::InvalidRequest`]; items beyond the requests
/// answer nothing asked and are ignored.
pub fn verify_multi(
    response: &MultiProofResponse,
    identity: &Identity,
    requests: &[ProofRequest],
) -> Vec<Result<Verified, VerifyError>> {
    requests
        .iter()
        .enumerate()
        .map(|(i, request)| match response.results.get(i) {
            Some(MultiProofItem::Proof(proof)) => {
                let requested = Requested::from_request(request).map_err(VerifyError::InvalidRequest)?;
                verify_proof(proof, identity, &requested)
            }
            Some(MultiProofItem::Error(body)) => {
                Err(VerifyError::Refused { code: body.code, error: body.error.clone(), message: body.message.clone() })
            }
            None => Err(VerifyError::Unanswered { answered: response.results.len(), requested: requests.len() }),
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
        assert!(matches!(
            verify_account(&proof, &identity, &Address([1; 20])),
            Err(VerifyError::CertificateEncoding(_))
        ));
        proof.finalization = "0x0102".to_owned();
        assert!(matches!(
            verify_account(&proof, &identity, &Address([1; 20])),
            Err(VerifyError::Certificate(CertificateError::Malformed(_)))
        ));
        let actor = state_proof(StateProofKind::Actor);
        assert_eq!(
            verify_account(&actor, &identity, &Address([1; 20])),
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
            verify_receipt(
                &InclusionProofInfo { kind: InclusionProofKind::Tx, ..receipt.clone() },
                &identity,
                &H256::ZERO
            ),
            Err(VerifyError::WrongKind { .. })
        ));
        // A transaction whose bytes do not hash to the asked hash is refused first.
        let tx = InclusionProofInfo { kind: InclusionProofKind::Tx, ..receipt };
        assert!(matches!(verify_tx(&tx, &identity, &H256::ZERO), Err(VerifyError::RecordMismatch(_))));
        // A proof of another transaction than the one asked for is refused whatever it carries.
        let asked = H256([7; 32]);
        assert_eq!(
            verify_tx(&tx, &identity, &asked),
            Err(VerifyError::WrongTx { expected: asked, proven: H256::ZERO })
        );
        assert_eq!(
            verify_receipt(&InclusionProofInfo { kind: InclusionProofKind::Receipt, ..tx }, &identity, &asked),
            Err(VerifyError::WrongTx { expected: asked, proven: H256::ZERO })
        );
    }

    #[test]
    fn the_request_not_the_proof_decides_the_kind() {
        let identity = identity();
        let account = ProofInfo::State(state_proof(StateProofKind::Account));
        assert_eq!(
            verify_proof(&account, &identity, &Requested::Actor(Address([1; 20]))),
            Err(VerifyError::WrongKind { expected: "actor", actual: "account" })
        );
        assert_eq!(
            verify_proof(&account, &identity, &Requested::Tx(H256::ZERO)),
            Err(VerifyError::WrongKind { expected: "tx", actual: "account" })
        );
    }

    #[test]
    fn requests_serialize_as_the_multi_proof_body_items_and_parse_back() {
        let address = Address([0xab; 20]);
        let requested = Requested::Storage(address, vec![0x01, 0x02]);
        let storage = requested.to_request();
        assert_eq!(Requested::from_request(&storage), Ok(requested));
        assert_eq!(
            serde_json::to_value(&storage).unwrap(),
            serde_json::json!({"kind": "storage", "address": address.to_string(), "key": "0x0102"})
        );
        let receipt = Requested::Receipt(H256([3; 32])).to_request();
        assert_eq!(
            serde_json::to_value(&receipt).unwrap(),
            serde_json::json!({"kind": "receipt", "tx_hash": H256([3; 32]).to_string()})
        );
        let bad = ProofRequest { kind: "balance".to_owned(), ..storage };
        assert!(Requested::from_request(&bad).is_err());
        // A proof answering a request that names nothing is refused, not matched to a guess.
        let response = MultiProofResponse {
            results: vec![MultiProofItem::Proof(ProofInfo::State(state_proof(StateProofKind::Account)))],
        };
        assert!(matches!(&verify_multi(&response, &identity(), &[bad])[..], [Err(VerifyError::InvalidRequest(_))]));
    }

    #[test]
    fn refused_multi_items_stay_errors_in_place() {
        let body = ErrorBody { code: 3001, error: "invalid_address".to_owned(), message: "bad".to_owned() };
        let response = MultiProofResponse { results: vec![MultiProofItem::Error(body)] };
        let requests = [Requested::Account(Address([1; 20])).to_request(), Requested::Tx(H256::ZERO).to_request()];
        let results = verify_multi(&response, &identity(), &requests);
        assert!(matches!(
            &results[..],
            [Err(VerifyError::Refused { code: 3001, .. }), Err(VerifyError::Unanswered { answered: 1, requested: 2 })]
        ));
    }
}

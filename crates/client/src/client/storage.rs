//! Storage relays: the client's methods for the routes of `drover-rpc`'s `routes::storage`.

use super::Client;
use crate::error::ClientError;
use crate::storage_auth::StorageSigner;
use drover_types::{
    Address, ErrorCode, H256, Transaction,
    api::{
        BillingSummary, RasAccountBalance, RasChallenge, RasMe, RasStats, RasTransactionRequest, RelayList,
        RevocationInfo, SubmitResponse, VolumeInfo, VolumeList, paths, paths::fill,
    },
};
use reqwest::header::CONTENT_TYPE;
use serde::de::DeserializeOwned;

/// Media type of a JSON request body.
const JSON_MEDIA_TYPE: &str = "application/json";

impl Client {
    /// `GET /ras/challenge`: the chain id and audience a delegation token names, and the node's
    /// clock.
    pub async fn storage_challenge(&self) -> Result<RasChallenge, ClientError> {
        self.get(paths::RAS_CHALLENGE).await
    }

    /// `GET /ras/stats`: the storage relays' and volumes' totals.
    pub async fn storage_stats(&self) -> Result<RasStats, ClientError> {
        self.get(paths::RAS_STATS).await
    }

    /// `GET /ras/relays/public?offset=&limit=`: one page of the publicly listed relays.
    pub async fn storage_public_relays(&self, offset: u64, limit: u64) -> Result<RelayList, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", paths::RAS_RELAYS_PUBLIC)).await
    }

    /// `GET /ras/write-relayers?offset=&limit=`: one page of the relays a new volume can go to.
    pub async fn storage_write_relayers(&self, offset: u64, limit: u64) -> Result<RelayList, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", paths::RAS_WRITE_RELAYERS)).await
    }

    /// `GET /ras/billing/summary`: the volumes' totals.
    pub async fn storage_billing_summary(&self) -> Result<BillingSummary, ClientError> {
        self.get(paths::RAS_BILLING_SUMMARY).await
    }

    /// `GET /ras/revocations/{wallet}/{session_key}`: whether `wallet` revoked `session_key`.
    pub async fn storage_revocation(
        &self,
        wallet: &Address,
        session_key: &[u8; 33],
    ) -> Result<RevocationInfo, ClientError> {
        self.get(&fill(paths::RAS_REVOCATION, &[wallet, &format!("0x{}", hex::encode(session_key))])).await
    }

    /// A request to an owner route, signed by `signer`'s session (`path` is what the node routes,
    /// query included, and is what is signed).
    async fn storage_send<T: DeserializeOwned>(
        &self,
        signer: &StorageSigner,
        method: reqwest::Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<T, ClientError> {
        let url = self.url(path);
        let bytes = body.as_deref().unwrap_or_default();
        let headers = signer.headers(method.as_str(), path, bytes);
        let mut request = self.http.request(method, &url);
        for (name, value) in headers.pairs() {
            request = request.header(name, value);
        }
        if let Some(body) = body {
            request = request.header(CONTENT_TYPE, JSON_MEDIA_TYPE).body(body);
        }
        self.send_json(&url, request).await
    }

    /// `GET /ras/auth/me`: whom `signer`'s requests authenticate as.
    pub async fn storage_me(&self, signer: &StorageSigner) -> Result<RasMe, ClientError> {
        self.storage_send(signer, reqwest::Method::GET, paths::RAS_AUTH_ME, None).await
    }

    /// `GET /ras/accounts/balance`: the wallet's balance and what its volumes hold and cost.
    pub async fn storage_balance(&self, signer: &StorageSigner) -> Result<RasAccountBalance, ClientError> {
        self.storage_send(signer, reqwest::Method::GET, paths::RAS_ACCOUNT_BALANCE, None).await
    }

    /// `GET /ras/volumes?offset=&limit=`: one page of the wallet's volumes.
    pub async fn storage_volumes(
        &self,
        signer: &StorageSigner,
        offset: u64,
        limit: u64,
    ) -> Result<VolumeList, ClientError> {
        let path = format!("{}?offset={offset}&limit={limit}", paths::RAS_VOLUMES);
        self.storage_send(signer, reqwest::Method::GET, &path, None).await
    }

    /// `GET /ras/volumes/{volume_id}`: a volume the wallet owns or holds as its relay; `None`
    /// otherwise (9103: unknown, or someone else's).
    pub async fn storage_volume(
        &self,
        signer: &StorageSigner,
        volume: &H256,
    ) -> Result<Option<VolumeInfo>, ClientError> {
        let path = fill(paths::RAS_VOLUME, &[volume]);
        match self.storage_send(signer, reqwest::Method::GET, &path, None).await {
            Ok(info) => Ok(Some(info)),
            Err(err) if err.is_not_found_with(&[ErrorCode::RasVolumeNotFound]) => Ok(None),
            Err(err) => Err(err),
        }
    }

    async fn storage_transaction(
        &self,
        signer: &StorageSigner,
        path: &str,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        // A record of one base64 string always serializes.
        let body = serde_json::to_vec(&RasTransactionRequest { transaction_base64: tx.encode() }).unwrap_or_default();
        self.storage_send(signer, reqwest::Method::POST, path, Some(body)).await
    }

    /// `POST /ras/volumes`: the wallet's signed `create` (build it with
    /// [`TxBuilder::storage`](crate::TxBuilder::storage)); answers like [`Client::submit`].
    pub async fn storage_create_volume(
        &self,
        signer: &StorageSigner,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        self.storage_transaction(signer, paths::RAS_VOLUMES, tx).await
    }

    /// `POST /ras/volumes/{volume_id}/delete`: the owner's signed `delete` of `volume`.
    pub async fn storage_delete_volume(
        &self,
        signer: &StorageSigner,
        volume: &H256,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        self.storage_transaction(signer, &fill(paths::RAS_VOLUME_DELETE, &[volume]), tx).await
    }

    /// `POST /ras/volumes/{volume_id}/undelete`: the owner's signed `undelete` of `volume`.
    pub async fn storage_undelete_volume(
        &self,
        signer: &StorageSigner,
        volume: &H256,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        self.storage_transaction(signer, &fill(paths::RAS_VOLUME_UNDELETE, &[volume]), tx).await
    }

    /// `POST /ras/volumes/{volume_id}/deposit`: the wallet's signed `deposit` to `volume`.
    pub async fn storage_deposit(
        &self,
        signer: &StorageSigner,
        volume: &H256,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        self.storage_transaction(signer, &fill(paths::RAS_VOLUME_DEPOSIT, &[volume]), tx).await
    }

    /// `POST /ras/revoke`: the wallet's signed `revoke` of a session key.
    pub async fn storage_revoke(
        &self,
        signer: &StorageSigner,
        tx: &Transaction,
    ) -> Result<SubmitResponse, ClientError> {
        self.storage_transaction(signer, paths::RAS_REVOKE, tx).await
    }
}

//! Chain: the client's methods for the routes of `drover-rpc`'s `routes::chain`.

use super::Client;
use crate::builder::FeeSuggestion;
use crate::error::ClientError;
use drover_types::api::{BasefeeInfo, ChainInfo, paths};

impl Client {
    /// `GET /chain-info`.
    pub async fn chain_info(&self) -> Result<ChainInfo, ClientError> {
        self.get(paths::CHAIN_INFO).await
    }

    /// `GET /basefee`: basefees of the next block and suggested fees (decimal strings).
    pub async fn basefee(&self) -> Result<BasefeeInfo, ClientError> {
        self.get(paths::BASEFEE).await
    }

    /// `GET /basefee`, parsed into the fee values a [`crate::TxBuilder`] falls back on.
    pub async fn fee_suggestion(&self) -> Result<FeeSuggestion, ClientError> {
        let info = self.basefee().await?;
        FeeSuggestion::from_basefee(&info).map_err(|e| ClientError::UnexpectedResponse {
            url: self.url(paths::BASEFEE),
            status: 200,
            reason: e.to_string(),
        })
    }
}

//! Faucet: the client's methods for the routes of `drover-rpc`'s `routes::faucet`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    Address,
    api::{FaucetRequest, FaucetResponse, paths},
};

impl Client {
    /// `POST /faucet` (development networks): funds `address`. A node without a faucet
    /// answers 404 with code 8000, a chain other than 1 or 100 answers 403 with code 8001.
    pub async fn faucet(&self, address: &Address) -> Result<FaucetResponse, ClientError> {
        let url = self.url(paths::FAUCET);
        self.send_json(&url, self.http.post(&url).json(&FaucetRequest { address: *address })).await
    }
}

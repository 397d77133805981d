//! Simulation: the client's method for `drover-rpc`'s `routes::simulate` (`POST /simulate`).
//! [`crate::TxBuilder::estimate`] sizes a transaction's limits with it.

use super::Client;
use crate::error::ClientError;
use drover_types::api::{SimulateRequest, SimulationInfo, paths};

impl Client {
    /// `POST /simulate`: what a transaction would do at the tip, and limits to send it with.
    pub async fn simulate(&self, request: &SimulateRequest) -> Result<SimulationInfo, ClientError> {
        let url = self.url(paths::SIMULATE);
        self.send_json(&url, self.http.post(&url).json(request)).await
    }
}

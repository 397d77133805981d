//! Health and metrics: the client's methods for the routes of `drover-rpc`'s `routes::health`.

use super::Client;
use crate::error::ClientError;
use drover_types::api::{HealthDetailed, Liveness, paths};

impl Client {
    /// `GET /health`: liveness.
    pub async fn health(&self) -> Result<Liveness, ClientError> {
        self.get(paths::HEALTH).await
    }

    /// `GET /health/detailed`: component health, height, mempool figures.
    pub async fn health_detailed(&self) -> Result<HealthDetailed, ClientError> {
        self.get(paths::HEALTH_DETAILED).await
    }

    /// `GET /health/ready`: the same record as [`Client::health_detailed`], for readiness probes.
    pub async fn health_ready(&self) -> Result<HealthDetailed, ClientError> {
        self.get(paths::HEALTH_READY).await
    }

    /// `GET /metrics`: Prometheus text.
    pub async fn metrics(&self) -> Result<String, ClientError> {
        let url = self.url(paths::METRICS);
        let (status, body) = self.send(&url, self.http.get(&url)).await?;
        String::from_utf8(body).map_err(|_| ClientError::UnexpectedResponse {
            url,
            status,
            reason: "metrics are not UTF-8 text".to_owned(),
        })
    }
}

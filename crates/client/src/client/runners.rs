//! Runners: the client's methods for the routes of `drover-rpc`'s `routes::runners`.

use super::Client;
use crate::error::ClientError;
use drover_types::{
    Address, ErrorCode, H256,
    api::{
        DelegationList, RunnerInfo, RunnerJobList, RunnerList, SignedFlowPayload, SignedFlowRequest, SubmitResponse,
        paths, paths::fill,
    },
};

impl Client {
    /// `GET /runners/active?offset=&limit=`: one page of healthy runners.
    pub async fn active_runners(&self, offset: u64, limit: u64) -> Result<RunnerList, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", paths::RUNNERS_ACTIVE)).await
    }

    /// `GET /runner/{address}`; `None` for an address that never registered.
    pub async fn runner(&self, address: &Address) -> Result<Option<RunnerInfo>, ClientError> {
        self.get_optional(&fill(paths::RUNNER, &[address]), ErrorCode::RunnerNotFound).await
    }

    /// `GET /runner/{address}/heartbeat_payload`: the heartbeat transaction the node built for
    /// the runner, and the message to sign.
    pub async fn heartbeat_payload(&self, runner: &Address) -> Result<SignedFlowPayload, ClientError> {
        self.get(&fill(paths::RUNNER_HEARTBEAT_PAYLOAD, &[runner])).await
    }

    /// `POST /runner/{address}/heartbeat`: the flow's transaction with the runner's signature;
    /// answers like [`Client::submit`].
    pub async fn post_heartbeat(
        &self,
        runner: &Address,
        request: &SignedFlowRequest,
    ) -> Result<SubmitResponse, ClientError> {
        let url = self.url(&fill(paths::RUNNER_HEARTBEAT, &[runner]));
        self.send_json(&url, self.http.post(&url).json(request)).await
    }

    /// `GET /runner/{address}/jobs?offset=&limit=`: one page of the jobs the runner is assigned
    /// to and has not answered.
    pub async fn runner_jobs(&self, runner: &Address, offset: u64, limit: u64) -> Result<RunnerJobList, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", fill(paths::RUNNER_JOBS, &[runner]))).await
    }

    /// `GET /runner/{address}/job_result_payload`: the result transaction the node built for the
    /// runner, and the message to sign.
    pub async fn job_result_payload(
        &self,
        runner: &Address,
        job: &H256,
        result: &[u8],
    ) -> Result<SignedFlowPayload, ClientError> {
        use base64::Engine as _;
        let url = self.url(&fill(paths::RUNNER_JOB_RESULT_PAYLOAD, &[runner]));
        let result = base64::engine::general_purpose::STANDARD.encode(result);
        // The query builder percent-encodes `+`, `/` and `=` of the base64.
        let request = self.http.get(&url).query(&[("job_id", job.to_string()), ("result_base64", result)]);
        self.send_json(&url, request).await
    }

    /// `POST /runner/{address}/job_result`: the flow's transaction with the runner's signature;
    /// answers like [`Client::submit`].
    pub async fn post_job_result(
        &self,
        runner: &Address,
        request: &SignedFlowRequest,
    ) -> Result<SubmitResponse, ClientError> {
        let url = self.url(&fill(paths::RUNNER_JOB_RESULT, &[runner]));
        self.send_json(&url, self.http.post(&url).json(request)).await
    }

    /// `GET /account/{address}/delegations?offset=&limit=`: one page of an account's delegations.
    pub async fn delegations(&self, address: &Address, offset: u64, limit: u64) -> Result<DelegationList, ClientError> {
        self.get(&format!("{}?offset={offset}&limit={limit}", fill(paths::ACCOUNT_DELEGATIONS, &[address]))).await
    }
}

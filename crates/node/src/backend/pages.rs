//! Pages of an actor's entries: by key range in the state (storage, mailbox, timers, upgrade
//! history) and by position in the indexes (logs, system runs).

use super::handle::NodeHandle;
use crate::error::NodeError;
use drover_state::keys;
use drover_types::{Address, ErrorCode, error::ApiError};

// The HTTP layer checks cursor lengths before the indexes see them.
/// One decoded record of the latest applied state, if present.
pub(super) async fn read_record<T>(
    db: &crate::databases::StateDb<commonware_runtime::tokio::Context>,
    key: &Vec<u8>,
    decode: impl FnOnce(&[u8]) -> Result<T, drover_state::RecordError>,
) -> Result<Option<T>, drover_types::error::ApiError> {
    let bytes = db.get(key).await.map_err(crate::error::NodeError::from)?;
    Ok(bytes.map(|bytes| decode(&bytes)).transpose().map_err(crate::error::NodeError::from)?)
}

/// The decoded record under the storage entry `user_key` of the system actor `actor`, if
/// present: how every family's records are read.
pub(super) async fn read_storage<T>(
    db: &crate::databases::StateDb<commonware_runtime::tokio::Context>,
    actor: &drover_types::Address,
    user_key: &[u8],
    decode: impl FnOnce(&[u8]) -> Result<T, drover_state::RecordError>,
) -> Result<Option<T>, drover_types::error::ApiError> {
    read_record(db, &drover_state::keys::storage_key(actor, user_key), decode).await
}

/// Up to `limit` records of the committed state in the key range `range`, after the key
/// `after` (from the start of the range when `None`), in key order; `own` names the records of
/// the range's owner (a range can hold another owner's record whose spread collides, which is
/// skipped). Also says whether more follow.
pub(super) async fn scan<E, T>(
    db: &crate::databases::StateDb<E>,
    range: &[u8],
    after: Option<Vec<u8>>,
    limit: u64,
    own: impl Fn(&[u8], Vec<u8>) -> Option<T>,
) -> Result<(Vec<T>, bool), commonware_storage::qmdb::Error<commonware_storage::mmr::Family>>
where
    E: commonware_runtime::Spawner + commonware_storage::Context,
{
    use futures::StreamExt as _;
    use std::ops::Bound;
    let start = match after {
        Some(after) => Bound::Excluded(after),
        None => Bound::Included(range.to_vec()),
    };
    // One record past the page says whether another page follows.
    let wanted = usize::try_from(limit).unwrap_or(usize::MAX).saturating_add(1);
    let mut stream = Box::pin(db.stream_range((start, Bound::Unbounded)));
    let mut records = Vec::new();
    while records.len() < wanted {
        let Some(entry) = stream.next().await else { break };
        let (key, value) = entry?;
        if !key.starts_with(range) {
            break;
        }
        records.extend(own(&key, value));
    }
    let more = records.len() == wanted;
    records.truncate(wanted - 1);
    Ok((records, more))
}

impl NodeHandle {
    /// A page of an actor's entries in an index whose cursors are `N`-byte positions, with the
    /// next page's cursor (`None`: no actor there).
    pub(super) async fn index_page<const N: usize, T>(
        &self,
        address: Address,
        after: Option<Vec<u8>>,
        limit: u64,
        fetch: impl FnOnce(Option<[u8; N]>, usize) -> Result<(Vec<T>, bool), crate::indexes::IndexError>,
        position: impl Fn(&T) -> [u8; N],
    ) -> Result<Option<(Vec<T>, Option<String>)>, ApiError> {
        if self.read_keys([keys::actor_key(&address)]).await?[0].is_none() {
            return Ok(None);
        }
        let after = after
            .map(|bytes| <[u8; N]>::try_from(bytes.as_slice()))
            .transpose()
            .map_err(|_| ApiError::new(ErrorCode::BadRequest, format!("this cursor is {N} bytes")))?;
        let (entries, more) = fetch(after, usize::try_from(limit).unwrap_or(usize::MAX)).map_err(NodeError::from)?;
        let next_cursor = more.then(|| entries.last().map(|e| format!("0x{}", hex::encode(position(e))))).flatten();
        Ok(Some((entries, next_cursor)))
    }
}

//! Mailbox records under `0x04`: one global FIFO queue of messages, a per-recipient index for
//! listing, and per-recipient usage for the byte capacity.
//!
//! Messages are numbered by one global sequence, so delivering "FIFO per actor" is delivering
//! the global queue in order, and the keys of the next messages to deliver follow from the
//! queue record alone (no range read): `head..tail`.
//!
//! - [`MailQueue`] `[head, tail]` at `0x04 ‖ 0x00`: next sequence to deliver, next to assign.
//! - [`MessageRecord`] at `0x04 ‖ 0x01 ‖ seq(8, BE)`.
//! - an index marker (CBOR `null`) at `0x04 ‖ 0x02 ‖ spread6(recipient) ‖ seq(8, BE) ‖ recipient`
//!   (see [`crate::keys::mailbox_entry_key`]) for listing one
//!   actor's pending messages with a prefix scan.
//! - [`MailboxUsage`] `[count, bytes]` at `0x04 ‖ 0x03 ‖ spread14(recipient) ‖ recipient`.

use crate::RecordError;
use drover_types::{
    Address,
    cbor::{Writer, decode_fixed, decode_strict, decode_u128, expect_array},
};

/// The global message queue: messages `head..tail` are pending.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MailQueue {
    /// Sequence number of the next message to deliver.
    pub head: u64,
    /// Sequence number the next message sent will get; equal to `head` when the queue is empty.
    pub tail: u64,
}

impl MailQueue {
    /// Whether no message is pending.
    pub fn is_empty(&self) -> bool {
        self.head == self.tail
    }

    /// Canonical CBOR `[head, tail]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(19);
        w.array(2).uint(self.head).uint(self.tail);
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one queue record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 2)?;
            Ok(MailQueue { head: d.u64()?, tail: d.u64()? })
        })?)
    }
}

/// A message waiting for delivery, with the budget its sender bought.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageRecord {
    /// The sending actor, which paid for the delivery.
    pub from: Address,
    /// The recipient actor.
    pub to: Address,
    /// Name of the recipient's handler to run.
    pub handler: String,
    /// Input bytes passed to the handler.
    pub payload: Vec<u8>,
    /// Value escrowed from the sender: the recipient gets it if the delivery succeeds, the
    /// sender gets it back otherwise.
    pub value: u128,
    /// Cycles budget of the delivery.
    pub cycles_limit: u64,
    /// Amount escrowed from the sender to pay for the delivery; what the delivery does not use
    /// goes back to the sender.
    pub prepaid: u128,
    /// Basefees of the sending block: the delivery is priced at them (the sender bought the
    /// budget then), so the prepaid amount always covers it.
    pub basefee_cycle: u128,
    /// Cell basefee of the sending block, per cell (see `basefee_cycle`).
    pub basefee_cell: u128,
}

impl MessageRecord {
    /// Bytes the message counts against the recipient's mailbox capacity.
    pub fn size_bytes(&self) -> u64 {
        (self.handler.len() + self.payload.len()) as u64
    }

    /// Canonical CBOR `[from, to, handler, payload, value, cycles_limit, prepaid, basefee_cycle,
    /// basefee_cell]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(self.handler.len() + self.payload.len() + 128);
        w.array(9)
            .bytes(&self.from.0)
            .bytes(&self.to.0)
            .text(&self.handler)
            .bytes(&self.payload)
            .u128(self.value)
            .uint(self.cycles_limit)
            .u128(self.prepaid)
            .u128(self.basefee_cycle)
            .u128(self.basefee_cell);
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one message record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 9)?;
            Ok(MessageRecord {
                from: Address(decode_fixed(d)?),
                to: Address(decode_fixed(d)?),
                handler: d.str()?.to_owned(),
                payload: d.bytes()?.to_vec(),
                value: decode_u128(d)?,
                cycles_limit: d.u64()?,
                prepaid: decode_u128(d)?,
                basefee_cycle: decode_u128(d)?,
                basefee_cell: decode_u128(d)?,
            })
        })?)
    }
}

/// One recipient's pending messages: how many and their handler + payload bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MailboxUsage {
    /// Number of pending messages.
    pub count: u64,
    /// Handler and payload bytes of the pending messages, counted against the mailbox capacity.
    pub bytes: u64,
}

impl MailboxUsage {
    /// Whether the recipient has no pending message (and so the record must not be stored).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Canonical CBOR `[count, bytes]`.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::with_capacity(19);
        w.array(2).uint(self.count).uint(self.bytes);
        w.into_inner()
    }

    /// Strict decode: exactly the canonical encoding of one usage record.
    pub fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        Ok(decode_strict(bytes, |d| {
            expect_array(d, 2)?;
            Ok(MailboxUsage { count: d.u64()?, bytes: d.u64()? })
        })?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let queue = MailQueue { head: 3, tail: 9 };
        assert_eq!(MailQueue::decode(&queue.encode()), Ok(queue));
        let usage = MailboxUsage { count: 1, bytes: 70_000 };
        assert_eq!(MailboxUsage::decode(&usage.encode()), Ok(usage));
        let message = MessageRecord {
            from: Address([1; 20]),
            to: Address([2; 20]),
            handler: "ping".into(),
            payload: vec![1, 2, 3],
            value: u128::MAX,
            cycles_limit: 1_000_000,
            prepaid: 5,
            basefee_cycle: 1,
            basefee_cell: 1 << 70,
        };
        assert_eq!(message.size_bytes(), 7);
        assert_eq!(MessageRecord::decode(&message.encode()), Ok(message));
        assert!(MessageRecord::decode(&queue.encode()).is_err());
        assert!(MailQueue::decode(&[0x82, 0x01]).is_err());
    }
}

/**
 * The runners' signed flows (`docs/runners.md`, "Signed flows"). The node builds the transaction
 * (`GET /runner/{address}/heartbeat_payload` or `/job_result_payload`) and answers its unsigned
 * canonical bytes and `message_to_sign_base64`, keccak256 of those bytes. Before signing, the
 * runner checks that the transaction is the call it asked for (destination, Message, no value,
 * no signature) and that the message is its signing hash, so a node cannot make it sign anything
 * else; then it posts `{unsigned_transaction_base64, signature: "0x" + r ‖ s ‖ v}`.
 */
import { equalBytes, fromBase64, toHex } from './bytes.js';
import { type SystemCall, jobs, runners } from './calls.js';
import type { Wallet } from './keys.js';
import { type Transaction, decodeTransaction, encodeUnsigned, signingHash } from './transaction.js';
import type { Hash } from './bytes.js';
import type { BytesLike } from './bytes.js';

/** What a `*_payload` route answers. */
export interface SignedFlowPayload {
  message_to_sign_base64: string;
  unsigned_transaction_base64: string;
  nonce: number;
}

/** What the flow's POST takes. */
export interface SignedFlowSubmission {
  unsigned_transaction_base64: string;
  signature: string;
}

/**
 * Checks that `payload` is the unsigned transaction of `expected` (its destination and Message,
 * no value) and that its message is the signing hash; answers the transaction.
 */
export function checkFlowPayload(payload: SignedFlowPayload, expected: SystemCall): Transaction {
  const bytes = fromBase64(payload.unsigned_transaction_base64);
  const tx = decodeTransaction(bytes);
  if (tx.signature !== null) throw new Error('the node sent a signed transaction');
  if (!equalBytes(encodeUnsigned(tx), bytes)) throw new Error('the node sent a non-canonical transaction');
  if (tx.to !== expected.to) throw new Error(`the transaction goes to ${tx.to}, not to ${expected.to}`);
  if (tx.value !== 0n) throw new Error('the transaction carries a value');
  if (!equalBytes(tx.payload, expected.payload)) throw new Error(`the transaction is not the ${expected.handler} asked for`);
  if (!equalBytes(fromBase64(payload.message_to_sign_base64), signingHash(tx))) {
    throw new Error('message_to_sign_base64 is not the transaction\'s signing hash');
  }
  return tx;
}

/** Checks a flow payload against `expected` and signs it for the POST. */
export function signFlowPayload(payload: SignedFlowPayload, expected: SystemCall, runner: Wallet): SignedFlowSubmission {
  const tx = checkFlowPayload(payload, expected);
  return { unsigned_transaction_base64: payload.unsigned_transaction_base64, signature: toHex(runner.signHashFlat(signingHash(tx))) };
}

/** The call a heartbeat flow must carry. */
export function heartbeatCall(): SystemCall {
  return runners.heartbeat();
}

/** The call a job-result flow must carry. */
export function jobResultCall(job: Hash, result: BytesLike): SystemCall {
  return jobs.submitResult(job, result);
}

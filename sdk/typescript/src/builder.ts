/**
 * Building transactions: what the caller chose, completed from the chain (as the Rust
 * `TxBuilder`). A {@link TxRequest} fixes the destination, value, payload and limits, and may fix
 * chain id, nonce and fees; whatever it leaves open comes from a {@link TxContext}: chain id from
 * `/chain-info`, nonce from `/account` (0 for an address without state), fees from `/basefee`.
 *
 * Fee rules per meter (cycles and cells): an unset max fee is the suggested max fee, raised to the
 * tip if a larger tip was set; an unset tip is the suggested tip, capped at the max fee. A tip above
 * the max fee is refused, as is a transaction whose worst-case cost overflows 128 bits.
 */
import type { Address } from './bytes.js';
import { ACTOR_RECORD_CELLS, DEPLOY_CYCLES_PER_PAYLOAD_BYTE, TRANSFER_CYCLES, type SystemCall } from './calls.js';
import { type Deploy, type Message, type Upgrade, SYSTEM, encodeDeploy, encodeMessage, encodeUpgradeMessage } from './payload.js';
import { type Transaction, maxCost } from './transaction.js';

/** Cycles limit of an actor call or deploy when the caller sets none (as the CLI's default). */
export const ACTOR_CYCLES_LIMIT_DEFAULT = 5_000_000n;
/** Cells limit of an actor call or deploy when the caller sets none (as the CLI's default). */
export const ACTOR_CELLS_LIMIT_DEFAULT = 400_000n;

/** What a transaction is; unset fields come from the context. */
export interface TxRequest {
  to: Address | null;
  value?: bigint;
  payload?: Uint8Array;
  cyclesLimit?: bigint;
  cellsLimit?: bigint;
  chainId?: bigint;
  nonce?: bigint;
  maxFeePerCycle?: bigint;
  maxFeePerCell?: bigint;
  tipPerCycle?: bigint;
  tipPerCell?: bigint;
}

/** Fee values for the fee fields a request leaves unset (from `/basefee`). */
export interface FeeSuggestion {
  maxFeePerCycle: bigint;
  maxFeePerCell: bigint;
  tipPerCycle: bigint;
  tipPerCell: bigint;
}

/** The chain's values for everything a request may leave open. */
export interface TxContext {
  chainId: bigint;
  nonce: bigint;
  fees: FeeSuggestion;
}

/** Whether building `request` needs the node's fee suggestions. */
export function needsFees(request: TxRequest): boolean {
  return [request.maxFeePerCycle, request.maxFeePerCell, request.tipPerCycle, request.tipPerCell].includes(undefined);
}

function meterFees(meter: string, maxFee: bigint | undefined, tip: bigint | undefined, suggestedMax: bigint, suggestedTip: bigint): [bigint, bigint] {
  const max = maxFee ?? (suggestedMax > (tip ?? 0n) ? suggestedMax : tip ?? 0n);
  const chosenTip = tip ?? (suggestedTip < max ? suggestedTip : max);
  if (chosenTip > max) throw new Error(`tip per ${meter} (${chosenTip}) is above the max fee per ${meter} (${max})`);
  return [max, chosenTip];
}

/** The unsigned transaction of `request`, with unset fields taken from `context`. */
export function buildTransaction(request: TxRequest, context: TxContext): Transaction {
  const [maxFeePerCycle, tipPerCycle] = meterFees('cycle', request.maxFeePerCycle, request.tipPerCycle, context.fees.maxFeePerCycle, context.fees.tipPerCycle);
  const [maxFeePerCell, tipPerCell] = meterFees('cell', request.maxFeePerCell, request.tipPerCell, context.fees.maxFeePerCell, context.fees.tipPerCell);
  const tx: Transaction = {
    chainId: request.chainId ?? context.chainId,
    nonce: request.nonce ?? context.nonce,
    to: request.to,
    value: request.value ?? 0n,
    cyclesLimit: request.cyclesLimit ?? TRANSFER_CYCLES,
    cellsLimit: request.cellsLimit ?? 0n,
    maxFeePerCycle,
    maxFeePerCell,
    tipPerCycle,
    tipPerCell,
    payload: request.payload ?? new Uint8Array(),
    signature: null,
  };
  maxCost(tx);
  return tx;
}

/** A value transfer: empty payload, 21,000 cycles, no cells. */
export function transferRequest(to: Address, value: bigint): TxRequest {
  return { to, value, cyclesLimit: TRANSFER_CYCLES, cellsLimit: 0n };
}

/** A system-actor call with the limits that cover it, carrying `value` where the call takes one. */
export function systemCallRequest(call: SystemCall, value = 0n): TxRequest {
  if (value !== 0n && !call.takesValue) throw new Error(`${call.handler} takes no value`);
  return { to: call.to, value, payload: call.payload, cyclesLimit: call.cyclesLimit, cellsLimit: call.cellsLimit };
}

/** A Message to an actor; the limits default to the CLI's (5,000,000 cycles, 400,000 cells). */
export function actorCallRequest(actor: Address, message: Message, options: { value?: bigint; cyclesLimit?: bigint; cellsLimit?: bigint } = {}): TxRequest {
  return {
    to: actor,
    value: options.value ?? 0n,
    payload: encodeMessage(message),
    cyclesLimit: options.cyclesLimit ?? ACTOR_CYCLES_LIMIT_DEFAULT,
    cellsLimit: options.cellsLimit ?? ACTOR_CELLS_LIMIT_DEFAULT,
  };
}

/** The intrinsic cost of installing code (a deploy or an upgrade) with a payload of `payloadBytes`. */
export function installCost(payloadBytes: number): { cycles: bigint; cells: bigint } {
  const bytes = BigInt(payloadBytes);
  return { cycles: TRANSFER_CYCLES + bytes * DEPLOY_CYCLES_PER_PAYLOAD_BYTE, cells: bytes + ACTOR_RECORD_CELLS };
}

function installLimits(payload: Uint8Array, options: { cyclesLimit?: bigint; cellsLimit?: bigint }) {
  const cost = installCost(payload.length);
  const atLeast = (a: bigint, b: bigint) => (a > b ? a : b);
  return {
    cyclesLimit: options.cyclesLimit ?? atLeast(ACTOR_CYCLES_LIMIT_DEFAULT, cost.cycles + ACTOR_CYCLES_LIMIT_DEFAULT / 5n),
    cellsLimit: options.cellsLimit ?? atLeast(ACTOR_CELLS_LIMIT_DEFAULT, cost.cells + ACTOR_CELLS_LIMIT_DEFAULT / 5n),
  };
}

/** A deploy (`to` = null); limits cover the code's intrinsic cost with room for `init`. */
export function deployRequest(deploy: Deploy, options: { value?: bigint; cyclesLimit?: bigint; cellsLimit?: bigint } = {}): TxRequest {
  const payload = encodeDeploy(deploy);
  return { to: null, value: options.value ?? 0n, payload, ...installLimits(payload, options) };
}

/** An upgrade of an actor its sender owns (a Message to the actor-upgrades actor `0x…0e`). */
export function upgradeRequest(upgrade: Upgrade, options: { cyclesLimit?: bigint; cellsLimit?: bigint } = {}): TxRequest {
  const payload = encodeUpgradeMessage(upgrade);
  return { to: SYSTEM.actorUpgrades, value: 0n, payload, ...installLimits(payload, options) };
}

/**
 * Building transactions: what the caller chose, completed from the chain (as the Rust
 * `TxBuilder`). A {@link TxRequest} fixes the destination, value, payload and limits, and may fix
 * chain id, nonce and fees; whatever it leaves open comes from a {@link TxContext}: chain id from
 * `/chain-info`, nonce from `/account` (0 for an address without state), fees from `/basefee`.
 *
 * Fee rules per meter (cycles and cells): an unset max fee is the suggested max fee, raised to the
 * tip if a larger tip was set; an unset tip is the suggested tip, capped at the max fee. A tip above
 * the max fee is refused, as is a transaction whose worst-case cost overflows 128 bits.
 *
 * Limits: what a constructor or the caller sets, else what the node's simulation of the
 * transaction suggests (`DroverClient.estimate`: what it used plus a margin). A transfer and a
 * system-actor call know theirs; an actor call, a deploy and an upgrade leave them open unless
 * given. A request whose limits are still open does not build ({@link LimitsOpenError}): no guess
 * of ours can fit an actor call, and one too low fails on chain while one too high holds a block's
 * room. `DroverClient.prepare` and `send` do the whole round (context, simulation, signature).
 */
import { type Address, normalizeAddress, toBase64 } from './bytes.js';
import { TRANSFER_CYCLES, type SystemCall } from './calls.js';
import type { components } from './generated/openapi.js';
import { type Deploy, type Message, type Upgrade, SYSTEM, encodeDeploy, encodeMessage, encodeUpgradeMessage } from './payload.js';
import { type Transaction, maxCost } from './transaction.js';

/** A limit is neither set nor sized by a simulation (as the Rust `BuildError::LimitsOpen`). */
export class LimitsOpenError extends Error {
  constructor(
    /** The open limit's meter. */
    readonly meter: 'cycles' | 'cells',
  ) {
    super(`the ${meter} limit is open: set it, or size it with a simulation (DroverClient.estimate, prepare or send)`);
    this.name = 'LimitsOpenError';
  }
}

/**
 * What a transaction is. Unset chain id, nonce and fees come from the context; unset limits do
 * not (building refuses them, {@link LimitsOpenError}): a simulation sizes them
 * (`DroverClient.prepare`, `send`, `estimate`), or the caller sets them.
 */
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

/** Limits a caller may fix on an actor call, a deploy or an upgrade; those left out stay open. */
export interface LimitOptions {
  cyclesLimit?: bigint;
  cellsLimit?: bigint;
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

/** Whether both limits are set (by a constructor, the caller or an estimate). */
export function limitsSet(request: TxRequest): boolean {
  return request.cyclesLimit !== undefined && request.cellsLimit !== undefined;
}

/**
 * The unsigned transaction of `request`, with unset fields taken from `context`; its limits must be
 * set (by a constructor, the caller or `DroverClient.estimate`), else it throws
 * {@link LimitsOpenError}.
 */
export function buildTransaction(request: TxRequest, context: TxContext): Transaction {
  if (request.cyclesLimit === undefined) throw new LimitsOpenError('cycles');
  if (request.cellsLimit === undefined) throw new LimitsOpenError('cells');
  return buildWithLimits(request, context, request.cyclesLimit, request.cellsLimit);
}

/**
 * The `POST /simulate` request for `request` sent by `sender`, its fees and nonce as
 * {@link buildTransaction} gives them, its open limits left for the node to fill in.
 */
export function simulateRequest(request: TxRequest, sender: string, context: TxContext): components['schemas']['SimulateRequest'] {
  // Limits of 0 for the open ones only let it build (fees, cost); the request leaves them out.
  const tx = buildWithLimits(request, context, request.cyclesLimit ?? 0n, request.cellsLimit ?? 0n);
  return {
    from: normalizeAddress(sender),
    to: tx.to,
    value: tx.value,
    payload: toBase64(tx.payload),
    nonce: exactInteger(tx.nonce),
    ...(request.cyclesLimit === undefined ? {} : { cycles_limit: exactInteger(request.cyclesLimit) }),
    ...(request.cellsLimit === undefined ? {} : { cells_limit: exactInteger(request.cellsLimit) }),
    max_fee_per_cycle: tx.maxFeePerCycle,
    max_fee_per_cell: tx.maxFeePerCell,
    tip_per_cycle: tx.tipPerCycle,
    tip_per_cell: tx.tipPerCell,
  };
}

/**
 * A `u64` field of a request body, which the generated types call `number`: passed as the
 * `bigint` itself, which the body's JSON writer (`stringifyJson`) writes as the exact integer,
 * where `Number` would round a value above 2^53.
 */
function exactInteger(value: bigint): number {
  return value as unknown as number;
}

/** `request` with the limits it leaves open set to those `simulation` suggests. */
export function limitsFrom(request: TxRequest, simulation: Pick<components['schemas']['SimulationInfo'], 'suggested_cycles_limit' | 'suggested_cells_limit'>): TxRequest {
  return {
    ...request,
    cyclesLimit: request.cyclesLimit ?? BigInt(simulation.suggested_cycles_limit),
    cellsLimit: request.cellsLimit ?? BigInt(simulation.suggested_cells_limit),
  };
}

function buildWithLimits(request: TxRequest, context: TxContext, cyclesLimit: bigint, cellsLimit: bigint): Transaction {
  const [maxFeePerCycle, tipPerCycle] = meterFees('cycle', request.maxFeePerCycle, request.tipPerCycle, context.fees.maxFeePerCycle, context.fees.tipPerCycle);
  const [maxFeePerCell, tipPerCell] = meterFees('cell', request.maxFeePerCell, request.tipPerCell, context.fees.maxFeePerCell, context.fees.tipPerCell);
  const tx: Transaction = {
    chainId: request.chainId ?? context.chainId,
    nonce: request.nonce ?? context.nonce,
    to: request.to,
    value: request.value ?? 0n,
    cyclesLimit,
    cellsLimit,
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

/** A Message to an actor; its limits are open unless given (sized by a simulation when sent). */
export function actorCallRequest(actor: Address, message: Message, options: LimitOptions & { value?: bigint } = {}): TxRequest {
  return { to: actor, value: options.value ?? 0n, payload: encodeMessage(message), cyclesLimit: options.cyclesLimit, cellsLimit: options.cellsLimit };
}

/** A deploy (`to` = null); its limits are open unless given (sized by a simulation when sent). */
export function deployRequest(deploy: Deploy, options: LimitOptions & { value?: bigint } = {}): TxRequest {
  return { to: null, value: options.value ?? 0n, payload: encodeDeploy(deploy), cyclesLimit: options.cyclesLimit, cellsLimit: options.cellsLimit };
}

/**
 * An upgrade of an actor its sender owns (a Message to the actor-upgrades actor `0x…0e`); its
 * limits are open unless given (sized by a simulation when sent).
 */
export function upgradeRequest(upgrade: Upgrade, options: LimitOptions = {}): TxRequest {
  return { to: SYSTEM.actorUpgrades, value: 0n, payload: encodeUpgradeMessage(upgrade), cyclesLimit: options.cyclesLimit, cellsLimit: options.cellsLimit };
}

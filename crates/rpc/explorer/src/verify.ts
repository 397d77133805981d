/**
 * What the account and actor pages show, checked in the browser rather than trusted: each value
 * is proven by the node (`/proof/account`, `/proof/multi`) and verified with the TypeScript
 * SDK's light-client verification (BLS12-381 threshold signature of the finalization
 * certificate, the certified header, the QMDB state proof; `@noble/curves` and
 * `@noble/hashes`), then compared with what the page displays.
 *
 * The one thing trusted is the network's group public key. The explorer pins it per network
 * (keyed by genesis hash) in the browser's storage: on first visit it takes the node's
 * `/chain-info` `identity` (trust on first use), and the user may replace it with the
 * `identity` of the genesis file (the Trust page, `#/trust`). If the node later reports
 * another key, the pinned one is kept and the page warns.
 */
import { type Json, get, postJson } from './api.js';
import { parseIdentity, verifyAccount, verifyMulti, verifyReceipt, VerifyError } from '../../../../sdk/typescript/src/verify/index.js';
import { fromBase64, toHex } from '../../../../sdk/typescript/src/bytes.js';

const PIN_PREFIX = 'drover-explorer/identity/';

/** The key proofs are checked against and where it came from. */
export interface Trust {
  identity: string;
  /** `node`: taken from this node's `/chain-info` on first use; `genesis file`: pasted by the user. */
  source: 'node' | 'genesis file';
  /** The node reports another key than the pinned one. */
  conflict: string | null;
  genesisHash: string;
}

interface Pin {
  identity: string;
  source: Trust['source'];
}

let trust: Promise<Trust> | null = null;

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function readPin(slot: string): Pin | null {
  try {
    const pin = JSON.parse(storage()?.getItem(slot) ?? 'null');
    if (typeof pin?.identity === 'string' && (pin.source === 'node' || pin.source === 'genesis file')) return pin;
  } catch {
    // A damaged entry is pinned again below.
  }
  return null;
}

function writePin(slot: string, pin: Pin): void {
  storage()?.setItem(slot, JSON.stringify(pin));
}

/** The trusted key for the node's network (pinned on first use). */
export function trusted(): Promise<Trust> {
  trust ??= (async () => {
    const info = await get('/chain-info');
    const genesisHash = String(info.genesis_hash);
    const slot = PIN_PREFIX + genesisHash;
    const reported = normalize(String(info.identity));
    const pinned = readPin(slot);
    if (pinned) return { ...pinned, conflict: pinned.identity === reported ? null : reported, genesisHash };
    parseIdentity(reported);
    writePin(slot, { identity: reported, source: 'node' });
    return { identity: reported, source: 'node', conflict: null, genesisHash };
  })();
  trust.catch(() => {
    trust = null;
  });
  return trust;
}

function normalize(hex: string): string {
  const digits = hex.trim().toLowerCase();
  return digits.startsWith('0x') ? digits : `0x${digits}`;
}

/** Pins `identity` (the genesis file's) for this network; throws if it is not a group key. */
export async function pin(identity: string): Promise<void> {
  const key = normalize(identity);
  parseIdentity(key);
  const { genesisHash } = await trusted();
  writePin(PIN_PREFIX + genesisHash, { identity: key, source: 'genesis file' });
  trust = null;
}

/** The outcome of checking a value: proven at a certified block, or why not. */
export type Check = { ok: true; height: bigint; blockHash: string } | { ok: false; reason: string };

function refused(e: unknown): Check {
  if (e instanceof VerifyError) return { ok: false, reason: `${e.kind}: ${e.message}` };
  return { ok: false, reason: e instanceof Error ? e.message : String(e) };
}

/** Proves an account and compares it with the nonce and balance the page shows. */
export async function checkAccount(address: string, shown: { nonce: unknown; balance: unknown } | null): Promise<Check> {
  try {
    const { identity } = await trusted();
    const proof = await get(`/proof/account/${address}`);
    // Bound to the address asked about: a proof of another account is refused (WrongKey).
    const verified = verifyAccount(proof, identity, address);
    const proven = verified.account;
    if (proven === null && shown !== null) return { ok: false, reason: 'the proof says the account does not exist' };
    if (proven !== null && shown === null) return { ok: false, reason: 'the proof shows an account the page says does not exist' };
    if (proven !== null && shown !== null && (BigInt(shown.nonce as bigint) !== proven.nonce || BigInt(shown.balance as bigint) !== proven.balance)) {
      return { ok: false, reason: `the proven account (nonce ${proven.nonce}, balance ${proven.balance}) is not what the node showed` };
    }
    return { ok: true, height: verified.block.height, blockHash: verified.block.hash };
  } catch (e) {
    return refused(e);
  }
}

/** Most items in one `/proof/multi` request (the node's `MULTI_PROOF_REQUESTS_MAX`). */
export const MULTI_PROOF_ITEMS_MAX = 32;

/** One storage entry as the page shows it: its key (hex) and value (base64). */
export interface ShownEntry {
  key: string;
  value: string;
}

/**
 * Proves an actor's record and the shown storage entries in one request (all against the same
 * block) and compares each proven value with the shown one. Returns one check for the actor
 * record followed by one per entry.
 */
export async function checkActorStorage(actor: string, entries: ShownEntry[]): Promise<Check[]> {
  const fail = (e: unknown) => Array.from({ length: entries.length + 1 }, () => refused(e));
  try {
    const { identity } = await trusted();
    const requests = [{ kind: 'actor', address: actor }, ...entries.slice(0, MULTI_PROOF_ITEMS_MAX - 1).map((e) => ({ kind: 'storage', address: actor, key: e.key }))];
    const answer = await postJson('/proof/multi', requests);
    // One result per request, each bound to its request (another actor or key is refused).
    const results = verifyMulti(answer, identity, requests);
    return results.map((result, i): Check => {
      if (result instanceof VerifyError) return refused(result);
      const value = result.value as Json;
      if (i === 0) {
        if (value.value === null) return { ok: false, reason: 'the proof says the actor does not exist' };
      } else {
        const shown = entries[i - 1]!;
        const proven = value.value === null ? null : toHex(value.value);
        if (proven !== toHex(fromBase64(shown.value))) return { ok: false, reason: 'the proven value is not the value shown' };
      }
      return { ok: true, height: value.block.height, blockHash: value.block.hash };
    });
  } catch (e) {
    return fail(e);
  }
}

/** Proves a transaction's receipt and compares it with the one the page shows. */
export async function checkReceipt(hash: string, shown: Json): Promise<Check> {
  try {
    const { identity } = await trusted();
    const proof = await get(`/proof/receipt/${hash}`);
    // Bound to the hash asked about: another transaction's receipt is refused (WrongTx).
    const { receipt, block } = verifyReceipt(proof, identity, hash);
    const same =
      receipt.status === shown.status &&
      receipt.blockHeight === BigInt(shown.block_height) &&
      receipt.index === Number(shown.index) &&
      receipt.cyclesUsed === BigInt(shown.cycles_used) &&
      receipt.cellsUsed === BigInt(shown.cells_used) &&
      receipt.fee.burned === BigInt(shown.fee_burned) &&
      receipt.fee.tip === BigInt(shown.fee_tip) &&
      receipt.events.length === shown.events.length &&
      (receipt.error?.code ?? null) === (shown.error?.code ?? null);
    if (!same) return { ok: false, reason: 'the proven receipt is not the receipt shown' };
    return { ok: true, height: block.height, blockHash: block.hash };
  } catch (e) {
    return refused(e);
  }
}

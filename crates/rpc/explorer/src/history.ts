/**
 * An account's transactions. The node has no history route yet (issue 28 adds
 * `/account/{address}/...` history, cursor-paged), so {@link accountHistory} reads what exists:
 * the transactions of the last {@link HISTORY_BLOCKS} blocks, at most
 * {@link HISTORY_TRANSACTIONS_MAX} of them, and keeps those the address sent or received
 * (a plain transfer's `to`). What it scanned is returned with the matches so the page says how
 * far back it looked. When the route lands, this function becomes one request to it and
 * `scanned` its cursor; the account page does not change.
 */
import { type Json, get } from './api.js';

/** Blocks scanned back from the tip. */
export const HISTORY_BLOCKS = 100;
/** Most transactions read while scanning (each is a request). */
export const HISTORY_TRANSACTIONS_MAX = 200;

/** One transaction of an account's history. */
export interface HistoryEntry {
  hash: string;
  height: number;
  direction: 'sent' | 'received' | 'self';
  tx: Json;
}

/** Matches, newest first, and the heights scanned. */
export interface History {
  entries: HistoryEntry[];
  fromHeight: number;
  toHeight: number;
  truncated: boolean;
}

/** The address's transactions among the recent blocks (see the module doc). */
export async function accountHistory(address: string): Promise<History> {
  const me = address.toLowerCase();
  const { height } = await get('/height');
  const tip = Number(height);
  const entries: HistoryEntry[] = [];
  let read = 0;
  let fromHeight = tip + 1;
  let truncated = false;
  for (let h = tip; h >= 0 && h > tip - HISTORY_BLOCKS; h--) {
    const block = await get(`/block/${h}`);
    const hashes: string[] = block.transactions ?? [];
    if (read + hashes.length > HISTORY_TRANSACTIONS_MAX) {
      truncated = true;
      break;
    }
    fromHeight = h;
    read += hashes.length;
    const txs = await Promise.all(hashes.map((hash) => get(`/transaction/${hash}`)));
    for (const tx of txs) {
      const from = String(tx.from).toLowerCase();
      const to = tx.to === null ? null : String(tx.to).toLowerCase();
      if (from !== me && to !== me) continue;
      const direction = from === me && to === me ? 'self' : from === me ? 'sent' : 'received';
      entries.push({ hash: tx.hash, height: h, direction, tx });
    }
  }
  return { entries, fromHeight, toHeight: tip, truncated };
}

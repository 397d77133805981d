/**
 * New finalized blocks, as they come. The node has no push route yet, so this polls `/height`
 * every {@link POLL_INTERVAL_MS} and reads each new block once with `/block/{height}`, whatever
 * the number of listeners; callers only see {@link followBlocks}'s callback. When the
 * finalized-block stream of issue 28 lands (server-sent events of block headers with their
 * transaction hashes, resumable from a height), `poll` below is the one function to replace:
 * open the `EventSource` from the lowest height a listener waits for and hand each block event to
 * `deliver`. Nothing else in the explorer polls for blocks.
 */
import { type Json, get } from './api.js';

/** How often the height is polled, milliseconds. */
export const POLL_INTERVAL_MS = 1_000;
/** Most blocks a listener is handed after one poll: further behind, it skips the older ones. */
export const CATCH_UP_BLOCKS_MAX = 20;

/** A finalized block as `/block/{selector}` answers it. */
export type Block = Json;

interface Listener {
  onBlock: (block: Block) => void;
  /** The next height it waits for; `null` until the first poll (then the tip's successor). */
  next: number | null;
}

const listeners = new Set<Listener>();
/** Whether a poll is scheduled or running (the loop ends at its first tick without listeners). */
let running = false;

/**
 * Calls `onBlock` with each block finalized after height `after` (default: the tip at the first
 * poll), in height order, without gaps unless it falls more than {@link CATCH_UP_BLOCKS_MAX}
 * behind. Returns the unsubscribe.
 */
export function followBlocks(onBlock: (block: Block) => void, after?: number): () => void {
  const listener: Listener = { onBlock, next: after === undefined ? null : after + 1 };
  listeners.add(listener);
  if (!running) {
    running = true;
    setTimeout(poll, 0);
  }
  return () => {
    listeners.delete(listener);
  };
}

async function poll(): Promise<void> {
  if (listeners.size === 0) {
    running = false;
    return;
  }
  try {
    const tip = Number((await get('/height')).height);
    const read = new Map<number, Promise<Block>>();
    const block = (height: number) => {
      if (!read.has(height)) read.set(height, get(`/block/${height}`));
      return read.get(height)!;
    };
    for (const listener of [...listeners]) {
      if (listener.next === null) listener.next = tip + 1;
      listener.next = Math.max(listener.next, tip - CATCH_UP_BLOCKS_MAX + 1);
      while (listener.next <= tip && listeners.has(listener)) {
        deliver(listener, await block(listener.next));
      }
    }
  } catch {
    // A missed poll is retried at the next tick; the pages show the node's health themselves.
  }
  setTimeout(poll, POLL_INTERVAL_MS);
}

function deliver(listener: Listener, block: Block): void {
  listener.next = Number(block.height) + 1;
  listener.onBlock(block);
}

/** The `count` blocks up to `tip` (oldest first), read `/block/{height}` by height. */
export async function recentBlocks(tip: number, count: number): Promise<Block[]> {
  const heights: number[] = [];
  for (let h = Math.max(0, tip - count + 1); h <= tip; h++) heights.push(h);
  return Promise.all(heights.map((h) => get(`/block/${h}`)));
}

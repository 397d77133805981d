/**
 * What changes while a page is open, pushed by the node's streams (server-sent events, read with
 * the browser's `EventSource`): finalized blocks (`GET /stream/blocks`), an actor's events
 * (`GET /stream/events?emitter=`) and a pending transaction's outcome (`GET /stream/tx/{hash}`).
 * Nothing else in the explorer watches for blocks or events.
 *
 * A stream that drops is resumed by the browser itself, which sends the last message's id as
 * `Last-Event-ID` (the node goes on after it: no gap, no repeat), and the node's `closed` message
 * (a slow consumer, a restart) ends the connection the same way. Only a stream the node refuses
 * (an answer other than a 200 event stream: too many streams from this address, a node without
 * the route) makes the browser give up; then the feed polls the plain routes every
 * {@link POLL_INTERVAL_MS} from where the stream stopped, and tries the stream again after
 * {@link STREAM_RETRY_MS}. Each feed keeps its position (the next height, the last event's
 * cursor) and skips what it has already delivered, so switching between stream and polling
 * neither repeats nor loses an item.
 */
import { type Json, get } from './api.js';
import { parseJson } from '../../../../sdk/typescript/src/json.js';

/** How often a feed polls once its stream was refused, milliseconds. */
export const POLL_INTERVAL_MS = 1_000;
/** How long a feed polls before it tries its stream again, milliseconds. */
export const STREAM_RETRY_MS = 30_000;
/** Most blocks one poll reads: further behind, the older ones are skipped. */
export const CATCH_UP_BLOCKS_MAX = 20;
/** Most events one poll reads. */
const POLL_EVENTS_MAX = 50;

/**
 * A finalized block as `/blocks` lists it and `/stream/blocks` sends it (`BlockSummary`): header
 * fields, `transaction_count`, meters and basefees; `transactions` (the hashes) is set by the
 * stream and by {@link summaryOf}, `null` in `/blocks` pages.
 */
export type Block = Json;

/** A block as `/block/{selector}` answers it, in the shape of the stream's. */
export function summaryOf(block: Json): Block {
  return { ...block, transaction_count: block.transactions.length };
}

/** A stream and the polling that stands in for it; `P` is a position in it. */
interface Feed<T, P> {
  /** The message kind the stream sends items as. */
  event: string;
  /** The stream's path, starting at `position`. */
  stream(position: P): string;
  /** The position after `item`, or `null` when `item` is not after `position` (already delivered). */
  after(position: P, item: T): P | null;
  /** The items after `position` read from the plain routes, and the position after them. */
  poll(position: P): Promise<[T[], P]>;
}

/** Hands `onItem` every item of `feed` after `start`, in order; returns the stop function. */
function follow<T, P>(feed: Feed<T, P>, start: P, onItem: (item: T) => void): () => void {
  let position = start;
  let stopped = false;
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deliver = (item: T) => {
    const next = feed.after(position, item);
    if (next === null || stopped) return;
    position = next;
    onItem(item);
  };
  const poll = (until: number) => async () => {
    if (stopped) return;
    if (Date.now() >= until) {
      open();
      return;
    }
    try {
      const [items, next] = await feed.poll(position);
      items.forEach(deliver);
      if (!stopped) position = next;
    } catch {
      // A missed poll is retried at the next tick; the pages show the node's health themselves.
    }
    if (!stopped) timer = setTimeout(poll(until), POLL_INTERVAL_MS);
  };
  const open = () => {
    const stream = new EventSource(feed.stream(position));
    source = stream;
    stream.addEventListener(feed.event, (message) => {
      let item: T;
      try {
        item = parseJson((message as MessageEvent<string>).data) as T;
      } catch {
        return;
      }
      deliver(item);
    });
    stream.onerror = () => {
      // While connecting again the browser resumes by itself; closed, it has given up.
      if (stream.readyState !== EventSource.CLOSED || stopped) return;
      source = null;
      void poll(Date.now() + STREAM_RETRY_MS)();
    };
  };
  open();
  return () => {
    stopped = true;
    source?.close();
    clearTimeout(timer);
  };
}

const blocks: Feed<Block, number | null> = {
  event: 'block',
  stream: (next) => (next === null ? '/stream/blocks' : `/stream/blocks?from_height=${next}`),
  after: (next, block) => {
    const height = Number(block.height);
    return next !== null && height < next ? null : height + 1;
  },
  poll: async (next) => {
    const tip = Number((await get('/height')).height);
    const from = Math.max(next ?? tip + 1, tip - CATCH_UP_BLOCKS_MAX + 1);
    const heights: number[] = [];
    for (let h = from; h <= tip; h++) heights.push(h);
    const read = await Promise.all(heights.map((h) => get(`/block/${h}`)));
    return [read.map(summaryOf), Math.max(from, tip + 1)];
  },
};

/**
 * Calls `onBlock` with each block finalized after height `after` (default: from the next block),
 * in height order; polling, it skips blocks beyond the newest {@link CATCH_UP_BLOCKS_MAX}.
 * Returns the stop function.
 */
export function followBlocks(onBlock: (block: Block) => void, after?: number): () => void {
  return follow(blocks, after === undefined ? null : after + 1, onBlock);
}

/** Where an event feed is: the first height not yet read and the last event delivered. */
interface EventPosition {
  from: number | null;
  cursor: string | null;
}

/** An event as `/events` and `/stream/events` send it (`IndexedEvent`). */
export type IndexedEvent = Json;

function emitterEvents(emitter: string): Feed<IndexedEvent, EventPosition> {
  const filter = `emitter=${encodeURIComponent(emitter)}`;
  return {
    event: 'event',
    stream: ({ from }) => `/stream/events?${filter}${from === null ? '' : `&from_height=${from}`}`,
    // Cursors are fixed-length hex, height first: their text order is chain order.
    after: ({ cursor }, event) => {
      const at = String(event.cursor).toLowerCase();
      return cursor !== null && at <= cursor ? null : { from: Number(event.block_height), cursor: at };
    },
    poll: async (position) => {
      if (position.from === null) {
        const tip = Number((await get('/height')).height);
        return [[], { from: tip + 1, cursor: null }];
      }
      const resume = position.cursor === null ? '' : `&cursor=${position.cursor}`;
      const page = await get(`/events?${filter}&from_height=${position.from}${resume}&limit=${POLL_EVENTS_MAX}`);
      const items: IndexedEvent[] = page.items ?? [];
      const last = items[items.length - 1];
      if (page.next_cursor !== null && page.next_cursor !== undefined) {
        return [items, { from: last ? Number(last.block_height) : position.from, cursor: String(page.next_cursor).toLowerCase() }];
      }
      return [items, { from: Number(page.to_height) + 1, cursor: last ? String(last.cursor).toLowerCase() : null }];
    },
  };
}

/** Calls `onEvent` with each event `emitter` emits from the next block on; returns the stop function. */
export function followEvents(emitter: string, onEvent: (event: IndexedEvent) => void): () => void {
  return follow(emitterEvents(emitter), { from: null, cursor: null }, onEvent);
}

/** What became of a pending transaction. */
export interface TransactionWatch {
  /** Finalized: its receipt is there to read. */
  finalized(): void;
  /** The mempool dropped it, for `reason`. */
  dropped(reason: string): void;
  /** The node refused the stream: the page looks the transaction up itself. */
  refused(): void;
}

/**
 * Waits for the outcome of the pending transaction `hash` on `/stream/tx/{hash}`, which sends
 * one message and ends; returns the stop function.
 */
export function watchTransaction(hash: string, watch: TransactionWatch): () => void {
  const stream = new EventSource(`/stream/tx/${encodeURIComponent(hash)}`);
  stream.addEventListener('receipt', () => {
    stream.close();
    watch.finalized();
  });
  stream.addEventListener('dropped', (message) => {
    stream.close();
    let reason = 'no reason given';
    try {
      reason = String((parseJson((message as MessageEvent<string>).data) as Json).reason);
    } catch {
      // The outcome stands without its reason.
    }
    watch.dropped(reason);
  });
  stream.onerror = () => {
    if (stream.readyState === EventSource.CLOSED) watch.refused();
  };
  return () => stream.close();
}

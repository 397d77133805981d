/**
 * An emitter's events on the actor and token pages: a table of the events emitted while the page
 * is open, newest first, fed by the event stream (`followEvents`), above the page's list of past
 * events (an actor's whole log, a token's recent events). At most {@link LIVE_EVENTS_SHOWN} are
 * kept: the page holds a bounded amount whatever the emitter's rate.
 */
import { type Json } from './api.js';
import { followEvents } from './live.js';
import { type Child, blockLink, bytesText, h, table, txLink } from './ui.js';

/** New events kept on the page. */
export const LIVE_EVENTS_SHOWN = 20;

/** The columns of an event row. */
export const EVENT_HEADERS = ['Block', 'Origin', 'Topic', 'Data', 'Transaction'];

/** One event (`/actor/{address}/logs`, `/events` and the event stream share these fields). */
export function eventRow(e: Json): Child[] {
  const from = e.tx_hash ? txLink(e.tx_hash) : e.timer_id !== null && e.timer_id !== undefined ? `timer ${e.timer_id}` : `message ${e.message_seq ?? ''}`;
  return [blockLink(e.block_height), e.origin, e.topic, h('span', { class: 'wrap' }, bytesText(e.data)), from];
}

/** The events `emitter` emits from now on, as they come; `stop` closes their stream. */
export function liveEvents(emitter: string): { element: HTMLElement; stop: () => void } {
  const element = h('div', { 'data-testid': 'live-events' }, h('p', { class: 'muted' }, 'New events appear here as blocks finalize.'));
  let events: Json[] = [];
  const stop = followEvents(emitter, (event) => {
    events = [event, ...events].slice(0, LIVE_EVENTS_SHOWN);
    element.replaceChildren(h('h3', null, 'New since this page opened'), table(EVENT_HEADERS, events.map(eventRow)));
  });
  return { element, stop };
}

/**
 * Tokens: every native token, and one token's metadata and events. A token emits under its id
 * (`docs/tokens.md`, "Events"), so its events are an event query by emitter: the page lists
 * those of the last 10,000 blocks (`/events?emitter=`, the query's default range) and adds new
 * ones from the event stream.
 */
import { getOrNull } from '../api.js';
import { EVENT_HEADERS, eventRow, liveEvents } from '../events.js';
import { cursorList, offsetList } from '../paged.js';
import { addressLink, amount, blockLink, fields, h, later, link, mono, section } from '../ui.js';

export function tokenList(root: HTMLElement): void {
  root.append(
    section(
      'Tokens',
      offsetList(
        '/tokens',
        'tokens',
        ['Token', 'Name', 'Symbol', 'Supply', 'Owner', 'Created'],
        (items) => items.map((t) => [link(`/token/${t.token_id}`, mono(t.token_id)), t.name, t.symbol, amount(t.supply, Number(t.decimals)), addressLink(t.owner), blockLink(t.created_height)]),
        'No tokens yet.',
      ),
    ),
  );
}

export function tokenPage(root: HTMLElement, [id]: string[]): () => void {
  let stopped = false;
  let stopLive = () => {};
  root.append(
    later(async () => {
      const t = await getOrNull(`/token/${encodeURIComponent(id!)}`);
      if (!t) return section('Token not found', h('p', null, `No token ${id}.`));
      const decimals = Number(t.decimals);
      const token = String(t.token_id).toLowerCase();
      const events: HTMLElement[] = [];
      if (!stopped) {
        const live = liveEvents(token);
        stopLive = live.stop;
        events.push(
          section(
            'Events',
            live.element,
            h('h3', null, 'In the last 10,000 blocks, oldest first'),
            cursorList(`/events?emitter=${token}`, EVENT_HEADERS, (items) => ({ rows: items.map(eventRow) }), 'No events in the last 10,000 blocks.'),
          ),
        );
      }
      return [
        section(
          `${t.name} (${t.symbol})`,
          fields([
            ['Token id', mono(t.token_id)],
            ['Decimals', String(decimals)],
            ['Supply', `${amount(t.supply, decimals)} ${t.symbol}`],
            ['Max supply', t.max_supply === null ? 'uncapped' : `${amount(t.max_supply, decimals)} ${t.symbol}`],
            ['Mintable', t.mintable ? 'yes' : 'no'],
            ['Owner', addressLink(t.owner, true)],
            ['Creator', addressLink(t.creator, true)],
            ['Created at', blockLink(t.created_height)],
          ]),
        ),
        ...events,
      ];
    }),
  );
  return () => {
    stopped = true;
    stopLive();
  };
}

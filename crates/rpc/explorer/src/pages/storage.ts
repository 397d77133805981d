/**
 * Storage relays and volumes: the family's totals, and the relays taking writes and listed
 * publicly. A volume's record is its owner's and its relay's to read (`/ras/volumes` needs their
 * delegation token), so volumes appear here as totals only.
 */
import { get } from '../api.js';
import { offsetList } from '../paged.js';
import { addressLink, badge, blockLink, count, drv, fields, h, later, section } from '../ui.js';
import type { Json } from '../api.js';

const RELAY_HEADERS = ['Relay', 'Health', 'Endpoint', 'Capacity', 'Used', 'Volumes', 'Price/byte/block', 'Stake', 'Earned', 'Access'];

function relayRows(items: Json[]) {
  return items.map((r) => [
    addressLink(r.address),
    badge(r.health),
    h('span', { class: 'mono' }, r.endpoint),
    `${count(r.capacity_bytes)} B`,
    `${count(r.used_bytes)} B`,
    count(r.volumes),
    count(r.price_per_byte_block),
    drv(r.stake),
    drv(r.earned),
    [r.read ? 'read' : '', r.write ? 'write' : '', r.public ? 'public' : ''].filter(Boolean).join(', '),
  ]);
}

export function storagePage(root: HTMLElement): void {
  root.append(
    section(
      'Storage totals',
      later(async () => {
        const s = await get('/ras/stats');
        return fields([
          ['At block', blockLink(s.height)],
          ['Relays', `${count(s.relays)} (capacity ${count(s.capacity_bytes)} B, stake ${drv(s.relay_stake)})`],
          ['Volumes', `${count(s.volumes)} holding ${count(s.bytes)} B`],
          ['Deposits held', drv(s.deposits)],
          ['Rent paid to relays', drv(s.rent_paid)],
          ['Creation fees burned', drv(s.fees_burned)],
        ]);
      }),
    ),
    section('Relays taking writes', offsetList('/ras/write-relayers', 'relays', RELAY_HEADERS, relayRows, 'No relays take writes.')),
    section('Publicly listed relays', offsetList('/ras/relays/public', 'relays', RELAY_HEADERS, relayRows, 'No public relays.')),
  );
}

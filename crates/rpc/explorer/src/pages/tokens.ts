/** Tokens: every native token, and one token's metadata. */
import { getOrNull } from '../api.js';
import { offsetList } from '../paged.js';
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

export function tokenPage(root: HTMLElement, [id]: string[]): void {
  root.append(
    later(async () => {
      const t = await getOrNull(`/token/${encodeURIComponent(id!)}`);
      if (!t) return section('Token not found', h('p', null, `No token ${id}.`));
      const decimals = Number(t.decimals);
      return section(
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
      );
    }),
  );
}

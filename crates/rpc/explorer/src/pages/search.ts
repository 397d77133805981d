/**
 * Search: a height or `latest` opens the block, an address its page; a 32-byte hash is looked up
 * as a transaction (finalized or pending), then a block, then a job, and the first that exists
 * opens.
 */
import { getOrNull } from '../api.js';
import { errorBox, h, section } from '../ui.js';

/** The route a search opens (`null` for an empty search). */
export function searchTarget(input: string): string | null {
  const text = input.trim();
  if (text === '') return null;
  if (/^\d+$/.test(text) || text === 'latest') return `/block/${text}`;
  const hex = /^(0x)?([0-9a-fA-F]+)$/.exec(text)?.[2]?.toLowerCase();
  if (hex?.length === 40) return `/address/0x${hex}`;
  if (hex?.length === 64) return `/search/0x${hex}`;
  return `/search/${encodeURIComponent(text)}`;
}

export function searchPage(root: HTMLElement, [query]: string[]): void {
  const text = String(query);
  const body = h('p', { class: 'loading' }, `Looking up ${text}…`);
  root.append(section('Search', body));
  if (!/^0x[0-9a-f]{64}$/.test(text)) {
    body.replaceChildren(`Nothing matches “${text}”: search for an address (0x and 40 hex digits), a transaction, block or job hash (0x and 64 hex digits), or a height.`);
    return;
  }
  (async () => {
    const candidates: [string, string][] = [
      [`/transaction/${text}`, `/tx/${text}`],
      [`/mempool/transaction/${text}`, `/tx/${text}`],
      [`/block/${text}`, `/block/${text}`],
      [`/job/${text}`, `/job/${text}`],
    ];
    for (const [path, route] of candidates) {
      if (await getOrNull(path)) {
        location.replace(`#${route}`);
        return;
      }
    }
    body.replaceChildren(`No transaction, block or job has the hash ${text}.`);
  })().catch((e) => body.replaceChildren(errorBox(e)));
}

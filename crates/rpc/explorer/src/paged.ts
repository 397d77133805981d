/**
 * Lists the node pages: cursor-paged ones (`next_cursor`: storage, mailbox, logs, runs, history) and
 * offset-paged ones (`total_count`, `offset`, `limit`). A section shows one page and links
 * to the next; it never reads more than the page it shows.
 */
import { type Json, get } from './api.js';
import { type Child, errorBox, h, table } from './ui.js';

/** Items per page of the explorer's lists. */
export const PAGE_ITEMS = 20;

/** What a page renders into: the table, and anything shown beside it (a verification mark). */
export interface Rendered {
  rows: Child[][];
  extra?: Child;
}

function joinQuery(path: string, params: Record<string, string | number>): string {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

/** A cursor-paged list: `path` answers `{items, next_cursor}`; `render` also sees the whole answer. */
export function cursorList(path: string, headers: string[], render: (items: Json[], page: Json) => Rendered, empty: string): HTMLElement {
  const holder = h('div');
  const cursors: (string | null)[] = [null];
  const load = async (page: number) => {
    holder.replaceChildren(h('p', { class: 'loading' }, 'Loading…'));
    try {
      const cursor = cursors[page];
      const answer = await get(joinQuery(path, cursor ? { limit: PAGE_ITEMS, cursor } : { limit: PAGE_ITEMS }));
      cursors[page + 1] = answer.next_cursor ?? null;
      const { rows, extra } = render(answer.items, answer);
      holder.replaceChildren(
        ...(extra ? [h('div', null, extra)] : []),
        table(headers, rows, empty),
        h(
          'p',
          { class: 'pager' },
          page > 0 ? h('button', { type: 'button', onclick: () => load(page - 1) }, '« Previous') : '',
          ' ',
          answer.next_cursor ? h('button', { type: 'button', onclick: () => load(page + 1) }, 'Next »') : '',
        ),
      );
    } catch (e) {
      holder.replaceChildren(errorBox(e));
    }
  };
  void load(0);
  return holder;
}

/** An offset-paged list: `path` answers `{<key>: [...], total_count, offset, limit}`. */
export function offsetList(path: string, key: string, headers: string[], render: (items: Json[]) => Child[][], empty: string): HTMLElement {
  const holder = h('div');
  const load = async (offset: number) => {
    holder.replaceChildren(h('p', { class: 'loading' }, 'Loading…'));
    try {
      const answer = await get(joinQuery(path, { offset, limit: PAGE_ITEMS }));
      const items: Json[] = answer[key] ?? [];
      const total = Number(answer.total_count);
      holder.replaceChildren(
        table(headers, render(items), empty),
        h(
          'p',
          { class: 'pager' },
          total > 0 ? `${offset + 1}–${offset + items.length} of ${total} ` : '',
          offset > 0 ? h('button', { type: 'button', onclick: () => load(Math.max(0, offset - PAGE_ITEMS)) }, '« Previous') : '',
          ' ',
          offset + items.length < total ? h('button', { type: 'button', onclick: () => load(offset + PAGE_ITEMS) }, 'Next »') : '',
        ),
      );
    } catch (e) {
      holder.replaceChildren(errorBox(e));
    }
  };
  void load(0);
  return holder;
}

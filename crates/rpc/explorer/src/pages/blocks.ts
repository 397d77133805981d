/**
 * Blocks: a page of `/blocks` (newest first; `?before=` is its cursor, a height), to which the
 * first page adds each new block from the block stream, and one block (`/block/{selector}`).
 */
import { get, getOrNull } from '../api.js';
import { type Block, followBlocks } from '../live.js';
import { age, blockLink, count, errorBox, fields, h, later, link, mono, section, table, time, txLink } from '../ui.js';

/** Blocks on one page of the list. */
export const BLOCKS_PER_PAGE = 20;

function row(b: Block) {
  return [blockLink(b.height), h('span', { title: time(Number(b.timestamp_ms)) }, age(Number(b.timestamp_ms))), count(b.transaction_count), count(b.cycles_used), count(b.cells_used), count(b.basefee_cycle), count(b.basefee_cell)];
}

const HEADERS = ['Height', 'Age', 'Transactions', 'Cycles', 'Cells', 'Basefee/cycle', 'Basefee/cell'];

export function blockList(root: HTMLElement, _params: string[], query: URLSearchParams): () => void {
  const before = query.get('before');
  const body = h('div', null, 'Loading…');
  const pager = h('p', { class: 'pager' });
  root.append(section('Blocks', body, pager));
  let blocks: Block[] = [];
  let unfollow = () => {};
  let stopped = false;
  const draw = () => body.replaceChildren(table(HEADERS, blocks.map(row), 'No blocks.'));
  (async () => {
    try {
      if (before !== null && !/^\d+$/.test(before)) throw new Error(`${before} is not a height`);
      const page = await get(`/blocks?limit=${BLOCKS_PER_PAGE}${before === null ? '' : `&cursor=${before}`}`);
      if (stopped) return;
      blocks = page.items;
      draw();
      const first = Number(page.first_indexed_height);
      pager.replaceChildren(
        before === null ? '' : link('/blocks', '« Newest'),
        ' ',
        page.next_cursor ? link(`/blocks?before=${page.next_cursor}`, 'Older »') : first > 1 ? h('span', { class: 'muted' }, `This node lists blocks from height ${first}.`) : '',
      );
      if (before === null) {
        const tip = blocks[0];
        unfollow = followBlocks((block) => {
          blocks = [block, ...blocks].slice(0, BLOCKS_PER_PAGE);
          draw();
        }, tip === undefined ? undefined : Number(tip.height));
      }
    } catch (e) {
      body.replaceChildren(errorBox(e));
    }
  })();
  return () => {
    stopped = true;
    unfollow();
  };
}

export function blockPage(root: HTMLElement, [selector]: string[]): void {
  root.append(
    later(async () => {
      const b = await getOrNull(`/block/${encodeURIComponent(selector!)}`);
      if (!b) return section('Block not found', h('p', null, `No finalized block ${selector}.`));
      const height = Number(b.height);
      return [
        section(
          `Block ${height}`,
          h('p', { class: 'pager' }, height > 0 ? link(`/block/${height - 1}`, '« Parent') : '', ' ', link(`/block/${height + 1}`, 'Child »')),
          fields([
            ['Height', String(b.height)],
            ['Hash', mono(b.hash)],
            ['Parent', link(`/block/${b.parent_hash}`, mono(b.parent_hash))],
            ['Time', `${time(Number(b.timestamp_ms))} (${age(Number(b.timestamp_ms))})`],
            ['Proposer', mono(String(b.proposer))],
            ['View', String(b.view)],
            ['Transactions', String(b.transactions.length)],
            ['Cycles used', count(b.cycles_used)],
            ['Cells used', count(b.cells_used)],
            ['Basefee', `${count(b.basefee_cycle)} per cycle, ${count(b.basefee_cell)} per cell`],
            ['State root', mono(b.state_root)],
            ['Transactions root', mono(b.transactions_root)],
            ['Receipts root', mono(b.receipts_root)],
            ['Operations', `${count(b.op_count)} (root ${b.ops_root}, sync range from ${b.sync_range_start})`],
            ['Finalization', b.finalization ? h('span', { class: 'mono wrap' }, `${String(b.finalization).slice(0, 66)}…`) : '—'],
          ]),
        ),
        section('Transactions', table(['#', 'Hash'], b.transactions.map((hash: string, i: number) => [i, txLink(hash, true)]), 'No transactions.')),
      ];
    }),
  );
}

/** Blocks: a page of recent blocks (newest first, live on the first page) and one block. */
import { get, getOrNull } from '../api.js';
import { type Block, followBlocks, recentBlocks } from '../live.js';
import { age, blockLink, count, errorBox, fields, h, later, link, mono, section, table, time, txLink } from '../ui.js';

/** Blocks on one page of the list. */
export const BLOCKS_PER_PAGE = 20;

function row(b: Block) {
  return [blockLink(b.height), h('span', { title: time(Number(b.timestamp_ms)) }, age(Number(b.timestamp_ms))), b.transactions.length, count(b.cycles_used), count(b.cells_used), count(b.basefee_cycle), count(b.basefee_cell)];
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
  const draw = () => body.replaceChildren(table(HEADERS, blocks.map(row)));
  (async () => {
    try {
      const tip = before === null ? Number((await get('/height')).height) : Number(before) - 1;
      if (!Number.isSafeInteger(tip) || tip < 0) throw new Error('no blocks before that height');
      blocks = (await recentBlocks(tip, BLOCKS_PER_PAGE)).reverse();
      if (stopped) return;
      draw();
      const oldest = Number(blocks[blocks.length - 1]?.height ?? 0);
      pager.replaceChildren(
        before === null ? '' : link('/blocks', '« Newest'),
        ' ',
        oldest > 0 ? link(`/blocks?before=${oldest}`, 'Older »') : '',
      );
      if (before === null) {
        unfollow = followBlocks((block) => {
          blocks = [block, ...blocks].slice(0, BLOCKS_PER_PAGE);
          draw();
        }, tip);
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

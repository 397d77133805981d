/**
 * Home: the chain at a glance, live. Height and the finalized block's age, transactions per
 * second and both basefees charted over the last {@link CHART_BLOCKS} blocks, mempool size and
 * health. The page opens with one page of `/blocks` and the hashes of the latest transactions
 * (`/block/{height}` of the newest blocks that hold any, until {@link LATEST_TRANSACTIONS} are
 * found); new blocks, with their hashes, arrive on the block stream (`followBlocks`). Health and
 * basefees are read every {@link STATUS_POLL_MS}.
 */
import { get } from '../api.js';
import { type Block, followBlocks } from '../live.js';
import { age, badge, blockLink, count, errorBox, fields, h, lineChart, section, table, time, txLink } from '../ui.js';

/** Blocks the charts cover. */
export const CHART_BLOCKS = 30;
/** Blocks listed under "Latest blocks". */
const LATEST_BLOCKS = 10;
/** Transactions listed under "Latest transactions". */
const LATEST_TRANSACTIONS = 10;
/** How often health, mempool and basefees are read, milliseconds. */
export const STATUS_POLL_MS = 5_000;

/** Transactions per second of each block after the first: its count over the time since its parent. */
function rates(blocks: Block[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < blocks.length; i++) {
    const secs = (Number(blocks[i].timestamp_ms) - Number(blocks[i - 1].timestamp_ms)) / 1000;
    out.push(secs > 0 ? Number(blocks[i].transaction_count) / secs : 0);
  }
  return out;
}

/** Transactions per second over the whole window. */
function windowRate(blocks: Block[]): number {
  if (blocks.length < 2) return 0;
  const secs = (Number(blocks[blocks.length - 1].timestamp_ms) - Number(blocks[0].timestamp_ms)) / 1000;
  const txs = blocks.slice(1).reduce((sum, b) => sum + Number(b.transaction_count), 0);
  return secs > 0 ? txs / secs : 0;
}

const fixed = (digits: number) => (value: number) => value.toFixed(digits);
const integer = (value: number) => count(Math.round(value));

/** The latest transactions of `blocks` (oldest first), newest block first: `[hash, height]`. */
function latestTransactions(blocks: Block[]): [string, number][] {
  const txs: [string, number][] = [];
  for (const b of [...blocks].reverse()) {
    for (const hash of b.transactions ?? []) if (txs.length < LATEST_TRANSACTIONS) txs.push([hash, Number(b.height)]);
  }
  return txs;
}

/**
 * Reads the transaction hashes of the newest blocks of `blocks` that hold transactions, until
 * {@link LATEST_TRANSACTIONS} are known: one `/block/{height}` for each such block, at most
 * {@link LATEST_TRANSACTIONS}.
 */
async function withLatestHashes(blocks: Block[]): Promise<Block[]> {
  const out = [...blocks];
  let known = 0;
  for (let i = out.length - 1; i >= 0 && known < LATEST_TRANSACTIONS; i--) {
    if (Number(out[i].transaction_count) === 0) continue;
    out[i] = { ...out[i], transactions: (await get(`/block/${out[i].height}`)).transactions };
    known += out[i].transactions.length;
  }
  return out;
}

export function home(root: HTMLElement): () => void {
  let blocks: Block[] = [];
  const height = h('strong', { 'data-testid': 'height' }, '…');
  const blockAge = h('strong', { 'data-testid': 'block-age' }, '…');
  const rate = h('strong', { 'data-testid': 'tps' }, '…');
  const mempool = h('strong', { 'data-testid': 'mempool' }, '…');
  const health = h('strong', { 'data-testid': 'health' }, '…');
  const basefees = h('strong', { 'data-testid': 'basefees' }, '…');
  const stat = (label: string, value: HTMLElement) => h('div', { class: 'stat' }, h('span', { class: 'muted' }, label), value);
  const charts = h('div', { class: 'charts' });
  const latest = h('div');
  const latestTxs = h('div');
  const status = h('div');
  root.append(
    h('section', { class: 'stats' }, stat('Height', height), stat('Finalized block', blockAge), stat('Transactions/s', rate), stat('Basefee (cycle / cell)', basefees), stat('Mempool', mempool), stat('Health', health)),
    section(`Last ${CHART_BLOCKS} blocks`, charts),
    h('div', { class: 'columns' }, section('Latest blocks', latest), section('Latest transactions', latestTxs)),
    section('Node', status),
  );

  const draw = () => {
    const tip = blocks[blocks.length - 1];
    if (!tip) return;
    height.replaceChildren(blockLink(tip.height));
    rate.textContent = windowRate(blocks).toFixed(2);
    charts.replaceChildren(
      lineChart('Transactions per second', rates(blocks), fixed(1), 'chart-tps'),
      lineChart('Basefee per cycle', blocks.map((b) => Number(b.basefee_cycle)), integer, 'chart-basefee-cycle'),
      lineChart('Basefee per cell', blocks.map((b) => Number(b.basefee_cell)), integer, 'chart-basefee-cell'),
    );
    const newest = blocks.slice(-LATEST_BLOCKS).reverse();
    latest.replaceChildren(
      table(
        ['Height', 'Age', 'Transactions', 'Cycles', 'Cells'],
        newest.map((b) => [blockLink(b.height), h('span', { title: time(Number(b.timestamp_ms)) }, age(Number(b.timestamp_ms))), count(b.transaction_count), count(b.cycles_used), count(b.cells_used)]),
      ),
    );
    const txs = latestTransactions(blocks);
    latestTxs.replaceChildren(table(['Transaction', 'Block'], txs.map(([hash, at]) => [txLink(hash), blockLink(at)]), `No transactions in the last ${blocks.length} blocks.`));
  };
  const tick = () => {
    const tip = blocks[blocks.length - 1];
    if (tip) blockAge.textContent = age(Number(tip.timestamp_ms));
  };

  const readStatus = async () => {
    try {
      const [detail, fees, info] = await Promise.all([get('/health/detailed'), get('/basefee'), get('/chain-info')]);
      mempool.textContent = `${count(detail.mempool_transaction_count)} txs`;
      health.replaceChildren(badge(detail.status));
      basefees.textContent = `${count(fees.basefee_cycle)} / ${count(fees.basefee_cell)}`;
      status.replaceChildren(
        fields([
          ['Network', `${info.network} (chain id ${info.chain_id})`],
          ['Genesis', h('span', { class: 'mono' }, info.genesis_hash)],
          ['Version', detail.version],
          ['Uptime', `${count(detail.uptime_seconds)} s`],
          ['Components', ['storage', 'mempool', 'rpc'].map((name) => h('span', { class: 'component' }, `${name} `, badge(detail.components[name])))],
          ['Mempool', `${count(detail.mempool_transaction_count)} transactions from ${count(detail.mempool_account_count)} accounts`],
          ['Next basefees', `${count(fees.basefee_cycle)} per cycle, ${count(fees.basefee_cell)} per cell (suggested max ${count(fees.suggested_max_fee_per_cycle)} / ${count(fees.suggested_max_fee_per_cell)})`],
        ]),
      );
    } catch (e) {
      health.replaceChildren(badge('unreachable', 'degraded'));
      status.replaceChildren(errorBox(e));
    }
  };

  let stopped = false;
  let unfollow = () => {};
  (async () => {
    try {
      const page = await get(`/blocks?limit=${CHART_BLOCKS}`);
      blocks = await withLatestHashes([...page.items].reverse());
      if (stopped) return;
      draw();
      tick();
      unfollow = followBlocks((block) => {
        blocks = [...blocks, block].slice(-CHART_BLOCKS);
        draw();
        tick();
      }, blocks.length > 0 ? Number(blocks[blocks.length - 1].height) : undefined);
    } catch (e) {
      charts.replaceChildren(errorBox(e));
    }
  })();
  void readStatus();
  const statusTimer = setInterval(readStatus, STATUS_POLL_MS);
  const ageTimer = setInterval(tick, 1_000);
  return () => {
    stopped = true;
    unfollow();
    clearInterval(statusTimer);
    clearInterval(ageTimer);
  };
}

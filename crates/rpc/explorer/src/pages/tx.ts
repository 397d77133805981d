/**
 * A transaction: its fields, and once finalized its receipt (status, fee split, events, revert
 * reason, E-code with its fix) checked against its receipt proof. A transaction still in the
 * mempool is shown as pending until its stream (`/stream/tx/{hash}`) says it is finalized (the
 * page then reads it again) or dropped; if the node refuses the stream, the page looks the
 * transaction up every {@link PENDING_POLL_MS} instead.
 */
import { type Json, getOrNull } from '../api.js';
import { watchTransaction } from '../live.js';
import { addressLink, badge, blockLink, bytesText, count, drv, fields, h, mono, section, table } from '../ui.js';
import { checkReceipt } from '../verify.js';
import { verifiedMark } from '../verified.js';
import { fromBase64 } from '../../../../../sdk/typescript/src/bytes.js';

/** How often a pending transaction is looked up again when its stream is refused, milliseconds. */
const PENDING_POLL_MS = 1_000;

function txFields(tx: Json): HTMLElement {
  let payloadBytes = 0;
  try {
    payloadBytes = fromBase64(String(tx.payload)).length;
  } catch {
    payloadBytes = 0;
  }
  return fields([
    ['Hash', mono(tx.hash)],
    ['Status', badge(tx.status)],
    ['Block', tx.block_height === null ? 'pending' : [blockLink(tx.block_height), tx.index === null ? '' : ` (index ${tx.index})`]],
    ['From', addressLink(tx.from, true)],
    ['To', tx.to === null ? 'none (deploy)' : addressLink(tx.to, true)],
    ['Value', drv(tx.value)],
    ['Nonce', String(tx.nonce)],
    ['Chain id', String(tx.chain_id)],
    ['Limits', `${count(tx.cycles_limit)} cycles, ${count(tx.cells_limit)} cells`],
    ['Max fee', `${count(tx.max_fee_per_cycle)} per cycle, ${count(tx.max_fee_per_cell)} per cell`],
    ['Tip', `${count(tx.tip_per_cycle)} per cycle, ${count(tx.tip_per_cell)} per cell`],
    ['Payload', `${count(payloadBytes)} bytes`],
  ]);
}

function receiptSection(hash: string, r: Json): HTMLElement {
  const error = r.error;
  return section(
    'Receipt',
    verifiedMark(checkReceipt(hash, r), 'receipt'),
    fields([
      ['Status', h('span', { 'data-testid': 'receipt-status' }, badge(r.status))],
      ['Block', [blockLink(r.block_height), ` (index ${r.index})`]],
      ['Cycles used', count(r.cycles_used)],
      ['Cells used', count(r.cells_used)],
      ['Fee', h('span', { 'data-testid': 'fee' }, drv(r.fee))],
      ['Fee split', `${drv(r.fee_burned)} burned, ${drv(r.fee_tip)} tip to the proposer`],
      ['Revert reason', r.revert_reason ?? '—'],
      [
        'Error',
        error
          ? h(
              'div',
              { class: 'ecode', 'data-testid': 'ecode' },
              h('strong', null, `${error.code}`),
              ` (${error.category}): ${error.message}`,
              h('div', null, h('span', { class: 'muted' }, 'Fix: '), error.fix),
            )
          : '—',
      ],
    ]),
    h('h3', null, `Events (${r.events.length})`),
    table(['#', 'Emitter', 'Topic', 'Data'], r.events.map((e: Json, i: number) => [i, addressLink(e.address), e.topic, h('span', { class: 'wrap' }, bytesText(e.data))]), 'No events.'),
  );
}

export function txPage(root: HTMLElement, [hash]: string[]): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let unwatch = () => {};
  let streamRefused = false;
  let stopped = false;
  const holder = h('div', null, 'Loading…');
  root.append(holder);
  const load = async () => {
    try {
      const id = encodeURIComponent(hash!);
      const tx = (await getOrNull(`/transaction/${id}`)) ?? (await getOrNull(`/mempool/transaction/${id}`));
      if (stopped) return;
      if (!tx) {
        holder.replaceChildren(section('Transaction not found', h('p', null, `No transaction ${hash} is finalized or pending on this node.`)));
        return;
      }
      if (tx.block_height === null) {
        holder.replaceChildren(section('Transaction (pending)', h('p', { class: 'muted', 'data-testid': 'pending' }, 'In the mempool: this page shows its receipt once it is finalized.'), txFields(tx)));
        if (streamRefused) {
          timer = setTimeout(load, PENDING_POLL_MS);
          return;
        }
        unwatch = watchTransaction(tx.hash, {
          finalized: () => void load(),
          dropped: (reason) => {
            if (!stopped) holder.replaceChildren(section('Transaction (dropped)', h('p', { class: 'error', 'data-testid': 'dropped' }, `The mempool dropped it: ${reason}`), txFields(tx)));
          },
          refused: () => {
            streamRefused = true;
            if (!stopped) timer = setTimeout(load, PENDING_POLL_MS);
          },
        });
        return;
      }
      const receipt = await getOrNull(`/transaction/${id}/receipt`);
      if (stopped) return;
      holder.replaceChildren(section('Transaction', txFields(tx)), receipt ? receiptSection(tx.hash, receipt) : section('Receipt', 'No receipt yet.'));
    } catch (e) {
      holder.replaceChildren(h('p', { class: 'error' }, (e as Error).message));
    }
  };
  void load();
  return () => {
    stopped = true;
    unwatch();
    clearTimeout(timer);
  };
}

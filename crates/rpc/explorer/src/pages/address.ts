/**
 * An address: the account (balance and nonce, verified against the account proof), its token
 * holdings, delegations and transactions (`/account/{address}/history`, a page at a time); and
 * when an actor lives there, its summary, code, manifest, storage (each page verified against
 * storage proofs), logs (new ones live from the event stream, past ones a page at a time),
 * mailbox, timers, upgrade history and system runs.
 */
import { type Json, get, getOrNull } from '../api.js';
import { EVENT_HEADERS, eventRow, liveEvents } from '../events.js';
import { cursorList, offsetList } from '../paged.js';
import { type Child, addressLink, amount, badge, blockLink, bytesText, count, drv, errorBox, fields, h, isAddress, keyText, later, link, mono, section, short, txLink } from '../ui.js';
import { type ShownEntry, checkAccount, checkActorStorage } from '../verify.js';
import { show, verifiedMark } from '../verified.js';

function accountSection(address: string, account: Json | null, isActor: boolean): HTMLElement {
  return section(
    'Account',
    verifiedMark(checkAccount(address, account === null ? null : { nonce: account.nonce, balance: account.balance }), account === null ? 'no account record' : 'balance and nonce'),
    account === null
      ? h('p', { class: 'muted' }, isActor ? 'No account record at this address: the actor summary below holds its balance.' : 'No account at this address (never funded).')
      : fields([
          ['Balance', h('span', { 'data-testid': 'balance' }, drv(account.balance))],
          ['Nonce', h('span', { 'data-testid': 'nonce' }, String(account.nonce))],
        ]),
  );
}

/** What the account received in a history entry: native value and tokens (in base units). */
function received(e: Json): Child {
  const parts: Child[] = [];
  if (BigInt(e.value_received) > 0n) parts.push(drv(e.value_received));
  for (const t of e.tokens_received ?? []) parts.push([parts.length > 0 ? ', ' : '', `${t.amount} of `, link(`/token/${t.token}`, short(String(t.token)))]);
  return parts.length > 0 ? parts : '—';
}

function historySection(address: string): HTMLElement {
  return section(
    'Transactions',
    cursorList(
      `/account/${address}/history`,
      ['Transaction', 'Block', 'Direction', 'Status', 'Counterparty', 'Value', 'Received', 'Fee'],
      (items, page) => ({
        extra:
          Number(page.first_indexed_height) > 1
            ? h('p', { class: 'muted' }, `This node holds history from block ${page.first_indexed_height}: older transactions are not listed.`)
            : undefined,
        rows: items.map((e) => [
          txLink(e.tx_hash),
          blockLink(e.block_height),
          e.direction,
          badge(e.status),
          e.direction === 'sent' ? (e.to === null ? 'deploy' : addressLink(e.to)) : addressLink(e.from),
          drv(e.value),
          received(e),
          drv(e.fee),
        ]),
      }),
      'No transactions.',
    ),
  );
}

function holdingsSection(address: string): HTMLElement {
  return section(
    'Token holdings',
    offsetList(`/account/${address}/tokens`, 'tokens', ['Token', 'Symbol', 'Balance', 'Frozen'], (items) => items.map((t) => [link(`/token/${t.token_id}`, mono(t.token_id)), t.symbol, amount(t.balance, Number(t.decimals)), t.frozen ? 'yes' : 'no']), 'No tokens.'),
  );
}

function delegationsSection(address: string): HTMLElement {
  return section(
    'Delegations',
    offsetList(
      `/account/${address}/delegations`,
      'delegations',
      ['Runner', 'Amount', 'Rewards', 'Since', 'Unbonding'],
      (items) => items.map((d) => [link(`/runner/${d.runner}`, mono(d.runner)), drv(d.amount), drv(d.rewards), blockLink(d.since_height), String(d.pending?.length ?? 0)]),
      'No delegations.',
    ),
  );
}

function storageSection(actor: string): HTMLElement {
  return section(
    'Storage',
    later(async () => {
      const { count: entries } = await get(`/actors/${actor}/storage/count`);
      return h('p', { class: 'muted' }, `${count(entries)} entries. Each page is checked against storage proofs of one certified block.`);
    }),
    cursorList(
      `/actors/${actor}/storage`,
      ['Key', 'Value', 'Proof'],
      (items) => {
        const marks = items.map(() => h('span', { class: 'verify verify-pending', 'data-testid': 'verify-entry', 'data-state': 'pending' }, 'verifying…'));
        const record = h('span', { class: 'verify verify-pending', 'data-testid': 'verify-storage', 'data-state': 'pending' }, 'Verifying the actor record and this page of storage…');
        const shown: ShownEntry[] = items.map((e) => ({ key: String(e.key), value: String(e.value) }));
        checkActorStorage(actor, shown).then((checks) => {
          checks.slice(1).forEach((check, i) => {
            const mark = marks[i]!;
            mark.className = `verify ${check.ok ? 'verify-ok' : 'verify-failed'}`;
            mark.dataset.state = check.ok ? 'verified' : 'not-verified';
            mark.textContent = check.ok ? '✔ verified' : `✘ ${check.reason}`;
          });
          const failed = checks.find((check) => !check.ok);
          show(record, failed ?? checks[0]!, items.length > 0 ? `actor record and ${items.length} storage entries` : 'actor record');
        });
        return {
          extra: record,
          rows: items.map((e, i) => {
            const text = keyText(String(e.key));
            return [h('span', { class: 'mono wrap', title: String(e.key) }, text ? `${text} (${e.key})` : String(e.key)), h('span', { class: 'wrap' }, bytesText(e.value)), marks[i]!];
          }),
        };
      },
      'No storage entries.',
    ),
  );
}

function actorSections(address: string, actor: Json, live: HTMLElement): HTMLElement[] {
  return [
    section(
      'Actor',
      fields([
        ['Owner', addressLink(actor.owner, true)],
        ['Balance', drv(actor.balance)],
        ['Nonce', String(actor.nonce)],
        ['Code hash', mono(actor.code_hash)],
        ['Code size', later(async () => `${count((await get(`/actor/${address}/code`)).size)} bytes`)],
        ['Created at', blockLink(actor.created_height)],
        ['Upgrades', String(actor.upgrades)],
        ['Mailbox', `${count(actor.mailbox_count)} messages, ${count(actor.mailbox_bytes)} bytes`],
        ['Manifest', (actor.manifest?.entitlements ?? []).length > 0 ? actor.manifest.entitlements.map((e: string) => h('span', { class: 'tag' }, e)) : 'no entitlements'],
      ]),
    ),
    storageSection(address),
    section('Logs', live, h('h3', null, 'All events, oldest first'), cursorList(`/actor/${address}/logs`, EVENT_HEADERS, (items) => ({ rows: items.map(eventRow) }), 'No events.')),
    section(
      'Mailbox',
      cursorList(`/actors/${address}/mailbox`, ['Seq', 'From', 'Handler', 'Value', 'Cycles', 'Payload'], (items) => ({ rows: items.map((m) => [String(m.seq), addressLink(m.from), m.handler, drv(m.value), count(m.cycles_limit), bytesText(m.payload)]) }), 'No pending messages.'),
    ),
    section('Timers', offsetList(`/actor/${address}/timers`, 'items', ['Id', 'Fires at', 'Handler', 'Cycles', 'Payload'], (items) => items.map((t) => [String(t.id), blockLink(t.height), t.handler, count(t.cycles_limit), bytesText(t.payload)]), 'No pending timers.')),
    section(
      'Upgrade history',
      offsetList(`/actor/${address}/upgrade-history`, 'items', ['Block', 'Old code', 'New code', 'Transaction'], (items) => items.map((u) => [blockLink(u.height), mono(u.old_code_hash), mono(u.new_code_hash), txLink(u.tx_hash)]), 'Never upgraded.'),
    ),
    section(
      'Runs (timers and deliveries)',
      cursorList(
        `/actor/${address}/runs`,
        ['Block', 'Kind', 'Handler', 'Status', 'Cycles', 'Cells', 'Fee', 'Error'],
        (items) => ({ rows: items.map((r) => [blockLink(r.block_height), r.kind, r.handler, badge(r.status), count(r.cycles_used), count(r.cells_used), drv(r.fee), r.error ? `${r.error.code}: ${r.error.message}` : (r.revert_reason ?? '')]) }),
        'No runs.',
      ),
    ),
  ];
}

export function addressPage(root: HTMLElement, [raw]: string[]): () => void {
  const address = String(raw).toLowerCase();
  if (!isAddress(address)) {
    root.append(errorBox(`${raw} is not an address (0x and 40 hex digits).`));
    return () => {};
  }
  let stopped = false;
  let stopLive = () => {};
  root.append(
    later(async () => {
      const [account, actor] = await Promise.all([getOrNull(`/account/${address}`), getOrNull(`/actor/${address}`)]);
      let actorPart: HTMLElement[] = [];
      if (actor && !stopped) {
        const live = liveEvents(address);
        stopLive = live.stop;
        actorPart = actorSections(address, actor, live.element);
      }
      return [
        h('h1', null, actor ? 'Actor ' : 'Account ', h('span', { class: 'mono', 'data-testid': 'address' }, address)),
        accountSection(address, account, actor !== null),
        ...actorPart,
        h('div', { class: 'columns' }, holdingsSection(address), delegationsSection(address)),
        historySection(address),
      ];
    }),
  );
  return () => {
    stopped = true;
    stopLive();
  };
}

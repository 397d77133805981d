// The explorer in a real browser against a real devnet: Debian's Chromium, driven by
// playwright-core, on the pages a `drover dev` node serves on 127.0.0.1 (free ports, a
// temporary directory). The test sends a transfer, a reverted call, deploys and calls actors
// and creates a token with the `drover` CLI, then opens every page and checks it shows them;
// the account and actor-storage pages must say "verified", and must not once the proof the
// browser receives is altered. Live pages must update from the node's streams (new blocks, an
// actor's new events, a pending transaction's receipt) without polling, and fall back to
// polling when the node refuses a stream.
//
// Run after `cargo build -p drover` (or any build of the binary) and `npm ci` here:
//     DROVER_BIN=../../../target/debug/drover node --test test/e2e.test.mjs
// DROVER_BIN defaults to target/debug/drover under CARGO_TARGET_DIR or the workspace;
// CHROMIUM to /usr/bin/chromium. EXPLORER_SCREENSHOTS=<dir> saves the home and transaction
// pages as PNG (docs/explorer-home.png and docs/explorer-tx.png come from it).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const workspace = resolve(here, '../../../..');
const BIN = process.env.DROVER_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(workspace, 'target'), 'debug', 'drover');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
/** Longest wait for the devnet's first blocks, milliseconds. */
const START_TIMEOUT_MS = 120_000;
/** Longest wait for something to appear on a page, milliseconds. */
const PAGE_TIMEOUT_MS = 30_000;

const run = promisify(execFile);
let dir;
let node;
let url;
let browser;
const sent = {};

/** A port nothing listens on now (the OS picks it). */
function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}

/**
 * `drover --rpc-url <node> ...args`: its `field: value` lines (the first word of each value).
 * A command whose transaction failed exits non-zero but still reports it, so its fields are
 * returned too and the caller checks `status`.
 */
async function drover(...args) {
  const out = await run(BIN, ['--rpc-url', url, ...args], { cwd: workspace, timeout: 60_000 }).catch((e) => {
    if (typeof e.stdout === 'string' && e.stdout.includes('status:')) return e;
    throw e;
  });
  return Object.fromEntries([...out.stdout.matchAll(/^([a-z ]+):\s+(\S+)/gm)].map((m) => [m[1], m[2]]));
}

async function waitForHeight(minimum) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/height`);
      if (response.ok && (await response.json()).height >= minimum) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((ok) => setTimeout(ok, 250));
  }
  throw new Error(`the devnet at ${url} did not reach height ${minimum} in time`);
}

before(async () => {
  assert.ok(existsSync(BIN), `no drover binary at ${BIN}: build it (cargo build -p drover) or set DROVER_BIN`);
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM`);
  dir = mkdtempSync(join(tmpdir(), 'drover-explorer-'));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  url = `http://127.0.0.1:${rpcPort}`;
  let banner = '';
  node = spawn(BIN, ['dev', '--dir', join(dir, 'dev'), '--rpc-port', String(rpcPort), '--p2p-port', String(p2pPort)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: 'warn' },
  });
  node.stdout.on('data', (chunk) => {
    banner += chunk;
  });
  node.stderr.resume();
  await waitForHeight(2);
  const keys = [...banner.matchAll(/\((\d)\) (0x[0-9a-f]{40}) {2}private key (0x[0-9a-f]{64})/g)];
  assert.ok(keys.length >= 2, `dev accounts not found in the banner:\n${banner}`);
  const keyFile = join(dir, 'alice.key');
  writeFileSync(keyFile, keys[1][3]);
  sent.sender = keys[1][2];
  sent.key = keyFile;
  sent.recipient = `0x${'5e'.repeat(19)}01`;

  const transfer = await drover('transfer', '--key', keyFile, '--to', sent.recipient, '--amount', '1.5drv', '--wait');
  assert.equal(transfer.status, 'success');
  sent.transfer = transfer.hash;
  const deploy = await drover('deploy', join(workspace, 'actors/counter.wat'), '--manifest', 'storage.kv', '--key', keyFile);
  assert.equal(deploy.status, 'success');
  sent.actor = deploy.actor;
  const echo = await drover('deploy', join(workspace, 'actors/echo.wat'), '--manifest', 'events.emit', '--key', keyFile);
  assert.equal(echo.status, 'success');
  sent.echo = echo.actor;
  assert.equal((await drover('call', sent.actor, 'increment', '--key', keyFile)).status, 'success');
  // Its simulation finds it would revert: both limits given, the CLI sends it anyway.
  const reverted = await drover('call', sent.actor, 'bump_and_revert', '--key', keyFile, '--cycles', '1000000', '--cells', '10000');
  assert.equal(reverted.status, 'reverted');
  sent.reverted = reverted.hash;
  const token = await drover('token', 'create', '--key', keyFile, '--name', 'Gold', '--symbol', 'GLD', '--decimals', '2', '--supply', '1000GLD');
  assert.equal(token.status, 'success');
  sent.token = token.token;
  for (const args of [
    ['gov', 'lock', '--amount', '1000drv'],
    ['gov', 'propose', '--change', 'target_cycles=20000000', '--description', 'fuller blocks'],
    ['gov', 'vote', '0', '--support', 'for'],
  ]) {
    assert.equal((await drover(...args, '--key', keyFile)).status, 'success', args.join(' '));
  }

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  if (node && node.exitCode === null) {
    const exited = new Promise((ok) => node.once('exit', ok));
    node.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh page (its own storage) that fails the test on a script error; `page.requests` lists
 * the path of every request it sends, in order (streams included).
 */
async function open(route = '') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.errors = errors;
  page.requests = [];
  page.on('request', (request) => page.requests.push(new URL(request.url()).pathname));
  await page.goto(`${url}/explorer/#${route}`);
  return page;
}

/** Waits until the page shows `route` (its location's hash). */
async function waitForRoute(page, route) {
  await page.waitForFunction((hash) => location.hash === hash, `#${route}`);
}

async function search(page, text) {
  await page.fill('input[name=q]', text);
  await page.press('input[name=q]', 'Enter');
}

async function screenshot(page, name) {
  const out = process.env.EXPLORER_SCREENSHOTS;
  if (out) await page.screenshot({ path: join(out, name), fullPage: false });
}

/** The requests `page` sent since it had sent `from`, that read blocks or the height (polling). */
function polls(page, from) {
  return page.requests.slice(from).filter((path) => path === '/height' || path.startsWith('/block/'));
}

/** The height in the first row of the page's block table. */
async function topHeight(page) {
  return Number(await page.locator('table tbody tr').first().locator('td').first().innerText());
}

/** Sends `count` transfers from the test's key without waiting (consecutive nonces); their hashes. */
async function burst(count) {
  const { nonce } = await (await fetch(`${url}/account/${sent.sender}`)).json();
  const hashes = [];
  for (let i = 0; i < count; i++) {
    const to = `0x${'7a'.repeat(19)}${i.toString(16).padStart(2, '0')}`;
    hashes.push((await drover('transfer', '--key', sent.key, '--to', to, '--amount', '0.01drv', '--nonce', String(nonce + i))).hash);
  }
  return hashes;
}

test('home shows the chain live: height, charts, mempool, health, new blocks without reload', async () => {
  const page = await open();
  const height = page.getByTestId('height');
  await assert.doesNotReject(height.locator('a').waitFor());
  const first = Number(await height.innerText());
  assert.ok(first >= 2, `height ${first}`);
  const loaded = page.requests.length;
  await page.waitForFunction((h) => Number(document.querySelector('[data-testid=height]')?.textContent) > h, first);
  // The new block came on the block stream: nothing polled the height or read a block.
  assert.ok(page.requests.includes('/stream/blocks'), `no block stream among ${page.requests}`);
  assert.deepEqual(polls(page, loaded), []);
  await page.getByTestId('chart-tps').locator('svg').waitFor();
  await page.getByTestId('chart-basefee-cycle').locator('svg').waitFor();
  await page.getByTestId('chart-basefee-cell').locator('svg').waitFor();
  await page.waitForFunction(() => /txs$/.test(document.querySelector('[data-testid=mempool]')?.textContent ?? ''));
  assert.equal(await page.getByTestId('health').innerText(), 'ok');
  assert.match(await page.getByTestId('block-age').innerText(), /ago$/);
  // Transactions sent now appear under "Latest transactions" without a reload.
  const hashes = await burst(6);
  await page.locator(`a[href="#/tx/${hashes[hashes.length - 1]}"]`).waitFor();
  await screenshot(page, 'explorer-home.png');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('search finds a transfer and its receipt, verified', async () => {
  const page = await open();
  await search(page, sent.transfer);
  await waitForRoute(page, `/tx/${sent.transfer}`);
  assert.equal(await page.getByTestId('receipt-status').innerText(), 'success');
  assert.match(await page.getByTestId('fee').innerText(), /DRV$/);
  await page.locator('[data-testid=verify][data-state=verified]').waitFor();
  await page.getByText('Fee split').waitFor();
  await screenshot(page, 'explorer-tx.png');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a reverted call shows its revert reason and E-code with the fix', async () => {
  const page = await open(`/tx/${sent.reverted}`);
  assert.equal(await page.getByTestId('receipt-status').innerText(), 'reverted');
  const ecode = page.getByTestId('ecode');
  assert.match(await ecode.innerText(), /^E\d{4}/);
  assert.match(await ecode.innerText(), /Fix: \S/);
  await page.getByText('changed my mind').first().waitFor();
  await page.context().close();
});

test('the block list grows from the stream without reload', async () => {
  const page = await open('/blocks');
  await page.locator('table tbody tr').first().waitFor();
  const first = await topHeight(page);
  const loaded = page.requests.length;
  await page.waitForFunction((h) => Number(document.querySelector('table tbody tr td')?.textContent) > h, first);
  assert.ok(page.requests.includes('/stream/blocks'));
  assert.deepEqual(polls(page, loaded), []);
  assert.equal(await page.locator('table tbody tr').count(), 20);
  await page.getByRole('link', { name: 'Older »' }).click();
  await page.waitForFunction(() => location.hash.startsWith('#/blocks?before='));
  // The newer page's rows stay until the older page has loaded: wait for the older heights.
  await page.waitForFunction((h) => Number(document.querySelector('table tbody tr td')?.textContent) < h, first);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a refused block stream falls back to polling', async () => {
  const page = await open();
  await page.route('**/stream/blocks**', (route) => route.fulfill({ status: 429, contentType: 'application/json', body: '{"code":1004,"error":"rate_limited","message":"too many streams"}' }));
  // The first poll follows the refusal at once, possibly before the table has rendered: count
  // the requests from the navigation on (only the block feed's polling reads `/height`).
  const refused = page.requests.length;
  await page.goto(`${url}/explorer/#/blocks`);
  await page.locator('table tbody tr').first().waitFor();
  const first = await topHeight(page);
  await page.waitForFunction((h) => Number(document.querySelector('table tbody tr td')?.textContent) > h, first);
  assert.ok(polls(page, refused).includes('/height'), `no polling among ${page.requests.slice(refused)}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a pending transaction shows its receipt once finalized, from its stream', async () => {
  // A nonce one ahead waits in the mempool until the nonce before it is sent.
  const { nonce } = await (await fetch(`${url}/account/${sent.sender}`)).json();
  const to = `0x${'6d'.repeat(20)}`;
  const ahead = await drover('transfer', '--key', sent.key, '--to', to, '--amount', '0.01drv', '--nonce', String(nonce + 1));
  const page = await open(`/tx/${ahead.hash}`);
  await page.getByTestId('pending').waitFor();
  await new Promise((ok) => setTimeout(ok, 2_500));
  const lookups = () => page.requests.filter((path) => path.endsWith(ahead.hash) && !path.startsWith('/stream/'));
  const pendingLookups = lookups().length;
  assert.ok(pendingLookups <= 2, `the pending transaction was looked up ${pendingLookups} times`);
  assert.ok(page.requests.includes(`/stream/tx/${ahead.hash}`));
  assert.equal((await drover('transfer', '--key', sent.key, '--to', to, '--amount', '0.01drv', '--nonce', String(nonce), '--wait')).status, 'success');
  assert.equal(await page.getByTestId('receipt-status').innerText(), 'success');
  await page.locator('[data-testid=verify][data-state=verified]').waitFor();
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the account page shows the balance, history and a verified mark', async () => {
  const again = await drover('transfer', '--key', sent.key, '--to', sent.recipient, '--amount', '0.5drv', '--wait');
  assert.equal(again.status, 'success');
  const page = await open();
  await search(page, sent.recipient);
  await waitForRoute(page, `/address/${sent.recipient}`);
  assert.equal(await page.getByTestId('balance').innerText(), '2 DRV');
  await page.locator('[data-testid=verify][data-state=verified]').waitFor();
  assert.match(await page.getByTestId('verify').innerText(), /Verified: balance and nonce proven at block \d+/);
  // The history route lists both transfers, the newest first, as received.
  const rows = page.getByRole('heading', { name: 'Transactions', exact: true }).locator('..').locator('tbody tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 2);
  assert.equal(await rows.nth(0).locator(`a[href="#/tx/${again.hash}"]`).count(), 1);
  assert.equal(await rows.nth(1).locator(`a[href="#/tx/${sent.transfer}"]`).count(), 1);
  assert.match(await rows.nth(1).innerText(), /received\s+success/);
  assert.ok(page.requests.includes(`/account/${sent.recipient}/history`));
  assert.deepEqual(page.errors, []);
  await page.context().close();

  // The sender's history, a page at a time: the transfer is among its transactions.
  const sender = await open(`/address/${sent.sender.toLowerCase()}`);
  const history = sender.getByRole('heading', { name: 'Transactions', exact: true }).locator('..');
  await history.locator('tbody tr').first().waitFor();
  assert.match(await history.locator('tbody tr').first().innerText(), /sent\s+success/);
  while ((await history.locator(`a[href="#/tx/${sent.transfer}"]`).count()) === 0) {
    const older = history.getByRole('button', { name: 'Next »' });
    assert.equal(await older.count(), 1, 'the transfer is not in the sender\'s history');
    await older.click();
    await history.locator('tbody tr').first().waitFor();
  }
  await sender.context().close();
});

test('a tampered account proof shows as not verified', async () => {
  const page = await open();
  await page.route('**/proof/account/**', async (route) => {
    const response = await route.fetch();
    const proof = await response.json();
    // Another balance in the proven record: the Merkle proof no longer matches the root.
    const value = Buffer.from(proof.value, 'base64');
    value[value.length - 1] ^= 1;
    proof.value = value.toString('base64');
    await route.fulfill({ response, json: proof });
  });
  await page.goto(`${url}/explorer/#/address/${sent.recipient}`);
  assert.equal(await page.getByTestId('balance').innerText(), '2 DRV');
  const mark = page.locator('[data-testid=verify][data-state=not-verified]');
  await mark.waitFor();
  assert.match(await mark.innerText(), /Not verified/);
  assert.equal(await page.locator('[data-testid=verify][data-state=verified]').count(), 0);
  await page.context().close();
});

test('the actor page shows its summary and verified storage; a tampered storage proof does not verify', async () => {
  const page = await open(`/address/${sent.actor}`);
  await page.getByText('storage.kv').first().waitFor();
  await page.getByText('count (0x636f756e74)').waitFor();
  await page.locator('[data-testid=verify-storage][data-state=verified]').waitFor();
  await page.locator('[data-testid=verify-entry][data-state=verified]').waitFor();
  for (const title of ['Logs', 'Mailbox', 'Timers', 'Upgrade history', 'Runs (timers and deliveries)']) {
    await page.getByRole('heading', { name: title, exact: true }).waitFor();
  }
  await page.getByText(/\d+ bytes/).first().waitFor();
  assert.deepEqual(page.errors, []);
  await page.context().close();

  // An actor's new events appear from the event stream while its page is open.
  const echo = await open(`/address/${sent.echo}`);
  await echo.getByTestId('live-events').waitFor();
  await echo.getByRole('heading', { name: 'All events, oldest first' }).waitFor();
  assert.equal((await drover('call', sent.echo, 'echo', '--text', 'hello explorer', '--key', sent.key)).status, 'success');
  await echo.getByTestId('live-events').getByText('hello explorer').waitFor();
  assert.ok(echo.requests.some((path) => path === '/stream/events'));
  assert.deepEqual(echo.errors, []);
  await echo.context().close();

  const tampered = await open();
  await tampered.route('**/proof/multi', async (route) => {
    const response = await route.fetch();
    const answer = await response.json();
    const storage = answer.results.find((item) => item.kind === 'storage');
    const value = Buffer.from(storage.value, 'base64');
    value[0] ^= 1;
    storage.value = value.toString('base64');
    await route.fulfill({ response, json: answer });
  });
  await tampered.goto(`${url}/explorer/#/address/${sent.actor}`);
  await tampered.locator('[data-testid=verify-entry][data-state=not-verified]').waitFor();
  await tampered.locator('[data-testid=verify-storage][data-state=not-verified]').waitFor();
  await tampered.context().close();
});

test('search by height opens the block; every other page renders real data', async () => {
  const page = await open();
  await search(page, '1');
  await waitForRoute(page, '/block/1');
  await page.getByRole('heading', { name: 'Block 1' }).waitFor();

  await page.goto(`${url}/explorer/#/blocks`);
  await page.locator('table tbody tr').first().waitFor();

  await page.goto(`${url}/explorer/#/tokens`);
  await page.getByRole('cell', { name: 'GLD' }).waitFor();
  await page.locator('a[href^="#/token/"]').first().click();
  await page.getByRole('heading', { name: 'Gold (GLD)' }).waitFor();
  // Its events come from the event query by emitter (the token's id).
  await page.getByRole('cell', { name: 'token.created', exact: true }).waitFor();

  await page.goto(`${url}/explorer/#/runners`);
  await page.getByRole('heading', { name: 'Active runners' }).waitFor();
  await page.getByText('No healthy runners.').waitFor();

  await page.goto(`${url}/explorer/#/governance`);
  await page.getByRole('cell', { name: 'target_cycles' }).first().waitFor();
  await page.getByRole('link', { name: '#0', exact: true }).click();
  await page.getByRole('heading', { name: 'Proposal #0' }).waitFor();
  await page.getByText('fuller blocks').waitFor();
  await page.getByRole('heading', { name: 'Votes', exact: true }).locator('..').getByRole('cell', { name: 'for', exact: true }).waitFor();

  await page.goto(`${url}/explorer/#/runner/${sent.sender}`);
  await page.getByRole('heading', { name: 'Runner not found' }).waitFor();
  await page.goto(`${url}/explorer/#/job/0x${'11'.repeat(32)}`);
  await page.getByRole('heading', { name: 'Job not found' }).waitFor();

  await page.goto(`${url}/explorer/#/storage`);
  await page.getByText('Rent paid to relays').waitFor();

  await page.goto(`${url}/explorer/#/trust`);
  const identity = (await (await fetch(`${url}/chain-info`)).json()).identity;
  await page.getByTestId('identity').waitFor();
  assert.equal(await page.getByTestId('identity').innerText(), `0x${identity.replace(/^0x/, '')}`.toLowerCase());

  await search(page, `0x${'00'.repeat(32)}`);
  await page.getByText(/No transaction, block or job has the hash/).waitFor();
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

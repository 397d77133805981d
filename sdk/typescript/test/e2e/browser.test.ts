// The SDK in a real browser: test/browser/page.ts, bundled by esbuild, runs in Debian's headless
// Chromium (driven by playwright-core; `CHROMIUM_PATH` names another build) on a page served from
// its own 127.0.0.1 port, against the devnet of ./devnet.ts: cross-origin, as a web app calls a
// node, so the node's CORS policy must let the page send what the SDK sends (CBOR submissions,
// JSON bodies, the `/ras` headers).
import { existsSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { PageReport } from '../browser/page.js';

const { url, identity } = inject('devnet');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Flags for a headless run on a machine without a sandbox or outside network. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let server: Server;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium package or set CHROMIUM_PATH`);
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('../browser/page.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  const script = bundle.outputFiles[0]!.contents;
  const html = '<!doctype html><meta charset="utf-8"><title>Drover SDK</title><script type="module" src="/sdk.js"></script>';
  server = createServer((request, response) => {
    if (request.url === '/sdk.js') response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    else if (request.url === '/') response.writeHead(200, { 'Content-Type': 'text/html' }).end(html);
    else if (request.url === '/favicon.ico') response.writeHead(204).end();
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

it('runs in Chromium: faucet, transfer, verified balance, refused tampering, RAS session', async () => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // A 404 is an answer the SDK expects (a receipt polled before it is final), which Chromium logs.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().includes('status of 404')) errors.push(message.text());
  });
  await page.goto(origin);
  await page.waitForFunction(() => 'runSdk' in globalThis);
  const report: PageReport = await page.evaluate(
    ([node, key]) => (globalThis as unknown as { runSdk: (u: string, i: string) => Promise<PageReport> }).runSdk(node!, key!),
    [url, identity],
  );
  expect(errors).toEqual([]);
  expect(report).toEqual({
    sender: report.sender,
    status: 'success',
    provenBalance: '777',
    balanceIsBigint: true,
    tampered: 'FieldMismatch',
    rasWallet: report.sender,
  });
  await page.close();
});

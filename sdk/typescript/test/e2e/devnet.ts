// Global setup of the end-to-end tests: one real `drover dev` node for the whole run, started from
// the debug build of this repository (`cargo build -p drover`; `DROVER_BIN` names another binary)
// in a temporary directory, on 127.0.0.1 ports the system hands out. The tests get its URL and the
// `identity` of its genesis file (the group key proofs are verified against) and its path; the node is stopped
// by its PID, and the directory deleted, when the run ends. Its output is kept in `node.log` there
// and printed when it fails to come up.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { genesisIdentity } from '../../src/index.js';

/** What the tests are handed (`inject('devnet')`). */
export interface Devnet {
  url: string;
  /** The genesis file's `identity`: the network's group public key, hex. */
  identity: string;
  /** The genesis file's path. */
  genesis: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    devnet: Devnet;
  }
}

/** How long a debug build may take to finalize its first block on a cold disk. */
const STARTUP_TIMEOUT_MS = 90_000;
/** How long the node may take to stop on SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 30_000;

const repo = fileURLToPath(new URL('../../../../', import.meta.url));

/** The `drover` binary: `DROVER_BIN`, else the debug build in `CARGO_TARGET_DIR` or `target/`. */
export function droverBinary(): string {
  const path = process.env.DROVER_BIN ?? join(process.env.CARGO_TARGET_DIR ?? join(repo, 'target'), 'debug', 'drover');
  if (!existsSync(path)) throw new Error(`no drover binary at ${path}: run \`cargo build -p drover\` or set DROVER_BIN`);
  return path;
}

/** A loopback port that was free a moment ago (bound, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForFirstBlock(url: string, node: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (node.exitCode !== null) throw new Error(`drover dev exited with ${node.exitCode}:\n${readFileSync(log, 'utf8')}`);
    try {
      const answer = await fetch(`${url}/height`);
      if (answer.ok && ((await answer.json()) as { height: number }).height >= 1) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`drover dev did not finalize a block in time:\n${readFileSync(log, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function stop(node: ChildProcess): Promise<void> {
  if (node.exitCode !== null || node.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => node.kill('SIGKILL'), STOP_TIMEOUT_MS);
    node.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    node.kill('SIGTERM');
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const binary = droverBinary();
  const dir = mkdtempSync(join(tmpdir(), 'drover-sdk-e2e-'));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const log = join(dir, 'node.log');
  const out = openSync(log, 'w');
  const devnet = join(dir, 'devnet');
  const node = spawn(
    binary,
    ['dev', '--dir', devnet, '--rpc-port', String(rpcPort), '--p2p-port', String(p2pPort)],
    {
      // The tests poll and page quickly; the faucet keeps its own limit.
      env: { ...process.env, RPC_GLOBAL_RATE_LIMIT_PER_SEC: '100000', RUST_LOG: 'warn' },
      stdio: ['ignore', out, out],
    },
  );
  const url = `http://127.0.0.1:${rpcPort}`;
  try {
    await waitForFirstBlock(url, node, log);
  } catch (error) {
    await stop(node);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const genesis = join(devnet, 'genesis.yaml');
  project.provide('devnet', { url, identity: genesisIdentity(readFileSync(genesis, 'utf8')), genesis });
  return async () => {
    await stop(node);
    rmSync(dir, { recursive: true, force: true });
  };
}

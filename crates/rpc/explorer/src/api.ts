/**
 * The explorer's only way to the node: the public HTTP API of the node that served the page
 * (same origin), read like any client. Integers above 2^53 (balances, amounts) are read as
 * `bigint` by the SDK's JSON reader. The explorer obeys the node's limits: at most
 * {@link IN_FLIGHT_MAX} requests at once, and a 429 or 503 is retried after the `Retry-After`
 * the node sent (at most {@link RETRIES_MAX} times), never sooner.
 */
import { parseJson } from '../../../../sdk/typescript/src/json.js';

/** Requests the page has in flight at once: its pages fan out, the node's rate limit is global. */
export const IN_FLIGHT_MAX = 4;
/** Retries of a request the node refused as busy (429) or timed out (503). */
export const RETRIES_MAX = 3;
/** Longest wait before a retry, seconds, whatever `Retry-After` says. */
const RETRY_WAIT_MAX_SECS = 10;

/** A JSON value as the node sent it (objects are records of JSON values). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** An error answer of the node (`{"code", "error", "message"}`), or a failure to reach it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The node answered 404 (unknown item, not an unknown route). */
  get notFound(): boolean {
    return this.status === 404;
  }
}

let inFlight = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<void> {
  if (inFlight < IN_FLIGHT_MAX) {
    inFlight++;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function release(): void {
  const next = waiting.shift();
  if (next) next();
  else inFlight--;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function request(path: string, init?: RequestInit): Promise<Json> {
  for (let attempt = 0; ; attempt++) {
    await slot();
    let response: Response;
    let text: string;
    try {
      response = await fetch(path, { ...init, headers: { accept: 'application/json', ...init?.headers } });
      text = await response.text();
    } catch (e) {
      throw new ApiError(0, null, `the node cannot be reached: ${(e as Error).message}`);
    } finally {
      release();
    }
    if ((response.status === 429 || response.status === 503) && attempt < RETRIES_MAX) {
      const after = Number(response.headers.get('retry-after') ?? '1');
      await sleep(Math.min(Number.isFinite(after) && after > 0 ? after : 1, RETRY_WAIT_MAX_SECS) * 1000);
      continue;
    }
    let body: Json;
    try {
      body = parseJson(text);
    } catch {
      throw new ApiError(response.status, null, `${path}: the node answered ${response.status} with a body that is not JSON`);
    }
    if (!response.ok) {
      const code = typeof body?.code === 'number' ? body.code : null;
      const message = typeof body?.message === 'string' ? body.message : `HTTP ${response.status}`;
      throw new ApiError(response.status, code, message);
    }
    return body;
  }
}

/** `GET path` (path and query as the API spells them). */
export function get(path: string): Promise<Json> {
  return request(path);
}

/** `GET path`, or `null` when the node answers 404. */
export async function getOrNull(path: string): Promise<Json | null> {
  try {
    return await get(path);
  } catch (e) {
    if (e instanceof ApiError && e.notFound) return null;
    throw e;
  }
}

/** `POST path` with a JSON body. */
export function postJson(path: string, body: unknown): Promise<Json> {
  return request(path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}

/**
 * The typed HTTP client: one method per route the node serves (the {@link ROUTES} table; a test
 * checks it against the node's OpenAPI document), plus what a wallet needs on top: building,
 * signing and sending transactions ({@link DroverClient.send}), sizing their limits from a
 * simulation ({@link DroverClient.estimate}), `submit`, `submitAndWait`, waiting for a receipt,
 * pagination helpers and a polling stream of an actor's logs.
 *
 * Sending follows the Rust `TxBuilder::prepare` and the CLI: {@link DroverClient.prepare} asks the
 * node once for the chain id, nonce and fees a request leaves open, sizes its open limits from the
 * node's simulation of it sent with those, and signs it with the same values; {@link
 * DroverClient.send} does that and submits, unless the simulation finds the transaction would not
 * succeed ({@link SimulationFailedError}: nothing is sent). A request whose limits are both set is
 * signed and sent without a simulation, whatever it would do.
 *
 * The push streams (`/stream/blocks`, `/stream/tx/{hash}`, `/stream/events`) are async
 * iterators of {@link StreamMessage}s read from the server-sent events of one `fetch`: each
 * message carries its `id` (block and event streams), which `lastEventId` takes to resume after
 * it; the node ends a stream with a `closed` message (a slow consumer, a restart) naming the last
 * id it sent. Breaking out of the loop, or aborting `signal`, closes the connection.
 *
 * Responses are the OpenAPI document's types (`src/generated/openapi.ts`) with every amount a
 * `bigint`. Errors come back as {@link DroverApiError} with the node's numeric code; lookups of
 * one record answer `null` for "not found" (404) where the Rust client answers `None`.
 *
 * The client uses the global `fetch` (Node.js 20+, browsers) unless one is passed in. The `/ras`
 * owner routes sign each request with a {@link RasSigner}; a browser may send those headers to any
 * node (the node's CORS policy allows them).
 */
import { type Hash, type BytesLike, bytesOf, toBase64, toHex, utf8, normalizeAddress } from './bytes.js';
import { type FeeSuggestion, type TxContext, type TxRequest, buildTransaction, limitsFrom, limitsSet, needsFees, simulateRequest } from './builder.js';
import type { components } from './generated/openapi.js';
import { parseJson, schemaWithAmounts, stringifyJson, withAmounts } from './json.js';
import type { Wallet } from './keys.js';
import { type RasSigner, nodeAudience } from './ras.js';
import { type Transaction, encodeSubmission, encodeTransaction, signTransaction, transactionHash } from './transaction.js';

/** Every schema of the node's OpenAPI document, amounts as `bigint`. */
export type Schemas = components['schemas'];

/** Every route: method name → `[HTTP method, path template]`. */
export const ROUTES = {
  submit: ['POST', '/submit'],
  submitAndWait: ['POST', '/submit_wait'],
  transaction: ['GET', '/transaction/{hash}'],
  receipt: ['GET', '/transaction/{hash}/receipt'],
  pendingTransaction: ['GET', '/mempool/transaction/{hash}'],
  account: ['GET', '/account/{address}'],
  actor: ['GET', '/actor/{address}'],
  actorCode: ['GET', '/actor/{address}/code'],
  actorManifest: ['GET', '/actor/{address}/manifest'],
  actorRead: ['POST', '/actor/read'],
  actorUpgradeHistory: ['GET', '/actor/{address}/upgrade-history'],
  actorStorage: ['GET', '/actors/{address}/storage'],
  actorStorageCount: ['GET', '/actors/{address}/storage/count'],
  actorMailbox: ['GET', '/actors/{address}/mailbox'],
  actorTimers: ['GET', '/actor/{address}/timers'],
  actorLogs: ['GET', '/actor/{address}/logs'],
  actorRuns: ['GET', '/actor/{address}/runs'],
  tokens: ['GET', '/tokens'],
  token: ['GET', '/token/{token_id}'],
  tokenBalance: ['GET', '/token/{token_id}/balance/{address}'],
  tokenAllowance: ['GET', '/token/{token_id}/allowance/{owner}/{spender}'],
  accountTokens: ['GET', '/account/{address}/tokens'],
  activeRunners: ['GET', '/runners/active'],
  runner: ['GET', '/runner/{address}'],
  heartbeatPayload: ['GET', '/runner/{address}/heartbeat_payload'],
  postHeartbeat: ['POST', '/runner/{address}/heartbeat'],
  delegations: ['GET', '/account/{address}/delegations'],
  runnerJobs: ['GET', '/runner/{address}/jobs'],
  jobResultPayload: ['GET', '/runner/{address}/job_result_payload'],
  postJobResult: ['POST', '/runner/{address}/job_result'],
  rasChallenge: ['GET', '/ras/challenge'],
  rasMe: ['GET', '/ras/auth/me'],
  rasStats: ['GET', '/ras/stats'],
  rasPublicRelays: ['GET', '/ras/relays/public'],
  rasWriteRelayers: ['GET', '/ras/write-relayers'],
  rasBillingSummary: ['GET', '/ras/billing/summary'],
  rasRevocation: ['GET', '/ras/revocations/{wallet}/{session_key}'],
  rasBalance: ['GET', '/ras/accounts/balance'],
  rasVolumes: ['GET', '/ras/volumes'],
  rasCreateVolume: ['POST', '/ras/volumes'],
  rasVolume: ['GET', '/ras/volumes/{volume_id}'],
  rasDeleteVolume: ['POST', '/ras/volumes/{volume_id}/delete'],
  rasUndeleteVolume: ['POST', '/ras/volumes/{volume_id}/undelete'],
  rasDeposit: ['POST', '/ras/volumes/{volume_id}/deposit'],
  rasRevoke: ['POST', '/ras/revoke'],
  libraries: ['GET', '/library/{publisher}'],
  library: ['GET', '/library/{publisher}/{name}'],
  secrets: ['GET', '/secrets/{owner}'],
  secretEnvelope: ['GET', '/secrets/{owner}/{name}/envelope/{reader}'],
  governanceParams: ['GET', '/governance/params'],
  proposals: ['GET', '/governance/proposals'],
  proposal: ['GET', '/governance/proposal/{id}'],
  job: ['GET', '/job/{job_id}'],
  jobStatus: ['GET', '/job/{job_id}/status'],
  jobResults: ['GET', '/job/{job_id}/results'],
  jobVerified: ['GET', '/job/{job_id}/verified'],
  entitlements: ['GET', '/entitlements/registry'],
  validateManifest: ['POST', '/entitlements/validate-manifest'],
  height: ['GET', '/height'],
  block: ['GET', '/block/{selector}'],
  chainInfo: ['GET', '/chain-info'],
  basefee: ['GET', '/basefee'],
  health: ['GET', '/health'],
  healthDetailed: ['GET', '/health/detailed'],
  healthReady: ['GET', '/health/ready'],
  metrics: ['GET', '/metrics'],
  faucet: ['POST', '/faucet'],
  stateSnapshot: ['GET', '/state/snapshot'],
  stateOperations: ['GET', '/state/operations'],
  stateValue: ['GET', '/state/{actor}/{key_hex}'],
  proofAccount: ['GET', '/proof/account/{address}'],
  proofActor: ['GET', '/proof/actor/{address}'],
  proofStorage: ['GET', '/proof/storage/{address}/{key}'],
  proofTx: ['GET', '/proof/tx/{tx_hash}'],
  proofReceipt: ['GET', '/proof/receipt/{tx_hash}'],
  proofMulti: ['POST', '/proof/multi'],
  history: ['GET', '/account/{address}/history'],
  blocks: ['GET', '/blocks'],
  indexed: ['GET', '/indexed'],
  events: ['GET', '/events'],
  streamBlocks: ['GET', '/stream/blocks'],
  streamTransaction: ['GET', '/stream/tx/{hash}'],
  streamEvents: ['GET', '/stream/events'],
  simulate: ['POST', '/simulate'],
} as const satisfies Record<string, readonly ['GET' | 'POST', string]>;

type Route = (typeof ROUTES)[keyof typeof ROUTES];

/** An error answer of the node: `{code, error, message}` with its HTTP status. */
export class DroverApiError extends Error {
  constructor(
    /** HTTP status. */
    readonly status: number,
    /** The API's numeric code (`docs/errors.md`). */
    readonly code: number,
    /** Its snake-case name. */
    readonly error: string,
    message: string,
    /** Seconds to wait before retrying, from `Retry-After` (429 and 503). */
    readonly retryAfter?: number,
  ) {
    super(`${error} (${code}): ${message}`);
    this.name = 'DroverApiError';
  }
}

/**
 * A simulation found that a transaction whose limits were open would not succeed: nothing was sent
 * (as the CLI refuses to). `simulation` says what it would do; set both limits to send it anyway.
 */
export class SimulationFailedError extends Error {
  constructor(
    /** The node's simulation: `status`, `revert_reason`, `error`, what it used. */
    readonly simulation: Schemas['SimulationInfo'],
  ) {
    const why = simulation.revert_reason ?? (simulation.error ? `${simulation.error.code}: ${simulation.error.message}` : undefined);
    super(
      `a simulation finds the transaction would be ${simulation.status}${why === undefined ? '' : ` (${why})`}: nothing was sent ` +
        '(set cyclesLimit and cellsLimit to send it anyway)',
    );
    this.name = 'SimulationFailedError';
  }
}

/** Offset pagination (`?offset=&limit=`). */
export interface PageQuery {
  offset?: number;
  limit?: number;
}

/** Cursor pagination (`?cursor=&limit=`). */
export interface CursorQuery {
  cursor?: string;
  limit?: number;
}

/** What an event query or stream selects (empty lists select any). */
export interface EventFilter {
  /** Emitted by one of these (at most 16). */
  emitters?: string[];
  /** With one of these topics (at most 4, each at most 64 bytes). */
  topics?: string[];
  /** First height (`events`: default the last 10,000 blocks; streams: default the next block). */
  fromHeight?: number | bigint;
  /** Last height (default: the tip); `events` only. */
  toHeight?: number | bigint;
}

/** One message of a push stream. */
export type StreamMessage =
  | { event: 'block'; id: string; data: Schemas['BlockSummary'] }
  | { event: 'receipt'; data: Schemas['ReceiptInfo'] }
  | { event: 'dropped'; data: Schemas['DroppedInfo'] }
  | { event: 'event'; id: string; data: Schemas['IndexedEvent'] }
  | { event: 'closed'; data: Schemas['StreamClosed'] };

/** Where a stream starts and what stops it. */
export interface StreamOptions {
  /** The `id` of the last message received: the stream goes on after it. */
  lastEventId?: string;
  /** Aborting it closes the stream. */
  signal?: AbortSignal;
}

/** The schema of each stream message's data. */
const STREAM_SCHEMAS: Record<StreamMessage['event'], string> = {
  block: 'BlockSummary',
  receipt: 'ReceiptInfo',
  dropped: 'DroppedInfo',
  event: 'IndexedEvent',
  closed: 'StreamClosed',
};

/**
 * Longest silence a stream tolerates before it counts the connection as lost, in milliseconds
 * (the node sends a comment line after 15 s without a message).
 */
export const STREAM_IDLE_MS_MAX = 60_000;

/** One server-sent event's lines (without the blank line that ends it); null for a comment. */
function parseFrame(block: string): { event: string; id?: string; data: string } | null {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  return data.length ? { event, id, data: data.join('\n') } : null;
}

/** The query parameters of an event filter (`emitter` and `topic` repeat). */
function eventQuery(filter: EventFilter): Record<string, QueryValue | QueryValue[]> {
  return { emitter: filter.emitters, topic: filter.topics, from_height: filter.fromHeight };
}

/** Options of {@link DroverClient}. */
export interface ClientOptions {
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Milliseconds before a request is abandoned (default 30,000, the node's own limit). */
  timeoutMs?: number;
}

/** How {@link DroverClient.send} submits. */
export interface SendOptions {
  /** Wait for the receipt with `/submit_wait` (default true). */
  wait?: boolean;
  /** How long `/submit_wait` waits, 100 to 10,000 ms (default 10,000). */
  waitTimeoutMs?: number;
}

/** What {@link DroverClient.prepare} answers. */
export interface Prepared {
  /** The signed transaction. */
  transaction: Transaction;
  /** The simulation that sized its open limits; null when both were set (none ran). */
  simulation: Schemas['SimulationInfo'] | null;
}

/** What {@link DroverClient.send} answers. */
export interface Sent {
  hash: Hash;
  transaction: Transaction;
  /** The simulation that sized its open limits; null when both were set (none ran). */
  simulation: Schemas['SimulationInfo'] | null;
  /** The `/submit_wait` result (or the `/submit` one without waiting). */
  result: Schemas['SubmitWaitResult'] | Schemas['SubmitResult'];
}

function fill(path: string, params: Record<string, string | number | bigint>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}

/** A query parameter's value; an absent one is left out. */
type QueryValue = string | number | bigint | boolean | undefined | null;

/** The query string of `query`; a list repeats its parameter. */
function queryString(query: Record<string, QueryValue | QueryValue[]>): string {
  const parts = Object.entries(query)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((item) => [k, item] as const))
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The {@link DroverApiError} of a refused request. */
function apiError(response: Response, bytes: Uint8Array): DroverApiError {
  let parsed: { code?: number; error?: string; message?: string } = {};
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes)) as typeof parsed;
  } catch {
    parsed = { message: new TextDecoder().decode(bytes) };
  }
  const retry = response.headers.get('Retry-After');
  return new DroverApiError(
    response.status,
    parsed.code ?? 0,
    parsed.error ?? 'http_error',
    parsed.message ?? `HTTP ${response.status}`,
    retry === null ? undefined : Number(retry),
  );
}

/** A client of one node's HTTP API. */
export class DroverClient {
  readonly baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  #chainId: bigint | undefined;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /**
   * Sends one request to `route` and reads its answer. `notFoundIsNull` answers `null` for a 404;
   * `raw` answers the body bytes (text routes, state operations).
   */
  async request(
    route: Route,
    options: {
      params?: Record<string, string | number | bigint>;
      query?: Record<string, QueryValue | QueryValue[]>;
      json?: unknown;
      body?: Uint8Array;
      contentType?: string;
      headers?: Record<string, string>;
      ras?: RasSigner;
      notFoundIsNull?: boolean;
      raw?: boolean;
    } = {},
  ): Promise<unknown> {
    const [method, template] = route;
    const pathAndQuery = fill(template, options.params ?? {}) + queryString(options.query ?? {});
    const headers: Record<string, string> = { ...options.headers };
    let body: Uint8Array | undefined = options.body;
    if (options.json !== undefined) {
      body = utf8(stringifyJson(options.json));
      headers['Content-Type'] = 'application/json';
    } else if (body && options.contentType) {
      headers['Content-Type'] = options.contentType;
    }
    if (options.ras) {
      Object.assign(headers, options.ras.headers(nodeAudience(options.ras.token.chainId), { method, pathAndQuery, body: body ?? new Uint8Array() }));
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(this.baseUrl + pathAndQuery, {
        method,
        headers,
        body: body as BodyInit | undefined,
        signal: controller.signal,
      });
    } finally {
      clearTimeout(timer);
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!response.ok) {
      if (response.status === 404 && options.notFoundIsNull) return null;
      throw apiError(response, bytes);
    }
    if (options.raw) return bytes;
    return withAmounts(`${method} ${template}`, parseJson(new TextDecoder().decode(bytes)));
  }

  // --- Transactions -----------------------------------------------------------------------

  /** `POST /submit`: admits 1 to 50 signed transactions (per-transaction verdicts in `results`). */
  async submit(txs: Transaction[]): Promise<Schemas['SubmitResponse']> {
    return (await this.request(ROUTES.submit, { body: encodeSubmission(txs), contentType: 'application/cbor' })) as Schemas['SubmitResponse'];
  }

  /** `POST /submit_wait`: admits, then waits up to `timeoutMs` (100–10,000) for the receipts. */
  async submitAndWait(txs: Transaction[], timeoutMs = 10_000): Promise<Schemas['SubmitWaitResponse']> {
    return (await this.request(ROUTES.submitAndWait, {
      body: encodeSubmission(txs),
      contentType: 'application/cbor',
      query: { timeout_ms: timeoutMs },
    })) as Schemas['SubmitWaitResponse'];
  }

  /** `GET /transaction/{hash}`: the transaction, pending or included; null when unknown. */
  async transaction(hash: string): Promise<Schemas['TransactionInfo'] | null> {
    return (await this.request(ROUTES.transaction, { params: { hash }, notFoundIsNull: true })) as Schemas['TransactionInfo'] | null;
  }

  /** `GET /transaction/{hash}/receipt`: null until the transaction is in a finalized block. */
  async receipt(hash: string): Promise<Schemas['ReceiptInfo'] | null> {
    return (await this.request(ROUTES.receipt, { params: { hash }, notFoundIsNull: true })) as Schemas['ReceiptInfo'] | null;
  }

  /** `GET /mempool/transaction/{hash}`: a transaction still in the mempool; null otherwise. */
  async pendingTransaction(hash: string): Promise<Schemas['TransactionInfo'] | null> {
    return (await this.request(ROUTES.pendingTransaction, { params: { hash }, notFoundIsNull: true })) as Schemas['TransactionInfo'] | null;
  }

  /** Polls the receipt of `hash` every `pollMs` until it is final or `timeoutMs` passes (then throws). */
  async waitForReceipt(hash: string, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<Schemas['ReceiptInfo']> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const receipt = await this.receipt(hash);
      if (receipt) return receipt;
      if (Date.now() >= deadline) throw new Error(`no receipt for ${hash} within ${options.timeoutMs ?? 60_000} ms`);
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
    }
  }

  // --- Building and sending ---------------------------------------------------------------

  /** The network's chain id (asked once, then remembered). */
  async chainId(): Promise<bigint> {
    if (this.#chainId === undefined) this.#chainId = BigInt((await this.chainInfo()).chain_id);
    return this.#chainId;
  }

  /** The sender's next nonce: its account's nonce, 0 for an address without state. */
  async nextNonce(address: string): Promise<bigint> {
    const account = await this.account(address);
    return account ? BigInt(account.nonce) : 0n;
  }

  /** The `/basefee` suggestions as fee values. */
  async feeSuggestion(): Promise<FeeSuggestion> {
    const b = await this.basefee();
    return { maxFeePerCycle: b.suggested_max_fee_per_cycle, maxFeePerCell: b.suggested_max_fee_per_cell, tipPerCycle: b.suggested_tip_per_cycle, tipPerCell: b.suggested_tip_per_cell };
  }

  /** Asks the node for what `request` leaves open (only that, concurrently). */
  async context(request: TxRequest, sender: string): Promise<TxContext> {
    const zero: FeeSuggestion = { maxFeePerCycle: 0n, maxFeePerCell: 0n, tipPerCycle: 0n, tipPerCell: 0n };
    const [chainId, nonce, fees] = await Promise.all([
      request.chainId ?? this.chainId(),
      request.nonce ?? this.nextNonce(sender),
      needsFees(request) ? this.feeSuggestion() : zero,
    ]);
    return { chainId, nonce, fees };
  }

  /**
   * Builds `request` with the chain's values, signs it with `wallet`. Its limits must be set
   * (else {@link LimitsOpenError}); {@link DroverClient.prepare} sizes open ones.
   */
  async sign(wallet: Wallet, request: TxRequest): Promise<Transaction> {
    return signTransaction(buildTransaction(request, await this.context(request, wallet.address)), wallet);
  }

  /**
   * Fills in what `request` leaves open from the node (chain id, nonce, fees, then the limits from
   * a simulation when they are open) and signs it with `wallet`, as the Rust `TxBuilder::prepare`:
   * the transaction, and the simulation when one sized it (its `status` says whether the
   * transaction would succeed; the caller decides whether to send one that would not).
   */
  async prepare(wallet: Wallet, request: TxRequest): Promise<Prepared> {
    const context = await this.context(request, wallet.address);
    const { request: sized, simulation } = limitsSet(request)
      ? { request, simulation: null }
      : await this.estimate(request, wallet.address, { context });
    return { transaction: signTransaction(buildTransaction(sized, context), wallet), simulation };
  }

  /**
   * Prepares (limits left open sized by a simulation: {@link DroverClient.prepare}) and submits
   * `request`; by default waits for its outcome with `/submit_wait`. Throws
   * {@link SimulationFailedError}, sending nothing, when the simulation that sized its limits
   * finds it would not succeed, and {@link DroverApiError} when the node refuses it.
   */
  async send(wallet: Wallet, request: TxRequest, options: SendOptions = {}): Promise<Sent> {
    const { transaction, simulation } = await this.prepare(wallet, request);
    if (simulation !== null && simulation.status !== 'success') throw new SimulationFailedError(simulation);
    const hash = transactionHash(transaction);
    const answer = options.wait === false ? await this.submit([transaction]) : await this.submitAndWait([transaction], options.waitTimeoutMs);
    const result = answer.results[0]!;
    if (result.status === 'rejected') {
      throw new DroverApiError(400, result.code ?? 0, String(result.error ?? 'rejected'), result.message ?? 'the transaction was refused');
    }
    return { hash, transaction, simulation, result };
  }

  // --- Accounts and actors ----------------------------------------------------------------

  /** `GET /account/{address}`: nonce and balance; null for an address without state. */
  async account(address: string): Promise<Schemas['AccountInfo'] | null> {
    return (await this.request(ROUTES.account, { params: { address }, notFoundIsNull: true })) as Schemas['AccountInfo'] | null;
  }

  /** The balance of `address` in base units (0 without state). */
  async balance(address: string): Promise<bigint> {
    return (await this.account(address))?.balance ?? 0n;
  }

  async actor(address: string): Promise<Schemas['ActorInfo'] | null> {
    return (await this.request(ROUTES.actor, { params: { address }, notFoundIsNull: true })) as Schemas['ActorInfo'] | null;
  }

  async actorCode(address: string): Promise<Schemas['ActorCodeInfo'] | null> {
    return (await this.request(ROUTES.actorCode, { params: { address }, notFoundIsNull: true })) as Schemas['ActorCodeInfo'] | null;
  }

  async actorManifest(address: string): Promise<Schemas['Manifest'] | null> {
    return (await this.request(ROUTES.actorManifest, { params: { address }, notFoundIsNull: true })) as Schemas['Manifest'] | null;
  }

  /** `POST /actor/read`: runs a handler read-only against the latest finalized state. */
  async actorRead(request: Schemas['ActorReadRequest']): Promise<Schemas['ActorReadResponse']> {
    return (await this.request(ROUTES.actorRead, { json: request })) as Schemas['ActorReadResponse'];
  }

  /** `actorRead` with raw argument bytes (base64 on the wire). */
  async readActor(actor: string, handler: string, payload: BytesLike = new Uint8Array(), options: { from?: string; maxCycles?: number } = {}): Promise<Schemas['ActorReadResponse']> {
    return this.actorRead({ actor, handler, payload: toBase64(bytesOf(payload)), from: options.from ?? null, max_cycles: options.maxCycles ?? null } as Schemas['ActorReadRequest']);
  }

  async actorUpgradeHistory(address: string, page: PageQuery = {}): Promise<Schemas['Paginated_UpgradeInfo']> {
    return (await this.request(ROUTES.actorUpgradeHistory, { params: { address }, query: { ...page } })) as Schemas['Paginated_UpgradeInfo'];
  }

  async actorStorage(address: string, page: CursorQuery = {}): Promise<Schemas['CursorPage_StorageEntryInfo']> {
    return (await this.request(ROUTES.actorStorage, { params: { address }, query: { ...page } })) as Schemas['CursorPage_StorageEntryInfo'];
  }

  async actorStorageCount(address: string): Promise<Schemas['StorageCount']> {
    return (await this.request(ROUTES.actorStorageCount, { params: { address } })) as Schemas['StorageCount'];
  }

  async actorMailbox(address: string, page: CursorQuery = {}): Promise<Schemas['CursorPage_MailboxMessageInfo']> {
    return (await this.request(ROUTES.actorMailbox, { params: { address }, query: { ...page } })) as Schemas['CursorPage_MailboxMessageInfo'];
  }

  async actorTimers(address: string, page: PageQuery = {}): Promise<Schemas['Paginated_TimerInfo']> {
    return (await this.request(ROUTES.actorTimers, { params: { address }, query: { ...page } })) as Schemas['Paginated_TimerInfo'];
  }

  /** `GET /actor/{address}/logs`: one page of the actor's events (history; see {@link streamLogs}). */
  async actorLogs(address: string, page: CursorQuery = {}): Promise<Schemas['CursorPage_LogInfo']> {
    return (await this.request(ROUTES.actorLogs, { params: { address }, query: { ...page } })) as Schemas['CursorPage_LogInfo'];
  }

  /** `GET /actor/{address}/runs`: one page of the actor's runs (transactions, timers, deliveries). */
  async actorRuns(address: string, page: CursorQuery = {}): Promise<Schemas['CursorPage_SystemRunInfo']> {
    return (await this.request(ROUTES.actorRuns, { params: { address }, query: { ...page } })) as Schemas['CursorPage_SystemRunInfo'];
  }

  // --- Tokens -----------------------------------------------------------------------------

  async tokens(page: PageQuery = {}): Promise<Schemas['TokenList']> {
    return (await this.request(ROUTES.tokens, { query: { ...page } })) as Schemas['TokenList'];
  }

  async token(tokenId: string): Promise<Schemas['TokenInfo'] | null> {
    return (await this.request(ROUTES.token, { params: { token_id: tokenId }, notFoundIsNull: true })) as Schemas['TokenInfo'] | null;
  }

  async tokenBalance(tokenId: string, holder: string): Promise<Schemas['TokenBalance']> {
    return (await this.request(ROUTES.tokenBalance, { params: { token_id: tokenId, address: holder } })) as Schemas['TokenBalance'];
  }

  async tokenAllowance(tokenId: string, owner: string, spender: string): Promise<Schemas['TokenAllowance']> {
    return (await this.request(ROUTES.tokenAllowance, { params: { token_id: tokenId, owner, spender } })) as Schemas['TokenAllowance'];
  }

  async accountTokens(address: string, page: PageQuery = {}): Promise<Schemas['AccountTokens']> {
    return (await this.request(ROUTES.accountTokens, { params: { address }, query: { ...page } })) as Schemas['AccountTokens'];
  }

  // --- Runners and jobs -------------------------------------------------------------------

  async activeRunners(page: PageQuery = {}): Promise<Schemas['RunnerList']> {
    return (await this.request(ROUTES.activeRunners, { query: { ...page } })) as Schemas['RunnerList'];
  }

  async runner(address: string): Promise<Schemas['RunnerInfo'] | null> {
    return (await this.request(ROUTES.runner, { params: { address }, notFoundIsNull: true })) as Schemas['RunnerInfo'] | null;
  }

  async delegations(address: string, page: PageQuery = {}): Promise<Schemas['DelegationList']> {
    return (await this.request(ROUTES.delegations, { params: { address }, query: { ...page } })) as Schemas['DelegationList'];
  }

  async runnerJobs(address: string, page: PageQuery = {}): Promise<Schemas['RunnerJobList']> {
    return (await this.request(ROUTES.runnerJobs, { params: { address }, query: { ...page } })) as Schemas['RunnerJobList'];
  }

  /** Signed flow, step 1: the heartbeat transaction the node built for `runner`. */
  async heartbeatPayload(runner: string): Promise<Schemas['SignedFlowPayload']> {
    return (await this.request(ROUTES.heartbeatPayload, { params: { address: runner } })) as Schemas['SignedFlowPayload'];
  }

  /** Signed flow, step 2: posts the signed heartbeat (see `signFlowPayload`). */
  async postHeartbeat(runner: string, signed: Schemas['SignedFlowRequest']): Promise<Schemas['SubmitResponse']> {
    return (await this.request(ROUTES.postHeartbeat, { params: { address: runner }, json: signed })) as Schemas['SubmitResponse'];
  }

  async jobResultPayload(runner: string, job: string, result: BytesLike): Promise<Schemas['SignedFlowPayload']> {
    return (await this.request(ROUTES.jobResultPayload, {
      params: { address: runner },
      query: { job_id: job, result_base64: toBase64(bytesOf(result)) },
    })) as Schemas['SignedFlowPayload'];
  }

  async postJobResult(runner: string, signed: Schemas['SignedFlowRequest']): Promise<Schemas['SubmitResponse']> {
    return (await this.request(ROUTES.postJobResult, { params: { address: runner }, json: signed })) as Schemas['SubmitResponse'];
  }

  async job(jobId: string): Promise<Schemas['JobInfo'] | null> {
    return (await this.request(ROUTES.job, { params: { job_id: jobId }, notFoundIsNull: true })) as Schemas['JobInfo'] | null;
  }

  async jobStatus(jobId: string): Promise<Schemas['JobStatusInfo'] | null> {
    return (await this.request(ROUTES.jobStatus, { params: { job_id: jobId }, notFoundIsNull: true })) as Schemas['JobStatusInfo'] | null;
  }

  async jobResults(jobId: string, page: PageQuery = {}): Promise<Schemas['JobResultList']> {
    return (await this.request(ROUTES.jobResults, { params: { job_id: jobId }, query: { ...page } })) as Schemas['JobResultList'];
  }

  /** The verdict of a completed job; null until there is one. */
  async jobVerified(jobId: string): Promise<Schemas['VerifiedResultInfo'] | null> {
    return (await this.request(ROUTES.jobVerified, { params: { job_id: jobId }, notFoundIsNull: true })) as Schemas['VerifiedResultInfo'] | null;
  }

  // --- Storage relays (RAS) ---------------------------------------------------------------

  async rasChallenge(): Promise<Schemas['RasChallenge']> {
    return (await this.request(ROUTES.rasChallenge)) as Schemas['RasChallenge'];
  }

  /** `GET /ras/auth/me` signed by `signer`: who the node takes the session for. */
  async rasMe(signer: RasSigner): Promise<Schemas['RasMe']> {
    return (await this.request(ROUTES.rasMe, { ras: signer })) as Schemas['RasMe'];
  }

  async rasStats(): Promise<Schemas['RasStats']> {
    return (await this.request(ROUTES.rasStats)) as Schemas['RasStats'];
  }

  async rasPublicRelays(page: PageQuery = {}): Promise<Schemas['RelayList']> {
    return (await this.request(ROUTES.rasPublicRelays, { query: { ...page } })) as Schemas['RelayList'];
  }

  async rasWriteRelayers(page: PageQuery = {}): Promise<Schemas['RelayList']> {
    return (await this.request(ROUTES.rasWriteRelayers, { query: { ...page } })) as Schemas['RelayList'];
  }

  async rasBillingSummary(): Promise<Schemas['BillingSummary']> {
    return (await this.request(ROUTES.rasBillingSummary)) as Schemas['BillingSummary'];
  }

  async rasRevocation(wallet: string, sessionKey: BytesLike): Promise<Schemas['RevocationInfo']> {
    return (await this.request(ROUTES.rasRevocation, { params: { wallet, session_key: toHex(bytesOf(sessionKey)) } })) as Schemas['RevocationInfo'];
  }

  async rasBalance(signer: RasSigner): Promise<Schemas['RasAccountBalance']> {
    return (await this.request(ROUTES.rasBalance, { ras: signer })) as Schemas['RasAccountBalance'];
  }

  async rasVolumes(signer: RasSigner, page: PageQuery = {}): Promise<Schemas['VolumeList']> {
    return (await this.request(ROUTES.rasVolumes, { ras: signer, query: { ...page } })) as Schemas['VolumeList'];
  }

  /** A volume the session's wallet owns (or relays); null otherwise, whether or not it exists. */
  async rasVolume(signer: RasSigner, volumeId: string): Promise<Schemas['VolumeInfo'] | null> {
    return (await this.request(ROUTES.rasVolume, { ras: signer, params: { volume_id: volumeId }, notFoundIsNull: true })) as Schemas['VolumeInfo'] | null;
  }

  #rasTransaction(route: Route, signer: RasSigner, tx: Transaction, params?: Record<string, string>): Promise<Schemas['SubmitResponse']> {
    return this.request(route, { ras: signer, params, json: { transaction_base64: toBase64(encodeTransaction(tx)) } }) as Promise<Schemas['SubmitResponse']>;
  }

  /** Submits a signed `storage.create` through `POST /ras/volumes`. */
  rasCreateVolume(signer: RasSigner, tx: Transaction): Promise<Schemas['SubmitResponse']> {
    return this.#rasTransaction(ROUTES.rasCreateVolume, signer, tx);
  }

  rasDeleteVolume(signer: RasSigner, volumeId: string, tx: Transaction): Promise<Schemas['SubmitResponse']> {
    return this.#rasTransaction(ROUTES.rasDeleteVolume, signer, tx, { volume_id: volumeId });
  }

  rasUndeleteVolume(signer: RasSigner, volumeId: string, tx: Transaction): Promise<Schemas['SubmitResponse']> {
    return this.#rasTransaction(ROUTES.rasUndeleteVolume, signer, tx, { volume_id: volumeId });
  }

  rasDeposit(signer: RasSigner, volumeId: string, tx: Transaction): Promise<Schemas['SubmitResponse']> {
    return this.#rasTransaction(ROUTES.rasDeposit, signer, tx, { volume_id: volumeId });
  }

  rasRevoke(signer: RasSigner, tx: Transaction): Promise<Schemas['SubmitResponse']> {
    return this.#rasTransaction(ROUTES.rasRevoke, signer, tx);
  }

  // --- Libraries, secrets, governance -----------------------------------------------------

  async libraries(publisher: string, page: PageQuery = {}): Promise<Schemas['LibraryList']> {
    return (await this.request(ROUTES.libraries, { params: { publisher }, query: { ...page } })) as Schemas['LibraryList'];
  }

  async library(publisher: string, name: string, version?: number): Promise<Schemas['LibraryInfo'] | null> {
    return (await this.request(ROUTES.library, { params: { publisher, name }, query: { version }, notFoundIsNull: true })) as Schemas['LibraryInfo'] | null;
  }

  async secrets(owner: string, page: PageQuery = {}): Promise<Schemas['SecretList']> {
    return (await this.request(ROUTES.secrets, { params: { owner }, query: { ...page } })) as Schemas['SecretList'];
  }

  /** A reader's envelope of `owner`'s secret `name` (open it with `openSecret`); null when it holds none. */
  async secretEnvelope(owner: string, name: string, reader: string): Promise<Schemas['SecretEnvelope'] | null> {
    return (await this.request(ROUTES.secretEnvelope, { params: { owner, name, reader }, notFoundIsNull: true })) as Schemas['SecretEnvelope'] | null;
  }

  async governanceParams(): Promise<Schemas['GovernanceParams']> {
    return (await this.request(ROUTES.governanceParams)) as Schemas['GovernanceParams'];
  }

  async proposals(options: PageQuery & { status?: string } = {}): Promise<Schemas['ProposalList']> {
    return (await this.request(ROUTES.proposals, { query: { ...options } })) as Schemas['ProposalList'];
  }

  async proposal(id: number | bigint, page: PageQuery = {}): Promise<Schemas['ProposalDetail'] | null> {
    return (await this.request(ROUTES.proposal, { params: { id }, query: { ...page }, notFoundIsNull: true })) as Schemas['ProposalDetail'] | null;
  }

  // --- Entitlements, blocks, chain, health ------------------------------------------------

  async entitlements(page: PageQuery = {}): Promise<Schemas['EntitlementList']> {
    return (await this.request(ROUTES.entitlements, { query: { ...page } })) as Schemas['EntitlementList'];
  }

  async validateManifest(manifest: unknown): Promise<Schemas['ManifestValidation']> {
    return (await this.request(ROUTES.validateManifest, { json: manifest })) as Schemas['ManifestValidation'];
  }

  /** The latest finalized height. */
  async height(): Promise<number> {
    return ((await this.request(ROUTES.height)) as Schemas['HeightInfo']).height;
  }

  /** `GET /block/{selector}`: `latest`, a height or a block hash; null when not held. */
  async block(selector: 'latest' | number | bigint | string): Promise<Schemas['BlockInfo'] | null> {
    return (await this.request(ROUTES.block, { params: { selector: String(selector) }, notFoundIsNull: true })) as Schemas['BlockInfo'] | null;
  }

  async chainInfo(): Promise<Schemas['ChainInfo']> {
    return (await this.request(ROUTES.chainInfo)) as Schemas['ChainInfo'];
  }

  async basefee(): Promise<Schemas['BasefeeInfo']> {
    return (await this.request(ROUTES.basefee)) as Schemas['BasefeeInfo'];
  }

  async health(): Promise<Schemas['Liveness']> {
    return (await this.request(ROUTES.health)) as Schemas['Liveness'];
  }

  async healthDetailed(): Promise<Schemas['HealthDetailed']> {
    return (await this.request(ROUTES.healthDetailed)) as Schemas['HealthDetailed'];
  }

  /** `GET /health/ready`: 200 when ready; a 503 throws {@link DroverApiError}. */
  async healthReady(): Promise<Schemas['HealthDetailed']> {
    return (await this.request(ROUTES.healthReady)) as Schemas['HealthDetailed'];
  }

  /** Prometheus text. */
  async metrics(): Promise<string> {
    return new TextDecoder().decode((await this.request(ROUTES.metrics, { raw: true })) as Uint8Array);
  }

  /** `POST /faucet`: development funds for `address` (chain ids 1 and 100 only). */
  async faucet(address: string): Promise<Schemas['FaucetResponse']> {
    return (await this.request(ROUTES.faucet, { json: { address: normalizeAddress(address) } })) as Schemas['FaucetResponse'];
  }

  // --- State sync and proofs --------------------------------------------------------------

  /** The state-sync target; null when none is served yet. */
  async stateSnapshot(): Promise<Schemas['StateSnapshot'] | null> {
    return (await this.request(ROUTES.stateSnapshot, { notFoundIsNull: true })) as Schemas['StateSnapshot'] | null;
  }

  /** Encoded operations batch of state sync (bytes). */
  async stateOperations(query: { size: bigint | number; start: bigint | number; max?: number; boundary?: bigint | number }): Promise<Uint8Array> {
    return (await this.request(ROUTES.stateOperations, { query: { ...query }, raw: true })) as Uint8Array;
  }

  /** `GET /state/{actor}/{key_hex}`: a storage value with its proof. */
  async stateValue(actor: string, key: BytesLike): Promise<Schemas['StateProofInfo']> {
    return (await this.request(ROUTES.stateValue, { params: { actor, key_hex: toHex(bytesOf(key)) } })) as Schemas['StateProofInfo'];
  }

  async proofAccount(address: string, height?: number): Promise<Schemas['StateProofInfo']> {
    return (await this.request(ROUTES.proofAccount, { params: { address }, query: { height } })) as Schemas['StateProofInfo'];
  }

  async proofActor(address: string, height?: number): Promise<Schemas['StateProofInfo']> {
    return (await this.request(ROUTES.proofActor, { params: { address }, query: { height } })) as Schemas['StateProofInfo'];
  }

  async proofStorage(address: string, key: BytesLike, height?: number): Promise<Schemas['StateProofInfo']> {
    return (await this.request(ROUTES.proofStorage, { params: { address, key: toHex(bytesOf(key)) }, query: { height } })) as Schemas['StateProofInfo'];
  }

  /** Inclusion proof of a transaction; null while it is not in a finalized block. */
  async proofTx(hash: string): Promise<Schemas['InclusionProofInfo'] | null> {
    return (await this.request(ROUTES.proofTx, { params: { tx_hash: hash }, notFoundIsNull: true })) as Schemas['InclusionProofInfo'] | null;
  }

  async proofReceipt(hash: string): Promise<Schemas['InclusionProofInfo'] | null> {
    return (await this.request(ROUTES.proofReceipt, { params: { tx_hash: hash }, notFoundIsNull: true })) as Schemas['InclusionProofInfo'] | null;
  }

  async proofMulti(requests: Schemas['MultiProofRequests'], height?: number): Promise<Schemas['MultiProofResponse']> {
    return (await this.request(ROUTES.proofMulti, { json: requests, query: { height } })) as Schemas['MultiProofResponse'];
  }

  // --- History, blocks, events, simulation ------------------------------------------------

  /**
   * `GET /account/{address}/history`: one page of the account's transactions, sent and received,
   * newest first (`cursor`: the previous page's `next_cursor`).
   */
  async history(address: string, page: CursorQuery = {}): Promise<Schemas['HistoryPage']> {
    return (await this.request(ROUTES.history, { params: { address }, query: { ...page } })) as Schemas['HistoryPage'];
  }

  /** `GET /blocks`: one page of finalized blocks, newest first (`cursor`: a height, blocks below it). */
  async blocks(page: CursorQuery = {}): Promise<Schemas['BlockPage']> {
    return (await this.request(ROUTES.blocks, { query: { ...page } })) as Schemas['BlockPage'];
  }

  /** `GET /indexed`: the heights the node's history, block list and events cover. */
  async indexed(): Promise<Schemas['IndexedRange']> {
    return (await this.request(ROUTES.indexed)) as Schemas['IndexedRange'];
  }

  /** `GET /events`: one page of the events `filter` selects, in chain order. */
  async events(filter: EventFilter = {}, page: CursorQuery = {}): Promise<Schemas['EventPage']> {
    const query = { ...eventQuery(filter), to_height: filter.toHeight, ...page };
    return (await this.request(ROUTES.events, { query })) as Schemas['EventPage'];
  }

  /**
   * `POST /simulate`: what a transaction (signed, or unsigned with `from`) would do at the tip,
   * committing nothing: status, meters, fee, events, limits to send it with and, with
   * `trace: true`, the trace of the handlers it runs.
   */
  async simulate(request: Schemas['SimulateRequest']): Promise<Schemas['SimulationInfo']> {
    return (await this.request(ROUTES.simulate, { json: request })) as Schemas['SimulationInfo'];
  }

  /**
   * Sizes the limits `request` leaves open from the node's simulation of it sent by `sender`
   * (what it used plus the node's margin), with the chain id, nonce and fees of `options.context`
   * (asked of the node when not given). Answers the request with both limits set and the
   * simulation, whose `status` says whether it would succeed. Unlike the Rust
   * `TxBuilder::estimate`, which leaves a builder whose limits are set as it is, it simulates
   * such a request too (for its outcome, or its trace).
   */
  async estimate(
    request: TxRequest,
    sender: string,
    options: { trace?: boolean; context?: TxContext } = {},
  ): Promise<{ request: TxRequest; simulation: Schemas['SimulationInfo'] }> {
    const context = options.context ?? (await this.context(request, sender));
    const simulation = await this.simulate({ ...simulateRequest(request, sender, context), ...(options.trace ? { trace: true } : {}) });
    return { request: limitsFrom(request, simulation), simulation };
  }

  // --- Pagination and streams -------------------------------------------------------------

  /**
   * Every item of an offset-paginated list, page by page: `fetchPage` gets `{offset, limit}`
   * and answers the envelope; `items` picks its list.
   */
  async *paginate<P extends { total_count: number }, T>(
    fetchPage: (page: Required<PageQuery>) => Promise<P>,
    items: (page: P) => T[],
    limit = 100,
  ): AsyncGenerator<T> {
    for (let offset = 0; ; ) {
      const page = await fetchPage({ offset, limit });
      const list = items(page);
      yield* list;
      offset += list.length;
      if (list.length === 0 || offset >= page.total_count) return;
    }
  }

  /** Every item of a cursor-paginated list (storage, mailbox, logs, runs), page by page. */
  async *paginateCursor<T>(fetchPage: (page: CursorQuery) => Promise<{ items: T[]; next_cursor?: string | null }>, limit = 100): AsyncGenerator<T> {
    let cursor: string | undefined;
    for (;;) {
      const page = await fetchPage(cursor === undefined ? { limit } : { cursor, limit });
      yield* page.items;
      if (!page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  /**
   * `GET /stream/blocks`: one `block` message per finalized block (header fields, counts, meters
   * and transaction hashes; its `id` the height), from `fromHeight`, after `lastEventId`, or by
   * default from the next block.
   */
  streamBlocks(options: StreamOptions & { fromHeight?: number | bigint } = {}): AsyncGenerator<StreamMessage> {
    return this.#stream(ROUTES.streamBlocks, { query: { from_height: options.fromHeight } }, options);
  }

  /**
   * `GET /stream/tx/{hash}`: one `receipt` message when the transaction is finalized (at once if
   * it is), or one `dropped` message when the mempool drops it; then the stream ends.
   */
  streamTransaction(hash: string, options: Pick<StreamOptions, 'signal'> = {}): AsyncGenerator<StreamMessage> {
    return this.#stream(ROUTES.streamTransaction, { params: { hash } }, options);
  }

  /**
   * `GET /stream/events`: one `event` message per event `filter` selects (its `toHeight` is not
   * taken; its `id` the event's cursor), as blocks finalize, from the filter's `fromHeight`, after
   * `lastEventId`, or by default from the next block.
   */
  streamEvents(filter: Omit<EventFilter, 'toHeight'> = {}, options: StreamOptions = {}): AsyncGenerator<StreamMessage> {
    return this.#stream(ROUTES.streamEvents, { query: eventQuery(filter) }, options);
  }

  /** The messages of the stream at `route`, read as they come (see the module documentation). */
  async *#stream(
    route: Route,
    target: { params?: Record<string, string>; query?: Record<string, QueryValue | QueryValue[]> },
    options: StreamOptions,
  ): AsyncGenerator<StreamMessage> {
    const [method, template] = route;
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (options.lastEventId !== undefined) headers['Last-Event-ID'] = options.lastEventId;
    // An aborted signal ends the stream quietly; any other failure is thrown.
    const quietly = (error: unknown) => {
      if (!options.signal?.aborted) throw error;
    };
    // No overall timeout: a stream lasts; silence is bounded below.
    const url = this.baseUrl + fill(template, target.params ?? {}) + queryString(target.query ?? {});
    let response: Response;
    try {
      response = await this.#fetch(url, { method, headers, signal: options.signal });
    } catch (error) {
      return quietly(error);
    }
    if (!response.ok) throw apiError(response, new Uint8Array(await response.arrayBuffer()));
    if (!response.body) throw new Error(`${template} answered no body`);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const frame = parseFrame(buffer.slice(0, end).replace(/\r/g, ''));
          buffer = buffer.slice(end + 2);
          if (!frame) continue;
          const schema = STREAM_SCHEMAS[frame.event as StreamMessage['event']];
          if (!schema) throw new Error(`${template} sent an unknown message ${JSON.stringify(frame.event)}`);
          const data = schemaWithAmounts(schema, parseJson(frame.data));
          yield { event: frame.event, ...(frame.id === undefined ? {} : { id: frame.id }), data } as StreamMessage;
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const silence = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${template} was silent for ${STREAM_IDLE_MS_MAX} ms`)), STREAM_IDLE_MS_MAX);
        });
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await Promise.race([reader.read(), silence]).finally(() => clearTimeout(timer));
        } catch (error) {
          return quietly(error);
        }
        if (chunk.done) return;
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    } finally {
      // The consumer left (or the node ended the stream): close the connection.
      await reader.cancel().catch(() => undefined);
    }
  }

  /**
   * An actor's events: its history first (oldest first), then new events as they are finalized,
   * by following the log's cursor (polling every `pollMs`); stops when `signal` aborts.
   */
  async *streamLogs(actor: string, options: { pollMs?: number; signal?: AbortSignal; limit?: number } = {}): AsyncGenerator<Schemas['CursorPage_LogInfo']['items'][number]> {
    // The last page has no next cursor: keep the last cursor seen and skip what was yielded after it.
    let cursor: string | undefined;
    let seen = 0;
    while (!options.signal?.aborted) {
      const limit = options.limit ?? 100;
      const page = await this.actorLogs(actor, cursor === undefined ? { limit } : { cursor, limit });
      yield* page.items.slice(seen);
      if (page.next_cursor) {
        cursor = page.next_cursor;
        seen = 0;
        continue;
      }
      seen = page.items.length;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
    }
  }
}

/**
 * DOM building and formatting. Everything the node sends is hostile: it only ever reaches the
 * page as text (`textContent`, attribute values), never as HTML, and links are built from
 * validated addresses and hashes.
 */
import { fromBase64 } from '../../../../sdk/typescript/src/bytes.js';

/** A child of an element: nodes, text, or nothing (`null`, `undefined`, `false`). */
export type Child = Node | string | number | bigint | null | undefined | false | Child[];

type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** An element with attributes (`on…` keys are listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children to `parent`. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A link to a route of the explorer (`#/…`). */
export function link(route: string, ...children: Child[]): HTMLAnchorElement {
  return h('a', { href: `#${route}` }, ...children);
}

/** A hash or address, shortened for tables (the full value in its title). */
export function short(hex: string): HTMLElement {
  const text = hex.length > 18 ? `${hex.slice(0, 10)}…${hex.slice(-6)}` : hex;
  return h('span', { class: 'mono', title: hex }, text);
}

/** A full hash or address, in monospace. */
export function mono(text: string): HTMLElement {
  return h('span', { class: 'mono' }, text);
}

const HEX_20 = /^0x[0-9a-fA-F]{40}$/;
const HEX_32 = /^0x[0-9a-fA-F]{64}$/;

/** Whether `text` is an address (`0x` and 40 hex digits). */
export const isAddress = (text: unknown): text is string => typeof text === 'string' && HEX_20.test(text);
/** Whether `text` is a 32-byte hash (`0x` and 64 hex digits). */
export const isHash = (text: unknown): text is string => typeof text === 'string' && HEX_32.test(text);

/** A link to an address's page (account; the page itself tells an actor apart). */
export function addressLink(address: unknown, full = false): Node | string {
  if (!isAddress(address)) return address === null || address === undefined ? '—' : String(address);
  return link(`/address/${address.toLowerCase()}`, full ? mono(address) : short(address));
}

/** A link to a transaction. */
export function txLink(hash: unknown, full = false): Node | string {
  if (!isHash(hash)) return hash === null || hash === undefined ? '—' : String(hash);
  return link(`/tx/${hash.toLowerCase()}`, full ? mono(hash) : short(hash));
}

/** A link to a block by height. */
export function blockLink(height: unknown): Node | string {
  if (height === null || height === undefined) return '—';
  return link(`/block/${String(height)}`, String(height));
}

/** An amount of base units with `decimals` places, grouped: `1,234.5`. */
export function amount(value: unknown, decimals: number): string {
  let units: bigint;
  try {
    units = BigInt(value as string | number | bigint);
  } catch {
    return String(value);
  }
  const negative = units < 0n;
  if (negative) units = -units;
  const scale = 10n ** BigInt(decimals);
  const whole = (units / scale).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = decimals > 0 ? (units % scale).toString().padStart(decimals, '0').replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Native base units as DRV. */
export function drv(value: unknown): string {
  return `${amount(value, 9)} DRV`;
}

/** A count, grouped. */
export function count(value: unknown): string {
  try {
    return BigInt(value as string | number | bigint)
      .toString()
      .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  } catch {
    return String(value);
  }
}

/** How long ago a Unix-milliseconds time was: `3 s ago`, `2 min ago`, … */
export function age(timestampMs: number, now = Date.now()): string {
  const secs = Math.max(0, Math.round((now - timestampMs) / 1000));
  if (secs < 60) return `${secs} s ago`;
  if (secs < 3600) return `${Math.floor(secs / 60)} min ago`;
  if (secs < 86400) return `${Math.floor(secs / 3600)} h ago`;
  return `${Math.floor(secs / 86400)} d ago`;
}

/** A Unix-milliseconds time in ISO form. */
export function time(timestampMs: number): string {
  const date = new Date(timestampMs);
  return Number.isNaN(date.getTime()) ? String(timestampMs) : date.toISOString().replace('.000Z', 'Z');
}

/** Bytes the node sent as base64: UTF-8 text when they are printable, else hex. */
export function bytesText(base64: unknown): string {
  if (typeof base64 !== 'string') return '—';
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(base64);
  } catch {
    return base64;
  }
  if (bytes.length === 0) return '(empty)';
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    if (/^[\p{L}\p{N}\p{P}\p{S}\p{Zs}\n\t]*$/u.test(text)) return text;
  } catch {
    // Not UTF-8: shown as hex below.
  }
  return `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** A hex key as text when it is printable ASCII. */
export function keyText(hex: string): string {
  const digits = hex.startsWith('0x') ? hex.slice(2) : hex;
  const bytes = digits.match(/../g)?.map((pair) => Number.parseInt(pair, 16)) ?? [];
  return bytes.length > 0 && bytes.every((b) => b >= 0x20 && b < 0x7f) ? String.fromCharCode(...bytes) : '';
}

/** A definition list of label/value rows. */
export function fields(rows: [string, Child][]): HTMLElement {
  return h('dl', { class: 'fields' }, rows.map(([label, value]) => [h('dt', null, label), h('dd', null, value)]));
}

/** A table; `empty` is shown in place of rows when there are none. */
export function table(headers: string[], rows: Child[][], empty = 'None.'): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted' }, empty);
  return h(
    'table',
    null,
    h('thead', null, h('tr', null, headers.map((header) => h('th', null, header)))),
    h('tbody', null, rows.map((row) => h('tr', null, row.map((cell) => h('td', null, cell))))),
  );
}

/** A titled section. */
export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'card' }, h('h2', null, title), ...children);
}

/** A status word as a coloured badge (`success`, `reverted`, `failed`, `ok`, `degraded`, …). */
export function badge(word: unknown, kind?: string): HTMLElement {
  const text = String(word);
  return h('span', { class: `badge badge-${kind ?? text.replace(/[^a-z]/g, '')}` }, text);
}

/** A message for an error, shown in place of a page or a part of it. */
export function errorBox(error: unknown): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error));
}

/** A part of a page that fills itself in when its data arrives (errors are shown in place). */
export function later(load: () => Promise<Child>): HTMLElement {
  const holder = h('div', { class: 'loading' }, 'Loading…');
  load().then(
    (content) => {
      holder.className = '';
      holder.replaceChildren();
      append(holder, [content]);
    },
    (error) => {
      holder.className = '';
      holder.replaceChildren(errorBox(error));
    },
  );
  return holder;
}

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag: string, attrs: Record<string, string | number>, ...children: Node[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  for (const child of children) element.appendChild(child);
  return element;
}

/** Chart size in SVG units (it scales to its box). */
const CHART_WIDTH = 300;
const CHART_HEIGHT = 80;

/** A line chart of `values` (oldest first) with its latest value and range as text. */
export function lineChart(title: string, values: number[], format: (value: number) => string, testId: string): HTMLElement {
  const figure = h('figure', { class: 'chart', 'data-testid': testId });
  const latest = values.length > 0 ? format(values[values.length - 1]!) : '—';
  figure.appendChild(h('figcaption', null, h('span', null, title), h('strong', null, latest)));
  if (values.length >= 2) {
    const max = Math.max(...values);
    const min = Math.min(...values, 0);
    const span = max - min || 1;
    const points = values
      .map((value, i) => {
        const x = (i / (values.length - 1)) * CHART_WIDTH;
        const y = CHART_HEIGHT - 2 - ((value - min) / span) * (CHART_HEIGHT - 4);
        return `${x.toFixed(1)},${y.toFixed(1)}`;
      })
      .join(' ');
    const area = `0,${CHART_HEIGHT} ${points} ${CHART_WIDTH},${CHART_HEIGHT}`;
    figure.appendChild(
      svg(
        'svg',
        { viewBox: `0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': title },
        svg('polygon', { points: area, class: 'chart-area' }),
        svg('polyline', { points, class: 'chart-line' }),
      ),
    );
    figure.appendChild(h('div', { class: 'chart-range muted' }, `min ${format(Math.min(...values))} · max ${format(max)} · ${values.length} blocks`));
  } else {
    figure.appendChild(h('div', { class: 'muted' }, 'Waiting for blocks…'));
  }
  return figure;
}

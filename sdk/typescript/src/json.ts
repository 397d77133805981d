/**
 * JSON as the node writes it, read without losing precision: `JSON.parse` turns an integer above
 * 2^53 into a rounded float, so integer literals outside the safe range are read as `bigint`.
 * Then {@link withAmounts} turns every amount of a response (a native amount's JSON integer, a
 * basefee's or token amount's decimal string) into `bigint`, following the shapes generated from
 * the OpenAPI document (`src/generated/shapes.ts`).
 */
import { RESPONSE_SHAPES, SCHEMA_SHAPES } from './generated/shapes.js';

/** Parses JSON text; integers that are not safe JavaScript integers come back as `bigint`. */
export function parseJson(text: string): unknown {
  let at = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`invalid JSON at ${at}: ${what}`);
  };
  const ws = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const value = (): unknown => {
    ws();
    const c = text[at];
    if (c === '{') {
      at++;
      const out: Record<string, unknown> = {};
      ws();
      if (text[at] === '}') {
        at++;
        return out;
      }
      for (;;) {
        ws();
        if (text[at] !== '"') fail('expected a key');
        const key = string();
        ws();
        if (text[at++] !== ':') fail('expected :');
        Object.defineProperty(out, key, { value: value(), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[at] === ',') at++;
        else if (text[at] === '}') {
          at++;
          return out;
        } else fail('expected , or }');
      }
    }
    if (c === '[') {
      at++;
      const out: unknown[] = [];
      ws();
      if (text[at] === ']') {
        at++;
        return out;
      }
      for (;;) {
        out.push(value());
        ws();
        if (text[at] === ',') at++;
        else if (text[at] === ']') {
          at++;
          return out;
        } else fail('expected , or ]');
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return v;
      }
    }
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!match) return fail('unexpected character');
    at += match[0].length;
    if (match[2] === undefined && match[3] === undefined) {
      const n = Number(match[0]);
      return Number.isSafeInteger(n) ? n : BigInt(match[0]);
    }
    return Number(match[0]);
  };
  const string = (): string => {
    const start = at;
    at++;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    if (at >= text.length) fail('unterminated string');
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const out = value();
  ws();
  if (at !== text.length) fail('trailing characters');
  return out;
}

function toAmount(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  return value;
}

function convert(value: unknown, shape: string | [string] | null | undefined): unknown {
  if (shape === null || shape === undefined || value === null || typeof value !== 'object') return value;
  if (Array.isArray(shape)) return Array.isArray(value) ? value.map((item) => convert(item, shape[0])) : value;
  const spec = SCHEMA_SHAPES[shape];
  if (!spec || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  for (const key of spec.amounts) if (key in record) record[key] = toAmount(record[key]);
  for (const [key, inner] of Object.entries(spec.nested)) if (key in record) record[key] = convert(record[key], inner);
  return record;
}

/** The JSON response of route `METHOD path` with its amounts as `bigint`. */
export function withAmounts(route: string, value: unknown): unknown {
  return convert(value, RESPONSE_SHAPES[route]);
}

/** JSON text of a request body; `bigint`s are written as JSON integers. */
export function stringifyJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `\u0000${v}\u0000` : v)).replace(/"\\u0000(\d+)\\u0000"/g, '$1');
}

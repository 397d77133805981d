// The typed client against the node's OpenAPI document (`openapi.json`, what a `drover dev` node
// serves at /api-docs/openapi.json; the end-to-end test checks the copy against a live node):
//
// - the route table has exactly the document's routes, and each is a client method;
// - each method answers the type the document gives its route's 200 JSON response (checked by
//   `tsc` when the tests are type-checked: `npm run typecheck`);
// - the generated types and shapes are what scripts/openapi-types.mjs makes of the document.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate } from '../../scripts/openapi-types.mjs';
import { DroverClient, ROUTES } from '../../src/index.js';
import type { paths } from '../../src/generated/openapi.js';

const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));

/** `METHOD path` of every operation in the document. */
function documentRoutes(): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    for (const method of ['get', 'post', 'put', 'delete', 'patch']) if (item[method]) out.push(`${method.toUpperCase()} ${path}`);
  }
  return out.sort();
}

describe('the route table against the OpenAPI document', () => {
  it('has exactly the routes the node serves', () => {
    const table = Object.values(ROUTES).map(([method, path]) => `${method} ${path}`).sort();
    expect(new Set(table).size).toBe(table.length);
    expect(table).toEqual(documentRoutes());
  });

  it('has a client method for each route', () => {
    for (const name of Object.keys(ROUTES)) {
      expect(typeof (DroverClient.prototype as unknown as Record<string, unknown>)[name], name).toBe('function');
    }
  });

  it('generated its types and shapes from this document', async () => {
    const { typesFile, shapesFile } = await generate(document);
    expect(readFileSync(new URL('../../src/generated/openapi.ts', import.meta.url), 'utf8')).toBe(typesFile);
    expect(readFileSync(new URL('../../src/generated/shapes.ts', import.meta.url), 'utf8')).toBe(shapesFile);
  });
});

// --- Type-level: each method answers its route's documented response -------------------------

type Routes = typeof ROUTES;
type Method<R> = R extends readonly [infer M extends string, string] ? Lowercase<M> : never;
type Path<R> = R extends readonly [string, infer P extends keyof paths] ? P : never;
/** The 200 JSON body of a route, or `unknown` for a route that answers no JSON (text, bytes). */
type Documented<R> = paths[Path<R>][Method<R> & keyof paths[Path<R>]] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : unknown;
/** What a method resolves to, without the `null` a lookup answers for 404. */
type Answered<K extends keyof Routes> = K extends keyof DroverClient
  ? DroverClient[K] extends (...args: never[]) => Promise<infer A>
    ? Exclude<A, null>
    : never
  : never;
/** Methods whose answer is not their route's documented body (in both directions). */
type Mismatched = {
  [K in keyof Routes]: unknown extends Documented<Routes[K]>
    ? never
    : [Answered<K>] extends [Documented<Routes[K]>]
      ? [Documented<Routes[K]>] extends [Answered<K>]
        ? never
        : K
      : K;
}[keyof Routes];
/** Routes with a JSON body whose method unwraps it (`height` answers the number). */
type Unwrapped = 'height';
// A compile error here names the methods whose types drifted from the document.
const mismatched: [Exclude<Mismatched, Unwrapped>] extends [never] ? true : Exclude<Mismatched, Unwrapped> = true;
void mismatched;

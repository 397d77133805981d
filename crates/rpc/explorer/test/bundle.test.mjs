// The committed assets/explorer.js and assets/THIRD-PARTY-LICENSES.txt are exactly what
// build.mjs makes from the sources and the locked dependency versions (after `npm ci`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from '../build.mjs';

const assets = join(dirname(fileURLToPath(import.meta.url)), '..', 'assets');

test('the committed bundle is the build of its sources', async () => {
  const built = await build();
  for (const [name, text] of Object.entries(built)) {
    const committed = readFileSync(join(assets, name), 'utf8');
    assert.ok(committed === text, `assets/${name} is not the build of its sources: run \`npm ci && node build.mjs\` in crates/rpc/explorer and commit it`);
  }
});

test('the page loads nothing from elsewhere', () => {
  const index = readFileSync(join(assets, 'index.html'), 'utf8');
  const css = readFileSync(join(assets, 'explorer.css'), 'utf8');
  assert.doesNotMatch(index, /(src|href)="(https?:)?\/\//);
  assert.doesNotMatch(css, /url\(|@import/);
});

// Builds the explorer's script and its third-party licence file into assets/, which the node
// embeds (crates/rpc/src/explorer.rs). Run after `npm ci` here:
//
//     node build.mjs           # writes assets/explorer.js and assets/THIRD-PARTY-LICENSES.txt
//
// The output is a pure function of the sources (src/, the SDK's verify module in
// sdk/typescript/src) and the exact versions in package-lock.json; test/bundle.test.mjs
// rebuilds in memory and fails if the committed files differ. Bare imports of the SDK's
// dependencies are resolved from this package's node_modules whoever imports them, so an
// installed sdk/typescript/node_modules cannot change the bundle.
import * as esbuild from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The packages the bundle may contain, each shipped with its licence file. */
const THIRD_PARTY = ['@noble/curves', '@noble/hashes', 'cbor2', '@cto.af/wtf8', 'lossless-json'];

/** Where a package keeps its licence. */
const LICENCE_FILES = ['LICENSE', 'LICENSE.md', 'LICENSE.txt'];

const ownDependencies = {
  name: 'own-dependencies',
  setup(build) {
    build.onResolve({ filter: /^(@noble\/|@cto\.af\/|cbor2|lossless-json)/ }, (args) => {
      if (args.pluginData === 'own') return undefined;
      return build.resolve(args.path, { kind: args.kind, resolveDir: here, pluginData: 'own' });
    });
  },
};

/** Builds in memory: `{ 'explorer.js': text, 'THIRD-PARTY-LICENSES.txt': text }`. */
export async function build() {
  const result = await esbuild.build({
    entryPoints: [join(here, 'src/main.ts')],
    absWorkingDir: here,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'none',
    minify: true,
    write: false,
    metafile: true,
    outfile: join(here, 'assets/explorer.js'),
    plugins: [ownDependencies],
    logLevel: 'silent',
  });
  const bundled = new Set();
  for (const input of Object.keys(result.metafile.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) bundled.add(match[1]);
  }
  const unknown = [...bundled].filter((name) => !THIRD_PARTY.includes(name));
  if (unknown.length > 0) throw new Error(`the bundle holds packages without a licence entry: ${unknown.join(', ')}`);
  let licences = 'Third-party code in explorer.js, with its licence.\n';
  for (const name of THIRD_PARTY.filter((n) => bundled.has(n))) {
    const pkg = JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8'));
    const file = LICENCE_FILES.map((f) => join(here, 'node_modules', name, f)).find((f) => existsSync(f));
    if (!file) throw new Error(`${name} ships no licence file`);
    const licence = readFileSync(file, 'utf8').trim();
    licences += `\n${'='.repeat(78)}\n${name} ${pkg.version} (${pkg.license})\n${'='.repeat(78)}\n\n${licence}\n`;
  }
  const script = new TextDecoder().decode(result.outputFiles[0].contents);
  return { 'explorer.js': script, 'THIRD-PARTY-LICENSES.txt': licences };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await build();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(here, 'assets', name), text);
  console.log(`wrote ${Object.keys(files).map((n) => `assets/${n}`).join(', ')}`);
}

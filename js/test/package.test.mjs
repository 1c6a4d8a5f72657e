// The published package as a user gets it: `npm install <tgz>` into an
// empty folder, the README's JavaScript quick start run there as written,
// no runtime dependencies, and the WebAssembly within its size budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tgz = process.env.WIRESEAL_TGZ;

/** The package's JavaScript files (not declarations), relative to `root`. */
const jsFiles = (root) => readdirSync(root, { recursive: true })
  .filter((f) => f.endsWith('.js'));

/** The README's JavaScript quick start: the first ```js block under "## JavaScript". */
function quickStart() {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split(/^## JavaScript$/m)[1];
  assert.ok(section, 'the README has a JavaScript section');
  const block = section.match(/```js\n([\s\S]*?)```/);
  assert.ok(block, 'the JavaScript section has a js block');
  return block[1];
}

test('the tgz installs into an empty folder and the README quick start runs as written', { timeout: 120_000 }, (t) => {
  assert.ok(tgz && existsSync(tgz), 'WIRESEAL_TGZ names the packed release package (scripts/js-test sets it)');
  const dir = mkdtempSync(join(tmpdir(), 'wireseal-install-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('npm', ['init', '-y'], { cwd: dir, stdio: 'ignore' });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tgz], { cwd: dir, stdio: 'pipe' });
  const code = quickStart();
  assert.ok(code.trim().split('\n').length <= 6, 'the quick start is six lines');
  writeFileSync(join(dir, 'dm.mjs'), code);
  const out = execFileSync('node', ['dm.mjs'], { cwd: dir, encoding: 'utf8' });
  assert.equal(out, 'hello\n');
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  assert.deepEqual(Object.keys(lock.packages).sort(), ['', 'node_modules/wireseal'], 'no runtime dependencies');
});

test('the package is ESM with Node and browser entries and declarations, within 400 KiB gzip', (t) => {
  assert.ok(tgz && existsSync(tgz), 'WIRESEAL_TGZ names the packed release package');
  const dir = mkdtempSync(join(tmpdir(), 'wireseal-pack-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('tar', ['-xzf', tgz, '-C', dir]);
  const pkg = JSON.parse(readFileSync(join(dir, 'package/package.json'), 'utf8'));
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.dependencies, undefined);
  for (const m of ['.', './meshtastic', './meshcore', './peat', './bip324', './sphinx', './aescrypt']) {
    const entry = pkg.exports[m];
    assert.ok(entry, `exports ${m}`);
    for (const c of ['types', 'node', 'default']) {
      assert.ok(existsSync(join(dir, 'package', entry[c])), `${m} ${c}: ${entry[c]}`);
    }
  }
  // What an import loads: the WebAssembly and every JavaScript file, each
  // compressed as a server would send it.
  const loaded = ['wasm/wireseal_wasm_bg.wasm', ...jsFiles(join(dir, 'package'))];
  const gzip = loaded.reduce(
    (n, f) => n + gzipSync(readFileSync(join(dir, 'package', f)), { level: 9 }).length, 0);
  assert.ok(gzip <= 400 * 1024, `the package's wasm and JS are ${gzip} bytes gzip, over 400 KiB`);
});

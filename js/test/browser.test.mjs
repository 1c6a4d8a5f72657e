// The published package's browser build in headless Chromium (Debian's
// `chromium`): a static page served from loopback imports the package's
// browser entry, runs its checks and posts the results back; the test
// waits for that request, not for any log line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, normalize, extname } from 'node:path';

const TYPES = { '.js': 'text/javascript', '.html': 'text/html', '.wasm': 'application/wasm' };

test('the browser build runs in headless Chromium', { timeout: 120_000 }, async (t) => {
  const tgz = process.env.WIRESEAL_TGZ;
  assert.ok(tgz && existsSync(tgz), 'WIRESEAL_TGZ names the packed release package (scripts/js-test sets it)');
  const chromium = ['chromium', 'chromium-browser'].find((c) => {
    try {
      execFileSync('which', [c], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
  assert.ok(chromium, 'chromium is installed (scripts/setup-peers.sh installs Debian\'s)');

  const dir = mkdtempSync(join(tmpdir(), 'wireseal-browser-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('tar', ['-xzf', tgz, '-C', dir]);
  const roots = { '/pkg/': join(dir, 'package'), '/': new URL('./browser/', import.meta.url).pathname };

  let resolveResult;
  const result = new Promise((r) => { resolveResult = r; });
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/result') {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => { res.end('ok'); resolveResult(JSON.parse(body)); });
      return;
    }
    const url = new URL(req.url, 'http://localhost').pathname;
    const prefix = url.startsWith('/pkg/') ? '/pkg/' : '/';
    const rel = normalize(url.slice(prefix.length) || 'index.html');
    if (rel.startsWith('..')) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = readFileSync(join(roots[prefix], rel));
      res.writeHead(200, { 'content-type': TYPES[extname(rel)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => server.close());
  const profile = join(dir, 'profile');
  const browser = spawn(chromium, [
    // The background-networking flags keep Chromium off the network, which
    // a test machine may not reach.
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-dev-shm-usage', '--disable-quic', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`,
    `http://127.0.0.1:${server.address().port}/index.html`,
  ], { stdio: 'ignore' });
  t.after(() => browser.kill('SIGKILL'));
  const exited = new Promise((_, reject) => browser.on('exit', (code) => reject(new Error(`chromium exited (${code}) before the page reported`))));

  const results = await Promise.race([result, exited]);
  assert.ok(results.length >= 4, JSON.stringify(results));
  for (const r of results) {
    if (r.detail) t.diagnostic(`${r.name}: ${r.detail}`);
    assert.ok(r.ok, `${r.name}: ${r.detail}`);
  }
});

#!/usr/bin/env bash
# The Node-RED node's tests: installs node-red and node-red-node-test-helper
# (npm ci, pinned in package-lock.json, from the npm registry), then the
# packed `wireseal` package beside them (scripts/js-build makes it; another
# tgz can be given as $WIRESEAL_TGZ), and runs test/*.test.js with node's
# test runner in a real Node-RED runtime. The tgz is unpacked into
# node_modules/wireseal: it has no dependencies of its own, and npm will not
# install a package this folder names as its own (optional) peer.
set -euo pipefail
cd "$(dirname "$0")"
tgz=${WIRESEAL_TGZ:-../../target/js/wireseal-0.1.0.tgz}
if [ ! -f "$tgz" ]; then
  echo "node-red-wireseal/test.sh: $tgz is missing (run scripts/js-build first)" >&2
  exit 1
fi
npm ci --silent --no-audit --no-fund
rm -rf node_modules/wireseal
mkdir -p node_modules/wireseal
tar -xzf "$tgz" -C node_modules/wireseal --strip-components=1
node --test --test-timeout=120000 --test-reporter="${NODE_TEST_REPORTER:-spec}" test/*.test.js

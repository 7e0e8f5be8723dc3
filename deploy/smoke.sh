#!/usr/bin/env bash
# Smoke test of the container image (deploy/Dockerfile): builds it with the OCI tool that is here (a running
# docker, else podman, with --format docker so HEALTHCHECK is kept), starts Redis, the engine, the hub
# (--no-workers) and a worker from it, checks /healthz, /readyz and each container's own health check, one
# verification and one small file clean through the hub, then stops everything (SIGTERM, expecting exit 0)
# and removes it. Exits non-zero at the first failure.
#
#   BASE_IMAGE=localhost/node:24-bookworm-slim deploy/smoke.sh    # with the stand-in from deploy/stand-in-base.sh
#
# Settings: BASE_IMAGE (node:24-bookworm-slim), IMAGE (the tag built, localhost/verify-hub:smoke),
# OCI_TOOL (docker or podman), SMOKE_ENGINE_DNS (the engine's ENGINE_DNS_SERVERS: 127.0.0.1:1 by default, where
# nothing answers, so every verdict is the same with or without internet: reserved domains and malformed
# addresses invalid, the rest unknown; empty for the machine's resolver, and then only the answers' shape is checked).
# Redis is the host's redis-server on a free loopback port: no Redis image is needed (no registry here), and
# the image under test is ours, not Redis's. Every container uses the host network, on free ports.
set -euo pipefail
cd "$(dirname "$0")/.."

base_image="${BASE_IMAGE:-node:24-bookworm-slim}"
image="${IMAGE:-localhost/verify-hub:smoke}"
run_id="vh-smoke-$$"
exec 3>&2 # failures are told on the original stderr, also from inside a silenced poll
step() { printf '\n== smoke: %s\n' "$*"; }
fail() { printf 'smoke: FAILED: %s\n' "$*" >&3; exit 1; }

# shellcheck source=deploy/oci-tool.sh
source deploy/oci-tool.sh
tool="$(oci_tool)" || fail "no docker (with a running daemon) or podman here"
[ "$tool" = buildah ] && fail "buildah builds but cannot run the services: install podman"
command -v redis-server >/dev/null || fail "redis-server missing: apt-get install -y redis-server"
command -v curl >/dev/null || fail "curl missing"

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
secret() { node -e 'console.log(require("crypto").randomBytes(24).toString("base64url"))'; }
redis_port="$(free_port)" engine_port="$(free_port)" hub_port="$(free_port)" worker_port="$(free_port)"
engine_key="vh_smoke_$(secret)" admin_token="$(secret)" secret_key="$(secret)$(secret)"
work="$(mktemp -d)"
containers=()

# Lowered limits: podman as root raises nofile/nproc by default, which sandboxes without CAP_SYS_RESOURCE refuse.
run_args=(--network host --ulimit nofile=8192:8192 --ulimit nproc=8192:8192)
if [ "$tool" = podman ] && command -v runc >/dev/null; then run_args+=(--runtime runc); fi
# podman schedules health checks with systemd timers; without systemd it says so on every start and stop,
# and the checks are run by hand below instead: that one message is left out.
quiet_systemd() { "$@" 2> >(grep -v 'unable to get systemd connection' >&2); }

cleanup() {
  local code=$?
  if [ "$code" != 0 ]; then
    for name in "${containers[@]}"; do
      printf '\n-- logs of %s (last 30 lines)\n' "$name" >&2
      "$tool" logs --tail 30 "$name" >&2 2>&1 || true
    done
  fi
  for name in "${containers[@]}"; do "$tool" rm -f "$name" >/dev/null 2>&1 || true; done
  "$tool" volume rm -f "$run_id-uploads" >/dev/null 2>&1 || true
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
  rm -rf "$work"
  [ "$code" = 0 ] && echo "smoke: PASSED" || echo "smoke: FAILED (exit $code)" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM # so that the clean-up runs on Ctrl-C too

# Polls until the command succeeds, for at most $1 seconds.
wait_for() {
  local seconds="$1" what="$2"
  shift 2
  local end=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$end" ] || fail "$what: not within ${seconds}s"
    sleep 0.5
  done
  echo "ok: $what"
}
answers_200() { curl -fsS -o /dev/null --max-time 3 "$1"; }
admin() { curl -fsS --max-time 30 -H "Authorization: Bearer $admin_token" "$@"; }
json_field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=process.argv[1].split(".").reduce((o,k)=>o?.[k],JSON.parse(s));if(v===undefined)process.exit(1);console.log(typeof v==="object"?JSON.stringify(v):v)})' "$1"; }

step "build $image from $base_image with $tool"
build_started=$SECONDS
version="$(node -p 'require("./cli/package.json").version')"
build_args=(--build-arg "BASE_IMAGE=$base_image" --build-arg "VERSION=$version" -f deploy/Dockerfile -t "$image")
# Behind a TLS-intercepting proxy the build's npm needs the machine's CA bundle (a mount, not a layer).
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ] && [ "$tool" = podman ]; then
  build_args+=(-v "$NODE_EXTRA_CA_CERTS:/run/host-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/host-ca.crt)
fi
case "$tool" in
  docker) docker build --network host "${build_args[@]}" . ;;
  podman) podman build --format docker --network host --ignorefile deploy/Dockerfile.dockerignore "${build_args[@]}" . ;;
esac
echo "ok: built in $((SECONDS - build_started)) s; $("$tool" image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')"

step "image contents: production files only, read-only to the node user, the bin runs dist/"
"$tool" run --rm "${run_args[@]}" --no-healthcheck --entrypoint sh "$image" -c '
  set -e
  [ "$(id -u)" = 1000 ] || { echo "runs as uid $(id -u), not node (1000)"; exit 1; }
  for p in test bench examples .git cli/src core/src engine/src webhooks-in/dashboard clients connectors/n8n connectors/zapier \
           node_modules/typescript node_modules/esbuild node_modules/ts-node node_modules/jest; do
    [ ! -e "/app/$p" ] || { echo "/app/$p is in the image"; exit 1; }
  done
  [ -f /app/webhooks-in/dist/dashboard/app.js ] && [ -f /app/engine/openapi.yaml ] || { echo "dashboard bundle or openapi.yaml missing"; exit 1; }
  [ -f /app/LICENSE ] && [ -f /app/webhooks-in/dist/dashboard/THIRD-PARTY-NOTICES.md ] || { echo "LICENSE or the dashboard notices missing"; exit 1; }
  node -e "const s=require(\"/app/sbom.cdx.json\"); const c=s.metadata.component; if (s.bomFormat!==\"CycloneDX\"||c.name!==\"verify-hub\"||c.version!==require(\"/app/cli/package.json\").version||s.components.length<50) { console.error(\"sbom.cdx.json: not the CLI image BOM\"); process.exit(1) }"
  ! touch /app/written-by-node 2>/dev/null || { echo "/app is writable by node"; exit 1; }
  node cli/bin/verify-hub.js --version'
[ "$("$tool" image inspect --format '{{ index .Config.Labels "org.opencontainers.image.version" }}' "$image")" = "$version" ] || { echo "the image's version label is not $version"; exit 1; }
echo "ok: contents (LICENSE, notices, sbom.cdx.json; version label $version)"

step "Redis: the host's redis-server on 127.0.0.1:$redis_port"
redis-server --daemonize yes --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --logfile "$work/redis.log"
wait_for 10 "Redis answers PING" sh -c "redis-cli -p $redis_port ping | grep -q PONG"
redis_url="redis://127.0.0.1:$redis_port"

"$tool" volume create "$run_id-uploads" >/dev/null
start() { # role, then podman/docker run arguments and the command
  local name="$run_id-$1"
  shift
  containers+=("$name")
  quiet_systemd "$tool" run -d --name "$name" "${run_args[@]}" --read-only --tmpfs /tmp \
    -e REDIS_URL="$redis_url" -e ENGINE_API_KEY="$engine_key" -e LOG_LEVEL=warn "$@" >/dev/null
}

step "start the engine (:$engine_port), the hub (:$hub_port, HTTP only) and a worker (health :$worker_port)"
engine_dns="${SMOKE_ENGINE_DNS-127.0.0.1:1}"
engine_env=(-e ENGINE_PORT="$engine_port" -e ENGINE_HOST=127.0.0.1)
[ -n "$engine_dns" ] && engine_env+=(-e ENGINE_DNS_SERVERS="$engine_dns")
start engine "${engine_env[@]}" "$image" engine
start hub -e PORT="$hub_port" -e HUB_HOST=127.0.0.1 -e ENGINE_URL="http://127.0.0.1:$engine_port" \
  -e HUB_ADMIN_TOKEN="$admin_token" -e HUB_SECRET_KEY="$secret_key" -v "$run_id-uploads:/data/uploads" "$image" serve --no-workers
start worker -e VERIFY_HUB_WORKER_HEALTH_PORT="$worker_port" -e HUB_HOST=127.0.0.1 -e ENGINE_URL="http://127.0.0.1:$engine_port" \
  -e HUB_SECRET_KEY="$secret_key" -v "$run_id-uploads:/data/uploads" "$image" worker

step "health endpoints"
wait_for 90 "engine /healthz" answers_200 "http://127.0.0.1:$engine_port/healthz"
wait_for 90 "hub /healthz" answers_200 "http://127.0.0.1:$hub_port/healthz"
wait_for 30 "hub /readyz" answers_200 "http://127.0.0.1:$hub_port/readyz"
wait_for 90 "worker /readyz" answers_200 "http://127.0.0.1:$worker_port/readyz"

step "each container's HEALTHCHECK probes its own role's port"
for role in engine hub worker; do
  case "$tool" in
    podman) wait_for 30 "$role health check" podman healthcheck run "$run_id-$role" ;;
    docker) wait_for 90 "$role health check" sh -c "docker inspect --format '{{.State.Health.Status}}' $run_id-$role | grep -qx healthy" ;;
  esac
done

step "one verification through the hub (POST /api/verify)"
answer="$(admin -H 'Content-Type: application/json' -d '{"email":"smoke.test@verify-hub-smoke.net"}' "http://127.0.0.1:$hub_port/api/verify")"
verdict="$(json_field verification.risk <<<"$answer")" || fail "no verification.risk in: $answer"
summary="$(json_field explanation.summary <<<"$answer")" || fail "no explanation.summary in: $answer"
case "$verdict" in safe | risky | invalid | unknown) ;; *) fail "unexpected risk \"$verdict\"" ;; esac
[ -z "$engine_dns" ] || [ "$verdict" = unknown ] || fail "risk \"$verdict\", not unknown, with DNS at $engine_dns"
echo "ok: smoke.test@verify-hub-smoke.net -> $verdict ($summary)"

step "one small clean through the hub (POST /api/files, wait for the run, download the files)"
printf 'name,email\nAda,ada@verify-hub-smoke.net\nBob,not-an-address\nCy,cy@example.org\n' >"$work/list.csv"
started="$(admin -F "file=@$work/list.csv;type=text/csv" "http://127.0.0.1:$hub_port/api/files")"
run="$(json_field run.id <<<"$started")" || fail "no run id in: $started"
echo "run $run started"
run_completed() {
  local status
  status="$(admin "http://127.0.0.1:$hub_port/api/runs/$run" | json_field status)"
  case "$status" in failed | cancelled) fail "run $run is $status" ;; esac
  [ "$status" = completed ]
}
wait_for 180 "run $run completed" run_completed
admin -o "$work/cleaned.csv" "http://127.0.0.1:$hub_port/api/runs/$run/files/cleaned"
admin -o "$work/removed.csv" "http://127.0.0.1:$hub_port/api/runs/$run/files/removed"
echo "cleaned:" && cat "$work/cleaned.csv" && echo "removed:" && cat "$work/removed.csv"
# Offline verdicts, whatever the network: a malformed address and a reserved domain are removed.
head -1 "$work/cleaned.csv" | grep -q '^name,email,ev_risk' || fail "the cleaned file lost its header or the ev_ columns"
grep -q '^Bob,not-an-address,invalid' "$work/removed.csv" || fail "the malformed address is not removed"
grep -q '^Cy,cy@example.org,invalid' "$work/removed.csv" || fail "the reserved domain's address is not removed"
if [ -n "$engine_dns" ]; then
  grep -q '^Ada,ada@verify-hub-smoke.net,unknown' "$work/cleaned.csv" || fail "the unknown address is not kept in the cleaned file"
fi
rows=$(($(tail -n +2 "$work/cleaned.csv" | grep -c . || true) + $(tail -n +2 "$work/removed.csv" | grep -c . || true)))
[ "$rows" = 3 ] || fail "cleaned + removed hold $rows rows, not the 3 uploaded"
echo "ok: 3 rows in, $rows out (cleaned + removed)"

step "stop: SIGTERM, each exits 0"
for role in worker hub engine; do
  quiet_systemd "$tool" stop -t 30 "$run_id-$role" >/dev/null
  code="$("$tool" inspect --format '{{.State.ExitCode}}' "$run_id-$role")"
  [ "$code" = 0 ] || fail "$role exited $code after SIGTERM"
  echo "ok: $role stopped (exit 0)"
done

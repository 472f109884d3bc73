#!/usr/bin/env bash
# test/kvm/harness.sh — a private libvirtd for lab's KVM end-to-end tests.
#
#   harness.sh start   start virtlogd and libvirtd inside the network namespace
#                      labkvm (created here), define the storage pool lab-e2e
#                      holding a copy of the test image; prints KEY=VALUE lines
#   harness.sh stop    remove every lab-* domain, volume and network left in
#                      that daemon, the pool, stop the daemons (by PID), delete
#                      the namespace
#   harness.sh status  exit 0 when the daemon answers
#
# The libvirt bridges, dnsmasq, NAT rules and every guest address live in the
# namespace and never touch the host network; the daemon's socket
# (/run/libvirt/libvirt-sock) is still reachable from the host namespace. SSH
# to guests must run inside the namespace: ip netns exec labkvm lab …
#
# Needs root and: libvirt-daemon-system libvirt-clients qemu-system-x86
# qemu-utils debootstrap dnsmasq-base iptables openssh-client.
# No systemd is needed or used. Idempotent: start reuses a daemon it started
# before; stop is safe to repeat.
set -euo pipefail

NS=${LAB_KVM_NETNS:-labkvm}
POOL=${LAB_KVM_POOL:-lab-e2e}
POOLDIR=${LAB_KVM_POOLDIR:-/var/lib/lab-kvm-e2e/pool}
CACHE=${LAB_KVM_CACHE:-/var/cache/lab-kvm}
URI=qemu:///system
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/safe-rm.sh
. "$repo/scripts/safe-rm.sh"
virsh() { command virsh -q -c "$URI" "$@"; }
log() { echo "kvm-harness: $*" >&2; }

pid_of() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null && cat "$1"; }

# in_ns PID: is the process in our namespace?
in_ns() { [ "$(stat -Lc %i "/proc/$1/ns/net" 2>/dev/null)" = "$(stat -Lc %i "/run/netns/$NS" 2>/dev/null)" ]; }

# own_daemon: is the libvirtd that answers on $URI the one start started
# (its pid file names a live libvirtd inside namespace $NS)? Anything else —
# a system libvirtd, one of another harness, one without a pid file — is not
# this harness's to clean: stop must not destroy its domains or networks.
own_daemon() {
  local pid
  pid=$(pid_of /run/libvirtd.pid) || { log "no live libvirtd in /run/libvirtd.pid"; return 1; }
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = libvirtd ] || { log "pid $pid in /run/libvirtd.pid is not libvirtd"; return 1; }
  in_ns "$pid" || { log "libvirtd (pid $pid) runs outside namespace $NS"; return 1; }
}

start() {
  [ "$(id -u)" -eq 0 ] || { log "needs root"; exit 1; }
  for c in libvirtd virtlogd virsh qemu-system-x86_64 qemu-img dnsmasq debootstrap ssh-keygen iptables; do
    command -v "$c" >/dev/null || { log "missing $c (apt-get install libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils debootstrap dnsmasq-base iptables openssh-client)"; exit 1; }
  done
  ip netns list | grep -qw "^$NS" || ip netns add "$NS"
  ip -n "$NS" link set lo up

  if pid=$(pid_of /run/libvirtd.pid); then
    in_ns "$pid" || { log "a libvirtd (pid $pid) already runs outside namespace $NS: not touching it"; exit 1; }
  else
    # /dev/kvm here cannot boot stock kernels (the tests use TCG), yet
    # libvirt sees it usable and re-probes every QEMU binary on each domain
    # definition (~2 min each): the daemon runs with it hidden (-H), and
    # what libvirt probed with it visible is thrown away.
    rm -f /var/cache/libvirt/qemu/capabilities/*.xml
  fi
  # The recipe the README gives users, in the namespace: virtlogd and
  # libvirtd daemonised (pid files /run/virtlogd.pid, /run/libvirtd.pid),
  # waited for until qemu:///system answers on its socket; it reuses
  # daemons that already run.
  bash "$repo/scripts/start-libvirtd.sh" start -n "$NS" -H
  # The daemon that answers must be the one in the namespace (a system
  # libvirtd holding the socket would answer too): stop checks the same.
  own_daemon || { log "the libvirtd answering on $URI is not the one in namespace $NS: not using it"; exit 1; }

  # The test image, built once and cached by content hash.
  key=$CACHE/test_ed25519
  mkdir -p "$CACHE"
  [ -f "$key" ] || ssh-keygen -q -t ed25519 -N '' -C lab-kvm-test -f "$key"
  img=$("$repo/scripts/build-kvm-image.sh" -k "$key.pub" -o "$CACHE")
  # The script prints one directory; anything else means it printed chatter.
  for f in base.qcow2 vmlinux initrd.img; do
    [ -f "$img/$f" ] || { log "build-kvm-image.sh printed '$img', which holds no $f"; exit 1; }
  done

  # The pool: a directory with copies of the image's three files. Copies,
  # not hard links: libvirt relabels and chowns what it serves, and anything
  # written through the pool would change the cached image under every
  # later run (and the checksum lab pins). A reflink copy is free where the
  # file system has them.
  if ! virsh pool-info "$POOL" >/dev/null 2>&1; then
    mkdir -p "$POOLDIR"
    virsh pool-create-as "$POOL" dir --target "$POOLDIR" >/dev/null
  fi
  for f in base.qcow2 vmlinux initrd.img; do
    if ! cmp -s "$img/$f" "$POOLDIR/$f"; then
      rm -f "${POOLDIR:?}/$f"
      cp --reflink=auto "$img/$f" "$POOLDIR/$f.tmp" && mv "$POOLDIR/$f.tmp" "$POOLDIR/$f"
    fi
  done
  virsh pool-refresh "$POOL" >/dev/null
  echo "LAB_KVM_NETNS=$NS"
  echo "LAB_KVM_POOL=$POOL"
  echo "LAB_KVM_KEY=$key"
  echo "LAB_KVM_IMAGE=$img"
}

stop() {
  if ! virsh version >/dev/null 2>&1; then
    :
  elif ! own_daemon; then
    log "the libvirtd answering on $URI is not this harness's: its domains, networks and pools are left alone"
  else
    for d in $(virsh list --all --name | grep -E '^[a-z0-9].*-[sc](-|$)' || true); do
      if virsh metadata "$d" https://github.com/lab-bench/lab/libvirt/1 >/dev/null 2>&1; then
        log "removing leftover domain $d"
        virsh destroy "$d" >/dev/null 2>&1 || true
        virsh undefine "$d" --managed-save --snapshots-metadata --nvram >/dev/null 2>&1 || virsh undefine "$d" >/dev/null 2>&1 || true
      fi
    done
    for n in $(virsh net-list --all --name | grep '^lab-' || true); do
      log "removing leftover network $n"
      virsh net-destroy "$n" >/dev/null 2>&1 || true
      virsh net-undefine "$n" >/dev/null 2>&1 || true
    done
    if virsh pool-info "$POOL" >/dev/null 2>&1; then
      virsh pool-destroy "$POOL" >/dev/null 2>&1 || true
      virsh pool-undefine "$POOL" >/dev/null 2>&1 || true
    fi
  fi
  for pf in /run/libvirtd.pid /run/virtlogd.pid; do
    if pid=$(pid_of "$pf"); then
      if in_ns "$pid"; then
        kill "$pid"
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
      else
        log "$pf: pid $pid is not in namespace $NS: left alone"
      fi
    fi
  done
  # dnsmasq instances libvirt started for lab networks, if any survived.
  # A pid file of a live dnsmasq outside the namespace belongs to another
  # libvirtd (the system's): left alone, like its networks above.
  for pf in /run/libvirt/network/lab-*.pid /var/run/libvirt/network/lab-*.pid; do
    [ -f "$pf" ] || continue
    pid=$(cat "$pf")
    if in_ns "$pid"; then
      kill "$pid" 2>/dev/null || true
    elif kill -0 "$pid" 2>/dev/null; then
      log "$pf: pid $pid is not in namespace $NS: left alone"
      continue
    fi
    rm -f "${pf:?}"
  done
  rm_tree "${POOLDIR:?}"
  ip netns list | grep -qw "^$NS" && ip netns del "$NS" || true
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) virsh version >/dev/null 2>&1 ;;
  *) sed -n '2,20p' "$0"; exit 2 ;;
esac

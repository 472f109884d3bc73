#!/usr/bin/env bash
# scripts/start-libvirtd.sh — run libvirt's system daemon without systemd.
#
#   start-libvirtd.sh [start] [-n NETNS] [-H]
#       start virtlogd, then libvirtd, each daemonised (-d) unless a live
#       one is named by its pid file; wait until libvirtd answers on
#       qemu:///system and its socket exists; say what it did and how to
#       stop it (on stderr; stdout stays empty)
#   start-libvirtd.sh stop
#       stop the daemons this script started (the pids it recorded, each
#       still that daemon), nothing else
#   start-libvirtd.sh status
#       exit 0 when libvirtd answers on qemu:///system
#
#   -n NETNS  start the daemons inside network namespace NETNS (it must
#             exist): libvirt's bridges, dnsmasq and NAT rules then live
#             there; the socket is still reachable from this namespace
#   -H        hide /dev/kvm from libvirtd and its QEMUs (a private mount
#             namespace in which /dev/kvm is an unreadable file), for a
#             host whose KVM cannot boot stock kernels; remove the QEMU
#             capability cache (/var/cache/libvirt/qemu/capabilities)
#             first if libvirtd ran before with /dev/kvm visible
#
# Needs root and libvirt-daemon-system (libvirtd, virtlogd, virsh),
# qemu-system-x86, dnsmasq-base and iptables. Used by test/kvm/harness.sh,
# so what the KVM suite runs is what this prints. Besides the daemons'
# own files it writes only under $LAB_LIBVIRTD_STATE (/run/lab-libvirtd).
set -euo pipefail

piddir=${LAB_LIBVIRTD_PIDDIR:-/run}
state=${LAB_LIBVIRTD_STATE:-/run/lab-libvirtd}
sock=${LAB_LIBVIRTD_SOCKET:-/run/libvirt/libvirt-sock}
uri=qemu:///system
ns= hide=
self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
log() { echo "start-libvirtd: $*" >&2; }

# pid_of FILE NAME: the pid in FILE when it is a live process named NAME.
pid_of() {
  local pid
  [ -f "$1" ] || return 1
  pid=$(cat "$1")
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] && alive "$pid" && echo "$pid"
}

# started_at PID: the process's start time (field 22 of /proc/PID/stat,
# proc(5)); with the pid it names one process even after pid reuse.
started_at() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) } # the name, in parentheses, may hold blanks
  # shellcheck disable=SC2086 # split into fields on purpose
  set -- $s
  echo "${20}"
}

# prune drops from the record the daemons that are gone (stopped by
# someone else, e.g. test/kvm/harness.sh stop, which kills by pid file).
prune() {
  local name pid at
  [ -f "${state:?}/started" ] || return 0
  while read -r name pid at; do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] && [ "$(started_at "$pid")" = "$at" ] && echo "$name $pid $at"
  done <"${state:?}/started" >"${state:?}/started.new" || true
  mv "${state:?}/started.new" "${state:?}/started"
}

# alive PID: the process runs (a zombie, which a container's init may
# never reap, does not).
alive() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }
  [ "${s%% *}" != Z ]
}

answers() { virsh -q -c "$uri" version >/dev/null 2>&1; }

# in_ns CMD…: CMD, inside namespace $ns when -n named one.
in_ns() {
  if [ -n "$ns" ]; then
    ip netns exec "$ns" "$@"
  else
    "$@"
  fi
}

start_virtlogd() {
  local pid
  if pid=$(pid_of "${piddir:?}/virtlogd.pid" virtlogd); then
    log "virtlogd already runs (pid $pid): left as it is"
    return
  fi
  in_ns virtlogd -d -p "${piddir:?}/virtlogd.pid"
  for _ in $(seq 50); do pid=$(pid_of "${piddir:?}/virtlogd.pid" virtlogd) && break; sleep 0.1; done
  [ -n "${pid:-}" ] || { log "virtlogd -d wrote no live pid to $piddir/virtlogd.pid"; exit 1; }
  echo "virtlogd $pid $(started_at "$pid")" >>"${state:?}/started"
  log "started virtlogd (pid $pid)"
}

start_libvirtd() {
  local pid pidfile=${piddir:?}/libvirtd.pid
  if pid=$(pid_of "$pidfile" libvirtd); then
    log "libvirtd already runs (pid $pid): left as it is"
    return
  fi
  if [ -z "$hide" ]; then
    in_ns libvirtd -d -p "$pidfile"
  else
    # libvirt sees such a /dev/kvm usable and re-probes every QEMU binary
    # on each domain definition (~2 min each): hide it. With /dev/kvm a
    # mount point, libvirt's per-domain /dev namespace cannot be built:
    # turn it off in a qemu.conf only this daemon sees.
    : >"${state:?}/nokvm" && chmod 000 "${state:?}/nokvm"
    { cat /etc/libvirt/qemu.conf; echo; echo 'namespaces = [ ]'; } >"${state:?}/qemu.conf"
    in_ns unshare -m --propagation private sh -c \
      'mount --bind "$1/qemu.conf" /etc/libvirt/qemu.conf &&
       { [ ! -e /dev/kvm ] || mount --bind "$1/nokvm" /dev/kvm; } && exec libvirtd -d -p "$2"' \
      sh "${state:?}" "$pidfile"
  fi
  for _ in $(seq 50); do pid=$(pid_of "$pidfile" libvirtd) && break; sleep 0.1; done
  [ -n "${pid:-}" ] || { log "libvirtd -d wrote no live pid to $pidfile"; exit 1; }
  echo "libvirtd $pid $(started_at "$pid")" >>"${state:?}/started"
  log "started libvirtd (pid $pid)${ns:+ in network namespace $ns}${hide:+, /dev/kvm hidden}"
}

start() {
  local pids
  [ "$(id -u)" -eq 0 ] || { log "needs root (the system daemon): sudo $self"; exit 1; }
  for c in libvirtd virtlogd virsh; do
    command -v "$c" >/dev/null || { log "missing $c (apt-get install libvirt-daemon-system qemu-system-x86 dnsmasq-base iptables)"; exit 1; }
  done
  if [ -n "$ns" ] && ! ip netns list | grep -qw "^$ns"; then
    log "no network namespace $ns (ip netns add $ns)"; exit 1
  fi
  mkdir -p "${state:?}" "$(dirname "${sock:?}")"
  prune
  start_virtlogd
  start_libvirtd
  for _ in $(seq 100); do
    answers && [ -S "$sock" ] && break
    sleep 0.2
  done
  answers || { log "libvirtd does not answer on $uri"; exit 1; }
  [ -S "$sock" ] || { log "libvirtd answers on $uri, but $sock is no socket (unix_sock_dir in libvirtd.conf?)"; exit 1; }
  log "libvirtd answers on $uri (socket $sock)"
  if [ -s "${state:?}/started" ]; then
    pids=$(awk '{printf "%s ", $2}' "${state:?}/started")
    log "to stop what this started: $self stop   (or: kill ${pids% })"
  fi
}

stop() {
  local name pid at left=
  [ -f "${state:?}/started" ] || { log "nothing recorded in $state/started: nothing to stop"; return 0; }
  while read -r name pid at; do
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$name" ] || [ "$(started_at "$pid")" != "$at" ]; then
      log "$name (pid $pid) is gone (or its pid is another process's now): left alone"
      continue
    fi
    kill "$pid"
    for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
      log "$name (pid $pid) did not stop on SIGTERM"
      left=1
      continue
    fi
    log "stopped $name (pid $pid)"
  done < <(tac "${state:?}/started") # libvirtd before virtlogd
  [ -z "$left" ] || exit 1
  rm -f "${state:?}/started"
}

cmd=start
while [ $# -gt 0 ]; do
  case $1 in
    start | stop | status) cmd=$1 ;;
    -n) ns=${2:?-n needs a network namespace}; shift ;;
    -H) hide=1 ;;
    *) sed -n '2,27p' "$0" >&2; exit 2 ;;
  esac
  shift
done
case $cmd in
  start) start ;;
  stop) stop ;;
  status) answers ;;
esac

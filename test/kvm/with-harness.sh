#!/usr/bin/env bash
# test/kvm/with-harness.sh CMD [ARG...] — run CMD against the private
# libvirtd of test/kvm/harness.sh: start the harness, run CMD inside its
# network namespace (where the guests' addresses are), stop the harness
# afterwards, also when CMD fails or is interrupted. In the arguments,
# @LAB_KVM_POOL@ and @LAB_KVM_KEY@ become the harness's storage pool and
# SSH key, e.g.
#
#   test/kvm/with-harness.sh ./bin/lab reproduce -auto-approve \
#       -var pool=@LAB_KVM_POOL@ -var ssh_key=@LAB_KVM_KEY@ testdata/bundles/kvm-virtio-jumbo
#
# It holds /run/lab-kvm/suite.lock (the lock TestKVM takes) while it runs:
# one user of the harness at a time. Exit status: CMD's (1 when the harness
# does not start or stop cleanly). Needs what harness.sh needs.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -gt 0 ] || { sed -n '2,15p' "$0"; exit 2; }
mkdir -p /run/lab-kvm
exec 9>/run/lab-kvm/suite.lock
flock -n 9 || { echo "with-harness: another KVM suite runs on this machine: waiting for it" >&2; flock 9; }

stop() {
  "$here/harness.sh" stop || { echo "with-harness: harness stop failed" >&2; return 1; }
}
trap 'stop || exit 1' EXIT
trap 'exit 130' INT TERM

env=$("$here/harness.sh" start)
ns= pool= key=
while IFS='=' read -r k v; do
  case $k in
    LAB_KVM_NETNS) ns=$v ;;
    LAB_KVM_POOL) pool=$v ;;
    LAB_KVM_KEY) key=$v ;;
  esac
done <<<"$env"
[ -n "$ns" ] && [ -n "$pool" ] && [ -n "$key" ] || { echo "with-harness: harness.sh start printed no namespace, pool or key" >&2; exit 1; }

args=()
for a in "$@"; do
  a=${a//@LAB_KVM_POOL@/$pool}
  args+=("${a//@LAB_KVM_KEY@/$key}")
done
set +e
ip netns exec "$ns" "${args[@]}"
rc=$?
set -e
exit "$rc"

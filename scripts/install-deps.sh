#!/usr/bin/env bash
# Installs what lab's local back end and its tests need on Debian/Ubuntu:
# iproute2 (namespaces, veth), iperf3 and iperf, ethtool, iptables, util-linux
# (taskset), iputils-ping (a cross pair's path check), libxml2-utils (xmllint),
# fish and sockperf (for the tests). Only installs what is missing; needs root for apt-get.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have ip       || need+=(iproute2)
have iperf3   || need+=(iperf3)
have iperf    || need+=(iperf)
have ethtool  || need+=(ethtool)
have iptables || need+=(iptables)
have nft      || need+=(nftables)
have taskset  || need+=(util-linux)
have ss       || need+=(iproute2)
have git      || need+=(git)
have xmllint  || need+=(libxml2-utils) # the JUnit schema test (internal/report)
have fish     || need+=(fish)          # the fish completion test (cmd/lab)
have sockperf || need+=(sockperf)      # the sockperf tool and its tests
have ping     || need+=(iputils-ping)  # a cross pair's path MTU check (and its tests)
have sshd     || [ -x /usr/sbin/sshd ] || need+=(openssh-server)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "lab needs: ${need[*]} — run as root, or: sudo apt-get install ${need[*]}" >&2
  exit 1
fi
echo "Installing: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# iperf3's package asks whether to start a daemon; answer no.
echo "iperf3 iperf3/start_daemon boolean false" | debconf-set-selections 2>/dev/null || true
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null

# Two existing machines (bare metal, or VMs lab did not make) reached over
# SSH — how seeds 001 and 004 were run. Nothing is created or destroyed:
# lab connects, records each machine's SSH host key in .lab/ (trusted on
# first use, refused if it ever changes), applies each cell's settings on
# the benchmark interface, runs iperf3 between the bench addresses and, at
# the end, puts every setting it changed (MTU, offloads, congestion
# control, sysctls) back to the value it found and checks it did.
#
#   lab -chdir=examples/hosts-pair apply \
#       -var server_ssh=192.0.2.10 -var client_ssh=192.0.2.11 \
#       -var server_bench=198.18.1.1 -var client_bench=198.18.1.2
#
# The machines need sshd with your key in root's authorized_keys, and
# iproute2, ethtool, iperf3, util-linux (taskset) and iptables installed.

lab "hosts-pair" {
  description = "two existing Linux hosts back to back: MTU x GRO"
}

variable "server_ssh" {
  type        = string
  description = "SSH address of the server machine (management network)"
}
variable "client_ssh" {
  type        = string
  description = "SSH address of the client machine"
}
variable "server_bench" {
  type        = string
  description = "server's address on the benchmark link"
}
variable "client_bench" {
  type        = string
  description = "client's address on the benchmark link"
}
variable "iface" {
  type        = string
  default     = "eth1"
  description = "benchmark interface on both machines"
}

provider "hosts" "bench" {
  server {
    address          = var.server_ssh
    user             = "root"
    private_key_file = "~/.ssh/id_ed25519"
    # host_key = "ssh-ed25519 AAAA…"   # pin it; empty: trust on first use
    iface         = var.iface
    bench_address = var.server_bench
    cpus          = "2"
  }
  client {
    address          = var.client_ssh
    private_key_file = "~/.ssh/id_ed25519"
    iface            = var.iface
    bench_address    = var.client_bench
    cpus             = "2"
  }
}

template "host" {
  provider = provider.hosts.bench
  os       = "linux"
}

pair "metal" {
  template = template.host
}

experiment "mtu-gro" {
  pairs  = [pair.metal]
  matrix = { mtu = [1500, 9000], gro = [false, true] }
  repeat = 3
  warmup = 1

  guest {
    mtu                = matrix.mtu
    gro                = matrix.gro
    congestion_control = "cubic"
  }

  iperf3 {
    duration = "30s"
    omit     = "2s"
  }
}

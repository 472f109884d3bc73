# Seed 004 (freebsd-performance list, 2009): netperf TCP_STREAM between two
# FreeBSD machines on Intel e1000 (em) 1 GbE, 8 KB socket buffers set with
#   sysctl net.inet.tcp.sendspace=8192 net.inet.tcp.recvspace=8192
# and the send (message) size swept. Published: 128 B → 426 Mb/s,
# 1 KB → 903 Mb/s, 8 KB → 914 Mb/s (FreeBSD 7.2, Pentium D).
#
#   lab -chdir=examples/hosts-netperf-msgsize apply \
#       -var server_ssh=192.0.2.10 -var client_ssh=192.0.2.11 \
#       -var server_bench=198.18.1.1 -var client_bench=198.18.1.2
#
# The machines are borrowed (hosts back end): lab records the two sysctls
# before the first run and puts them back at teardown. They need sshd with
# your key for root and netperf (benchmarks/netperf: netperf, netserver).
# NOT RUN against real FreeBSD machines: the FreeBSD driver's commands are
# tested by golden transcripts only (see README).

lab "hosts-netperf-msgsize" {
  description = "seed 004: netperf TCP_STREAM send-size sweep with 8 KB socket buffers"
}

variable "server_ssh" {
  type        = string
  description = "SSH address of the netserver machine"
}
variable "client_ssh" {
  type        = string
  description = "SSH address of the netperf machine"
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
  default     = "em0"
  description = "benchmark interface on both machines (FreeBSD: driver and unit)"
}

provider "hosts" "metal" {
  server {
    address       = var.server_ssh
    iface         = var.iface
    bench_address = var.server_bench
  }
  client {
    address       = var.client_ssh
    iface         = var.iface
    bench_address = var.client_bench
  }
}

template "freebsd" {
  provider = provider.hosts.metal
  os       = "freebsd"
}

pair "metal" {
  template = template.freebsd
}

experiment "msgsize" {
  pairs  = [pair.metal]
  matrix = { msg = ["64", "128", "256", "512", "1024", "2048", "4096", "8192"] }
  repeat = 3

  guest {
    sysctl = {
      "net.inet.tcp.sendspace" = 8192
      "net.inet.tcp.recvspace" = 8192
    }
  }

  netperf {
    test      = "TCP_STREAM"
    duration  = "10s"
    send_size = matrix.msg
  }
}

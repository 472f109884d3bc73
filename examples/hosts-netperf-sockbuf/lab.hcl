# Seed 004, first poster (Adrian Chadd, freebsd-performance list, 2009):
# netperf TCP_STREAM between two FreeBSD 7.2 boxes (Pentium D 3.4 GHz,
# onboard Intel 82573E e1000), routed through a Cisco 3750G. The same
# command each time,
#   netperf -H 192.168.10.2 -p 22113 -l 10
# with the client's send/receive socket buffers at 128 B, 1 KB and 8 KB;
# netperf's table shows Send Socket = Send Message = the buffer, and the
# receiver's 8192 from its /etc/sysctl.conf (net.inet.tcp.sendspace=8192,
# recvspace=8192). Published (Mb/s, netperf's figure: the sending side):
#   128 B 426.17    1 KB 903.39    8 KB 913.71
#
# Expressed (docs/SEEDS.md has the full table): the swept variable is the
# client's socket buffers, set the way the post set them (sysctl
# net.inet.tcp.sendspace/recvspace), the server's at 8192, netperf with
# the post's control port and duration and its default message size (the
# send buffer's) — exact. lab records the sizes netperf reports
# (metrics.socket_sizes), so each record shows that the sysctl reached the
# socket. The machines are borrowed (hosts back end): lab records the
# sysctls before the first run and puts them back at teardown. The post's
# hardware is the post's: absolute numbers are compared only on a host
# whose CPU matches (`match`), the shape (1 KB buffers already fill the
# link; 128 B halves it) everywhere.
#
# The second poster's FreeBSD-vs-Linux sweep is examples/hosts-netperf-msgsize.
#
#   lab -chdir=examples/hosts-netperf-sockbuf apply \
#       -var server_ssh=192.0.2.10 -var client_ssh=192.0.2.11 \
#       -var server_bench=198.18.1.1 -var client_bench=198.18.1.2
#
# The machines need sshd with your key for root and netperf
# (benchmarks/netperf: netperf, netserver).
# NOT RUN against real FreeBSD machines: the FreeBSD driver's commands are
# tested by golden transcripts only (see docs/backend-bhyve.md).

lab "hosts-netperf-sockbuf" {
  description = "seed 004 (A. Chadd): netperf TCP_STREAM with the client's socket buffers at 128 B / 1 KB / 8 KB"
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

provider "hosts" "p4d" {
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
  provider = provider.hosts.p4d
  os       = "freebsd"
}

pair "p4d" {
  template = template.freebsd
}

experiment "sockbuf" {
  pairs  = [pair.p4d]
  matrix = { buf = [128, 1024, 8192] }
  repeat = 3

  server {
    sysctl = {
      "net.inet.tcp.sendspace" = 8192
      "net.inet.tcp.recvspace" = 8192
    }
  }
  client {
    sysctl = {
      "net.inet.tcp.sendspace" = matrix.buf
      "net.inet.tcp.recvspace" = matrix.buf
    }
  }

  netperf {
    test     = "TCP_STREAM"
    duration = "10s"
    port     = 22113 # the post's -p 22113
    # no send_size: netperf's default message is the send buffer's size
  }

  expect "1 KB buffers already fill the link: 903 / 914 Mb/s" {
    ratio = { of = "buf=1024", over = "buf=8192", published = published.seed-004-sockbuf }
  }
  expect "128 B buffers cost half: 426 / 914 Mb/s" {
    ratio = { of = "buf=128", over = "buf=8192", published = published.seed-004-sockbuf }
  }
  expect "the post's figures, where the hardware matches" {
    published = published.seed-004-sockbuf
  }
}

published "seed-004-sockbuf" {
  source     = "seed 004 (freebsd-performance list, 2009-10-18, A. Chadd): three netperf tables"
  hardware   = "two Pentium D 3.4 GHz boxes, FreeBSD 7.2 amd64, Intel 82573E (em), routed via a Cisco 3750G"
  match      = { provider = "hosts", cpu = "Pentium(R) D" }
  tool       = "netperf"
  side       = "sender"
  metric     = "throughput"
  experiment = experiment.sockbuf
  cells = [
    { where = { buf = 128 }, value = 0.42617 },
    { where = { buf = 1024 }, value = 0.90339 },
    { where = { buf = 8192 }, value = 0.91371 },
  ]
}

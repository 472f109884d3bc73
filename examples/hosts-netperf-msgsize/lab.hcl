# Seed 004, second poster (Hongtao Yin, freebsd-performance list, 2009):
# FreeBSD 7.1 (NewReno) against Linux 2.6.31 (congestion control set to
# Reno) on four Dell T3400 (Core 2 Duo E4600), Intel PRO/1000 82546EB, one
# Netgear GS108 switch; PC1 → PC2 both FreeBSD, PC3 → PC4 both Linux.
#   netperf -H … -p 22113                                FreeBSD 598.11, Linux 779.02 Mb/s
#   netperf -t TCP_STREAM -H … -p 22113 -- -m 64…4096   (tables below)
#   iperf -c …                                          FreeBSD 600, Linux 815
#   iperf -c … -d                                       FreeBSD 337 (+338 back), Linux 776 (+36.9 back)
#   iperf -c … -P 2                                     FreeBSD 600, Linux 797 (sums)
# netperf's and iperf's figures are the sending side's.
#
# Expressed (docs/SEEDS.md has the full table): four existing machines
# (two hosts providers, one per OS pair), each OS's congestion control,
# netperf with the post's control port and its default and swept message
# sizes, iperf 2 plain, -d and -P 2 — exact. The -d test's reverse
# direction is recorded (reverse_bps) but only the forward one is a table.
# A pair's settings apply to all its experiments' cells, and lab has no
# per-pair setting inside one experiment, so each OS has its own
# experiments (the congestion control differs). Nothing is changed on the
# machines but what the spec asks; the congestion control is put back at
# teardown. The first poster's socket-buffer sweep is
# examples/hosts-netperf-sockbuf.
#
#   lab -chdir=examples/hosts-netperf-msgsize apply \
#       -var bsd_server_ssh=192.0.2.20 -var bsd_client_ssh=192.0.2.10 \
#       -var linux_server_ssh=192.0.2.40 -var linux_client_ssh=192.0.2.30 \
#       -var bsd_server_bench=198.18.1.20 -var bsd_client_bench=198.18.1.10 \
#       -var linux_server_bench=198.18.1.40 -var linux_client_bench=198.18.1.30
#
# The machines need sshd with your key for root, netperf (netserver) and
# iperf 2. NOT RUN against real FreeBSD machines: the FreeBSD driver's
# commands are tested by golden transcripts only (see docs/backend-bhyve.md).

lab "hosts-netperf-msgsize" {
  description = "seed 004 (H. Yin): FreeBSD vs Linux, netperf default and -m 64..4096, iperf plain, -d and -P 2"
}

variable "bsd_server_ssh" { type = string }
variable "bsd_client_ssh" { type = string }
variable "bsd_server_bench" { type = string }
variable "bsd_client_bench" { type = string }
variable "linux_server_ssh" { type = string }
variable "linux_client_ssh" { type = string }
variable "linux_server_bench" { type = string }
variable "linux_client_bench" { type = string }
variable "bsd_iface" {
  type    = string
  default = "em0"
}
variable "linux_iface" {
  type    = string
  default = "eth0"
}

provider "hosts" "freebsd" {
  server {
    address       = var.bsd_server_ssh
    iface         = var.bsd_iface
    bench_address = var.bsd_server_bench
  }
  client {
    address       = var.bsd_client_ssh
    iface         = var.bsd_iface
    bench_address = var.bsd_client_bench
  }
}

provider "hosts" "linux" {
  server {
    address       = var.linux_server_ssh
    iface         = var.linux_iface
    bench_address = var.linux_server_bench
  }
  client {
    address       = var.linux_client_ssh
    iface         = var.linux_iface
    bench_address = var.linux_client_bench
  }
}

template "freebsd" {
  provider = provider.hosts.freebsd
  os       = "freebsd"
}

template "linux" {
  provider = provider.hosts.linux
  os       = "linux"
}

pair "bsd" {
  template = template.freebsd
}

pair "linux" {
  template = template.linux
}

# netperf with its defaults, as the post's first table.
experiment "bsd-netperf" {
  pairs  = [pair.bsd]
  matrix = { msg = ["default", "64", "128", "256", "512", "1024", "2048", "4096"] }
  repeat = 3

  guest {
    congestion_control = "newreno" # FreeBSD 7.1's default, as the post says
  }
  netperf {
    test      = "TCP_STREAM"
    duration  = "10s"
    port      = 22113
    send_size = matrix.msg == "default" ? null : matrix.msg
  }

  expect "FreeBSD dips at 128 B messages: 337 / 602 Mb/s" {
    ratio = { of = "msg=128", over = "msg=4096", published = published.seed-004-bsd-netperf }
  }
  expect "the post's FreeBSD netperf figures, where the hardware matches" {
    published = published.seed-004-bsd-netperf
  }
}

experiment "linux-netperf" {
  pairs  = [pair.linux]
  matrix = { msg = ["default", "64", "128", "256", "512", "1024", "2048", "4096"] }
  repeat = 3

  guest {
    congestion_control = "reno"
  }
  netperf {
    test      = "TCP_STREAM"
    duration  = "10s"
    port      = 22113
    send_size = matrix.msg == "default" ? null : matrix.msg
  }

  expect "Linux stays flat over the message size: 779.72 / 780.17 Mb/s at 128 B / 4 KB" {
    ratio = { of = "msg=128", over = "msg=4096", published = published.seed-004-linux-netperf }
  }
  expect "the post's Linux netperf figures, where the hardware matches" {
    published = published.seed-004-linux-netperf
  }
}

# iperf 2: plain, -d (both directions at once) and -P 2.
experiment "bsd-iperf" {
  pairs  = [pair.bsd]
  matrix = { test = ["plain", "dualtest", "p2"] }
  repeat = 3

  guest {
    congestion_control = "newreno"
  }
  iperf2 {
    duration = "10s"
    dualtest = matrix.test == "dualtest"
    parallel = matrix.test == "p2" ? 2 : 1
  }

  expect "the post's FreeBSD iperf figures, where the hardware matches" {
    published = published.seed-004-bsd-iperf
  }
  expect "iperf -d's reverse direction, where the hardware matches" {
    published = published.seed-004-bsd-iperf-reverse
  }
}

experiment "linux-iperf" {
  pairs  = [pair.linux]
  matrix = { test = ["plain", "dualtest", "p2"] }
  repeat = 3

  guest {
    congestion_control = "reno"
  }
  iperf2 {
    duration = "10s"
    dualtest = matrix.test == "dualtest"
    parallel = matrix.test == "p2" ? 2 : 1
  }

  expect "the post's Linux iperf figures, where the hardware matches" {
    published = published.seed-004-linux-iperf
  }
  expect "iperf -d's reverse direction, where the hardware matches" {
    published = published.seed-004-linux-iperf-reverse
  }
}

published "seed-004-bsd-netperf" {
  source     = "seed 004 (freebsd-performance list, 2009-10-15, H. Yin): netperf tables, FreeBSD"
  hardware   = "Dell Precision T3400, Core 2 Duo E4600 2.4 GHz, Intel PRO/1000 82546EB, Netgear GS108; FreeBSD 7.1"
  match      = { provider = "hosts", cpu = "E4600" }
  tool       = "netperf"
  side       = "sender"
  metric     = "throughput"
  experiment = experiment.bsd-netperf
  cells = [
    { where = { msg = "default" }, value = 0.59811 },
    { where = { msg = "64" }, value = 0.41710 },
    { where = { msg = "128" }, value = 0.33663 },
    { where = { msg = "256" }, value = 0.57699 },
    { where = { msg = "512" }, value = 0.56979 },
    { where = { msg = "1024" }, value = 0.55370 },
    { where = { msg = "2048" }, value = 0.58420 },
    { where = { msg = "4096" }, value = 0.60245 },
  ]
}

published "seed-004-linux-netperf" {
  source     = "seed 004 (freebsd-performance list, 2009-10-15, H. Yin): netperf tables, Linux"
  hardware   = "Dell Precision T3400, Core 2 Duo E4600 2.4 GHz, Intel PRO/1000 82546EB, Netgear GS108; Linux 2.6.31.1, Reno"
  match      = { provider = "hosts", cpu = "E4600" }
  tool       = "netperf"
  side       = "sender"
  metric     = "throughput"
  experiment = experiment.linux-netperf
  cells = [
    { where = { msg = "default" }, value = 0.77902 },
    { where = { msg = "64" }, value = 0.77821 },
    { where = { msg = "128" }, value = 0.77972 },
    { where = { msg = "256" }, value = 0.78016 },
    { where = { msg = "512" }, value = 0.77685 },
    { where = { msg = "1024" }, value = 0.77752 },
    { where = { msg = "2048" }, value = 0.77783 },
    { where = { msg = "4096" }, value = 0.78017 },
  ]
}

published "seed-004-bsd-iperf" {
  source     = "seed 004 (freebsd-performance list, 2009-10-15, H. Yin): iperf tables, FreeBSD"
  hardware   = "Dell Precision T3400, Core 2 Duo E4600 2.4 GHz, Intel PRO/1000 82546EB, Netgear GS108; FreeBSD 7.1"
  match      = { provider = "hosts", cpu = "E4600" }
  tool       = "iperf2"
  side       = "sender"
  metric     = "throughput"
  experiment = experiment.bsd-iperf
  cells = [
    { where = { test = "plain" }, value = 0.600 },
    { where = { test = "dualtest" }, value = 0.337 },
    { where = { test = "p2" }, value = 0.600 },
  ]
}

published "seed-004-linux-iperf" {
  source     = "seed 004 (freebsd-performance list, 2009-10-15, H. Yin): iperf tables, Linux"
  hardware   = "Dell Precision T3400, Core 2 Duo E4600 2.4 GHz, Intel PRO/1000 82546EB, Netgear GS108; Linux 2.6.31.1, Reno"
  match      = { provider = "hosts", cpu = "E4600" }
  tool       = "iperf2"
  side       = "sender"
  metric     = "throughput"
  experiment = experiment.linux-iperf
  cells = [
    { where = { test = "plain" }, value = 0.815 },
    { where = { test = "dualtest" }, value = 0.776 },
    { where = { test = "p2" }, value = 0.797 },
  ]
}

# iperf -d's other direction (the server sending back to the client, which
# reports it): FreeBSD 337 + 338, Linux 776 + 36.9. lab records it as
# reverse_bps (reverse_throughput).

published "seed-004-bsd-iperf-reverse" {
  source     = "seed 004 (freebsd-performance list, 2009-10-15, H. Yin): iperf -d, the second (server-to-client) figure, FreeBSD"
  hardware   = "Dell Precision T3400, Core 2 Duo E4600 2.4 GHz, Intel PRO/1000 82546EB, Netgear GS108; FreeBSD 7.1"
  match      = { provider = "hosts", cpu = "E4600" }
  tool       = "iperf2"
  side       = "receiver"
  metric     = "reverse_throughput"
  experiment = experiment.bsd-iperf
  cells = [
    { where = { test = "dualtest" }, value = 0.338 },
  ]
}

published "seed-004-linux-iperf-reverse" {
  source     = "seed 004 (freebsd-performance list, 2009-10-15, H. Yin): iperf -d, the second (server-to-client) figure, Linux"
  hardware   = "Dell Precision T3400, Core 2 Duo E4600 2.4 GHz, Intel PRO/1000 82546EB, Netgear GS108; Linux 2.6.31.1, Reno"
  match      = { provider = "hosts", cpu = "E4600" }
  tool       = "iperf2"
  side       = "receiver"
  metric     = "reverse_throughput"
  experiment = experiment.linux-iperf
  cells = [
    { where = { test = "dualtest" }, value = 0.0369 },
  ]
}

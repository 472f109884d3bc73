# IPv6 on the local back end: two network namespaces joined by a veth pair
# that carries IPv4 and IPv6 (unique local addresses from a /48 inside
# fd00::/8 derived from this lab and workspace, one /64 per link, added
# without duplicate address detection), iperf3 between them over each.
#   lab -chdir=examples/ipv6 apply -auto-approve
lab "ipv6" {
  description = "veth between two namespaces: IPv4 against IPv6, 1 and 4 streams"
}

template "host" {
  os = "linux"
}

pair "veth" {
  template = template.host
  vcpu     = 1
}

# The same cells over IPv4 (the default, ip_version = 4) ...
experiment "v4" {
  pairs  = [pair.veth]
  matrix = { streams = [1, 4] }
  iperf3 {
    duration = "2s"
    omit     = "1s"
    parallel = matrix.streams
  }
}

# ... and over IPv6: ip_version = 6 runs iperf3 -6 between the ends' IPv6
# addresses; "dual" would do the same with IPv4 configured as well (it is,
# here: a pair any experiment uses over IPv6 gets both). One value per
# experiment: a pair's links are addressed when they are made.
experiment "v6" {
  pairs      = [pair.veth]
  ip_version = 6
  matrix     = { streams = [1, 4] }
  iperf3 {
    duration = "2s"
    omit     = "1s"
    parallel = matrix.streams
  }
}

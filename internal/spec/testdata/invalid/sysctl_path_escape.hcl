lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  guest {
    sysctl = { "net.ipv4..tcp_rmem" = "4096 131072 6291456" } # ERROR: Invalid sysctl name
  }
  iperf3 {}
}

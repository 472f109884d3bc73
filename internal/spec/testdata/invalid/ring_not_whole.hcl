lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  client {
    tx_ring = 512.5 # ERROR: Invalid tx_ring
  }
  iperf3 {}
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { ring = [1024, 100000] }
  guest {
    rx_ring = matrix.ring # ERROR: Invalid rx_ring
  }
  iperf3 {}
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { mtu = range(1000, 2000), streams = range(1, 12) } # ERROR: Too many cells
  guest { mtu = matrix.mtu }
  iperf3 { parallel = matrix.streams }
}

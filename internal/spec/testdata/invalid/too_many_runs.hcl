lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { mtu = range(1000, 2000), streams = range(1, 11) }
  repeat = 11 # ERROR: Too many runs
  guest { mtu = matrix.mtu }
  iperf3 { parallel = matrix.streams }
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  matrix = { mtu = [1500], pair = ["p"] } # ERROR: Reserved matrix key
  guest { mtu = matrix.mtu }
  iperf3 {}
}

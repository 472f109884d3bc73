lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  matrix = { mtu = [1500, 70000] }
  guest {
    mtu = matrix.mtu # ERROR: Invalid mtu
  }
  iperf3 {}
}

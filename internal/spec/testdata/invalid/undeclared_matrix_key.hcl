lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  matrix = { mtu = [1500, 9000] }
  guest {
    mtu = matrix.mtu
    gro = matrix.nope # ERROR: Undeclared matrix key
  }
  iperf3 {}
}

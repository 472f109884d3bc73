lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p, pair.nope] # ERROR: Reference to undeclared pair
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 {}
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 {}
  expect "x" {
    ratio = { of = "mtu=9000", over = "lro=false", at_least = 2 } # ERROR: Undeclared matrix key
  }
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  matrix = {
    mtu = [1500]
    gro = [] # ERROR: Empty matrix key
  }
  guest { mtu = matrix.mtu }
  iperf3 {}
}

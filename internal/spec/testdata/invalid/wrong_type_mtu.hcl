lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  
  guest {
    mtu = "big" # ERROR: Incorrect attribute value type
  }
  iperf3 {}
}

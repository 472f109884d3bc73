lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  
  guest {
    mtu = var.nope # ERROR: Reference to undeclared variable
  }
  iperf3 {}
}

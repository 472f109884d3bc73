lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  
  guest {
    loss = "150%" # ERROR: Invalid percentage
  }
  iperf3 {}
}

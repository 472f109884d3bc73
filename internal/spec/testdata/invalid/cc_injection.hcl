lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  
  guest {
    congestion_control = "cubic; rm -rf /" # ERROR: Invalid congestion control
  }
  iperf3 {}
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  server {
    rx_ring = "large" # ERROR: Incorrect attribute value type
  }
  iperf3 {}
}

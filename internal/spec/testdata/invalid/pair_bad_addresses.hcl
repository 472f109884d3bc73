lab "addr" {}
template "t" {}
pair "p" {
  template  = template.t
  addresses = { server = "198.18.250.2" } # ERROR: Invalid addresses
}
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}

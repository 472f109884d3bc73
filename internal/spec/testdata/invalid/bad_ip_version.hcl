lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs      = [pair.p]
  ip_version = 5 # ERROR: Invalid ip_version
  iperf3 { duration = "1s" }
}

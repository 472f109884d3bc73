lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs      = [pair.p]
  concurrent = true # ERROR: Concurrent flows need two pairs
  iperf3 { duration = "1s" }
}

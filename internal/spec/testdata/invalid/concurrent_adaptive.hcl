lab "bad" {}
template "t" {}
pair "a" { template = template.t }
pair "b" { template = template.t }
experiment "e" {
  pairs      = [pair.a, pair.b]
  concurrent = true
  repeat     = { min = 3, max = 10, until = "ci < 5%" } # ERROR: Adaptive repeats with concurrent flows
  iperf3 { duration = "1s" }
}

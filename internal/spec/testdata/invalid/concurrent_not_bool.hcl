lab "bad" {}
template "t" {}
pair "a" { template = template.t }
pair "b" { template = template.t }
experiment "e" {
  pairs      = [pair.a, pair.b]
  concurrent = "yes please" # ERROR: Incorrect attribute value type
  iperf3 { duration = "1s" }
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  order = "shuffled" # ERROR: Invalid order
  iperf3 { duration = "1s" }
}

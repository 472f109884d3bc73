lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  background {} # ERROR: Empty background block
  iperf3 { duration = "1s" }
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 {
    length = "0" # ERROR: Invalid buffer length
  }
}

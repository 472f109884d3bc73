lab "bad" {}
template "t" {}
pair "p" {
  template = template.t
  via      = template.rtr # ERROR: Reference to undeclared template
}
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}

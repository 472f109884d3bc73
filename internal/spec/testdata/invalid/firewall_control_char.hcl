lab "bad" {}
template "t" {}
pair "p" {
  template = template.t
  via      = template.t
}
experiment "e" {
  pairs = [pair.p]
  router { firewall = "chain x {}\u0000" } # ERROR: Invalid firewall ruleset
  iperf3 { duration = "1s" }
}

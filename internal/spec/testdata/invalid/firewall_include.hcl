lab "bad" {}
template "t" {}
pair "fw" {
  template = template.t
  via      = template.t
}
experiment "e" {
  pairs = [pair.fw]
  router {
    firewall = "include \"/etc/shadow\"" # ERROR: Invalid firewall ruleset
  }
  iperf3 {}
}

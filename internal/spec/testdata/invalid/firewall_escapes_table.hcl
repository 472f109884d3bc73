lab "bad" {}
template "t" {}
pair "fw" {
  template = template.t
  via      = template.t
}
experiment "e" {
  pairs = [pair.fw]
  router {
    firewall = <<EOT
chain forward {
  type filter hook forward priority 0; policy accept;
}
} # ERROR: Invalid firewall ruleset
table inet evil {
  chain c { }
EOT
  }
  iperf3 {}
}

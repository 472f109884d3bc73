lab "router" {
  description = "client -> router -> server, firewall states"
}

template "host" {}

pair "fw" {
  template = template.host
  via      = template.host
}

experiment "fw" {
  pairs  = [pair.fw]
  matrix = { mtu = [1500, 9000], firewall = ["none", "stateful"] }
  guest { mtu = matrix.mtu }
  router {
    firewall = {
      none     = ""
      stateful = "chain forward {\n type filter hook forward priority 0; policy drop;\n ct state established,related accept\n ct state new accept\n}"
    }[matrix.firewall]
  }
  iperf3 { duration = "2s" }
}

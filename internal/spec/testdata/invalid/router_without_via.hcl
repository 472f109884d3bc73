lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  router { mtu = 9000 } # ERROR: Router settings without a router
  iperf3 { duration = "1s" }
}

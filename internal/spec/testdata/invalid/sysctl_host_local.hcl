lab "bad" {}
template "t" {} # the implicit local provider: network namespaces of this host
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  server {
    sysctl = { "kernel.printk_ratelimit" = 10 } # ERROR: Sysctl not namespaced
  }
  iperf3 {}
}

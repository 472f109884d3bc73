lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  guest {
    sysctl = { "net/ipv4/../../kernel/printk" = "1" } # ERROR: Invalid sysctl name
  }
  iperf3 {}
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  
  guest {
    sysctl = { "net.core.rmem_max" = "1; reboot" } # ERROR: Invalid sysctl value
  }
  iperf3 {}
}

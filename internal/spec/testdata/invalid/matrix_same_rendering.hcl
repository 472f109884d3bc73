lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  # 1500 and "1500" would be one cell key and one result directory
  matrix = { mtu = [1500, "1500"] } # ERROR: Duplicate matrix value
  guest { mtu = matrix.mtu }
  iperf3 {}
}

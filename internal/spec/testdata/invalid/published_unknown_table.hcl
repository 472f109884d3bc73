lab "bad" {}
template "t" {}
pair "p" { template = template.t }
pair "q" { template = template.t }
experiment "e" {
  pairs  = [pair.p, pair.q]
  matrix = { lro = [false, true], mtu = [1500, 9000] }
  guest {
    lro = matrix.lro
    mtu = matrix.mtu
  }
  iperf3 { duration = "1s" }
}
expect "as published" {
  published = published.nope # ERROR: Reference to undeclared published table
}

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
published "t" {
  source     = "a post"
  hardware   = "a laptop"
  side       = "sender" # ERROR: Invalid side
  metric     = "cpu"
  experiment = experiment.e
  cells      = [{ where = { pair = "p", lro = false, mtu = 1500 }, value = 1 }]
}

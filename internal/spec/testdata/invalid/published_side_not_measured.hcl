lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf2 { duration = "1s" }
}
published "t" {
  source     = "a post"
  hardware   = "a laptop"
  side       = "receiver" # ERROR: Side not measured
  tool       = "iperf2"
  experiment = experiment.e
  cells      = [{ where = { mtu = 1500 }, value = 1 }]
}

lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 { duration = "1s" }
}
experiment "f" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
  expect "e's table" {
    published = published.t # ERROR: Published table of another experiment
  }
}
published "t" {
  source     = "a post"
  hardware   = "a laptop"
  side       = "sender"
  experiment = experiment.e
  cells      = [{ where = { mtu = 1500 }, value = 1 }]
}

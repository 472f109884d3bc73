lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  matrix = {
    label = ["fast,mtu=9000", "slow"] # ERROR: Ambiguous matrix value
    mtu   = [1500, 9000]
  }
  guest { mtu = matrix.mtu }
  iperf3 {}
  expect "labelled" {
    where       = { label = "slow" }
    retransmits = { max = 0 }
  }
}

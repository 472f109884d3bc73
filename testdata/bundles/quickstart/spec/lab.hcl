# The quickstart lab's veth pair, two cells in randomized complete blocks:
# the design of the pinned bundle CI reproduces (testdata/bundles/quickstart;
# cmd/lab BenchmarkSensitivity measured what its verdicts can tell).
lab "quickstart" {
  description = "veth between two namespaces: MTU 1500 vs 9000, randomized blocks"
}

template "host" {
  os = "linux" # the local back end runs guests as namespaces of this machine
}

pair "veth" {
  template = template.host
  vcpu     = 1 # server pinned to one CPU, client to another
}

experiment "mtu" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000] }
  repeat = 20 # blocks: each runs both cells once, in random order

  guest {
    mtu = matrix.mtu
  }

  iperf3 {
    duration = "2s"
    omit     = "0s"
  }
}

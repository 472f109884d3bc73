# Adaptive repeats: each cell runs at least 3 times, then stops as soon as
# its throughput's 95 % confidence interval is narrower than ±5 % of the
# mean, and at the latest after 12 runs. Quiet cells finish early; noisy
# ones get the runs they need. Local back end (needs root):
#   lab -chdir=examples/adaptive-repeats apply -auto-approve
lab "adaptive-repeats" {
  description = "veth, MTU x streams, repeated until each cell's CI is within 5 %"
}

template "host" {
  os = "linux"
}

pair "veth" {
  template = template.host
  vcpu     = 1
}

experiment "until-narrow" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000], streams = [1, 2] }
  repeat = { min = 3, max = 12, until = "ci < 5%" }

  guest {
    mtu = matrix.mtu
  }

  iperf3 {
    duration = "2s"
    omit     = "1s"
    parallel = matrix.streams
  }
}

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

# Adaptive repeats that stop on the verdict: each cell runs at least 3
# times, then stops once the group-sequential rule decides its throughput
# expectation (the mean far enough inside or outside the band, in
# standard errors) or finds it futile (the mean too near an edge) — at
# the latest after 12 runs. lab check judges the cell by the same looks.
# Each wrong verdict with the true mean on an edge: ≤ 2.5 % (docs/spec.md).
experiment "until-verdict" {
  pairs  = [pair.veth]
  matrix = { streams = [1, 2] }
  repeat = { min = 3, max = 12, until = "verdict" }

  iperf3 {
    duration = "2s"
    omit     = "1s"
    parallel = matrix.streams
  }

  expect "veth carries 1 to 99 Gb/s" {
    throughput = { gbps = 50, tolerance = "98%" }
  }
}

# A budget instead of a count: as many whole blocks (each cell once, in a
# shuffled order) as fit in 2 minutes of runs — a block is 2 cells ×
# (2 s + 1 s omit + the per-run overhead), so lab plan says "up to 15
# blocks" with 1 s of overhead — stopping early once every band is
# decided by the same rule. Warm-ups run outside the budget. lab show
# lists why the experiment stopped (decided, or budget spent).
experiment "within-budget" {
  pairs  = [pair.veth]
  matrix = { streams = [1, 2] }
  budget = "2m"

  iperf3 {
    duration = "2s"
    omit     = "1s"
    parallel = matrix.streams
  }

  expect "veth carries 1 to 99 Gb/s" {
    throughput = { gbps = 50, tolerance = "98%" }
  }
}

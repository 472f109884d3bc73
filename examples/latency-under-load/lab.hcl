# Latency under load (flent's RRUL idea, seed 001's "while the link is
# loaded"): the round trip of iperf 2's bounceback test between two
# namespaces, once on an idle link and once while four iperf3 streams fill
# it. The background block starts the load first; lab starts the measured
# client once the load's client has started, and the load runs 3 s past the
# measurement unless it sets its own duration. Each loaded run's record
# carries the load's own figures (`background`; the report's "load Gb/s").
# The load runs one way (client -> server): iperf3's --bidir is not an
# attribute yet, so RRUL's "each way" is not expressed.
#   lab -chdir=examples/latency-under-load apply -auto-approve
#   lab -chdir=examples/latency-under-load report
# Measured here (namespaces on a 2-vCPU VM at load average 25, one 2 s run
# each): mean round trip 24 µs idle, 53 µs under two streams at 4.9 Gb/s;
# transactions/s 39 900 -> 18 300.
lab "latency-under-load" {
  description = "round-trip latency over veth, idle and under four iperf3 streams"
}

variable "duration" {
  type        = string
  default     = "10s"
  description = "bounceback duration per run"
}

variable "repeat" {
  type    = number
  default = 3
}

template "host" {
  os = "linux"
}

pair "veth" {
  template = template.host
  vcpu     = 1
}

experiment "idle" {
  pairs  = [pair.veth]
  repeat = var.repeat

  iperf2 {
    duration   = var.duration
    bounceback = true
  }
}

experiment "loaded" {
  pairs  = [pair.veth]
  repeat = var.repeat

  background {
    iperf3 {
      parallel = 4
    }
  }

  iperf2 {
    duration   = var.duration
    bounceback = true
  }

  # A maximum that holds on a busy shared host too; the idle experiment's
  # mean beside this one's is the comparison (`lab report`).
  expect "round trips under 5 ms on average while the link is loaded" {
    latency = { max_mean_us = 5000 }
  }
}

# Seed 003 (FreeBSD review notes, 2024): 1 % of the packets arriving at the
# receiver are dropped with
#   iptables -A INPUT -p tcp --dport 5001 -m statistic --mode nth --every 100 --packet 0 -j DROP
# and the sender runs `iperf -B … -c … -l 1M -t 10 -i 1 -e` with CUBIC and
# with NewReno. Published (FreeBSD 15-CURRENT sender, bhyve VMs over 1 GbE):
#   CUBIC (base) 193 Mb/s, NewReno 918 Mb/s   — NewReno/CUBIC ≈ 4.8
#   (Emulab bare metal 1 GbE: CUBIC 712 Mb/s, NewReno 783 Mb/s ≈ 1.1)
# Here the sender is Linux (reno is Linux's NewReno) in a network namespace
# on a veth pair, with no 1 GbE bottleneck: the absolute numbers are this
# machine's, and the shape measured on Linux is what the expect block holds
# (see README, "Reproducing a published result").
#   lab -chdir=examples/loss-cc apply -auto-approve && lab -chdir=examples/loss-cc check
lab "loss-cc" {
  description = "seed 003: 1% nth drop on the receiver, CUBIC vs Reno, iperf 2 -l 1M -e"
}

variable "duration" {
  type        = string
  default     = "10s"
  description = "iperf2 duration per run (the seed used 10s; the test uses 2s)"
}

variable "repeat" {
  type    = number
  default = 5
}

template "host" {
  os = "linux"
}

pair "veth" {
  template = template.host
  vcpu     = 1
}

experiment "loss-cc" {
  pairs  = [pair.veth]
  matrix = { cc = ["cubic", "reno"] }
  repeat = var.repeat
  warmup = 1

  guest {
    congestion_control = matrix.cc # reno namespace-wide; cubic per socket (iperf -Z)
  }
  server {
    loss        = "1%" # every 100th packet arriving at the receiver is dropped
    loss_method = "nth"
  }
  client {
    # The sender must emit wire-sized packets, or the nth rule drops 64 KB
    # GSO/TSO super-packets and "1 %" means something else.
    tso = false
    gso = false
  }

  iperf2 {
    duration = var.duration
    interval = "1s"
    length   = "1M"
    enhanced = true
  }

  # The shape: on a Linux sender, Reno and CUBIC stay within a factor of 2
  # of each other under 1 % nth loss; the FreeBSD CUBIC collapse of the
  # post (NewReno/CUBIC = 918/193 ≈ 4.8 in VMs; 783/712 ≈ 1.1 on Emulab)
  # would fail this. Measured here (Linux 6.18 in namespaces on a shared
  # 2-vCPU VM, 10 s runs, n = 5): CUBIC 2.42 ± 1.07, Reno 1.02 ± 0.53 Gb/s,
  # ratio 0.42, Fieller interval [0.19, 0.86] — inconclusive (interval
  # arithmetic, used before, gave [0.14, 1.15]); an earlier 5 s × 3 run gave
  # 0.87 [0.21, 2.62] by interval arithmetic. The noise is the machine's
  # (see README).
  expect "Reno and CUBIC within 2x under 1% nth loss" {
    ratio = { of = "cc=reno", over = "cc=cubic", between = [0.5, 2.0] }
  }
}

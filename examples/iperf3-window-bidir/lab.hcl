# iperf3's own socket options on the local back end: the TCP window
# (iperf3 -w, both ends' socket buffers) swept from 64 KB to 4 MB, each
# window once one way and once in both directions at the same time
# (--bidir: the table's throughput is the client-to-server direction; the
# record's metrics.reverse_bps is the other), with Nagle off (-N) and the
# packets marked AF11 (--dscp af11).
#   lab -chdir=examples/iperf3-window-bidir apply -auto-approve
#   lab -chdir=examples/iperf3-window-bidir report
#   lab -chdir=examples/iperf3-window-bidir report -format intervals-csv   # both directions' intervals
lab "iperf3-window-bidir" {
  description = "TCP window (iperf3 -w) 64K to 4M, one way and --bidir, over veth"
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

experiment "window" {
  pairs  = [pair.veth]
  matrix = { window = ["64K", "512K", "4M"], bidir = [false, true] }
  repeat = var.repeat

  iperf3 {
    duration = "5s"
    window   = matrix.window
    bidir    = matrix.bidir
    no_delay = true
    dscp     = "af11"
  }
}

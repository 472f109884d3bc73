# The quickstart lab: two network namespaces joined by a veth pair on this
# machine (the local back end, needs root), iperf3 between them.
#   lab -chdir=examples/quickstart apply -auto-approve
# (This copy, pinned in testdata/bundles/quickstart, repeats each cell 5 times.)
lab "quickstart" {
  description = "veth between two namespaces: MTU x GRO x streams"
}

template "host" {
  os = "linux" # the local back end runs guests as namespaces of this machine
}

pair "veth" {
  template = template.host
  vcpu     = 1 # server pinned to one CPU, client to another
}

experiment "mtu-gro" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000], gro = [false, true], streams = [1, 2] }
  repeat = 5 # the example runs each cell once; a reproduction needs a spread to judge

  guest {
    mtu = matrix.mtu
    gro = matrix.gro
  }

  iperf3 {
    duration = "2s"
    omit     = "1s"
    parallel = matrix.streams
  }
}

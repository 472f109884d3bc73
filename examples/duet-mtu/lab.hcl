# A duet (Bulej et al., ICPE 2020): the quickstart's two MTUs measured at
# the same moment on two equal veth pairs, the pairs swapped every second
# repeat. The machine's noise moves both flows of a repeat alike, so the
# shape mtu=9000 / mtu=1500 is judged on the ratio within each repeat.
#   lab -chdir=examples/duet-mtu apply -auto-approve
lab "duet-mtu" {
  description = "MTU 1500 vs 9000 as a duet: both at once on two veth pairs"
}

template "host" {
  os = "linux" # the local back end runs guests as namespaces of this machine
}

pair "a" {
  template = template.host
  vcpu     = 1
}

pair "b" {
  template = template.host
  vcpu     = 1
}

experiment "mtu" {
  pairs  = [pair.a, pair.b]
  design = "duet"
  matrix = { mtu = [1500, 9000] }
  repeat = 16 # even: 8 swap pairs, the units of the shape's interval

  guest {
    mtu = matrix.mtu
  }

  iperf3 {
    duration = "2s"
    omit     = "0s"
  }
}

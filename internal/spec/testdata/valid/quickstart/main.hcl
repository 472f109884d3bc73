lab "quickstart" {
  description = "Two network namespaces joined by a veth pair"
}

template "host" {}

pair "veth" {
  template = template.host
}

experiment "gro-mtu" {
  description = "GRO and MTU on veth"
  pairs       = [pair.veth]
  matrix      = { mtu = [1500, 9000], gro = [false, true], streams = [1, 2] }
  repeat      = 3

  guest {
    mtu = matrix.mtu
    gro = matrix.gro
  }

  iperf3 {
    duration = "10s"
    omit     = "1s"
    parallel = matrix.streams
  }
}

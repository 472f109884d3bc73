lab "vmx-lro" {
  description = "FreeBSD 14.2 vs Debian 12 on vmxnet3: LRO x MTU x streams"
}

variable "vcenter" {
  type    = string
  default = "https://127.0.0.1:8989/sdk"
}

provider "vsphere" "dc1" {
  url        = var.vcenter
  datacenter = "DC0"
}

template "freebsd" {
  source = "freebsd-14.2-tmpl"
  os     = "freebsd"
}

template "debian" {
  source = "debian-12-tmpl"
}

pair "fbsd" {
  template = template.freebsd
  nic { model = "vmxnet3" }
}

pair "deb" {
  template = template.debian
  nic { model = "vmxnet3" }
}

experiment "lro-mtu" {
  pairs  = [pair.fbsd, pair.deb]
  matrix = { lro = [false, true], mtu = [1500, 9000], streams = [1, 2, 3] }
  repeat = 3

  guest {
    mtu                = matrix.mtu
    lro                = matrix.lro
    congestion_control = "cubic"
    sysctl             = { "net.inet.tcp.sendspace" = 65536 }
    loss               = "0%"
  }

  iperf3 {
    duration = "30s"
    parallel = matrix.streams
    omit     = "2s"
  }

  expect "LRO helps FreeBSD (published: 2.4 -> 8.6 Gb/s)" {
    where = { pair = "fbsd", mtu = 1500, streams = 1 }
    ratio = { of = "lro=true", over = "lro=false", at_least = 2.5 }
  }
  expect "Debian with LRO, MTU 9000" {
    where      = { pair = "deb", lro = true, mtu = "9000" }
    throughput = { gbps = 17.5, tolerance = "15%" }
  }
  expect "No retransmits on a quiet link" {
    where       = { streams = 1 }
    retransmits = { max = 0 }
    ratio       = { of = "pair=deb", over = "pair=fbsd", between = [1, 4] }
  }
}

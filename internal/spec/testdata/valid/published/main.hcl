# Seed 000's home-lab table as data (a demonstration: the seed examples
# carry the full tables), checked cell by cell and by its shapes.
lab "published" {}

provider "vsphere" "dc1" {
  url        = "https://127.0.0.1:8989/sdk"
  datacenter = "DC0"
}

template "freebsd" {
  source = "freebsd-14.2-tmpl"
  os     = "freebsd"
}

pair "fbsd" {
  template = template.freebsd
  nic { model = "vmxnet3" }
}

experiment "lro-mtu" {
  pairs  = [pair.fbsd]
  matrix = { lro = [false, true], mtu = [1500, 9000], streams = [1] }
  repeat = 5

  guest {
    mtu = matrix.mtu
    lro = matrix.lro
  }

  iperf3 {
    duration = "30s"
    parallel = matrix.streams
  }

  expect "LRO helps by the published factor" {
    where = { mtu = 1500 }
    ratio = { of = "lro=true", over = "lro=false", published = published.seed-000-home, margin = "20%" }
  }
}

published "seed-000-home" {
  source   = "seed 000, FreeBSD list 2025 (D. Pasek), home-lab table"
  hardware = "Intel Core i3-6100U, ESXi, two VMs on one host, 1 vCPU"
  match    = { provider = "vsphere", cpu = "i3-6100U" }
  tool     = "iperf2"
  side     = "sender"
  metric   = "throughput"
  experiment = experiment.lro-mtu
  cells = [
    { where = { lro = false, mtu = 1500 }, value = 2.4 },
    { where = { lro = true, mtu = 1500 }, value = 8.6 },
    { where = { lro = true, mtu = 9000, streams = 1 }, value = 13.4 },
  ]
}

expect "FreeBSD LRO numbers as published at home" {
  published = published.seed-000-home
  margin    = "10%"
}

expect "the published ordering holds" {
  order = { published = published.seed-000-home }
}

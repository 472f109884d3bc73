# Seed 000: "FreeBSD 14.2 tcp throughput" (FreeBSD list, 2025, David Pasek).
# Two VMs on one ESXi host, vmxnet3 (FreeBSD vmx, Debian vmxnet3), 1 vCPU,
# iperf -P1/-P2/-P3 with LRO off/on and MTU 1500/9000. The published
# numbers (home lab, Core i3-6100U) are the expect blocks below.
#
# Credentials come from the environment, as for govc; the endpoint from
# -var vcenter=… or GOVC_URL:
#   GOVC_USERNAME=… GOVC_PASSWORD=… lab apply -var vcenter=https://vcenter.example/sdk
# The inventory names below are vcsim's defaults (the test plans this lab
# against the simulator): change them to yours. Both VMs are pinned to one
# host and each pair gets its own vSwitch there, without an uplink
# (link_mode = "own-switch"): VM-to-VM traffic only, at the pair's link MTU,
# and no production switch is changed. Each VM keeps a management NIC on
# "VM Network" for SSH; lab addresses the benchmark NIC (198.18.x.1/.2).

lab "vmxnet3-lro-mtu" {
  description = "FreeBSD 14.2 vs Debian 12 on vmxnet3: LRO x MTU x iperf streams, 1 vCPU (seed 000)"
}

variable "vcenter" {
  type        = string
  default     = "" # empty: GOVC_URL from the environment, as govc does
  description = "vCenter SDK URL, e.g. https://vcenter.example/sdk (no credentials here: GOVC_USERNAME / GOVC_PASSWORD)"
}

provider "vsphere" "dc" {
  url        = var.vcenter
  datacenter = "DC0"
  cluster    = "DC0_C0"
  host       = "DC0_C0_H0"  # the pairs' own vSwitches live on this host
  link_mode  = "own-switch" # the default with a host; "shared-switch" changes network's switch MTU instead
  datastore  = "LocalDS_0"
  network    = "VM Network" # the management NICs (SSH); the benchmark NICs are on the pairs' own port groups
  ip_timeout = "5m"
}

template "freebsd" {
  source = "freebsd-14.2-tmpl"
  os     = "freebsd"
  ssh {
    user             = "root"
    private_key_file = "~/.ssh/lab_ed25519"
  }
}

template "debian" {
  source = "debian-12-tmpl"
  os     = "linux"
  ssh {
    user             = "root"
    private_key_file = "~/.ssh/lab_ed25519"
  }
}

pair "fbsd" {
  template = template.freebsd
  vcpu     = 1
  memory   = "2GiB"
  nic { model = "vmxnet3" }
  link { mtu = 9000 } # jumbo-capable switch; the guests' MTU is the matrix's
}

pair "deb" {
  template = template.debian
  vcpu     = 1
  memory   = "2GiB"
  nic { model = "vmxnet3" }
  link { mtu = 9000 }
}

experiment "lro-mtu" {
  pairs  = [pair.fbsd, pair.deb]
  matrix = { lro = [false, true], mtu = [1500, 9000], streams = [1, 2, 3] }
  repeat = 3

  guest {
    mtu = matrix.mtu
    lro = matrix.lro
  }

  iperf3 {
    duration = "30s"
    omit     = "2s"
    parallel = matrix.streams
  }

  expect "FreeBSD: LRO helps, -P1 (published 2.4 -> 8.6 Gb/s, 3.5x)" {
    where = { pair = "fbsd", mtu = 1500, streams = 1 }
    ratio = { of = "lro=true", over = "lro=false", at_least = 2.5 }
  }
  expect "FreeBSD: MTU 9000 adds to LRO, -P1 (published 8.6 -> 13.4 Gb/s, +46%)" {
    where = { pair = "fbsd", lro = true, streams = 1 }
    ratio = { of = "mtu=9000", over = "mtu=1500", at_least = 1.3 }
  }
  expect "FreeBSD without LRO: 2.4 Gb/s whatever the streams" {
    where      = { pair = "fbsd", lro = false, mtu = 1500 }
    throughput = { gbps = 2.4, tolerance = "15%" }
  }
  expect "FreeBSD LRO + MTU 9000, -P3: 16.2 Gb/s" {
    where      = { pair = "fbsd", lro = true, mtu = 9000, streams = 3 }
    throughput = { gbps = 16.2, tolerance = "15%" }
  }
  expect "Debian without LRO: 14.8 Gb/s" {
    where      = { pair = "deb", lro = false, mtu = 1500 }
    throughput = { gbps = 14.8, tolerance = "15%" }
  }
  expect "Debian LRO + MTU 9000: 17.5 Gb/s" {
    where      = { pair = "deb", lro = true, mtu = 9000 }
    throughput = { gbps = 17.5, tolerance = "15%" }
  }
  expect "Debian: more streams do not help" {
    where = { pair = "deb", lro = true, mtu = 9000 }
    ratio = { of = "streams=3", over = "streams=1", between = [0.9, 1.1] }
  }
}

# Ring sizes on the Debian guest (Linux: `ethtool -G ens192 rx N tx N`,
# checked first against `ethtool -g`'s maximum, 4096 for vmxnet3, and read
# back into the results). FreeBSD's vmx sizes its rings only at attach
# (loader tunables dev.vmx.0.iflib.override_nrxds/_ntxds), so the plan
# refuses rx_ring/tx_ring for the fbsd pair. Linux vmxnet3 rounds the RX
# ring up to a multiple of 32 x buffers per packet (more than one buffer
# at MTU 9000; vmxnet3_set_ringparam in drivers/net/vmxnet3/
# vmxnet3_ethtool.c), which the read-back would report as "did not take
# effect": the sizes below are multiples of 384, so they stay as asked.
experiment "deb-rings" {
  pairs  = [pair.deb]
  matrix = { rx_ring = [768, 1536, 3072] }
  repeat = 3

  guest {
    mtu     = 9000
    lro     = true
    rx_ring = matrix.rx_ring
    tx_ring = 4096
  }

  iperf3 {
    duration = "30s"
    omit     = "2s"
  }
}

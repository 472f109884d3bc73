# QEMU's vmxnet3 against virtio-net, two Debian guests per NIC model on one
# libvirt host (issue 33; the sweep of seed 000, "FreeBSD 14.2 tcp
# throughput": LRO x MTU x iperf streams at 1 vCPU).
#
# QEMU's vmxnet3 (-device vmxnet3, <model type='vmxnet3'/>) is QEMU's model
# of VMware's device (qemu hw/net/vmxnet3.c: device and UPT revision 1, MTU
# 60-9000), not ESXi's: what it measures here says nothing about vSphere.
# examples/vmxnet3-lro-mtu is the seed on ESXi itself.
#
# The pairs are the same guests (one template, 1 vCPU, 768 MiB) on the same
# kind of link; only the NIC model differs. Their runs interleave: each
# block holds every (pair, cell) once, in an order drawn from the plan's
# seed (the default order), so host drift lands on neither model.
#
# Build the template with
#   scripts/build-kvm-image.sh -k ~/.ssh/lab_ed25519.pub
# (its initrd boots from virtio disks; the vmxnet3 module ships in the
# image's kernel, udev loads it) and put base.qcow2, vmlinux and initrd.img
# into a storage pool (docs/backend-libvirt.md). Then:
#   lab -chdir=examples/kvm-vmxnet3-vs-virtio apply -auto-approve -var pool=POOL
# Without working KVM add -var accel=tcg (QEMU emulation: slower; the shapes
# below are stated for it too, see each one).
lab "kvm-vmxnet3-vs-virtio" {
  description = "QEMU vmxnet3 vs virtio-net between Debian guests: LRO x MTU x streams (seed 000's sweep)"
}

variable "uri" {
  type    = string
  default = "qemu:///system"
}
variable "pool" {
  type    = string
  default = "default"
}
variable "accel" {
  type    = string
  default = "kvm"
}
variable "image" {
  type    = string
  default = "base.qcow2"
}
variable "kernel" {
  type    = string
  default = "vmlinux"
}
variable "initrd" {
  type    = string
  default = "initrd.img"
}
variable "ssh_key" {
  type    = string
  default = "~/.ssh/lab_ed25519"
}
variable "duration" {
  type    = string
  default = "10s"
}
variable "repeat" {
  type    = number
  default = 3
}

provider "libvirt" "host" {
  uri        = var.uri
  pool       = var.pool
  accel      = var.accel
  kernel     = var.kernel
  initrd     = var.initrd
  nic_driver = "qemu" # virtio's userspace backend, like vmxnet3's (QEMU has no vhost for vmxnet3)
}

template "debian" {
  source = var.image
  os     = "linux"
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}

# Linux's vmxnet3 driver (drivers/net/vmxnet3) attaches to QEMU's device:
# LRO on by default (NETIF_F_LRO among the features vmxnet3_declare_features
# turns on), MTU up to 9000 at device revision 1.
pair "vmxnet3" {
  template = template.debian
  vcpu     = 1
  memory   = "768MiB"
  nic { model = "vmxnet3" }
  link { mtu = 9000 }
}

# virtio_net: Linux 6.1 has no LRO toggle for it (lro off [fixed]; the
# host's large segments are "rx-gro-hw" since Linux 5.11), GRO in software.
pair "virtio" {
  template = template.debian
  vcpu     = 1
  memory   = "768MiB"
  nic { model = "virtio" }
  link { mtu = 9000 }
}

# Both models at each driver's defaults (vmxnet3: LRO and GRO on; virtio:
# GRO on, TSO on both senders), MTU x streams as seed 000 swept them.
experiment "models" {
  pairs  = [pair.vmxnet3, pair.virtio]
  matrix = { mtu = [1500, 9000], streams = [1, 2] }
  repeat = var.repeat

  guest {
    mtu = matrix.mtu
  }

  iperf3 {
    duration = var.duration
    omit     = "1s"
    parallel = matrix.streams
  }

  # TSO on the sender and coalescing on the receiver (vmxnet3's LRO, which
  # makes QEMU take the tap's large segments whole: hw/net/vmxnet3.c
  # vmxnet3_update_features; virtio's guest TSO offloads) move 64 KB
  # segments whatever the MTU: jumbo frames should not matter much on
  # either model (examples/kvm-virtio-jumbo measured virtio at 2.8 vs
  # 2.9 Gb/s under TCG with offloads on).
  expect "vmxnet3: with LRO and TSO the MTU hardly matters" {
    where = { pair = "vmxnet3", streams = 1 }
    ratio = { of = "mtu=9000", over = "mtu=1500", between = [0.6, 1.6] }
  }
  expect "virtio: with guest TSO offloads the MTU hardly matters" {
    where = { pair = "virtio", streams = 1 }
    ratio = { of = "mtu=9000", over = "mtu=1500", between = [0.6, 1.6] }
  }
  # One vCPU per guest: a second stream adds no CPU (seed 000's Debian:
  # 17.5 / 17.5 Gb/s at -P1 and -P3).
  expect "vmxnet3: a second stream does not help one vCPU" {
    where = { pair = "vmxnet3", mtu = 1500 }
    ratio = { of = "streams=2", over = "streams=1", between = [0.6, 1.6] }
  }
  expect "virtio: a second stream does not help one vCPU" {
    where = { pair = "virtio", mtu = 1500 }
    ratio = { of = "streams=2", over = "streams=1", between = [0.6, 1.6] }
  }
}

# Seed 000's LRO switch, on the model that has one. Off, QEMU's tap cuts
# every 64 KB segment into MTU-sized frames and the emulated device takes
# each through its receive ring and an interrupt; on, the guest gets the
# segment whole (qemu_set_offload tso4/tso6 = the guest's UPT1_F_LRO).
# Per-packet cost is what TCG makes dearest, as virtio's MTU 1500 vs 9000
# with offloads off showed (examples/kvm-virtio-jumbo: x2.3).
experiment "lro" {
  pairs  = [pair.vmxnet3]
  matrix = { lro = [false, true] }
  repeat = var.repeat

  guest {
    mtu = 1500
    lro = matrix.lro
  }

  iperf3 {
    duration = var.duration
    omit     = "1s"
  }

  expect "vmxnet3: LRO helps at MTU 1500" {
    where = { pair = "vmxnet3" }
    ratio = { of = "lro=true", over = "lro=false", at_least = 1.3 }
  }
}

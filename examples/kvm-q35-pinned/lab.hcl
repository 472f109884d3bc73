# virtio-net between two KVM guests on the q35 machine type, each guest's
# vCPU pinned to a host CPU of its own and QEMU's own threads kept apart
# (libvirt's <cputune>): the placement a repeatable virtio benchmark needs
# on a busy host. Each guest has two NICs: a management NIC (first) on a
# network lab makes for SSH and leases, and the benchmark NIC on the
# measured link (MTU 9000), which carries nothing but the benchmark, with
# a 1024-descriptor RX ring on the host side. Each guest is named (hostname)
# after its domain.
#
# Build the template as in examples/kvm-virtio-jumbo (scripts/build-kvm-image.sh),
# put base.qcow2, vmlinux and initrd.img into a pool, then:
#   lab -chdir=examples/kvm-q35-pinned apply -auto-approve -var pool=POOL
# Without working KVM add -var accel=tcg. The CPUs below suit a host with
# 4 CPUs or more; `lab plan` asks libvirtd how many its host has and refuses
# a CPU it lacks, at the line that asks for it.
lab "kvm-q35-pinned" {
  description = "virtio-net on q35 with pinned vCPUs and a management NIC"
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
variable "ssh_key" {
  type    = string
  default = "~/.ssh/lab_ed25519"
}
variable "server_cpus" {
  type    = string
  default = "2"
}
variable "client_cpus" {
  type    = string
  default = "3"
}
variable "emulator_cpus" {
  type    = string
  default = "0-1"
}
variable "duration" {
  type    = string
  default = "10s"
}

provider "libvirt" "host" {
  uri     = var.uri
  pool    = var.pool
  accel   = var.accel
  kernel  = "vmlinux" # volumes in the pool (direct kernel boot)
  initrd  = "initrd.img"
  machine = "q35" # PCIe: libvirt adds a root port per virtio device
  # SSH over a second NIC on an isolated network lab makes per pair
  # (or name an existing libvirt network, e.g. "default").
  management = "lab"

  cpu_pin {
    server   = var.server_cpus # one host CPU per vCPU, in order
    client   = var.client_cpus
    emulator = var.emulator_cpus # QEMU's I/O and emulation threads
  }
}

template "debian" {
  source = var.image
  os     = "linux"
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}

pair "pinned" {
  template = template.debian
  vcpu     = 1
  memory   = "768MiB"
  nic {
    model = "virtio"
    # QEMU's host-side RX ring (256 by default): the most the guest's
    # ethtool -G may ask for. libvirt takes tx_queue_size only for
    # vhost-user interfaces, so lab refuses it here.
    rx_queue_size = 1024
  }
  link {
    mtu = 9000
  }
}

experiment "throughput" {
  pairs  = [pair.pinned]
  repeat = 3

  guest {
    mtu = 9000
  }

  iperf3 {
    duration = var.duration
    omit     = "1s"
  }
}

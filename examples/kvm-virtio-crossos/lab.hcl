# Seed 002: "FreeBSD network performance on KVM/Qemu" (blog, 2018) — Fedora 29
# and FreeBSD 11.2 guests on KVM/QEMU, virtio-net, iperf3 -c for 10 s, all
# four directed pairs, on a Ryzen 7 1700X host. Published (sender, Gb/s):
# Fedora→Fedora 31.6, FreeBSD→FreeBSD 24.8, FreeBSD→Fedora 29.9,
# Fedora→FreeBSD 25.3, 0 retransmits each.
#
# Needs two templates in the pool: a Fedora and a FreeBSD image that boot
# from their own disk (boot loader inside), take DHCP on the virtio NIC and
# let root in with the key below (FreeBSD's sshd says PermitRootLogin no by
# default: set PermitRootLogin prohibit-password in the image). Neither
# ships with lab (only the Debian builder, scripts/build-kvm-image.sh,
# does); the numbers are expectations for a comparable host, not for TCG.
#   lab -chdir=examples/kvm-virtio-crossos apply -auto-approve -var pool=POOL
lab "kvm-virtio-crossos" {
  description = "Fedora vs FreeBSD on KVM virtio-net, all four directed pairs (seed 002)"
}

variable "pool" {
  type    = string
  default = "default"
}
variable "fedora_image" {
  type    = string
  default = "fedora-29.qcow2"
}
variable "freebsd_image" {
  type    = string
  default = "freebsd-11.2.qcow2"
}
variable "accel" {
  type    = string
  default = "kvm" # "tcg" where KVM cannot boot the guests (lab plan says so)
}
variable "ssh_key" {
  type    = string
  default = "~/.ssh/lab_ed25519"
}

provider "libvirt" "host" {
  pool  = var.pool
  accel = var.accel
}

template "fedora" {
  source = var.fedora_image
  os     = "linux"
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}

template "freebsd" {
  source = var.freebsd_image
  os     = "freebsd"
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}

# The client sends (iperf3 -c without -R), so client→server is the
# direction the post names.
pair "fed-fed" {
  template = template.fedora
  vcpu     = 2
  memory   = "2GiB"
  nic { model = "virtio" }
}

pair "bsd-bsd" {
  template = template.freebsd
  vcpu     = 2
  memory   = "2GiB"
  nic { model = "virtio" }
}

pair "bsd-to-fed" {
  server = template.fedora
  client = template.freebsd
  vcpu   = 2
  memory = "2GiB"
  nic { model = "virtio" }
}

pair "fed-to-bsd" {
  server = template.freebsd
  client = template.fedora
  vcpu   = 2
  memory = "2GiB"
  nic { model = "virtio" }
}

experiment "directed" {
  pairs  = [pair.fed-fed, pair.bsd-bsd, pair.bsd-to-fed, pair.fed-to-bsd]
  repeat = 3

  iperf3 {
    duration = "10s"
  }

  expect "Fedora -> Fedora (published 31.6 Gb/s)" {
    where      = { pair = "fed-fed" }
    throughput = { gbps = 31.6, tolerance = "15%" }
  }
  expect "FreeBSD -> FreeBSD (published 24.8 Gb/s)" {
    where      = { pair = "bsd-bsd" }
    throughput = { gbps = 24.8, tolerance = "15%" }
  }
  expect "FreeBSD -> Fedora (published 29.9 Gb/s)" {
    where      = { pair = "bsd-to-fed" }
    throughput = { gbps = 29.9, tolerance = "15%" }
  }
  expect "Fedora -> FreeBSD (published 25.3 Gb/s)" {
    where      = { pair = "fed-to-bsd" }
    throughput = { gbps = 25.3, tolerance = "15%" }
  }
}

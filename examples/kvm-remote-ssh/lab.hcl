# A remote KVM host driven over SSH (qemu+ssh://), its guests reached
# through that host.
#
# lab logs in to the hypervisor with its own SSH client (key file or
# ssh-agent, the host's key checked in a known_hosts file) and talks to
# libvirtd's socket there; the guests sit on a lab-owned isolated network
# on that host, which only the host can reach, so lab's SSH to them jumps
# through it (jump_via_host, as ssh -J). Build the template as for
# kvm-virtio-jumbo (scripts/build-kvm-image.sh) on the host, then:
#   lab -chdir=examples/kvm-remote-ssh apply -auto-approve \
#     -var uri=qemu+ssh://root@kvm1.example.net/system -var pool=POOL
lab "kvm-remote-ssh" {
  description = "virtio-net between two guests of a remote KVM host, reached over SSH"
}

variable "uri" {
  type    = string
  default = "qemu+ssh://root@kvm1.example.net/system"
}
variable "host_key_file" { # lab's key for the hypervisor
  type    = string
  default = "~/.ssh/id_ed25519"
}
variable "known_hosts" {
  type    = string
  default = "~/.ssh/known_hosts"
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
variable "ssh_key" { # lab's key for the guests
  type    = string
  default = "~/.ssh/lab_ed25519"
}
variable "duration" {
  type    = string
  default = "10s"
}

provider "libvirt" "remote" {
  uri              = var.uri
  private_key_file = var.host_key_file
  known_hosts_file = var.known_hosts # the hypervisor's key must be listed
  jump_via_host    = true            # guests through the hypervisor
  pool             = var.pool
  accel            = var.accel
  kernel           = "vmlinux" # volumes in the pool (direct kernel boot)
  initrd           = "initrd.img"
  lease_timeout    = "3m"
  nic_driver       = "qemu"
}

template "debian" {
  source = var.image
  os     = "linux"
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}

pair "remote" {
  template = template.debian
  vcpu     = 1
  memory   = "768MiB"
  nic {
    model = "virtio"
  }
}

experiment "throughput" {
  pairs = [pair.remote]
  iperf3 {
    duration = var.duration
    omit     = "1s"
  }
}

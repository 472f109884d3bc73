# A stock cloud image as the template: lab seeds each guest at first boot
# (cloud-init NoCloud: lab's SSH key, a hostname of its own, packages), so
# nothing has to be baked into the image. Download the image once into a
# pool, e.g. Debian's generic cloud image:
#   curl -LO https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2
#   cp debian-12-genericcloud-amd64.qcow2 /var/lib/libvirt/images/ && virsh pool-refresh default
#   lab -chdir=examples/kvm-cloud-image apply -auto-approve
# The guests install iperf3 and ethtool at first boot, over the management
# network (NAT here); the measured link stays isolated.
lab "kvm-cloud-image" {
  description = "virtio-net between two guests of a stock cloud image"
}

variable "uri" {
  type    = string
  default = "qemu:///system"
}
variable "pool" {
  type    = string
  default = "default"
}
variable "image" {
  type    = string
  default = "debian-12-genericcloud-amd64.qcow2"
}
variable "accel" {
  type    = string
  default = "kvm" # "tcg" where KVM cannot boot the guests (lab plan says so)
}
variable "ssh_key" {
  type    = string
  default = "~/.ssh/lab_ed25519" # its public half is what the seed authorises
}

provider "libvirt" "host" {
  uri        = var.uri
  accel      = var.accel
  pool       = var.pool
  management = "lab" # SSH and package downloads over a NIC of their own
  nat        = true  # the management network reaches out; the link does not
}

template "debian-cloud" {
  source = var.image
  os     = "linux"
  cloud_init {
    packages = ["iperf3", "ethtool"]
  }
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}

pair "cloud" {
  template = template.debian-cloud
  vcpu     = 2
  memory   = "1GiB"
  nic {
    model  = "virtio"
    queues = 2
  }
}

experiment "streams" {
  pairs  = [pair.cloud]
  matrix = { streams = [1, 4] }
  repeat = 3

  iperf3 {
    duration = "10s"
    omit     = "1s"
    parallel = matrix.streams
  }
}

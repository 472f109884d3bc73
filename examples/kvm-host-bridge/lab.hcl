# virtio-net between two KVM guests whose benchmark NICs sit on a Linux
# bridge you made (link_bridge; or, with link_macvtap = "eth1", on macvtap
# over a host NIC) instead of a network lab makes. lab never changes the
# bridge: the link's MTU must be the bridge's (checked through libvirt's
# interface API when the link is made, the bridge named if not), and since
# nothing answers DHCP there, lab logs in over the management NIC and gives
# each guest its link address (198.18.x.2 and .3/24) itself.
#
# Build the template as in examples/kvm-virtio-jumbo, make the bridge
# (ip link add br-bench type bridge mtu 9000; ip link set br-bench up), then:
#   lab -chdir=examples/kvm-host-bridge apply -auto-approve -var pool=POOL
lab "kvm-host-bridge" {
  description = "virtio-net over an existing host bridge, addressed by lab over the management NIC"
}

variable "pool" {
  type    = string
  default = "default"
}
variable "accel" {
  type    = string
  default = "kvm"
}
variable "bridge" {
  type    = string
  default = "br-bench"
}
variable "ssh_key" {
  type    = string
  default = "~/.ssh/lab_ed25519"
}
variable "duration" {
  type    = string
  default = "10s"
}

provider "libvirt" "host" {
  pool        = var.pool
  accel       = var.accel
  kernel      = "vmlinux"
  initrd      = "initrd.img"
  link_bridge = var.bridge # lab's own networks otherwise
  management  = "lab"      # required: lab sets the link addresses over SSH
}

template "debian" {
  source = "base.qcow2"
  os     = "linux"
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}

pair "bridged" {
  template = template.debian
  vcpu     = 1
  memory   = "768MiB"
  link {
    mtu = 9000 # must equal the bridge's MTU
  }
}

experiment "throughput" {
  pairs  = [pair.bridged]
  repeat = 3

  guest {
    mtu = 9000
  }

  iperf3 {
    duration = var.duration
  }
}

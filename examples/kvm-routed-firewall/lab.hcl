# Seed 001's topology on KVM: client -> firewall -> server, the firewall a
# third guest with a CPU of its own (a namespace router, as on the local
# back end, forwards in the sender's softirq, so its cost never shows).
# The pair's two links are two networks lab makes; the router domain has a
# benchmark NIC on each (after its management NIC), addressed by lab with
# .2 of each /24 over SSH, and forwards; the server and client keep their
# DHCP leases and route the peer's /24 via the router. SSH goes over the
# management NICs, so the firewall sees nothing but the benchmark.
#
# Build the template as in examples/kvm-virtio-jumbo (scripts/build-kvm-image.sh),
# put base.qcow2, vmlinux and initrd.img into a pool, then:
#   lab -chdir=examples/kvm-routed-firewall apply -auto-approve -var pool=POOL
# Without working KVM add -var accel=tcg. A FreeBSD image works the same
# way (template os = "freebsd": the router forwards with sysctl
# net.inet.ip.forwarding=1 and firewall takes pf's presets, e.g.
# "keep-state" and "no-state").
lab "kvm-routed-firewall" {
  description = "client -> firewall guest -> server on KVM: nftables off / stateless / stateful"
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
variable "duration" {
  type    = string
  default = "10s"
}
variable "rules" {
  type        = number
  default     = 200
  description = "length of the rule list each packet walks without state tracking"
}

provider "libvirt" "host" {
  uri    = var.uri
  pool   = var.pool
  accel  = var.accel
  kernel = "vmlinux" # volumes in the pool (direct kernel boot)
  initrd = "initrd.img"
  # Routed pairs need it: lab sets the router's link addresses over a
  # management NIC on a network lab makes per link.
  management = "lab"
}

template "debian" {
  source = var.image
  os     = "linux"
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}

pair "fw" {
  template = template.debian # server and client
  via      = template.debian # the firewall guest between them
  vcpu     = 1
  memory   = "768MiB"
  nic { model = "virtio" }
}

experiment "firewall" {
  pairs  = [pair.fw]
  repeat = 3
  matrix = { firewall = ["off", "stateless", "stateful"] }

  router {
    firewall = {
      off = ""
      # pf "no state": no connection tracking, every packet walks the list.
      stateless = join("\n", concat(
        ["chain raw {", "type filter hook prerouting priority raw; policy accept;", "notrack", "}"],
        ["chain forward {", "type filter hook forward priority 0; policy drop;"],
        [for p in range(20000, 20000 + var.rules) : "tcp dport ${p} drop"],
        ["ip protocol tcp accept", "}"],
      ))
      # pf "keep state": established flows skip the list.
      stateful = join("\n", concat(
        ["chain forward {", "type filter hook forward priority 0; policy drop;", "ct state established,related accept"],
        [for p in range(20000, 20000 + var.rules) : "tcp dport ${p} drop"],
        ["ct state new ip protocol tcp accept", "}"],
      ))
    }[matrix.firewall]
  }

  iperf3 {
    duration = var.duration
    omit     = "1s"
  }
}

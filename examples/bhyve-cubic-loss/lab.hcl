# Seed 003 (FreeBSD review notes, 2024) on its own hardware kind: two bhyve
# VMs, a FreeBSD sender and a Linux (Ubuntu) receiver; the receiver drops
# every 100th arriving packet
#   iptables … -m statistic --mode nth --every 100 --packet 0 -j DROP
# and the sender runs `iperf -c … -l 1M -t 10 -i 1 -e` with CUBIC and with
# NewReno. Published (FreeBSD 15-CURRENT sender, bhyve VMs, 1 GbE):
#   CUBIC (base) 193 Mb/s, NewReno 918 Mb/s.
#
#   lab -chdir=examples/bhyve-cubic-loss apply -var bhyve_host=192.0.2.5
#
# NOT RUN on a real bhyve host or FreeBSD guest: the bhyve provider and the
# FreeBSD driver are tested against an in-process SSH server replaying
# FreeBSD output (see README, "bhyve back end and FreeBSD guests").
#
# The host needs vm-bhyve with two stopped template VMs (a FreeBSD 14 guest
# with iperf2 installed and an Ubuntu guest with iperf and iptables), both
# with your key in root's authorized_keys and DHCP on their NIC; the switch
# "public" must be on a network lab can reach.

lab "bhyve-cubic-loss" {
  description = "seed 003 on bhyve: FreeBSD sender, Linux receiver with 1% nth drop, CUBIC vs NewReno"
}

variable "bhyve_host" {
  type        = string
  description = "SSH address of the FreeBSD 14 bhyve host"
}
variable "duration" {
  type    = string
  default = "10s"
}

provider "bhyve" "box" {
  host             = var.bhyve_host
  user             = "root"
  private_key_file = "~/.ssh/id_ed25519"
  # host_key        = "ssh-ed25519 AAAA…"   # pin the host's key
  backend           = "vm-bhyve"
  datastore         = "zroot/vm"
  switch            = "public" # existing vm-bhyve switch; remove it to let lab make one per pair
  address_discovery = "arp"
  # network_backend = "tap" (default): bhyve's tap offers the guest no
  # offloads, so this experiment toggles none; the sender's TSO is off.
}

template "freebsd" {
  provider = provider.bhyve.box
  source   = "fbsd14-tmpl"
  os       = "freebsd"
  ssh { user = "root" }
}

template "ubuntu" {
  provider = provider.bhyve.box
  source   = "ubuntu2204-tmpl"
  os       = "linux"
  ssh { user = "root" }
}

pair "bhyve" {
  server = template.ubuntu  # receiver
  client = template.freebsd # sender
  vcpu   = 2
  memory = "2GiB"
}

experiment "cubic-vs-newreno" {
  pairs  = [pair.bhyve]
  matrix = { cc = ["cubic", "newreno"] }
  repeat = 5
  warmup = 1

  server {
    loss        = "1%" # every 100th packet arriving at the receiver is dropped
    loss_method = "nth"
  }
  client {
    congestion_control = matrix.cc # FreeBSD: kldload cc_<algo>, net.inet.tcp.cc.algorithm
    tso                = false     # wire-sized packets, so "1 %" is 1 % of packets
  }

  iperf2 {
    duration = var.duration
    interval = "1s"
    length   = "1M"
    enhanced = true
  }
}

lab "messy" {
description="written in a hurry"
}

variable "mtu" {
    type = number
  default =   1500
}
template "host" { os = "linux" }
pair "veth" {
  template=template.host
  vcpu = 1 # pinned
  memory   =   "1GiB"    # a lot
}
experiment "e" {
pairs=[pair.veth]
  matrix = {mtu=[1500,9000], gro=[false,true]}
      guest {
  mtu = matrix.mtu
  gro=matrix.gro
  }
  iperf3 { duration="1s" }
}

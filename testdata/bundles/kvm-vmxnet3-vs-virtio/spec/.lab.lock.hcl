# This file is maintained by lab: what this lab's results depended on.
# Commit it beside the spec. `lab apply` warns when what it observes drifts
# from it (and refuses with -locked); `lab init -upgrade` rewrites it from
# the latest run.

machine "pair.virtio.client" {
  template = "sha256:a68b461df46cd75ae541a9ab5c9d0b65b92fc09e7144a34fbfce0b3cbef2ef7f"
  kernel   = "6.1.0-50-amd64"
  driver   = "virtio_net"
}

machine "pair.virtio.server" {
  template = "sha256:a68b461df46cd75ae541a9ab5c9d0b65b92fc09e7144a34fbfce0b3cbef2ef7f"
  kernel   = "6.1.0-50-amd64"
  driver   = "virtio_net"
}

machine "pair.vmxnet3.client" {
  template = "sha256:a68b461df46cd75ae541a9ab5c9d0b65b92fc09e7144a34fbfce0b3cbef2ef7f"
  kernel   = "6.1.0-50-amd64"
  driver   = "vmxnet3"
}

machine "pair.vmxnet3.server" {
  template = "sha256:a68b461df46cd75ae541a9ab5c9d0b65b92fc09e7144a34fbfce0b3cbef2ef7f"
  kernel   = "6.1.0-50-amd64"
  driver   = "vmxnet3"
}

tool "iperf3" {
  version = "iperf 3.12"
}

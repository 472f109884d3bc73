# This file is maintained by lab: what this lab's results depended on.
# Commit it beside the spec. `lab apply` warns when what it observes drifts
# from it (and refuses with -locked); `lab init -upgrade` rewrites it from
# the latest run.

machine "pair.jumbo.client" {
  template = "sha256:5d29a2ce0365a1d394950a36c330f92fdc4d5432a0970053163863f6f54b6804"
  kernel   = "6.1.0-50-amd64"
  driver   = "virtio_net"
}

machine "pair.jumbo.server" {
  template = "sha256:5d29a2ce0365a1d394950a36c330f92fdc4d5432a0970053163863f6f54b6804"
  kernel   = "6.1.0-50-amd64"
  driver   = "virtio_net"
}

tool "iperf3" {
  version = "iperf 3.12"
}

lab "bad" {}
template "t" {}
pair "p" {
  template = template.t
  nic {
    rx_queue_size = 768 # ERROR: Invalid virtio ring size
  }
}

lab "bad" {}
template "t" {}
pair "p" {
  template = template.t
  nic {
    rx_queue_size = 2048 # ERROR: Invalid rx_queue_size
  }
}

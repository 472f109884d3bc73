lab "bad" {}
template "t" {}
pair "p" {
  template = template.t
  nic {
    tx_queue_size = 128 # ERROR: Invalid tx_queue_size
  }
}

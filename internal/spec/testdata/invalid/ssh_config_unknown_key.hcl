lab "bad" {}
template "t" {
  ssh {
    ssh_config      = "~/.ssh/config"
    strict_host_key = "no" # ERROR: Unsupported argument
  }
}

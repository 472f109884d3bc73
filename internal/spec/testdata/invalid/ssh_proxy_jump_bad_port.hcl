lab "bad" {}
template "t" {
  ssh {
    user       = "root"
    proxy_jump = "admin@kvm-host:99999" # ERROR: Invalid proxy_jump
  }
}

lab "bad" {}
template "t" {
  ssh {
    agent            = true
    known_hosts_file = "" # ERROR: Invalid known hosts file
  }
}

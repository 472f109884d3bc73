lab "bad" {}
template "t" {
  cloud_init {
    user_data = "packages: [iperf3]" # ERROR: Invalid user_data
  }
}

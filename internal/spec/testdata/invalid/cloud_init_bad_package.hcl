lab "bad" {}
template "t" {
  cloud_init {
    packages = ["iperf3", "rm -rf /"] # ERROR: Invalid package name
  }
}

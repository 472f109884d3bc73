lab "cross-os" {
  description = "FreeBSD server, Debian client on vmxnet3"
}

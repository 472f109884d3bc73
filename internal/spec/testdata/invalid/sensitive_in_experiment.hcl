lab "bad" {}
variable "token" {
  sensitive = true
  default   = "s3cr3t"
}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs       = [pair.p]
  description = "run ${var.token}" # ERROR: Sensitive variable in an experiment
  iperf3 {}
}

lab "vars" {
  description = format("MTU %d vs %d", var.mtu_small, var.mtu_big)
}

variable "mtu_big" {
  type        = number
  default     = 9000
  description = "The jumbo MTU"
  validation {
    condition     = var.mtu_big >= 1280
    error_message = "The jumbo MTU must be at least 1280."
  }
}

variable "mtu_small" {
  type    = number
  default = 1500
}

variable "cc" {
  type    = string
  default = "cubic"
}

variable "streams" {
  type    = list(number)
  default = [1, 4]
}

variable "token" {
  type      = string
  default   = "secret"
  sensitive = true
}

template "host" {
  os = lower("LINUX")
}

pair "veth" {
  template = template.host
}

experiment "mtu" {
  pairs  = [pair.veth]
  matrix = { mtu = [var.mtu_small, var.mtu_big], streams = var.streams }
  guest {
    mtu                = matrix.mtu
    congestion_control = var.cc
    sysctl             = { "net.core.rmem_max" = max(matrix.mtu * 100, 212992) }
  }
  iperf3 {
    parallel = matrix.streams
    duration = format("%ds", 5 * 2)
  }
}

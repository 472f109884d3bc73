lab "bad" {}
variable "mtu" {
  type    = number
  default = 100 # ERROR: Invalid value for variable
  validation {
    condition     = var.mtu >= 1280
    error_message = "The MTU must be at least 1280."
  }
}

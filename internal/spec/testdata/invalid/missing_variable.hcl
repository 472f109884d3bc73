lab "bad" {
  description = var.vc
}
variable "vc" { # ERROR: No value for required variable
  type = string
}

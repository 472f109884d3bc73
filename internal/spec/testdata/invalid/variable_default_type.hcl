lab "bad" {}
variable "n" {
  type    = number
  default = "many" # ERROR: Invalid value for variable
}
